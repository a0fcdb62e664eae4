/*
 * timeline.h - the history cut into columns of equal time: per column
 * the samples, their weight, cycles and instructions (IPC), for all
 * threads and for each of a few threads asked for.  The timeline view
 * draws these; any zoom, from the whole session to single samples.
 */
#ifndef SHIMTOP_TIMELINE_H
#define SHIMTOP_TIMELINE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct model;

#define TIMELINE_MAX_THREADS 16

struct timeline_column {
	uint64_t samples, weight;
	uint64_t cycles, instructions;	/* of the samples whose counters count */
	uint64_t thread_samples[TIMELINE_MAX_THREADS];
};

struct timeline {
	uint64_t from, step;		/* record time of column 0, ns per column */
	size_t ncols;
	struct timeline_column *col;
	pid_t tids[TIMELINE_MAX_THREADS];	/* the threads with a row, heaviest first */
	size_t ntids;
};

/*
 * Fills ncols columns of `step` ns from `from` with the history's samples,
 * and picks the up to max_threads threads with the most samples in them
 * (max_threads <= TIMELINE_MAX_THREADS).  Free with timeline_free.
 */
void timeline_build(const struct model *m, uint64_t from, uint64_t step,
		    size_t ncols, size_t max_threads, struct timeline *out);
void timeline_free(struct timeline *t);

#endif
