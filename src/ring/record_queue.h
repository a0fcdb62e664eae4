/*
 * record_queue.h - records kept aside in order, to be taken later.
 *
 * While a snapshot's copy of the process writes, each page the session
 * writes that the copy shares is copied first: a fault, a flush of the
 * other CPU's TLB and, on huge pages, the 2 MiB mapping split for good.
 * The tree's counters and rows took 8,000 such faults in the seconds a
 * compile's snapshot was written, and the UI's refreshes 120 ms where
 * they took 30.  So the session drains its rings into a queue of its own
 * meanwhile (a mapping left out of the copy) and takes the records into
 * the model once the copy is done.
 */
#ifndef SHIMTOP_RECORD_QUEUE_H
#define SHIMTOP_RECORD_QUEUE_H

#include <stdbool.h>
#include <stddef.h>

struct record_queue {
	unsigned char *buf;	/* a reservation, touched as records come */
	size_t limit;		/* bytes it may hold */
	size_t used, next;	/* where the next record goes, and is taken */
};

/* An empty queue that holds up to limit bytes of records (with 8 each). */
void record_queue_init(struct record_queue *q, size_t limit);
/* rec (len bytes) kept: false when it does not fit (nothing kept). */
bool record_queue_add(struct record_queue *q, const void *rec, size_t len);
/* The oldest record not taken, 8-aligned (NULL: none); *len its size. */
const void *record_queue_peek(const struct record_queue *q, size_t *len);
/* The peeked record taken; the memory given back once all are. */
void record_queue_release(struct record_queue *q);
/* Whether records wait in it. */
bool record_queue_pending(const struct record_queue *q);
void record_queue_free(struct record_queue *q);

#endif
