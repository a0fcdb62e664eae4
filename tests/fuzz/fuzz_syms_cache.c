/*
 * fuzz_syms_cache.c - libFuzzer: a copy of a file's symbol table as the
 * cache directory holds it (symbols_table_cache.c).  Whatever the bytes,
 * they are taken whole or refused, the table untouched; taken, every
 * look-up finds an entry holding its address with an ended name, and
 * the table written back reads back the same.
 */
#include "fuzz.h"
#include "symbols/symbols_internal.h"

#include <stdlib.h>
#include <string.h>

#define HEAD_KEYED	104u	/* magic, version, id length, id, key: what the target puts */

static const unsigned char id[20] = { 0x5e, 0xed };
static const struct symbol_table_key key = { .bias = 0x1000, .symbols = 7, .named_by = 4 };

static void check_table(const struct symbol_table *t)
{
	for (uint64_t a = 0; a < 64; a++) {
		const struct elf_symbol *e = symbol_table_find(t, 0x1000 + a * 97);
		const char *raw = e ? symbol_table_text(t, e->raw) : NULL;

		if (e && (e->start > 0x1000 + a * 97 || (raw && strlen(raw) > (1u << 30))))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct symbol_table t = { 0 }, again = { 0 };
	unsigned char *copy = malloc(size + HEAD_KEYED), *out = NULL;
	bool whole = size > 16 && data[0] == 'S';
	uint32_t version = 3, id_len = sizeof(id);	/* SYMS_VERSION */
	size_t n;

	if (!copy)
		return 0;
	/* The key in place, so the checks past it are reached: the bytes follow it. */
	memset(copy, 0, HEAD_KEYED);
	memcpy(copy, "SHIMSYMS", 8);
	memcpy(copy + 8, &version, 4);
	memcpy(copy + 12, &id_len, 4);
	memcpy(copy + 16, id, sizeof(id));
	memcpy(copy + 80, &key, sizeof(key));
	if (whole)
		memcpy(copy, data, size);
	else
		memcpy(copy + HEAD_KEYED, data, size);
	n = whole ? size : size + HEAD_KEYED;
	if (!symbol_table_from_bytes(&t, id, sizeof(id), &key, copy, n, 0)) {
		if (t.n || t.v || t.names || t.block)
			abort();
		free(copy);
		return 0;
	}
	/* Taken: t owns copy. */
	check_table(&t);
	n = symbol_table_to_bytes(&t, id, sizeof(id), &key, &out);
	if (!n || !symbol_table_from_bytes(&again, id, sizeof(id), &key, out, n, 0))
		abort();
	if (again.n != t.n)
		abort();
	for (size_t i = 0; i < t.n; i++)
		if (again.v[i].start != t.v[i].start || again.v[i].end != t.v[i].end ||
		    !symbol_table_text(&again, again.v[i].raw) != !symbol_table_text(&t, t.v[i].raw) ||
		    (symbol_table_text(&t, t.v[i].raw) &&
		     strcmp(symbol_table_text(&again, again.v[i].raw), symbol_table_text(&t, t.v[i].raw))))
			abort();
	symbol_table_clear(&again);
	symbol_table_clear(&t);
	return 0;
}
