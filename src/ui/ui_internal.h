/*
 * ui_internal.h - what the views share: the session, the theme's
 * attributes, the windows and the view stack (ui.c runs them).
 */
#ifndef SHIMTOP_UI_INTERNAL_H
#define SHIMTOP_UI_INTERNAL_H

#include <curses.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "session/options.h"
#include "ui/settings.h"
#include "ui/theme.h"
#include "ui/browser.h"
#include "ui/view.h"

struct session;

#define UI_MIN_COLS	40
#define UI_MIN_LINES	10
#define UI_HEADER_LINES	4
#define UI_MAX_DEPTH	8
#define UI_MAX_STRIPS	4

struct ui {
	struct session *s;
	struct theme theme;
	chtype attr[TH_COUNT];
	bool utf8;			/* the locale can show block glyphs */
	FILE *tty;			/* /dev/tty, drawn on when stdout is redirected */
	SCREEN *screen;			/* ... through this screen */

	struct st_sort sort;		/* shared by the table views */
	bool invert;
	bool zero_each;			/* z: the table holds one refresh interval */
	bool paused;			/* Z: the tables are not refreshed */
	double delay;			/* refresh interval, seconds */
	struct ui_settings settings;	/* F2's, as read at start or set since */
	char settings_path[4096];	/* "" when there is nowhere to keep them */

	struct view *stack[UI_MAX_DEPTH];
	int depth;
	struct view *strips[UI_MAX_STRIPS];	/* above the top view */
	int strip_lines[UI_MAX_STRIPS];
	int nstrips;

	WINDOW *strip_win[UI_MAX_STRIPS];
	WINDOW *body, *footer;
	char message[256];		/* one-shot footer message */
	uint64_t message_until;		/* st_now_ns() it goes at (0: at the next key) */
	bool output_cut_said;		/* the command's output file was first cut: said */
	/* s that could not write: where to, asked in the footer. */
	struct prompt snapshot_path;
	char snapshot_question[160];
	int footer_cursor;		/* the column the typed path ends at */
};

/* Turns theme styles into curses attributes (after start_color). */
void ui_theme_apply(struct ui *ui);

/* Sorts the table views by key first (F6, < >, a click on a title). */
void ui_set_sort(struct ui *ui, enum st_sort_key key);

/* The sort keys < > and F6 offer here (comm/pid only when rows split). */
bool ui_sort_offered(const struct ui *ui, enum st_sort_key key);

/* Applies ui->settings now: theme, columns, header height, refresh. */
void ui_apply_settings(struct ui *ui);

/* The symbol table's columns as the setup hides them, with the session's events and IBS. */
struct column_set;
void ui_columns(const struct ui *ui, struct column_set *cs);

/* Writes ui->settings to the file; the footer says where, or why not. */
void ui_save_settings(struct ui *ui);

/* Draws the footer: a view's status line, a message, or its keys. */
void ui_draw_footer(struct ui *ui, WINDOW *w, struct view *top);

#endif
