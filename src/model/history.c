/* history.c - the model's sample history in time chunks (see history.h). */
#include "model/history.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* A chunk with room for at least `want` entries (and what its last page holds). */
static struct history_chunk *chunk_map(uint32_t want)
{
	size_t page = 4096, bytes = sizeof(struct history_chunk) +
				    (size_t)want * sizeof(struct history_entry);
	struct history_chunk *c;
	void *p;

	bytes = (bytes + page - 1) / page * page;
	if (bytes > HISTORY_CHUNK_BYTES)
		bytes = HISTORY_CHUNK_BYTES;
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	c = st_xcheck(p == MAP_FAILED ? NULL : p);
	c->bytes = bytes;
	c->cap = (uint32_t)((bytes - sizeof(*c)) / sizeof(struct history_entry));
	if (c->cap > HISTORY_CHUNK_ENTRIES)
		c->cap = HISTORY_CHUNK_ENTRIES;
	return c;
}

static void chunk_unmap(struct history_chunk *c)
{
	munmap(c, c->bytes);
}

void history_init(struct history *h, uint64_t keep_ns)
{
	memset(h, 0, sizeof(*h));
	h->keep_ns = keep_ns;
	h->max_bytes = HISTORY_MAX_BYTES;
}

void history_free(struct history *h)
{
	struct history_chunk *c = h->oldest, *next;

	for (size_t i = 0; i < h->nspans; i++)
		free(h->spans[h->span_head + i].threads);
	free(h->spans);

	for (; c; c = next) {
		next = c->next;
		chunk_unmap(c);
	}
	{
		size_t max = h->max_bytes, cap = h->rss_cap, rest = h->rest_most;
		size_t last = h->rest_last, rise = h->rest_rise;

		history_init(h, h->keep_ns);
		h->max_bytes = max;
		h->rss_cap = cap;
		h->rest_most = rest;
		h->rest_last = last;
		h->rest_rise = rise;
	}
}

/* Spans wholly before complete_from: nothing of them is kept. */
static void drop_spans(struct history *h)
{
	while (h->nspans && h->spans[h->span_head].start + HISTORY_SPAN_NS <= h->complete_from) {
		h->span_bytes -= h->spans[h->span_head].threads_cap *
				 sizeof(struct history_span_thread);
		free(h->spans[h->span_head].threads);
		h->span_head++;
		h->nspans--;
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
	h->chunk_bytes -= c->bytes;
	chunk_unmap(c);
	drop_spans(h);
}

/* The index of the first span starting at or after `start` (nspans if none). */
static size_t span_at_or_after(const struct history *h, uint64_t start)
{
	size_t lo = 0, hi = h->nspans;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (h->spans[h->span_head + mid].start < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The span holding `time`, made if new (samples come nearly in order). */
static struct history_span *span_of(struct history *h, uint64_t time)
{
	uint64_t start = time / HISTORY_SPAN_NS * HISTORY_SPAN_NS;
	struct history_span *v;
	size_t lo;

	if (h->nspans && h->spans[h->span_head + h->nspans - 1].start == start)
		return &h->spans[h->span_head + h->nspans - 1];
	lo = span_at_or_after(h, start);
	if (lo < h->nspans && h->spans[h->span_head + lo].start == start)
		return &h->spans[h->span_head + lo];
	/* Room at the end: the dropped head's first, then more. */
	if (h->span_head + h->nspans == h->spans_cap && h->span_head) {
		memmove(h->spans, h->spans + h->span_head, h->nspans * sizeof(*h->spans));
		h->span_head = 0;
	}
	h->span_bytes -= h->spans_cap * sizeof(*h->spans);
	ST_GROW(h->spans, h->spans_cap, h->span_head + h->nspans + 1);
	h->span_bytes += h->spans_cap * sizeof(*h->spans);
	v = &h->spans[h->span_head];
	memmove(&v[lo + 1], &v[lo], (h->nspans - lo) * sizeof(*v));
	memset(&v[lo], 0, sizeof(*v));
	v[lo].start = start;
	h->nspans++;
	return &v[lo];
}

static void span_add(struct history *h, uint64_t time, const struct history_entry *e)
{
	struct history_span *s = span_of(h, time);
	uint32_t lo = 0, hi = s->nthreads;

	s->samples++;
	s->weight += e->weight;
	if (e->flags & HISTORY_COUNTERS) {
		s->cycles += e->cycles;
		s->instructions += e->instructions;
	}
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (s->threads[mid].tid < e->tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == s->nthreads || s->threads[lo].tid != e->tid) {
		if (s->nthreads == s->threads_cap) {
			h->span_bytes += (s->threads_cap ? s->threads_cap : 8) *
					 sizeof(*s->threads);
			s->threads_cap = s->threads_cap ? s->threads_cap * 2 : 8;
			s->threads = st_xrealloc(s->threads, s->threads_cap * sizeof(*s->threads));
		}
		memmove(&s->threads[lo + 1], &s->threads[lo],
			(s->nthreads - lo) * sizeof(*s->threads));
		s->threads[lo] = (struct history_span_thread){ e->tid, 0 };
		s->nthreads++;
	}
	s->threads[lo].samples++;
}

const struct history_span *history_spans(const struct history *h, uint64_t from,
					 size_t *n)
{
	size_t lo = span_at_or_after(h, from);

	*n = h->nspans - lo;
	return h->spans ? &h->spans[h->span_head + lo] : NULL;
}

/*
 * Before a chunk is mapped, and once a second (history_fit): the room
 * rss_cap leaves beside the most everything else the process held at any
 * fit (symbols, trees, the rest of the model) becomes the bound, never
 * under two chunks.  The most, not the latest: the rest swings by
 * megabytes (a burst after the sampler was starved, a new program's
 * tables) and the history, sized to a low moment, put RssAnon over the
 * bound at the next high one.  Its largest rise from one fit to the next
 * lately is kept free too: in a session's first minute the rest grows
 * past every most it had (the first programs' tables), and the history
 * sized a second before put RssAnon 0.6 MB over --memory 40.  A build's
 * compiles come minutes apart: a rise forgotten in a minute left the
 * next compile's rise no room (40.5 MB over --memory 40 in the hour's
 * twelfth minute), so half of it is kept three minutes on.  Read once
 * a chunk, 16,384 samples: a replay at millions a second never runs far
 * past it.
 */
static void fit_memory(struct history *h, bool keep_newest)
{
	size_t rss, held = history_bytes(h), other, room, keep;
	const size_t chunk = HISTORY_CHUNK_BYTES;

	/* Without --memory, /proc/self/statm is not read (once a second, every session). */
	if (!h->rss_cap || !(rss = st_own_resident_bytes()))
		return;
	other = rss > held ? rss - held : 0;
	if (h->rest_last && other > h->rest_last + h->rest_rise)
		h->rest_rise = other - h->rest_last;
	else
		h->rest_rise -= h->rest_rise / 256;	/* half left after three minutes of quiet */
	h->rest_last = other;
	if (other > h->rest_most)
		h->rest_most = other;
	keep = h->rest_most + chunk + h->rest_rise;
	room = h->rss_cap > keep ? h->rss_cap - keep : 0;
	if (room < 2 * chunk)
		room = 2 * chunk;
	h->rss_capped = room < HISTORY_MAX_BYTES;
	h->max_bytes = h->rss_capped ? room : HISTORY_MAX_BYTES;
	while (h->oldest && (!keep_newest || h->oldest != h->newest) &&
	       history_bytes(h) + chunk > h->max_bytes) {
		h->dropped_for_bytes += h->oldest->n;
		drop_oldest(h);
	}
}

void history_fit(struct history *h)
{
	fit_memory(h, true);	/* it holds the latest samples */
}

/*
 * The room a new chunk gets: four times the last one's after a chunk that
 * filled (up to the most); else what the last one held when dt's reach
 * ended it, a quarter more.
 */
static uint32_t chunk_room(const struct history *h)
{
	const struct history_chunk *last = h->newest;

	if (!last)
		return 1024;
	if (last->n == last->cap)
		return last->cap < HISTORY_CHUNK_ENTRIES / 4 ? 4 * last->cap
							     : HISTORY_CHUNK_ENTRIES;
	return last->n + last->n / 4 + 64;
}

static struct history_chunk *new_chunk(struct history *h, uint64_t time)
{
	struct history_chunk *c;

	fit_memory(h, false);
	c = chunk_map(chunk_room(h));

	c->next = NULL;
	c->base = c->min_time = c->max_time = time;
	c->n = 0;
	if (h->newest)
		h->newest->next = c;
	else
		h->oldest = c;
	h->newest = c;
	h->chunks++;
	h->chunk_bytes += c->bytes;
	return c;
}

void history_add(struct history *h, uint64_t time, const struct history_entry *e)
{
	struct history_chunk *c = h->newest;
	int64_t dt;

	/* Records come nearly in time order; one out of an int32's reach starts a chunk. */
	if (!c || c->n == c->cap ||
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
	span_add(h, time, e);
	/* The newest chunk stays, however old: it holds the latest samples. */
	while (h->keep_ns && h->oldest != h->newest &&
	       h->oldest->max_time + h->keep_ns < time)
		drop_oldest(h);
	while (h->oldest != h->newest && history_bytes(h) > h->max_bytes) {
		h->dropped_for_bytes += h->oldest->n;
		drop_oldest(h);
	}
}

size_t history_bytes(const struct history *h)
{
	return h->chunk_bytes + h->span_bytes;
}

static uint64_t time_of(const struct history_chunk *c, uint32_t i)
{
	return c->base + (uint64_t)(int64_t)c->e[i].dt;
}

void history_each(const struct history *h, uint64_t from, uint64_t to,
		  history_fn fn, void *arg)
{
	for (const struct history_chunk *c = h->oldest; c; c = c->next) {
		if (c->max_time < from || c->min_time >= to)
			continue;
		for (uint32_t i = 0; i < c->n; i++) {
			uint64_t t = time_of(c, i);

			if (t >= from && t < to)
				fn(t, &c->e[i], arg);
		}
	}
}

void history_edit(struct history *h, void (*fn)(struct history_entry *e, void *arg), void *arg)
{
	for (struct history_chunk *c = h->oldest; c; c = c->next)
		for (uint32_t i = 0; i < c->n; i++)
			fn(&c->e[i], arg);
}

static bool overlaps(const struct history_chunk *c, uint64_t from, uint64_t to)
{
	return c->n && c->max_time >= from && c->min_time < to;
}

bool history_holds_from(const struct history *h, uint64_t from)
{
	return h->entries && h->complete_from <= from;
}

struct node_events {
	uint64_t *values;
	uint32_t nodes;
	size_t nevents;
};

static void count_node_event(uint64_t time, const struct history_entry *e, void *arg)
{
	struct node_events *c = arg;
	uint64_t *v;

	(void)time;
	if (e->node >= c->nodes || !(e->flags & HISTORY_EVENT) || e->event >= c->nevents)
		return;
	v = c->values + ((size_t)e->node * c->nevents + e->event) * 2;
	v[0]++;
	v[1] += e->weight ? e->weight : 1;
}

uint64_t *history_node_events(const struct history *h, uint64_t from, uint64_t to,
			      uint32_t nodes, size_t nevents)
{
	struct node_events c = { NULL, nodes, nevents };

	c.values = st_xcalloc((size_t)nodes * nevents * 2 + 1, sizeof(*c.values));
	history_each(h, from, to, count_node_event, &c);
	return c.values;
}

uint64_t history_first_time(const struct history *h, uint64_t from, uint64_t to)
{
	uint64_t first = 0;

	for (const struct history_chunk *c = h->oldest; c; c = c->next) {
		if (!overlaps(c, from, to) || (first && c->min_time >= first))
			continue;
		if (c->min_time >= from && c->max_time < to) {
			first = c->min_time;
			continue;
		}
		for (uint32_t i = 0; i < c->n; i++) {
			uint64_t t = time_of(c, i);

			if (t >= from && t < to && (!first || t < first))
				first = t;
		}
	}
	return first;
}

size_t history_chunks_in(const struct history *h, uint64_t from, uint64_t to)
{
	size_t n = 0;

	for (const struct history_chunk *c = h->oldest; c; c = c->next)
		n += overlaps(c, from, to);
	return n;
}

void history_split(const struct history *h, uint64_t from, uint64_t to,
		   unsigned parts, uint64_t *bounds)
{
	size_t n = history_chunks_in(h, from, to), k = 0;
	unsigned p = 1;

	bounds[0] = from;
	for (const struct history_chunk *c = h->oldest; c && p < parts; c = c->next) {
		if (!overlaps(c, from, to))
			continue;
		/* Window p starts at the chunk p/parts of the way through. */
		while (k && p < parts && k >= (size_t)p * n / parts) {
			uint64_t at = c->min_time;

			bounds[p] = at < bounds[p - 1] ? bounds[p - 1] : at > to ? to : at;
			p++;
		}
		k++;
	}
	for (; p <= parts; p++)
		bounds[p] = to;
}

void history_each_new(const struct history *h, struct history_cursor *cur,
		      history_fn fn, void *arg)
{
	const struct history_chunk *c = cur->chunk ? cur->chunk : h->oldest;
	uint32_t i = cur->chunk ? cur->n : 0;

	for (; c; c = c->next, i = 0) {
		for (; i < c->n; i++)
			fn(time_of(c, i), &c->e[i], arg);
		cur->chunk = c;
		cur->n = c->n;
	}
}
