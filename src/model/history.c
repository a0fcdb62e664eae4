/* history.c - the model's sample history in time chunks (see history.h). */
#include "model/history.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

void history_init(struct history *h, uint64_t keep_ns)
{
	memset(h, 0, sizeof(*h));
	h->keep_ns = keep_ns;
	h->max_bytes = HISTORY_MAX_BYTES;
}

void history_free(struct history *h)
{
	struct history_chunk *c = h->oldest, *next;

	for (; c; c = next) {
		next = c->next;
		free(c);
	}
	{
		size_t max = h->max_bytes;

		history_init(h, h->keep_ns);
		h->max_bytes = max;
	}
}

static void drop_oldest(struct history *h)
{
	struct history_chunk *c = h->oldest;

	h->oldest = c->next;
	if (!h->oldest)
		h->newest = NULL;
	if (c->max_time + 1 > h->complete_from)
		h->complete_from = c->max_time + 1;
	h->dropped += c->n;
	h->entries -= c->n;
	h->chunks--;
	free(c);
}

static struct history_chunk *new_chunk(struct history *h, uint64_t time)
{
	struct history_chunk *c = st_xmalloc(sizeof(*c));

	c->next = NULL;
	c->base = c->min_time = c->max_time = time;
	c->n = 0;
	if (h->newest)
		h->newest->next = c;
	else
		h->oldest = c;
	h->newest = c;
	h->chunks++;
	return c;
}

void history_add(struct history *h, uint64_t time, const struct history_entry *e)
{
	struct history_chunk *c = h->newest;
	int64_t dt;

	/* Records come nearly in time order; one out of an int32's reach starts a chunk. */
	if (!c || c->n == HISTORY_CHUNK_ENTRIES ||
	    time > c->base + INT32_MAX || time + INT32_MAX < c->base)
		c = new_chunk(h, time);
	dt = (int64_t)(time - c->base);
	c->e[c->n] = *e;
	c->e[c->n++].dt = (int32_t)dt;
	if (time < c->min_time)
		c->min_time = time;
	if (time > c->max_time)
		c->max_time = time;
	h->entries++;
	/* The newest chunk stays, however old: it holds the latest samples. */
	while (h->keep_ns && h->oldest != h->newest &&
	       h->oldest->max_time + h->keep_ns < time)
		drop_oldest(h);
	while (h->oldest != h->newest && h->chunks * sizeof(struct history_chunk) >
	       h->max_bytes)
		drop_oldest(h);
}

size_t history_bytes(const struct history *h)
{
	return h->chunks * sizeof(struct history_chunk);
}

void history_each(const struct history *h, uint64_t from, uint64_t to,
		  history_fn fn, void *arg)
{
	for (const struct history_chunk *c = h->oldest; c; c = c->next) {
		if (c->max_time < from || c->min_time >= to)
			continue;
		for (uint32_t i = 0; i < c->n; i++) {
			uint64_t t = c->base + (uint64_t)(int64_t)c->e[i].dt;

			if (t >= from && t < to)
				fn(t, &c->e[i], arg);
		}
	}
}
