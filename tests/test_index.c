/*
 * test_index.c - the shared open-addressing index: every key put is
 * found with its first value through growth, absent keys are not, and
 * keys that differ only in high bits (a call tree's (parent, sym) for
 * one function under many parents) do not cluster.
 */
#include "check.h"
#include "index.h"

static void check_put_find(void)
{
	struct st_index x;
	uint32_t bad = 0;

	st_index_init(&x);
	CHECK(st_index_find(&x, 1, 2) == 0);
	CHECK(st_index_put(&x, 1, 2, 7) == 7);
	/* A second put keeps the first value. */
	CHECK(st_index_put(&x, 1, 2, 9) == 7);
	CHECK(st_index_find(&x, 1, 2) == 7);
	CHECK(st_index_find(&x, 2, 1) == 0);
	CHECK(x.n == 1);
	for (uint32_t i = 0; i < 100000; i++)
		st_index_put(&x, (uint64_t)i << 40, i ^ 0x5555, i + 10);
	for (uint32_t i = 0; i < 100000; i++)
		bad += st_index_find(&x, (uint64_t)i << 40, i ^ 0x5555) != i + 10;
	CHECK(bad == 0);
	CHECK(x.n == 100001 && x.cap >= 2 * x.n);
	CHECK(st_index_find(&x, (uint64_t)100000 << 40, 100000 ^ 0x5555) == 0);
	CHECK(st_index_find(&x, 1, 2) == 7);
	st_index_free(&x);
	CHECK(x.cap == 0 && st_index_find(&x, 1, 2) == 0);
}

/*
 * The defect the index replaced: bits 17 and up of key * K for key
 * parent << 32 | sym see only the parent's low bits, so one symbol under
 * parents 64 apart filled one run of slots.  Here every probe run stays
 * short for such keys, for page addresses 4 KiB apart, and for sequential ones.
 */
static void check_spread(void)
{
	static const struct { uint64_t a_step, b; const char *what; } cases[] = {
		{ 64, 12345, "one symbol under parents 64 apart" },
		{ 1u << 20, 3, "one symbol under parents 2^20 apart" },
		{ 4096, 4242, "pages 4 KiB apart in one process" },
		{ 1, 0, "sequential keys" },
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct st_index x;
		size_t longest;

		st_index_init(&x);
		for (uint32_t i = 1; i <= 50000; i++)
			st_index_put(&x, i * cases[c].a_step, cases[c].b, i);
		longest = st_index_longest_probe(&x);
		printf("%s: longest probe %zu slots of %zu\n", cases[c].what, longest, x.cap);
		CHECK(longest < 64);
		st_index_free(&x);
	}
}

int main(void)
{
	check_put_find();
	check_spread();
	return check_done("test_index");
}
