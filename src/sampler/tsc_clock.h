/*
 * tsc_clock.h - TSC ticks per second against CLOCK_MONOTONIC, from
 * pairs of readings taken inside tight TSC brackets.
 */
#ifndef SHIMTOP_TSC_CLOCK_H
#define SHIMTOP_TSC_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

/* One reading of both clocks: mono taken between two TSC reads. */
struct tsc_pair {
	uint64_t tsc, mono;
	uint64_t bracket;	/* TSC ticks between the two TSC reads */
};

struct tsc_clock {
	struct tsc_pair origin;
	uint64_t hz;		/* 0 until a millisecond has passed */
};

typedef uint64_t (*tsc_clock_read)(void);

/*
 * The tightest of tries pairs: a pair whose bracket held a preemption (a
 * host's steal, a scheduler's wait) is worth nothing, and one such pair at
 * the origin skews every rate of the session by its length.
 */
/* bracket UINT64_MAX: no pair in 4x tries (the TSC ran back each time). */
struct tsc_pair tsc_pair_read(tsc_clock_read tsc, tsc_clock_read mono, unsigned tries);

void tsc_clock_start(struct tsc_clock *c, tsc_clock_read tsc, tsc_clock_read mono);
/* Refreshes hz from the origin to now; false (hz kept) when the pair was loose. */
bool tsc_clock_update(struct tsc_clock *c, tsc_clock_read tsc, tsc_clock_read mono);

#endif
