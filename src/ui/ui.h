/*
 * ui.h - the ncurses front end: a header with what is sampled and how
 * far to trust it, a live sortable per-symbol table, htop-style keys.
 */
#ifndef SHIMTOP_UI_H
#define SHIMTOP_UI_H

#include <stdbool.h>

struct session;
struct st_options;

/*
 * Before anything starts: reads the settings file (a bad line is a
 * warning) and loads the theme (--theme, else the file's); 0 or -errno.
 */
int ui_prepare(const struct st_options *o);

/*
 * Whether the UI has a terminal to draw on: standard input and output,
 * or, where either is redirected (`shimtop -- pigz -c big > out.gz`), the
 * controlling terminal /dev/tty, as less does.
 */
bool ui_has_terminal(void);

/*
 * Runs the UI on a session until the user quits (or SIGINT, SIGTERM).
 * Returns 0, or -errno after a one-line error.
 */
int ui_run(struct session *s);

#endif
