/*
 * fuzz_kallsyms.c - libFuzzer: kallsyms text, as /proc/kallsyms gives it,
 * and the same bytes as a saved copy (symbols_kernel_cache.c, its key
 * taken from its own head).  Whatever they hold parses into a sorted
 * table whose names lie inside the bytes and whose lookups stay in range,
 * and whether an answer is unsure can be asked of any address.
 */
#include "fuzz.h"
#include "symbols/symbols_internal.h"

#include <stdlib.h>
#include <string.h>

/* The bytes as a saved copy, under the key its head names (16 bytes in, 128 long). */
static void saved_copy(const uint8_t *data, size_t size)
{
	struct range_table t;
	char key[129] = "";

	if (size >= 16 + 128)
		memcpy(key, data + 16, 128);
	memset(&t, 0, sizeof(t));
	if (!kernel_cache_from_bytes(&t, key, data, size))
		return;
	for (size_t i = 0; i < t.n; i++) {
		struct range_entry v, prev = { 0 };
		const struct range_entry *e;

		range_table_entry(&t, i, &v);
		if (i)
			range_table_entry(&t, i - 1, &prev);
		e = range_table_find(&t, v.start);
		if ((const uint8_t *)v.name < data ||
		    (const uint8_t *)v.name + strlen(v.name) >= data + size ||
		    (v.module && ((const uint8_t *)v.module < data ||
		     (const uint8_t *)v.module + strlen(v.module) >= data + size)) ||
		    prev.start > v.start || (e && (e->start > v.start || v.start >= e->end)))
			abort();
		(void)kernel_cache_unsure(&t, e, v.start);
	}
	range_table_clear(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct range_table t;
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	memset(&t, 0, sizeof(t));
	kernel_symbols_parse(&t, text, size);
	for (size_t i = 1; i < t.n; i++)
		if (t.v[i - 1].start > t.v[i].start)
			abort();
	for (size_t i = 0; i < t.n; i++) {
		uint64_t probes[3] = { t.v[i].start, t.v[i].start + 1, t.v[i].end };

		if (!t.v[i].name || t.v[i].name < text || t.v[i].name > text + size)
			abort();
		for (int k = 0; k < 3; k++) {
			const struct range_entry *e = range_table_find(&t, probes[k]);

			if (e && (e->start > probes[k] || probes[k] >= e->end))
				abort();
			(void)kernel_cache_unsure(&t, e, probes[k]);
		}
	}
	(void)kernel_cache_unsure(&t, range_table_find(&t, 0), 0);
	(void)kernel_cache_unsure(&t, range_table_find(&t, UINT64_MAX), UINT64_MAX);
	free(t.v);
	free(text);
	saved_copy(data, size);
	return 0;
}
