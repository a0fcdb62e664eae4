/*
 * pages.c - the hot data pages view (M): the pages IBS saw loads and
 * stores touch, most data cache misses first, with their miss latency
 * and the functions touching them (HOP's page table, 004 Ch. 5).  Without
 * IBS samples it says so and how to get them.
 */
#include "model/model.h"
#include "output/tables.h"
#include "output/report.h"
#include "session.h"
#include "ui/draw.h"
#include "ui/browser.h"
#include "ui/ui_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pages_view {
	struct view v;
	struct browser rows_shown;
	struct ibs_page *pages;
	size_t n;
	struct view_sorting sort;
};

static const void *page_at(const void *ctx, size_t i)
{
	return &((const struct pages_view *)ctx)->pages[i];
}

static void pages_items(struct browser *b, const struct browser_item *parent)
{
	const struct pages_view *p = b->ctx;

	(void)parent;
	for (size_t k = 0; k < p->n; k++) {
		size_t i = view_sorted_row(&p->sort, k);

		browser_add(b, p->pages[i].key.base, i, false);
	}
}

static bool pages_match(struct browser *b, const struct browser_item *it, const char *needle)
{
	const struct pages_view *p = b->ctx;
	char syms[256];

	report_ibs_page_symbols(&p->v.ui->s->model, &p->pages[it->ref], syms, sizeof(syms));
	return strcasestr(syms, needle) != NULL;
}

static int pages_write(struct browser *b, const struct browser_item *it, char *line,
		       size_t len, int cols)
{
	const struct pages_view *p = b->ctx;

	(void)cols;
	table_row(&page_table, &p->sort.shown, &p->pages[it->ref], &p->v.ui->s->model, line, len);
	return TH_ROW;
}

static void pages_title(struct browser *b, char *line, size_t len, int cols)
{
	const struct pages_view *p = b->ctx;

	(void)cols;
	table_title(&page_table, &p->sort.shown, line, len);
}

static const struct browser_ops pages_browser = {
	.items = pages_items,
	.write = pages_write,
	.match = pages_match,
	.title = pages_title,
};

static void pages_refresh(struct view *v)
{
	struct pages_view *p = (struct pages_view *)v;

	free(p->pages);
	p->n = ibs_model_pages(&v->ui->s->model.ibs, &p->pages);
	view_sort_order(&p->sort, &page_table, p->n, page_at, p, &v->ui->s->model);
	browser_rebuild(&p->rows_shown);
}

static void pages_draw(struct view *v, WINDOW *w)
{
	struct pages_view *p = (struct pages_view *)v;
	const struct ui *ui = v->ui;
	int lines = getmaxy(w), cols = getmaxx(w);

	if (ibs_model_active(&ui->s->model.ibs)) {
		browser_draw(&p->rows_shown, w, 0, 0, cols, lines, true, ui->attr);
		return;
	}
	browser_draw(&p->rows_shown, w, 0, 0, cols, 1, true, ui->attr);	/* the title */
	draw_text(w, 1, 0, cols, ui->attr[TH_WARNING],
		  "no IBS samples: data pages come from AMD IBS (shimtop --ibs on bare "
		  "metal, or -i a recording made with it)");
	for (int r = 2; r < lines; r++)
		draw_text(w, r, 0, cols, ui->attr[TH_ROW], "");
}

static enum view_reaction pages_key(struct view *v, int code, enum ui_action a)
{
	struct pages_view *p = (struct pages_view *)v;

	if (view_browse(v, &p->rows_shown, code, a) != VIEW_IGNORED)
		return VIEW_REDRAW;
	if (view_sort_key(&p->sort, &page_table, a) != VIEW_IGNORED)
		return VIEW_REQUERY;
	switch (a) {
	case UA_BACK:
	case UA_PAGES:
		return VIEW_POP;
	default:
		return VIEW_IGNORED;
	}
}

/* A click on a title sorts by its column (again: inverts); on a row selects it. */
static enum view_reaction pages_click(struct view *v, int y, int x, bool twice)
{
	struct pages_view *p = (struct pages_view *)v;

	(void)twice;
	return view_sort_click(&p->sort, &page_table, &p->rows_shown, y, x);
}

static void pages_destroy(struct view *v)
{
	struct pages_view *p = (struct pages_view *)v;

	browser_free(&p->rows_shown);
	view_sorting_free(&p->sort);
	free(p->pages);
	free(v);
}

static const enum ui_action pages_actions[] = {
	UA_HELP, UA_INVERT, UA_PAGES, UA_BACK, UA_ZERO, UA_QUIT, UA_NONE,
};

static const struct view_ops pages_ops = {
	.name = "pages",
	.requery = pages_refresh,
	.draw = pages_draw,
	.key = pages_key,
	.click = pages_click,
	.destroy = pages_destroy,
	.actions = pages_actions,
	.as_of_requery = true,
};

struct view *pages_view_create(struct ui *ui)
{
	struct pages_view *p = view_new(sizeof(*p), &pages_ops, ui);

	p->sort.shown.col = -1;	/* the model's: most misses first */
	browser_init(&p->rows_shown, &pages_browser, p, "page", false);
	p->v.browser = &p->rows_shown;
	return &p->v;
}
