/*
 * ibs_model.h - what IBS op samples say beyond where the time goes: per
 * symbol the loads and stores, data cache misses with their latencies,
 * where the data came from, TLB misses, mispredicted branches and
 * tag-to-retire time; per data page the same (HOP's page table, 004
 * Ch. 5) with the symbols that touch it; and miss latency over time.
 * Fed by the model with each st_ibs record it symbolized.
 */
#ifndef SHIMTOP_IBS_MODEL_H
#define SHIMTOP_IBS_MODEL_H

#include "index.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sampler/ibs.h"

/* Miss latencies (16-bit cycles) in 4 buckets per power of two. */
#define IBS_LAT_BUCKETS	68u

struct ibs_stats {
	uint64_t ops;			/* op samples */
	uint64_t loads, stores;
	uint64_t dc_misses;		/* loads and stores that missed the data cache */
	uint64_t lat_n, lat_sum;	/* misses with a latency (loads), cycles */
	uint64_t tlb_misses;		/* data L1 TLB misses (and with them L2's) */
	uint64_t l2tlb_misses;
	uint64_t branches, mispredicts;	/* retired branches */
	uint64_t tag_n, tag_sum;	/* tag-to-retire cycles */
	uint64_t source[IBS_NSOURCES];	/* loads by where their data came from */
	uint32_t lat[IBS_LAT_BUCKETS];
};

#define IBS_PAGE_SYMS	4u

/* One data page (linear address, by the TLB's page size) of one process. */
struct ibs_page {
	struct ibs_page_key {
		pid_t pid;
		uint32_t pad;
		uint64_t base;		/* page address */
	} key;
	uint64_t size;			/* page size the TLB reported (4 KiB if none) */
	uint64_t loads, stores, dc_misses, lat_sum, lat_n;
	/* The heaviest symbols touching it (space-saving counts). */
	uint32_t sym[IBS_PAGE_SYMS];
	uint64_t sym_count[IBS_PAGE_SYMS];
	unsigned nsyms;
};

/* A 100 ms step of the timeline (the model's bucket). */
struct ibs_step {
	uint32_t ops, misses;
	uint64_t lat_sum;
	uint32_t lat_n;
};

/* More distinct pages than this and new ones are counted, not kept. */
#define IBS_MAX_PAGES	(1u << 20)

struct ibs_model {
	struct ibs_stats total;
	struct ibs_stats **per_sym;	/* by st_symbol.id; NULL where none */
	size_t per_sym_cap;
	struct ibs_page **pages;	/* as they came; each its own allocation */
	size_t npages, pages_cap;
	/*
	 * (base, pid) -> pages' entry + 1: the key is in the slot, so a
	 * lookup costs one cache line (a page touched by one sample in a
	 * thousand is in no cache: uthash's chains cost a miss per entry).
	 */
	struct st_index index;
	uint64_t pages_dropped;		/* samples of pages past IBS_MAX_PAGES */
	struct ibs_step *steps;		/* from the model's first_time */
	size_t nsteps, steps_cap;
	uint64_t fetches;		/* fetch samples: counted, not analysed yet */
	uint64_t bad;			/* records whose registers did not check */
	char first_bad[160];
	unsigned family, model;		/* of the CPU that took the latest sample */
};

void ibs_model_init(struct ibs_model *im);
void ibs_model_free(struct ibs_model *im);
void ibs_model_zero(struct ibs_model *im);

/*
 * One sample, decoded by the sampler (ibs_decode_record; NULL: a fetch
 * sample), of symbol sym (st_symbol.id) of process pid, taken step_index
 * 100 ms steps after the model's first sample, on a CPU of this family
 * and model.
 */
void ibs_model_add(struct ibs_model *im, const struct ibs_op *op, unsigned family,
		   unsigned model, pid_t pid, uint32_t sym, size_t step_index);

/* Whether any op sample arrived: the IBS columns and views apply. */
static inline bool ibs_model_active(const struct ibs_model *im)
{
	return im->total.ops > 0;
}

/* A symbol's stats, or NULL. */
const struct ibs_stats *ibs_model_symbol(const struct ibs_model *im, uint32_t sym);

/* Derived figures, NAN where there is nothing to divide. */
double ibs_load_share(const struct ibs_stats *st);	/* % of ops */
double ibs_store_share(const struct ibs_stats *st);
double ibs_miss_pct(const struct ibs_stats *st);	/* % of loads and stores */
double ibs_mean_latency(const struct ibs_stats *st);	/* cycles */
double ibs_latency_quantile(const struct ibs_stats *st, double q);
double ibs_tag_to_retire(const struct ibs_stats *st);	/* mean cycles */
/* The source of most loads past L1, and its share of those loads (%). */
enum ibs_data_source ibs_main_source(const struct ibs_stats *st, double *share);

/* The page of (pid, base), or NULL. */
struct ibs_page *ibs_model_page(const struct ibs_model *im, pid_t pid, uint64_t base);
/* Takes p (allocated, its key not in the model yet) into the pages. */
void ibs_model_add_page(struct ibs_model *im, struct ibs_page *p);

/*
 * The pages, most misses (then loads and stores) first: copies, which a
 * view keeps while z frees the model's; *out allocated.
 */
size_t ibs_model_pages(const struct ibs_model *im, struct ibs_page **out);

/*
 * Snapshots (ibs_model_save.c): every figure, by symbol id; the reader
 * maps the writer's ids to its own (UINT32_MAX: none, refused) into an
 * empty model, and returns 0 or -EINVAL with why in err.
 */
struct packed_out;
typedef uint32_t (*ibs_symbol_map)(uint32_t id, void *arg);
void ibs_model_save(const struct ibs_model *im, struct packed_out *out);
int ibs_model_load(struct ibs_model *im, const uint8_t *p, size_t len, ibs_symbol_map map,
		   void *arg, char *err, size_t errlen);

#endif
