/*
 * help.c - the help view (F1): the key table, then what the header says;
 * it scrolls when the terminal is shorter than it.
 */
#include "ui/draw.h"
#include "ui/ui_internal.h"
#include "util.h"

#include <stdlib.h>

static const char *const notes[] = {
	"",
	"Header: threads live (and seen), samples, samples/s, lost (by the",
	"kernel), dropped (by shimtop's ring), unknown (samples no symbol",
	"explains). Line 4: caveats, e.g. a missing hardware PMU, or that the",
	"target has exited. IPC shows '-' where no cycle and instruction",
	"counts exist.",
};

struct help_view {
	struct view v;
	int top;		/* the first line shown */
	int max_top;		/* at the last draw */
};

static void help_draw(struct view *v, WINDOW *w)
{
	struct help_view *h = (struct help_view *)v;
	const char *lines[96];
	unsigned n = ui_help_lines(lines, 96 - sizeof(notes) / sizeof(notes[0]));
	int rows = getmaxy(w), cols = getmaxx(w), shown;

	for (size_t i = 0; i < sizeof(notes) / sizeof(notes[0]); i++)
		lines[n++] = notes[i];
	/* The last row says there is more, when there is. */
	shown = (int)n > rows ? rows - 1 : rows;
	h->max_top = (int)n > shown ? (int)n - shown : 0;
	if (h->top > h->max_top)
		h->top = h->max_top;
	for (int y = 0; y < shown; y++) {
		int i = h->top + y;

		draw_text(w, y, 0, cols, i == 0 ? v->ui->attr[TH_COLUMNS]
			  : v->ui->attr[TH_ROW], i < (int)n ? lines[i] : "");
	}
	if (shown < rows)
		draw_text(w, rows - 1, 0, cols, v->ui->attr[TH_KEY_LABEL],
			  h->top < h->max_top ? "-- more: Down, PgDn; any other key returns --"
					      : "-- end: Up, PgUp; any other key returns --");
}

/* Up, Down, PgUp, PgDn (Space) scroll; any other key returns. */
static enum view_reaction help_key(struct view *v, int code, enum ui_action a)
{
	struct help_view *h = (struct help_view *)v;
	int page = getmaxy(stdscr) - 2;

	(void)code;
	switch (a) {
	case UA_DOWN:
		h->top++;
		return VIEW_REDRAW;
	case UA_UP:
		h->top -= h->top > 0;
		return VIEW_REDRAW;
	case UA_PAGE_DOWN:
		h->top += page > 1 ? page : 1;
		return VIEW_REDRAW;
	case UA_PAGE_UP:
		h->top = h->top > page ? h->top - page : 0;
		return VIEW_REDRAW;
	default:
		return VIEW_POP;
	}
}

static const struct view_ops help_ops = {
	.name = "help",
	.draw = help_draw,
	.key = help_key,
	.destroy = view_free,
	.actions = view_no_actions,
	.full_screen = true,
};

struct view *help_view_create(struct ui *ui)
{
	return view_new(sizeof(struct help_view), &help_ops, ui);
}
