/*
 * histogram.h - the distributions the observer keeps: linear buckets
 * over a known range (IPC: 500 over 0-4, CPC, periods), or auto-ranged
 * log buckets for rates whose scale nobody knows in advance (software
 * signals); both with count, mean and standard deviation (Welford).
 */
#ifndef SHIMTOP_HISTOGRAM_H
#define SHIMTOP_HISTOGRAM_H

#include <stddef.h>
#include <stdint.h>

enum hist_kind {
	HIST_LINEAR,
	HIST_LOG,	/* 16 buckets per power of two, any positive value */
};

struct histogram {
	enum hist_kind kind;
	double lo, hi;		/* linear range */
	size_t nbuckets;
	uint64_t *buckets;	/* NULL until a value lands in one */
	uint64_t under, over;	/* outside the range (linear); <= 0 (log) */
	uint64_t n;
	double mean, m2;	/* Welford's running moments */
	double min, max;
};

#define HIST_LOG_SUB	16	/* buckets per power of two */
#define HIST_LOG_MIN_EXP (-64)
#define HIST_LOG_MAX_EXP 64

void hist_init_linear(struct histogram *h, double lo, double hi, size_t n);
void hist_init_log(struct histogram *h);
void hist_free(struct histogram *h);
void hist_add(struct histogram *h, double x);
double hist_stddev(const struct histogram *h);
/* The lower edge of bucket i (for drawing and export). */
double hist_bucket_low(const struct histogram *h, size_t i);
/* The value below which a fraction q of the samples lie (bucket edge). */
double hist_quantile(const struct histogram *h, double q);

/*
 * A log histogram's samples above 0 alone: a rate's busy intervals, apart
 * from its idle ones (0, which `under` counts).  min is the lowest filled
 * bucket's edge; quantiles are bucket edges as hist_quantile's.
 */
struct hist_busy {
	uint64_t n;
	double mean, sd, min;
};
void hist_busy(const struct histogram *h, struct hist_busy *out);
double hist_quantile_busy(const struct histogram *h, double q);

#endif
