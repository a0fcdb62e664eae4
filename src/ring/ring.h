/*
 * ring.h - a single-producer single-consumer ring of variable-size records.
 *
 * The producer (a sampling source) never waits: when a record does not fit
 * it is dropped and counted.  The consumer (the model) drains in order.
 * Head and tail live on separate cache lines so neither side bounces the
 * other's line on every record.
 */
#ifndef SHIMTOP_RING_H
#define SHIMTOP_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ring;

/* capacity is rounded up to a power of two, at least 4 KiB. */
struct ring *ring_create(size_t capacity);
void ring_destroy(struct ring *r);

/*
 * Producer side: whether a record of len would fit now (nothing counted;
 * for a producer that may wait, as a replay).
 */
bool ring_fits(struct ring *r, size_t len);
/* Producer side.  Returns false (and counts a drop) when full. */
bool ring_push(struct ring *r, const void *rec, size_t len);
/* Two-step form: reserve room, fill it, commit.  NULL (counted) if full. */
void *ring_reserve(struct ring *r, size_t len);
void ring_commit(struct ring *r);

/*
 * A consumer that sleeps between passes: fd (an eventfd) is written
 * once when mark bytes wait unread after ring_sleep, so the sleep can be
 * long and still end before the ring fills.  ring_sleep: true if the
 * consumer may sleep now (fewer than mark bytes wait); ring_woken after.
 */
void ring_set_bell(struct ring *r, int fd, size_t mark);
bool ring_sleep(struct ring *r);
void ring_woken(struct ring *r);

/* Consumer side.  NULL when empty; otherwise valid until ring_release. */
const void *ring_peek(struct ring *r, size_t *len);
void ring_release(struct ring *r);
/*
 * Consumer side, to look ahead (a model prefetching what later records
 * will touch): each record, from the next one on, not given before while
 * fewer than distance given are unreleased; NULL when none.
 *
 *	while ((later = ring_peek_ahead(r, 8)))
 *		prefetch(later);
 *	rec = ring_peek(r, &len);
 */
const void *ring_peek_ahead(struct ring *r, size_t distance);

uint64_t ring_dropped(const struct ring *r);
uint64_t ring_delivered(const struct ring *r);
size_t ring_capacity(const struct ring *r);
/* The largest record ring_push can ever accept. */
size_t ring_max_record(const struct ring *r);

#endif
