/*
 * tables.h - the thread, process, module, diff and data page tables,
 * each declared once as columns (a title, a JSON key, a width, and the
 * row's member it reads or the cell as text and as JSON): the UI's views
 * (H, P, O, D, M), the text report and the JSON report all print them
 * from here.
 */
#ifndef SHIMTOP_TABLES_H
#define SHIMTOP_TABLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct json_object;
struct model;

/*
 * What a typed column reads at its offset in the row, which makes its
 * text cell, its JSON value and its sort key alike (perf's
 * perf_hpp_fmt); FIELD_CELL: the column's own text and json functions.
 */
enum table_field {
	FIELD_CELL,
	FIELD_COUNT,		/* uint64_t: "1234", a JSON integer */
	FIELD_COUNT32,		/* uint32_t, the same */
	FIELD_SIZE,		/* size_t, the same */
	FIELD_ID,		/* pid_t: "1234" */
	FIELD_SHARE,		/* double percent: "12.34%", a JSON number; NAN: none */
	FIELD_CHANGE,		/* double, percentage points: "+1.25" */
	FIELD_IPC,		/* double, NAN: none ("-", left out of the JSON) */
	FIELD_SECONDS,		/* double seconds: "1.25s", "340ms"; NAN: none (as IPC) */
	FIELD_SECONDS_CHANGE,	/* double seconds, signed: "+1.25s", "-340ms"; NAN: none */
	FIELD_CHARS,		/* char[]: a name held in the row ("" reads "?") */
	FIELD_STRING,		/* const char *: a name pointed to (NULL reads "-") */
	FIELD_NAMED_BY,		/* uint8_t enum st_named_by: "symtab" */
	FIELD_ADDRESS,		/* uint64_t: "0x7f00c000", a JSON integer */
	FIELD_BYTES,		/* uint64_t: "4K", "2M", "1G"; the JSON has the bytes */
	FIELD_SYMBOL,		/* const struct st_symbol *: its name (NULL reads "-") */
	FIELD_SYMBOL_MODULE,	/* ... its module */
	FIELD_SYMBOL_NAMED_BY,	/* ... what named it: "symtab" */
	FIELD_SYMBOL_UNKNOWN,	/* ... whether no symbol explains it: "unknown", a JSON boolean */
};

struct table_column {
	const char *title;		/* "SAMPLES"; NULL: in the JSON only */
	const char *key;		/* the JSON member: "samples" */
	int width;			/* 0: the rest of the line */
	bool left;			/* left-aligned (text), else right */
	void (*text)(const void *row, const struct model *m, char *buf, size_t len);
	struct json_object *(*json)(const void *row, const struct model *m);
	int gap;			/* spaces before it; 0: one */
	int narrow;			/* its width under 100 columns; 0: width */
	bool optional;			/* a view hides it where every cell is "-" */
	bool tail;			/* the last: cut, it keeps its end ("..b;c") */
	enum table_field field;		/* FIELD_CELL: text and json above */
	size_t offset;			/* else the row's member it reads */
};

/*
 * A typed column: title, JSON key, width, left-aligned, and the row's
 * member; then any other of its settings (.gap = 2, .optional = true).
 */
#define TABLE_FIELD(title_, key_, width_, left_, field_, type_, member_, ...)		\
	{ .title = (title_), .key = (key_), .width = (width_), .left = (left_),	\
	  .field = (field_), .offset = offsetof(type_, member_), __VA_ARGS__ }
/* A column of its own text and JSON functions, the same way. */
#define TABLE_CELL(title_, key_, width_, left_, text_, json_, ...)			\
	{ .title = (title_), .key = (key_), .width = (width_), .left = (left_),	\
	  .text = (text_), .json = (json_), .field = FIELD_CELL, __VA_ARGS__ }

struct table_def {
	const char *name;		/* the settings file's: "threads" */
	const struct table_column *cols;
	size_t n;
};

/*
 * Rows are struct model_thread_row, struct model_process_row, struct
 * diff_row, struct diff_path, struct ibs_page (the hot data pages) and
 * struct model_module_row.
 */
extern const struct table_def thread_table, process_table, diff_table, diff_path_table,
	page_table, module_table;
/* Each of them once, for what is set per table (the columns F2 hides). */
#define NDECLARED_TABLES 6
extern const struct table_def *const declared_tables[NDECLARED_TABLES];

/*
 * What a view shows of a table: the column it sorts by (its index; -1:
 * the model's order) and which way, the columns it hides (a bit a
 * column), and how wide it is (0: no limit).  NULL: the text report's,
 * every column, whole.
 */
struct table_shown {
	int col;
	bool invert;
	uint32_t hidden;
	int screen;
};

/* The title line; the sorted column (if any) marked v, or ^ inverted. */
void table_title(const struct table_def *t, const struct table_shown *shown, char *buf,
		 size_t len);
void table_row(const struct table_def *t, const struct table_shown *shown, const void *row,
	       const struct model *m, char *buf, size_t len);
/* A typed field of a row, as text and as JSON (NULL: none): any table's, the symbol table's too. */
void table_field_text(enum table_field field, size_t offset, const void *row, char *buf,
		      size_t len);
struct json_object *table_field_json(enum table_field field, size_t offset, const void *row);
/* A column's cell of a row, as text and as JSON (NULL: none). */
void table_cell(const struct table_column *c, const void *row, const struct model *m, char *buf,
		size_t len);
struct json_object *table_cell_json(const struct table_column *c, const void *row,
				    const struct model *m);
/* The row as a JSON object, a member a column. */
struct json_object *table_json(const struct table_def *t, const void *row,
			       const struct model *m);

/*
 * How the text report shows n rows (size bytes apart): whole, but for
 * optional columns with nothing to say (-: the off-CPU ones without it).
 */
struct table_shown table_shown_whole(const struct table_def *t, const void *rows, size_t n,
				     size_t size, const struct model *m);
/* n rows as the text report prints a table: a blank line, the title, the rows. */
void table_print(FILE *out, const struct table_def *t, const void *rows, size_t n, size_t size,
		 const struct model *m);
/* ... and as a JSON array of row objects. */
struct json_object *table_json_rows(const struct table_def *t, const void *rows, size_t n,
				    size_t size, const struct model *m);

/* Whether a view can hide column i: a titled one, not the first (the row's name). */
bool table_column_hideable(const struct table_def *t, size_t i);

/* The index of the shown column under x in the title line, or -1. */
int table_column_at(const struct table_def *t, const struct table_shown *shown, int x);

/* The optional columns whose n rows all read "-" (a bit each), for shown.hidden. */
uint32_t table_empty_columns(const struct table_def *t, size_t n,
			     const void *(*row_at)(const void *ctx, size_t i), const void *ctx,
			     const struct model *m);

/*
 * The column shown step (1 or -1) columns from col (-1: from the ends),
 * cycling; shown NULL: any titled one.
 */
int table_column_step(const struct table_def *t, const struct table_shown *shown, int col,
		      int step);

/*
 * The order of n rows (row_at(ctx, i) the i-th) sorted by sort's column,
 * by its JSON value: numbers heaviest first, text from A, missing values
 * last, ties in the model's order; inverted when asked.  A malloc'd array
 * of n indices, or NULL: the model's order (no column, no rows, no memory).
 */
size_t *table_order(const struct table_def *t, const struct table_shown *sort, size_t n,
		    const void *(*row_at)(const void *ctx, size_t i), const void *ctx,
		    const struct model *m);

#endif
