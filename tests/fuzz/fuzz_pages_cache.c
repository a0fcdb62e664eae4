/*
 * fuzz_pages_cache.c - libFuzzer: a copy of a file's compiled pages as
 * the cache directory holds it (unwind_pages_cache.c).  Whatever the
 * bytes, they are taken whole or refused; taken, every look-up in a
 * page gives one of the rows, and the pages written back read back to
 * the same rows.
 */
#include "fuzz.h"
#include "symbols/unwind_pages.h"

#include <stdlib.h>
#include <string.h>

#define HEAD_ID		80u	/* magic, version, id length, id: what the target puts */

static const unsigned char id[20] = { 0x9a, 0x9e };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* 16-aligned (malloc's), as a mapping is: pages are read in place. */
	unsigned char *copy = malloc(size + HEAD_ID), *out = NULL;
	bool whole = size > 16 && data[0] == 'S';
	uint32_t version = 1, id_len = sizeof(id);
	struct unwind_pages *p, *again;
	size_t n;

	if (!copy)
		return 0;
	memset(copy, 0, HEAD_ID);
	memcpy(copy, "SHIMPGS1", 8);
	memcpy(copy + 8, &version, 4);
	memcpy(copy + 12, &id_len, 4);
	memcpy(copy + 16, id, sizeof(id));
	if (whole)
		memcpy(copy, data, size);
	else
		memcpy(copy + HEAD_ID, data, size);
	n = whole ? size : size + HEAD_ID;
	p = unwind_pages_from_bytes(id, sizeof(id), copy, n);
	if (!p) {
		free(copy);
		return 0;
	}
	for (size_t i = 0; i < p->npages; i++)
		for (uint64_t a = 0; a < 64; a++) {
			const struct unwind_row *r =
				unwind_pages_find(p, (p->pages[i].page << 12) + (a * 67 & 0xfff));

			if (!r || r < p->rows || r >= p->rows + p->nrows)
				abort();
		}
	n = unwind_pages_to_bytes(p, id, sizeof(id), &out);
	again = n ? unwind_pages_from_bytes(id, sizeof(id), out, n) : NULL;
	if (!again || again->npages != p->npages || again->nentries != p->nentries ||
	    again->nrows != p->nrows || memcmp(again->entries, p->entries, 4 * p->nentries))
		abort();
	unwind_pages_free(again);
	unwind_pages_free(p);
	free(out);
	free(copy);
	return 0;
}
