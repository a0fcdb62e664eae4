/*
 * pages.c - the hot data pages view (M): the pages IBS saw loads and
 * stores touch, most data cache misses first, with their miss latency
 * and the functions touching them (HOP's page table, 004 Ch. 5).  Without
 * IBS samples it says so and how to get them.
 */
#include "model/model.h"
#include "output/report.h"
#include "session.h"
#include "ui/draw.h"
#include "ui/list.h"
#include "ui/ui_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

struct pages_view {
	struct view v;
	struct list list;
	const struct ibs_page **pages;
	size_t n;
	char syms[256];
};

static uint64_t page_id(void *ctx, size_t i)
{
	return ((struct pages_view *)ctx)->pages[i]->key.base;
}

static const char *page_text(void *ctx, size_t i)
{
	struct pages_view *p = ctx;

	report_ibs_page_symbols(&p->v.ui->s->model, p->pages[i], p->syms, sizeof(p->syms));
	return p->syms;
}

static void pages_refresh(struct view *v)
{
	struct pages_view *p = (struct pages_view *)v;

	free(p->pages);
	p->n = p->list.n = ibs_model_pages(&v->ui->s->model.ibs, &p->pages);
	list_refreshed(&p->list);
}

static void pages_draw(struct view *v, WINDOW *w)
{
	struct pages_view *p = (struct pages_view *)v;
	const struct ui *ui = v->ui;
	const struct ibs_model *im = &ui->s->model.ibs;
	int lines, cols;
	char line[512], syms[256];

	getmaxyx(w, lines, cols);
	p->list.height = lines - 1;
	list_select(&p->list, (long)p->list.selected);
	snprintf(line, sizeof(line), "%7s %-18s %5s %7s %7s %7s %6s  %s", "PID", "PAGE", "SIZE",
		 "LOADS", "STORES", "MISSES", "LAT", "SYMBOLS");
	draw_text(w, 0, 0, cols, ui->attr[TH_COLUMNS], line);
	if (!ibs_model_active(im)) {
		draw_text(w, 1, 0, cols, ui->attr[TH_WARNING],
			  "no IBS samples: data pages come from AMD IBS (shimtop --ibs on bare "
			  "metal, or -i a recording made with it)");
		for (int r = 2; r < lines; r++)
			draw_text(w, r, 0, cols, ui->attr[TH_ROW], "");
		return;
	}
	for (int r = 0; r < lines - 1; r++) {
		size_t i = p->list.top + (size_t)r;
		const struct ibs_page *pg;

		if (i >= p->n) {
			draw_text(w, 1 + r, 0, cols, ui->attr[TH_ROW], "");
			continue;
		}
		pg = p->pages[i];
		report_ibs_page_symbols(&ui->s->model, pg, syms, sizeof(syms));
		snprintf(line, sizeof(line), "%7d %#-18" PRIx64 " %4" PRIu64 "%c %7" PRIu64
			 " %7" PRIu64 " %7" PRIu64 " %6.0f  %s", (int)pg->key.pid, pg->key.base,
			 pg->size >= 1u << 30 ? pg->size >> 30 : pg->size >= 1u << 20
			 ? pg->size >> 20 : pg->size >> 10,
			 pg->size >= 1u << 30 ? 'G' : pg->size >= 1u << 20 ? 'M' : 'K', pg->loads,
			 pg->stores, pg->dc_misses,
			 pg->lat_n ? (double)pg->lat_sum / (double)pg->lat_n : 0.0, syms);
		draw_text(w, 1 + r, 0, cols, i == p->list.selected ? ui->attr[TH_SELECTED]
			  : ui->attr[TH_ROW], line);
	}
}

static enum view_reaction pages_key(struct view *v, int code, enum ui_action a)
{
	struct pages_view *p = (struct pages_view *)v;

	if (list_key(&p->list, code, a) == LIST_MOVED)
		return VIEW_REDRAW;
	switch (a) {
	case UA_BACK:
	case UA_PAGES:
		return VIEW_POP;
	default:
		return VIEW_IGNORED;
	}
}

static void pages_destroy(struct view *v)
{
	free(((struct pages_view *)v)->pages);
	free(v);
}

static const enum ui_action pages_actions[] = {
	UA_HELP, UA_PAGES, UA_BACK, UA_ZERO, UA_QUIT, UA_NONE,
};

static const struct view_ops pages_ops = {
	.name = "pages",
	.requery = pages_refresh,
	.draw = pages_draw,
	.key = pages_key,
	.destroy = pages_destroy,
	.actions = pages_actions,
};

struct view *pages_view_create(struct ui *ui)
{
	struct pages_view *p = view_new(sizeof(*p), &pages_ops, ui);

	p->list.id = page_id;
	p->list.text = page_text;
	p->list.ctx = p;
	return &p->v;
}
