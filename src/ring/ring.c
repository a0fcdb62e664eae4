/*
 * ring.c - lock-free SPSC ring of variable-size records.
 *
 * Positions are free-running 64-bit byte counts; the slot for position p
 * is p & mask.  Each record is preceded by an 8-byte slot header holding
 * its length.  A record never wraps: when it would, the producer writes a
 * pad header and starts again at offset 0, so the consumer always sees
 * one contiguous record.
 *
 * Each side keeps the last position it read of the other's and reads the
 * shared one again only when its copy says full (producer) or empty
 * (consumer): a line that moves between CPUs once a record would cost
 * more than the record (a replay moved 5.5 million through it at a third
 * of its time).
 */
#include "ring/ring.h"
#include "mapped.h"
#include "util.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CACHE_LINE	64
#define SLOT_HDR	8u
#define PAD_MARK	UINT32_MAX
#define RING_MAPPED	((size_t)4 << 20)	/* from here a mapping of its own */

struct ring {
	/* Producer's line: written by the producer only. */
	_Alignas(CACHE_LINE) _Atomic uint64_t head;
	uint64_t reserved;	/* size of the reserved record, 0 if none */
	uint64_t tail_seen;	/* the consumer's tail, as last read */
	_Atomic uint64_t dropped;
	/* Consumer's line. */
	_Alignas(CACHE_LINE) _Atomic uint64_t tail;
	uint64_t peeked;	/* bytes the peeked record occupies */
	uint64_t head_seen;	/* the producer's head, as last read */
	_Atomic uint64_t delivered;
	uint64_t ahead;		/* ring_peek_ahead's next position */
	size_t ahead_given;	/* records it gave that are not released */
	/*
	 * The doorbell: the consumer, about to sleep, sets asleep; the
	 * producer that then leaves mark bytes unread takes it back and
	 * writes bell (an eventfd).  Its own line: the producer reads it
	 * at each commit, the consumer writes it once a sleep.
	 */
	_Alignas(CACHE_LINE) _Atomic bool asleep;
	int bell;		/* -1: none */
	size_t mark;
	/* Read-only after creation. */
	_Alignas(CACHE_LINE) size_t mask;
	unsigned char *buf;
	bool mapped;		/* st_map_zeroed's, else the heap's */
};

static size_t round_pow2(size_t n)
{
	size_t p = 4096;

	while (p < n)
		p <<= 1;
	return p;
}

struct ring *ring_create(size_t capacity)
{
	struct ring *r = aligned_alloc(CACHE_LINE, sizeof(*r));

	if (!r)
		return NULL;
	memset(r, 0, sizeof(*r));
	capacity = round_pow2(capacity);
	/*
	 * On huge pages when it spans several: 8 faults, not 4,096.  Its
	 * own mapping, out of a snapshot writer's copy of the process.
	 */
	r->mapped = capacity >= RING_MAPPED;
	r->buf = r->mapped ? st_map_zeroed(capacity, false) : aligned_alloc(CACHE_LINE, capacity);
	if (!r->buf) {
		free(r);
		return NULL;
	}
	if (r->mapped)
		st_map_not_inherited(r->buf, capacity);
	r->mask = capacity - 1;
	r->bell = -1;
	return r;
}

void ring_set_bell(struct ring *r, int fd, size_t mark)
{
	r->bell = fd;
	r->mark = mark;
}

bool ring_sleep(struct ring *r)
{
	uint64_t head, tail;

	if (r->bell < 0)
		return true;
	atomic_store_explicit(&r->asleep, true, memory_order_seq_cst);
	/* Read after asleep is set: a commit before it is seen here, one after it rings. */
	head = atomic_load_explicit(&r->head, memory_order_seq_cst);
	tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
	if (head - tail < r->mark)
		return true;
	atomic_store_explicit(&r->asleep, false, memory_order_relaxed);
	return false;
}

void ring_woken(struct ring *r)
{
	atomic_store_explicit(&r->asleep, false, memory_order_relaxed);
}

/* After a commit: the sleeping consumer woken once mark bytes wait. */
static void ring_bell(struct ring *r, uint64_t head)
{
	const uint64_t one = 1;

	if (!atomic_load_explicit(&r->asleep, memory_order_seq_cst) ||
	    head - atomic_load_explicit(&r->tail, memory_order_relaxed) < r->mark ||
	    !atomic_exchange_explicit(&r->asleep, false, memory_order_relaxed))
		return;
	if (write(r->bell, &one, sizeof(one)) < 0) {
		/* A full eventfd has already woken it. */
	}
}

void ring_destroy(struct ring *r)
{
	if (!r)
		return;
	if (r->mapped)
		st_unmap(r->buf, r->mask + 1);
	else
		free(r->buf);
	free(r);
}

size_t ring_capacity(const struct ring *r)
{
	return r->mask + 1;
}

size_t ring_max_record(const struct ring *r)
{
	/* Half the ring, so a record always fits after one pad. */
	return (r->mask + 1) / 2 - SLOT_HDR;
}

static void put_len(struct ring *r, uint64_t pos, uint32_t len)
{
	memcpy(r->buf + (pos & r->mask), &len, sizeof(len));
}

/* Whether a record of len fits now; *pad: the bytes to skip to the ring's start. */
static bool room_for(struct ring *r, size_t len, uint64_t *head, size_t *pad)
{
	size_t cap = r->mask + 1;
	size_t need = SLOT_HDR + ((len + 7u) & ~(size_t)7u);
	size_t off;

	if (!len || len > ring_max_record(r))
		return false;
	*head = atomic_load_explicit(&r->head, memory_order_relaxed);
	off = *head & r->mask;
	*pad = off + need > cap ? cap - off : 0;
	if (*head + *pad + need - r->tail_seen <= cap)
		return true;
	r->tail_seen = atomic_load_explicit(&r->tail, memory_order_acquire);
	return *head + *pad + need - r->tail_seen <= cap;
}

bool ring_fits(struct ring *r, size_t len)
{
	uint64_t head;
	size_t pad;

	return room_for(r, len, &head, &pad);
}

void *ring_reserve(struct ring *r, size_t len)
{
	size_t need = SLOT_HDR + ((len + 7u) & ~(size_t)7u);
	uint64_t head;
	size_t pad;

	if (!room_for(r, len, &head, &pad))
		goto drop;
	if (pad) {
		put_len(r, head, PAD_MARK);
		head += pad;
		/* Publish the pad now; the record follows with commit. */
		atomic_store_explicit(&r->head, head, memory_order_release);
	}
	put_len(r, head, (uint32_t)len);
	r->reserved = need;
	return r->buf + ((head + SLOT_HDR) & r->mask);
drop:
	atomic_fetch_add_explicit(&r->dropped, 1, memory_order_relaxed);
	return NULL;
}

void ring_commit(struct ring *r)
{
	uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed) + r->reserved;

	r->reserved = 0;
	if (r->bell < 0) {
		atomic_store_explicit(&r->head, head, memory_order_release);
		return;
	}
	/* seq_cst: before the read of asleep, as ring_sleep's store is before its read of head. */
	atomic_store_explicit(&r->head, head, memory_order_seq_cst);
	ring_bell(r, head);
}

bool ring_push(struct ring *r, const void *rec, size_t len)
{
	void *dst = ring_reserve(r, len);

	if (!dst)
		return false;
	memcpy(dst, rec, len);
	ring_commit(r);
	return true;
}

/*
 * Consumer side: the record at position *at or after it (pads skipped,
 * *at moved to it), its length in *n; false when there is none yet.
 */
static bool next_record(struct ring *r, uint64_t *at, uint32_t *n)
{
	for (;;) {
		if (*at == r->head_seen)
			r->head_seen = atomic_load_explicit(&r->head, memory_order_acquire);
		if (*at == r->head_seen)
			return false;
		memcpy(n, r->buf + (*at & r->mask), sizeof(*n));
		if (*n != PAD_MARK)
			return true;
		*at += (r->mask + 1) - (*at & r->mask);
	}
}

const void *ring_peek(struct ring *r, size_t *len)
{
	uint64_t was = atomic_load_explicit(&r->tail, memory_order_relaxed), tail = was;
	uint32_t n;
	bool found = next_record(r, &tail, &n);

	if (tail != was)	/* a pad skipped: its room is the producer's again */
		atomic_store_explicit(&r->tail, tail, memory_order_release);
	if (!found)
		return NULL;
	r->peeked = SLOT_HDR + (((size_t)n + 7u) & ~(size_t)7u);
	*len = n;
	return r->buf + ((tail + SLOT_HDR) & r->mask);
}

const void *ring_peek_ahead(struct ring *r, size_t distance)
{
	uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed), at;
	uint32_t n;

	/* Released past it (or a pad skipped): start again at the next record. */
	if (r->ahead < tail) {
		r->ahead = tail;
		r->ahead_given = 0;
	}
	at = r->ahead;
	if (r->ahead_given >= distance || !next_record(r, &at, &n))
		return NULL;
	r->ahead = at + SLOT_HDR + (((size_t)n + 7u) & ~(size_t)7u);
	r->ahead_given++;
	return r->buf + ((at + SLOT_HDR) & r->mask);
}

void ring_release(struct ring *r)
{
	uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);

	atomic_store_explicit(&r->tail, tail + r->peeked, memory_order_release);
	if (r->ahead_given)
		r->ahead_given--;
	/* One writer: no locked add. */
	atomic_store_explicit(&r->delivered,
			      atomic_load_explicit(&r->delivered, memory_order_relaxed) + 1,
			      memory_order_relaxed);
	r->peeked = 0;
}

uint64_t ring_dropped(const struct ring *r)
{
	return atomic_load_explicit(&r->dropped, memory_order_relaxed);
}

uint64_t ring_delivered(const struct ring *r)
{
	return atomic_load_explicit(&r->delivered, memory_order_relaxed);
}
