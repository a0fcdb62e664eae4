/* tables.c - the thread and process tables (see tables.h). */
#include "output/tables.h"
#include "output/report.h"
#include "model/model.h"
#include "symbols/symbols.h"

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>

#define TOP_SYMBOLS	5	/* a thread's heaviest symbols in the JSON report */

void table_title(const struct table_def *t, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < t->n && at < len; i++) {
		const struct table_column *c = &t->cols[i];
		int n = c->width == 0 ? snprintf(buf + at, len - at, "%s%s", i ? " " : "", c->title)
			: snprintf(buf + at, len - at, c->left ? "%s%-*s" : "%s%*s", i ? " " : "",
				   c->width, c->title);

		at += n > 0 ? (size_t)n : 0;
	}
}

void table_row(const struct table_def *t, const void *row, const struct model *m, char *buf,
	       size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < t->n && at < len; i++) {
		const struct table_column *c = &t->cols[i];
		char cell[512];
		int n;

		c->text(row, m, cell, sizeof(cell));
		if (c->width == 0)
			n = snprintf(buf + at, len - at, "%s%s", i ? " " : "", cell);
		else if (c->left)
			n = snprintf(buf + at, len - at, "%s%-*.*s", i ? " " : "", c->width, c->width,
				     cell);
		else
			n = snprintf(buf + at, len - at, "%s%*s", i ? " " : "", c->width, cell);
		at += n > 0 ? (size_t)n : 0;
	}
}

struct json_object *table_json(const struct table_def *t, const void *row,
			       const struct model *m)
{
	struct json_object *o = json_object_new_object();

	for (size_t i = 0; i < t->n; i++)
		json_object_object_add(o, t->cols[i].key, t->cols[i].json(row, m));
	return o;
}

static void ipc_text(double ipc, char *buf, size_t len)
{
	if (isnan(ipc))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2f", ipc);
}

static struct json_object *ipc_json(double ipc)
{
	return isnan(ipc) ? NULL : json_object_new_double(ipc);
}

/* As report_add_u64 writes a count. */
static struct json_object *u64_json(uint64_t v)
{
	return json_object_new_int64((int64_t)v);
}

/* ---- the thread table (H, -H, "threads") ---- */

#define THREAD(r) ((const struct model_thread_row *)(r))

static void thread_tid(const void *r, const struct model *m, char *buf, size_t len)
{
	(void)m;
	snprintf(buf, len, "%d", (int)THREAD(r)->t->tid);
}

static struct json_object *thread_tid_json(const void *r, const struct model *m)
{
	(void)m;
	return json_object_new_int(THREAD(r)->t->tid);
}

static void thread_pid(const void *r, const struct model *m, char *buf, size_t len)
{
	(void)m;
	snprintf(buf, len, "%d", (int)THREAD(r)->t->pid);
}

static struct json_object *thread_pid_json(const void *r, const struct model *m)
{
	(void)m;
	return json_object_new_int(THREAD(r)->t->pid);
}

static void thread_comm(const void *r, const struct model *m, char *buf, size_t len)
{
	(void)m;
	snprintf(buf, len, "%s", THREAD(r)->t->comm);
}

static struct json_object *thread_comm_json(const void *r, const struct model *m)
{
	(void)m;
	return json_object_new_string(THREAD(r)->t->comm);
}

static void thread_samples(const void *r, const struct model *m, char *buf, size_t len)
{
	(void)m;
	snprintf(buf, len, "%llu", (unsigned long long)THREAD(r)->t->samples);
}

static struct json_object *thread_samples_json(const void *r, const struct model *m)
{
	(void)m;
	return u64_json(THREAD(r)->t->samples);
}

static void thread_share(const void *r, const struct model *m, char *buf, size_t len)
{
	(void)m;
	snprintf(buf, len, "%.2f%%", THREAD(r)->share);
}

static struct json_object *thread_share_json(const void *r, const struct model *m)
{
	(void)m;
	return json_object_new_double(THREAD(r)->share);
}

static void thread_ipc(const void *r, const struct model *m, char *buf, size_t len)
{
	(void)m;
	ipc_text(THREAD(r)->ipc, buf, len);
}

static struct json_object *thread_ipc_json(const void *r, const struct model *m)
{
	(void)m;
	return ipc_json(THREAD(r)->ipc);
}

static void thread_state(const void *r, const struct model *m, char *buf, size_t len)
{
	(void)m;
	snprintf(buf, len, "%s", THREAD(r)->t->exited ? "exited" : "live");
}

static struct json_object *thread_state_json(const void *r, const struct model *m)
{
	(void)m;
	return json_object_new_boolean(THREAD(r)->t->exited);
}

static void thread_top(const void *r, const struct model *m, char *buf, size_t len)
{
	struct model_row top;

	snprintf(buf, len, "%s", model_thread_top(m, THREAD(r)->t, &top, 1) ? top.sym->name : "-");
}

/* The JSON has the heaviest few, each with its module and share. */
static struct json_object *thread_top_json(const void *r, const struct model *m)
{
	struct json_object *top = json_object_new_array();
	struct model_row syms[TOP_SYMBOLS];
	size_t k = model_thread_top(m, THREAD(r)->t, syms, TOP_SYMBOLS);

	for (size_t i = 0; i < k; i++) {
		struct json_object *e = json_object_new_object();

		json_object_object_add(e, "symbol", json_object_new_string(syms[i].sym->name));
		json_object_object_add(e, "module", json_object_new_string(syms[i].sym->module));
		report_add_u64(e, "samples", syms[i].samples);
		json_object_object_add(e, "share", json_object_new_double(syms[i].self));
		json_object_array_add(top, e);
	}
	return top;
}

static const struct table_column thread_columns[] = {
	{ "TID", "tid", 8, false, thread_tid, thread_tid_json },
	{ "PID", "pid", 8, false, thread_pid, thread_pid_json },
	{ "COMMAND", "comm", 16, true, thread_comm, thread_comm_json },
	{ "SAMPLES", "samples", 9, false, thread_samples, thread_samples_json },
	{ "SHARE", "share", 7, false, thread_share, thread_share_json },
	{ "IPC", "ipc", 6, false, thread_ipc, thread_ipc_json },
	{ "STATE", "exited", 7, true, thread_state, thread_state_json },
	{ "TOP SYMBOL", "top", 0, true, thread_top, thread_top_json },
};

const struct table_def thread_table = {
	thread_columns, sizeof(thread_columns) / sizeof(thread_columns[0]),
};

/* ---- the process table (P, -P, "per_process") ---- */

#define PROCESS(r) ((const struct model_process_row *)(r))

static void process_pid(const void *r, const struct model *m, char *buf, size_t len)
{
	(void)m;
	snprintf(buf, len, "%d", (int)PROCESS(r)->pid);
}

static struct json_object *process_pid_json(const void *r, const struct model *m)
{
	(void)m;
	return json_object_new_int(PROCESS(r)->pid);
}

static void process_comm(const void *r, const struct model *m, char *buf, size_t len)
{
	(void)m;
	snprintf(buf, len, "%s", PROCESS(r)->comm && PROCESS(r)->comm[0] ? PROCESS(r)->comm : "?");
}

static struct json_object *process_comm_json(const void *r, const struct model *m)
{
	(void)m;
	return json_object_new_string(PROCESS(r)->comm ? PROCESS(r)->comm : "");
}

static void process_threads(const void *r, const struct model *m, char *buf, size_t len)
{
	(void)m;
	snprintf(buf, len, "%zu", PROCESS(r)->threads);
}

static struct json_object *process_threads_json(const void *r, const struct model *m)
{
	(void)m;
	return u64_json(PROCESS(r)->threads);
}

static void process_samples(const void *r, const struct model *m, char *buf, size_t len)
{
	(void)m;
	snprintf(buf, len, "%llu", (unsigned long long)PROCESS(r)->samples);
}

static struct json_object *process_samples_json(const void *r, const struct model *m)
{
	(void)m;
	return u64_json(PROCESS(r)->samples);
}

static void process_share(const void *r, const struct model *m, char *buf, size_t len)
{
	(void)m;
	snprintf(buf, len, "%.2f%%", PROCESS(r)->share);
}

static struct json_object *process_share_json(const void *r, const struct model *m)
{
	(void)m;
	return json_object_new_double(PROCESS(r)->share);
}

static void process_ipc(const void *r, const struct model *m, char *buf, size_t len)
{
	(void)m;
	ipc_text(PROCESS(r)->ipc, buf, len);
}

static struct json_object *process_ipc_json(const void *r, const struct model *m)
{
	(void)m;
	return ipc_json(PROCESS(r)->ipc);
}

static void process_top(const void *r, const struct model *m, char *buf, size_t len)
{
	(void)m;
	snprintf(buf, len, "%s", PROCESS(r)->top ? PROCESS(r)->top->name : "-");
}

static struct json_object *process_top_json(const void *r, const struct model *m)
{
	(void)m;
	return PROCESS(r)->top ? json_object_new_string(PROCESS(r)->top->name) : NULL;
}

static const struct table_column process_columns[] = {
	{ "PID", "pid", 8, false, process_pid, process_pid_json },
	{ "COMMAND", "comm", 16, true, process_comm, process_comm_json },
	{ "THREADS", "threads", 7, false, process_threads, process_threads_json },
	{ "SAMPLES", "samples", 9, false, process_samples, process_samples_json },
	{ "SHARE", "share", 7, false, process_share, process_share_json },
	{ "IPC", "ipc", 6, false, process_ipc, process_ipc_json },
	{ "TOP SYMBOL", "top", 0, true, process_top, process_top_json },
};

const struct table_def process_table = {
	process_columns, sizeof(process_columns) / sizeof(process_columns[0]),
};
