/*
 * distribution.c - the distribution view (5): one of the observer's
 * histograms drawn as columns, as SHIM's Fig. 1b-c show IPC: a counter's
 * rate over accepted samples, IPC where the core's counters are read,
 * CPC, the achieved period and the gap between accepted samples; for the
 * whole session or, from the tags view, one tag.  With a time range
 * selected, the first counter's rate and the period are cut again for it
 * from the observer's series (per sample while its ring of single samples
 * holds the range, else per millisecond); the rest stay the session's and
 * say so.  Up and Down pick the quantity; the header line gives n, mean,
 * standard deviation and quantiles.
 */
#include "model/obs_model.h"
#include "output/report.h"
#include "session/session.h"
#include "ui/draw.h"
#include "ui/ui_internal.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DIST_MAX 16

struct distribution_view {
	struct view v;
	bool for_tag;
	uint64_t tag;
	int which;		/* the quantity shown: quantities()'s index */
};

struct quantity {
	char name[64];
	const struct histogram *h;
	bool ranged;		/* cut for the selected range */
};

/* What can be shown, for the session or the tag; w: the range's, if one is selected. */
static int quantities(const struct distribution_view *d, const struct obs_window_dist *w,
		      struct quantity *q)
{
	const struct obs_model *m = &session_whole(d->v.ui->s)->obs;
	const struct obs_tag *t = NULL;
	int n = 0;

	if (d->for_tag) {
		for (size_t i = 0; i < m->ntags && !t; i++)
			if (m->tags[i].tag == d->tag && !m->tags[i].other)
				t = &m->tags[i];
		if (!t)
			return 0;
	}
	for (unsigned c = 0; c < m->meta.ncounters && n < DIST_MAX - 4; c++) {
		snprintf(q[n].name, sizeof(q[n].name), "%.50s per second", m->meta.counter_name[c]);
		q[n].ranged = w && c == 0;
		q[n].h = q[n].ranged ? &w->rate : t ? &t->rate[c] : &m->counter[c].rate;
		n++;
	}
	if (t ? t->ipc.n > 0 : m->have_ipc) {
		snprintf(q[n].name, sizeof(q[n].name), "IPC");
		q[n++].h = t ? &t->ipc : &m->ipc;
	}
	if (!t) {
		snprintf(q[n].name, sizeof(q[n].name), "CPC (DTE's clock ratio)");
		q[n++].h = &m->cpc;
		snprintf(q[n].name, sizeof(q[n].name), "sample period (TSC cycles)");
		q[n].ranged = w && w->per_sample;
		q[n].h = q[n].ranged ? &w->period : &m->period;
		n++;
		snprintf(q[n].name, sizeof(q[n].name), "gap between accepted samples (cycles)");
		q[n++].h = &m->gap;
	}
	return n;
}

/* The last bucket whose low edge is at or below x (0 if none is). */
static size_t bucket_at(const struct histogram *h, double x)
{
	size_t lo = 0, hi = h->nbuckets;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (hist_bucket_low(h, mid) <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : 0;
}

/* Column c's left edge over [lo, hi]: geometric for a log histogram. */
static double edge(const struct histogram *h, double lo, double hi, int c, int cols)
{
	double f = (double)c / cols;

	return h->kind == HIST_LOG ? lo * pow(hi / lo, f) : lo + (hi - lo) * f;
}

/*
 * The range drawn: the filled buckets, a linear histogram's trimmed to
 * its 0.1%-99.9% quantiles so one outlier does not squash the rest.
 */
static bool drawn_range(const struct histogram *h, double *lo, double *hi)
{
	size_t first = h->nbuckets, last = 0;

	for (size_t i = 0; h->buckets && i < h->nbuckets; i++)
		if (h->buckets[i]) {
			if (first == h->nbuckets)
				first = i;
			last = i;
		}
	if (first == h->nbuckets)
		return false;
	*lo = hist_bucket_low(h, first);
	*hi = hist_bucket_low(h, last + 1);
	if (h->kind == HIST_LINEAR) {
		double qlo = hist_quantile(h, 0.001), qhi = hist_quantile(h, 0.999);

		if (qlo > *lo && qlo < *hi)
			*lo = qlo;
		if (qhi < *hi && qhi > *lo)
			*hi = qhi;
	}
	return *hi > *lo;
}

static void draw_histogram(const struct ui *ui, WINDOW *w, int y, int rows,
			   const struct histogram *h)
{
	int cols = getmaxx(w) - 10;
	double lo, hi;
	uint64_t *col, top = 0;
	char label[64];

	if (cols < 10 || rows < 3)
		return;
	if (!drawn_range(h, &lo, &hi)) {
		draw_text(w, y, 0, getmaxx(w), ui->attr[TH_ROW],
			  "every sample is outside the buckets (see above)");
		return;
	}
	col = st_xcalloc((size_t)cols, sizeof(*col));
	for (int c = 0; c < cols; c++) {
		double x0 = edge(h, lo, hi, c, cols), x1 = edge(h, lo, hi, c + 1, cols);
		size_t i = bucket_at(h, x0);
		bool summed = false;

		/* The buckets starting in the column; else the one it lies in. */
		for (; i < h->nbuckets && hist_bucket_low(h, i) < x1; i++)
			if (hist_bucket_low(h, i) >= x0) {
				col[c] += h->buckets[i];
				summed = true;
			}
		if (!summed)
			col[c] = h->buckets[bucket_at(h, (x0 + x1) / 2)];
		if (col[c] > top)
			top = col[c];
	}
	for (int r = 0; r < rows - 1; r++) {
		/* Each row is 1/(rows-1) of the tallest column, in eighths when UTF-8. */
		double floor_at = (double)(rows - 2 - r) / (rows - 1);

		snprintf(label, sizeof(label), "%8llu ",
			 (unsigned long long)((double)top * (floor_at + 1.0 / (rows - 1))));
		draw_text(w, y + r, 0, 9, ui->attr[TH_HEADER], r == 0 || r == rows - 2 ? label : "");
		for (int c = 0; c < cols; c++) {
			double f = top ? (double)col[c] / (double)top : 0;
			double in = (f - floor_at) * (rows - 1);
			const char *glyph = " ";

			/* A full block, or a partial one in UTF-8; '#' for any part in ASCII. */
			if (in >= 1 || (in > 0 && !ui->utf8))
				glyph = draw_block(7, ui->utf8);
			else if (in > 0)
				glyph = draw_block((int)(in * 8), true);
			draw_text(w, y + r, 10 + c, 1, ui->attr[TH_VALUE], glyph);
		}
	}
	/* The axis: the range's ends and its middle. */
	{
		char axis[512], a[32], m[32], b[32];
		double mid = h->kind == HIST_LOG ? sqrt(lo * hi) : (lo + hi) / 2;
		int half = cols / 2;

		snprintf(a, sizeof(a), "%.4g", lo);
		snprintf(m, sizeof(m), "%.4g", mid);
		snprintf(b, sizeof(b), "%.4g", hi);
		snprintf(axis, sizeof(axis), "%-*s%-*s%s", half - (int)strlen(m) / 2, a,
			 cols - half + (int)strlen(m) / 2 - (int)strlen(b), m, b);
		draw_text(w, y + rows - 1, 10, cols, ui->attr[TH_HEADER], axis);
		draw_text(w, y + rows - 1, 0, 10, ui->attr[TH_HEADER],
			  h->kind == HIST_LOG ? "log scale" : "");
	}
	free(col);
}

/* Whose distribution, and over what time. */
static void describe(const struct distribution_view *d, const struct quantity *q,
		     const struct obs_window_dist *w, char *who, size_t len)
{
	const struct ui *ui = d->v.ui;
	const struct obs_model *m = &session_whole(ui->s)->obs;
	char name[128] = "";
	const char *when = !session_ranged(ui->s) ? (d->for_tag ? "" : "the whole session")
		: q->ranged ? (w->per_sample ? "the selected range, per sample"
			       : "the selected range, per millisecond (its single samples "
				 "are no longer held)")
		: "the whole session (a range cuts again only the first counter's "
		  "rate and the period)";

	if (!d->for_tag) {
		snprintf(who, len, "%s", when);
		return;
	}
	report_tag_name(ui->s, d->tag, name, sizeof(name));
	snprintf(who, len, "%s %.100s%s%s", m->meta.tag_name[0] ? m->meta.tag_name : "tag",
		 name, *when ? " over " : "", when);
}

static void distribution_draw(struct view *v, WINDOW *w)
{
	struct distribution_view *d = (struct distribution_view *)v;
	const struct ui *ui = v->ui;
	const struct session *s = ui->s;
	const struct obs_model *m = &session_whole(s)->obs;
	struct quantity q[DIST_MAX];
	struct obs_window_dist range;
	int n, rows = getmaxy(w), cols = getmaxx(w);
	char line[512], who[256];
	const struct histogram *h;

	werase(w);
	memset(q, 0, sizeof(q));
	if (session_ranged(s) && m->active) {
		uint64_t from, to;

		session_range_ns(s, &from, &to);
		obs_series_window_dist(&m->series, from, to, m->tsc_hz,
				       d->for_tag ? &d->tag : NULL, &range);
	}
	n = m->active ? quantities(d, session_ranged(s) ? &range : NULL, q) : 0;
	if (!n) {
		draw_text(w, 0, 0, cols, ui->attr[TH_ROW], !m->active
			  ? "distributions come from the observer: run with --observe or --signal NAME"
			  : "that tag has no samples any more (zeroed); Esc returns");
		goto out;
	}
	if (d->which >= n)
		d->which = n - 1;
	h = q[d->which].h;
	describe(d, &q[d->which], &range, who, sizeof(who));
	snprintf(line, sizeof(line), "distribution of %s, %s  (%d of %d: Up/Down another)",
		 q[d->which].name, who, d->which + 1, n);
	draw_text(w, 0, 0, cols, ui->attr[TH_COLUMNS], line);
	if (!h->n) {
		draw_text(w, 1, 0, cols, ui->attr[TH_ROW], q[d->which].ranged
			  ? "no accepted samples in the selected range" : "no accepted samples yet");
		goto out;
	}
	if (h->kind == HIST_LOG && h->under) {
		/* Idle intervals (rate 0) apart: the figures and bars are the busy ones'. */
		struct hist_busy b;

		hist_busy(h, &b);
		snprintf(line, sizeof(line), "busy n %llu   mean %.4g   sd %.4g   min %.4g   "
			 "p10 %.4g   median %.4g   p90 %.4g   p99 %.4g   max %.4g",
			 (unsigned long long)b.n, b.mean, b.sd, b.min,
			 hist_quantile_busy(h, 0.1), hist_quantile_busy(h, 0.5),
			 hist_quantile_busy(h, 0.9), hist_quantile_busy(h, 0.99), h->max);
	} else {
		snprintf(line, sizeof(line), "n %llu   mean %.4g   sd %.4g   min %.4g   p10 %.4g   "
			 "median %.4g   p90 %.4g   p99 %.4g   max %.4g",
			 (unsigned long long)h->n, h->mean, hist_stddev(h), h->min,
			 hist_quantile(h, 0.1), hist_quantile(h, 0.5), hist_quantile(h, 0.9),
			 hist_quantile(h, 0.99), h->max);
	}
	draw_text(w, 1, 0, cols, ui->attr[TH_ROW], line);
	if (h->under || h->over) {
		if (h->kind == HIST_LOG)
			snprintf(line, sizeof(line), "idle: %llu of %llu samples (%.1f%%) at 0, "
				 "apart from the figures above and the bars",
				 (unsigned long long)h->under, (unsigned long long)h->n,
				 100.0 * (double)h->under / (double)h->n);
		else
			snprintf(line, sizeof(line), "outside the buckets: %llu below %g, "
				 "%llu above %g", (unsigned long long)h->under, h->lo,
				 (unsigned long long)h->over, h->hi);
		draw_text(w, 2, 0, cols, ui->attr[TH_ROW], line);
	}
	draw_histogram(ui, w, 3, rows - 3, h);
out:
	if (session_ranged(s) && m->active)
		obs_window_dist_free(&range);
}

static enum view_reaction distribution_key(struct view *v, int code, enum ui_action a)
{
	struct distribution_view *d = (struct distribution_view *)v;

	(void)code;
	switch (a) {
	case UA_DOWN:
		d->which++;	/* clamped when drawn */
		return VIEW_REDRAW;
	case UA_UP:
		d->which -= d->which > 0;
		return VIEW_REDRAW;
	case UA_BACK:
		return d->for_tag ? VIEW_POP : VIEW_IGNORED;
	default:
		return VIEW_IGNORED;
	}
}

static const enum ui_action distribution_actions[] = {
	UA_HELP, UA_VIEW_NEXT, UA_BACK, UA_QUIT, UA_NONE,
};

static const struct view_ops distribution_ops = {
	.name = "distribution",
	.observer = true,
	.draw = distribution_draw,
	.key = distribution_key,
	.destroy = view_free,
	.actions = distribution_actions,
};

struct view *distribution_view_create(struct ui *ui)
{
	return view_new(sizeof(struct distribution_view), &distribution_ops, ui);
}

struct view *distribution_view_of_tag(struct ui *ui, uint64_t tag)
{
	struct distribution_view *d = view_new(sizeof(*d), &distribution_ops, ui);

	d->for_tag = true;
	d->tag = tag;
	return &d->v;
}
