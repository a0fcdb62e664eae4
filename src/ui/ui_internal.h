/*
 * ui_internal.h - state shared by the UI's drawing files (header.c,
 * table.c, help.c) and its loop (ui.c).
 */
#ifndef SHIMTOP_UI_INTERNAL_H
#define SHIMTOP_UI_INTERNAL_H

#include <curses.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/model.h"
#include "options.h"
#include "ui/theme.h"

struct session;

#define UI_MIN_COLS	40
#define UI_MIN_LINES	10
#define UI_HEADER_LINES	4

struct ui {
	struct session *s;
	struct theme theme;
	chtype attr[TH_COUNT];

	enum st_sort_key sort;
	bool invert;
	struct model_row *rows;
	size_t nrows;
	size_t selected;	/* index into rows */
	size_t top;		/* first row shown */
	uint32_t selected_id;	/* the symbol kept selected across refreshes */
	bool have_selection;

	bool searching;		/* typing into the search prompt */
	char search[64];
	bool search_failed;

	bool help;
	char message[128];	/* one-shot footer message */
};

/* Turns theme styles into curses attributes (after start_color). */
void ui_theme_apply(struct ui *ui);

void ui_draw_header(struct ui *ui);
void ui_draw_table(struct ui *ui);
void ui_draw_footer(struct ui *ui);
void ui_draw_help(struct ui *ui);

/* Rows the table can show at the current size. */
int ui_table_height(void);

/* Moves the selection, keeping it visible. */
void ui_select(struct ui *ui, long index);

/* Finds the next row (from `from`) whose symbol contains the search. */
bool ui_search_from(struct ui *ui, size_t from);

/* Puts at most `width` columns of s at (y, x), padding with spaces. */
void ui_put(int y, int x, int width, chtype attr, const char *s);

#endif
