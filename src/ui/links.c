/*
 * links.c - a function's callers and callees as a list (c in its
 * detail), as hotspot's caller and callee panes: each with its share of
 * the samples through the function; Enter opens that one's detail, Esc
 * returns.
 */
#include "model/cct.h"
#include "model/model.h"
#include "session/session.h"
#include "ui/browser.h"
#include "ui/draw.h"
#include "ui/ui_internal.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct link_row {
	bool caller;
	uint32_t sym;
	uint64_t samples;
	double share;		/* of the callers' sum, or of the samples through it */
};

struct links_view {
	struct view v;
	struct browser rows_shown;
	uint32_t of;
	struct link_row *rows;
	size_t n;
};

static const char *name_of(const struct links_view *l, uint32_t sym)
{
	return sym == CCT_SYM_ROOT ? "(no caller)"
				   : model_frame_name(session_whole(l->v.ui->s), sym);
}

static void links_items(struct browser *b, const struct browser_item *parent)
{
	const struct links_view *l = b->ctx;

	(void)parent;
	for (size_t i = 0; i < l->n; i++)
		browser_add(b, (uint64_t)l->rows[i].sym << 1 | l->rows[i].caller, i, false);
}

static int links_write(struct browser *b, const struct browser_item *it, char *line,
		       size_t len, int cols)
{
	const struct links_view *l = b->ctx;
	const struct link_row *r = &l->rows[it->ref];

	(void)cols;
	snprintf(line, len, "%-7s %6.2f%% %9llu  %s", r->caller ? "caller" : "callee", r->share,
		 (unsigned long long)r->samples, name_of(l, r->sym));
	return TH_ROW;
}

static bool links_match(struct browser *b, const struct browser_item *it, const char *needle)
{
	const struct links_view *l = b->ctx;

	return strcasestr(name_of(l, l->rows[it->ref].sym), needle) != NULL;
}

static void links_title(struct browser *b, char *line, size_t len, int cols)
{
	const struct links_view *l = b->ctx;

	(void)cols;
	snprintf(line, len, "%-7s %7s %9s  %s  (of %.60s; Enter: its detail)", "", "SHARE",
		 "SAMPLES", "FUNCTION", name_of(l, l->of));
}

static const struct browser_ops links_browser = {
	.items = links_items,
	.write = links_write,
	.match = links_match,
	.title = links_title,
};

static void add_links(struct links_view *l, bool caller, const struct cct_link *v, size_t n,
		      uint64_t whole)
{
	for (size_t i = 0; i < n; i++)
		l->rows[l->n++] = (struct link_row){
			caller, v[i].sym, v[i].samples,
			whole ? 100.0 * (double)v[i].samples / (double)whole : 0,
		};
}

/* Made again from the session's tree at each refresh, as the detail's line is. */
static void links_refresh(struct view *v)
{
	struct links_view *l = (struct links_view *)v;
	struct cct_link *callers, *callees;
	size_t ncallers, ncallees;
	uint64_t through, called = 0;

	session_settle(v->ui->s);
	through = model_links(session_whole(v->ui->s), &session_tables(v->ui->s)->tree, l->of,
			      &callers, &ncallers, &callees, &ncallees);
	free(l->rows);
	l->rows = st_xcalloc(ncallers + ncallees + 1, sizeof(*l->rows));
	l->n = 0;
	for (size_t i = 0; i < ncallers; i++)
		called += callers[i].samples;
	add_links(l, true, callers, ncallers, called);
	add_links(l, false, callees, ncallees, through);
	free(callers);
	free(callees);
	browser_rebuild(&l->rows_shown);
}

static void links_draw(struct view *v, WINDOW *w)
{
	struct links_view *l = (struct links_view *)v;

	browser_draw(&l->rows_shown, w, 0, 0, getmaxx(w), getmaxy(w), true, v->ui->attr);
}

static enum view_reaction links_key(struct view *v, int code, enum ui_action a)
{
	struct links_view *l = (struct links_view *)v;
	const struct browser_item *sel;

	if (view_browse(v, &l->rows_shown, code, a) != VIEW_IGNORED)
		return VIEW_REDRAW;
	switch (a) {
	case UA_BACK:
	case UA_LEFT:
		return VIEW_POP;
	case UA_OPEN:
	case UA_RIGHT:
		sel = browser_selected(&l->rows_shown);
		if (!sel || l->rows[sel->ref].sym >= CCT_SYM_BROKEN)
			return VIEW_REDRAW;
		v->next = detail_view_create(v->ui, l->rows[sel->ref].sym);
		return VIEW_PUSH;
	default:
		return VIEW_IGNORED;
	}
}

static void links_destroy(struct view *v)
{
	struct links_view *l = (struct links_view *)v;

	browser_free(&l->rows_shown);
	free(l->rows);
	free(v);
}

static const enum ui_action links_actions[] = {
	UA_HELP, UA_SEARCH, UA_OPEN, UA_BACK, UA_QUIT, UA_NONE,
};

static const struct view_ops links_ops = {
	.name = "links",
	.requery = links_refresh,
	.draw = links_draw,
	.key = links_key,
	.destroy = links_destroy,
	.actions = links_actions,
	.as_of_requery = true,
};

struct view *links_view_create(struct ui *ui, uint32_t symbol_id)
{
	struct links_view *l = view_new(sizeof(*l), &links_ops, ui);

	l->of = symbol_id;
	browser_init(&l->rows_shown, &links_browser, l, "function", false);
	l->v.browser = &l->rows_shown;
	return &l->v;
}
