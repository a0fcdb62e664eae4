/*
 * gauges.h - how far the numbers can be trusted, as gauges: for perf,
 * the rate against the request, what the kernel lost and shimtop
 * dropped, throttling, multiplexing, call chains, unknown addresses; for
 * the observer, DTE's verdicts, CPC, the period achieved and the ring.
 * Each says in words what its value means and, when bad, what to do.
 * The gauges view and the JSON report show the same.
 */
#ifndef SHIMTOP_GAUGES_H
#define SHIMTOP_GAUGES_H

#include <stdbool.h>
#include <stddef.h>

struct session;

struct gauge {
	const char *source;		/* "perf", "observer" */
	const char *name;
	char value[64];
	double fill;			/* 0..1 for a bar, < 0: none */
	bool bad;
	char meaning[320];		/* whole: wrapped where it shows, never cut */
};

#define GAUGES_MAX 24

/* Fills out[] (GAUGES_MAX) from the session; returns how many. */
size_t gauges_collect(const struct session *s, struct gauge *out);

#endif
