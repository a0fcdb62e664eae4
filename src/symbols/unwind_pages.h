/*
 * unwind_pages.h - a file's whole CFI compiled into pages: for each 4 KiB
 * page of its code, the addresses in it where the row changes and an
 * index into a table of the file's distinct rows.  Another walker (the
 * kernel's, sampler/kernel_walk.c) finds any address's row with one
 * look-up of its page and a binary search of the page's entries, with
 * no row taught address by address.
 */
#ifndef SHIMTOP_UNWIND_PAGES_H
#define SHIMTOP_UNWIND_PAGES_H

#include "symbols/unwind_rows.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UNWIND_PAGE_SHIFT	12
#define UNWIND_PAGE_NONE	0	/* the rows' first: no CFI covers the address */

/* An entry: where a row starts in its page (high 16 bits) and its index in the rows. */
#define UNWIND_ENTRY(off, row)	((uint32_t)(off) << 16 | (uint32_t)(row))
#define UNWIND_ENTRY_OFF(e)	((uint16_t)((e) >> 16))
#define UNWIND_ENTRY_ROW(e)	((uint16_t)((e) & 0xffff))

/* A page's entries: entries[first .. first + n), ascending, the first at offset 0. */
struct unwind_page {
	uint64_t page;				/* file address >> UNWIND_PAGE_SHIFT */
	uint32_t first, n;
};

struct unwind_pages {
	struct unwind_row *rows;		/* distinct rows, rows[0] a ROW_NONE */
	size_t nrows, rows_cap;
	struct unwind_page *pages;		/* by page */
	size_t npages, pages_cap;
	uint32_t *entries;
	size_t nentries, entries_cap;
	size_t slots_cap;			/* rows' dedup table (power of two) */
	uint32_t *slots;			/* row index + 1, 0 free */
	/* Taken from bytes: pages and entries point into these (map_len 0: not ours). */
	const void *map;
	size_t map_len;
};

/* Every row of r compiled into pages (no CFI: no pages); NULL if *stop was set meanwhile. */
struct unwind_pages *unwind_pages_make(struct unwind_rows *r, const atomic_bool *stop);
void unwind_pages_free(struct unwind_pages *p);

/*
 * The copy on disk by a file's build-id (unwind_pages_cache.c): bytes
 * made, and bytes taken (checked whole first: NULL if refused; pages and
 * entries then point into buf, which must outlive them).
 */
size_t unwind_pages_to_bytes(const struct unwind_pages *p, const unsigned char *id,
			     size_t id_len, unsigned char **out);
struct unwind_pages *unwind_pages_from_bytes(const unsigned char *id, size_t id_len,
					     const unsigned char *buf, size_t len);
/* The cache's copy for the file of build-id id, NULL if none or refused; and p saved. */
struct unwind_pages *unwind_pages_cache_load(const unsigned char *id, size_t id_len);
void unwind_pages_cache_save(const struct unwind_pages *p, const unsigned char *id,
			     size_t id_len);

/* The row the pages give addr, NULL where no page holds it. */
const struct unwind_row *unwind_pages_find(const struct unwind_pages *p, uint64_t addr);

#endif
