/*
 * ibs.h - AMD Instruction-Based Sampling: the raw samples of perf's
 * ibs_op and ibs_fetch PMUs (PERF_SAMPLE_RAW) checked and decoded.
 *
 * A raw sample, after perf's u32 size, is a u32 of IBS capabilities
 * (CPUID Fn8000_001B EAX, as the kernel read it) and then u64 registers:
 *   op:    IbsOpCtl, IbsOpRip, IbsOpData, IbsOpData2, IbsOpData3,
 *          IbsDcLinAd, IbsDcPhysAd, then IbsBrTarget if caps has
 *          BRNTRGT, then IbsOpData4 if caps has OPDATA4
 *   fetch: IbsFetchCtl, IbsFetchLinAd, IbsFetchPhysAd, then
 *          IbsFetchCtlExtd if caps has FETCHCTLEXTD
 * Every field is one row of a table (ibs.c): its register, bits, and the
 * capability or CPU family it needs; decoding, the dump and the tests
 * read the same rows.  The bytes come from the kernel on the target's
 * behalf: their size is checked against the capabilities they claim.
 */
#ifndef SHIMTOP_IBS_H
#define SHIMTOP_IBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* CPUID Fn8000_001B EAX (Linux's IBS_CAPS_*). */
#define IBS_CAPS_AVAIL		(1u << 0)
#define IBS_CAPS_FETCHSAM	(1u << 1)
#define IBS_CAPS_OPSAM		(1u << 2)
#define IBS_CAPS_RDWROPCNT	(1u << 3)
#define IBS_CAPS_OPCNT		(1u << 4)
#define IBS_CAPS_BRNTRGT	(1u << 5)
#define IBS_CAPS_OPCNTEXT	(1u << 6)
#define IBS_CAPS_RIPINVALIDCHK	(1u << 7)
#define IBS_CAPS_OPBRNFUSE	(1u << 8)
#define IBS_CAPS_FETCHCTLEXTD	(1u << 9)
#define IBS_CAPS_OPDATA4	(1u << 10)
#define IBS_CAPS_ZEN4		(1u << 11)	/* DataSrc extended, l3missonly */

enum ibs_kind { IBS_OP, IBS_FETCH };

#define IBS_MAX_REGS		9u

/* The op registers by position in the raw sample. */
enum ibs_op_reg {
	IBS_OP_CTL, IBS_OP_RIP, IBS_OP_DATA, IBS_OP_DATA2, IBS_OP_DATA3,
	IBS_DC_LIN_AD, IBS_DC_PHYS_AD, IBS_BR_TARGET, IBS_OP_DATA4
};

enum ibs_fetch_reg { IBS_FETCH_CTL, IBS_FETCH_LIN_AD, IBS_FETCH_PHYS_AD, IBS_FETCH_CTL_EXTD };

/* One sample's registers, as the raw sample gave them. */
struct ibs_sample {
	enum ibs_kind kind;
	uint32_t caps;
	unsigned nregs;
	uint64_t reg[IBS_MAX_REGS];
};

/*
 * The fields, one per table row (ibs.c).  A field of a register the
 * sample lacks, or one its capabilities or family do not have, reads as
 * absent (ibs_has false, ibs_get 0).
 */
enum ibs_field {
	/* IbsOpCtl */
	IBS_F_OP_MAXCNT, IBS_F_OP_L3MISSONLY, IBS_F_OP_EN, IBS_F_OP_VAL, IBS_F_OP_CNT_CTL,
	IBS_F_OP_MAXCNT_EXT, IBS_F_OP_CURCNT,
	/* IbsOpRip */
	IBS_F_OP_RIP,
	/* IbsOpData */
	IBS_F_COMP_TO_RET, IBS_F_TAG_TO_RET, IBS_F_OP_RETURN, IBS_F_BRN_TAKEN, IBS_F_BRN_MISP,
	IBS_F_BRN_RET, IBS_F_RIP_INVALID, IBS_F_BRN_FUSE, IBS_F_MICROCODE,
	/* IbsOpData2 */
	IBS_F_DATA_SRC_LO, IBS_F_RMT_NODE, IBS_F_CACHE_HIT_ST, IBS_F_DATA_SRC_HI, IBS_F_STRM_ST,
	IBS_F_RMT_SOCKET,
	/* IbsOpData3 */
	IBS_F_LD_OP, IBS_F_ST_OP, IBS_F_DC_L1TLB_MISS, IBS_F_DC_L2TLB_MISS, IBS_F_DC_L1TLB_HIT_2M,
	IBS_F_DC_L1TLB_HIT_1G, IBS_F_DC_L2TLB_HIT_2M, IBS_F_DC_MISS, IBS_F_DC_MISALIGNED,
	IBS_F_DC_WC_MEM, IBS_F_DC_UC_MEM, IBS_F_DC_LOCKED, IBS_F_DC_MISS_NO_MAB,
	IBS_F_DC_LIN_VALID, IBS_F_DC_PHYS_VALID, IBS_F_DC_L2TLB_HIT_1G, IBS_F_L2_MISS,
	IBS_F_SW_PF, IBS_F_MEM_WIDTH, IBS_F_OPEN_MEM_REQS, IBS_F_DC_MISS_LAT,
	IBS_F_TLB_REFILL_LAT,
	/* the addresses */
	IBS_F_DC_LIN_AD, IBS_F_DC_PHYS_AD, IBS_F_BR_TARGET, IBS_F_LD_RESYNC,
	/* IbsFetchCtl */
	IBS_F_FETCH_MAXCNT, IBS_F_FETCH_CNT, IBS_F_FETCH_LAT, IBS_F_FETCH_EN, IBS_F_FETCH_VAL,
	IBS_F_FETCH_COMP, IBS_F_IC_MISS, IBS_F_FETCH_PHYS_VALID, IBS_F_FETCH_L1TLB_PGSZ,
	IBS_F_FETCH_L1TLB_MISS, IBS_F_FETCH_L2TLB_MISS, IBS_F_FETCH_RAND_EN,
	IBS_F_FETCH_L2_MISS, IBS_F_FETCH_L3MISSONLY, IBS_F_FETCH_OC_MISS, IBS_F_FETCH_L3_MISS,
	IBS_F_FETCH_LIN_AD, IBS_F_FETCH_PHYS_AD, IBS_F_IC_IBS_EXTD_CTL,
	IBS_NFIELDS
};

struct ibs_field_info {
	const char *name;		/* as AMD's manuals and perf -D spell it */
	enum ibs_kind kind;
	uint8_t reg;			/* ibs_op_reg or ibs_fetch_reg */
	uint8_t lo, width;		/* bits lo .. lo + width - 1 */
	uint32_t caps;			/* capability bits it needs, or 0 */
};

const struct ibs_field_info *ibs_field_info(enum ibs_field f);

/*
 * Checks and copies a raw sample (the bytes after perf's u32 size) of
 * the given kind into out: 0, or -EINVAL with why in err (one line).
 * The register count must be what the capabilities promise.
 */
int ibs_parse(enum ibs_kind kind, const void *raw, size_t len, struct ibs_sample *out,
	      char *err, size_t errlen);

/* The same from registers already split out: their count is checked. */
int ibs_from_regs(enum ibs_kind kind, uint32_t caps, const uint64_t *reg, unsigned nregs,
		  struct ibs_sample *out, char *err, size_t errlen);

struct st_ibs;
/* A record's sample (ring/record.h), checked the same way. */
int ibs_from_record(const struct st_ibs *r, struct ibs_sample *out, char *err, size_t errlen);

bool ibs_has(const struct ibs_sample *s, enum ibs_field f);
uint64_t ibs_get(const struct ibs_sample *s, enum ibs_field f);

/* Where a load's data came from (IbsOpData2 DataSrc, read as perf does). */
enum ibs_data_source {
	IBS_SRC_NONE,		/* not a load, or no source given */
	IBS_SRC_L1,		/* DC hit */
	IBS_SRC_L2,
	IBS_SRC_L3,		/* local L3 (before Zen 4: L3 or a peer cache) */
	IBS_SRC_NEAR_CCX,	/* Zen 4+: another CCX's cache, same node */
	IBS_SRC_FAR_CCX,	/* Zen 4+: a cache in another node or socket */
	IBS_SRC_REMOTE_CACHE,	/* before Zen 4: a cache in another node */
	IBS_SRC_DRAM,
	IBS_SRC_PMEM,
	IBS_SRC_IO,
	IBS_SRC_CXL,		/* extension memory */
	IBS_SRC_PEER_AGENT,	/* peer agent memory */
	IBS_SRC_RESERVED,	/* a code the manuals leave reserved */
	IBS_SRC_UNTRUSTED,	/* Zen 3 erratum 1293: OpData2 not valid here */
	IBS_NSOURCES
};

/*
 * A load's data source.  family: the CPU family (0x17 Zen 1-2, 0x19 Zen
 * 3-4, 0x1a Zen 5); model for Zen 3's erratum (family 0x19, model <=
 * 0xf: software prefetches and misses without a MAB give a bogus
 * OpData2).  The encoding is the extended one where caps has ZEN4.
 */
enum ibs_data_source ibs_data_source(const struct ibs_sample *s, unsigned family,
				     unsigned model);
const char *ibs_data_source_name(enum ibs_data_source src);

/* The data page size the TLB bits give (4096, 2 MiB, 1 GiB), or 0 when none. */
uint64_t ibs_data_page_size(const struct ibs_sample *s);

/* A load's or store's linear data address, when the hardware says it is valid. */
bool ibs_data_address(const struct ibs_sample *s, uint64_t *linear);
/* The op's RIP, unless the hardware marked it invalid (IbsRipInvalid). */
bool ibs_op_rip(const struct ibs_sample *s, uint64_t *rip);

/* The op's period in ops or cycles: MaxCnt (and its extension) times 16. */
uint64_t ibs_op_period(const struct ibs_sample *s);

/*
 * What the model reads of an op sample, in one pass over its registers
 * (every field as ibs_get and the functions above read it; all zero for
 * a fetch sample).  page_size is 0 when the TLB bits do not tell.
 */
struct ibs_op {
	bool has_rip, load, store, branch, mispredict;
	bool l1tlb_miss, l2tlb_miss, dc_miss, has_addr;
	uint64_t rip, tag, miss_latency, addr, page_size;
	enum ibs_data_source source;
};
void ibs_read_op(const struct ibs_sample *s, unsigned family, unsigned model,
		 struct ibs_op *op);

/*
 * A record's sample as the model takes it, decoded here: *fetch for a
 * fetch sample (op zeroed), else the op's fields.  0, or -EINVAL with why
 * in err (a damaged record).
 */
int ibs_decode_record(const struct st_ibs *r, struct ibs_op *op, bool *fetch, char *err,
		      size_t errlen);

/*
 * Every field the sample has, one "name: value" a line, decoded (perf
 * report -D's AMD lines, for bug reports).
 */
void ibs_dump(const struct ibs_sample *s, unsigned family, unsigned model, FILE *out);

#endif
