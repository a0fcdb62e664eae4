/*
 * fuzz_rows_cache.c - libFuzzer: a copy of a file's unwind rows as the
 * cache directory holds it (unwind_rows_cache.c).  Whatever the bytes,
 * they are taken whole or refused; taken, every address's row is one
 * the walk knows, and the rows written back read back the same.
 */
#include "fuzz.h"
#include "symbols/unwind_rows.h"

#include <stdlib.h>
#include <string.h>

static const unsigned char id[20] = { 0x5e, 0xed };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct unwind_rows *r = unwind_rows_open(-1), *again;
	unsigned char *copy = malloc(size + 40), *out = NULL;
	size_t n;

	/* Nothing written to the machine's cache directory. */
	setenv("SHIMTOP_CACHE_DIR", "", 1);
	if (!copy) {
		unwind_rows_free(r);
		return 0;
	}
	/* The key in place, so the checks past it are reached: the bytes follow it. */
	memcpy(copy, "SHIMROWS\1\0\0\0\24\0\0\0", 16);
	memcpy(copy + 16, id, sizeof(id));
	memcpy(copy + 36, data, size);
	if (unwind_rows_from_bytes(r, id, sizeof(id), size > 16 && data[0] == 'S' ? data : copy,
				   size > 16 && data[0] == 'S' ? size : size + 36)) {
		if (unwind_rows_cached(r) != ROWS_CACHE_READ)
			abort();
		for (uint64_t a = 0; a < 64; a++) {
			const struct unwind_row *row = unwind_rows_find(r, a * 37);

			if (row->kind > ROW_NONE)
				abort();
		}
		n = unwind_rows_to_bytes(r, &out);
		again = unwind_rows_open(-1);
		if (!unwind_rows_from_bytes(again, id, sizeof(id), out, n))
			abort();
		unwind_rows_free(again);
		free(out);
	} else if (unwind_rows_cached(r) != ROWS_CACHE_REFUSED) {
		abort();
	}
	unwind_rows_free(r);
	free(copy);
	return 0;
}
