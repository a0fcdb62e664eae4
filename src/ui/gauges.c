/*
 * gauges.c - the gauges view (3): how far the numbers can be trusted, a
 * line a gauge (output/gauges.c), bad ones in the warning colour with
 * what to do.
 */
#include "output/gauges.h"
#include "session.h"
#include "ui/draw.h"
#include "ui/ui_internal.h"

#include <stdio.h>
#include <string.h>

#define BAR_COLS 12
#define VALUE_COLS 30
#define BAR_AT (9 + 1 + 14 + 1 + VALUE_COLS + 1)	/* source, gauge, value */

static void gauges_draw(struct view *v, WINDOW *w)
{
	const struct ui *ui = v->ui;
	struct gauge g[GAUGES_MAX];
	size_t n = gauges_collect(ui->s, g);
	int lines = getmaxy(w), cols = getmaxx(w), y = 0;
	const char *source = "";

	for (size_t i = 0; i < n && y < lines; i++) {
		char bar[BAR_COLS * 4 + 1], line[512];

		if (strcmp(source, g[i].source)) {
			/* A title per source, with a blank line before the second. */
			if (i && y < lines - 1)
				draw_text(w, y++, 0, cols, ui->attr[TH_ROW], "");
			source = g[i].source;
			snprintf(line, sizeof(line), "%-9s %-14s %-*s %-*s %s", source, "gauge",
				 VALUE_COLS, "value", BAR_COLS, "", "what it means");
			draw_text(w, y++, 0, cols, ui->attr[TH_COLUMNS], line);
		}
		if (g[i].fill >= 0)
			draw_bar(bar, sizeof(bar), g[i].fill, BAR_COLS, ui->utf8);
		else
			bar[0] = '\0';
		snprintf(line, sizeof(line), "%-9s %-14s %-*.*s %-*s %s", "", g[i].name,
			 VALUE_COLS, VALUE_COLS, g[i].value, BAR_COLS, "", g[i].meaning);
		draw_text(w, y, 0, cols, g[i].bad ? ui->attr[TH_WARNING] : ui->attr[TH_ROW], line);
		/* The bar over its blank cells, so glyphs keep their width. */
		draw_text(w, y++, BAR_AT, BAR_COLS, ui->attr[TH_VALUE], bar);
	}
	while (y < lines)
		draw_text(w, y++, 0, cols, ui->attr[TH_ROW], "");
}

static const enum ui_action gauges_actions[] = {
	UA_HELP, UA_VIEW_NEXT, UA_QUIT, UA_NONE,
};

static const struct view_ops gauges_ops = {
	.name = "gauges",
	.draw = gauges_draw,
	.destroy = view_free,
	.actions = gauges_actions,
};

struct view *gauges_view_create(struct ui *ui)
{
	return view_new(sizeof(struct view), &gauges_ops, ui);
}
