/*
 * settings.h - what F2 sets up (columns, theme, refresh interval, sort,
 * the header), kept in an INI file, $XDG_CONFIG_HOME/shimtop/shimtoprc
 * (else ~/.config/shimtop/shimtoprc), read with inih when the UI starts.
 * The command line wins over the file; batch output ignores it, so
 * scripts print the same whoever runs them.
 */
#ifndef SHIMTOP_SETTINGS_H
#define SHIMTOP_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "session/options.h"
#include "output/tables.h"

/* Columns F2 can hide, as bits of ui_settings.hidden. */
#define SETTINGS_HIDE_SAMPLES	0x1u
#define SETTINGS_HIDE_IPC	0x2u
#define SETTINGS_HIDE_MODULE	0x4u

struct ui_settings {
	char theme[64];			/* "": the default rule (NO_COLOR) */
	double delay;			/* refresh interval, seconds */
	enum st_sort_key sort;
	bool invert;
	unsigned hidden;		/* SETTINGS_HIDE_*: the symbol table's */
	uint32_t table_hidden[NDECLARED_TABLES];	/* declared_tables[i]'s, a bit a column */
	bool brief_header;		/* two header lines, not four */
};

void settings_defaults(struct ui_settings *s);

/* The columns of t hidden (a bit a column, as table_shown.hidden). */
uint32_t settings_table_hidden(const struct ui_settings *s, const struct table_def *t);

/* The file's path into buf; false if neither XDG_CONFIG_HOME nor HOME is set. */
bool settings_path(char *buf, size_t len);

/*
 * Reads the file over *s (no file: *s unchanged, 0).  A bad line is
 * reported in err (one line) and the rest still read; returns -EINVAL
 * then, else 0.
 */
int settings_read(struct ui_settings *s, const char *path, char *err, size_t len);

/*
 * Writes *s (to a temporary name, then renamed, the directory made if
 * needed).  Returns 0, or -errno with err saying what failed.
 */
int settings_write(const struct ui_settings *s, const char *path, char *err,
		   size_t len);

#endif
