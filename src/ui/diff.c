/*
 * diff.c - the comparison view (--diff B; D on the symbol table): -i A's
 * symbols against B's, largest change of share first, with both shares
 * and IPCs; p switches to calling contexts (folded paths).  A symbol one
 * side lacks shows "-" there.  Esc returns to A's symbol table.
 */
#include "model/model_diff.h"
#include "output/columns.h"
#include "session.h"
#include "ui/draw.h"
#include "ui/list.h"
#include "ui/ui_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct diff_view {
	struct view v;
	struct list list;
	bool paths;		/* p: calling contexts, not symbols */
	struct model_diff d;
	const struct model *of;	/* the tables d was made of ... */
	uint64_t of_samples;	/* ... when they held this many ... */
	double of_from, of_to;	/* ... of this range */
};

/* An id that survives re-sorting: the row's name (FNV-1a). */
static uint64_t name_id(const char *a, const char *b)
{
	uint64_t h = 1469598103934665603ull;

	for (const char *p = a; p && *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	h = (h ^ 0x1f) * 1099511628211ull;
	for (const char *p = b; p && *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	return h;
}

static uint64_t diff_id(void *ctx, size_t i)
{
	const struct diff_view *d = ctx;

	return d->paths ? name_id(d->d.paths[i].path, NULL)
			: name_id(d->d.rows[i].module, d->d.rows[i].name);
}

static const char *diff_text(void *ctx, size_t i)
{
	const struct diff_view *d = ctx;

	return d->paths ? d->d.paths[i].path : d->d.rows[i].name;
}

static void diff_refresh(struct view *v)
{
	struct diff_view *d = (struct diff_view *)v;
	const struct session *s = v->ui->s;

	/* Made again only when A's tables changed (B's are read to the end). */
	if (d->of != session_tables(s) || d->of_samples != session_tables(s)->samples ||
	    d->of_from != s->range_from || d->of_to != s->range_to || !d->d.samples[0]) {
		model_diff_free(&d->d);
		model_diff(session_tables(s), session_tables(s->diff_with), &d->d);
		d->of = session_tables(s);
		d->of_samples = session_tables(s)->samples;
		d->of_from = s->range_from;
		d->of_to = s->range_to;
	}
	d->list.n = d->paths ? d->d.npaths : d->d.nrows;
	list_refreshed(&d->list);
}

static void row_line(const struct diff_view *d, size_t i, char *line, size_t len)
{
	if (d->paths)
		diff_columns_path(line, len, &d->d.paths[i]);
	else
		diff_columns_row(line, len, &d->d.rows[i]);
}

static void diff_draw(struct view *v, WINDOW *w)
{
	struct diff_view *d = (struct diff_view *)v;
	const struct ui *ui = v->ui;
	int lines, cols;
	char line[4096];

	getmaxyx(w, lines, cols);
	d->list.height = lines - 1;
	list_select(&d->list, (long)d->list.selected);
	diff_columns_title(line, sizeof(line), d->paths);
	snprintf(line + strlen(line), sizeof(line) - strlen(line), "  (A %s, B %s; p %s)",
		 ui->s->opt->replay_path, ui->s->opt->diff_path, d->paths ? "symbols" : "paths");
	draw_text(w, 0, 0, cols, ui->attr[TH_COLUMNS], line);
	for (int r = 0; r < lines - 1; r++) {
		size_t i = d->list.top + (size_t)r;

		if (i >= d->list.n) {
			draw_text(w, 1 + r, 0, cols, ui->attr[TH_ROW], "");
			continue;
		}
		row_line(d, i, line, sizeof(line));
		draw_text(w, 1 + r, 0, cols, i == d->list.selected ? ui->attr[TH_SELECTED]
			  : ui->attr[TH_ROW], line);
	}
}

static enum view_reaction diff_key(struct view *v, int code, enum ui_action a)
{
	struct diff_view *d = (struct diff_view *)v;

	if (list_key(&d->list, code, a) == LIST_MOVED)
		return VIEW_REDRAW;
	if (code == 'p') {
		d->paths = !d->paths;
		d->list.have_selection = false;
		d->list.selected = d->list.top = 0;
		return VIEW_REQUERY;
	}
	if (a == UA_BACK || a == UA_DIFF)
		return VIEW_POP;
	return VIEW_IGNORED;
}

static void diff_destroy(struct view *v)
{
	model_diff_free(&((struct diff_view *)v)->d);
	free(v);
}

static const enum ui_action diff_actions[] = {
	UA_HELP, UA_SEARCH, UA_BACK, UA_QUIT, UA_NONE,
};

static const struct view_ops diff_ops = {
	.name = "diff",
	.requery = diff_refresh,
	.draw = diff_draw,
	.key = diff_key,
	.destroy = diff_destroy,
	.actions = diff_actions,
};

struct view *diff_view_create(struct ui *ui)
{
	struct diff_view *d = view_new(sizeof(*d), &diff_ops, ui);

	d->list.id = diff_id;
	d->list.text = diff_text;
	d->list.ctx = d;
	return &d->v;
}
