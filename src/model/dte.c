/* dte.c - double-time error correction and counter deltas. */
#include "model/dte.h"

#include <math.h>

void dte_init(struct dte *d, double tolerance)
{
	*d = (struct dte){ .tolerance = tolerance };
}

enum dte_verdict dte_check(struct dte *d, uint64_t start, uint64_t end,
			   double *cpc)
{
	uint64_t ds, de, w = end - start, pw = d->prev_end - d->prev_start;
	bool had = d->have_prev;

	ds = start - d->prev_start;
	de = end - d->prev_end;
	if (end > start && (!d->min_window || w < d->min_window))
		d->min_window = w;
	*cpc = 0;
	d->taken++;
	d->have_prev = true;
	d->prev_start = start;
	d->prev_end = end;
	if (!had) {
		d->first++;
		return DTE_FIRST;
	}
	/* Unsigned deltas of a clock that went back are huge: reject. */
	if (end < start || ds == 0 || de == 0 || (int64_t)ds < 0 || (int64_t)de < 0) {
		d->rejected_clock++;
		return DTE_REJECT_CLOCK;
	}
	*cpc = (double)de / (double)ds;
	if (fabs(*cpc - 1.0) > d->tolerance) {
		d->rejected_cpc++;
		return DTE_REJECT_CPC;
	}
	if ((w > pw ? w : pw) > DTE_WINDOW_FACTOR * d->min_window) {
		d->rejected_window++;
		return DTE_REJECT_WINDOW;
	}
	d->accepted++;
	return DTE_ACCEPT;
}

void dte_resume(struct dte *d, uint64_t start, uint64_t end)
{
	d->have_prev = true;
	d->prev_start = start;
	d->prev_end = end;
}

void dte_restart(struct dte *d)
{
	d->have_prev = false;
}

bool counter_delta(uint64_t prev, uint64_t cur, unsigned width,
		   uint64_t *delta)
{
	uint64_t mask = width >= 64 ? UINT64_MAX : (UINT64_C(1) << width) - 1;
	uint64_t d = (cur - prev) & mask;

	if (d > mask / 2)
		return false;
	*delta = d;
	return true;
}

enum dte_verdict dte_backwards(struct dte *d, enum dte_verdict v)
{
	/* Move the sample out of the count dte_check put it in. */
	switch (v) {
	case DTE_ACCEPT:
		d->accepted--;
		break;
	case DTE_REJECT_CPC:
		d->rejected_cpc--;
		break;
	case DTE_REJECT_CLOCK:
		d->rejected_clock--;
		break;
	case DTE_REJECT_WINDOW:
		d->rejected_window--;
		break;
	default:
		return v;	/* first sample or already backwards: no rate */
	}
	d->rejected_backwards++;
	return DTE_REJECT_BACKWARDS;
}

uint64_t dte_judged(const struct dte *d)
{
	return d->accepted + d->rejected_cpc + d->rejected_clock +
	       d->rejected_backwards + d->rejected_window;
}

double dte_share(const struct dte *d, uint64_t part)
{
	uint64_t n = dte_judged(d);

	return n ? 100.0 * (double)part / (double)n : 0;
}
