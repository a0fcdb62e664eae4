/*
 * kmod_ring.h - reading the IBS module's rings (src/kmod/uapi/shimtop_ibs.h)
 * from their mapping: no system call per sample.
 *
 * The mapping is shared with the kernel and treated as untrusted bytes:
 * the info is checked once, each ring's head is checked against its tail
 * and size before any record is read, each record is copied out before
 * it is checked, and a ring whose head makes no sense is skipped to its
 * head and counted, never read past.
 */
#ifndef SHIMTOP_KMOD_RING_H
#define SHIMTOP_KMOD_RING_H

#include "kmod/uapi/shimtop_ibs.h"

#include <stddef.h>
#include <stdint.h>

/* 0, or -EINVAL with why in err: the module's info fits what we map. */
int kmod_info_check(const struct shimtop_ibs_info *in, char *err, size_t errlen);

/* What draining has seen, summed over calls. */
struct kmod_ring_stats {
	uint64_t records;	/* handed on */
	uint64_t bad;		/* records that did not check, skipped */
	uint64_t lost;		/* the module's drops, from the rings' counts */
	uint64_t resyncs;	/* rings whose head was out of reach */
	uint64_t seq_gaps;	/* records missing between two read */
};

/* Per ring, what the reader remembers between calls. */
struct kmod_ring_cursor {
	uint64_t dropped;	/* the ring's drop count last seen */
	uint32_t next_seq;
	int seen;
};

/*
 * Each checked record of ring `ring` becomes a shimtop record in buf (at
 * least sizeof(struct st_ibs) + 9 registers) handed to fn: an op sample
 * as st_ibs (family, model and period stamped), a count as an st_sample
 * standing for count samples.  Stops before the first record stamped
 * after `until` (a ring is in time order: one CPU's), left for a later
 * call; UINT64_MAX reads to the head.  Moves the ring's tail past what it
 * read.  Returns how many it handed on.
 */
typedef void (*kmod_record_fn)(const void *rec, void *arg);
size_t kmod_ring_drain(uint8_t *map, const struct shimtop_ibs_info *in, uint32_t ring,
		       struct kmod_ring_cursor *cur, uint8_t family, uint8_t model,
		       uint64_t period, uint64_t until, kmod_record_fn fn, void *arg,
		       struct kmod_ring_stats *st);

#endif
