/*
 * ui.h - the ncurses front end: a header with what is sampled and how
 * far to trust it, a live sortable per-symbol table, htop-style keys.
 */
#ifndef SHIMTOP_UI_H
#define SHIMTOP_UI_H

struct session;

/* Loads the theme --theme names before anything starts; 0 or -1. */
int ui_prepare(const char *theme_name);

/*
 * Runs the UI on a session until the user quits (or SIGINT, SIGTERM).
 * Returns 0, or -errno after a one-line error.
 */
int ui_run(struct session *s);

#endif
