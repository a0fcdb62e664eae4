/*
 * help.c - the help view (F1): the key table, then what the header says;
 * its lines wrap to the terminal's width (a key's description under
 * itself), it scrolls when the terminal is shorter than it, and /
 * searches it.
 */
#include "ui/browser.h"
#include "ui/draw.h"
#include "ui/ui_internal.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const notes[] = {
	"",
	"Header: threads live (and seen), samples (live; '(N shown)': the",
	"table's, as of its last refresh), samples/s, lost (by the",
	"kernel), dropped (by shimtop's ring), unknown (samples no symbol",
	"explains). Line 4: caveats, e.g. a missing hardware PMU, or that the",
	"target has exited. IPC shows '-' where no cycle and instruction",
	"counts exist.",
};

#define HELP_MAX_LINES 96
#define KEY_COLUMN 25		/* where a key's description starts */

struct help_view {
	struct view v;
	struct browser text;	/* an item a screen line */
	const char *lines[HELP_MAX_LINES];
	unsigned n;
	char **shown;		/* the lines wrapped to the window's width */
	size_t nshown;
	int width;		/* ... this wide */
};

/* Wraps the lines to `width` columns; a key's description goes on under itself. */
static void wrap_lines(struct help_view *h, int width)
{
	for (size_t i = 0; i < h->nshown; i++)
		free(h->shown[i]);
	h->nshown = 0;
	for (unsigned i = 0; i < h->n; i++) {
		const char *at = h->lines[i], *next;
		int indent = !strncmp(at, "  ", 2) && width > 2 * KEY_COLUMN ? KEY_COLUMN : 0;
		bool first = true;

		do {
			int room = first ? width : width - indent;
			size_t len = draw_wrap(at, room, &next);
			char *line;

			h->shown = st_xrealloc(h->shown, (h->nshown + 1) * sizeof(*h->shown));
			line = st_xcalloc(1, (size_t)indent + len + 1);
			snprintf(line, (size_t)indent + len + 1, "%*s%.*s", first ? 0 : indent, "",
				 (int)len, at);
			h->shown[h->nshown++] = line;
			at = next;
			first = false;
		} while (*at);
	}
	h->width = width;
}

static void help_items(struct browser *b, const struct browser_item *parent)
{
	const struct help_view *h = b->ctx;

	(void)parent;
	for (size_t i = 0; i < h->nshown; i++)
		browser_add(b, i, i, false);
}

static bool help_match(struct browser *b, const struct browser_item *it, const char *needle)
{
	const struct help_view *h = b->ctx;

	return strcasestr(h->shown[it->ref], needle) != NULL;
}

static int help_write(struct browser *b, const struct browser_item *it, char *line, size_t len,
		      int cols)
{
	const struct help_view *h = b->ctx;

	(void)cols;
	snprintf(line, len, "%s", h->shown[it->ref]);
	return it->ref == 0 ? TH_COLUMNS : TH_ROW;
}

static const struct browser_ops help_browser = {
	.items = help_items,
	.write = help_write,
	.match = help_match,
};

static void help_draw(struct view *v, WINDOW *w)
{
	struct help_view *h = (struct help_view *)v;
	int rows = getmaxy(w), cols = getmaxx(w);
	int shown;

	if (cols != h->width) {
		wrap_lines(h, cols);
		browser_rebuild(&h->text);
	}
	/* The last row says there is more, when there is. */
	shown = (int)h->nshown > rows ? rows - 1 : rows;
	browser_draw(&h->text, w, 0, 0, cols, shown, true, v->ui->attr);
	if (shown < rows)
		draw_text(w, rows - 1, 0, cols, v->ui->attr[TH_KEY_LABEL],
			  h->text.top + (size_t)shown < h->nshown
			  ? "-- more: Down, PgDn, / searches; any other key returns --"
			  : "-- end: Up, PgUp, / searches; any other key returns --");
}

/* Up, Down, PgUp, PgDn (Space) scroll, / searches; any other key returns. */
static enum view_reaction help_key(struct view *v, int code, enum ui_action a)
{
	struct help_view *h = (struct help_view *)v;

	if (view_browse(v, &h->text, code, a) != VIEW_IGNORED)
		return VIEW_REDRAW;
	return VIEW_POP;
}

static void help_destroy(struct view *v)
{
	struct help_view *h = (struct help_view *)v;

	browser_free(&h->text);
	for (size_t i = 0; i < h->nshown; i++)
		free(h->shown[i]);
	free(h->shown);
	free(v);
}

static const struct view_ops help_ops = {
	.name = "help",
	.draw = help_draw,
	.key = help_key,
	.destroy = help_destroy,
	.actions = view_no_actions,
	.full_screen = true,
};

struct view *help_view_create(struct ui *ui)
{
	struct help_view *h = view_new(sizeof(*h), &help_ops, ui);

	h->n = ui_help_lines(h->lines, HELP_MAX_LINES - sizeof(notes) / sizeof(notes[0]));
	for (size_t i = 0; i < sizeof(notes) / sizeof(notes[0]); i++)
		h->lines[h->n++] = notes[i];
	browser_init(&h->text, &help_browser, h, "line", false);
	h->text.pager = true;
	h->v.browser = &h->text;
	wrap_lines(h, 80);	/* again at the window's width when drawn */
	browser_rebuild(&h->text);
	return &h->v;
}
