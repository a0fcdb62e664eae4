/* tables.c - the declared tables and what prints them (see tables.h). */
#include "output/tables.h"
#include "output/report.h"
#include "model/model.h"
#include "model/model_diff.h"
#include "model/ibs_model.h"
#include "symbols/symbols.h"

#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether a view shows column i. */
static bool is_shown(const struct table_def *t, const struct table_shown *shown, size_t i)
{
	return t->cols[i].title && !(shown && i < 32 && (shown->hidden >> i & 1));
}

bool table_column_hideable(const struct table_def *t, size_t i)
{
	return i > 0 && i < t->n && i < 32 && t->cols[i].title;
}

/* A column's width on the view's screen. */
static int width_of(const struct table_column *c, const struct table_shown *shown)
{
	return shown && shown->screen && shown->screen < 100 && c->narrow ? c->narrow : c->width;
}

/* Appends a cell: its gap (none first), then the text in its width (the last: all of it). */
static size_t put(char *buf, size_t len, size_t at, const struct table_column *c, int width,
		  const char *text)
{
	int gap = at ? (c->gap ? c->gap : 1) : 0, n;

	if (at >= len)
		return at;
	if (width == 0)
		n = snprintf(buf + at, len - at, "%*s%s", gap, "", text);
	else if (c->left)
		n = snprintf(buf + at, len - at, "%*s%-*.*s", gap, "", width, width, text);
	else
		n = snprintf(buf + at, len - at, "%*s%*s", gap, "", width, text);
	return n < 0 ? at : at + (size_t)n < len ? at + (size_t)n : len - 1;
}

void table_title(const struct table_def *t, const struct table_shown *shown, char *buf,
		 size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < t->n; i++) {
		char title[64];

		if (!is_shown(t, shown, i))
			continue;
		snprintf(title, sizeof(title), "%s%s", t->cols[i].title,
			 shown && shown->col == (int)i ? (shown->invert ? "^" : "v") : "");
		at = put(buf, len, at, &t->cols[i], width_of(&t->cols[i], shown), title);
	}
}

static void ipc_text(double ipc, char *buf, size_t len);
static void seconds_text(double s, char *buf, size_t len);
static void seconds_change_text(double s, char *buf, size_t len);
/* A change of time, signed as CHANGE is: "+1.25s", "-340ms", "0". */
static void seconds_change_text(double s, char *buf, size_t len)
{
	if (isnan(s) || s == 0 || len < 2) {
		seconds_text(s, buf, len);
		return;
	}
	buf[0] = s < 0 ? '-' : '+';
	seconds_text(fabs(s), buf + 1, len - 1);
}

static struct json_object *maybe_number_json(double ipc);
static struct json_object *u64_json(uint64_t v);

/* The member a typed column reads. */
#define MEMBER(type, offset, row) (*(const type *)(const void *)((const char *)(row) + (offset)))
typedef const char *name_ptr;	/* a FIELD_STRING member, for MEMBER */
typedef const struct st_symbol *symbol_ptr;	/* a FIELD_SYMBOL member */

/* What a FIELD_SYMBOL_* column says of the symbol, as text. */
static const char *symbol_word(enum table_field field, const struct st_symbol *sym)
{
	switch (field) {
	case FIELD_SYMBOL_MODULE:
		return sym->module;
	case FIELD_SYMBOL_NAMED_BY:
		return st_named_by_word(sym->named_by);
	case FIELD_SYMBOL_UNKNOWN:
		return sym->unknown ? "unknown" : "known";
	default:
		return sym->name;
	}
}

/* A size as a page's: "4K", "2M", "1G". */
static void bytes_text(uint64_t size, char *buf, size_t len)
{
	int shift = size >= 1u << 30 ? 30 : size >= 1u << 20 ? 20 : 10;

	snprintf(buf, len, "%" PRIu64 "%c", size >> shift, shift == 30 ? 'G' : shift == 20 ? 'M' : 'K');
}

void table_field_text(enum table_field field, size_t offset, const void *row, char *buf,
		      size_t len)
{
	const struct st_symbol *sym;
	const char *p;

	switch (field) {
	case FIELD_CELL:
		snprintf(buf, len, "-");
		break;
	case FIELD_COUNT:
		snprintf(buf, len, "%" PRIu64, MEMBER(uint64_t, offset, row));
		break;
	case FIELD_COUNT32:
		snprintf(buf, len, "%" PRIu32, MEMBER(uint32_t, offset, row));
		break;
	case FIELD_SIZE:
		snprintf(buf, len, "%zu", MEMBER(size_t, offset, row));
		break;
	case FIELD_ID:
		snprintf(buf, len, "%d", (int)MEMBER(pid_t, offset, row));
		break;
	case FIELD_SHARE:
		if (isnan(MEMBER(double, offset, row)))
			snprintf(buf, len, "-");
		else
			snprintf(buf, len, "%.2f%%", MEMBER(double, offset, row));
		break;
	case FIELD_CHANGE:
		snprintf(buf, len, "%+.2f", MEMBER(double, offset, row));
		break;
	case FIELD_IPC:
		ipc_text(MEMBER(double, offset, row), buf, len);
		break;
	case FIELD_SECONDS:
		seconds_text(MEMBER(double, offset, row), buf, len);
		break;
	case FIELD_SECONDS_CHANGE:
		seconds_change_text(MEMBER(double, offset, row), buf, len);
		break;
	case FIELD_CHARS:
		p = (const char *)row + offset;
		snprintf(buf, len, "%s", *p ? p : "?");
		break;
	case FIELD_STRING:
		p = MEMBER(name_ptr, offset, row);
		snprintf(buf, len, "%s", p ? p : "-");
		break;
	case FIELD_NAMED_BY:
		snprintf(buf, len, "%s", st_named_by_word(MEMBER(uint8_t, offset, row)));
		break;
	case FIELD_ADDRESS:
		snprintf(buf, len, "%#" PRIx64, MEMBER(uint64_t, offset, row));
		break;
	case FIELD_BYTES:
		bytes_text(MEMBER(uint64_t, offset, row), buf, len);
		break;
	case FIELD_SYMBOL:
	case FIELD_SYMBOL_MODULE:
	case FIELD_SYMBOL_NAMED_BY:
	case FIELD_SYMBOL_UNKNOWN:
		sym = MEMBER(symbol_ptr, offset, row);
		snprintf(buf, len, "%s", !sym ? "-" : symbol_word(field, sym));
		break;
	}
}

struct json_object *table_field_json(enum table_field field, size_t offset, const void *row)
{
	const struct st_symbol *sym;
	const char *p;

	switch (field) {
	case FIELD_CELL:
		return NULL;
	case FIELD_COUNT:
		return u64_json(MEMBER(uint64_t, offset, row));
	case FIELD_COUNT32:
		return u64_json(MEMBER(uint32_t, offset, row));
	case FIELD_SIZE:
		return u64_json(MEMBER(size_t, offset, row));
	case FIELD_ID:
		return json_object_new_int(MEMBER(pid_t, offset, row));
	case FIELD_SHARE:
		return isnan(MEMBER(double, offset, row)) ? NULL
			: json_object_new_double(MEMBER(double, offset, row));
	case FIELD_CHANGE:
		return json_object_new_double(MEMBER(double, offset, row));
	case FIELD_IPC:
	case FIELD_SECONDS:
	case FIELD_SECONDS_CHANGE:
		return maybe_number_json(MEMBER(double, offset, row));
	case FIELD_CHARS:
		return json_object_new_string((const char *)row + offset);
	case FIELD_STRING:
		p = MEMBER(name_ptr, offset, row);
		return p ? json_object_new_string(p) : NULL;
	case FIELD_NAMED_BY:
		return json_object_new_string(st_named_by_word(MEMBER(uint8_t, offset, row)));
	case FIELD_ADDRESS:
	case FIELD_BYTES:
		return u64_json(MEMBER(uint64_t, offset, row));
	case FIELD_SYMBOL:
	case FIELD_SYMBOL_MODULE:
	case FIELD_SYMBOL_NAMED_BY:
		sym = MEMBER(symbol_ptr, offset, row);
		return sym ? json_object_new_string(symbol_word(field, sym)) : NULL;
	case FIELD_SYMBOL_UNKNOWN:
		sym = MEMBER(symbol_ptr, offset, row);
		return sym ? json_object_new_boolean(sym->unknown) : NULL;
	}
	return NULL;
}

void table_cell(const struct table_column *c, const void *row, const struct model *m, char *buf,
		size_t len)
{
	if (c->field == FIELD_CELL)
		c->text(row, m, buf, len);
	else
		table_field_text(c->field, c->offset, row, buf, len);
}

struct json_object *table_cell_json(const struct table_column *c, const void *row,
				    const struct model *m)
{
	return c->field == FIELD_CELL ? c->json(row, m) : table_field_json(c->field, c->offset, row);
}

void table_row(const struct table_def *t, const struct table_shown *shown, const void *row,
	       const struct model *m, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < t->n; i++) {
		const struct table_column *c = &t->cols[i];
		char cell[4096];
		size_t room, cut;

		if (!is_shown(t, shown, i))
			continue;
		table_cell(c, row, m, cell, sizeof(cell));
		room = shown && shown->screen ? (size_t)shown->screen : 0;
		cut = strlen(cell);
		/* The last column keeps its end where the screen cuts it: paths differ there. */
		if (c->tail && room && at + 2 + 3 < room && at + 2 + cut > room) {
			size_t keep = room - at - 2 - 2;

			memmove(cell + 2, cell + cut - keep, keep + 1);
			memcpy(cell, "..", 2);
		}
		at = put(buf, len, at, c, width_of(c, shown), cell);
	}
}

struct json_object *table_json(const struct table_def *t, const void *row,
			       const struct model *m)
{
	struct json_object *o = json_object_new_object();

	for (size_t i = 0; i < t->n; i++) {
		struct json_object *v = table_cell_json(&t->cols[i], row, m);

		/* A column of the JSON alone is there only where it says something. */
		if (v || t->cols[i].title)
			json_object_object_add(o, t->cols[i].key, v);
	}
	return o;
}

struct array_rows {
	const void *rows;
	size_t size;
};

static const void *array_row(const void *ctx, size_t i)
{
	const struct array_rows *a = ctx;

	return (const char *)a->rows + i * a->size;
}

struct table_shown table_shown_whole(const struct table_def *t, const void *rows, size_t n,
				     size_t size, const struct model *m)
{
	const struct array_rows a = { rows, size };

	return (struct table_shown){ .col = -1,
				     .hidden = table_empty_columns(t, n, array_row, &a, m) };
}

void table_print(FILE *out, const struct table_def *t, const void *rows, size_t n, size_t size,
		 const struct model *m)
{
	const struct table_shown shown = table_shown_whole(t, rows, n, size, m);
	char line[512];

	table_title(t, &shown, line, sizeof(line));
	fprintf(out, "\n%s\n", line);
	for (size_t i = 0; i < n; i++) {
		table_row(t, &shown, (const char *)rows + i * size, m, line, sizeof(line));
		fprintf(out, "%s\n", line);
	}
}

struct json_object *table_json_rows(const struct table_def *t, const void *rows, size_t n,
				    size_t size, const struct model *m)
{
	struct json_object *arr = json_object_new_array();

	for (size_t i = 0; i < n; i++)
		json_object_array_add(arr, table_json(t, (const char *)rows + i * size, m));
	return arr;
}

static void ipc_text(double ipc, char *buf, size_t len)
{
	if (isnan(ipc))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2f", ipc);
}

/* Time as top and perf trace print it: "12.5s", "340ms", "85us". */
static void seconds_text(double s, char *buf, size_t len)
{
	if (isnan(s))
		snprintf(buf, len, "-");
	else if (s >= 100)
		snprintf(buf, len, "%.0fs", s);
	else if (s >= 1)
		snprintf(buf, len, "%.2fs", s);
	else if (s >= 1e-3)
		snprintf(buf, len, "%.0fms", s * 1e3);
	else if (s > 0)
		snprintf(buf, len, "%.0fus", s * 1e6);
	else
		snprintf(buf, len, "0");
}

static struct json_object *maybe_number_json(double ipc)
{
	return isnan(ipc) ? NULL : json_object_new_double(ipc);
}

/* As report_add_u64 writes a count. */
static struct json_object *u64_json(uint64_t v)
{
	return json_object_new_int64((int64_t)v);
}

int table_column_at(const struct table_def *t, const struct table_shown *shown, int x)
{
	int at = 0;

	for (size_t i = 0; i < t->n; i++) {
		const struct table_column *c = &t->cols[i];
		int gap = at ? (c->gap ? c->gap : 1) : 0, w = width_of(c, shown);

		if (!is_shown(t, shown, i))
			continue;
		/* A click in the gap before a title counts as on it. */
		if (w == 0 || x < at + gap + w)
			return (int)i;
		at += gap + w;
	}
	return -1;
}

uint32_t table_empty_columns(const struct table_def *t, size_t n,
			     const void *(*row_at)(const void *ctx, size_t i), const void *ctx,
			     const struct model *m)
{
	uint32_t empty = 0;

	for (size_t i = 0; i < t->n && i < 32; i++) {
		char cell[64];
		size_t k = 0;

		if (!t->cols[i].optional)
			continue;
		while (k < n && (table_cell(&t->cols[i], row_at(ctx, k), m, cell, sizeof(cell)),
				 !strcmp(cell, "-")))
			k++;
		if (k == n)
			empty |= 1u << i;
	}
	return empty;
}

int table_column_step(const struct table_def *t, const struct table_shown *shown, int col,
		      int step)
{
	int n = (int)t->n;

	if (col < 0)
		col = step > 0 ? -1 : n;
	for (int k = 0; k < n; k++) {
		col = ((col + step) % n + n) % n;
		if (is_shown(t, shown, (size_t)col))
			return col;
	}
	return -1;
}

/* A row's sort key: a number, a text, or none (sorted last). */
struct sort_key {
	size_t index;
	enum { KEY_NONE, KEY_NUMBER, KEY_TEXT } kind;
	double number;
	char *text;
};

static int compare_keys(const struct sort_key *a, const struct sort_key *b, bool invert)
{
	int c = 0;

	if (a->kind != b->kind)
		return a->kind == KEY_NONE ? 1 : b->kind == KEY_NONE ? -1 : a->kind < b->kind ? -1 : 1;
	if (a->kind == KEY_NUMBER)
		c = a->number > b->number ? -1 : a->number < b->number ? 1 : 0;
	else if (a->kind == KEY_TEXT)
		c = strcmp(a->text, b->text);
	if (invert)
		c = -c;
	return c ? c : a->index < b->index ? -1 : a->index > b->index;
}

static int compare_keys_up(const void *a, const void *b)
{
	return compare_keys(a, b, false);
}

static int compare_keys_inverted(const void *a, const void *b)
{
	return compare_keys(a, b, true);
}

/* The cell's JSON value as a key; the text cell where the JSON is a list (a top symbol). */
static void key_of(const struct table_column *c, const void *row, const struct model *m,
		   struct sort_key *k)
{
	struct json_object *v = table_cell_json(c, row, m);

	switch (json_object_get_type(v)) {
	case json_type_double:
	case json_type_int:
	case json_type_boolean:
		k->kind = KEY_NUMBER;
		k->number = json_object_get_double(v);
		break;
	case json_type_string:
		k->kind = KEY_TEXT;
		k->text = strdup(json_object_get_string(v));
		break;
	case json_type_null:
		k->kind = KEY_NONE;
		break;
	default: {
		char cell[4096];

		table_cell(c, row, m, cell, sizeof(cell));
		k->kind = KEY_TEXT;
		k->text = strdup(cell);
	}
	}
	if (k->kind == KEY_TEXT && !k->text)
		k->kind = KEY_NONE;
	json_object_put(v);
}

size_t *table_order(const struct table_def *t, const struct table_shown *sort, size_t n,
		    const void *(*row_at)(const void *ctx, size_t i), const void *ctx,
		    const struct model *m)
{
	struct sort_key *keys;
	size_t *order;

	if (!sort || sort->col < 0 || (size_t)sort->col >= t->n || !n)
		return NULL;
	keys = calloc(n, sizeof(*keys));
	order = malloc(n * sizeof(*order));
	if (!keys || !order) {
		free(keys);
		free(order);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		keys[i].index = i;
		key_of(&t->cols[sort->col], row_at(ctx, i), m, &keys[i]);
	}
	qsort(keys, n, sizeof(*keys), sort->invert ? compare_keys_inverted : compare_keys_up);
	for (size_t i = 0; i < n; i++) {
		order[i] = keys[i].index;
		free(keys[i].text);
	}
	free(keys);
	return order;
}

/* ---- the thread table (H, -H, "threads") ---- */

#define THREAD(r) ((const struct model_thread_row *)(r))
#define TOP_SYMBOLS	5	/* a thread's heaviest symbols in the JSON report */

static void thread_state(const void *r, const struct model *m, char *buf, size_t len)
{
	/* A recording's thread not seen to exit ran to its end, not "live" now. */
	snprintf(buf, len, "%s", THREAD(r)->exited ? "exited" : m && m->recorded ? "at end" : "live");
}

static struct json_object *thread_state_json(const void *r, const struct model *m)
{
	(void)m;
	return json_object_new_boolean(THREAD(r)->exited);
}

/* --off-cpu with wakers: who woke the thread's waits the longest. */
static void thread_woken(const void *r, const struct model *m, char *buf, size_t len)
{
	(void)m;
	if (THREAD(r)->woken)
		model_waker_name(&THREAD(r)->woke_most, buf, len);
	else
		snprintf(buf, len, "-");
}

static struct json_object *thread_woken_json(const void *r, const struct model *m)
{
	char name[48];

	(void)m;
	return THREAD(r)->woken ? json_object_new_string(model_waker_name(&THREAD(r)->woke_most, name,
									  sizeof(name)))
				: NULL;
}

static void thread_top(const void *r, const struct model *m, char *buf, size_t len)
{
	(void)m;
	table_field_text(FIELD_SYMBOL, offsetof(struct model_thread_row, top), r, buf, len);
}

/*
 * The JSON has the heaviest few, each with its module and share, from the
 * model as it is (a report is made at once: its rows are this moment's).
 */
static struct json_object *thread_top_json(const void *r, const struct model *m)
{
	struct json_object *top = json_object_new_array();
	struct model_thread_top syms[TOP_SYMBOLS];
	size_t k = model_thread_top(m, THREAD(r)->tid, syms, TOP_SYMBOLS);

	for (size_t i = 0; i < k; i++) {
		const struct model_thread_top *t = &syms[i];
		struct json_object *e = json_object_new_object();

		json_object_object_add(e, "symbol", json_object_new_string(t->sym->name));
		json_object_object_add(e, "module", json_object_new_string(t->sym->module));
		report_add_u64(e, "samples", t->samples);
		json_object_object_add(e, "share", json_object_new_double(t->share));
		json_object_array_add(top, e);
	}
	return top;
}

static const struct table_column thread_columns[] = {
	/*
	 * Under 100 columns the top symbol gets what a thread table can give:
	 * ids of pid_max's 7 digits, a command of its 15 characters.
	 */
	TABLE_FIELD("TID", "tid", 8, false, FIELD_ID, struct model_thread_row, tid, .narrow = 7),
	TABLE_FIELD("PID", "pid", 8, false, FIELD_ID, struct model_thread_row, pid, .narrow = 7),
	TABLE_FIELD("COMMAND", "comm", 16, true, FIELD_CHARS, struct model_thread_row, comm,
		    .narrow = 15),
	TABLE_FIELD("SAMPLES", "samples", 9, false, FIELD_COUNT, struct model_thread_row, samples,
		    .narrow = 8),
	TABLE_FIELD("SHARE", "share", 7, false, FIELD_SHARE, struct model_thread_row, share),
	TABLE_FIELD("IPC", "ipc", 6, false, FIELD_IPC, struct model_thread_row, ipc, .narrow = 5),
	/* --off-cpu: where each thread's wall time went, in seconds. */
	TABLE_FIELD("ON-CPU", "on_cpu_s", 7, false, FIELD_SECONDS, struct model_thread_row, on_cpu,
		    .optional = true, .narrow = 6),
	TABLE_FIELD("SLEEP", "sleep_s", 7, false, FIELD_SECONDS, struct model_thread_row,
		    waited[MODEL_WAIT_SLEEP], .optional = true, .narrow = 6),
	TABLE_FIELD("LOCK", "lock_s", 7, false, FIELD_SECONDS, struct model_thread_row,
		    waited[MODEL_WAIT_LOCK], .optional = true, .narrow = 6),
	TABLE_FIELD("DISK", "disk_s", 7, false, FIELD_SECONDS, struct model_thread_row,
		    waited[MODEL_WAIT_DISK], .optional = true, .narrow = 6),
	TABLE_FIELD("RUNQ", "runqueue_s", 7, false, FIELD_SECONDS, struct model_thread_row,
		    waited[MODEL_WAIT_CPU], .optional = true, .narrow = 6),
	TABLE_FIELD(NULL, "other_wait_s", 0, false, FIELD_SECONDS, struct model_thread_row,
		    waited[MODEL_WAIT_OTHER]),
	TABLE_FIELD("WALL", "wall_s", 7, false, FIELD_SECONDS, struct model_thread_row, wall,
		    .optional = true, .narrow = 6),
	TABLE_CELL("WOKEN MOST BY", "woken_most_by", 20, true, thread_woken, thread_woken_json,
		   .optional = true, .narrow = 16),
	TABLE_CELL("STATE", "exited", 7, true, thread_state, thread_state_json),
	TABLE_CELL("TOP SYMBOL", "top", 0, true, thread_top, thread_top_json),
};

const struct table_def thread_table = {
	"threads", thread_columns, sizeof(thread_columns) / sizeof(thread_columns[0]),
};

/* ---- the process table (P, -P, "per_process") ---- */

#define PROCESS(r) ((const struct model_process_row *)(r))

/* A command's exited processes folded into one row read "N gone". */
static void process_pid(const void *r, const struct model *m, char *buf, size_t len)
{
	(void)m;
	if (PROCESS(r)->exited)
		snprintf(buf, len, "%u gone", PROCESS(r)->exited);
	else
		snprintf(buf, len, "%d", (int)PROCESS(r)->pid);
}

static struct json_object *process_pid_json(const void *r, const struct model *m)
{
	(void)m;
	return PROCESS(r)->exited ? NULL : json_object_new_int(PROCESS(r)->pid);
}

static struct json_object *process_exited_json(const void *r, const struct model *m)
{
	(void)m;
	return PROCESS(r)->exited ? u64_json(PROCESS(r)->exited) : NULL;
}

static const struct table_column process_columns[] = {
	TABLE_CELL("PID", "pid", 8, false, process_pid, process_pid_json),
	TABLE_FIELD("COMMAND", "comm", 16, true, FIELD_CHARS, struct model_process_row, comm),
	TABLE_FIELD("THREADS", "threads", 7, false, FIELD_SIZE, struct model_process_row, threads),
	TABLE_FIELD("SAMPLES", "samples", 9, false, FIELD_COUNT, struct model_process_row, samples),
	TABLE_FIELD("SHARE", "share", 7, false, FIELD_SHARE, struct model_process_row, share),
	TABLE_FIELD("IPC", "ipc", 6, false, FIELD_IPC, struct model_process_row, ipc),
	TABLE_FIELD("TOP SYMBOL", "top", 0, true, FIELD_SYMBOL, struct model_process_row, top),
	TABLE_CELL(NULL, "exited_processes", 0, false, NULL, process_exited_json),
};

const struct table_def process_table = {
	"processes", process_columns, sizeof(process_columns) / sizeof(process_columns[0]),
};

/* ---- the module table (O, --modules, "per_module"): perf report --sort dso ---- */

static const struct table_column module_columns[] = {
	TABLE_FIELD("SELF%", "self", 7, false, FIELD_SHARE, struct model_module_row, share),
	TABLE_FIELD("SAMPLES", "samples", 9, false, FIELD_COUNT, struct model_module_row, samples),
	TABLE_FIELD("SYMBOLS", "symbols", 7, false, FIELD_SIZE, struct model_module_row, symbols),
	TABLE_FIELD("UNNAMED", "unnamed", 7, false, FIELD_SIZE, struct model_module_row, unnamed),
	TABLE_FIELD("NAMED BY", "named_by", 10, true, FIELD_NAMED_BY, struct model_module_row,
		    named_by),
	TABLE_FIELD("MODULE", "module", 0, true, FIELD_STRING, struct model_module_row, module),
};

const struct table_def module_table = {
	"modules", module_columns, sizeof(module_columns) / sizeof(module_columns[0]),
};

/* ---- the diff (--diff, D): symbols, and calling contexts ---- */

/* A diff row and a diff path start with their sides (model_diff.h). */
#define SIDES(r) ((const struct diff_sides *)(r))
#define DIFF(r) ((const struct diff_row *)(r))
#define DPATH(r) ((const struct diff_path *)(r))

static const char *only_in(const struct diff_sides *d)
{
	return !d->present[0] ? "  (only in B)" : !d->present[1] ? "  (only in A)" : "";
}

/* The name says on which side alone it is, where it is on one; the JSON has the sides. */
static void diff_symbol(const void *r, const struct model *m, char *buf, size_t len)
{
	(void)m;
	snprintf(buf, len, "%s%s", DIFF(r)->name, only_in(SIDES(r)));
}

static struct json_object *diff_symbol_json(const void *r, const struct model *m)
{
	(void)m;
	return json_object_new_string(DIFF(r)->name);
}

/* The columns both diff tables begin with: the sides' shares and the change. */
#define DIFF_SIDES								\
	TABLE_FIELD("A%", "a", 7, false, FIELD_SHARE, struct diff_sides, share[0]),	\
	TABLE_FIELD("B%", "b", 7, false, FIELD_SHARE, struct diff_sides, share[1]),	\
	TABLE_FIELD("CHANGE", "change", 8, false, FIELD_CHANGE, struct diff_sides, delta)

static const struct table_column diff_columns[] = {
	DIFF_SIDES,
	TABLE_FIELD("IPC A", "a_ipc", 6, false, FIELD_IPC, struct diff_row, ipc[0],
		    .optional = true),
	TABLE_FIELD("IPC B", "b_ipc", 6, false, FIELD_IPC, struct diff_row, ipc[1],
		    .optional = true),
	TABLE_FIELD("OFF A", "a_offcpu_s", 7, false, FIELD_SECONDS, struct diff_row, offcpu[0],
		    .optional = true, .narrow = 6),
	TABLE_FIELD("OFF B", "b_offcpu_s", 7, false, FIELD_SECONDS, struct diff_row, offcpu[1],
		    .optional = true, .narrow = 6),
	TABLE_FIELD("OFF CHG", "offcpu_change_s", 8, false, FIELD_SECONDS_CHANGE, struct diff_row,
		    offcpu_change, .optional = true, .narrow = 7),
	TABLE_FIELD("MODULE", "module", 24, true, FIELD_STRING, struct diff_row, module,
		    .gap = 2, .narrow = 16),
	TABLE_CELL("SYMBOL, B - A", "symbol", 0, true, diff_symbol, diff_symbol_json, .gap = 2),
	TABLE_FIELD(NULL, "a_samples", 0, false, FIELD_COUNT, struct diff_sides, samples[0]),
	TABLE_FIELD(NULL, "b_samples", 0, false, FIELD_COUNT, struct diff_sides, samples[1]),
};

const struct table_def diff_table = {
	"diff", diff_columns, sizeof(diff_columns) / sizeof(diff_columns[0]),
};

static void path_path(const void *r, const struct model *m, char *buf, size_t len)
{
	(void)m;
	snprintf(buf, len, "%s%s", DPATH(r)->path, only_in(SIDES(r)));
}

static struct json_object *path_path_json(const void *r, const struct model *m)
{
	(void)m;
	return json_object_new_string(DPATH(r)->path);
}

static const struct table_column diff_path_columns[] = {
	DIFF_SIDES,
	TABLE_CELL("CALLING CONTEXT, B - A", "path", 0, true, path_path, path_path_json,
		   .gap = 2, .tail = true),
};

const struct table_def diff_path_table = {
	"paths", diff_path_columns, sizeof(diff_path_columns) / sizeof(diff_path_columns[0]),
};

/* ---- the hot data pages (IBS; M, the report's "pages") ---- */

#define PAGE(r) ((const struct ibs_page *)(r))

/* The data cache misses' mean latency, cycles. */
static double page_latency(const struct ibs_page *p)
{
	return p->lat_n ? (double)p->lat_sum / (double)p->lat_n : NAN;
}

static void page_lat(const void *r, const struct model *m, char *buf, size_t len)
{
	(void)m;
	snprintf(buf, len, "%.0f", isnan(page_latency(PAGE(r))) ? 0.0 : page_latency(PAGE(r)));
}

static struct json_object *page_lat_json(const void *r, const struct model *m)
{
	(void)m;
	return isnan(page_latency(PAGE(r))) ? NULL : json_object_new_double(page_latency(PAGE(r)));
}

static void page_symbols(const void *r, const struct model *m, char *buf, size_t len)
{
	report_ibs_page_symbols(m, PAGE(r), buf, len);
}

static struct json_object *page_symbols_json(const void *r, const struct model *m)
{
	struct json_object *a = json_object_new_array();

	for (unsigned k = 0; k < PAGE(r)->nsyms; k++)
		json_object_array_add(a, json_object_new_string(
			symbolizer_symbol(m->symbols, PAGE(r)->sym[k])->name));
	return a;
}

static const struct table_column page_columns[] = {
	TABLE_FIELD("PID", "pid", 7, false, FIELD_ID, struct ibs_page, key.pid),
	TABLE_FIELD("PAGE", "page", 18, true, FIELD_ADDRESS, struct ibs_page, key.base),
	TABLE_FIELD("SIZE", "size", 5, false, FIELD_BYTES, struct ibs_page, size),
	TABLE_FIELD("LOADS", "loads", 7, false, FIELD_COUNT, struct ibs_page, loads),
	TABLE_FIELD("STORES", "stores", 7, false, FIELD_COUNT, struct ibs_page, stores),
	TABLE_FIELD("MISSES", "dc_misses", 7, false, FIELD_COUNT, struct ibs_page, dc_misses),
	TABLE_CELL("LAT", "latency", 6, false, page_lat, page_lat_json),
	TABLE_CELL("SYMBOLS", "symbols", 0, true, page_symbols, page_symbols_json, .gap = 2),
};

const struct table_def page_table = {
	"pages", page_columns, sizeof(page_columns) / sizeof(page_columns[0]),
};

const struct table_def *const declared_tables[NDECLARED_TABLES] = {
	&thread_table, &process_table, &module_table, &page_table, &diff_table, &diff_path_table,
};
