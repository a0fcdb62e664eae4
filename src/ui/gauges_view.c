/*
 * gauges.c - the gauges view (3): how far the numbers can be trusted, a
 * line a gauge (output/gauges.c), bad ones in the warning colour with
 * what to do.  What a gauge means sits beside it where the terminal is
 * wide enough, wrapped under itself, else on lines of its own under the
 * gauge; the view scrolls as help does.
 */
#include "output/gauges.h"
#include "session/session.h"
#include "ui/browser.h"
#include "ui/draw.h"
#include "ui/ui_internal.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BAR_COLS 12
#define VALUE_COLS 30
#define BAR_AT (9 + 1 + 14 + 1 + VALUE_COLS + 1)	/* source, gauge, value */
#define MEANING_AT (BAR_AT + BAR_COLS + 1)
#define MEANING_MIN 40		/* narrower than this beside the gauge: under it */
#define UNDER_AT 25		/* where the meaning starts under a gauge: under its value */

struct gauge_line {
	char text[512];
	enum theme_element attr;
};

struct gauges_view {
	struct view v;
	struct browser text;	/* an item a line, laid out at every draw */
	struct gauge_line *lines;
	size_t n, cap;
};

static struct gauge_line *add_line(struct gauges_view *g, enum theme_element attr)
{
	ST_GROW(g->lines, g->cap, g->n + 1);
	g->lines[g->n].attr = attr;
	g->lines[g->n].text[0] = '\0';
	return &g->lines[g->n++];
}

/* The meaning from `at` on, wrapped in the columns from `indent` to `cols`. */
static void add_meaning(struct gauges_view *g, const char *at, int indent, int cols,
			enum theme_element attr)
{
	while (*at) {
		const char *next;
		size_t len = draw_wrap(at, cols - indent, &next);

		snprintf(add_line(g, attr)->text, sizeof(g->lines[0].text), "%*s%.*s", indent, "",
			 (int)len, at);
		at = next;
	}
}

/* A bar's columns: its characters (a glyph each). */
static int bar_columns(const char *bar)
{
	int n = 0;

	for (; *bar; bar++)
		n += ((unsigned char)*bar & 0xc0) != 0x80;
	return n;
}

static void lay_out(struct gauges_view *gv, int cols, bool utf8)
{
	struct gauge g[GAUGES_MAX];
	size_t n = gauges_collect(gv->v.ui->s, g);
	bool beside = cols >= MEANING_AT + MEANING_MIN;
	const char *source = "";

	gv->n = 0;
	for (size_t i = 0; i < n; i++) {
		enum theme_element attr = g[i].bad ? TH_WARNING : TH_ROW;
		char bar[BAR_COLS * 4 + 1];
		const char *rest = g[i].meaning;
		struct gauge_line *l;

		if (strcmp(source, g[i].source)) {
			/* A title per source, with a blank line before the second. */
			if (i)
				add_line(gv, TH_ROW);
			source = g[i].source;
			snprintf(add_line(gv, TH_COLUMNS)->text, sizeof(gv->lines[0].text),
				 "%-9s %-14s %-*s %-*s %s", source, "gauge", VALUE_COLS, "value",
				 BAR_COLS, "", beside ? "what it means" : "");
		}
		/* The bar padded to BAR_COLS columns after ASCII cells: the meaning aligns. */
		draw_bar(bar, sizeof(bar), g[i].fill >= 0 ? g[i].fill : 0, BAR_COLS, utf8);
		for (int c = bar_columns(bar); c < BAR_COLS; c++)
			strcat(bar, " ");
		l = add_line(gv, attr);
		snprintf(l->text, sizeof(l->text), "%-9s %-14s %-*.*s %s", "", g[i].name,
			 VALUE_COLS, VALUE_COLS, g[i].value, bar);
		if (beside) {
			const char *next;
			size_t len = draw_wrap(rest, cols - MEANING_AT, &next);
			size_t at = strlen(l->text);

			snprintf(l->text + at, sizeof(l->text) - at, " %.*s", (int)len, rest);
			add_meaning(gv, next, MEANING_AT, cols, attr);
		} else {
			add_meaning(gv, rest, UNDER_AT, cols, attr);
		}
	}
}

static void gauges_items(struct browser *b, const struct browser_item *parent)
{
	const struct gauges_view *g = b->ctx;

	(void)parent;
	for (size_t i = 0; i < g->n; i++)
		browser_add(b, i, i, false);
}

static int gauges_write(struct browser *b, const struct browser_item *it, char *line,
			size_t len, int cols)
{
	const struct gauges_view *g = b->ctx;

	(void)cols;
	snprintf(line, len, "%s", g->lines[it->ref].text);
	return (int)g->lines[it->ref].attr;
}

static bool gauges_match(struct browser *b, const struct browser_item *it, const char *needle)
{
	const struct gauges_view *g = b->ctx;

	return strcasestr(g->lines[it->ref].text, needle) != NULL;
}

static const struct browser_ops gauges_browser = {
	.items = gauges_items,
	.write = gauges_write,
	.match = gauges_match,
};

static void gauges_draw(struct view *v, WINDOW *w)
{
	struct gauges_view *g = (struct gauges_view *)v;

	/* The gauges move with every sample: laid out again at each draw. */
	lay_out(g, getmaxx(w), v->ui->utf8);
	browser_rebuild(&g->text);
	browser_draw(&g->text, w, 0, 0, getmaxx(w), getmaxy(w), true, v->ui->attr);
}

static enum view_reaction gauges_key(struct view *v, int code, enum ui_action a)
{
	struct gauges_view *g = (struct gauges_view *)v;

	return view_browse(v, &g->text, code, a) != VIEW_IGNORED ? VIEW_REDRAW : VIEW_IGNORED;
}

static void gauges_destroy(struct view *v)
{
	struct gauges_view *g = (struct gauges_view *)v;

	browser_free(&g->text);
	free(g->lines);
	free(v);
}

static const enum ui_action gauges_actions[] = {
	UA_HELP, UA_VIEW_NEXT, UA_QUIT, UA_NONE,
};

static const struct view_ops gauges_ops = {
	.name = "gauges",
	.draw = gauges_draw,
	.key = gauges_key,
	.destroy = gauges_destroy,
	.actions = gauges_actions,
};

struct view *gauges_view_create(struct ui *ui)
{
	struct gauges_view *g = view_new(sizeof(*g), &gauges_ops, ui);

	browser_init(&g->text, &gauges_browser, g, "line", false);
	g->text.pager = true;
	g->v.browser = &g->text;
	return &g->v;
}
