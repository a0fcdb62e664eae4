/*
 * sample_push.h - a record into the session ring, a sample's stack copy
 * left out rather than the sample when the ring is nearly full.
 *
 * A front that starts behind a 10 kHz stream of 16 KiB copies (every
 * sample has one until the kernel's walker is taught) fills the ring in
 * a tenth of a second; whole samples were then dropped.  A copy is only
 * pushed while an eighth of the ring stays free after it: past that the
 * sample goes without it (ST_SAMPLE_COPY_SHED, its callers cut short),
 * in a few hundred bytes the small records after it still find room for.
 */
#ifndef SHIMTOP_SAMPLE_PUSH_H
#define SHIMTOP_SAMPLE_PUSH_H

#include "ring/ring.h"

#include <stdbool.h>
#include <stddef.h>

/* The share of the ring a copy leaves free (1/SAMPLE_PUSH_ROOM_SHARE). */
#define SAMPLE_PUSH_ROOM_SHARE	8u

/* rec (len bytes, any record) into r: false when dropped (counted by the ring). */
bool sample_push(struct ring *r, const void *rec, size_t len);

#endif
