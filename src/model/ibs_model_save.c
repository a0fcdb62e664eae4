/*
 * ibs_model_save.c - IBS's figures in a snapshot (the "ibs" section,
 * snapshot.h): a snapshot's records are plain samples at stand-in
 * addresses, without the registers, so what the registers added up to
 * is kept.
 *
 *   u32 version (1), u32 family, model, u64 fetches, bad, pages_dropped,
 *       u32 length and the text of why the first bad sample was
 *   stats: the totals
 *   u32 symbols, each: u32 symbol id, stats
 *   u32 pages, each: u32 pid, u64 base, size, loads, stores, dc_misses,
 *       lat_sum, lat_n, u32 symbols, each: u32 symbol id, u64 count
 *   u32 steps, each: u32 ops, misses, lat_n, u64 lat_sum
 *
 * stats: u64 ops, loads, stores, dc_misses, lat_n, lat_sum, tlb_misses,
 * l2tlb_misses, branches, mispredicts, tag_n, tag_sum, then u32 sources
 * (IBS_NSOURCES) and their u64 counts, u32 latency buckets
 * (IBS_LAT_BUCKETS) and their u32 counts.  Symbol ids are the writer's,
 * mapped to the reader's stand-ins; the reader refuses counts the bytes
 * cannot hold and ids it has no symbol for.
 */
#include "model/ibs_model.h"
#include "ring/packed.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

#define IBS_SAVE_VERSION 1u
#define STATS_BYTES	(12u * 8u + 4u + IBS_NSOURCES * 8u + 4u + IBS_LAT_BUCKETS * 4u)
#define PAGE_BYTES	(4u + 7u * 8u + 4u)
#define STEP_BYTES	(3u * 4u + 8u)

static void save_stats(struct packed_out *o, const struct ibs_stats *st)
{
	packed_u64(o, st->ops);
	packed_u64(o, st->loads);
	packed_u64(o, st->stores);
	packed_u64(o, st->dc_misses);
	packed_u64(o, st->lat_n);
	packed_u64(o, st->lat_sum);
	packed_u64(o, st->tlb_misses);
	packed_u64(o, st->l2tlb_misses);
	packed_u64(o, st->branches);
	packed_u64(o, st->mispredicts);
	packed_u64(o, st->tag_n);
	packed_u64(o, st->tag_sum);
	packed_u32(o, IBS_NSOURCES);
	for (unsigned i = 0; i < IBS_NSOURCES; i++)
		packed_u64(o, st->source[i]);
	packed_u32(o, IBS_LAT_BUCKETS);
	for (unsigned i = 0; i < IBS_LAT_BUCKETS; i++)
		packed_u32(o, st->lat[i]);
}

void ibs_model_save(const struct ibs_model *im, struct packed_out *o)
{
	uint32_t nsyms = 0;

	packed_u32(o, IBS_SAVE_VERSION);
	packed_u32(o, im->family);
	packed_u32(o, im->model);
	packed_u64(o, im->fetches);
	packed_u64(o, im->bad);
	packed_u64(o, im->pages_dropped);
	packed_u32(o, (uint32_t)strlen(im->first_bad));
	packed_put(o, im->first_bad, strlen(im->first_bad));
	save_stats(o, &im->total);
	for (size_t i = 0; i < im->per_sym_cap; i++)
		nsyms += im->per_sym[i] != NULL;
	packed_u32(o, nsyms);
	for (size_t i = 0; i < im->per_sym_cap; i++)
		if (im->per_sym[i]) {
			packed_u32(o, (uint32_t)i);
			save_stats(o, im->per_sym[i]);
		}
	packed_u32(o, (uint32_t)im->npages);
	for (size_t i = 0; i < im->npages; i++) {
		const struct ibs_page *p = im->pages[i];

		packed_u32(o, (uint32_t)p->key.pid);
		packed_u64(o, p->key.base);
		packed_u64(o, p->size);
		packed_u64(o, p->loads);
		packed_u64(o, p->stores);
		packed_u64(o, p->dc_misses);
		packed_u64(o, p->lat_sum);
		packed_u64(o, p->lat_n);
		packed_u32(o, p->nsyms);
		for (unsigned k = 0; k < p->nsyms; k++) {
			packed_u32(o, p->sym[k]);
			packed_u64(o, p->sym_count[k]);
		}
	}
	packed_u32(o, (uint32_t)im->nsteps);
	for (size_t i = 0; i < im->nsteps; i++) {
		packed_u32(o, im->steps[i].ops);
		packed_u32(o, im->steps[i].misses);
		packed_u32(o, im->steps[i].lat_n);
		packed_u64(o, im->steps[i].lat_sum);
	}
}

static bool load_stats(struct packed_in *in, struct ibs_stats *st)
{
	st->ops = packed_get_u64(in);
	st->loads = packed_get_u64(in);
	st->stores = packed_get_u64(in);
	st->dc_misses = packed_get_u64(in);
	st->lat_n = packed_get_u64(in);
	st->lat_sum = packed_get_u64(in);
	st->tlb_misses = packed_get_u64(in);
	st->l2tlb_misses = packed_get_u64(in);
	st->branches = packed_get_u64(in);
	st->mispredicts = packed_get_u64(in);
	st->tag_n = packed_get_u64(in);
	st->tag_sum = packed_get_u64(in);
	if (packed_get_u32(in) != IBS_NSOURCES)
		return false;
	for (unsigned i = 0; i < IBS_NSOURCES; i++)
		st->source[i] = packed_get_u64(in);
	if (packed_get_u32(in) != IBS_LAT_BUCKETS)
		return false;
	for (unsigned i = 0; i < IBS_LAT_BUCKETS; i++)
		st->lat[i] = packed_get_u32(in);
	return !in->bad;
}

static int load_symbols(struct ibs_model *im, struct packed_in *in, ibs_symbol_map map,
			void *arg, char *err, size_t errlen)
{
	uint32_t n = packed_get_u32(in);

	if (n > packed_left(in) / (4 + STATS_BYTES))
		return st_refuse(err, errlen, "its ibs section claims %u symbols in %zu bytes", n,
				 packed_left(in));
	for (uint32_t i = 0; i < n; i++) {
		uint32_t id = map(packed_get_u32(in), arg);
		struct ibs_stats *st;

		if (id == UINT32_MAX)
			return st_refuse(err, errlen, "its ibs section names a symbol it does not have");
		ST_GROW(im->per_sym, im->per_sym_cap, (size_t)id + 1);
		if (im->per_sym[id])
			return st_refuse(err, errlen, "its ibs section has symbol %u twice", id);
		st = im->per_sym[id] = st_xcalloc(1, sizeof(*st));
		if (!load_stats(in, st))
			return st_refuse(err, errlen, "its ibs section's symbol %u is cut short", i);
	}
	return 0;
}

static int load_pages(struct ibs_model *im, struct packed_in *in, ibs_symbol_map map,
		      void *arg, char *err, size_t errlen)
{
	uint32_t n = packed_get_u32(in);

	if (n > IBS_MAX_PAGES || n > packed_left(in) / PAGE_BYTES)
		return st_refuse(err, errlen, "its ibs section claims %u pages in %zu bytes", n,
				 packed_left(in));
	for (uint32_t i = 0; i < n; i++) {
		struct ibs_page *p = st_xcalloc(1, sizeof(*p));
		bool dup;

		p->key.pid = (pid_t)packed_get_u32(in);
		p->key.base = packed_get_u64(in);
		p->size = packed_get_u64(in);
		p->loads = packed_get_u64(in);
		p->stores = packed_get_u64(in);
		p->dc_misses = packed_get_u64(in);
		p->lat_sum = packed_get_u64(in);
		p->lat_n = packed_get_u64(in);
		p->nsyms = packed_get_u32(in);
		if (p->nsyms > IBS_PAGE_SYMS || in->bad) {
			free(p);
			return st_refuse(err, errlen, "its ibs section's page %u is malformed", i);
		}
		for (unsigned k = 0; k < p->nsyms; k++) {
			p->sym[k] = map(packed_get_u32(in), arg);
			p->sym_count[k] = packed_get_u64(in);
			if (p->sym[k] == UINT32_MAX) {
				free(p);
				return st_refuse(err, errlen, "its ibs section's page %u names a symbol "
						 "it does not have", i);
			}
		}
		dup = ibs_model_page(im, p->key.pid, p->key.base) != NULL;
		if (dup || in->bad) {
			free(p);
			return st_refuse(err, errlen, "its ibs section's page %u is %s", i,
					 dup ? "there twice" : "cut short");
		}
		ibs_model_add_page(im, p);
	}
	return 0;
}

int ibs_model_load(struct ibs_model *im, const uint8_t *p, size_t len, ibs_symbol_map map,
		   void *arg, char *err, size_t errlen)
{
	struct packed_in in = { p, len, 0, false };
	uint32_t version = packed_get_u32(&in), nsteps, why;
	int rc;

	if (version != IBS_SAVE_VERSION)
		return st_refuse(err, errlen, "its ibs section is of version %u, not %u", version,
				 IBS_SAVE_VERSION);
	im->family = packed_get_u32(&in);
	im->model = packed_get_u32(&in);
	im->fetches = packed_get_u64(&in);
	im->bad = packed_get_u64(&in);
	im->pages_dropped = packed_get_u64(&in);
	why = packed_get_u32(&in);
	if (why >= sizeof(im->first_bad) || why > packed_left(&in))
		return st_refuse(err, errlen, "its ibs section's reason of %u bytes is malformed",
				 why);
	packed_get(&in, im->first_bad, why);
	im->first_bad[why] = '\0';
	if (!load_stats(&in, &im->total))
		return st_refuse(err, errlen, "its ibs section's totals are malformed");
	rc = load_symbols(im, &in, map, arg, err, errlen);
	if (!rc)
		rc = load_pages(im, &in, map, arg, err, errlen);
	if (rc)
		return rc;
	nsteps = packed_get_u32(&in);
	if (nsteps > packed_left(&in) / STEP_BYTES)
		return st_refuse(err, errlen, "its ibs section claims %u steps in %zu bytes", nsteps,
				 packed_left(&in));
	ST_GROW(im->steps, im->steps_cap, (size_t)nsteps + 1);
	for (uint32_t i = 0; i < nsteps; i++) {
		im->steps[i].ops = packed_get_u32(&in);
		im->steps[i].misses = packed_get_u32(&in);
		im->steps[i].lat_n = packed_get_u32(&in);
		im->steps[i].lat_sum = packed_get_u64(&in);
	}
	im->nsteps = nsteps;
	if (in.bad || packed_left(&in))
		return st_refuse(err, errlen, "its ibs section has %s", in.bad ? "too few bytes"
				 : "bytes past its end");
	return 0;
}
