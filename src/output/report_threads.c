/*
 * report_threads.c - the per-thread table in batch output: every thread
 * still known (live, or exited less than a second of record time ago),
 * its share, IPC and heaviest symbols; a line for the forgotten ones.
 */
#include "output/report.h"
#include "output/tables.h"
#include "model/model.h"
#include "session/session.h"
#include "symbols/symbols.h"

#include <json-c/json.h>
#include <stdlib.h>


/*
 * Threads listed at most (the heaviest; -n lowers it): a forking target
 * leaves 100,000 processes of one sample each, whose rows would cost
 * hundreds of megabytes of JSON and tell nothing.
 */
#define THREADS_LISTED	256

size_t report_threads_listed(struct session *s, size_t nthreads)
{
	int rows = session_options(s)->rows;
	size_t cap = rows > 0 && (size_t)rows < THREADS_LISTED ? (size_t)rows : THREADS_LISTED;

	return nthreads < cap ? nthreads : cap;
}

static uint64_t threads_samples(const struct model_thread_row *rows, size_t n)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += rows[i].samples;
	return sum;
}

static uint64_t processes_samples(const struct model_process_row *rows, size_t n)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += rows[i].samples;
	return sum;
}

void report_threads_text(struct session *s, FILE *out)
{
	const struct model *m = session_tables(s);
	struct model_thread_row *rows;
	size_t all = model_thread_rows(m, &rows);
	size_t n = report_threads_listed(s, all);

	table_print(out, &thread_table, rows, n, sizeof(*rows), m);
	if (n < all)
		fprintf(out, "(%zu lighter threads not listed: %llu samples)\n", all - n,
			(unsigned long long)threads_samples(rows + n, all - n));
	if (m->gone_threads)
		fprintf(out, "(%llu exited threads no longer listed: %llu samples)\n",
			(unsigned long long)m->gone_threads,
			(unsigned long long)m->gone_samples);
	free(rows);
}

struct json_object *report_threads_json(struct session *s, struct json_object *threads,
				       struct json_object *rest)
{
	const struct model *m = session_tables(s);
	struct json_object *arr, *t = json_object_new_object();
	struct model_thread_row *rows;
	size_t all = model_thread_rows(m, &rows), n = report_threads_listed(s, all);

	arr = table_json_rows(&thread_table, rows, n, sizeof(*rows), m);
	report_add_u64(threads, "listed", n);
	/* Lighter ones past the list, and those forgotten after they exited. */
	report_add_u64(t, "threads", (uint64_t)(all - n) + m->gone_threads);
	report_add_u64(t, "samples", threads_samples(rows + n, all - n) + m->gone_samples);
	json_object_object_add(rest, "threads", t);
	free(rows);
	return arr;
}

/* ---- the per-process table (-P, "per_process"), as long as the thread one ---- */

void report_processes_text(struct session *s, FILE *out)
{
	struct model_process_row *rows;
	size_t all = model_process_rows(session_tables(s), &rows);
	size_t n = report_threads_listed(s, all);

	table_print(out, &process_table, rows, n, sizeof(*rows), session_tables(s));
	if (n < all)
		fprintf(out, "(%zu lighter processes not listed: %llu samples)\n", all - n,
			(unsigned long long)processes_samples(rows + n, all - n));
	free(rows);
}

struct json_object *report_processes_json(struct session *s, struct json_object *rest)
{
	struct json_object *arr, *r = json_object_new_object();
	struct model_process_row *rows;
	size_t all = model_process_rows(session_tables(s), &rows), n = report_threads_listed(s, all);

	arr = table_json_rows(&process_table, rows, n, sizeof(*rows), session_tables(s));
	report_add_u64(r, "processes", all - n);
	report_add_u64(r, "samples", processes_samples(rows + n, all - n));
	json_object_object_add(rest, "processes", r);
	free(rows);
	return arr;
}
