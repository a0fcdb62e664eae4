/*
 * view.h - the UI's views.  A view draws into the curses window it is
 * given (never stdscr), reacts to keys, re-reads the model when asked,
 * and names the actions it binds (for the footer).  The main views form
 * a stack: Enter pushes a detail, Esc or Left pops it.  Strips (the
 * header now, a timeline later) sit above the top view, each in its own
 * window; a full-screen view (help) hides them.
 */
#ifndef SHIMTOP_VIEW_H
#define SHIMTOP_VIEW_H

#include <curses.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "output/tables.h"
#include "ui/keys.h"

struct ui;
struct view;

enum view_reaction {
	VIEW_IGNORED,		/* not this view's key */
	VIEW_REDRAW,		/* state changed: draw again */
	VIEW_REQUERY,		/* re-read the model, then draw */
	VIEW_PUSH,		/* push v->next (made by the view) */
	VIEW_POP,		/* back to the view below */
	VIEW_QUIT,
};

struct view_ops {
	const char *name;
	/* Re-reads the model (every refresh interval, and on VIEW_REQUERY). */
	void (*requery)(struct view *v);
	void (*draw)(struct view *v, WINDOW *w);
	/* A strip's: the lines it needs `cols` wide (NULL: as many as it was given). */
	int (*lines)(struct view *v, int cols);
	enum view_reaction (*key)(struct view *v, int code, enum ui_action a);
	/* A click at (y, x) of the view's window; NULL: clicks ignored. */
	enum view_reaction (*click)(struct view *v, int y, int x, bool twice);
	/* Where the terminal cursor goes (a prompt), else false. */
	bool (*cursor)(struct view *v, int *y, int *x);
	/* The footer line when the view has one of its own (a prompt). */
	bool (*status)(struct view *v, char *buf, size_t len, bool *warning);
	void (*destroy)(struct view *v);
	const enum ui_action *actions;	/* its footer keys, UA_NONE-ended */
	enum ui_scope scope;		/* whose keys it reads beside the global ones */
	bool full_screen;
	bool observer;			/* the observer's: [ and ] change its period */
	/*
	 * Its rows are the model as of its last requery (a table), while the
	 * header counts live: the header says how many samples it shows.
	 */
	bool as_of_requery;
};

struct view {
	const struct view_ops *ops;
	struct ui *ui;
	struct view *next;	/* what VIEW_PUSH pushes */
	/* The rows keys act on: an open prompt of it is the footer, with the cursor. */
	struct browser *browser;
	uint64_t queried_samples;	/* the model's samples at its last requery */
};

/*
 * Allocates a view of `size` bytes (a struct starting with struct view),
 * zeroed, with its ops and ui set.  view_free frees one that holds
 * nothing else; view_no_actions is an empty footer.
 */
void *view_new(size_t size, const struct view_ops *ops, struct ui *ui);
void view_free(struct view *v);
extern const enum ui_action view_no_actions[];

struct browser;

/*
 * A key for a view's browser: VIEW_REDRAW when it took it (a failed `n`
 * says so in the footer), else VIEW_IGNORED.
 */
enum view_reaction view_browse(struct view *v, struct browser *b, int code, enum ui_action a);

/*
 * A view of a declared table (declared_view.h; the symbol table too):
 * how it is sorted and the rows' order.  view_sort_key takes > < I, a
 * click on the title (y 0) sorts by the column under x (again: inverts);
 * each returns VIEW_REQUERY when the order changes, else VIEW_IGNORED
 * (a click on a row selects it: VIEW_REDRAW).
 * view_sort_order makes the order of n rows again; view_sorted_row gives
 * the k-th row's index.
 */
struct table_def;
struct model;
struct browser;
struct view_sorting {
	struct table_shown shown;
	size_t *order;			/* NULL: the model's */
	size_t n;
};

enum view_reaction view_sort_key(struct view_sorting *s, const struct table_def *t,
				 enum ui_action a);
enum view_reaction view_sort_click(struct view_sorting *s, const struct table_def *t,
				   struct browser *b, int y, int x);
void view_sort_order(struct view_sorting *s, const struct table_def *t, size_t n,
		     const void *(*row_at)(const void *ctx, size_t i), const void *ctx,
		     const struct model *m);
size_t view_sorted_row(const struct view_sorting *s, size_t k);
void view_sorting_free(struct view_sorting *s);

/* The views shimtop has. */
struct view *header_view_create(struct ui *ui);
struct view *table_view_create(struct ui *ui);
struct view *detail_view_create(struct ui *ui, uint32_t symbol_id);
struct view *links_view_create(struct ui *ui, uint32_t symbol_id);
struct view *help_view_create(struct ui *ui);
struct view *setup_view_create(struct ui *ui);
struct view *sort_menu_create(struct ui *ui);
struct view *timeline_view_create(struct ui *ui);
struct view *gauges_view_create(struct ui *ui);
struct view *tags_view_create(struct ui *ui);
struct view *distribution_view_create(struct ui *ui);
struct view *distribution_view_of_tag(struct ui *ui, uint64_t tag);
struct view *tree_view_create(struct ui *ui);

#endif
