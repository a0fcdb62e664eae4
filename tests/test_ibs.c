/*
 * test_ibs.c - the IBS decoder over constructed register values: every
 * field where AMD's manuals (and Linux's asm/amd/ibs.h) put it, the
 * register count the capabilities promise, every DataSrc code of both
 * encodings, Zen 3's erratum, RipInvalid and invalid addresses.
 */
#include "check.h"
#include "sampler/ibs.h"
#include "sampler/ibs_probe.h"
#include "sampler/ibs_source.h"
#include "model/ibs_model.h"
#include "ring/record.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ALL_CAPS	0xfffu

/* The raw bytes perf hands over: caps, then n registers. */
static size_t raw_of(uint8_t *buf, uint32_t caps, const uint64_t *regs, unsigned n)
{
	memcpy(buf, &caps, 4);
	memcpy(buf + 4, regs, 8 * (size_t)n);
	return 4 + 8 * (size_t)n;
}

static struct ibs_sample op_with(uint32_t caps, const uint64_t *regs, unsigned n)
{
	uint8_t buf[4 + 8 * IBS_MAX_REGS];
	struct ibs_sample s;
	char err[256];

	CHECK(ibs_parse(IBS_OP, buf, raw_of(buf, caps, regs, n), &s, err, sizeof(err)) == 0);
	return s;
}

/*
 * Where each field is, written down from the manuals apart from the
 * decoder's table, so a slip in either shows.
 */
static const struct {
	enum ibs_field f;
	unsigned reg, lo, width;
} where[] = {
	{ IBS_F_OP_MAXCNT, IBS_OP_CTL, 0, 16 }, { IBS_F_OP_L3MISSONLY, IBS_OP_CTL, 16, 1 },
	{ IBS_F_OP_EN, IBS_OP_CTL, 17, 1 }, { IBS_F_OP_VAL, IBS_OP_CTL, 18, 1 },
	{ IBS_F_OP_CNT_CTL, IBS_OP_CTL, 19, 1 }, { IBS_F_OP_MAXCNT_EXT, IBS_OP_CTL, 20, 7 },
	{ IBS_F_OP_CURCNT, IBS_OP_CTL, 32, 27 }, { IBS_F_OP_RIP, IBS_OP_RIP, 0, 64 },
	{ IBS_F_COMP_TO_RET, IBS_OP_DATA, 0, 16 }, { IBS_F_TAG_TO_RET, IBS_OP_DATA, 16, 16 },
	{ IBS_F_OP_RETURN, IBS_OP_DATA, 34, 1 }, { IBS_F_BRN_TAKEN, IBS_OP_DATA, 35, 1 },
	{ IBS_F_BRN_MISP, IBS_OP_DATA, 36, 1 }, { IBS_F_BRN_RET, IBS_OP_DATA, 37, 1 },
	{ IBS_F_RIP_INVALID, IBS_OP_DATA, 38, 1 }, { IBS_F_BRN_FUSE, IBS_OP_DATA, 39, 1 },
	{ IBS_F_MICROCODE, IBS_OP_DATA, 40, 1 },
	{ IBS_F_DATA_SRC_LO, IBS_OP_DATA2, 0, 3 }, { IBS_F_RMT_NODE, IBS_OP_DATA2, 4, 1 },
	{ IBS_F_CACHE_HIT_ST, IBS_OP_DATA2, 5, 1 }, { IBS_F_DATA_SRC_HI, IBS_OP_DATA2, 6, 2 },
	{ IBS_F_STRM_ST, IBS_OP_DATA2, 8, 1 }, { IBS_F_RMT_SOCKET, IBS_OP_DATA2, 9, 1 },
	{ IBS_F_LD_OP, IBS_OP_DATA3, 0, 1 }, { IBS_F_ST_OP, IBS_OP_DATA3, 1, 1 },
	{ IBS_F_DC_L1TLB_MISS, IBS_OP_DATA3, 2, 1 }, { IBS_F_DC_L2TLB_MISS, IBS_OP_DATA3, 3, 1 },
	{ IBS_F_DC_L1TLB_HIT_2M, IBS_OP_DATA3, 4, 1 }, { IBS_F_DC_L1TLB_HIT_1G, IBS_OP_DATA3, 5, 1 },
	{ IBS_F_DC_L2TLB_HIT_2M, IBS_OP_DATA3, 6, 1 }, { IBS_F_DC_MISS, IBS_OP_DATA3, 7, 1 },
	{ IBS_F_DC_MISALIGNED, IBS_OP_DATA3, 8, 1 }, { IBS_F_DC_WC_MEM, IBS_OP_DATA3, 13, 1 },
	{ IBS_F_DC_UC_MEM, IBS_OP_DATA3, 14, 1 }, { IBS_F_DC_LOCKED, IBS_OP_DATA3, 15, 1 },
	{ IBS_F_DC_MISS_NO_MAB, IBS_OP_DATA3, 16, 1 }, { IBS_F_DC_LIN_VALID, IBS_OP_DATA3, 17, 1 },
	{ IBS_F_DC_PHYS_VALID, IBS_OP_DATA3, 18, 1 }, { IBS_F_DC_L2TLB_HIT_1G, IBS_OP_DATA3, 19, 1 },
	{ IBS_F_L2_MISS, IBS_OP_DATA3, 20, 1 }, { IBS_F_SW_PF, IBS_OP_DATA3, 21, 1 },
	{ IBS_F_MEM_WIDTH, IBS_OP_DATA3, 22, 4 }, { IBS_F_OPEN_MEM_REQS, IBS_OP_DATA3, 26, 6 },
	{ IBS_F_DC_MISS_LAT, IBS_OP_DATA3, 32, 16 }, { IBS_F_TLB_REFILL_LAT, IBS_OP_DATA3, 48, 16 },
	{ IBS_F_DC_LIN_AD, IBS_DC_LIN_AD, 0, 64 }, { IBS_F_DC_PHYS_AD, IBS_DC_PHYS_AD, 0, 64 },
	{ IBS_F_BR_TARGET, IBS_BR_TARGET, 0, 64 }, { IBS_F_LD_RESYNC, IBS_OP_DATA4, 0, 1 },
	{ IBS_F_FETCH_MAXCNT, IBS_FETCH_CTL, 0, 16 }, { IBS_F_FETCH_CNT, IBS_FETCH_CTL, 16, 16 },
	{ IBS_F_FETCH_LAT, IBS_FETCH_CTL, 32, 16 }, { IBS_F_FETCH_EN, IBS_FETCH_CTL, 48, 1 },
	{ IBS_F_FETCH_VAL, IBS_FETCH_CTL, 49, 1 }, { IBS_F_FETCH_COMP, IBS_FETCH_CTL, 50, 1 },
	{ IBS_F_IC_MISS, IBS_FETCH_CTL, 51, 1 }, { IBS_F_FETCH_PHYS_VALID, IBS_FETCH_CTL, 52, 1 },
	{ IBS_F_FETCH_L1TLB_PGSZ, IBS_FETCH_CTL, 53, 2 },
	{ IBS_F_FETCH_L1TLB_MISS, IBS_FETCH_CTL, 55, 1 },
	{ IBS_F_FETCH_L2TLB_MISS, IBS_FETCH_CTL, 56, 1 },
	{ IBS_F_FETCH_RAND_EN, IBS_FETCH_CTL, 57, 1 }, { IBS_F_FETCH_L2_MISS, IBS_FETCH_CTL, 58, 1 },
	{ IBS_F_FETCH_L3MISSONLY, IBS_FETCH_CTL, 59, 1 },
	{ IBS_F_FETCH_OC_MISS, IBS_FETCH_CTL, 60, 1 }, { IBS_F_FETCH_L3_MISS, IBS_FETCH_CTL, 61, 1 },
	{ IBS_F_FETCH_LIN_AD, IBS_FETCH_LIN_AD, 0, 64 },
	{ IBS_F_FETCH_PHYS_AD, IBS_FETCH_PHYS_AD, 0, 64 },
	{ IBS_F_IC_IBS_EXTD_CTL, IBS_FETCH_CTL_EXTD, 0, 16 },
};

/*
 * Every field alone at its all-ones value, every capability on: it reads
 * back whole, and no other field of its kind sees a bit of it.
 */
static void every_field(void)
{
	CHECK(sizeof(where) / sizeof(where[0]) == IBS_NFIELDS);
	for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
		const struct ibs_field_info *info = ibs_field_info(where[i].f);
		enum ibs_kind kind = info->kind;
		uint64_t regs[IBS_MAX_REGS] = { 0 };
		uint64_t ones = where[i].width == 64 ? ~0ull : (1ull << where[i].width) - 1;
		uint8_t buf[4 + 8 * IBS_MAX_REGS];
		struct ibs_sample s;
		char err[256];
		unsigned n = kind == IBS_OP ? 9 : 4;

		CHECK(info->reg == where[i].reg && info->lo == where[i].lo &&
		      info->width == where[i].width);
		regs[where[i].reg] = ones << where[i].lo;
		CHECK(ibs_parse(kind, buf, raw_of(buf, ALL_CAPS, regs, n), &s, err, sizeof(err)) == 0);
		CHECK(ibs_has(&s, where[i].f));
		CHECK(ibs_get(&s, where[i].f) == ones);
		for (size_t j = 0; j < sizeof(where) / sizeof(where[0]); j++)
			if (j != i && ibs_field_info(where[j].f)->kind == kind &&
			    ibs_get(&s, where[j].f) != 0) {
				fprintf(stderr, "%s leaks into %s\n", info->name,
					ibs_field_info(where[j].f)->name);
				CHECK(0);
			}
	}
	CHECK(ibs_field_info(IBS_NFIELDS) == NULL);
}

/* The register count follows the capabilities; anything else is refused. */
static void register_count(void)
{
	static const struct {
		enum ibs_kind kind;
		uint32_t caps;
		unsigned regs;
	} cases[] = {
		{ IBS_OP, 0, 7 },
		{ IBS_OP, IBS_CAPS_BRNTRGT, 8 },
		{ IBS_OP, IBS_CAPS_OPDATA4, 8 },
		{ IBS_OP, IBS_CAPS_BRNTRGT | IBS_CAPS_OPDATA4, 9 },
		{ IBS_FETCH, 0, 3 },
		{ IBS_FETCH, IBS_CAPS_FETCHCTLEXTD, 4 },
		{ IBS_FETCH, IBS_CAPS_BRNTRGT | IBS_CAPS_OPDATA4, 3 },
	};
	uint64_t regs[IBS_MAX_REGS + 1] = { 0 };
	uint8_t buf[4 + 8 * (IBS_MAX_REGS + 1)];
	struct ibs_sample s;
	char err[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len = raw_of(buf, cases[i].caps, regs, cases[i].regs);

		CHECK(ibs_parse(cases[i].kind, buf, len, &s, err, sizeof(err)) == 0);
		CHECK(s.nregs == cases[i].regs && s.caps == cases[i].caps);
		/* One register more or less, or a stray byte: refused, in one line. */
		CHECK(ibs_parse(cases[i].kind, buf, len - 8, &s, err, sizeof(err)) == -EINVAL);
		CHECK(strstr(err, "promise") && !strchr(err, '\n'));
		len = raw_of(buf, cases[i].caps, regs, cases[i].regs + 1);
		CHECK(ibs_parse(cases[i].kind, buf, len, &s, err, sizeof(err)) == -EINVAL);
		CHECK(ibs_parse(cases[i].kind, buf, len - 7, &s, err, sizeof(err)) == -EINVAL);
	}
	CHECK(ibs_parse(IBS_OP, buf, 3, &s, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "no capabilities word") != NULL);
	CHECK(ibs_parse(IBS_OP, buf, 0, &s, err, sizeof(err)) == -EINVAL);
}

/* Fields a part's capabilities lack read as absent, even with bits set. */
static void gated(void)
{
	uint64_t regs[IBS_MAX_REGS];
	struct ibs_sample s;

	memset(regs, 0xff, sizeof(regs));
	s = op_with(0, regs, 7);
	CHECK(!ibs_has(&s, IBS_F_DATA_SRC_HI) && ibs_get(&s, IBS_F_DATA_SRC_HI) == 0);
	CHECK(!ibs_has(&s, IBS_F_RIP_INVALID) && !ibs_has(&s, IBS_F_OP_MAXCNT_EXT));
	CHECK(!ibs_has(&s, IBS_F_BR_TARGET) && !ibs_has(&s, IBS_F_LD_RESYNC));
	CHECK(!ibs_has(&s, IBS_F_FETCH_LAT));	/* a fetch field, in an op sample */
	CHECK(ibs_get(&s, IBS_F_DATA_SRC_LO) == 7 && ibs_get(&s, IBS_F_DC_MISS_LAT) == 0xffff);
	/* OpData4 without a branch target: the eighth register is OpData4. */
	regs[7] = 1;
	s = op_with(IBS_CAPS_OPDATA4, regs, 8);
	CHECK(!ibs_has(&s, IBS_F_BR_TARGET) && ibs_get(&s, IBS_F_LD_RESYNC) == 1);
	regs[7] = 0x401000;
	regs[8] = 0;
	s = op_with(IBS_CAPS_BRNTRGT | IBS_CAPS_OPDATA4, regs, 9);
	CHECK(ibs_get(&s, IBS_F_BR_TARGET) == 0x401000 && ibs_get(&s, IBS_F_LD_RESYNC) == 0);
}

/* An op that loads and missed the L2, its DataSrc fields as given. */
static struct ibs_sample load_from(uint32_t caps, unsigned code, uint64_t data3_extra)
{
	uint64_t regs[7] = { 0 };

	regs[IBS_OP_DATA2] = (code & 7u) | (uint64_t)(code >> 3 & 3u) << 6;
	regs[IBS_OP_DATA3] = 1u | 1u << 7 | 1u << 20 | data3_extra;	/* ld, dc miss, l2 miss */
	return op_with(caps, regs, 7);
}

static void data_sources(void)
{
	static const enum ibs_data_source legacy[8] = {
		IBS_SRC_NONE, IBS_SRC_RESERVED, IBS_SRC_L3, IBS_SRC_DRAM,
		IBS_SRC_REMOTE_CACHE, IBS_SRC_RESERVED, IBS_SRC_RESERVED, IBS_SRC_IO,
	};
	uint64_t regs[7] = { 0 };
	struct ibs_sample s;

	/* Before Zen 4: three bits; family 10h's 1 is the L3. */
	for (unsigned c = 0; c < 8; c++) {
		s = load_from(0, c, 0);
		CHECK(ibs_data_source(&s, 0x17, 0x31) == legacy[c]);
		CHECK(ibs_data_source(&s, 0x10, 0x2) == (c == 1 ? IBS_SRC_L3 : legacy[c]));
	}
	/* Zen 4 on: five bits (DataSrcHi above). */
	for (unsigned c = 0; c < 32; c++) {
		enum ibs_data_source want = c == 0 ? IBS_SRC_NONE : c == 1 ? IBS_SRC_L3 :
			c == 2 ? IBS_SRC_NEAR_CCX : c == 3 ? IBS_SRC_DRAM : c == 5 ? IBS_SRC_FAR_CCX :
			c == 6 ? IBS_SRC_PMEM : c == 7 ? IBS_SRC_IO : c == 8 ? IBS_SRC_CXL :
			c == 12 ? IBS_SRC_PEER_AGENT : IBS_SRC_RESERVED;

		s = load_from(IBS_CAPS_ZEN4, c, 0);
		CHECK(ibs_data_source(&s, 0x19, 0x61) == want);
		CHECK(strlen(ibs_data_source_name(want)) > 0);
	}
	/* Hits in L1 and L2 need no DataSrc; a store has none past L2; not a memory op: none. */
	regs[IBS_OP_DATA3] = 1;
	s = op_with(0, regs, 7);
	CHECK(ibs_data_source(&s, 0x17, 0) == IBS_SRC_L1);
	regs[IBS_OP_DATA3] = 1 | 1u << 7;
	s = op_with(0, regs, 7);
	CHECK(ibs_data_source(&s, 0x17, 0) == IBS_SRC_L2);
	regs[IBS_OP_DATA3] = 2 | 1u << 7 | 1u << 20;
	regs[IBS_OP_DATA2] = 3;
	s = op_with(0, regs, 7);
	CHECK(ibs_data_source(&s, 0x17, 0) == IBS_SRC_NONE);
	regs[IBS_OP_DATA3] = 1u << 7 | 1u << 20;
	s = op_with(0, regs, 7);
	CHECK(ibs_data_source(&s, 0x17, 0) == IBS_SRC_NONE);
	/* Zen 3's erratum 1293: a software prefetch's (or a miss without a MAB's) OpData2 is not believed. */
	s = load_from(0, 3, 1u << 21);
	CHECK(ibs_data_source(&s, 0x19, 0x01) == IBS_SRC_UNTRUSTED);
	CHECK(ibs_data_source(&s, 0x19, 0x21) == IBS_SRC_DRAM);
	s = load_from(0, 3, 1u << 16);
	CHECK(ibs_data_source(&s, 0x19, 0x0f) == IBS_SRC_UNTRUSTED);
	CHECK(ibs_data_source(&s, 0x17, 0x0f) == IBS_SRC_DRAM);
	/* Even an L2 "hit" is not believed there. */
	regs[IBS_OP_DATA3] = 1 | 1u << 7 | 1u << 21;
	regs[IBS_OP_DATA2] = 0;
	s = op_with(0, regs, 7);
	CHECK(ibs_data_source(&s, 0x19, 0x01) == IBS_SRC_UNTRUSTED);
	CHECK(ibs_data_source(&s, 0x19, 0x44) == IBS_SRC_L2);
}

static void addresses_and_rip(void)
{
	uint64_t regs[7] = { 0 }, a = 0;
	struct ibs_sample s;

	regs[IBS_OP_RIP] = 0x401234;
	regs[IBS_DC_LIN_AD] = 0x7f0000001000;
	regs[IBS_OP_DATA3] = 1;				/* a load, address not valid */
	s = op_with(IBS_CAPS_RIPINVALIDCHK, regs, 7);
	CHECK(!ibs_data_address(&s, &a));
	regs[IBS_OP_DATA3] = 1 | 1u << 17;
	s = op_with(IBS_CAPS_RIPINVALIDCHK, regs, 7);
	CHECK(ibs_data_address(&s, &a) && a == 0x7f0000001000);
	regs[IBS_OP_DATA3] = 1u << 17;			/* valid bit on a non-memory op */
	s = op_with(IBS_CAPS_RIPINVALIDCHK, regs, 7);
	CHECK(!ibs_data_address(&s, &a));
	CHECK(ibs_op_rip(&s, &a) && a == 0x401234);
	regs[IBS_OP_DATA] = 1ull << 38;
	s = op_with(IBS_CAPS_RIPINVALIDCHK, regs, 7);
	CHECK(!ibs_op_rip(&s, &a));
	/* A part that cannot say so: bit 38 is reserved, the RIP stands. */
	s = op_with(0, regs, 7);
	CHECK(ibs_op_rip(&s, &a) && a == 0x401234);
}

static void page_sizes_and_period(void)
{
	static const struct {
		uint64_t data3;
		uint64_t size;
	} cases[] = {
		{ 1, 4096 },
		{ 1 | 1u << 4, 2u << 20 },
		{ 1 | 1u << 5, 1u << 30 },
		{ 1 | 1u << 2, 4096 },
		{ 1 | 1u << 2 | 1u << 6, 2u << 20 },
		{ 1 | 1u << 2 | 1u << 19, 1u << 30 },
		{ 1 | 1u << 2 | 1u << 3, 0 },
		{ 0, 0 },
	};
	uint64_t regs[7] = { 0 };
	struct ibs_sample s;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		regs[IBS_OP_DATA3] = cases[i].data3;
		s = op_with(0, regs, 7);
		CHECK(ibs_data_page_size(&s) == cases[i].size);
	}
	regs[IBS_OP_CTL] = 0x1234 | 5ull << 20 | 1ull << 19;
	s = op_with(IBS_CAPS_OPCNTEXT | IBS_CAPS_OPCNT, regs, 7);
	CHECK(ibs_op_period(&s) == (5ull << 16 | 0x1234) << 4);
	s = op_with(0, regs, 7);
	CHECK(ibs_op_period(&s) == 0x1234ull << 4);	/* no extension on this part */
}

static void dump(void)
{
	uint64_t regs[7] = { 0 };
	struct ibs_sample s;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	regs[IBS_OP_RIP] = 0x401234;
	regs[IBS_OP_DATA3] = 1 | 1u << 7 | 1u << 20 | 1u << 17 | 300ull << 32;
	regs[IBS_OP_DATA2] = 3;
	regs[IBS_DC_LIN_AD] = 0x7f0000001000;
	s = op_with(IBS_CAPS_OPCNT, regs, 7);
	CHECK(f != NULL);
	if (!f)
		return;
	ibs_dump(&s, 0x17, 0x31, f);
	fclose(f);
	CHECK(strstr(text, "ibs op sample, caps 0x10, 7 registers\n") != NULL);
	CHECK(strstr(text, "  IbsOpRip: 0x401234\n") != NULL);
	CHECK(strstr(text, "  IbsDcMissLat: 300\n") != NULL);
	CHECK(strstr(text, "  data source: DRAM\n") != NULL);
	CHECK(strstr(text, "  IbsDcLinAd: 0x7f0000001000\n") != NULL);
	CHECK(strstr(text, "DataSrcHi") == NULL);	/* not on this part */
	free(text);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* The attribute bits a PMU's format files give, and text that is none. */
static void formats(void)
{
	static const char *const bad[] = {
		"", "config", "config:", "config:x", "config3:1", "config:5-2", "config:64",
		"config:1-", "config:1,3", "config:1\nx", "cfg:1",
	};
	struct ibs_format f;

	CHECK(ibs_format_parse("config:19\n", &f) == 0 && f.word == 0 && f.lo == 19 && f.hi == 19);
	CHECK(ibs_format_parse("config1:0-11", &f) == 0 && f.word == 1 && f.lo == 0 && f.hi == 11);
	CHECK(ibs_format_parse("config2:0", &f) == 0 && f.word == 2 && f.lo == 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(ibs_format_parse(bad[i], &f) == -EINVAL);
}

/* A sysfs tree built here: the PMUs' types and ibs_op's format, read back. */
static void sysfs_tree(void)
{
	char root[] = "/tmp/test_ibs.XXXXXX", path[256];
	struct ibs_probe p;

	CHECK(mkdtemp(root) != NULL);
	snprintf(path, sizeof(path), "%s/ibs_op", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/ibs_op/format", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/ibs_op/type", root);
	write_file(path, "11\n");
	snprintf(path, sizeof(path), "%s/ibs_op/format/cnt_ctl", root);
	write_file(path, "config:19\n");
	snprintf(path, sizeof(path), "%s/ibs_op/format/ldlat", root);
	write_file(path, "config1:0-11\n");
	snprintf(path, sizeof(path), "%s/ibs_op/format/l3missonly", root);
	write_file(path, "nonsense\n");
	memset(&p, 0, sizeof(p));
	ibs_probe_sysfs(&p, root);
	CHECK(p.op_type == 11 && p.fetch_type == -1);
	CHECK(p.cnt_ctl.word == 0 && p.cnt_ctl.lo == 19);
	CHECK(p.ldlat.word == 1 && p.ldlat.hi == 11);
	CHECK(p.l3missonly.word == -1 && p.swfilt.word == -1);
	snprintf(path, sizeof(path), "rm -rf %s", root);
	CHECK(system(path) == 0);
}

/* Each reason IBS is missing, in one line; and none when it is there. */
static void explained(void)
{
	struct ibs_probe p;
	char why[320];

	memset(&p, 0, sizeof(p));
	snprintf(p.vendor, sizeof(p.vendor), "GenuineIntel");
	p.op_type = p.fetch_type = -1;
	CHECK(ibs_probe_explain(&p, IBS_OP, why, sizeof(why)) == -ENODEV);
	CHECK(strstr(why, "AMD feature and this CPU is GenuineIntel") != NULL);
	snprintf(p.vendor, sizeof(p.vendor), "AuthenticAMD");
	p.family = 0x19;
	p.hypervisor = true;
	CHECK(ibs_probe_explain(&p, IBS_OP, why, sizeof(why)) == -ENODEV);
	CHECK(strstr(why, "family 0x19") && strstr(why, "Fn8000_0001 ECX bit 10") &&
	      strstr(why, "this VM"));
	p.hypervisor = false;
	CHECK(ibs_probe_explain(&p, IBS_OP, why, sizeof(why)) == -ENODEV && !strstr(why, "VM"));
	p.cpuid_ibs = true;
	p.caps = IBS_CAPS_AVAIL | IBS_CAPS_FETCHSAM;
	CHECK(ibs_probe_explain(&p, IBS_OP, why, sizeof(why)) == -ENODEV);
	CHECK(strstr(why, "no op sampling (capabilities 0x3)") != NULL);
	p.caps |= IBS_CAPS_OPSAM;
	CHECK(ibs_probe_explain(&p, IBS_OP, why, sizeof(why)) == -ENODEV);
	CHECK(strstr(why, "no ibs_op PMU") != NULL);
	p.op_type = 11;
	CHECK(ibs_probe_explain(&p, IBS_OP, why, sizeof(why)) == 0);
	CHECK(ibs_probe_explain(&p, IBS_FETCH, why, sizeof(why)) == -ENODEV);
	CHECK(strstr(why, "no ibs_fetch PMU") != NULL && !strchr(why, '\n'));
	/* The header's brief form: said on AMD alone, in a few words. */
	{
		struct ibs_probe q;
		char brief[64];

		memset(&q, 0, sizeof(q));
		q.op_type = -1;
		snprintf(q.vendor, sizeof(q.vendor), "GenuineIntel");
		CHECK(ibs_probe_brief(&q, brief, sizeof(brief)) == 0);
		snprintf(q.vendor, sizeof(q.vendor), "AuthenticAMD");
		q.hypervisor = true;
		CHECK(ibs_probe_brief(&q, brief, sizeof(brief)) == 1 &&
		      !strcmp(brief, "no IBS (the VM hides it)"));
		q.hypervisor = false;
		CHECK(ibs_probe_brief(&q, brief, sizeof(brief)) == 1 &&
		      !strcmp(brief, "no IBS (not in this CPU's CPUID)"));
		q.cpuid_ibs = true;
		q.caps = IBS_CAPS_AVAIL | IBS_CAPS_FETCHSAM;
		CHECK(ibs_probe_brief(&q, brief, sizeof(brief)) == 1 &&
		      !strcmp(brief, "no IBS (this CPU has no op sampling)"));
		q.caps |= IBS_CAPS_OPSAM;
		CHECK(ibs_probe_brief(&q, brief, sizeof(brief)) == 1 &&
		      !strcmp(brief, "no IBS (the kernel offers no ibs_op PMU)"));
		q.op_type = 11;
		CHECK(ibs_probe_brief(&q, brief, sizeof(brief)) == 0);
	}
	/* This machine's own answer is one of these, whatever it is. */
	ibs_probe_cpu(&p);
	CHECK(p.vendor[0] != '\0');
}

/* IBS's period limits, the kernel releases with per-task IBS, format bits. */
static void periods_and_formats(void)
{
	struct perf_event_attr a;
	struct ibs_format f;
	bool clamped;

	CHECK(ibs_period_clamp(0, &clamped) == 144 && clamped);
	CHECK(ibs_period_clamp(100, &clamped) == 144 && clamped);
	CHECK(ibs_period_clamp(144, &clamped) == 144 && !clamped);
	CHECK(ibs_period_clamp(150, &clamped) == 144 && clamped);
	CHECK(ibs_period_clamp(160, &clamped) == 160 && !clamped);
	CHECK(ibs_period_clamp(0x100005, &clamped) == 0x100000 && clamped);
	CHECK(!ibs_kernel_per_task("6.1.0-28-amd64"));
	CHECK(ibs_kernel_per_task("6.2.0"));
	CHECK(ibs_kernel_per_task("6.12.3+deb13-amd64"));
	CHECK(ibs_kernel_per_task("7.0"));
	CHECK(!ibs_kernel_per_task("5.19.17"));
	CHECK(!ibs_kernel_per_task("unknown"));
	memset(&a, 0, sizeof(a));
	f = (struct ibs_format){ 0, 19, 19 };
	CHECK(ibs_format_set(&f, 1, &a) == 0 && a.config == 1ull << 19);
	CHECK(ibs_format_set(&f, 2, &a) == -ERANGE);
	f = (struct ibs_format){ 1, 0, 11 };
	CHECK(ibs_format_set(&f, 300, &a) == 0 && a.config1 == 300);
	CHECK(ibs_format_set(&f, 4096, &a) == -ERANGE);
	f = (struct ibs_format){ -1, 0, 0 };
	CHECK(ibs_format_set(&f, 1, &a) == -ERANGE);
}

/* The perf source's events for --ibs, from a probe of a made-up machine. */
static void source_configured(void)
{
	struct perf_source_config cfg;
	struct ibs_request rq = { .kind = IBS_OP, .randomize = true };
	struct ibs_probe p;
	char why[320];

	memset(&p, 0, sizeof(p));
	p.family = 0x19;
	p.model = 0x11;
	p.op_type = 11;
	p.fetch_type = 12;
	p.cnt_ctl = (struct ibs_format){ 0, 19, 19 };
	p.l3missonly = (struct ibs_format){ 0, 16, 16 };
	p.ldlat = (struct ibs_format){ -1, 0, 0 };
	p.swfilt = (struct ibs_format){ -1, 0, 0 };
	memset(&cfg, 0, sizeof(cfg));
	CHECK(ibs_source_configure(&p, &rq, "6.8.0", &cfg, why, sizeof(why)) == 0);
	CHECK(cfg.ibs && cfg.nevents == 1 && !strcmp(cfg.events[0].name, "ibs_op"));
	CHECK(cfg.events[0].attr.type == 11 && cfg.events[0].attr.config == 1ull << 19);
	CHECK(cfg.period == IBS_DEFAULT_PERIOD && cfg.randomize && !cfg.ibs_per_cpu);
	CHECK(cfg.family == 0x19 && cfg.model == 0x11 && cfg.ibs_kind == ST_IBS_OP_KIND);
	CHECK(!strcmp(cfg.note, "IBS ops, per task"));
	/* A short period raised, an old kernel per CPU, the L3 filter set. */
	rq.period = 100;
	rq.l3miss = true;
	memset(&cfg, 0, sizeof(cfg));
	CHECK(ibs_source_configure(&p, &rq, "6.1.0-28-amd64", &cfg, why, sizeof(why)) == 0);
	CHECK(cfg.period == 144 && cfg.ibs_per_cpu);
	CHECK(cfg.events[0].attr.config == (1ull << 19 | 1ull << 16));
	CHECK(strstr(cfg.note, "per CPU filtered by process") &&
	      strstr(cfg.note, "raised to IBS's minimum of 144") && strstr(cfg.note, "L3 misses"));
	/* Filters the PMU does not offer: one line each, no events. */
	rq.l3miss = false;
	rq.ldlat = 256;
	CHECK(ibs_source_configure(&p, &rq, "6.8.0", &cfg, why, sizeof(why)) == -EINVAL);
	CHECK(strstr(why, "--ibs-ldlat: this CPU's ibs_op PMU has no load latency filter") != NULL);
	p.ldlat = (struct ibs_format){ 1, 0, 11 };
	memset(&cfg, 0, sizeof(cfg));
	CHECK(ibs_source_configure(&p, &rq, "6.8.0", &cfg, why, sizeof(why)) == 0);
	CHECK(cfg.events[0].attr.config1 == 256);
	rq.ldlat = 100;
	CHECK(ibs_source_configure(&p, &rq, "6.8.0", &cfg, why, sizeof(why)) == -EINVAL);
	CHECK(strstr(why, "128 to 2048 cycles") != NULL);
	rq = (struct ibs_request){ .kind = IBS_FETCH, .l3miss = true };
	CHECK(ibs_source_configure(&p, &rq, "6.8.0", &cfg, why, sizeof(why)) == -EINVAL);
	CHECK(strstr(why, "ibs_fetch PMU has no l3missonly") != NULL);
	rq.l3miss = false;
	rq.freq = 4000;
	p.swfilt = (struct ibs_format){ 2, 0, 0 };
	memset(&cfg, 0, sizeof(cfg));
	CHECK(ibs_source_configure(&p, &rq, "6.8.0", &cfg, why, sizeof(why)) == 0);
	CHECK(cfg.events[0].attr.type == 12 && cfg.events[0].attr.config == 0);
	CHECK(cfg.freq == 4000 && cfg.period == 0 && cfg.ibs_kind == ST_IBS_FETCH_KIND);
	CHECK(cfg.ibs_swfilt && cfg.events[0].attr.config2 == 1);
}

/* The processes a busy PMU's message names: those holding perf events. */
static void other_users(void)
{
	char root[] = "/tmp/test_ibs_proc.XXXXXX", path[256], out[256];

	CHECK(mkdtemp(root) != NULL);
	for (int pid = 100; pid <= 300; pid += 100) {
		snprintf(path, sizeof(path), "%s/%d", root, pid);
		mkdir(path, 0755);
		snprintf(path, sizeof(path), "%s/%d/fd", root, pid);
		mkdir(path, 0755);
		snprintf(path, sizeof(path), "%s/%d/comm", root, pid);
		write_file(path, pid == 100 ? "perf\n" : pid == 200 ? "bash\n" : "shimtop\n");
		snprintf(path, sizeof(path), "%s/%d/fd/3", root, pid);
		CHECK(symlink(pid == 200 ? "/dev/null" : "anon_inode:[perf_event]", path) == 0);
	}
	snprintf(path, sizeof(path), "%s/self", root);
	mkdir(path, 0755);
	/* 300 is ourselves; 200 holds no perf event. */
	CHECK(ibs_fd_holders(root, 300, "anon_inode:[perf_event]", out, sizeof(out)) == 1);
	CHECK(!strcmp(out, "perf (100)"));
	CHECK(ibs_fd_holders("/nonexistent", 1, "anon_inode:[perf_event]", out, sizeof(out)) == 0 &&
	      out[0] == '\0');
	snprintf(path, sizeof(path), "rm -rf %s", root);
	CHECK(system(path) == 0);
}

/* An op sample of Zen 4 registers: a load (or not) that missed with lat. */
static void load_sample(struct ibs_sample *s, bool load, bool miss, unsigned lat,
			unsigned src, uint64_t addr)
{
	memset(s, 0, sizeof(*s));
	s->kind = IBS_OP;
	s->caps = 0x8f5;
	s->nregs = 8;
	s->reg[0] = 1ull << 18;
	s->reg[3] = src;
	s->reg[4] = (load ? 1u : 2u) | 1ull << 17 |
		(miss ? 1ull << 7 | 1ull << 20 | (uint64_t)lat << 32 : 0);
	s->reg[5] = addr;
}

/* The model's IBS figures: latency quantiles, the main source, pages. */
/* What the model is given: the sample decoded as the sampler decodes it. */
static void model_add(struct ibs_model *im, const struct ibs_sample *s, pid_t pid, uint32_t sym,
		      size_t step)
{
	struct ibs_op op;

	ibs_read_op(s, 0x19, 0x11, &op);
	ibs_model_add(im, s->kind == IBS_OP ? &op : NULL, 0x19, 0x11, pid, sym, step);
}

static void model_figures(void)
{
	struct ibs_model im;
	struct ibs_sample s;
	struct ibs_page *pages;
	const struct ibs_stats *st;
	double share;

	ibs_model_init(&im);
	CHECK(!ibs_model_active(&im));
	/* 90 loads at 100 cycles from L3, 10 at 1000 from DRAM, 20 L1 hits. */
	for (int i = 0; i < 90; i++) {
		load_sample(&s, true, true, 100, 1, 0x1000 + (uint64_t)i);
		model_add(&im, &s, 7, 3, 0);
	}
	for (int i = 0; i < 10; i++) {
		load_sample(&s, true, true, 1000, 3, 0x5000);
		model_add(&im, &s, 7, 3, 2);
	}
	for (int i = 0; i < 20; i++) {
		load_sample(&s, true, false, 0, 0, 0x5008);
		model_add(&im, &s, 7, 4, 2);
	}
	st = ibs_model_symbol(&im, 3);
	CHECK(st && st->ops == 100 && st->loads == 100 && st->dc_misses == 100);
	CHECK(ibs_model_symbol(&im, 5) == NULL && ibs_model_symbol(&im, 100000) == NULL);
	/* 100 = 64 + 36: bucket [96, 112); 1000: [896, 1024). */
	CHECK(ibs_latency_quantile(st, 0.9) == 96.0);
	CHECK(ibs_latency_quantile(st, 0.95) == 896.0);
	CHECK(ibs_mean_latency(st) == 190.0);
	CHECK(ibs_main_source(st, &share) == IBS_SRC_L3 && share == 90.0);
	CHECK(ibs_main_source(ibs_model_symbol(&im, 4), &share) == IBS_SRC_NONE && share != share);
	CHECK(im.total.source[IBS_SRC_L1] == 20 && im.total.ops == 120);
	CHECK(im.nsteps == 3 && im.steps[0].misses == 90 && im.steps[2].lat_sum == 10000 &&
	      im.steps[2].ops == 30 && im.steps[1].ops == 0);
	CHECK(ibs_model_pages(&im, &pages) == 2);
	CHECK(pages[0].key.base == 0x1000 && pages[0].dc_misses == 90 && pages[0].key.pid == 7);
	CHECK(pages[1].key.base == 0x5000 && pages[1].loads == 30 && pages[1].nsyms == 2);
	free(pages);
	/* A page touched by six symbols keeps four, the heaviest surviving. */
	for (uint32_t sym = 10; sym < 16; sym++)
		for (uint32_t k = 0; k < (sym == 10 ? 50u : 1u); k++) {
			load_sample(&s, true, false, 0, 0, 0x9000);
			model_add(&im, &s, 7, sym, 3);
		}
	CHECK(ibs_model_pages(&im, &pages) == 3);
	CHECK(pages[2].key.base == 0x9000 && pages[2].nsyms == IBS_PAGE_SYMS &&
	      pages[2].sym[0] == 10 && pages[2].sym_count[0] == 50);
	free(pages);
	/* A store that missed: no latency, no source; a non-memory op: no page. */
	load_sample(&s, false, true, 500, 3, 0xa000);
	model_add(&im, &s, 7, 20, 3);
	CHECK(ibs_model_symbol(&im, 20)->lat_n == 0 && ibs_model_symbol(&im, 20)->dc_misses == 1);
	ibs_model_zero(&im);
	CHECK(!ibs_model_active(&im) && im.npages == 0 && ibs_model_symbol(&im, 3) == NULL);
	ibs_model_free(&im);
}

/*
 * The pages' index past many growths: 40,000 pages of two processes at
 * the same addresses (each key twice in the table's hash but for the
 * pid), every one found with its own counts, none made twice, and one
 * that was never added not found.
 */
static void many_pages(void)
{
	enum { N = 20000 };
	struct ibs_model im;
	struct ibs_sample s;
	struct ibs_page *pages;
	size_t found = 0;

	ibs_model_init(&im);
	for (int round = 0; round < 2; round++)
		for (uint64_t i = 0; i < N; i++)
			for (pid_t pid = 1; pid <= 2; pid++) {
				/* page i of process pid, loaded pid * (i % 3 + 1) times */
				for (uint64_t k = 0; k < (uint64_t)pid * (i % 3 + 1); k++) {
					load_sample(&s, true, false, 0, 0,
						    0x7f0000000000ull + i * 4096 + k);
					model_add(&im, &s, pid, 1, 0);
				}
			}
	CHECK(im.npages == 2 * N && im.index.cap >= 4 * N && !im.pages_dropped);
	for (uint64_t i = 0; i < N; i++)
		for (pid_t pid = 1; pid <= 2; pid++) {
			const struct ibs_page *p =
				ibs_model_page(&im, pid, 0x7f0000000000ull + i * 4096);

			found += p && p->key.pid == pid && p->loads == 2u * pid * (i % 3 + 1);
		}
	CHECK(found == 2 * N);
	CHECK(ibs_model_page(&im, 3, 0x7f0000000000ull) == NULL);
	CHECK(ibs_model_page(&im, 1, 0x7f0000000000ull + N * 4096ull) == NULL);
	CHECK(ibs_model_pages(&im, &pages) == 2 * N && pages[0].loads == 12 &&
	      pages[2 * N - 1].loads == 2);
	free(pages);
	ibs_model_zero(&im);
	CHECK(im.npages == 0 && ibs_model_page(&im, 1, 0x7f0000000000ull) == NULL);
	ibs_model_free(&im);
}

/*
 * ibs_read_op is the model's one-pass read: over random registers, every
 * capability word and both encodings, it must say what the field-by-field
 * readers say (its inlined reads cannot drift from the table).
 */
static void read_op_agrees(void)
{
	uint64_t x = 0x2545f4914f6cdd1dull;
	unsigned families[] = { 0x10, 0x17, 0x19, 0x1a };

	for (unsigned i = 0; i < 20000; i++) {
		uint64_t regs[IBS_MAX_REGS], v;
		uint32_t caps = (uint32_t)(i * 2654435761u) & ALL_CAPS;
		unsigned fam = families[i % 4], n;
		struct ibs_sample s;
		struct ibs_op op;
		bool load, store;

		for (unsigned r = 0; r < IBS_MAX_REGS; r++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			regs[r] = x;
		}
		n = 7u + !!(caps & IBS_CAPS_BRNTRGT) + !!(caps & IBS_CAPS_OPDATA4);
		s = op_with(caps, regs, n);
		ibs_read_op(&s, fam, i % 16, &op);
		load = ibs_get(&s, IBS_F_LD_OP);
		store = ibs_get(&s, IBS_F_ST_OP);
		CHECK(op.load == load && op.store == store);
		CHECK(op.has_rip == ibs_op_rip(&s, &v) && (!op.has_rip || op.rip == v));
		CHECK(op.tag == ibs_get(&s, IBS_F_TAG_TO_RET));
		CHECK(op.branch == (bool)ibs_get(&s, IBS_F_BRN_RET));
		CHECK(op.mispredict == (op.branch && ibs_get(&s, IBS_F_BRN_MISP)));
		if (!load && !store) {
			CHECK(!op.dc_miss && !op.has_addr && !op.page_size && !op.miss_latency);
			continue;
		}
		CHECK(op.dc_miss == (bool)ibs_get(&s, IBS_F_DC_MISS));
		CHECK(op.l1tlb_miss == (bool)ibs_get(&s, IBS_F_DC_L1TLB_MISS));
		CHECK(op.l2tlb_miss == (bool)ibs_get(&s, IBS_F_DC_L2TLB_MISS));
		CHECK(op.miss_latency == (op.dc_miss && load ? ibs_get(&s, IBS_F_DC_MISS_LAT) : 0));
		CHECK(op.source == (load ? ibs_data_source(&s, fam, i % 16) : IBS_SRC_NONE));
		CHECK(op.has_addr == ibs_data_address(&s, &v) && (!op.has_addr || op.addr == v));
		CHECK(op.page_size == (op.has_addr ? ibs_data_page_size(&s) : 0));
	}
	/* A fetch sample has no op to read. */
	{
		uint64_t regs[3] = { ~0ull, ~0ull, ~0ull };
		uint8_t buf[4 + 8 * 3];
		struct ibs_sample s;
		struct ibs_op op;

		CHECK(ibs_parse(IBS_FETCH, buf, raw_of(buf, 0, regs, 3), &s, NULL, 0) == 0);
		ibs_read_op(&s, 0x19, 1, &op);
		CHECK(!op.load && !op.store && !op.has_rip && !op.tag && !op.has_addr);
	}
}

int main(void)
{
	periods_and_formats();
	source_configured();
	other_users();
	model_figures();
	many_pages();
	formats();
	sysfs_tree();
	explained();
	every_field();
	register_count();
	gated();
	data_sources();
	addresses_and_rip();
	page_sizes_and_period();
	dump();
	read_op_agrees();
	return check_done("test_ibs");
}
