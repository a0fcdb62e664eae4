/* callers_seen.c - a chain's callers' tree node by its addresses (see callers_seen.h). */
#include "model/callers_seen.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

#define K 0x9e3779b97f4a7c15ull

static uint64_t chain_hash(uint64_t seed, uint64_t gen, const uint64_t *ips, size_t n,
			   bool truncated)
{
	uint64_t h = (seed ^ gen * K ^ ((uint64_t)n << 1) ^ truncated) * K;

	for (size_t i = 0; i < n; i++) {
		h ^= ips[i];
		h *= K;
		h ^= h >> 32;
	}
	return h ? h : 1;	/* 0 marks an empty entry */
}

/* A multiplicative hash's best bits are its top ones. */
static struct callers_seen_entry *bucket_of(const struct callers_seen *c, uint64_t h)
{
	size_t b = (size_t)((h * K) >> (64 - c->bucket_bits));

	return &c->slots[b * CALLERS_SEEN_WAYS];
}

uint64_t callers_seen_key(struct callers_seen *c, uint64_t gen, const uint64_t *ips, size_t n,
			  bool truncated)
{
	if (!n || n > CALLERS_SEEN_MAX)
		return 0;
	if (!c->slots) {
		size_t size;

		if (!c->bucket_bits)
			c->bucket_bits = (unsigned)__builtin_ctz(CALLERS_SEEN_BUCKETS);
		size = ((size_t)1 << c->bucket_bits) * CALLERS_SEEN_WAYS * sizeof(*c->slots);

		/* A bucket on one cache line. */
		c->slots = st_table_alloc(size / sizeof(*c->slots), sizeof(*c->slots));
		/* A seed given before the first key (a test's) is kept. */
		if (!c->seed)
			c->seed = st_seed((uint64_t)(uintptr_t)c->slots);
	}
	return chain_hash(c->seed, gen, ips, n, truncated);
}

const struct callers_seen_entry *callers_seen_find(struct callers_seen *c, uint64_t key,
						   uint64_t gen)
{
	const struct callers_seen_entry *b;

	if (!key)
		return NULL;
	b = bucket_of(c, key);
	for (unsigned w = 0; w < CALLERS_SEEN_WAYS; w++) {
		if (b[w].hash == key && b[w].gen == gen) {
			c->hits++;
			return &b[w];
		}
	}
	c->misses++;
	return NULL;
}

void callers_seen_put(struct callers_seen *c, uint64_t key, const struct callers_seen_entry *e)
{
	struct callers_seen_entry *b;
	unsigned w;

	if (!key || !e->node)
		return;
	b = bucket_of(c, key);
	for (w = 0; w < CALLERS_SEEN_WAYS && b[w].hash && !(b[w].hash == key && b[w].gen == e->gen);
	     w++)
		;
	if (w == CALLERS_SEEN_WAYS) {
		w = 0;
		for (unsigned i = 1; i < CALLERS_SEEN_WAYS; i++)
			if (b[i].credit < b[w].credit)
				w = i;
		if (b[w].credit > e->frames) {
			for (unsigned i = 0; i < CALLERS_SEEN_WAYS; i++)
				b[i].credit -= b[i].credit < e->frames ? b[i].credit : e->frames;
			return;
		}
	}
	b[w] = *e;
	b[w].hash = key;
	b[w].credit = e->frames;
}

void callers_seen_bound(struct callers_seen *c, size_t bytes)
{
	unsigned bits = 12;

	while ((1u << (bits + 1)) <= CALLERS_SEEN_BUCKETS &&
	       ((size_t)2 << bits) * CALLERS_SEEN_WAYS * sizeof(*c->slots) <= bytes)
		bits++;
	if (!c->slots)
		c->bucket_bits = bits;
}

void callers_seen_prefetch(const struct callers_seen *c, uint64_t key)
{
	if (key)
		__builtin_prefetch(bucket_of(c, key));
}

void callers_seen_free(struct callers_seen *c)
{
	st_table_free(c->slots, ((size_t)1 << c->bucket_bits) * CALLERS_SEEN_WAYS, sizeof(*c->slots));
	memset(c, 0, sizeof(*c));
}
