/*
 * declared_view.c - a view of a declared table from its source (see
 * declared_view.h): the rows, sorted by a column or in the source's own
 * order, in a browser (search, filter, selection kept by id).
 */
#include "output/tables.h"
#include "session/session.h"
#include "ui/browser.h"
#include "ui/declared_view.h"
#include "ui/draw.h"
#include "ui/ui_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct declared_view {
	struct view v;
	struct view_ops ops;		/* the shown source's name, footer and scope */
	struct browser rows_shown;
	const struct table_source *first;	/* the one opened */
	int which;			/* 0: first, 1: its other */
	void *state;			/* the sources' */
	const void *rows;
	size_t n;
	struct view_sorting sort[2];	/* first's, its other's */
	uint32_t empty;			/* optional columns with nothing to say */
	bool noticed;			/* a notice above the table, drawn last */
};

static const struct table_source *shown(const struct declared_view *d)
{
	return d->which ? d->first->other : d->first;
}

static const void *row_at(const void *ctx, size_t i)
{
	const struct declared_view *d = ctx;

	return (const char *)d->rows + i * shown(d)->row_size;
}

static void declared_items(struct browser *b, const struct browser_item *parent)
{
	const struct declared_view *d = b->ctx;

	(void)parent;
	for (size_t k = 0; k < d->n; k++) {
		size_t i = view_sorted_row(&d->sort[d->which], k);

		browser_add(b, shown(d)->id(row_at(d, i)), i, false);
	}
}

static bool declared_match(struct browser *b, const struct browser_item *it, const char *needle)
{
	const struct declared_view *d = b->ctx;

	return shown(d)->match(d->v.ui, row_at(d, it->ref), needle);
}

static int declared_write(struct browser *b, const struct browser_item *it, char *line,
			  size_t len, int cols)
{
	const struct declared_view *d = b->ctx;

	(void)cols;
	table_row(shown(d)->table, &d->sort[d->which].shown, row_at(d, it->ref),
		  session_tables(d->v.ui->s), line, len);
	return TH_ROW;
}

static void declared_title(struct browser *b, char *line, size_t len, int cols)
{
	const struct declared_view *d = b->ctx;

	(void)cols;
	table_title(shown(d)->table, &d->sort[d->which].shown, line, len);
	if (shown(d)->title_more)
		shown(d)->title_more(d->v.ui, line + strlen(line), len - strlen(line));
}

static const struct browser_ops declared_browser = {
	.items = declared_items,
	.write = declared_write,
	.match = declared_match,
	.title = declared_title,
};

static void declared_refresh(struct view *v)
{
	struct declared_view *d = (struct declared_view *)v;
	const struct table_source *src = shown(d);
	struct view_sorting *sort = &d->sort[d->which];

	d->n = src->query(v->ui, &d->state, &d->rows);
	view_sort_order(sort, src->table, d->n, row_at, d, session_tables(v->ui->s));
	d->empty = src->hide_empty ? table_empty_columns(src->table, d->n, row_at, d,
							 session_tables(v->ui->s)) : 0;
	browser_rebuild(&d->rows_shown);
}

static void declared_draw(struct view *v, WINDOW *w)
{
	struct declared_view *d = (struct declared_view *)v;
	const char *notice = shown(d)->notice ? shown(d)->notice(v->ui) : NULL;
	int lines = getmaxy(w), cols = getmaxx(w);

	d->sort[d->which].shown.screen = cols;
	/* Hidden: what F2 hid (it may have just now), and the empty columns. */
	d->sort[d->which].shown.hidden = d->empty |
		settings_table_hidden(&v->ui->settings, shown(d)->table);
	d->noticed = notice != NULL;
	if (notice)
		draw_text(w, 0, 0, cols, v->ui->attr[TH_WARNING], notice);
	browser_draw(&d->rows_shown, w, d->noticed, 0, cols, lines - d->noticed, true,
		     v->ui->attr);
}

/* The footer's name, keys and scope: the shown source's. */
static void take_ops(struct declared_view *d)
{
	d->ops.name = shown(d)->name;
	d->ops.actions = shown(d)->actions;
	d->ops.scope = shown(d)->scope;
	d->ops.as_of_requery = !shown(d)->live;
}

static enum view_reaction declared_key(struct view *v, int code, enum ui_action a)
{
	struct declared_view *d = (struct declared_view *)v;
	const struct table_source *src = shown(d);
	const struct browser_item *sel;

	if (view_browse(v, &d->rows_shown, code, a) != VIEW_IGNORED)
		return VIEW_REDRAW;
	if (view_sort_key(&d->sort[d->which], src->table, a) != VIEW_IGNORED)
		return VIEW_REQUERY;
	if (a == UA_BACK || a == src->key)
		return VIEW_POP;
	if (src->other && a == src->toggle) {
		d->which = !d->which;
		take_ops(d);
		browser_forget_selection(&d->rows_shown);
		return VIEW_REQUERY;
	}
	if ((a == UA_OPEN || a == UA_RIGHT) && src->open) {
		sel = browser_selected(&d->rows_shown);
		return sel ? src->open(v, d->state, row_at(d, sel->ref)) : VIEW_REDRAW;
	}
	return VIEW_IGNORED;
}

/* A click on a title sorts by its column (again: inverts); on a row selects it. */
static enum view_reaction declared_click(struct view *v, int y, int x, bool twice)
{
	struct declared_view *d = (struct declared_view *)v;

	(void)twice;
	if (d->noticed && y-- == 0)
		return VIEW_IGNORED;
	return view_sort_click(&d->sort[d->which], shown(d)->table, &d->rows_shown, y, x);
}

static void declared_destroy(struct view *v)
{
	struct declared_view *d = (struct declared_view *)v;

	browser_free(&d->rows_shown);
	view_sorting_free(&d->sort[0]);
	view_sorting_free(&d->sort[1]);
	if (d->first->forget)
		d->first->forget(d->state);
	free(v);
}

struct view *declared_view_create(struct ui *ui, const struct table_source *src)
{
	static const struct view_ops base = {
		.requery = declared_refresh,
		.draw = declared_draw,
		.key = declared_key,
		.click = declared_click,
		.destroy = declared_destroy,
	};
	struct declared_view *d = view_new(sizeof(*d), &base, ui);

	d->ops = base;
	d->v.ops = &d->ops;
	d->first = src;
	take_ops(d);
	d->sort[0].shown.col = d->sort[1].shown.col = -1;	/* the source's order */
	browser_init(&d->rows_shown, &declared_browser, d, src->noun, false);
	d->v.browser = &d->rows_shown;
	return &d->v;
}
