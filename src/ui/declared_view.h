/*
 * declared_view.h - a view of a declared table (output/tables.h) from a
 * table source: where its rows come from, how a row is named and
 * searched, and what Enter and the source's keys do.  The threads,
 * processes, modules, diff and data pages views are each a source; the
 * view sorts (> < I, a click on a title), searches and filters alike.
 * A new table is a table_def, a source and a line in ui.c's
 * secondary_views[].
 */
#ifndef SHIMTOP_DECLARED_VIEW_H
#define SHIMTOP_DECLARED_VIEW_H

#include "ui/view.h"

struct table_source {
	const char *name;		/* the view's: "threads" */
	const char *noun;		/* a row's: "thread" */
	const struct table_def *table;
	size_t row_size;		/* the rows' stride */
	/*
	 * The rows now into *rows, and how many: they live in *state (the
	 * source's, NULL at first, kept across calls and shared with its
	 * other), which forget frees.
	 */
	size_t (*query)(struct ui *ui, void **state, const void **rows);
	void (*forget)(void *state);
	uint64_t (*id)(const void *row);	/* a row's id across refreshes */
	bool (*match)(struct ui *ui, const void *row, const char *needle);
	/* Why the view cannot be opened (the footer says it), else NULL. */
	const char *(*unavailable)(struct ui *ui);
	/* A line above the table: why it has no rows, what they are (NULL: none). */
	const char *(*notice)(struct ui *ui);
	/* Appended to the title (NULL: nothing). */
	void (*title_more)(struct ui *ui, char *buf, size_t len);
	/* Enter or Right on a row (NULL: nothing); state as query keeps it. */
	enum view_reaction (*open)(struct view *v, void *state, const void *row);
	enum ui_action key;		/* the key that opens it; again: back */
	enum ui_action toggle;		/* switches to other (UA_NONE: none) */
	const struct table_source *other;
	bool hide_empty;		/* optional columns that all read "-" go */
	const enum ui_action *actions;	/* the footer's */
	enum ui_scope scope;
	bool live;			/* its rows are the model's now, not as of a requery */
};

struct view *declared_view_create(struct ui *ui, const struct table_source *src);

/* The sources. */
extern const struct table_source thread_source, process_source, module_source, page_source,
	diff_source, diff_path_source;

#endif
