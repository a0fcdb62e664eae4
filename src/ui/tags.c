/*
 * tags.c - the tags view (4): the observer's per-tag table, SHIM's
 * per-method view live.  Each tag (a phase the program publishes, or the
 * function an instrumented program is in) with its share of observed
 * time, its thread-samples, each counter's rate over the tag's time with
 * the mean and standard deviation of its accepted samples, and the
 * core's IPC where that is read.  Up and Down select; Enter opens the
 * selected tag's distributions.  With a range selected, each tag's time
 * share and first counter's rate in the range instead, from the
 * observer's per-millisecond series.
 */
#include "model/obs_model.h"
#include "output/report.h"
#include "session.h"
#include "ui/draw.h"
#include "ui/ui_internal.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tags_view {
	struct view v;
	size_t selected, top;
	uint64_t selected_tag;
	bool have_selection;
	int rows;		/* table rows shown, last drawn */
};

/* Keeps the selection on its tag as the rows reorder, and in sight. */
static void follow_selection(struct tags_view *t, const uint64_t *ids, size_t n, int rows)
{
	for (size_t i = 0; t->have_selection && i < n; i++)
		if (ids[i] == t->selected_tag)
			t->selected = i;
	if (t->selected >= n)
		t->selected = n - 1;
	t->rows = rows;
	if (t->selected < t->top)
		t->top = t->selected;
	if (t->rows > 0 && t->selected >= t->top + (size_t)t->rows)
		t->top = t->selected - (size_t)t->rows + 1;
	t->selected_tag = ids[t->selected];
	t->have_selection = true;
}

/*
 * With a range selected: each tag's time share and counter 0's rate in
 * the window, from the observer's per-millisecond series (the rest of the
 * table's figures are kept for the whole session only).
 */
static void draw_window(struct tags_view *t, WINDOW *w)
{
	const struct ui *ui = t->v.ui;
	const struct session *s = ui->s;
	const struct obs_model *m = &s->model.obs;
	uint64_t from, to;
	int rows = getmaxy(w), cols = getmaxx(w);
	struct obs_window_tag *v;
	double all;
	size_t n;
	uint64_t *ids;
	bool partly;
	char line[512];

	session_range_ns(s, &from, &to);
	n = obs_series_window_tags(&m->series, from, to, &v, &all);
	ids = st_xcalloc(n + 1, sizeof(*ids));
	partly = m->series.complete_from && from / 1000000 < m->series.complete_from;

	snprintf(line, sizeof(line), "range %.3f-%.3f s: time and %s per second in it%s; "
		 "Esc in the timeline clears", s->range_from, s->range_to,
		 m->meta.ncounters ? m->meta.counter_name[0] : "no counter",
		 partly ? " (partly older than the observer's 2-minute series)" : "");
	draw_text(w, 0, 0, cols, ui->attr[TH_HEADER], line);
	snprintf(line, sizeof(line), "%7s %10s  %-24.24s  %-20.20s", "TIME%", "SAMPLES",
		 m->meta.tag_name[0] ? m->meta.tag_name : "TAG",
		 m->meta.ncounters ? m->meta.counter_name[0] : "");
	draw_text(w, 1, 0, cols, ui->attr[TH_COLUMNS], line);
	if (!n) {
		draw_text(w, 2, 0, cols, ui->attr[TH_ROW], "no observer samples in the selected range");
		free(v);
		free(ids);
		return;
	}
	for (size_t i = 0; i < n; i++)
		ids[i] = v[i].tag;
	follow_selection(t, ids, n, rows - 2);
	for (size_t i = t->top; i < n && (int)(i - t->top) < t->rows; i++) {
		char label[128], rate[32] = "-";

		report_tag_name(s, v[i].tag, label, sizeof(label));
		if (m->meta.ncounters && v[i].cycles > 0 && m->tsc_hz)
			snprintf(rate, sizeof(rate), "%.4g/s", (double)v[i].delta0 *
				 (double)m->tsc_hz / v[i].cycles);
		snprintf(line, sizeof(line), "%6.2f%% %10llu  %-24.24s  %-20s",
			 all > 0 ? 100.0 * v[i].cycles / all : 0,
			 (unsigned long long)v[i].samples, label, rate);
		draw_text(w, 2 + (int)(i - t->top), 0, cols,
			  i == t->selected ? ui->attr[TH_SELECTED] : ui->attr[TH_ROW], line);
	}
	free(v);
	free(ids);
}

static void tags_draw(struct view *v, WINDOW *w)
{
	struct tags_view *t = (struct tags_view *)v;
	const struct ui *ui = v->ui;
	const struct obs_model *m = &ui->s->model.obs;
	const struct obs_tag **tags;
	int rows = getmaxy(w), cols = getmaxx(w);
	char line[1024];
	size_t n, at;

	werase(w);
	if (!m->active) {
		draw_text(w, 0, 0, cols, ui->attr[TH_ROW],
			  "per-tag figures come from the observer: run with --observe "
			  "(the demo publishes its phases) or --signal NAME");
		return;
	}
	if (ui->s->ranged) {
		draw_window(t, w);
		return;
	}
	n = obs_model_tags(m, &tags);
	at = (size_t)snprintf(line, sizeof(line), "%7s %10s  %-24.24s", "TIME%", "SAMPLES",
			      m->meta.tag_name[0] ? m->meta.tag_name : "TAG");
	for (unsigned c = 0; c < m->meta.ncounters && at < sizeof(line); c++)
		at += (size_t)snprintf(line + at, sizeof(line) - at, "  %-30.30s",
				       m->meta.counter_name[c]);
	if (m->have_hardware && at < sizeof(line))
		snprintf(line + at, sizeof(line) - at, "  %5s", "IPC");
	draw_text(w, 0, 0, cols, ui->attr[TH_COLUMNS], line);
	if (!n) {
		draw_text(w, 1, 0, cols, ui->attr[TH_ROW], "no tags read yet");
		free(tags);
		return;
	}
	{
		uint64_t *ids = st_xcalloc(n, sizeof(*ids));

		for (size_t i = 0; i < n; i++)
			ids[i] = tags[i]->tag;
		follow_selection(t, ids, n, rows - 1);
		free(ids);
	}
	for (size_t i = t->top; i < n && (int)(i - t->top) < t->rows; i++) {
		const struct obs_tag *g = tags[i];
		char label[128];

		report_tag_label(ui->s, g, label, sizeof(label));
		at = (size_t)snprintf(line, sizeof(line), "%6.2f%% %10llu  %-24.24s",
				      m->cycles > 0 ? 100.0 * g->cycles / m->cycles : 0,
				      (unsigned long long)g->samples, label);
		for (unsigned c = 0; c < m->meta.ncounters && at < sizeof(line); c++) {
			char cell[64];

			snprintf(cell, sizeof(cell), "%.4g/s (%.3g \u00b1%.3g)",
				 obs_tag_rate(m, g, c), g->rate[c].mean, hist_stddev(&g->rate[c]));
			at += (size_t)snprintf(line + at, sizeof(line) - at, "  %-30s", cell);
		}
		if (m->have_hardware && at < sizeof(line))
			snprintf(line + at, sizeof(line) - at, "  %5.2f", obs_tag_hardware_ipc(g));
		draw_text(w, 1 + (int)(i - t->top), 0, cols,
			  i == t->selected ? ui->attr[TH_SELECTED] : ui->attr[TH_ROW], line);
	}
	free(tags);
}

static enum view_reaction tags_key(struct view *v, int code, enum ui_action a)
{
	struct tags_view *t = (struct tags_view *)v;
	size_t page = t->rows > 1 ? (size_t)t->rows - 1 : 1;

	(void)code;
	switch (a) {
	case UA_DOWN:
		t->selected++;
		break;
	case UA_UP:
		t->selected -= t->selected > 0;
		break;
	case UA_PAGE_DOWN:
		t->selected += page;
		break;
	case UA_PAGE_UP:
		t->selected = t->selected > page ? t->selected - page : 0;
		break;
	case UA_FIRST:
		t->selected = 0;
		break;
	case UA_LAST:
		t->selected = SIZE_MAX / 2;
		break;
	case UA_OPEN:
		if (!t->have_selection)
			return VIEW_IGNORED;
		v->next = distribution_view_of_tag(v->ui, t->selected_tag);
		return VIEW_PUSH;
	default:
		return VIEW_IGNORED;
	}
	t->have_selection = false;	/* moved by position: the tag follows */
	return VIEW_REDRAW;
}

static const enum ui_action tags_actions[] = {
	UA_HELP, UA_OPEN, UA_VIEW_NEXT, UA_QUIT, UA_NONE,
};

static const struct view_ops tags_ops = {
	.name = "tags",
	.draw = tags_draw,
	.key = tags_key,
	.destroy = view_free,
	.actions = tags_actions,
};

struct view *tags_view_create(struct ui *ui)
{
	return view_new(sizeof(struct tags_view), &tags_ops, ui);
}
