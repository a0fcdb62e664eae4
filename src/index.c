/* index.c - the open-addressing index (index.h). */
#include "index.h"
#include "mapped.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

#define INDEX_FIRST_BITS	8u
/*
 * From here on, whole huge pages: a table's slots are touched all over,
 * and below it each doubling's fresh 4 KiB pages were faulted one by one
 * (a tenth of the faults of a 5 s attach to a compile, its tree's index).
 */
#define INDEX_MAPPED_BYTES	((size_t)256 << 10)

void st_index_init(struct st_index *x)
{
	memset(x, 0, sizeof(*x));
}

static void free_slots(struct st_index_slot *slots, size_t cap, bool mapped)
{
	if (mapped)
		st_unmap(slots, cap * sizeof(*slots));
	else
		free(slots);
}

void st_index_free(struct st_index *x)
{
	free_slots(x->slots, x->cap, x->mapped);
	memset(x, 0, sizeof(*x));
}

static size_t home_of(const struct st_index *x, uint32_t tag)
{
	return (size_t)(tag >> (32 - x->bits));
}

static void place(struct st_index *x, struct st_index_slot s)
{
	size_t i = home_of(x, s.tag);

	while (x->slots[i].value)
		i = (i + 1) & (x->cap - 1);
	x->slots[i] = s;
}

static void grow(struct st_index *x)
{
	struct st_index_slot *old = x->slots;
	size_t old_cap = x->cap;
	bool old_mapped = x->mapped;

	x->bits = old_cap ? x->bits + 1 : INDEX_FIRST_BITS;
	x->cap = (size_t)1 << x->bits;
	x->slots = NULL;
	if (x->cap * sizeof(*x->slots) >= INDEX_MAPPED_BYTES)
		x->slots = st_map_zeroed(x->cap * sizeof(*x->slots), false);
	x->mapped = x->slots != NULL;
	if (!x->mapped)
		x->slots = st_xcalloc(x->cap, sizeof(*x->slots));
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].value)
			place(x, old[i]);
	free_slots(old, old_cap, old_mapped);
}

void st_index_add(struct st_index *x, uint64_t hash, uint32_t value)
{
	/* At most half full, and no more slots than a tag can tell apart. */
	if ((x->n + 1) * 2 > x->cap && x->bits < 32)
		grow(x);
	place(x, (struct st_index_slot){ (uint32_t)(hash >> 32), value });
	x->n++;
}

size_t st_index_longest_probe(const struct st_index *x)
{
	size_t longest = 0;

	for (size_t i = 0; i < x->cap; i++) {
		size_t d;

		if (!x->slots[i].value)
			continue;
		d = (i - home_of(x, x->slots[i].tag)) & (x->cap - 1);
		longest = d > longest ? d : longest;
	}
	return longest;
}
