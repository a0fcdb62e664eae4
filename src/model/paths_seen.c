/* paths_seen.c - a path of callers' tree node by its addresses (see paths_seen.h). */
#include "model/paths_seen.h"
#include "model/cct.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

#define K 0x9e3779b97f4a7c15ull

_Static_assert(CCT_MAX_NODES <= (1u << 24), "a node fits an entry's 24 bits");

uint64_t paths_seen_step(uint64_t h, uint64_t ip)
{
	h ^= ip;
	h *= K;
	return h ^ (h >> 32);
}

uint64_t paths_seen_start(struct paths_seen *p, uint64_t gen, bool truncated)
{
	if (!p->slots) {
		p->cap = PATHS_SEEN_FIRST;
		p->slots = st_table_alloc(p->cap, sizeof(*p->slots));
		/* A seed given before the first path (a test's) is kept. */
		if (!p->seed)
			p->seed = st_seed((uint64_t)(uintptr_t)p->slots);
	}
	return (p->seed ^ gen * K ^ truncated) * K;
}

/* Paths a table of cap slots holds before it grows or is emptied. */
static size_t full_at(size_t cap)
{
	return cap / 8u * 5u;
}

/* A multiplicative hash's best bits are its top ones; 0 marks an empty slot. */
static size_t slot_of(const struct paths_seen *p, uint64_t h)
{
	return (size_t)((h * K) >> (64 - __builtin_ctzll(p->cap)));
}

/* Every kept path moved into a table twice the size: each keeps its shorter ones. */
static void grow(struct paths_seen *p)
{
	struct paths_seen_entry *old = p->slots;
	size_t n = p->cap;

	p->cap *= 2;
	p->slots = st_table_alloc(p->cap, sizeof(*p->slots));
	for (size_t k = 0; k < n; k++) {
		size_t i;

		if (!old[k].hash)
			continue;
		for (i = slot_of(p, old[k].hash); p->slots[i].hash; i = (i + 1) & (p->cap - 1))
			;
		p->slots[i] = old[k];
	}
	st_table_free(old, n, sizeof(*old));
}

void paths_seen_bound(struct paths_seen *p, size_t bytes)
{
	size_t slots = PATHS_SEEN_FIRST;

	while (slots < PATHS_SEEN_SLOTS && 2 * slots * sizeof(*p->slots) <= bytes)
		slots *= 2;
	p->max_cap = slots;
}

void paths_seen_reserve(struct paths_seen *p, size_t n)
{
	if (!p->slots)
		return;
	while (p->used + n > full_at(p->cap) && p->cap < (p->max_cap ? p->max_cap : PATHS_SEEN_SLOTS))
		grow(p);
	if (p->used + n <= full_at(p->cap))
		return;
	memset(p->slots, 0, p->cap * sizeof(*p->slots));
	p->used = 0;
	p->emptied++;
}

static uint64_t key_of(uint64_t h)
{
	return h ? h : 1;
}

static const struct paths_seen_entry *find(struct paths_seen *p, uint64_t h)
{
	uint64_t key = key_of(h);

	for (size_t i = slot_of(p, key);; i = (i + 1) & (p->cap - 1)) {
		if (p->slots[i].hash == key)
			return &p->slots[i];
		if (!p->slots[i].hash)
			return NULL;
	}
}

size_t paths_seen_deepest(struct paths_seen *p, const uint64_t *hashes, size_t n, size_t hint,
			  struct paths_seen_entry *e)
{
	/* Depth lo is kept (0, the empty path, always), depth hi is not; the hint probed first. */
	size_t lo = 0, hi = n + 1, mid = hint <= n ? hint : 0;
	const struct paths_seen_entry *at = NULL, *f;

	if (!p->slots || !n)
		return 0;
	for (; hi - lo > 1; mid = 0) {
		if (!mid)
			mid = lo + (hi - lo) / 2;
		f = find(p, hashes[mid - 1]);
		if (f) {
			lo = mid;
			at = f;
		} else {
			hi = mid;
		}
	}
	if (at)
		*e = *at;
	return lo;
}

void paths_seen_put(struct paths_seen *p, uint64_t hash, struct paths_seen_entry e)
{
	uint64_t key = key_of(hash);
	size_t i;

	if (!p->slots || p->used >= full_at(p->cap))
		return;
	for (i = slot_of(p, key); p->slots[i].hash && p->slots[i].hash != key;
	     i = (i + 1) & (p->cap - 1))
		;
	p->used += !p->slots[i].hash;
	e.hash = key;
	p->slots[i] = e;
}

void paths_seen_free(struct paths_seen *p)
{
	st_table_free(p->slots, p->cap, sizeof(*p->slots));
	memset(p, 0, sizeof(*p));
}
