/*
 * tables.h - the thread, process, diff and data page tables, each
 * declared once as columns (a title, a JSON key, a width, the cell as text
 * and as JSON): the UI's views (H, P, D, M), the text report and the JSON
 * report all print them from here.
 */
#ifndef SHIMTOP_TABLES_H
#define SHIMTOP_TABLES_H

#include <stdbool.h>
#include <stddef.h>

struct json_object;
struct model;

struct table_column {
	const char *title;		/* "SAMPLES"; NULL: in the JSON only */
	const char *key;		/* the JSON member: "samples" */
	int width;			/* 0: the rest of the line */
	bool left;			/* left-aligned (text), else right */
	void (*text)(const void *row, const struct model *m, char *buf, size_t len);
	struct json_object *(*json)(const void *row, const struct model *m);
	int gap;			/* spaces before it; 0: one */
};

struct table_def {
	const struct table_column *cols;
	size_t n;
};

/*
 * Rows are struct model_thread_row, struct model_process_row, struct
 * diff_row, struct diff_path and struct ibs_page (the hot data pages).
 */
extern const struct table_def thread_table, process_table, diff_table, diff_path_table,
	page_table;

/* How a view sorts a table: by a column (its index), or as the model ordered it (-1). */
struct table_sort {
	int col;
	bool invert;
};

/* The title line; the column sort is by (if any) marked v, or ^ inverted. */
void table_title(const struct table_def *t, const struct table_sort *sort, char *buf,
		 size_t len);
void table_row(const struct table_def *t, const void *row, const struct model *m, char *buf,
	       size_t len);
/* The row as a JSON object, a member a column. */
struct json_object *table_json(const struct table_def *t, const void *row,
			       const struct model *m);

/* The index of the titled column under x in the title line, or -1. */
int table_column_at(const struct table_def *t, int x);

/* The titled column step (1 or -1) columns from col (-1: from the ends), cycling. */
int table_column_step(const struct table_def *t, int col, int step);

/*
 * The order of n rows (row_at(ctx, i) the i-th) sorted by sort's column,
 * by its JSON value: numbers heaviest first, text from A, missing values
 * last, ties in the model's order; inverted when asked.  A malloc'd array
 * of n indices, or NULL: the model's order (no column, no rows, no memory).
 */
size_t *table_order(const struct table_def *t, const struct table_sort *sort, size_t n,
		    const void *(*row_at)(const void *ctx, size_t i), const void *ctx,
		    const struct model *m);

#endif
