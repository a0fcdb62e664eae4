/*
 * theme.h - colours for the UI, from INI theme files in themes/:
 *
 *   [colors]
 *   header = white blue bold      ; element = foreground background attrs
 *
 * Colours: default black red green yellow blue magenta cyan white.
 * Attributes: bold dim reverse underline.
 */
#ifndef SHIMTOP_THEME_H
#define SHIMTOP_THEME_H

#include <stdbool.h>

enum theme_element {
	TH_HEADER,		/* header labels */
	TH_VALUE,		/* header values */
	TH_WARNING,		/* notes: missing PMU, target exited */
	TH_COLUMNS,		/* the table's column titles */
	TH_ROW,
	TH_SELECTED,
	TH_MODULE,
	TH_UNKNOWN,		/* [unknown] rows */
	TH_KEY,			/* footer: the key */
	TH_KEY_LABEL,		/* footer: what it does */
	TH_SEARCH,
	TH_OFFCPU,		/* a tree of waits' rows (--off-cpu) */
	TH_COUNT
};

struct theme_style {
	short fg, bg;		/* curses colour numbers, -1 = default */
	unsigned attrs;		/* THEME_BOLD ... */
};

#define THEME_BOLD	1u
#define THEME_DIM	2u
#define THEME_REVERSE	4u
#define THEME_UNDERLINE	8u

struct theme {
	char name[64];
	bool mono;		/* use attributes only */
	struct theme_style style[TH_COUNT];
};

/*
 * Loads the theme for --theme (a name or a file), or the default (mono
 * when NO_COLOR is set).  Returns 0, or -errno after a one-line error.
 */
int theme_load(struct theme *t, const char *name_or_path);

/* Reads one theme file into t (over what it holds). */
int theme_read_file(struct theme *t, const char *path);

/* The built-in colours, the same as themes/default.theme. */
void theme_builtin(struct theme *t);

#endif
