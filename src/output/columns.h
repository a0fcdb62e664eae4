/*
 * columns.h - the per-symbol table's columns, defined once for every
 * output: the UI's table and the text report print the same titles,
 * widths and formats, and the JSON report uses the same keys.
 */
#ifndef SHIMTOP_COLUMNS_H
#define SHIMTOP_COLUMNS_H

#include <stdbool.h>
#include <stddef.h>

#include "session/options.h"
#include "output/tables.h"
#include "sampler/events.h"

struct json_object;
struct model_row;
struct session;

struct column {
	const char *title;		/* "SELF%"; NULL: the JSON's alone */
	const char *key;		/* the JSON row member: "self" */
	int width;			/* 0: takes the rest of the line */
	bool left;			/* left-aligned (text), else right */
	int sort;			/* enum st_sort_key, or -1 */
	int min_screen;			/* the UI shows it from this many columns */
	enum st_split split;		/* only with rows split so (NONE: always) */
	bool per_event;			/* a cell per event sampled on its own */
	/* The cell's text ("-" where there is no value). */
	void (*format)(const struct model_row *r, char *buf, size_t len);
	bool ibs;			/* an IBS figure: shown once IBS samples arrive */
	bool offcpu;			/* shown with off-CPU samples (--off-cpu) */
	bool through;			/* shown where rows know it (model_knows_through) */
	/* Adds the cell to a JSON row under key (or nothing); NULL: not in the JSON. */
	void (*json)(struct json_object *row, const char *key, const struct model_row *r,
		     const struct session *s);
	/* A typed field of the row instead of format and json (output/tables.h). */
	enum table_field field;
	size_t offset;
};

#define COLUMNS_MAX 32

extern const struct column columns[];
extern const size_t ncolumns;

/*
 * Which columns a table shows: its own state (the UI's table view, one
 * report), never a global.  column_set_init shows every column but the
 * IBS ones and no per-event ones.
 */
struct column_set {
	bool hidden[COLUMNS_MAX];	/* by the user (setup) */
	bool ibs;			/* the IBS columns: IBS samples arrived */
	bool offcpu;			/* the off-CPU column: the session samples waits */
	bool through;			/* TOTAL%: chains of one event, rows by function */
	struct {
		char name[64];
		int index;		/* the event's */
		int width;		/* the name's, within 7..16 */
	} events[ST_MAX_SAMPLED];	/* a column each (-e a,b), but the one shown */
	int nevents;
};

void column_set_init(struct column_set *cs);

/* The event and IBS columns a session's tables have now (its -e a,b; IBS samples seen). */
void columns_of_session(struct column_set *cs, const struct session *s);

/*
 * Writes the title line or a row's line into buf, for a screen `screen`
 * columns wide (0: every column, as the text report prints); split adds
 * the PID COMMAND or the COMMAND column.  sort and invert mark the sorted column with v
 * or ^; sort -1 marks none.
 */
void columns_title(const struct column_set *cs, char *buf, size_t len, int screen,
		   enum st_split split, int sort, bool invert);
void columns_row(const struct column_set *cs, char *buf, size_t len, int screen,
		 enum st_split split, const struct model_row *r);

/*
 * Hides columns by their JSON key ("samples", "ipc", "module"): the UI's
 * setup (F2).  NULL shows them all again.  The key column (SELF%, SYMBOL)
 * stays.
 */
void columns_hide(struct column_set *cs, const char *const *keys, size_t n);

/*
 * With events sampled each on its own (-e a,b): names[n] are theirs, and
 * a column per event other than `shown` (whose share SELF% is) follows
 * SELF%.  n 0 shows none.
 */
void columns_events(struct column_set *cs, const char (*names)[64], int n, int shown);

/* The sort key of the column under x in a line columns_title wrote; -1 if none. */
int columns_sort_at(const struct column_set *cs, int x, int screen, enum st_split split);

/* A row of the JSON report: every column's cell that has a JSON form. */
struct json_object *columns_json(const struct session *s, enum st_split split,
				 const struct model_row *r);

#endif
