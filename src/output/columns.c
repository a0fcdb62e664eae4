/* columns.c - the per-symbol table's columns (see columns.h). */
#include "output/columns.h"
#include "output/report.h"
#include "model/model.h"
#include "session/session.h"
#include "symbols/symbols.h"

#include <json-c/json.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* "1234 make", as htop's PID and COMMAND read together; "exited make", folded. */
static void process_cell(const struct model_row *r, char *buf, size_t len)
{
	if (r->pid <= MODEL_FOLDED_PID)
		snprintf(buf, len, "exited %s", r->comm[0] ? r->comm : "?");
	else
		snprintf(buf, len, "%d %s", (int)r->pid, r->comm[0] ? r->comm : "?");
}

/* ---- IBS: what the op samples of a symbol say ("-" without them) ---- */

static void pct_cell(double v, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f", v);
}

static void cycles_cell(double v, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.0f", v);
}

static void load_cell(const struct model_row *r, char *buf, size_t len)
{
	pct_cell(r->ibs ? ibs_load_share(r->ibs) : NAN, buf, len);
}

static void store_cell(const struct model_row *r, char *buf, size_t len)
{
	pct_cell(r->ibs ? ibs_store_share(r->ibs) : NAN, buf, len);
}

static void dc_miss_cell(const struct model_row *r, char *buf, size_t len)
{
	pct_cell(r->ibs ? ibs_miss_pct(r->ibs) : NAN, buf, len);
}

static void latency_cell(const struct model_row *r, char *buf, size_t len)
{
	cycles_cell(r->ibs ? ibs_mean_latency(r->ibs) : NAN, buf, len);
}

static void p90_cell(const struct model_row *r, char *buf, size_t len)
{
	cycles_cell(r->ibs ? ibs_latency_quantile(r->ibs, 0.9) : NAN, buf, len);
}

/* Where most loads that missed L1 were served from, and their share. */
static void source_cell(const struct model_row *r, char *buf, size_t len)
{
	double share;
	enum ibs_data_source src = r->ibs ? ibs_main_source(r->ibs, &share) : IBS_SRC_NONE;

	if (src == IBS_SRC_NONE)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%s %.0f%%", ibs_data_source_name(src), share);
}

static void tlb_cell(const struct model_row *r, char *buf, size_t len)
{
	pct_cell(r->ibs && r->ibs->loads + r->ibs->stores
		 ? 100.0 * (double)r->ibs->tlb_misses / (double)(r->ibs->loads + r->ibs->stores)
		 : NAN, buf, len);
}

static void misp_cell(const struct model_row *r, char *buf, size_t len)
{
	pct_cell(r->ibs && r->ibs->branches
		 ? 100.0 * (double)r->ibs->mispredicts / (double)r->ibs->branches : NAN, buf, len);
}

static void tag_cell(const struct model_row *r, char *buf, size_t len)
{
	cycles_cell(r->ibs ? ibs_tag_to_retire(r->ibs) : NAN, buf, len);
}

/* ---- the cells as JSON: each adds its member under the column's key ---- */

/* -e a,b: the share of each event (self is the shown one's). */
static void events_json(struct json_object *o, const char *key, const struct model_row *r,
			const struct session *s)
{
	struct json_object *ev;

	if (!session_whole(s)->nsampled)
		return;
	ev = json_object_new_object();
	for (int e = 0; e < session_whole(s)->nsampled; e++)
		json_object_object_add(ev, session_info(s)->sampled[e],
				       json_object_new_double(r->event_share ? r->event_share[e] : 0));
	json_object_object_add(o, key, ev);
}

/* --off-cpu: a function's waits by why, in seconds (rows by function alone). */
static void waits_json(struct json_object *o, const char *key, const struct model_row *r,
		       const struct session *s)
{
	struct json_object *w;
	uint64_t ns[MODEL_WAITS];

	if (isnan(r->waited_under))
		return;
	model_waited_why(session_tables(s), r->sym->id, ns);
	w = json_object_new_object();
	for (int k = 0; k < MODEL_WAITS; k++)
		json_object_object_add(w, model_wait_name((enum model_wait)k),
				       json_object_new_double((double)ns[k] / 1e9));
	json_object_object_add(o, key, w);
}

/* The op samples' figures whole; the IBS columns show a few of them. */
static void ibs_json(struct json_object *o, const char *key, const struct model_row *r,
		     const struct session *s)
{
	(void)s;
	if (r->ibs)
		json_object_object_add(o, key, report_ibs_stats_json(r->ibs));
}

/*
 * Rows split by process carry it; pid 0 is swapper (the idle task).  A
 * command's folded exited processes have none: their count instead.
 */
static void pid_json(struct json_object *o, const char *key, const struct model_row *r,
		     const struct session *s)
{
	(void)s;
	if (r->pid <= MODEL_FOLDED_PID) {
		json_object_object_add(o, key, NULL);
		report_add_u64(o, "exited_processes", r->processes);
		return;
	}
	json_object_object_add(o, key, json_object_new_int(r->pid));
}

/*
 * Columns without a title are the JSON's alone; columns without a JSON
 * cell are the screen's and the text's (the IBS figures: the JSON has
 * them all under "ibs").  Then: its sort key (-1: none), the screen
 * width it shows from, the split it needs, and the cell: a typed field
 * of the row (output/tables.h) or its own function.
 */
#define FIELD(title_, key_, width_, left_, sort_, min_screen_, split_, field_, member_)	\
	{ .title = (title_), .key = (key_), .width = (width_), .left = (left_),		\
	  .sort = (sort_), .min_screen = (min_screen_), .split = (split_),		\
	  .field = (field_), .offset = offsetof(struct model_row, member_) }
#define IBS(title_, key_, width_, min_screen_, format_)					\
	{ .title = (title_), .key = (key_), .width = (width_), .sort = -1,		\
	  .min_screen = (min_screen_), .format = (format_), .ibs = true }
#define JSON_ONLY(key_, split_, json_)							\
	{ .key = (key_), .sort = -1, .split = (split_), .json = (json_) }

const struct column columns[] = {
	FIELD("SELF%", "self", 7, false, ST_SORT_SELF, 0, ST_SPLIT_NONE, FIELD_SHARE, self),
	{ .title = "EVENT%", .key = "events", .width = 10, .sort = -1, .per_event = true,
	  .json = events_json },
	{ .title = "TOTAL%", .key = "total", .width = 7, .sort = ST_SORT_TOTAL,
	  .field = FIELD_SHARE, .offset = offsetof(struct model_row, through), .through = true,
	  .min_screen = 50 },
	FIELD("SAMPLES", "samples", 9, false, -1, 60, ST_SPLIT_NONE, FIELD_COUNT, samples),
	FIELD(NULL, "weight", 0, false, -1, 0, ST_SPLIT_NONE, FIELD_COUNT, weight),
	FIELD("IPC", "ipc", 6, false, ST_SORT_IPC, 0, ST_SPLIT_NONE, FIELD_IPC, ipc),
	{ .title = "OFF-CPU", .key = "offcpu_s", .width = 7, .sort = ST_SORT_OFFCPU,
	  .field = FIELD_SECONDS,
	  .offset = offsetof(struct model_row, waited_under), .offcpu = true },
	{ .title = "WALL", .key = "wall_s", .width = 7, .sort = ST_SORT_WALL,
	  .field = FIELD_SECONDS, .offset = offsetof(struct model_row, wall), .offcpu = true },
	JSON_ONLY("offcpu_why_s", ST_SPLIT_NONE, waits_json),
	IBS("LOAD%", "load_pct", 6, 100, load_cell),
	IBS("STORE%", "store_pct", 7, 120, store_cell),
	IBS("DCMISS%", "dc_miss_pct", 8, 100, dc_miss_cell),
	IBS("LAT", "miss_latency", 6, 100, latency_cell),
	IBS("P90", "miss_latency_p90", 6, 110, p90_cell),
	IBS("SOURCE", "data_source", 15, 110, source_cell),
	IBS("DTLB%", "dtlb_miss_pct", 6, 130, tlb_cell),
	IBS("MISP%", "mispredict_pct", 6, 130, misp_cell),
	IBS("T2RET", "tag_to_retire", 6, 130, tag_cell),
	JSON_ONLY("ibs", ST_SPLIT_NONE, ibs_json),
	{ .title = "PID COMMAND", .key = "command", .width = 22, .left = true,
	  .sort = ST_SORT_PROCESS, .split = ST_SPLIT_PID, .format = process_cell },
	JSON_ONLY("pid", ST_SPLIT_PID, pid_json),
	FIELD(NULL, "comm", 0, false, -1, 0, ST_SPLIT_PID, FIELD_CHARS, comm),
	FIELD("COMMAND", "command", 16, true, ST_SORT_PROCESS, 0, ST_SPLIT_COMM, FIELD_CHARS,
	      comm),
	FIELD(NULL, "comm", 0, false, -1, 0, ST_SPLIT_COMM, FIELD_CHARS, comm),
	FIELD(NULL, "processes", 0, false, -1, 0, ST_SPLIT_COMM, FIELD_COUNT32, processes),
	FIELD("NAMED BY", "named_by", 10, true, -1, 120, ST_SPLIT_NONE, FIELD_SYMBOL_NAMED_BY,
	      sym),
	FIELD(NULL, "unknown", 0, false, -1, 0, ST_SPLIT_NONE, FIELD_SYMBOL_UNKNOWN, sym),
	FIELD("MODULE", "module", 24, true, ST_SORT_MODULE, 60, ST_SPLIT_NONE,
	      FIELD_SYMBOL_MODULE, sym),
	FIELD("SYMBOL", "symbol", 0, true, ST_SORT_SYMBOL, 0, ST_SPLIT_NONE, FIELD_SYMBOL, sym),
};
const size_t ncolumns = sizeof(columns) / sizeof(columns[0]);

_Static_assert(sizeof(columns) / sizeof(columns[0]) <= COLUMNS_MAX,
	       "a column set holds a flag a column");

void column_set_init(struct column_set *cs)
{
	memset(cs, 0, sizeof(*cs));
}

void columns_of_session(struct column_set *cs, const struct session *s)
{
	const struct model *m = session_tables(s);

	columns_events(cs, (const char (*)[64])session_info(s)->sampled, session_whole(s)->nsampled,
		       session_whole(s)->shown_event);
	cs->ibs = ibs_model_active(&m->ibs);
	cs->offcpu = m->offcpu_event >= 0;
	cs->through = model_knows_through(m) && session_sort(s)->split == ST_SPLIT_NONE;
}

void columns_events(struct column_set *cs, const char (*names)[64], int n, int shown)
{
	cs->nevents = 0;
	for (int e = 0; e < n && e < ST_MAX_SAMPLED; e++) {
		if (e == shown)
			continue;
		size_t w = strnlen(names[e], 64);

		snprintf(cs->events[cs->nevents].name, sizeof(cs->events[0].name), "%.63s",
			 names[e]);
		cs->events[cs->nevents].width = w < 7 ? 7 : w > 16 ? 16 : (int)w;
		cs->events[cs->nevents++].index = e;
	}
}

/* How many cells a shown column has: one, or one per other event. */
static int cells_of(const struct column_set *cs, const struct column *c)
{
	return c->per_event ? cs->nevents : 1;
}

/* The width of the event cells with the space between them. */
static int events_span(const struct column_set *cs)
{
	int w = 0;

	for (int k = 0; k < cs->nevents; k++)
		w += (k ? 1 : 0) + cs->events[k].width;
	return w;
}

void columns_hide(struct column_set *cs, const char *const *keys, size_t n)
{
	for (size_t i = 0; i < ncolumns; i++) {
		cs->hidden[i] = false;
		for (size_t k = 0; keys && k < n; k++)
			if (!strcmp(keys[k], columns[i].key) &&
			    columns[i].sort != ST_SORT_SELF && columns[i].sort != ST_SORT_SYMBOL)
				cs->hidden[i] = true;
	}
}

static bool shown(const struct column_set *cs, const struct column *c, int screen,
		  enum st_split split)
{
	if (!c->title || (c->split != ST_SPLIT_NONE && c->split != split) ||
	    cs->hidden[c - columns] ||
	    !cells_of(cs, c) || (c->ibs && !cs->ibs) || (c->offcpu && !cs->offcpu) ||
	    (c->through && !cs->through))
		return false;
	return screen == 0 || screen >= c->min_screen;
}

/*
 * Under 100 columns the module and process columns narrow: the symbol
 * takes what is left (system-wide at 80 it had 19, COMMAND and MODULE 16 each).
 */
static int width_of(const struct column *c, int screen, enum st_split split)
{
	if (!screen || screen >= 100)
		return c->width;
	if (c->sort == ST_SORT_MODULE)
		return split == ST_SPLIT_NONE ? 16 : 12;
	if (c->sort == ST_SORT_PROCESS)
		return c->split == ST_SPLIT_PID ? 15 : 10;
	return c->width;
}

/* Appends one cell: right- or left-aligned, truncated to its width. */
static size_t put_cell(char *buf, size_t len, size_t at, const struct column *c,
		       int width, const char *text)
{
	int n;

	if (at >= len)
		return at;
	if (at) {
		/* Two spaces before a text column, as before a name. */
		n = snprintf(buf + at, len - at, c->left ? "  " : " ");
		at += (size_t)n < len - at ? (size_t)n : len - at - 1;
	}
	if (width == 0)
		n = snprintf(buf + at, len - at, "%s", text);
	else if (c->left)
		n = snprintf(buf + at, len - at, "%-*.*s", width, width, text);
	else
		n = snprintf(buf + at, len - at, "%*.*s", width, width, text);
	return at + ((size_t)n < len - at ? (size_t)n : len - at - 1);
}

void columns_title(const struct column_set *cs, char *buf, size_t len, int screen,
		   enum st_split split, int sort, bool invert)
{
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < ncolumns; i++) {
		const struct column *c = &columns[i];
		char t[32];

		if (!shown(cs, c, screen, split))
			continue;
		for (int k = 0; c->per_event && k < cs->nevents; k++)
			at = put_cell(buf, len, at, c, cs->events[k].width, cs->events[k].name);
		if (c->per_event)
			continue;
		snprintf(t, sizeof(t), "%s%s", c->title,
			 c->sort >= 0 && c->sort == sort ? (invert ? "^" : "v") : "");
		at = put_cell(buf, len, at, c, width_of(c, screen, split), t);
	}
}

int columns_sort_at(const struct column_set *cs, int x, int screen, enum st_split split)
{
	int at = 0;

	for (size_t i = 0; i < ncolumns; i++) {
		const struct column *c = &columns[i];
		int w = width_of(c, screen, split), gap = at ? (c->left ? 2 : 1) : 0;

		if (!shown(cs, c, screen, split))
			continue;
		/* The title's cells, with the gap before each (a click there counts). */
		if (c->per_event)
			w = events_span(cs);
		if (x < at + gap + w || w == 0)
			return c->sort;
		at += gap + w;
	}
	return -1;
}

void columns_row(const struct column_set *cs, char *buf, size_t len, int screen,
		 enum st_split split, const struct model_row *r)
{
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < ncolumns; i++) {
		const struct column *c = &columns[i];
		char cell[4096];

		if (!shown(cs, c, screen, split))
			continue;
		for (int k = 0; c->per_event && k < cs->nevents; k++) {
			snprintf(cell, sizeof(cell), "%.2f%%",
				 r->event_share ? r->event_share[cs->events[k].index] : 0.0);
			at = put_cell(buf, len, at, c, cs->events[k].width, cell);
		}
		if (c->per_event)
			continue;
		if (c->format)
			c->format(r, cell, sizeof(cell));
		else
			table_field_text(c->field, c->offset, r, cell, sizeof(cell));
		at = put_cell(buf, len, at, c, width_of(c, screen, split), cell);
	}
}

struct json_object *columns_json(const struct session *s, enum st_split split,
				 const struct model_row *r)
{
	struct json_object *o = json_object_new_object();

	/* Every column with a JSON cell, hidden or not: the JSON is whole. */
	for (size_t i = 0; i < ncolumns; i++) {
		const struct column *c = &columns[i];

		if (c->split != ST_SPLIT_NONE && c->split != split)
			continue;
		if (c->json) {
			c->json(o, c->key, r, s);
		} else if (c->field != FIELD_CELL) {
			struct json_object *v = table_field_json(c->field, c->offset, r);

			/* Off-CPU and through members only where known (else NAN: none). */
			if (v || !(c->offcpu || c->through))
				json_object_object_add(o, c->key, v);
		}
	}
	return o;
}
