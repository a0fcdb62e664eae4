/*
 * dte.h - double-time error correction (SHIM, ISCA 2015, §4.1).
 *
 * Each observer sample is bracketed by two clock reads, C^s before its
 * counters and C^e after.  For consecutive samples n-1 and n,
 *
 *     CPC = (C^e_n - C^e_{n-1}) / (C^s_n - C^s_{n-1})
 *
 * is 1 when both measurement windows took equally long.  A rate sample
 * is kept only when |CPC - 1| <= tolerance: the check never looks at the
 * rate, yet removes the impossible ones a perturbed window produces.
 *
 * CPC cannot see two consecutive windows perturbed by the same amount
 * (an interrupt after the read in one, before it in the next): the rate
 * is then off by the whole perturbation.  On VMs that happens about once
 * in a million samples, so a sample is also rejected when its window or
 * the previous one is more than DTE_WINDOW_FACTOR times the shortest
 * window seen: an undisturbed window is a few dozen cycles.
 */
#ifndef SHIMTOP_DTE_H
#define SHIMTOP_DTE_H

#include <stdbool.h>
#include <stdint.h>

#define DTE_DEFAULT_TOLERANCE 0.01
#define DTE_WINDOW_FACTOR 8

enum dte_verdict {
	DTE_FIRST,		/* no previous sample: nothing to compare */
	DTE_ACCEPT,
	DTE_REJECT_CPC,		/* the two windows differ too much */
	DTE_REJECT_CLOCK,	/* a clock did not advance */
	DTE_REJECT_BACKWARDS,	/* a counter went backwards */
	DTE_REJECT_WINDOW,	/* a window far longer than undisturbed ones */
};

struct dte {
	double tolerance;
	uint64_t taken;		/* every sample seen */
	uint64_t first;		/* ... with nothing before it to compare */
	uint64_t accepted;
	uint64_t rejected_cpc;
	uint64_t rejected_clock;
	uint64_t rejected_backwards;
	uint64_t rejected_window;
	uint64_t min_window;		/* shortest window seen; 0: none yet */
	bool have_prev;
	uint64_t prev_start, prev_end;
};

void dte_init(struct dte *d, double tolerance);

/* Samples judged: all but the firsts (each is in exactly one count). */
uint64_t dte_judged(const struct dte *d);

/* part as a percentage of the judged samples (0 before any). */
double dte_share(const struct dte *d, uint64_t part);

/*
 * Judges the sample with clocks (start, end) against the previous one
 * and remembers it.  *cpc gets the ratio (0 for DTE_FIRST and clock
 * rejects).
 */
enum dte_verdict dte_check(struct dte *d, uint64_t start, uint64_t end,
			   double *cpc);

/*
 * Continues from a sample judged earlier (the last of the previous batch)
 * without counting it again.
 */
void dte_resume(struct dte *d, uint64_t start, uint64_t end);

/* Forgets the previous sample: the next one is a first. */
void dte_restart(struct dte *d);

/*
 * The change of a counter `width` bits wide from prev to cur, allowing
 * one wrap.  A change of more than half the range is taken as the
 * counter going backwards (a reset, or a torn read): false, and the
 * caller reclassifies the sample with dte_backwards.
 */
bool counter_delta(uint64_t prev, uint64_t cur, unsigned width,
		   uint64_t *delta);

/*
 * Recounts a sample dte_check judged `v` as rejected because a counter
 * went backwards; returns DTE_REJECT_BACKWARDS (or v for a first sample,
 * which has no rate to reject).
 */
enum dte_verdict dte_backwards(struct dte *d, enum dte_verdict v);

#endif
