/* report.c - batch output, text and JSON (json-c). */
#include "output/report.h"
#include "model/model.h"
#include "options.h"
#include "stop_signal.h"
#include "session.h"
#include "symbols/symbols.h"
#include "util.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double unknown_pct(const struct model *m)
{
	return m->samples ? 100.0 * (double)m->unknown / (double)m->samples : 0;
}

static void print_text(struct session *s, FILE *out)
{
	const struct model *m = &s->model;
	struct model_row *rows;
	size_t n = model_rows(m, s->opt->sort, false, &rows);
	size_t limit = s->opt->rows ? (size_t)s->opt->rows : n;

	fprintf(out, "shimtop %s  pid %d (%s)  threads %zu  %s %s  period %s\n",
		PACKAGE_VERSION, (int)s->pid, s->comm, m->nthreads,
		s->info.kind, s->info.events, s->info.period);
	fprintf(out, "samples %llu  rate %.0f/s  lost %llu  dropped %llu  "
		"unknown %llu (%.1f%%)  elapsed %.2f s\n",
		(unsigned long long)m->samples, model_rate(m),
		(unsigned long long)m->kernel_lost,
		(unsigned long long)session_dropped(s),
		(unsigned long long)m->unknown, unknown_pct(m),
		session_elapsed(s));
	if (s->info.note[0])
		fprintf(out, "note: %s\n", s->info.note);
	if (s->finished)
		fprintf(out, "status: %s\n", s->status);
	fprintf(out, "\n%7s %9s %6s  %-24s %s\n", "SELF%", "SAMPLES", "IPC",
		"MODULE", "SYMBOL");
	for (size_t i = 0; i < n && i < limit; i++) {
		char ipc[16] = "-";

		if (!isnan(rows[i].ipc))
			snprintf(ipc, sizeof(ipc), "%.2f", rows[i].ipc);
		fprintf(out, "%6.2f%% %9llu %6s  %-24.24s %s\n", rows[i].self,
			(unsigned long long)rows[i].samples, ipc,
			rows[i].sym->module, rows[i].sym->name);
	}
	free(rows);
	report_observer_text(s, out);
	fflush(out);
}

static void print_json(struct session *s, FILE *out)
{
	const struct model *m = &s->model;
	struct json_object *o = json_object_new_object();
	struct json_object *src = json_object_new_object();
	struct json_object *arr = json_object_new_array();
	struct model_row *rows;
	size_t n = model_rows(m, s->opt->sort, false, &rows);
	size_t limit = s->opt->rows ? (size_t)s->opt->rows : n;

	/* The layout's version: bumped when a field changes meaning or goes. */
	json_object_object_add(o, "schema", json_object_new_int(REPORT_JSON_SCHEMA));
	json_object_object_add(o, "shimtop", json_object_new_string(PACKAGE_VERSION));
	json_object_object_add(o, "pid", json_object_new_int(s->pid));
	json_object_object_add(o, "comm", json_object_new_string(s->comm));
	json_object_object_add(src, "kind", json_object_new_string(s->info.kind));
	json_object_object_add(src, "events", json_object_new_string(s->info.events));
	json_object_object_add(src, "period", json_object_new_string(s->info.period));
	json_object_object_add(src, "note", json_object_new_string(s->info.note));
	json_object_object_add(o, "source", src);
	json_object_object_add(o, "threads", json_object_new_int64((int64_t)m->nthreads));
	json_object_object_add(o, "samples", json_object_new_int64((int64_t)m->samples));
	json_object_object_add(o, "rate", json_object_new_double(model_rate(m)));
	json_object_object_add(o, "lost", json_object_new_int64((int64_t)m->kernel_lost));
	json_object_object_add(o, "dropped", json_object_new_int64((int64_t)session_dropped(s)));
	json_object_object_add(o, "unknown", json_object_new_int64((int64_t)m->unknown));
	json_object_object_add(o, "elapsed", json_object_new_double(session_elapsed(s)));
	json_object_object_add(o, "finished", json_object_new_boolean(s->finished));
	json_object_object_add(o, "status", json_object_new_string(s->status));
	for (size_t i = 0; i < n && i < limit; i++) {
		struct json_object *r = json_object_new_object();

		json_object_object_add(r, "symbol", json_object_new_string(rows[i].sym->name));
		json_object_object_add(r, "module", json_object_new_string(rows[i].sym->module));
		json_object_object_add(r, "samples", json_object_new_int64((int64_t)rows[i].samples));
		json_object_object_add(r, "weight", json_object_new_int64((int64_t)rows[i].weight));
		json_object_object_add(r, "self", json_object_new_double(rows[i].self));
		json_object_object_add(r, "ipc", isnan(rows[i].ipc) ? NULL
					  : json_object_new_double(rows[i].ipc));
		json_object_object_add(r, "unknown", json_object_new_boolean(rows[i].sym->unknown));
		json_object_array_add(arr, r);
	}
	json_object_object_add(o, "rows", arr);
	json_object_object_add(o, "observer", report_observer_json(s));
	/* One object per line, so -d output is JSON Lines. */
	fprintf(out, "%s\n", json_object_to_json_string_ext(o,
		JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	fflush(out);
	json_object_put(o);
	free(rows);
}

void report_print(struct session *s, FILE *out)
{
	if (s->opt->format == ST_FORMAT_JSON)
		print_json(s, out);
	else
		print_text(s, out);
}

int report_run_batch(struct session *s)
{
	const struct st_options *o = s->opt;
	struct timespec tick = { 0, 50 * 1000 * 1000 };
	double next_print = o->delay;
	int status;

	stop_signal_install();
	status = session_start(s);
	if (status < 0)
		return status;
	while (!stop_signal_received() && !s->finished) {
		double t;

		nanosleep(&tick, NULL);
		session_pump(s);
		t = session_elapsed(s);
		if (o->duration && t >= o->duration)
			break;
		if (o->delay_set && t >= next_print) {
			report_print(s, stdout);
			if (o->format == ST_FORMAT_TEXT)
				fputc('\n', stdout);
			next_print += o->delay;
		}
	}
	status = session_stop(s);
	report_print(s, stdout);
	if (s->info.failed) {
		st_error("%s; the table covers the records before it", s->info.finish_reason);
		return -EIO;
	}
	if (s->obs_info.failed) {
		st_error("%s; the observer's figures cover the samples before it",
			 s->obs_info.finish_reason);
		return -EIO;
	}
	if (s->has_target && s->info.finished)
		st_warn("%s; the table covers the time until then", s->status);
	return status;
}
