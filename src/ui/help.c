/* help.c - the help view (F1): the key table, then what the header says. */
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

static void help_draw(struct view *v, WINDOW *w)
{
	const char *lines[64];
	unsigned n = ui_help_lines(lines, 64 - sizeof(notes) / sizeof(notes[0]));
	int rows = getmaxy(w), cols = getmaxx(w);

	for (size_t i = 0; i < sizeof(notes) / sizeof(notes[0]); i++)
		lines[n++] = notes[i];
	for (int y = 0; y < rows; y++)
		draw_text(w, y, 0, cols, y == 0 ? v->ui->attr[TH_COLUMNS]
			  : v->ui->attr[TH_ROW], y < (int)n ? lines[y] : "");
}

/* Any key returns. */
static enum view_reaction help_key(struct view *v, int code, enum ui_action a)
{
	(void)v;
	(void)code;
	(void)a;
	return VIEW_POP;
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
	return view_new(sizeof(struct view), &help_ops, ui);
}
