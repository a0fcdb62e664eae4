/*
 * test_ibs.c - the IBS decoder over constructed register values: every
 * field where AMD's manuals (and Linux's asm/amd/ibs.h) put it, the
 * register count the capabilities promise, every DataSrc code of both
 * encodings, Zen 3's erratum, RipInvalid and invalid addresses.
 */
#include "check.h"
#include "sampler/ibs.h"
#include "sampler/ibs_probe.h"

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
	/* This machine's own answer is one of these, whatever it is. */
	ibs_probe_cpu(&p);
	CHECK(p.vendor[0] != '\0');
}

int main(void)
{
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
	return check_done("test_ibs");
}
