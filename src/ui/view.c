/* view.c - what every view needs (see view.h). */
#include "ui/view.h"
#include "ui/browser.h"
#include "ui/ui_internal.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>

const enum ui_action view_no_actions[] = { UA_NONE };

void *view_new(size_t size, const struct view_ops *ops, struct ui *ui)
{
	struct view *v = st_xcalloc(1, size);

	v->ops = ops;
	v->ui = ui;
	return v;
}

void view_free(struct view *v)
{
	free(v);
}

enum view_reaction view_browse(struct view *v, struct browser *b, int code, enum ui_action a)
{
	bool prompt = b->search.active || b->filter.active;

	if (browser_key(b, code, a) != BROWSER_MOVED)
		return VIEW_IGNORED;
	if (!prompt && a == UA_SEARCH_NEXT && b->search_failed)
		snprintf(v->ui->message, sizeof(v->ui->message), "no %s matches '%.100s'", b->noun,
			 b->search.text);
	return VIEW_REDRAW;
}

enum view_reaction view_sort_key(struct view_sorting *s, const struct table_def *t,
				 enum ui_action a)
{
	switch (a) {
	case UA_SORT_NEXT:
	case UA_SORT_PREV:
		s->shown.col = table_column_step(t, &s->shown, s->shown.col,
						 a == UA_SORT_NEXT ? 1 : -1);
		return VIEW_REQUERY;
	case UA_INVERT:
		s->shown.invert = !s->shown.invert;
		return VIEW_REQUERY;
	default:
		return VIEW_IGNORED;
	}
}

enum view_reaction view_sort_click(struct view_sorting *s, const struct table_def *t,
				   struct browser *b, int y, int x)
{
	int col;

	if (y > 0) {
		browser_click(b, y - 1);
		return VIEW_REDRAW;
	}
	col = table_column_at(t, &s->shown, x);
	if (col < 0)
		return VIEW_IGNORED;
	if (col == s->shown.col)
		s->shown.invert = !s->shown.invert;
	else
		s->shown.col = col, s->shown.invert = false;
	return VIEW_REQUERY;
}

void view_sort_order(struct view_sorting *s, const struct table_def *t, size_t n,
		     const void *(*row_at)(const void *ctx, size_t i), const void *ctx,
		     const struct model *m)
{
	free(s->order);
	s->order = table_order(t, &s->shown, n, row_at, ctx, m);
	s->n = n;
}

size_t view_sorted_row(const struct view_sorting *s, size_t k)
{
	if (s->order && k < s->n)
		return s->order[k];
	/* The model's order, the other way round. */
	return s->shown.col < 0 && s->shown.invert && k < s->n ? s->n - 1 - k : k;
}

void view_sorting_free(struct view_sorting *s)
{
	free(s->order);
	s->order = NULL;
	s->n = 0;
}
