/*
 * unwind_pages_cache.c - a file's compiled pages kept on disk by its
 * build-id ("pages-ID" in the cache directory, owner-only, replaced by
 * rename), so that a second session gives libLLVM's pages to the kernel
 * from a mapping instead of spending libdw's 400 ms again.  A copy is
 * mapped read-only and checked whole before use: every row of a kind
 * the walkers apply, pages ascending and their entries back to back,
 * each page's entries ascending from its first byte, every index a row.
 *
 *   magic "SHIMPGS1", u32 version, u32 id length, id[64],
 *   u64 rows, u64 pages, u64 entries,
 *   rows: { i32 cfa_off, i16 ra_off, rbp_off, rbx_off, u8 kind, plt_at, rbp_lost, rbx_lost, u8 pad[2] }
 *   pages: { u64 page, u32 first, u32 n }   entries: u32 each
 */
#include "symbols/unwind_pages.h"
#include "symbols/symbols_internal.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGES_MAGIC	"SHIMPGS1"
#define PAGES_VERSION	1u
#define ID_MAX		64u
#define HEAD		(8u + 4u + 4u + ID_MAX + 3u * 8u)
#define ROW_BYTES	16u
#define PAGES_CACHE_MAX	(256ull << 20)

_Static_assert(sizeof(struct unwind_page) == 16, "a page is stored as it is held");

static void put_row(unsigned char *b, const struct unwind_row *r)
{
	memset(b, 0, ROW_BYTES);
	memcpy(b, &r->cfa_off, 4);
	memcpy(b + 4, &r->ra_off, 2);
	memcpy(b + 6, &r->rbp_off, 2);
	memcpy(b + 8, &r->rbx_off, 2);
	b[10] = r->kind;
	b[11] = r->plt_at;
	b[12] = r->rbp_lost;
	b[13] = r->rbx_lost;
}

static bool get_row(const unsigned char *b, struct unwind_row *r)
{
	memset(r, 0, sizeof(*r));
	memcpy(&r->cfa_off, b, 4);
	memcpy(&r->ra_off, b + 4, 2);
	memcpy(&r->rbp_off, b + 6, 2);
	memcpy(&r->rbx_off, b + 8, 2);
	r->kind = b[10];
	r->plt_at = b[11];
	r->rbp_lost = b[12] != 0;
	r->rbx_lost = b[13] != 0;
	return r->kind <= ROW_NONE && b[12] <= 1 && b[13] <= 1 && !b[14] && !b[15];
}

/* p's copy into o: the head, the rows, the pages (aligned to 16, as mapped in place), the entries. */
static bool pages_put(const struct unwind_pages *p, const unsigned char *id, size_t id_len,
		      struct cache_out *o)
{
	uint64_t counts[3] = { p->nrows, p->npages, p->nentries };
	uint32_t version = PAGES_VERSION, len32 = (uint32_t)id_len;
	size_t rows_end = HEAD + p->nrows * ROW_BYTES;
	unsigned char head[HEAD] = { 0 }, row[ROW_BYTES];

	if (!id_len || id_len > ID_MAX)
		return false;
	memcpy(head, PAGES_MAGIC, 8);
	memcpy(head + 8, &version, 4);
	memcpy(head + 12, &len32, 4);
	memcpy(head + 16, id, id_len);
	memcpy(head + 16 + ID_MAX, counts, sizeof(counts));
	cache_out_put(o, head, sizeof(head));
	for (size_t i = 0; i < p->nrows; i++) {
		put_row(row, &p->rows[i]);
		cache_out_put(o, row, sizeof(row));
	}
	cache_out_zeros(o, ((rows_end + 15) & ~(size_t)15) - rows_end);
	cache_out_put(o, p->pages, p->npages * sizeof(struct unwind_page));
	cache_out_put(o, p->entries, p->nentries * sizeof(uint32_t));
	return true;
}

size_t unwind_pages_to_bytes(const struct unwind_pages *p, const unsigned char *id,
			     size_t id_len, unsigned char **out)
{
	struct cache_out o;

	cache_out_memory(&o);
	if (!pages_put(p, id, id_len, &o))
		o.failed = true;
	return cache_out_bytes(&o, out);
}

/* Pages of addresses, ascending and back to back, entries ascending from 0, every index a row. */
static bool pages_sound(const struct unwind_page *pages, uint64_t npages, const uint32_t *e,
			uint64_t nentries, uint64_t nrows)
{
	uint64_t next = 0;

	for (uint64_t i = 0; i < npages; i++) {
		const struct unwind_page *pg = &pages[i];

		/* A page number no address has is another file's bytes. */
		if (pg->page > UINT64_MAX >> UNWIND_PAGE_SHIFT ||
		    (i && pg->page <= pages[i - 1].page) || pg->first != next || !pg->n ||
		    pg->n > nentries - next || UNWIND_ENTRY_OFF(e[pg->first]))
			return false;
		for (uint32_t k = 0; k < pg->n; k++) {
			uint32_t v = e[pg->first + k];

			if (UNWIND_ENTRY_ROW(v) >= nrows || UNWIND_ENTRY_OFF(v) >> UNWIND_PAGE_SHIFT ||
			    (k && UNWIND_ENTRY_OFF(v) <= UNWIND_ENTRY_OFF(e[pg->first + k - 1])))
				return false;
		}
		next += pg->n;
	}
	return next == nentries;
}

struct unwind_pages *unwind_pages_from_bytes(const unsigned char *id, size_t id_len,
					     const unsigned char *buf, size_t len)
{
	uint64_t counts[3];
	uint32_t version, len32;
	size_t pages_at, entries_at;
	struct unwind_pages *p;

	if (len < HEAD || memcmp(buf, PAGES_MAGIC, 8))
		return NULL;
	memcpy(&version, buf + 8, 4);
	memcpy(&len32, buf + 12, 4);
	if (version != PAGES_VERSION || len32 != id_len || !id_len || id_len > ID_MAX ||
	    memcmp(buf + 16, id, id_len))
		return NULL;
	memcpy(counts, buf + 16 + ID_MAX, sizeof(counts));
	/* Each count against what the bytes can hold, before any product. */
	if (!counts[0] || counts[0] > UINT16_MAX + 1ull || counts[1] > len / 16 || counts[2] > len / 4)
		return NULL;
	pages_at = (HEAD + counts[0] * ROW_BYTES + 15) & ~(size_t)15;
	entries_at = pages_at + counts[1] * sizeof(struct unwind_page);
	if (entries_at > len || counts[2] * sizeof(uint32_t) != len - entries_at ||
	    (uintptr_t)(buf + pages_at) % _Alignof(struct unwind_page))
		return NULL;
	if (!pages_sound((const void *)(buf + pages_at), counts[1],
			 (const void *)(buf + entries_at), counts[2], counts[0]))
		return NULL;
	p = st_xcalloc(1, sizeof(*p));
	p->rows = st_xcalloc(counts[0], sizeof(*p->rows));
	p->nrows = p->rows_cap = counts[0];
	for (size_t i = 0; i < p->nrows; i++)
		if (!get_row(buf + HEAD + i * ROW_BYTES, &p->rows[i]) ||
		    (i == UNWIND_PAGE_NONE) != (p->rows[i].kind == ROW_NONE)) {
			free(p->rows);
			free(p);
			return NULL;
		}
	p->pages = (struct unwind_page *)(uintptr_t)(buf + pages_at);
	p->npages = p->pages_cap = counts[1];
	p->entries = (uint32_t *)(uintptr_t)(buf + entries_at);
	p->nentries = p->entries_cap = counts[2];
	p->map = buf;
	return p;
}

struct unwind_pages *unwind_pages_cache_load(const unsigned char *id, size_t id_len)
{
	char name[160];
	const unsigned char *map;
	struct unwind_pages *p;
	size_t size;
	int dir;

	if (!id_len || id_len > ID_MAX)
		return NULL;
	dir = cache_dir_open(false);
	if (dir < 0)
		return NULL;
	cache_file_name(name, sizeof(name), "pages-", id, id_len);
	map = cache_file_map(dir, name, PAGES_CACHE_MAX, &size);
	close(dir);
	if (!map)
		return NULL;
	p = unwind_pages_from_bytes(id, id_len, map, size);
	if (!p) {
		munmap((void *)(uintptr_t)map, size);
		return NULL;
	}
	p->map = map;
	p->map_len = size;
	return p;
}

void unwind_pages_cache_save(const struct unwind_pages *p, const unsigned char *id,
			     size_t id_len)
{
	char name[160];
	struct cache_out o;
	int dir;

	if (HEAD + 16 + p->nrows * ROW_BYTES + p->npages * sizeof(struct unwind_page) +
	    p->nentries * sizeof(uint32_t) > PAGES_CACHE_MAX)
		return;
	dir = cache_dir_open(true);
	if (dir < 0)
		return;
	cache_file_name(name, sizeof(name), "pages-", id, id_len);
	if (cache_out_begin(&o, dir, name)) {
		if (!pages_put(p, id, id_len, &o))
			o.failed = true;
		(void)cache_out_end(&o, dir, name);
	}
	close(dir);
}
