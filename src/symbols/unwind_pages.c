/*
 * unwind_pages.c - a file's rows, all of them, compiled into pages.  The
 * rows come by address (unwind_rows_each_span); each becomes an entry in
 * every page it covers, a gap between functions an entry of no row in
 * the page where it starts.  Equal rows share an index: a file's
 * hundreds of thousands of rows are a few hundred distinct ones.
 */
#include "symbols/unwind_pages.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define PAGE_BYTES	(1ull << UNWIND_PAGE_SHIFT)

struct build {
	struct unwind_pages *p;
	bool has_cur;
	uint64_t last_end;
	const atomic_bool *stop;
};

static bool same_rule(const struct unwind_row *a, const struct unwind_row *b)
{
	return a->kind == b->kind && a->cfa_off == b->cfa_off && a->ra_off == b->ra_off &&
	       a->rbp_off == b->rbp_off && a->rbx_off == b->rbx_off && a->plt_at == b->plt_at &&
	       a->rbp_lost == b->rbp_lost && a->rbx_lost == b->rbx_lost;
}

static size_t rule_hash(const struct unwind_row *r)
{
	uint64_t h = (uint64_t)r->kind * 0x9e3779b97f4a7c15ull;

	h ^= (uint64_t)(uint32_t)r->cfa_off * 0xbf58476d1ce4e5b9ull;
	h ^= ((uint64_t)(uint16_t)r->ra_off << 32 | (uint64_t)(uint16_t)r->rbp_off << 16 |
	      (uint16_t)r->rbx_off) * 0x94d049bb133111ebull;
	h ^= (uint64_t)r->plt_at << 3 | (uint64_t)r->rbp_lost << 1 | r->rbx_lost;
	return (size_t)(h ^ h >> 29);
}

/* row's index, added the first time; every ROW_NONE is the first. */
static uint16_t intern(struct unwind_pages *p, const struct unwind_row *row)
{
	size_t i;

	if (row->kind == ROW_NONE)
		return UNWIND_PAGE_NONE;
	if (2 * (p->nrows + 1) > p->slots_cap) {
		size_t cap = p->slots_cap ? 2 * p->slots_cap : 1024;

		free(p->slots);
		p->slots = st_xcalloc(cap, sizeof(*p->slots));
		p->slots_cap = cap;
		for (size_t k = 1; k < p->nrows; k++) {
			for (i = rule_hash(&p->rows[k]) & (cap - 1); p->slots[i]; i = (i + 1) & (cap - 1))
				;
			p->slots[i] = (uint32_t)k + 1;
		}
	}
	for (i = rule_hash(row) & (p->slots_cap - 1); p->slots[i]; i = (i + 1) & (p->slots_cap - 1))
		if (same_rule(&p->rows[p->slots[i] - 1], row))
			return (uint16_t)(p->slots[i] - 1);
	/* Past 65,535 distinct rules, which no compiler writes: no CFI, for the other walker. */
	if (p->nrows > UINT16_MAX)
		return UNWIND_PAGE_NONE;
	ST_GROW_BARE(p->rows, p->rows_cap, p->nrows + 1);
	p->rows[p->nrows] = *row;
	p->rows[p->nrows].addr = 0;
	p->rows[p->nrows].taught = false;
	p->slots[i] = (uint32_t)p->nrows + 1;
	return (uint16_t)p->nrows++;
}

static struct unwind_page *cur(struct build *b)
{
	return b->has_cur ? &b->p->pages[b->p->npages - 1] : NULL;
}

static void push(struct unwind_pages *p, uint16_t off, uint16_t row)
{
	ST_GROW_BARE(p->entries, p->entries_cap, p->nentries + 1);
	p->entries[p->nentries++] = UNWIND_ENTRY(off, row);
}

static void add_entry(struct build *b, uint64_t page, uint16_t off, uint16_t row)
{
	struct unwind_pages *p = b->p;
	struct unwind_page *c = cur(b);
	uint32_t *last;

	if (!c || c->page != page) {
		ST_GROW_BARE(p->pages, p->pages_cap, p->npages + 1);
		c = &p->pages[p->npages++];
		*c = (struct unwind_page){ page, (uint32_t)p->nentries, 0 };
		b->has_cur = true;
		/* Before the first row in the page: no CFI. */
		if (off) {
			push(p, 0, UNWIND_PAGE_NONE);
			c->n = 1;
		}
	}
	last = c->n ? &p->entries[c->first + c->n - 1] : NULL;
	/* A row of no bytes (the next starts where it did) gives way. */
	if (last && UNWIND_ENTRY_OFF(*last) == off) {
		*last = UNWIND_ENTRY(off, row);
		if (c->n > 1 && UNWIND_ENTRY_ROW(last[-1]) == row) {
			c->n--;
			p->nentries--;
		}
		return;
	}
	if (last && UNWIND_ENTRY_ROW(*last) == row)
		return;
	push(p, off, row);
	c->n++;
}

static bool add_span(void *arg, uint64_t start, uint64_t end, const struct unwind_row *row)
{
	struct build *b = arg;
	uint16_t idx;

	if (b->stop && atomic_load_explicit(b->stop, memory_order_relaxed))
		return false;
	/* FDEs that overlap: the earlier one's rows stand. */
	if (start < b->last_end)
		start = b->last_end;
	if (start >= end)
		return true;
	/* A gap since the last row: no CFI from its end, in the page where it starts. */
	if (b->has_cur && start > b->last_end && b->last_end >> UNWIND_PAGE_SHIFT == cur(b)->page)
		add_entry(b, cur(b)->page, (uint16_t)(b->last_end & (PAGE_BYTES - 1)),
			  UNWIND_PAGE_NONE);
	idx = intern(b->p, row);
	for (uint64_t page = start >> UNWIND_PAGE_SHIFT; page <= (end - 1) >> UNWIND_PAGE_SHIFT;
	     page++) {
		uint64_t from = page << UNWIND_PAGE_SHIFT;

		add_entry(b, page, (uint16_t)(start > from ? start - from : 0), idx);
	}
	b->last_end = end;
	return true;
}

struct unwind_pages *unwind_pages_make(struct unwind_rows *r, const atomic_bool *stop)
{
	struct build b = { .p = st_xcalloc(1, sizeof(*b.p)), .stop = stop };
	const struct unwind_row none = { .kind = ROW_NONE };

	ST_GROW_BARE(b.p->rows, b.p->rows_cap, 1);
	b.p->rows[0] = none;
	b.p->nrows = 1;
	if (!unwind_rows_each_span(r, add_span, &b)) {
		unwind_pages_free(b.p);
		return NULL;
	}
	if (b.has_cur && b.last_end >> UNWIND_PAGE_SHIFT == cur(&b)->page &&
	    b.last_end & (PAGE_BYTES - 1))
		add_entry(&b, cur(&b)->page, (uint16_t)(b.last_end & (PAGE_BYTES - 1)),
			  UNWIND_PAGE_NONE);
	free(b.p->slots);
	b.p->slots = NULL;
	b.p->slots_cap = 0;
	return b.p;
}

void unwind_pages_free(struct unwind_pages *p)
{
	if (!p)
		return;
	free(p->rows);
	/* Taken from bytes: the caller's (map_len 0), or the cache's mapping. */
	if (p->map) {
		if (p->map_len)
			munmap((void *)(uintptr_t)p->map, p->map_len);
	} else {
		free(p->pages);
		free(p->entries);
	}
	free(p->slots);
	free(p);
}

const struct unwind_row *unwind_pages_find(const struct unwind_pages *p, uint64_t addr)
{
	uint64_t page = addr >> UNWIND_PAGE_SHIFT;
	uint16_t off = (uint16_t)(addr & (PAGE_BYTES - 1));
	size_t i = st_after(p->pages, p->npages, sizeof(*p->pages),
			    offsetof(struct unwind_page, page), page);
	const struct unwind_page *pg;
	const uint32_t *e;
	uint32_t lo = 0, hi;

	if (!i || p->pages[i - 1].page != page)
		return NULL;
	pg = &p->pages[i - 1];
	e = p->entries + pg->first;
	/* The last entry at or before off (the first is at 0). */
	for (hi = pg->n; hi - lo > 1;) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (UNWIND_ENTRY_OFF(e[mid]) <= off)
			lo = mid;
		else
			hi = mid;
	}
	return &p->rows[UNWIND_ENTRY_ROW(e[lo])];
}
