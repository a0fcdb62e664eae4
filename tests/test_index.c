/*
 * test_index.c - the shared open-addressing index: every key added is
 * found through growth, absent keys are not, values under one tag are
 * all seen, and keys that differ only in high bits (a call tree's
 * (parent, sym) for one function under many parents) do not cluster.
 * Tables of 256 KiB and more come whole from the kernel, 2 MiB aligned.
 */
#include "check.h"
#include "index.h"
#include "mapped.h"

#include <stdbool.h>
#include <stdint.h>

/* The keys the caller keeps: index value v is keys[v - 1]. */
struct key {
	uint64_t a, b;
};
static struct key keys[200001];
static uint32_t nkeys;

static uint32_t find(const struct st_index *x, uint64_t a, uint64_t b)
{
	struct st_index_probe p;

	for (uint32_t v = st_index_first(x, st_index_hash(a, b), &p); v; v = st_index_next(x, &p))
		if (keys[v - 1].a == a && keys[v - 1].b == b)
			return v;
	return 0;
}

static uint32_t put(struct st_index *x, uint64_t a, uint64_t b)
{
	uint32_t v = find(x, a, b);

	if (v)
		return v;
	keys[nkeys++] = (struct key){ a, b };
	st_index_add(x, st_index_hash(a, b), nkeys);
	return nkeys;
}

static void check_add_find(void)
{
	struct st_index x;
	uint32_t bad = 0, first;

	st_index_init(&x);
	nkeys = 0;
	CHECK(find(&x, 1, 2) == 0);
	first = put(&x, 1, 2);
	CHECK(first == 1 && put(&x, 1, 2) == 1 && x.n == 1);
	CHECK(find(&x, 2, 1) == 0);
	for (uint32_t i = 0; i < 200000; i++)
		put(&x, (uint64_t)i << 40, i ^ 0x5555);
	for (uint32_t i = 0; i < 200000; i++) {
		uint32_t v = find(&x, (uint64_t)i << 40, i ^ 0x5555);

		bad += !v || keys[v - 1].a != (uint64_t)i << 40;
	}
	CHECK(bad == 0);
	CHECK(x.n == 200001 && x.cap >= 2 * x.n && x.cap == (size_t)1 << x.bits);
	CHECK(x.mapped && ((uintptr_t)x.slots & ((2u << 20) - 1)) == 0);
	CHECK(find(&x, (uint64_t)200000 << 40, 200000 ^ 0x5555) == 0);
	CHECK(find(&x, 1, 2) == first);
	st_index_free(&x);
	CHECK(x.cap == 0 && find(&x, 1, 2) == 0);
}

/*
 * Two keys whose hashes share their top 32 bits (the tag): both are
 * stored and both found, the caller telling them apart by its keys.
 */
static void check_same_tag(void)
{
	struct st_index x;
	struct st_index_probe p;
	size_t seen = 0;

	st_index_init(&x);
	nkeys = 0;
	keys[nkeys++] = (struct key){ 10, 20 };
	st_index_add(&x, 0xabcdef0100000001ull, nkeys);
	keys[nkeys++] = (struct key){ 30, 40 };
	st_index_add(&x, 0xabcdef0100000002ull, nkeys);
	for (uint32_t v = st_index_first(&x, 0xabcdef01ffffffffull, &p); v; v = st_index_next(&x, &p))
		seen |= (size_t)1 << (v - 1);
	CHECK(seen == 3);
	st_index_free(&x);
}

/*
 * The defect the index replaced: bits 17 and up of key * K for key
 * parent << 32 | sym see only the parent's low bits, so one symbol under
 * parents 64 apart filled one run of slots.  Here every probe run stays
 * short for such keys, for pages 4 KiB apart, and for sequential ones.
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
		nkeys = 0;
		for (uint32_t i = 1; i <= 50000; i++)
			put(&x, i * cases[c].a_step, cases[c].b);
		longest = st_index_longest_probe(&x);
		printf("%s: longest probe %zu slots of %zu\n", cases[c].what, longest, x.cap);
		CHECK(longest < 64);
		st_index_free(&x);
	}
}

/* A reservation: aligned, zeroed to its last byte, given back. */
static void check_mapped(void)
{
	size_t len = (5u << 20) + 123;
	unsigned char *p = st_map_zeroed(len, true);

	CHECK(p && ((uintptr_t)p & ((2u << 20) - 1)) == 0);
	if (!p)
		return;
	CHECK(p[0] == 0 && p[len - 1] == 0 && p[len / 2] == 0);
	p[len - 1] = 1;
	CHECK(p[len - 1] == 1);
	st_unmap(p, len);
	CHECK(st_map_zeroed(0, false) == NULL && st_map_zeroed(SIZE_MAX, false) == NULL);
}

int main(void)
{
	check_add_find();
	check_mapped();
	check_same_tag();
	check_spread();
	return check_done("test_index");
}
