/* ibs_model.c - aggregation of IBS op samples (ibs_model.h). */
#include "model/ibs_model.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_PAGE	4096u

void ibs_model_init(struct ibs_model *im)
{
	memset(im, 0, sizeof(*im));
}

static void free_pages(struct ibs_model *im)
{
	for (size_t i = 0; i < im->npages; i++)
		free(im->pages[i]);
	free(im->pages);
	st_index_free(&im->index);
	im->pages = NULL;
	im->npages = im->pages_cap = 0;
}

void ibs_model_free(struct ibs_model *im)
{
	for (size_t i = 0; i < im->per_sym_cap; i++)
		free(im->per_sym[i]);
	free(im->per_sym);
	free(im->steps);
	free_pages(im);
	memset(im, 0, sizeof(*im));
}

void ibs_model_zero(struct ibs_model *im)
{
	for (size_t i = 0; i < im->per_sym_cap; i++) {
		free(im->per_sym[i]);
		im->per_sym[i] = NULL;
	}
	free_pages(im);
	memset(&im->total, 0, sizeof(im->total));
	im->pages_dropped = im->fetches = 0;
	/* The timeline keeps its past, as the model's does. */
}

/* 0-3 exactly, then four buckets per power of two. */
static unsigned lat_bucket(uint64_t v)
{
	unsigned e;

	if (v < 4)
		return (unsigned)v;
	e = 63u - (unsigned)__builtin_clzll(v);
	return 4u * (e - 1u) + (unsigned)((v >> (e - 2u)) & 3u);
}

static uint64_t lat_bucket_low(unsigned b)
{
	if (b < 4)
		return b;
	return (uint64_t)(4u + b % 4u) << (b / 4u - 1u);
}

static void add_stats(struct ibs_stats *st, const struct ibs_op *f)
{
	st->ops++;
	st->loads += f->load;
	st->stores += f->store;
	st->tag_n++;		/* every op sample carries TagToRetCtr */
	st->tag_sum += f->tag;
	st->branches += f->branch;
	st->mispredicts += f->mispredict;
	if (!f->load && !f->store)
		return;
	st->tlb_misses += f->l1tlb_miss;
	st->l2tlb_misses += f->l2tlb_miss;
	st->dc_misses += f->dc_miss;
	if (f->dc_miss && f->load) {
		st->lat_n++;
		st->lat_sum += f->miss_latency;
		st->lat[lat_bucket(f->miss_latency)]++;
	}
	if (f->load)
		st->source[f->source]++;
}

static void add_page_sym(struct ibs_page *p, uint32_t sym)
{
	unsigned min = 0;

	for (unsigned i = 0; i < p->nsyms; i++)
		if (p->sym[i] == sym) {
			p->sym_count[i]++;
			return;
		}
	if (p->nsyms < IBS_PAGE_SYMS) {
		p->sym[p->nsyms] = sym;
		p->sym_count[p->nsyms++] = 1;
		return;
	}
	for (unsigned i = 1; i < IBS_PAGE_SYMS; i++)
		if (p->sym_count[i] < p->sym_count[min])
			min = i;
	p->sym[min] = sym;
	p->sym_count[min]++;
}

struct ibs_page *ibs_model_page(const struct ibs_model *im, pid_t pid, uint64_t base)
{
	struct st_index_probe p;

	for (uint32_t v = st_index_first(&im->index, st_index_hash(base, (uint32_t)pid), &p); v;
	     v = st_index_next(&im->index, &p))
		if (im->pages[v - 1]->key.base == base && im->pages[v - 1]->key.pid == pid)
			return im->pages[v - 1];
	return NULL;
}

void ibs_model_add_page(struct ibs_model *im, struct ibs_page *p)
{
	ST_GROW(im->pages, im->pages_cap, im->npages + 1);
	im->pages[im->npages++] = p;
	st_index_add(&im->index, st_index_hash(p->key.base, (uint32_t)p->key.pid),
		     (uint32_t)im->npages);
}

static void add_page(struct ibs_model *im, const struct ibs_op *f, pid_t pid, uint32_t sym)
{
	/* A table walk does not tell the size: 4 KiB, the smallest. */
	uint64_t size = f->page_size ? f->page_size : DEFAULT_PAGE;
	uint64_t base = f->addr & ~(size - 1);
	struct ibs_page *p;

	if (!f->has_addr)
		return;
	p = ibs_model_page(im, pid, base);
	if (!p) {
		if (im->npages >= IBS_MAX_PAGES) {
			im->pages_dropped++;
			return;
		}
		p = st_xcalloc(1, sizeof(*p));
		p->key.pid = pid;
		p->key.base = base;
		p->size = size;
		ibs_model_add_page(im, p);
	}
	p->loads += f->load;
	p->stores += f->store;
	p->dc_misses += f->dc_miss;
	if (f->dc_miss && f->load) {
		p->lat_n++;
		p->lat_sum += f->miss_latency;
	}
	add_page_sym(p, sym);
}

static void add_step(struct ibs_model *im, const struct ibs_op *f, size_t at)
{
	struct ibs_step *st;

	if (at >= 1u << 24)
		return;		/* the model's timeline stops there too */
	ST_GROW(im->steps, im->steps_cap, at + 1);
	if (at >= im->nsteps)
		im->nsteps = at + 1;
	st = &im->steps[at];
	st->ops++;
	st->misses += f->dc_miss;
	if (f->dc_miss && f->load) {
		st->lat_n++;
		st->lat_sum += f->miss_latency;
	}
}

void ibs_model_add(struct ibs_model *im, const struct ibs_op *op, unsigned family,
		   unsigned model, pid_t pid, uint32_t sym, size_t step_index)
{
	if (!op) {
		im->fetches++;
		return;
	}
	im->family = family;
	im->model = model;
	ST_GROW(im->per_sym, im->per_sym_cap, (size_t)sym + 1);
	if (!im->per_sym[sym])
		im->per_sym[sym] = st_xcalloc(1, sizeof(struct ibs_stats));
	add_stats(im->per_sym[sym], op);
	add_stats(&im->total, op);
	add_page(im, op, pid, sym);
	add_step(im, op, step_index);
}

const struct ibs_stats *ibs_model_symbol(const struct ibs_model *im, uint32_t sym)
{
	return sym < im->per_sym_cap ? im->per_sym[sym] : NULL;
}

static double ratio(uint64_t a, uint64_t b, double scale)
{
	return b ? scale * (double)a / (double)b : NAN;
}

double ibs_load_share(const struct ibs_stats *st)
{
	return ratio(st->loads, st->ops, 100.0);
}

double ibs_store_share(const struct ibs_stats *st)
{
	return ratio(st->stores, st->ops, 100.0);
}

double ibs_miss_pct(const struct ibs_stats *st)
{
	return ratio(st->dc_misses, st->loads + st->stores, 100.0);
}

double ibs_mean_latency(const struct ibs_stats *st)
{
	return ratio(st->lat_sum, st->lat_n, 1.0);
}

double ibs_tag_to_retire(const struct ibs_stats *st)
{
	return ratio(st->tag_sum, st->tag_n, 1.0);
}

double ibs_latency_quantile(const struct ibs_stats *st, double q)
{
	uint64_t want, seen = 0;

	if (!st->lat_n)
		return NAN;
	want = (uint64_t)ceil(q * (double)st->lat_n);
	if (want == 0)
		want = 1;
	for (unsigned b = 0; b < IBS_LAT_BUCKETS; b++) {
		seen += st->lat[b];
		if (seen >= want)
			return (double)lat_bucket_low(b);
	}
	return NAN;
}

enum ibs_data_source ibs_main_source(const struct ibs_stats *st, double *share)
{
	enum ibs_data_source best = IBS_SRC_NONE;
	uint64_t past_l1 = 0, most = 0;

	for (int i = IBS_SRC_L2; i < IBS_NSOURCES; i++) {
		past_l1 += st->source[i];
		if (st->source[i] > most) {
			most = st->source[i];
			best = (enum ibs_data_source)i;
		}
	}
	*share = best == IBS_SRC_NONE ? NAN : ratio(st->source[best], past_l1, 100.0);
	return best;
}

static int by_misses(const void *a, const void *b)
{
	const struct ibs_page *x = a, *y = b;
	uint64_t tx = x->loads + x->stores, ty = y->loads + y->stores;

	if (x->dc_misses != y->dc_misses)
		return x->dc_misses < y->dc_misses ? 1 : -1;
	if (tx != ty)
		return tx < ty ? 1 : -1;
	if (x->key.pid != y->key.pid)
		return x->key.pid < y->key.pid ? -1 : 1;
	return x->key.base < y->key.base ? -1 : x->key.base > y->key.base;
}

size_t ibs_model_pages(const struct ibs_model *im, struct ibs_page **out)
{
	struct ibs_page *v = st_xcalloc(im->npages ? im->npages : 1, sizeof(*v));

	for (size_t i = 0; i < im->npages; i++)
		v[i] = *im->pages[i];
	qsort(v, im->npages, sizeof(*v), by_misses);
	*out = v;
	return im->npages;
}
