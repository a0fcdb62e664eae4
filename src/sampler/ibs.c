/*
 * ibs.c - AMD IBS raw samples (ibs.h): one table of fields, read by the
 * decoder and the dump alike.  Bit positions are Linux's
 * arch/x86/include/asm/amd/ibs.h and AMD's PPRs; where a field is newer
 * than IBS itself, the capability bit the kernel reports gates it, so an
 * older part's reserved bits never read as data.
 */
#include "sampler/ibs.h"
#include "ring/record.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

_Static_assert(IBS_MAX_REGS == ST_IBS_MAX_REGS, "a record holds every register a sample may have");

#define Z4	IBS_CAPS_ZEN4

static const struct ibs_field_info fields[IBS_NFIELDS] = {
	[IBS_F_OP_MAXCNT] = { "IbsOpMaxCnt", IBS_OP, IBS_OP_CTL, 0, 16, 0 },
	[IBS_F_OP_L3MISSONLY] = { "L3MissOnly", IBS_OP, IBS_OP_CTL, 16, 1, Z4 },
	[IBS_F_OP_EN] = { "IbsOpEn", IBS_OP, IBS_OP_CTL, 17, 1, 0 },
	[IBS_F_OP_VAL] = { "IbsOpVal", IBS_OP, IBS_OP_CTL, 18, 1, 0 },
	[IBS_F_OP_CNT_CTL] = { "IbsOpCntCtl", IBS_OP, IBS_OP_CTL, 19, 1, IBS_CAPS_OPCNT },
	[IBS_F_OP_MAXCNT_EXT] = { "IbsOpMaxCntExt", IBS_OP, IBS_OP_CTL, 20, 7,
				  IBS_CAPS_OPCNTEXT },
	[IBS_F_OP_CURCNT] = { "IbsOpCurCnt", IBS_OP, IBS_OP_CTL, 32, 27, IBS_CAPS_RDWROPCNT },
	[IBS_F_OP_RIP] = { "IbsOpRip", IBS_OP, IBS_OP_RIP, 0, 64, 0 },
	[IBS_F_COMP_TO_RET] = { "IbsCompToRetCtr", IBS_OP, IBS_OP_DATA, 0, 16, 0 },
	[IBS_F_TAG_TO_RET] = { "IbsTagToRetCtr", IBS_OP, IBS_OP_DATA, 16, 16, 0 },
	[IBS_F_OP_RETURN] = { "IbsOpReturn", IBS_OP, IBS_OP_DATA, 34, 1, 0 },
	[IBS_F_BRN_TAKEN] = { "IbsOpBrnTaken", IBS_OP, IBS_OP_DATA, 35, 1, 0 },
	[IBS_F_BRN_MISP] = { "IbsOpBrnMisp", IBS_OP, IBS_OP_DATA, 36, 1, 0 },
	[IBS_F_BRN_RET] = { "IbsOpBrnRet", IBS_OP, IBS_OP_DATA, 37, 1, 0 },
	[IBS_F_RIP_INVALID] = { "IbsRipInvalid", IBS_OP, IBS_OP_DATA, 38, 1,
				IBS_CAPS_RIPINVALIDCHK },
	[IBS_F_BRN_FUSE] = { "IbsOpBrnFuse", IBS_OP, IBS_OP_DATA, 39, 1, IBS_CAPS_OPBRNFUSE },
	[IBS_F_MICROCODE] = { "IbsOpMicrocode", IBS_OP, IBS_OP_DATA, 40, 1, Z4 },
	[IBS_F_DATA_SRC_LO] = { "DataSrc", IBS_OP, IBS_OP_DATA2, 0, 3, 0 },
	[IBS_F_RMT_NODE] = { "RmtNode", IBS_OP, IBS_OP_DATA2, 4, 1, 0 },
	[IBS_F_CACHE_HIT_ST] = { "CacheHitSt", IBS_OP, IBS_OP_DATA2, 5, 1, 0 },
	[IBS_F_DATA_SRC_HI] = { "DataSrcHi", IBS_OP, IBS_OP_DATA2, 6, 2, Z4 },
	[IBS_F_STRM_ST] = { "StrmSt", IBS_OP, IBS_OP_DATA2, 8, 1, Z4 },
	[IBS_F_RMT_SOCKET] = { "RmtSocket", IBS_OP, IBS_OP_DATA2, 9, 1, Z4 },
	[IBS_F_LD_OP] = { "IbsLdOp", IBS_OP, IBS_OP_DATA3, 0, 1, 0 },
	[IBS_F_ST_OP] = { "IbsStOp", IBS_OP, IBS_OP_DATA3, 1, 1, 0 },
	[IBS_F_DC_L1TLB_MISS] = { "IbsDcL1TlbMiss", IBS_OP, IBS_OP_DATA3, 2, 1, 0 },
	[IBS_F_DC_L2TLB_MISS] = { "IbsDcL2TlbMiss", IBS_OP, IBS_OP_DATA3, 3, 1, 0 },
	[IBS_F_DC_L1TLB_HIT_2M] = { "IbsDcL1TlbHit2M", IBS_OP, IBS_OP_DATA3, 4, 1, 0 },
	[IBS_F_DC_L1TLB_HIT_1G] = { "IbsDcL1TlbHit1G", IBS_OP, IBS_OP_DATA3, 5, 1, 0 },
	[IBS_F_DC_L2TLB_HIT_2M] = { "IbsDcL2TlbHit2M", IBS_OP, IBS_OP_DATA3, 6, 1, 0 },
	[IBS_F_DC_MISS] = { "IbsDcMiss", IBS_OP, IBS_OP_DATA3, 7, 1, 0 },
	[IBS_F_DC_MISALIGNED] = { "IbsDcMisAcc", IBS_OP, IBS_OP_DATA3, 8, 1, 0 },
	[IBS_F_DC_WC_MEM] = { "IbsDcWcMemAcc", IBS_OP, IBS_OP_DATA3, 13, 1, 0 },
	[IBS_F_DC_UC_MEM] = { "IbsDcUcMemAcc", IBS_OP, IBS_OP_DATA3, 14, 1, 0 },
	[IBS_F_DC_LOCKED] = { "IbsDcLockedOp", IBS_OP, IBS_OP_DATA3, 15, 1, 0 },
	[IBS_F_DC_MISS_NO_MAB] = { "IbsDcMissNoMabAlloc", IBS_OP, IBS_OP_DATA3, 16, 1, 0 },
	[IBS_F_DC_LIN_VALID] = { "IbsDcLinAddrValid", IBS_OP, IBS_OP_DATA3, 17, 1, 0 },
	[IBS_F_DC_PHYS_VALID] = { "IbsDcPhyAddrValid", IBS_OP, IBS_OP_DATA3, 18, 1, 0 },
	[IBS_F_DC_L2TLB_HIT_1G] = { "IbsDcL2TlbHit1G", IBS_OP, IBS_OP_DATA3, 19, 1, 0 },
	[IBS_F_L2_MISS] = { "IbsL2Miss", IBS_OP, IBS_OP_DATA3, 20, 1, 0 },
	[IBS_F_SW_PF] = { "IbsSwPf", IBS_OP, IBS_OP_DATA3, 21, 1, 0 },
	[IBS_F_MEM_WIDTH] = { "IbsOpMemWidth", IBS_OP, IBS_OP_DATA3, 22, 4, Z4 },
	[IBS_F_OPEN_MEM_REQS] = { "IbsOpDcMissOpenMemReqs", IBS_OP, IBS_OP_DATA3, 26, 6, Z4 },
	[IBS_F_DC_MISS_LAT] = { "IbsDcMissLat", IBS_OP, IBS_OP_DATA3, 32, 16, 0 },
	[IBS_F_TLB_REFILL_LAT] = { "IbsTlbRefillLat", IBS_OP, IBS_OP_DATA3, 48, 16, 0 },
	[IBS_F_DC_LIN_AD] = { "IbsDcLinAd", IBS_OP, IBS_DC_LIN_AD, 0, 64, 0 },
	[IBS_F_DC_PHYS_AD] = { "IbsDcPhysAd", IBS_OP, IBS_DC_PHYS_AD, 0, 64, 0 },
	[IBS_F_BR_TARGET] = { "IbsBrTarget", IBS_OP, IBS_BR_TARGET, 0, 64, IBS_CAPS_BRNTRGT },
	[IBS_F_LD_RESYNC] = { "IbsOpLdResync", IBS_OP, IBS_OP_DATA4, 0, 1, IBS_CAPS_OPDATA4 },
	[IBS_F_FETCH_MAXCNT] = { "IbsFetchMaxCnt", IBS_FETCH, IBS_FETCH_CTL, 0, 16, 0 },
	[IBS_F_FETCH_CNT] = { "IbsFetchCnt", IBS_FETCH, IBS_FETCH_CTL, 16, 16, 0 },
	[IBS_F_FETCH_LAT] = { "IbsFetchLat", IBS_FETCH, IBS_FETCH_CTL, 32, 16, 0 },
	[IBS_F_FETCH_EN] = { "IbsFetchEn", IBS_FETCH, IBS_FETCH_CTL, 48, 1, 0 },
	[IBS_F_FETCH_VAL] = { "IbsFetchVal", IBS_FETCH, IBS_FETCH_CTL, 49, 1, 0 },
	[IBS_F_FETCH_COMP] = { "IbsFetchComp", IBS_FETCH, IBS_FETCH_CTL, 50, 1, 0 },
	[IBS_F_IC_MISS] = { "IbsIcMiss", IBS_FETCH, IBS_FETCH_CTL, 51, 1, 0 },
	[IBS_F_FETCH_PHYS_VALID] = { "IbsPhyAddrValid", IBS_FETCH, IBS_FETCH_CTL, 52, 1, 0 },
	[IBS_F_FETCH_L1TLB_PGSZ] = { "IbsL1TlbPgSz", IBS_FETCH, IBS_FETCH_CTL, 53, 2, 0 },
	[IBS_F_FETCH_L1TLB_MISS] = { "IbsL1TlbMiss", IBS_FETCH, IBS_FETCH_CTL, 55, 1, 0 },
	[IBS_F_FETCH_L2TLB_MISS] = { "IbsL2TlbMiss", IBS_FETCH, IBS_FETCH_CTL, 56, 1, 0 },
	[IBS_F_FETCH_RAND_EN] = { "IbsRandEn", IBS_FETCH, IBS_FETCH_CTL, 57, 1, 0 },
	[IBS_F_FETCH_L2_MISS] = { "IbsFetchL2Miss", IBS_FETCH, IBS_FETCH_CTL, 58, 1, Z4 },
	[IBS_F_FETCH_L3MISSONLY] = { "L3MissOnly", IBS_FETCH, IBS_FETCH_CTL, 59, 1, Z4 },
	[IBS_F_FETCH_OC_MISS] = { "IbsOpCacheMiss", IBS_FETCH, IBS_FETCH_CTL, 60, 1, Z4 },
	[IBS_F_FETCH_L3_MISS] = { "IbsL3Miss", IBS_FETCH, IBS_FETCH_CTL, 61, 1, Z4 },
	[IBS_F_FETCH_LIN_AD] = { "IbsFetchLinAd", IBS_FETCH, IBS_FETCH_LIN_AD, 0, 64, 0 },
	[IBS_F_FETCH_PHYS_AD] = { "IbsFetchPhysAd", IBS_FETCH, IBS_FETCH_PHYS_AD, 0, 64, 0 },
	[IBS_F_IC_IBS_EXTD_CTL] = { "IbsItlbRefillLat", IBS_FETCH, IBS_FETCH_CTL_EXTD, 0, 16,
				    IBS_CAPS_FETCHCTLEXTD },
};

const struct ibs_field_info *ibs_field_info(enum ibs_field f)
{
	return (unsigned)f < IBS_NFIELDS ? &fields[f] : NULL;
}

/* The registers a sample of this kind and these capabilities carries. */
static unsigned regs_for(enum ibs_kind kind, uint32_t caps)
{
	if (kind == IBS_OP)
		return 7u + !!(caps & IBS_CAPS_BRNTRGT) + !!(caps & IBS_CAPS_OPDATA4);
	return 3u + !!(caps & IBS_CAPS_FETCHCTLEXTD);
}

/*
 * The one register that follows the fixed ones may be either optional
 * one: its position in the sample, or -1 when the sample lacks it.
 */
static int position_of(const struct ibs_sample *s, unsigned reg)
{
	if (s->kind == IBS_OP && reg == IBS_BR_TARGET && !(s->caps & IBS_CAPS_BRNTRGT))
		return -1;
	if (s->kind == IBS_OP && reg == IBS_OP_DATA4 && !(s->caps & IBS_CAPS_BRNTRGT))
		reg = IBS_BR_TARGET;	/* OpData4 comes right after the fixed seven */
	return reg < s->nregs ? (int)reg : -1;
}

int ibs_parse(enum ibs_kind kind, const void *raw, size_t len, struct ibs_sample *out,
	      char *err, size_t errlen)
{
	const uint8_t *p = raw;
	uint64_t reg[IBS_MAX_REGS];
	uint32_t caps;
	unsigned want;

	memset(out, 0, sizeof(*out));
	if (len < 4)
		return st_refuse(err, errlen, "IBS raw sample of %zu bytes has no capabilities word",
				 len);
	memcpy(&caps, p, 4);
	want = regs_for(kind, caps);
	if ((len - 4) % 8 || (len - 4) / 8 != want)
		return st_refuse(err, errlen, "IBS %s sample of %zu bytes: its capabilities %#x "
				 "promise %u registers (%u bytes)", kind == IBS_OP ? "op" : "fetch",
				 len, caps, want, 4 + 8 * want);
	memcpy(reg, p + 4, 8 * (size_t)want);
	return ibs_from_regs(kind, caps, reg, want, out, err, errlen);
}

int ibs_from_regs(enum ibs_kind kind, uint32_t caps, const uint64_t *reg, unsigned nregs,
		  struct ibs_sample *out, char *err, size_t errlen)
{
	unsigned want = regs_for(kind, caps);

	memset(out, 0, sizeof(*out));
	if (nregs != want)
		return st_refuse(err, errlen, "IBS %s sample with %u registers: its capabilities "
				 "%#x promise %u", kind == IBS_OP ? "op" : "fetch", nregs, caps,
				 want);
	out->kind = kind;
	out->caps = caps;
	out->nregs = want;
	memcpy(out->reg, reg, 8 * (size_t)want);
	return 0;
}

int ibs_from_record(const struct st_ibs *r, struct ibs_sample *out, char *err, size_t errlen)
{
	if (r->kind > ST_IBS_FETCH_KIND || r->nregs > IBS_MAX_REGS)
		return st_refuse(err, errlen, "IBS record of kind %u with %u registers",
				 r->kind, r->nregs);
	return ibs_from_regs(r->kind == ST_IBS_FETCH_KIND ? IBS_FETCH : IBS_OP, r->caps, r->reg,
			     r->nregs, out, err, errlen);
}

bool ibs_has(const struct ibs_sample *s, enum ibs_field f)
{
	const struct ibs_field_info *i = ibs_field_info(f);

	return i && i->kind == s->kind && (s->caps & i->caps) == i->caps &&
	       position_of(s, i->reg) >= 0;
}

/*
 * ibs_has and the read in one pass.  Inlined with a constant field, the
 * row's bits fold away: the helpers below and ibs_read_op use it.
 */
static inline uint64_t field(const struct ibs_sample *s, enum ibs_field f)
{
	const struct ibs_field_info *i;
	uint64_t v;
	int at;

	if ((unsigned)f >= IBS_NFIELDS)
		return 0;
	i = &fields[f];
	if (i->kind != s->kind || (s->caps & i->caps) != i->caps)
		return 0;
	at = position_of(s, i->reg);
	if (at < 0)
		return 0;
	v = s->reg[at] >> i->lo;
	return i->width == 64 ? v : v & ((1ull << i->width) - 1);
}

uint64_t ibs_get(const struct ibs_sample *s, enum ibs_field f)
{
	return field(s, f);
}

/* A load or a store: the ops whose data fields mean anything. */
static bool memory_op(const struct ibs_sample *s)
{
	return s->kind == IBS_OP && (field(s, IBS_F_LD_OP) || field(s, IBS_F_ST_OP));
}

/* Zen 3's erratum 1293: OpData2 of these ops is not to be believed. */
static bool op_data2_untrusted(const struct ibs_sample *s, unsigned family, unsigned model)
{
	return family == 0x19 && model <= 0xf &&
	       (field(s, IBS_F_SW_PF) || field(s, IBS_F_DC_MISS_NO_MAB));
}

static enum ibs_data_source extended_source(unsigned code)
{
	switch (code) {
	case 0: return IBS_SRC_NONE;
	case 1: return IBS_SRC_L3;
	case 2: return IBS_SRC_NEAR_CCX;
	case 3: return IBS_SRC_DRAM;
	case 5: return IBS_SRC_FAR_CCX;
	case 6: return IBS_SRC_PMEM;
	case 7: return IBS_SRC_IO;
	case 8: return IBS_SRC_CXL;
	case 12: return IBS_SRC_PEER_AGENT;
	default: return IBS_SRC_RESERVED;
	}
}

static enum ibs_data_source legacy_source(unsigned code, unsigned family)
{
	switch (code) {
	case 0: return IBS_SRC_NONE;
	/* Family 10h to 16h: 1 is the local L3; Zen 1 to 3 leave it reserved. */
	case 1: return family < 0x17 ? IBS_SRC_L3 : IBS_SRC_RESERVED;
	case 2: return IBS_SRC_L3;
	case 3: return IBS_SRC_DRAM;
	case 4: return IBS_SRC_REMOTE_CACHE;
	case 7: return IBS_SRC_IO;
	default: return IBS_SRC_RESERVED;
	}
}

enum ibs_data_source ibs_data_source(const struct ibs_sample *s, unsigned family,
				     unsigned model)
{
	bool untrusted;

	if (!memory_op(s))
		return IBS_SRC_NONE;
	if (!field(s, IBS_F_DC_MISS))
		return IBS_SRC_L1;
	untrusted = op_data2_untrusted(s, family, model);
	if (!field(s, IBS_F_L2_MISS) && !untrusted)
		return IBS_SRC_L2;
	/* DataSrc is given for loads only. */
	if (!field(s, IBS_F_LD_OP))
		return IBS_SRC_NONE;
	if (untrusted)
		return IBS_SRC_UNTRUSTED;
	if (s->caps & IBS_CAPS_ZEN4)
		return extended_source((unsigned)(field(s, IBS_F_DATA_SRC_LO) |
						  field(s, IBS_F_DATA_SRC_HI) << 3));
	return legacy_source((unsigned)field(s, IBS_F_DATA_SRC_LO), family);
}

const char *ibs_data_source_name(enum ibs_data_source src)
{
	static const char *const names[IBS_NSOURCES] = {
		[IBS_SRC_NONE] = "none",
		[IBS_SRC_L1] = "L1",
		[IBS_SRC_L2] = "L2",
		[IBS_SRC_L3] = "L3",
		[IBS_SRC_NEAR_CCX] = "near CCX cache",
		[IBS_SRC_FAR_CCX] = "far CCX cache",
		[IBS_SRC_REMOTE_CACHE] = "remote cache",
		[IBS_SRC_DRAM] = "DRAM",
		[IBS_SRC_PMEM] = "PMEM",
		[IBS_SRC_IO] = "I/O",
		[IBS_SRC_CXL] = "CXL memory",
		[IBS_SRC_PEER_AGENT] = "peer agent memory",
		[IBS_SRC_RESERVED] = "reserved code",
		[IBS_SRC_UNTRUSTED] = "unknown (erratum 1293)",
	};

	return (unsigned)src < IBS_NSOURCES ? names[src] : "?";
}

uint64_t ibs_data_page_size(const struct ibs_sample *s)
{
	if (!memory_op(s))
		return 0;
	if (!field(s, IBS_F_DC_L1TLB_MISS))
		return field(s, IBS_F_DC_L1TLB_HIT_1G) ? 1ull << 30
		       : field(s, IBS_F_DC_L1TLB_HIT_2M) ? 2ull << 20 : 4096;
	if (!field(s, IBS_F_DC_L2TLB_MISS))
		return field(s, IBS_F_DC_L2TLB_HIT_1G) ? 1ull << 30
		       : field(s, IBS_F_DC_L2TLB_HIT_2M) ? 2ull << 20 : 4096;
	return 0;	/* a walk: the size is not told */
}

bool ibs_data_address(const struct ibs_sample *s, uint64_t *linear)
{
	if (!memory_op(s) ||
	    !field(s, IBS_F_DC_LIN_VALID))
		return false;
	*linear = field(s, IBS_F_DC_LIN_AD);
	return true;
}

bool ibs_op_rip(const struct ibs_sample *s, uint64_t *rip)
{
	if (s->kind != IBS_OP || field(s, IBS_F_RIP_INVALID))
		return false;
	*rip = field(s, IBS_F_OP_RIP);
	return true;
}

uint64_t ibs_op_period(const struct ibs_sample *s)
{
	return (field(s, IBS_F_OP_MAXCNT_EXT) << 16 | field(s, IBS_F_OP_MAXCNT)) << 4;
}

void ibs_read_op(const struct ibs_sample *s, unsigned family, unsigned model,
		 struct ibs_op *op)
{
	memset(op, 0, sizeof(*op));
	if (s->kind != IBS_OP)
		return;
	op->has_rip = ibs_op_rip(s, &op->rip);
	op->load = field(s, IBS_F_LD_OP);
	op->store = field(s, IBS_F_ST_OP);
	op->tag = field(s, IBS_F_TAG_TO_RET);
	op->branch = field(s, IBS_F_BRN_RET);
	op->mispredict = op->branch && field(s, IBS_F_BRN_MISP);
	if (!op->load && !op->store)
		return;
	op->l1tlb_miss = field(s, IBS_F_DC_L1TLB_MISS);
	op->l2tlb_miss = field(s, IBS_F_DC_L2TLB_MISS);
	op->dc_miss = field(s, IBS_F_DC_MISS);
	/* The latency counts only for loads (stores do not wait). */
	if (op->dc_miss && op->load)
		op->miss_latency = field(s, IBS_F_DC_MISS_LAT);
	op->source = op->load ? ibs_data_source(s, family, model) : IBS_SRC_NONE;
	op->has_addr = ibs_data_address(s, &op->addr);
	if (op->has_addr)
		op->page_size = ibs_data_page_size(s);
}

int ibs_decode_record(const struct st_ibs *r, struct ibs_op *op, bool *fetch, char *err,
		      size_t errlen)
{
	struct ibs_sample s;
	int rc = ibs_from_record(r, &s, err, errlen);

	if (rc < 0)
		return rc;
	*fetch = s.kind != IBS_OP;
	ibs_read_op(&s, r->family, r->model, op);
	return 0;
}

void ibs_dump(const struct ibs_sample *s, unsigned family, unsigned model, FILE *out)
{
	fprintf(out, "ibs %s sample, caps %#x, %u registers\n",
		s->kind == IBS_OP ? "op" : "fetch", s->caps, s->nregs);
	for (unsigned f = 0; f < IBS_NFIELDS; f++) {
		const struct ibs_field_info *i = &fields[f];

		if (!ibs_has(s, (enum ibs_field)f))
			continue;
		if (i->width == 64)
			fprintf(out, "  %s: %#" PRIx64 "\n", i->name, ibs_get(s, (enum ibs_field)f));
		else
			fprintf(out, "  %s: %" PRIu64 "\n", i->name, ibs_get(s, (enum ibs_field)f));
	}
	if (s->kind == IBS_OP) {
		fprintf(out, "  period: %" PRIu64 " %s\n", ibs_op_period(s),
			ibs_get(s, IBS_F_OP_CNT_CTL) ? "ops" : "cycles");
		fprintf(out, "  data source: %s\n",
			ibs_data_source_name(ibs_data_source(s, family, model)));
		if (ibs_data_page_size(s))
			fprintf(out, "  data page: %" PRIu64 " kB\n", ibs_data_page_size(s) >> 10);
	}
}
