/* callers_seen.c - a chain's callers' tree node by its addresses (see callers_seen.h). */
#include "model/callers_seen.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static uint64_t chain_hash(uint64_t gen, const uint64_t *ips, size_t n, bool truncated)
{
	uint64_t h = (gen ^ ((uint64_t)n << 1) ^ truncated) * 0x9e3779b97f4a7c15ull;

	for (size_t i = 0; i < n; i++) {
		h ^= ips[i];
		h *= 0x9e3779b97f4a7c15ull;
		h ^= h >> 32;
	}
	return h;
}

/* The addresses an entry keeps of n: past them, the hash of all n answers for the rest. */
static size_t kept(size_t n)
{
	return n < CALLERS_SEEN_IPS ? n : CALLERS_SEEN_IPS;
}

/* A multiplicative hash's best bits are its top ones. */
static size_t slot_of(uint64_t h)
{
	return (size_t)((h * 0x9e3779b97f4a7c15ull) >> 52) & (CALLERS_SEEN_SLOTS - 1);
}

const struct callers_seen_entry *callers_seen_find(struct callers_seen *c, uint64_t gen,
						   const uint64_t *ips, size_t n, bool truncated)
{
	const struct callers_seen_entry *e;
	uint64_t h;

	if (!c->slots || !n || n > CALLERS_SEEN_MAX)
		return NULL;
	h = chain_hash(gen, ips, n, truncated);
	e = &c->slots[slot_of(h)];
	if (!e->node || e->hash != h || e->gen != gen || e->nips != n ||
	    e->truncated != truncated || memcmp(e->ips, ips, kept(n) * sizeof(*ips))) {
		c->misses++;
		return NULL;
	}
	c->hits++;
	return e;
}

void callers_seen_put(struct callers_seen *c, const uint64_t *ips, size_t n,
		      const struct callers_seen_entry *e)
{
	struct callers_seen_entry *to;
	uint64_t h;

	if (!n || n > CALLERS_SEEN_MAX || !e->node)
		return;
	if (!c->slots)
		c->slots = st_xcalloc(CALLERS_SEEN_SLOTS, sizeof(*c->slots));
	h = chain_hash(e->gen, ips, n, e->truncated);
	to = &c->slots[slot_of(h)];
	*to = *e;
	to->hash = h;
	to->nips = (uint32_t)n;
	memcpy(to->ips, ips, kept(n) * sizeof(*ips));
}

void callers_seen_free(struct callers_seen *c)
{
	free(c->slots);
	memset(c, 0, sizeof(*c));
}
