/* histogram.c - linear and log histograms with running moments. */
#include "model/histogram.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void hist_init_linear(struct histogram *h, double lo, double hi, size_t n)
{
	memset(h, 0, sizeof(*h));
	h->kind = HIST_LINEAR;
	h->lo = lo;
	h->hi = hi;
	h->nbuckets = n;
	h->buckets = st_xcalloc(n, sizeof(*h->buckets));
}

void hist_init_log(struct histogram *h)
{
	memset(h, 0, sizeof(*h));
	h->kind = HIST_LOG;
	h->nbuckets = (size_t)(HIST_LOG_MAX_EXP - HIST_LOG_MIN_EXP) * HIST_LOG_SUB;
	/* 16 KiB each: allocated by the first hist_add (many stay empty). */
}

void hist_free(struct histogram *h)
{
	free(h->buckets);
	memset(h, 0, sizeof(*h));
}

static long bucket_of(const struct histogram *h, double x)
{
	if (h->kind == HIST_LINEAR) {
		if (x < h->lo)
			return -1;
		if (x >= h->hi)
			return (long)h->nbuckets;
		return (long)((x - h->lo) / (h->hi - h->lo) * (double)h->nbuckets);
	}
	if (!(x > 0))
		return -1;
	{
		double b = (log2(x) - HIST_LOG_MIN_EXP) * HIST_LOG_SUB;

		if (b < 0)
			return -1;
		return b >= (double)h->nbuckets ? (long)h->nbuckets : (long)b;
	}
}

void hist_add(struct histogram *h, double x)
{
	long b = bucket_of(h, x);
	double delta;

	if (b < 0) {
		h->under++;
	} else if ((size_t)b >= h->nbuckets) {
		h->over++;
	} else {
		if (!h->buckets)
			h->buckets = st_xcalloc(h->nbuckets, sizeof(*h->buckets));
		h->buckets[b]++;
	}
	if (h->n == 0 || x < h->min)
		h->min = x;
	if (h->n == 0 || x > h->max)
		h->max = x;
	h->n++;
	delta = x - h->mean;
	h->mean += delta / (double)h->n;
	h->m2 += delta * (x - h->mean);
}

double hist_stddev(const struct histogram *h)
{
	return h->n > 1 ? sqrt(h->m2 / (double)(h->n - 1)) : 0;
}

double hist_bucket_low(const struct histogram *h, size_t i)
{
	if (h->kind == HIST_LINEAR)
		return h->lo + (h->hi - h->lo) * (double)i / (double)h->nbuckets;
	return exp2((double)i / HIST_LOG_SUB + HIST_LOG_MIN_EXP);
}

double hist_quantile(const struct histogram *h, double q)
{
	uint64_t want = (uint64_t)ceil(q * (double)h->n), seen = h->under;

	if (h->n == 0)
		return NAN;
	if (seen >= want && h->under)
		return h->kind == HIST_LINEAR ? h->lo : 0;
	for (size_t i = 0; h->buckets && i < h->nbuckets; i++) {
		seen += h->buckets[i];
		if (seen >= want)
			return hist_bucket_low(h, i + 1);
	}
	return h->max;
}

void hist_busy(const struct histogram *h, struct hist_busy *out)
{
	/* The idle samples are zeros: they add nothing to the sums. */
	double sum = h->mean * (double)h->n, squares = h->m2 + (double)h->n * h->mean * h->mean;

	memset(out, 0, sizeof(*out));
	out->n = h->n - h->under;
	if (!out->n)
		return;
	out->mean = sum / (double)out->n;
	if (out->n > 1)
		out->sd = sqrt(fmax(0, (squares - (double)out->n * out->mean * out->mean) /
				       (double)(out->n - 1)));
	/* Below the sums' rounding (the idle zeros are in them): none. */
	if (out->sd < fabs(out->mean) * 1e-6)
		out->sd = 0;
	for (size_t i = 0; h->buckets && i < h->nbuckets; i++)
		if (h->buckets[i]) {
			out->min = hist_bucket_low(h, i);
			break;
		}
}

double hist_quantile_busy(const struct histogram *h, double q)
{
	uint64_t busy = h->n - h->under, want = (uint64_t)ceil(q * (double)busy), seen = 0;

	if (!busy)
		return NAN;
	for (size_t i = 0; h->buckets && i < h->nbuckets; i++) {
		seen += h->buckets[i];
		if (seen >= want && seen)
			return hist_bucket_low(h, i + 1);
	}
	return h->max;
}
