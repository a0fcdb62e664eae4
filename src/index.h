/*
 * index.h - an open-addressing hash index from a two-word key to a
 * non-zero 32-bit value (an entry's number in its owner's array): the
 * call tree's children, a time range's kinds of sample, the IBS pages.
 *
 * Linear probing over a power-of-two table kept at most half full; the
 * home slot is the top bits of a multiplicative hash of the whole key
 * (the low bits of such a product see only the key's low bits).
 */
#ifndef SHIMTOP_INDEX_H
#define SHIMTOP_INDEX_H

#include <stddef.h>
#include <stdint.h>

struct st_index_slot {
	uint64_t a, b;
	uint32_t value;		/* 0: empty */
};

struct st_index {
	struct st_index_slot *slots;
	size_t cap, n;
	unsigned shift;		/* 64 - log2(cap) */
};

void st_index_init(struct st_index *x);
void st_index_free(struct st_index *x);

/* The value stored for (a, b), or 0. */
uint32_t st_index_find(const struct st_index *x, uint64_t a, uint64_t b);

/*
 * The value stored for (a, b); when there is none, stores value (not 0)
 * and returns it: the caller tells a new key by getting its own value.
 */
uint32_t st_index_put(struct st_index *x, uint64_t a, uint64_t b, uint32_t value);

/* The farthest any key sits from its home slot (tests, benchmarks). */
size_t st_index_longest_probe(const struct st_index *x);

/* The home slot of (a, b) in a table of 2^(64 - shift) slots. */
static inline size_t st_index_home(uint64_t a, uint64_t b, unsigned shift)
{
	uint64_t h = (a ^ (b * 0xc2b2ae3d27d4eb4full)) * 0x9e3779b97f4a7c15ull;

	h ^= h >> 29;
	return (size_t)((h * 0xbf58476d1ce4e5b9ull) >> shift);
}

#endif
