/*
 * list.h - the list widget every table view uses: a selection that stays
 * on its item (by id) across refreshes, paging that keeps it visible,
 * incremental search and a filter typed into a prompt.  No drawing and
 * no model here: the owner says how many items it has, how high the
 * window is, and what each item's id and text are.
 */
#ifndef SHIMTOP_LIST_H
#define SHIMTOP_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ui/keys.h"

/* A one-line text prompt (search, filter). */
struct prompt {
	bool active;
	char text[64];
};

enum prompt_result {
	PROMPT_IGNORED,		/* not a key the prompt takes */
	PROMPT_EDITED,		/* the text changed */
	PROMPT_DONE,		/* Enter: keep the text, close */
	PROMPT_CANCELLED,	/* Esc: text cleared, closed */
	PROMPT_NEXT,		/* F3 while open: the next match */
};

enum prompt_result prompt_key(struct prompt *p, int code);

struct list {
	/* Set by the owner. */
	size_t n;				/* items, after the filter */
	int height;				/* rows the window shows */
	uint64_t (*id)(void *ctx, size_t i);
	const char *(*text)(void *ctx, size_t i);	/* what search matches */
	void *ctx;

	/* Kept by the list. */
	size_t selected, top;
	uint64_t selected_id;
	bool have_selection;
	/*
	 * The user put the selection where it is (a key, a search, a click):
	 * it follows its item through refreshes.  Until then it keeps its
	 * place, the top row, as perf top's does: the first rows of a session
	 * must not carry it down the list once the real leaders arrive.
	 */
	bool chosen;
	struct prompt search, filter;
	bool search_failed;
};

/*
 * After the owner rebuilt its items (n and the callbacks' answers):
 * finds the selected id again (once chosen), or keeps the position.
 */
void list_refreshed(struct list *l);

/* Moves the selection to index (clamped), keeping it visible. */
void list_select(struct list *l, long index);

/* Selects the next item from `from` whose text contains the search. */
bool list_search_from(struct list *l, size_t from);

/* Whether text passes the filter (case-insensitive substring). */
bool list_passes_filter(const struct list *l, const char *text);

enum list_reaction {
	LIST_IGNORED,		/* not a list key: the view may take it */
	LIST_MOVED,		/* selection or prompt changed: redraw */
	LIST_FILTERED,		/* the filter changed: rebuild the items */
};

/* Handles a key: prompts first, then navigation, search and filter. */
enum list_reaction list_key(struct list *l, int code, enum ui_action a);

#endif
