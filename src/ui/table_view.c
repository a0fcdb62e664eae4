/*
 * table.c - the per-symbol table view: the shared columns (columns.h)
 * over the model's rows, in the browser.  Enter opens a symbol's
 * detail.
 */
#include "model/model.h"
#include "output/columns.h"
#include "session/session.h"
#include "symbols/symbols.h"
#include "ui/draw.h"
#include "ui/browser.h"
#include "ui/ui_internal.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct table_view {
	struct view v;
	struct browser rows_shown;
	struct column_set columns;	/* which show: the setup's, the session's events, IBS */
	struct model_row *rows;		/* every row, sorted */
	size_t nrows;
};

static void table_items(struct browser *b, const struct browser_item *parent)
{
	const struct table_view *t = b->ctx;

	(void)parent;
	for (size_t i = 0; i < t->nrows; i++) {
		const struct model_row *r = &t->rows[i];

		/* A symbol of one process is its own row when rows split by process. */
		browser_add(b, (uint64_t)(uint32_t)r->pid << 32 | r->sym->id, i, false);
	}
}

/* A row whose symbol or command matches (htop's F4 and F3). */
static bool table_match(struct browser *b, const struct browser_item *it, const char *needle)
{
	const struct table_view *t = b->ctx;
	const struct model_row *r = &t->rows[it->ref];

	return strcasestr(r->sym->name, needle) || (r->comm[0] && strcasestr(r->comm, needle));
}

static int table_write(struct browser *b, const struct browser_item *it, char *line,
		       size_t len, int cols)
{
	const struct table_view *t = b->ctx;
	const struct model_row *r = &t->rows[it->ref];

	columns_row(&t->columns, line, len, cols, t->v.ui->sort.split, r);
	return r->sym->unknown ? TH_UNKNOWN : TH_ROW;
}

static void symbols_title(struct browser *b, char *line, size_t len, int cols)
{
	struct table_view *t = b->ctx;
	const struct ui *ui = t->v.ui;

	ui_columns(ui, &t->columns);	/* the rows drawn after it read the same */
	columns_title(&t->columns, line, len, cols, ui->sort.split, (int)ui->sort.key[0],
		      ui->invert);
}

static const struct browser_ops table_browser = {
	.items = table_items,
	.write = table_write,
	.match = table_match,
	.title = symbols_title,
};

/* Re-sorts from the model; the selection stays on its symbol. */
static void table_refresh(struct view *v)
{
	struct table_view *t = (struct table_view *)v;

	model_rows_free(t->rows);
	t->nrows = model_rows_sorted(session_tables(v->ui->s), &v->ui->sort, v->ui->invert,
				     &t->rows);
	browser_rebuild(&t->rows_shown);
}

static void table_draw(struct view *v, WINDOW *w)
{
	struct table_view *t = (struct table_view *)v;

	browser_draw(&t->rows_shown, w, 0, 0, getmaxx(w), getmaxy(w), true, v->ui->attr);
}

/* The selected row's symbol, or NULL. */
static const struct model_row *selected_row(const struct table_view *t)
{
	const struct browser_item *it = browser_selected(&t->rows_shown);

	return it ? &t->rows[it->ref] : NULL;
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

	if (view_browse(v, &t->rows_shown, code, a) != VIEW_IGNORED)
		return VIEW_REDRAW;
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
	case UA_OPEN:
	case UA_RIGHT:
		if (!selected_row(t))
			return VIEW_REDRAW;
		v->next = detail_view_create(v->ui, selected_row(t)->sym->id);
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
		int k = columns_sort_at(&t->columns, x, getmaxx(ui->body), ui->sort.split);

		if (k < 0)
			return VIEW_REDRAW;
		if ((enum st_sort_key)k == ui->sort.key[0])
			ui->invert = !ui->invert;
		ui_set_sort(ui, (enum st_sort_key)k);
		return VIEW_REQUERY;
	}
	if (!browser_click(&t->rows_shown, y - 1))
		return VIEW_REDRAW;
	if (twice) {
		v->next = detail_view_create(ui, selected_row(t)->sym->id);
		return VIEW_PUSH;
	}
	return VIEW_REDRAW;
}

static void table_destroy(struct view *v)
{
	struct table_view *t = (struct table_view *)v;

	browser_free(&t->rows_shown);
	model_rows_free(t->rows);
	free(v);
}

static const enum ui_action table_actions[] = {
	UA_HELP, UA_SETUP, UA_SEARCH, UA_FILTER, UA_SORT_MENU, UA_INVERT, UA_OPEN,
	UA_THREADS, UA_PROCESSES, UA_SNAPSHOT, UA_ZERO, UA_QUIT, UA_NONE,
};

static const struct view_ops table_ops = {
	.name = "symbols",
	.requery = table_refresh,
	.draw = table_draw,
	.key = table_key,
	.click = table_click,
	.destroy = table_destroy,
	.actions = table_actions,
	.as_of_requery = true,
};

struct view *table_view_create(struct ui *ui)
{
	struct table_view *t = view_new(sizeof(*t), &table_ops, ui);

	browser_init(&t->rows_shown, &table_browser, t, "symbol", false);
	t->v.browser = &t->rows_shown;
	return &t->v;
}
