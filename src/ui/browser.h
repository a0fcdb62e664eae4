/*
 * browser.h - the one widget under every view that shows rows, a list or
 * a tree.  The view says what its items are (a callback adds the items
 * under one, so trees are walked, never copied whole) and how one row
 * reads; the browser keeps the rest: the visible rows, the selection and
 * what is open (both by the item's id, so they survive rebuilds, re-sorts
 * and a tree's transforms), scrolling, search over every item (it opens
 * a match's ancestors), the filter, the title line and the one row loop.
 */
#ifndef SHIMTOP_BROWSER_H
#define SHIMTOP_BROWSER_H

#include <curses.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ui/keys.h"

#define BROWSER_NONE UINT32_MAX

/* A one-line text prompt (search, filter). */
struct prompt {
	bool active;
	char text[256];		/* a search, a filter, a path */
};

enum prompt_result {
	PROMPT_IGNORED,		/* not a key the prompt takes */
	PROMPT_EDITED,		/* the text changed */
	PROMPT_DONE,		/* Enter: keep the text, close */
	PROMPT_CANCELLED,	/* Esc: text cleared, closed */
	PROMPT_NEXT,		/* F3 while open: the next match */
};

enum prompt_result prompt_key(struct prompt *p, int code);

struct browser_item {
	uint64_t id;		/* the item's own: the same after a rebuild */
	uint64_t ref;		/* the view's handle: a row's index, a node */
	uint32_t parent;	/* its parent's index in rows, BROWSER_NONE at the top */
	uint16_t depth;		/* 0 at the top */
	bool children;		/* it has items under it */
	bool open;
};

struct browser;

struct browser_ops {
	/*
	 * Adds the items under parent (NULL: the top level) in their order,
	 * with browser_add.  A search calls it for closed items too.
	 */
	void (*items)(struct browser *b, const struct browser_item *parent);
	/* Writes it's row, cols wide; returns its theme slot (TH_ROW, TH_UNKNOWN). */
	int (*write)(struct browser *b, const struct browser_item *it, char *line, size_t len,
		     int cols);
	/* Whether it matches a search or the filter (case-insensitive, as the view reads it). */
	bool (*match)(struct browser *b, const struct browser_item *it, const char *needle);
	/* The column title, cols wide; NULL: no title line. */
	void (*title)(struct browser *b, char *line, size_t len, int cols);
	/* Whether an item the user did not open or close is open (a hot path); NULL: closed. */
	bool (*opens)(struct browser *b, const struct browser_item *it);
};

struct browser_state;

struct browser {
	const struct browser_ops *ops;
	void *ctx;			/* the view's */
	const char *noun;		/* what "no NOUN matches" names */
	bool tree;			/* + - * Left Right open and close */
	bool pager;			/* text: no selection, the keys move the top line */

	struct browser_item *rows;	/* the visible items, in order */
	size_t n, rows_cap;
	size_t selected, top;
	int height;			/* rows the window shows */
	uint64_t selected_id;
	bool have_selection;
	/*
	 * The user put the selection where it is (a key, a search, a click):
	 * it follows its item through rebuilds.  Until then it keeps its
	 * place, the top row, as perf top's does: the first rows of a session
	 * must not carry it down the list once the real leaders arrive.
	 */
	bool chosen;
	struct prompt search, filter;
	bool search_failed;
	bool placing;			/* items() is asked for the visible rows, not by a search */

	struct browser_state *states;	/* open or closed by the user, by id */
	size_t nstates, states_cap;
	struct browser_item *pending;	/* what items() added, being placed */
	size_t npending, pending_cap;
};

void browser_init(struct browser *b, const struct browser_ops *ops, void *ctx,
		  const char *noun, bool tree);
void browser_free(struct browser *b);

/* From items(): the next item under the parent being built. */
void browser_add(struct browser *b, uint64_t id, uint64_t ref, bool children);

/* An id for a tree's item: its parent's (0: the top) with its own key (a path's id). */
uint64_t browser_child_id(uint64_t parent, uint64_t key);
/* An id for a row named by text (a, then b; either NULL): it survives re-sorting. */
uint64_t browser_name_id(const char *a, const char *b);

/* Builds the visible rows again (the view's data changed); the selection stays on its id. */
void browser_rebuild(struct browser *b);

/* Another list: no selection kept, to the top. */
void browser_forget_selection(struct browser *b);

/* The selected item, NULL when there are none. */
const struct browser_item *browser_selected(const struct browser *b);

/* Moves the selection to row index (clamped), keeping it visible. */
void browser_select(struct browser *b, long index);

/* Selects the visible item of this id; false if none is. */
bool browser_select_id(struct browser *b, uint64_t id);

/*
 * Opens the items of ids[0 .. n-2] (a path from the top), rebuilds and
 * selects ids[n-1] as if the user had.
 */
void browser_reveal(struct browser *b, const uint64_t *ids, size_t n);

bool browser_is_open(const struct browser *b, const struct browser_item *it);
/* Opens or closes it by hand; rebuilds. */
void browser_set_open(struct browser *b, const struct browser_item *it, bool open);
/* Opens it and every item under it; rebuilds. */
void browser_open_all(struct browser *b, const struct browser_item *it);

/* Selects the next item from the selection (itself too if `here`) whose text has the search. */
bool browser_search(struct browser *b, bool here);

/*
 * Draws the title (if the view has one) and the rows into lines rows of
 * w at (y, x), width columns; the selection in TH_SELECTED, or marked
 * '>' in TH_SEARCH when the view's keys act elsewhere (!focused).
 */
void browser_draw(struct browser *b, WINDOW *w, int y, int x, int width, int lines,
		  bool focused, const chtype *attr);

/* A click on the drawn row r (0: the first under the title); false if no item is there. */
bool browser_click(struct browser *b, int r);

enum browser_reaction {
	BROWSER_IGNORED,	/* not a browser key: the view may take it */
	BROWSER_MOVED,		/* selection, prompt or rows changed: redraw */
};

/* Handles a key: prompts first, then moving, search, filter, and a tree's open and close. */
enum browser_reaction browser_key(struct browser *b, int code, enum ui_action a);

/* The footer while a prompt is open (false: none is), and where the cursor goes. */
bool browser_status(const struct browser *b, char *buf, size_t len);
bool browser_cursor(const struct browser *b, int *y, int *x);

#endif
