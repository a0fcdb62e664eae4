/* index.c - the open-addressing index (index.h). */
#include "index.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

#define INDEX_FIRST_CAP	256u

void st_index_init(struct st_index *x)
{
	memset(x, 0, sizeof(*x));
}

void st_index_free(struct st_index *x)
{
	free(x->slots);
	memset(x, 0, sizeof(*x));
}

uint32_t st_index_find(const struct st_index *x, uint64_t a, uint64_t b)
{
	if (!x->cap)
		return 0;
	for (size_t i = st_index_home(a, b, x->shift);; i = (i + 1) & (x->cap - 1)) {
		const struct st_index_slot *s = &x->slots[i];

		if (!s->value || (s->a == a && s->b == b))
			return s->value;
	}
}

static void place(struct st_index *x, const struct st_index_slot *from)
{
	size_t i = st_index_home(from->a, from->b, x->shift);

	while (x->slots[i].value)
		i = (i + 1) & (x->cap - 1);
	x->slots[i] = *from;
}

static void grow(struct st_index *x)
{
	struct st_index_slot *old = x->slots;
	size_t old_cap = x->cap;

	x->cap = old_cap ? old_cap * 2 : INDEX_FIRST_CAP;
	x->shift = 64u - (unsigned)__builtin_ctzll(x->cap);
	x->slots = st_xcalloc(x->cap, sizeof(*x->slots));
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].value)
			place(x, &old[i]);
	free(old);
}

uint32_t st_index_put(struct st_index *x, uint64_t a, uint64_t b, uint32_t value)
{
	size_t i;

	if ((x->n + 1) * 2 > x->cap)
		grow(x);
	for (i = st_index_home(a, b, x->shift);; i = (i + 1) & (x->cap - 1)) {
		struct st_index_slot *s = &x->slots[i];

		if (!s->value)
			break;
		if (s->a == a && s->b == b)
			return s->value;
	}
	x->slots[i] = (struct st_index_slot){ a, b, value };
	x->n++;
	return value;
}

size_t st_index_longest_probe(const struct st_index *x)
{
	size_t longest = 0;

	for (size_t i = 0; i < x->cap; i++) {
		const struct st_index_slot *s = &x->slots[i];
		size_t d;

		if (!s->value)
			continue;
		d = (i - st_index_home(s->a, s->b, x->shift)) & (x->cap - 1);
		longest = d > longest ? d : longest;
	}
	return longest;
}
