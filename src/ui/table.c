/*
 * table.c - the per-symbol table view: the shared columns (columns.h)
 * over the model's rows, in the list widget.  Enter opens a symbol's
 * detail.
 */
#include "model/model.h"
#include "output/columns.h"
#include "session.h"
#include "symbols/symbols.h"
#include "ui/draw.h"
#include "ui/list.h"
#include "ui/ui_internal.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct table_view {
	struct view v;
	struct list list;
	struct model_row *rows;		/* after the filter */
	size_t nrows;
};

static uint64_t row_id(void *ctx, size_t i)
{
	const struct model_row *r = &((struct table_view *)ctx)->rows[i];

	/* A symbol of one process is its own row when rows split by process. */
	return (uint64_t)(uint32_t)r->pid << 32 | r->sym->id;
}

static const char *row_text(void *ctx, size_t i)
{
	return ((struct table_view *)ctx)->rows[i].sym->name;
}

/* Re-sorts from the model and filters; the selection stays on its symbol. */
static void table_refresh(struct view *v)
{
	struct table_view *t = (struct table_view *)v;
	size_t n, kept = 0;

	free(t->rows);
	n = model_rows_sorted(session_tables(v->ui->s), &v->ui->sort, v->ui->invert, &t->rows);
	/* The filter keeps a row whose symbol or command matches (htop's F4). */
	for (size_t i = 0; i < n; i++)
		if (list_passes_filter(&t->list, t->rows[i].sym->name) ||
		    (t->rows[i].comm[0] && list_passes_filter(&t->list, t->rows[i].comm)))
			t->rows[kept++] = t->rows[i];
	t->nrows = t->list.n = kept;
	list_refreshed(&t->list);
}

static void table_draw(struct view *v, WINDOW *w)
{
	struct table_view *t = (struct table_view *)v;
	const struct ui *ui = v->ui;
	int lines, cols;
	char line[8192];

	getmaxyx(w, lines, cols);
	t->list.height = lines - 1;
	list_select(&t->list, (long)t->list.selected);	/* fits a new height */
	columns_ibs(ibs_model_active(&session_tables(ui->s)->ibs));
	columns_title(line, sizeof(line), cols, ui->sort.split, (int)ui->sort.key[0],
		      ui->invert);
	draw_text(w, 0, 0, cols, ui->attr[TH_COLUMNS], line);
	if (t->list.filter.text[0] && !t->list.filter.active) {
		/* A kept filter stays in sight: rows are missing on purpose. */
		char f[96];
		int fw;

		snprintf(f, sizeof(f), " filter: %s ", t->list.filter.text);
		fw = (int)strlen(f);
		if (fw < cols / 2)
			draw_text(w, 0, cols - fw, fw, ui->attr[TH_SEARCH], f);
	}
	for (int r = 0; r < lines - 1; r++) {
		size_t i = t->list.top + (size_t)r;
		const struct model_row *row;
		chtype attr;

		if (i >= t->nrows) {
			draw_text(w, 1 + r, 0, cols, ui->attr[TH_ROW], "");
			continue;
		}
		row = &t->rows[i];
		columns_row(line, sizeof(line), cols, ui->sort.split, row);
		attr = i == t->list.selected ? ui->attr[TH_SELECTED]
			: row->sym->unknown ? ui->attr[TH_UNKNOWN] : ui->attr[TH_ROW];
		draw_text(w, 1 + r, 0, cols, attr, line);
	}
}

/*
 * < and > cycle the first key over the columns shown; sorting by process
 * splits rows by process, as -s comm does.
 */
static void sort_by(struct ui *ui, int step)
{
	int k = (int)ui->sort.key[0];

	do
		k = (k + ST_SORT_COUNT + step) % ST_SORT_COUNT;
	while (!ui_sort_offered(ui, (enum st_sort_key)k));
	ui_set_sort(ui, (enum st_sort_key)k);
}

static enum view_reaction table_key(struct view *v, int code, enum ui_action a)
{
	struct table_view *t = (struct table_view *)v;

	switch (list_key(&t->list, code, a)) {
	case LIST_MOVED:
		if (a == UA_SEARCH_NEXT && t->list.search_failed)
			snprintf(v->ui->message, sizeof(v->ui->message),
				 "no symbol matches '%s'", t->list.search.text);
		return VIEW_REDRAW;
	case LIST_FILTERED:
		return VIEW_REQUERY;
	case LIST_IGNORED:
		break;
	}
	switch (a) {
	case UA_SORT_NEXT:
		sort_by(v->ui, 1);
		return VIEW_REQUERY;
	case UA_SORT_PREV:
		sort_by(v->ui, -1);
		return VIEW_REQUERY;
	case UA_INVERT:
		v->ui->invert = !v->ui->invert;
		return VIEW_REQUERY;
	case UA_THREADS:
	case UA_PROCESSES:
		v->next = threads_view_create(v->ui, a == UA_PROCESSES);
		return VIEW_PUSH;
	case UA_PAGES:
		v->next = pages_view_create(v->ui);
		return VIEW_PUSH;
	case UA_DIFF:
		if (!v->ui->s->diff_with) {
			snprintf(v->ui->message, sizeof(v->ui->message),
				 "no comparison: start with -i A --diff B");
			return VIEW_REDRAW;
		}
		v->next = diff_view_create(v->ui);
		return VIEW_PUSH;
	case UA_OPEN:
		if (!t->nrows)
			return VIEW_REDRAW;
		v->next = detail_view_create(v->ui, t->rows[t->list.selected].sym->id);
		return VIEW_PUSH;
	default:
		return VIEW_IGNORED;
	}
}

/* A click on a title sorts by its column (again: inverts); on a row selects it. */
static enum view_reaction table_click(struct view *v, int y, int x, bool twice)
{
	struct table_view *t = (struct table_view *)v;
	struct ui *ui = v->ui;

	if (y == 0) {
		int k = columns_sort_at(x, getmaxx(ui->body), ui->sort.split);

		if (k < 0)
			return VIEW_REDRAW;
		if ((enum st_sort_key)k == ui->sort.key[0])
			ui->invert = !ui->invert;
		ui_set_sort(ui, (enum st_sort_key)k);
		return VIEW_REQUERY;
	}
	if (t->list.top + (size_t)(y - 1) >= t->nrows)
		return VIEW_REDRAW;
	list_select(&t->list, (long)(t->list.top + (size_t)(y - 1)));
	t->list.chosen = true;
	if (twice) {
		v->next = detail_view_create(ui, t->rows[t->list.selected].sym->id);
		return VIEW_PUSH;
	}
	return VIEW_REDRAW;
}

/* A prompt's line replaces the footer while it is open (or filtering). */
static bool table_status(struct view *v, char *buf, size_t len, bool *warning)
{
	const struct table_view *t = (const struct table_view *)v;

	*warning = false;
	if (t->list.search.active) {
		snprintf(buf, len, "Search: %s%s", t->list.search.text,
			 t->list.search_failed ? "  (no match)" : "");
		return true;
	}
	if (t->list.filter.active) {
		snprintf(buf, len, "Filter: %s", t->list.filter.text);
		return true;
	}
	return false;
}

static bool table_cursor(struct view *v, int *y, int *x)
{
	const struct table_view *t = (const struct table_view *)v;
	const struct prompt *p = t->list.search.active ? &t->list.search
		: t->list.filter.active ? &t->list.filter : NULL;

	if (!p)
		return false;
	*y = -1;	/* the footer */
	*x = 8 + (int)strlen(p->text);
	return true;
}

static void table_destroy(struct view *v)
{
	free(((struct table_view *)v)->rows);
	free(v);
}

static const enum ui_action table_actions[] = {
	UA_HELP, UA_SETUP, UA_SEARCH, UA_FILTER, UA_SORT_MENU, UA_INVERT, UA_OPEN,
	UA_THREADS, UA_PROCESSES, UA_ZERO, UA_QUIT, UA_NONE,
};

static const struct view_ops table_ops = {
	.name = "symbols",
	.requery = table_refresh,
	.draw = table_draw,
	.key = table_key,
	.click = table_click,
	.cursor = table_cursor,
	.status = table_status,
	.destroy = table_destroy,
	.actions = table_actions,
};

struct view *table_view_create(struct ui *ui)
{
	struct table_view *t = view_new(sizeof(*t), &table_ops, ui);

	t->list.id = row_id;
	t->list.text = row_text;
	t->list.ctx = t;
	return &t->v;
}
