/*
 * tags.c - the tags view (4): the observer's per-tag table, SHIM's
 * per-method view live.  Each tag (a phase the program publishes, or the
 * function an instrumented program is in) with its share of observed
 * time, its thread-samples, each counter's rate over the tag's time with
 * the mean and standard deviation of its accepted samples, and the
 * core's IPC where that is read.  Up and Down select, / searches; Enter opens the
 * selected tag's distributions.  With a range selected, each tag's time
 * share and first counter's rate in the range instead, from the
 * observer's per-millisecond series.
 */
#include "model/obs_model.h"
#include "output/report.h"
#include "session/session.h"
#include "ui/browser.h"
#include "ui/draw.h"
#include "ui/ui_internal.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tags_view {
	struct view v;
	struct browser rows_shown;	/* an item a tag, its id the tag's value */
	bool ranged;			/* rows of the selected range: win, else tags */
	/*
	 * The session's tags by index into the model's array, not by pointer:
	 * the array grows (and moves) as samples come between a refresh and a
	 * key or a draw.
	 */
	size_t *tags;
	struct obs_window_tag *win;
	double win_all;			/* the range's observed time, every tag's */
	size_t n;
};

/* The session's i-th tag as the model holds it now. */
static const struct obs_tag *tag_at(const struct tags_view *t, size_t i)
{
	return &session_whole(t->v.ui->s)->obs.tags[t->tags[i]];
}

static void tags_items(struct browser *b, const struct browser_item *parent)
{
	const struct tags_view *t = b->ctx;

	(void)parent;
	for (size_t i = 0; i < t->n; i++)
		browser_add(b, t->ranged ? t->win[i].tag : tag_at(t, i)->tag, i, false);
}

static bool tags_match(struct browser *b, const struct browser_item *it, const char *needle)
{
	const struct tags_view *t = b->ctx;
	char label[128];

	if (t->ranged)
		report_tag_name(t->v.ui->s, t->win[it->ref].tag, label, sizeof(label));
	else
		report_tag_label(t->v.ui->s, tag_at(t, it->ref), label, sizeof(label));
	return strcasestr(label, needle) != NULL;
}

/*
 * With a range selected: each tag's time share and counter 0's rate in
 * the window, from the observer's per-millisecond series (the rest of the
 * table's figures are kept for the whole session only).
 */
static void window_row(const struct tags_view *t, size_t i, char *line, size_t len)
{
	const struct session *s = t->v.ui->s;
	const struct obs_model *m = &session_whole(s)->obs;
	const struct obs_window_tag *g = &t->win[i];
	char label[128], rate[32] = "-";
	double all = t->win_all;

	report_tag_name(s, g->tag, label, sizeof(label));
	if (m->meta.ncounters && g->cycles > 0 && m->tsc_hz)
		snprintf(rate, sizeof(rate), "%.4g/s", (double)g->delta0 *
			 (double)m->tsc_hz / g->cycles);
	snprintf(line, len, "%6.2f%% %10llu  %-24.24s  %-20s", all > 0 ? 100.0 * g->cycles / all : 0,
		 (unsigned long long)g->samples, label, rate);
}

static void session_row(const struct tags_view *t, size_t i, char *line, size_t len)
{
	const struct session *s = t->v.ui->s;
	const struct obs_model *m = &session_whole(s)->obs;
	const struct obs_tag *g = tag_at(t, i);
	char label[128];
	size_t at;

	report_tag_label(s, g, label, sizeof(label));
	at = (size_t)snprintf(line, len, "%6.2f%% %10llu  %-24.24s",
			      obs_tag_share(m, g),
			      (unsigned long long)g->samples, label);
	for (unsigned c = 0; c < m->meta.ncounters && at < len; c++) {
		char cell[64];

		snprintf(cell, sizeof(cell), "%.4g/s (%.3g \u00b1%.3g)",
			 obs_tag_rate(m, g, c), g->rate[c].mean, hist_stddev(&g->rate[c]));
		at += (size_t)snprintf(line + at, len - at, "  %-30s", cell);
	}
	if (m->have_hardware && at < len)
		snprintf(line + at, len - at, "  %5.2f", obs_tag_hardware_ipc(g));
}

static int tags_write(struct browser *b, const struct browser_item *it, char *line, size_t len,
		      int cols)
{
	const struct tags_view *t = b->ctx;

	(void)cols;
	if (t->ranged)
		window_row(t, it->ref, line, len);
	else
		session_row(t, it->ref, line, len);
	return TH_ROW;
}

static void tags_title(struct browser *b, char *line, size_t len, int cols)
{
	const struct tags_view *t = b->ctx;
	const struct obs_model *m = &session_whole(t->v.ui->s)->obs;
	size_t at;

	(void)cols;
	at = (size_t)snprintf(line, len, "%7s %10s  %-24.24s", "TIME%", "SAMPLES",
			      m->meta.tag_name[0] ? m->meta.tag_name : "TAG");
	if (t->ranged) {
		snprintf(line + at, len - at, "  %-20.20s",
			 m->meta.ncounters ? m->meta.counter_name[0] : "");
		return;
	}
	for (unsigned c = 0; c < m->meta.ncounters && at < len; c++)
		at += (size_t)snprintf(line + at, len - at, "  %-30.30s", m->meta.counter_name[c]);
	if (m->have_hardware && at < len)
		snprintf(line + at, len - at, "  %5s", "IPC");
}

static const struct browser_ops tags_browser = {
	.items = tags_items,
	.write = tags_write,
	.match = tags_match,
	.title = tags_title,
};

/* The session's tags, or the selected range's. */
static void tags_requery(struct view *v)
{
	struct tags_view *t = (struct tags_view *)v;
	const struct session *s = v->ui->s;
	const struct obs_model *m = &session_whole(s)->obs;

	free(t->tags);
	free(t->win);
	t->tags = NULL;
	t->win = NULL;
	t->n = 0;
	t->ranged = session_ranged(s);
	if (m->active && t->ranged) {
		uint64_t from, to;

		session_range_ns(s, &from, &to);
		t->n = obs_series_window_tags(&m->series, from, to, &t->win, &t->win_all);
	} else if (m->active) {
		const struct obs_tag **sorted;

		t->n = obs_model_tags(m, &sorted);
		t->tags = st_xcalloc(t->n + 1, sizeof(*t->tags));
		for (size_t i = 0; i < t->n; i++)
			t->tags[i] = (size_t)(sorted[i] - m->tags);
		free(sorted);
	}
	browser_rebuild(&t->rows_shown);
}

static void tags_draw(struct view *v, WINDOW *w)
{
	struct tags_view *t = (struct tags_view *)v;
	const struct ui *ui = v->ui;
	const struct session *s = ui->s;
	const struct obs_model *m = &session_whole(s)->obs;
	int rows = getmaxy(w), cols = getmaxx(w), y = 0;
	char line[512];

	werase(w);
	if (!m->active) {
		draw_text(w, 0, 0, cols, ui->attr[TH_ROW],
			  "per-tag figures come from the observer: run with --observe "
			  "(the demo publishes its phases) or --signal NAME");
		return;
	}
	if (t->ranged != session_ranged(s))
		tags_requery(v);
	if (t->ranged) {
		uint64_t from, to;
		bool partly;

		session_range_ns(s, &from, &to);
		partly = m->series.complete_from && from / 1000000 < m->series.complete_from;
		snprintf(line, sizeof(line), "range %.3f-%.3f s: time and %s per second in it%s; "
			 "Esc in the timeline clears", session_range_from(s), session_range_to(s),
			 m->meta.ncounters ? m->meta.counter_name[0] : "no counter",
			 partly ? " (partly older than the observer's 2-minute series)" : "");
		draw_text(w, y++, 0, cols, ui->attr[TH_HEADER], line);
	}
	browser_draw(&t->rows_shown, w, y, 0, cols, rows - y, true, ui->attr);
	if (!t->n)
		draw_text(w, y + 1, 0, cols, ui->attr[TH_ROW], t->ranged
			  ? "no observer samples in the selected range" : "no tags read yet");
}

static enum view_reaction tags_key(struct view *v, int code, enum ui_action a)
{
	struct tags_view *t = (struct tags_view *)v;
	const struct browser_item *it;

	if (view_browse(v, &t->rows_shown, code, a) != VIEW_IGNORED)
		return VIEW_REDRAW;
	if (a != UA_OPEN || !(it = browser_selected(&t->rows_shown)))
		return VIEW_IGNORED;
	v->next = distribution_view_of_tag(v->ui, it->id);
	return VIEW_PUSH;
}

static void tags_destroy(struct view *v)
{
	struct tags_view *t = (struct tags_view *)v;

	browser_free(&t->rows_shown);
	free(t->tags);
	free(t->win);
	free(t);
}

static const enum ui_action tags_actions[] = {
	UA_HELP, UA_OPEN, UA_VIEW_NEXT, UA_QUIT, UA_NONE,
};

static const struct view_ops tags_ops = {
	.name = "tags",
	.observer = true,
	.requery = tags_requery,
	.draw = tags_draw,
	.key = tags_key,
	.destroy = tags_destroy,
	.actions = tags_actions,
};

struct view *tags_view_create(struct ui *ui)
{
	struct tags_view *t = view_new(sizeof(*t), &tags_ops, ui);

	browser_init(&t->rows_shown, &tags_browser, t, "tag", false);
	t->v.browser = &t->rows_shown;
	return &t->v;
}
