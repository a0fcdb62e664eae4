/*
 * fuzz_jit_map.c - libFuzzer: a /tmp/perf-PID.map the target wrote.
 * Whatever it holds parses into a sorted table whose lookups stay in
 * range.
 */
#include "fuzz.h"
#include "symbols/symbols_internal.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct range_table t;

	memset(&t, 0, sizeof(t));
	jit_map_parse(&t, (const char *)data, size);
	for (size_t i = 1; i < t.n; i++)
		if (t.v[i - 1].start > t.v[i].start)
			abort();
	/*
	 * A lookup answers an entry that holds the address, or nothing; the
	 * last entry of each start (the one lookups pick) answers its own
	 * start unless it is empty (it ends where it begins).
	 */
	for (size_t i = 0; i < t.n; i++) {
		uint64_t a = t.v[i].start;
		const struct range_entry *e = range_table_find(&t, a);
		int last = i + 1 == t.n || t.v[i + 1].start != a;

		if (e && (e->start > a || a >= e->end || !e->name))
			abort();
		if (last && t.v[i].end > a && e != &t.v[i])
			abort();
	}
	range_table_find(&t, 0);
	range_table_find(&t, UINT64_MAX);
	range_table_clear(&t);
	return 0;
}
