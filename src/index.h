/*
 * index.h - an open-addressing hash index from a key the caller keeps
 * to a non-zero 32-bit value (its entry's number in the caller's array):
 * the call tree's children, a time range's kinds of sample, the IBS
 * pages.
 *
 * A slot is 8 bytes, the value and 32 bits of the key's hash: the
 * caller compares its own key only where those bits match, and the
 * index grows without asking it (the home slot is the top bits of the
 * hash, a multiplicative hash's best bits).  Linear probing over a
 * power-of-two table kept at most half full.
 *
 *	uint64_t h = st_index_hash(a, b);
 *	struct st_index_probe p;
 *
 *	for (uint32_t v = st_index_first(x, h, &p); v; v = st_index_next(x, &p))
 *		if (entries[v - 1] has key (a, b))
 *			return v;
 *	st_index_add(x, h, new_value);
 */
#ifndef SHIMTOP_INDEX_H
#define SHIMTOP_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct st_index_slot {
	uint32_t tag;		/* the hash's top 32 bits */
	uint32_t value;		/* 0: empty */
};

struct st_index {
	struct st_index_slot *slots;
	size_t cap, n;		/* cap a power of two, at most 2^32 */
	unsigned bits;		/* log2(cap) */
	bool mapped;		/* slots from st_map_zeroed, else the heap */
};

struct st_index_probe {
	size_t at;
	uint32_t tag;
};

void st_index_init(struct st_index *x);
void st_index_free(struct st_index *x);

/* A key of two words, mixed so that every bit of each counts. */
static inline uint64_t st_index_hash(uint64_t a, uint64_t b)
{
	uint64_t h = (a ^ (b * 0xc2b2ae3d27d4eb4full)) * 0x9e3779b97f4a7c15ull;

	h ^= h >> 29;
	return h * 0xbf58476d1ce4e5b9ull;
}

/* The values stored under hash's tag, one by one; 0 once there are no more. */
static inline uint32_t st_index_next(const struct st_index *x, struct st_index_probe *p)
{
	for (;; p->at = (p->at + 1) & (x->cap - 1)) {
		const struct st_index_slot *s = &x->slots[p->at];

		if (!s->value)
			return 0;
		if (s->tag == p->tag) {
			p->at = (p->at + 1) & (x->cap - 1);
			return s->value;
		}
	}
}

static inline uint32_t st_index_first(const struct st_index *x, uint64_t hash,
				      struct st_index_probe *p)
{
	if (!x->cap)
		return 0;
	p->tag = (uint32_t)(hash >> 32);
	p->at = (size_t)(p->tag >> (32 - x->bits));
	return st_index_next(x, p);
}

/* Stores value (not 0) under hash: for a key not stored yet. */
void st_index_add(struct st_index *x, uint64_t hash, uint32_t value);

/* The farthest any value sits from its home slot (tests, benchmarks). */
size_t st_index_longest_probe(const struct st_index *x);

#endif
