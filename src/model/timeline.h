/*
 * timeline.h - the history cut into columns of equal time: per column
 * the samples, their weight, cycles and instructions (IPC), for all
 * threads and for each of a few threads asked for.  The timeline view
 * draws these; any zoom, from the whole session to single samples.
 */
#ifndef SHIMTOP_TIMELINE_H
#define SHIMTOP_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct model;

#define TIMELINE_MAX_THREADS 16

/* Why a thread was off its CPU (--off-cpu), from its state when it left. */
enum timeline_off {
	TIMELINE_SLEEP,		/* S: blocked on a timer, a lock, a socket */
	TIMELINE_DISK,		/* D: uninterruptible, mostly I/O */
	TIMELINE_RUNQ,		/* R: preempted, waiting for a CPU */
	TIMELINE_OTHER,
	TIMELINE_OFFS
};

/* A wait ending this long after the window may have begun in it: walked for. */
#define TIMELINE_WAIT_SLACK_NS 2000000000ull

struct timeline_column {
	uint64_t samples, weight;	/* weight: with waits, the clock event's alone */
	uint64_t cycles, instructions;	/* of the samples whose counters count */
	uint64_t thread_samples[TIMELINE_MAX_THREADS];	/* on-CPU samples */
	uint64_t thread_ran[TIMELINE_MAX_THREADS];	/* their weight, a clock event's (ns) */
	/* --off-cpu: ns of the column each thread spent off its CPU, by why. */
	uint64_t thread_off[TIMELINE_MAX_THREADS][TIMELINE_OFFS];
};

struct timeline {
	uint64_t from, step;		/* record time of column 0, ns per column */
	size_t ncols;
	struct timeline_column *col;
	pid_t tids[TIMELINE_MAX_THREADS];	/* the threads with a row, heaviest first */
	size_t ntids;
	bool waits;			/* the session samples waits: thread_off holds them */
};

/*
 * Fills ncols columns of `step` ns from `from` with the history's samples,
 * and picks the up to max_threads threads with the most samples in them
 * (max_threads <= TIMELINE_MAX_THREADS).  With waits (--off-cpu), each
 * spreads over the columns it covers, in its thread's thread_off, and
 * is no CPU time; such a session's columns are walked sample by sample
 * (the span summaries pool waits with the rest).  Free with timeline_free.
 */
void timeline_build(const struct model *m, uint64_t from, uint64_t step,
		    size_t ncols, size_t max_threads, struct timeline *out);
void timeline_free(struct timeline *t);

#endif
