/*
 * keys.h - the UI's one key table.  Every key the UI acts on is bound
 * here to an action in a scope: global keys act everywhere, a view's
 * scope adds the keys only it takes (the tree's + - b, the timeline's
 * ( ) f).  A key is bound once in its scope with the global keys; views
 * compare actions, never key codes.  The key handlers, the help screen
 * (a section a scope), the footers and the README's key table all come
 * from it (tests/test_ui.c fails when the README disagrees, or when a
 * key is bound twice where it is read).
 */
#ifndef SHIMTOP_KEYS_H
#define SHIMTOP_KEYS_H

#include <stdbool.h>
#include <stdio.h>

enum ui_action {
	UA_NONE,
	UA_HELP,
	UA_UP,
	UA_DOWN,
	UA_PAGE_UP,
	UA_PAGE_DOWN,
	UA_FIRST,
	UA_LAST,
	UA_SORT_MENU,
	UA_SORT_NEXT,
	UA_SORT_PREV,
	UA_INVERT,
	UA_SEARCH,
	UA_SEARCH_NEXT,
	UA_FILTER,
	UA_OPEN,
	UA_BACK,
	UA_LEFT,
	UA_RIGHT,
	UA_ZERO,
	UA_ZERO_ONCE,
	UA_PAUSE,
	UA_VIEW_NEXT,
	UA_VIEW_TABLE,
	UA_VIEW_TIMELINE,
	UA_VIEW_GAUGES,
	UA_VIEW_TAGS,
	UA_VIEW_DISTRIBUTION,
	UA_VIEW_TREE,
	UA_PERIOD_HALVE,
	UA_PERIOD_DOUBLE,
	UA_PERIOD_RANDOM,
	UA_UNWIND_AUTO,
	UA_OFF_CPU,
	UA_EVENT_NEXT,
	UA_EVENT_PREV,
	UA_SETUP,
	UA_THREADS,
	UA_PROCESSES,
	UA_MODULES,
	UA_PAGES,
	UA_DIFF,
	UA_SNAPSHOT,
	UA_REDRAW,
	UA_QUIT,
	/* The call tree's. */
	UA_TREE_OPEN,
	UA_TREE_CLOSE,
	UA_TREE_OPEN_ALL,
	UA_TREE_BOTTOM_UP,
	UA_TREE_FOCUS,
	UA_TREE_MERGE,
	UA_TREE_RECURSION,
	UA_TREE_UNDO,
	UA_TREE_COLD,
	UA_TREE_REBUILT,
	UA_TREE_PANE,
	UA_TREE_ICICLE,
	/* The timeline's. */
	UA_ZOOM_IN,
	UA_ZOOM_OUT,
	UA_FIT,
	UA_RANGE_FROM,
	UA_RANGE_TO,
	/* The diff's. */
	UA_DIFF_PATHS,
	/* The detail's code (as perf annotate's). */
	UA_HOT_NEXT,
	UA_HOT_PREV,
	UA_LINKS,
	UA_CODE_ALONE,
	/* A prompt's (search, filter): every other key is typed. */
	UA_PROMPT_DONE,
	UA_PROMPT_CANCEL,
	UA_PROMPT_ERASE,
	UA_PROMPT_NEXT,
	UA_COUNT
};

/* Where a key is read: everywhere, or in one view. */
enum ui_scope {
	SCOPE_GLOBAL,
	SCOPE_TREE,
	SCOPE_TIMELINE,
	SCOPE_DIFF,
	SCOPE_DETAIL,
	SCOPE_PROMPT,		/* alone: no global key is read while typing */
	SCOPE_COUNT
};

#define UI_KEY_CODES 4

struct ui_key {
	enum ui_action action;
	enum ui_scope scope;
	int codes[UI_KEY_CODES];	/* curses key codes, 0-terminated */
	const char *names;		/* as the help and README spell them */
	const char *footer;		/* the footer's label, or NULL */
	const char *footer_key;		/* the footer's key name */
	const char *does;		/* one line: what it does */
};

extern const struct ui_key ui_keys[];
extern const unsigned ui_nkeys;

/*
 * The action a key code is bound to in scope (or globally, but in the
 * prompt's scope, where a global key's letter is text), UA_NONE if none.
 */
enum ui_action ui_key_action(enum ui_scope scope, int code);

/* Whether scope reads the global keys too. */
bool ui_scope_reads_global(enum ui_scope scope);

/* A scope's title in the help and the README. */
const char *ui_scope_title(enum ui_scope scope);

/* The table's entry for an action (NULL for UA_NONE). */
const struct ui_key *ui_key_of(enum ui_action a);

/* The help screen's lines, from the table, a section a scope; returns how many. */
unsigned ui_help_lines(const char *lines[], unsigned max);

/* The README's key tables (Markdown), a table a scope, from the table. */
void ui_keys_markdown(FILE *out);
/* The man page's (roff): a subsection a scope, a tagged paragraph a key. */
void ui_keys_man(FILE *out);

#endif
