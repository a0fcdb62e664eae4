/* report.c - batch output, text and JSON (json-c). */
#include "output/report.h"
#include "output/columns.h"
#include "output/gauges.h"
#include "model/model.h"
#include "output_file.h"
#include "session/options.h"
#include "session/session.h"
#include "text_safe.h"
#include "util.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * Who woke the waits, by thread woken and waker (the heaviest
 * WAKERS_LISTED): the waits each ended and their whole time.
 */
#define WAKERS_LISTED	64

static struct json_object *wakers_json(const struct model *m)
{
	struct json_object *arr = json_object_new_array();
	struct model_waker *w;
	size_t n = model_wakers(m, 0, UINT32_MAX, true, &w);
	char name[48];

	for (size_t i = 0; i < n && i < WAKERS_LISTED; i++) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "tid", json_object_new_int(w[i].woken));
		json_object_object_add(o, "waker", json_object_new_string(
			model_waker_name(&w[i], name, sizeof(name))));
		json_object_object_add(o, "waker_tid", json_object_new_int(w[i].tid));
		json_object_object_add(o, "waker_pid", json_object_new_int(w[i].pid));
		json_object_object_add(o, "waited_s", json_object_new_double((double)w[i].ns / 1e9));
		report_add_u64(o, "waits", w[i].waits);
		json_object_array_add(arr, o);
	}
	free(w);
	return arr;
}

/* The heaviest wakers of every thread's waits, on a line. */
static void wakers_text(const struct model *m, FILE *out)
{
	struct model_waker *w;
	size_t n = model_wakers(m, 0, UINT32_MAX, false, &w);
	char name[48];

	if (n) {
		fprintf(out, "woken by:");
		for (size_t i = 0; i < n && i < 5; i++)
			fprintf(out, "%s %s %.3f s (%llu wait%s)", i ? "," : "",
				model_waker_name(&w[i], name, sizeof(name)), (double)w[i].ns / 1e9,
				(unsigned long long)w[i].waits, w[i].waits == 1 ? "" : "s");
		fprintf(out, "%s\n", n > 5 ? ", ..." : "");
	}
	free(w);
}

static void print_text(struct session *s, FILE *out)
{
	const struct st_source_info *info = session_info(s);
	const struct model *m = session_tables(s);
	struct session_metrics mt;
	struct model_row *rows;
	enum st_split split = session_sort(s)->split;
	size_t n = model_rows_sorted(m, session_sort(s), false, &rows);
	size_t limit = session_options(s)->rows ? (size_t)session_options(s)->rows : n;
	char line[8192], period[192], target[128];
	struct column_set cols;

	session_metrics(s, &mt);
	session_period_text(s, period, sizeof(period));
	session_target_name(s, target, sizeof(target));
	fprintf(out, "shimtop %s  %s  threads %zu (%zu seen)  %s %s  "
		"period %s\n", PACKAGE_VERSION, target,
		mt.threads_live, mt.threads_seen, source_kind_name(info->kind),
		info->events, period);
	fprintf(out, "samples %llu  rate %.0f/s  lost %llu  dropped %llu  "
		"unknown %llu (%.1f%%)  elapsed %.2f s\n",
		(unsigned long long)mt.samples, mt.rate,
		(unsigned long long)mt.lost, (unsigned long long)mt.dropped,
		(unsigned long long)mt.unknown, mt.unknown_pct, mt.elapsed);
	if (info->note[0])
		fprintf(out, "note: %s\n", info->note);
	if (m->copies_shed)
		fprintf(out, "copies: %llu samples came without their stack copy, the front behind "
			"(counted, their callers cut short)\n", (unsigned long long)m->copies_shed);
	if (info->records_skipped)
		fprintf(out, "skipped: %llu records of kinds shimtop does not read\n",
			(unsigned long long)info->records_skipped);
	if (info->samples_left_out)
		fprintf(out, "left out: %llu samples of the file's other events (-e chose one)\n",
			(unsigned long long)info->samples_left_out);
	if (session_history_note(s, line, sizeof(line)))
		fprintf(out, "%s\n", line);
	if (m->tree.capped)
		fprintf(out, "tree: %llu samples stopped short of their paths: the tree is full at %u "
			"nodes (an eighth of --memory; raise it to keep more)\n",
			(unsigned long long)m->tree.capped, cct_max_nodes(&m->tree));
	if (m->folded_processes)
		fprintf(out, "rows: %llu exited processes folded into their commands' rows (past "
			"%u rows of exited processes)\n", (unsigned long long)m->folded_processes,
			model_gone_rows_max(m));
	if (session_names_note(s, line, sizeof(line)))
		fprintf(out, "%s\n", line);
	/* callerchain: its line says what its reference was (no frame pointers: DWARF). */
	if (report_callerchain_text(session_whole(s), line, sizeof(line)))
		fprintf(out, "%s\n", line);
	else if (model_chain_note(session_whole(s), line, sizeof(line)))
		fprintf(out, "chains: %s\n", line);
	if (session_is_snapshot(s))
		fprintf(out, "snapshot taken %s\n", session_snapshot(s)->label);
	if (session_ranged(s))
		fprintf(out, "range %.3f-%.3f s of %.3f s%s\n", session_range_from(s),
			session_range_to(s),
			session_span(s), session_range_complete(s) ? ""
			: " (its start is older than the history keeps, --history or --memory: only the rest)");
	if (m->nsampled) {
		fprintf(out, "sampled each:");
		for (int e = 0; e < m->nsampled; e++)
			fprintf(out, "%s %s %llu samples", e ? "," : "",
				info->sampled[e],
				(unsigned long long)m->event_samples[e]);
		fprintf(out, "; SELF%% is of %s\n", info->sampled[m->shown_event]);
	}
	if (m->offcpu_event >= 0) {
		fprintf(out, "off-CPU:");
		for (int k = 0; k < MODEL_WAITS; k++)
			fprintf(out, "%s %s %.3f s", k ? "," : "", model_wait_name(k),
				(double)m->waited[k] / 1e9);
		fprintf(out, "; %llu waits", (unsigned long long)m->waits);
		/* Counted live, as sampling began; a recording does not say. */
		if (info->kind != ST_SOURCE_REPLAY)
			fprintf(out, " (%llu threads waiting as it began)",
				(unsigned long long)info->offcpu_before);
		fprintf(out, ", %llu switches not seen to end\n",
			(unsigned long long)info->offcpu_unpaired);
		if (info->kind != ST_SOURCE_REPLAY && !info->offcpu_wakers)
			fprintf(out, "woken by: not seen without the kernel's walker (BPF: root, or "
				"CAP_BPF and CAP_PERFMON, and a kernel with BTF)\n");
		else
			wakers_text(m, out);
	}
	if (session_finished(s))
		fprintf(out, "status: %s\n", session_status(s));
	column_set_init(&cols);
	columns_of_session(&cols, s);
	columns_title(&cols, line, sizeof(line), 0, split, -1, false);
	fprintf(out, "\n%s\n", line);
	for (size_t i = 0; i < n && i < limit; i++) {
		columns_row(&cols, line, sizeof(line), 0, split, &rows[i]);
		fprintf(out, "%s\n", line);
	}
	model_rows_free(rows);
	if (session_options(s)->per_process)
		report_processes_text(s, out);
	if (session_options(s)->per_module)
		report_modules_text(s, out);
	if (session_options(s)->per_thread)
		report_threads_text(s, out);
	report_ibs_text(s, out);
	report_observer_text(s, out);
	fflush(out);
}

void report_add_u64(struct json_object *o, const char *key, uint64_t v)
{
	json_object_object_add(o, key, json_object_new_int64((int64_t)v));
}

struct json_object *report_period_json(const struct st_period *p)
{
	struct json_object *o = json_object_new_object();

	report_add_u64(o, "value", p->value);
	json_object_object_add(o, "unit", json_object_new_string(period_unit_name(p->unit)));
	json_object_object_add(o, "randomized", json_object_new_boolean(p->randomized));
	return o;
}

static struct json_object *source_json(const struct st_source_info *in,
				       const struct model *m)
{
	struct json_object *o = json_object_new_object();
	struct json_object *sampled = json_object_new_array();

	json_object_object_add(o, "kind", json_object_new_string(source_kind_name(in->kind)));
	json_object_object_add(o, "events", json_object_new_string(in->events));
	json_object_object_add(o, "period", report_period_json(&in->period));
	report_add_u64(o, "period_fixed_threads", in->period_fixed_threads);
	json_object_object_add(o, "note", json_object_new_string(in->note));
	json_object_object_add(o, "records_skipped", json_object_new_int64((int64_t)in->records_skipped));
	json_object_object_add(o, "samples_left_out",
			       json_object_new_int64((int64_t)in->samples_left_out));
	/* Stack copies: what the kernel gave and what went on, cut to the walks' need. */
	json_object_object_add(o, "stack_bytes_copied", json_object_new_int64((int64_t)in->stack_copied));
	json_object_object_add(o, "stack_bytes_kept", json_object_new_int64((int64_t)in->stack_kept));
	/* -e a,b: each event sampled on its own; "shown": self is of it. */
	for (int e = 0; e < m->nsampled; e++) {
		struct json_object *ev = json_object_new_object();

		json_object_object_add(ev, "event", json_object_new_string(in->sampled[e]));
		report_add_u64(ev, "samples", m->event_samples[e]);
		report_add_u64(ev, "weight", m->event_weight[e]);
		json_object_object_add(ev, "shown", json_object_new_boolean(e == m->shown_event));
		json_object_array_add(sampled, ev);
	}
	json_object_object_add(o, "sampled", sampled);
	/* --off-cpu: the waits by why (seconds), how many, and the switches not seen to end. */
	if (m->offcpu_event >= 0) {
		struct json_object *w = json_object_new_object();

		for (int k = 0; k < MODEL_WAITS; k++)
			json_object_object_add(w, model_wait_name(k),
					       json_object_new_double((double)m->waited[k] / 1e9));
		json_object_object_add(o, "waited_s", w);
		report_add_u64(o, "offcpu_waits", m->waits);
		report_add_u64(o, "offcpu_unpaired", in->offcpu_unpaired);
		if (in->kind != ST_SOURCE_REPLAY)
			report_add_u64(o, "offcpu_waiting_at_start", in->offcpu_before);
		report_add_u64(o, "offcpu_woken_waits", m->woken_waits);
		if (in->kind != ST_SOURCE_REPLAY)
			json_object_object_add(o, "offcpu_wakers_seen",
					       json_object_new_boolean(in->offcpu_wakers));
		json_object_object_add(o, "woken_by", wakers_json(m));
	}
	return o;
}

/* The gauges the UI's view shows, with their verdicts. */
static struct json_object *gauges_json(const struct session *s)
{
	struct json_object *arr = json_object_new_array();
	struct gauge g[GAUGES_MAX];
	size_t n = gauges_collect(s, g);

	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "source", json_object_new_string(g[i].source));
		json_object_object_add(o, "name", json_object_new_string(g[i].name));
		json_object_object_add(o, "value", json_object_new_string(g[i].value));
		json_object_object_add(o, "bad", json_object_new_boolean(g[i].bad));
		json_object_object_add(o, "meaning", json_object_new_string(g[i].meaning));
		json_object_array_add(arr, o);
	}
	return arr;
}

/*
 * The report's two long lists, the rows and the tree's nodes, are written
 * an element at a time: json-c's objects cost some 2 KB a row, and a
 * churning host's report of 60 s held 52,767 rows (220 MB at its end).
 * The document is made with a marker string where each list goes, and
 * written around them.
 */
#define ROWS_MARK	"\x01rows\x01"
#define NODES_MARK	"\x01nodes\x01"
#define MARK_JSON(m)	"\"\\u0001" m "\\u0001\""	/* as json-c writes the marker */

static const int json_flags = JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE;

/* The list element by element: "[a,b,...]"; each made, written and freed. */
static void write_list(FILE *out, size_t n, struct json_object *(*make)(void *ctx, size_t i),
		       void *ctx)
{
	fputc('[', out);
	for (size_t i = 0; i < n; i++) {
		struct json_object *e = make(ctx, i);

		if (i)
			fputc(',', out);
		fputs(json_object_to_json_string_ext(e, json_flags), out);
		json_object_put(e);
	}
	fputc(']', out);
}

struct rows_list {
	struct session *s;
	const struct model_row *rows;
};

static struct json_object *row_element(void *ctx, size_t i)
{
	const struct rows_list *l = ctx;

	return columns_json(l->s, session_sort(l->s)->split, &l->rows[i]);
}

static struct json_object *node_element(void *ctx, size_t i)
{
	return report_tree_node_json(ctx, i + 1);	/* node 0 is the root */
}

void report_print_json(struct session *s, FILE *out)
{
	struct json_object *o = json_object_new_object();
	struct json_object *threads = json_object_new_object();
	const struct model *m;
	struct session_metrics mt;
	struct model_row *rows;
	size_t n, limit;
	char target[128];

	session_settle(s);	/* the tree's totals */
	m = session_tables(s);
	n = model_rows_sorted(m, session_sort(s), false, &rows);
	limit = session_options(s)->rows ? (size_t)session_options(s)->rows : n;

	session_metrics(s, &mt);
	session_target_name(s, target, sizeof(target));
	/* The layout's version: bumped when a field changes meaning or goes. */
	json_object_object_add(o, "schema", json_object_new_int(REPORT_JSON_SCHEMA));
	json_object_object_add(o, "shimtop", json_object_new_string(PACKAGE_VERSION));
	json_object_object_add(o, "pid", json_object_new_int(session_pid(s)));
	json_object_object_add(o, "comm", json_object_new_string(session_comm(s)));
	json_object_object_add(o, "target", json_object_new_string(target));
	json_object_object_add(o, "source", source_json(session_info(s), m));
	if (session_ranged(s)) {
		struct json_object *r = json_object_new_object();

		json_object_object_add(r, "from", json_object_new_double(session_range_from(s)));
		json_object_object_add(r, "to", json_object_new_double(session_range_to(s)));
		json_object_object_add(r, "span", json_object_new_double(session_span(s)));
		json_object_object_add(r, "complete",
				       json_object_new_boolean(session_range_complete(s)));
		json_object_object_add(o, "range", r);
	}
	report_add_u64(threads, "live", mt.threads_live);
	report_add_u64(threads, "seen", mt.threads_seen);
	report_add_u64(threads, "forgotten", m->gone_threads);
	json_object_object_add(o, "threads", threads);
	report_add_u64(o, "samples", mt.samples);
	json_object_object_add(o, "rate", json_object_new_double(mt.rate));
	report_add_u64(o, "lost", mt.lost);
	report_add_u64(o, "dropped", mt.dropped);
	report_add_u64(o, "copies_shed", m->copies_shed);
	report_add_u64(o, "unknown", mt.unknown);
	report_add_u64(o, "folded_processes", m->folded_processes);
	if (m->ipc_cycles >= 0 && m->ipc_instructions >= 0) {
		/* IPC over the intervals the group was scheduled in; the others' samples counted. */
		struct json_object *c = json_object_new_object();

		report_add_u64(c, "cycles", m->cycles);
		report_add_u64(c, "instructions", m->instructions);
		json_object_object_add(c, "ipc", m->cycles ? json_object_new_double(
					       (double)m->instructions / (double)m->cycles)
							: NULL);
		report_add_u64(c, "multiplexed_samples", m->multiplexed);
		json_object_object_add(o, "counters", c);
	}
	json_object_object_add(o, "elapsed", json_object_new_double(mt.elapsed));
	json_object_object_add(o, "finished", json_object_new_boolean(session_finished(s)));
	json_object_object_add(o, "status", json_object_new_string(session_status(s)));
	json_object_object_add(o, "rows", json_object_new_string(ROWS_MARK));
	{
		/* Each table's rows made once (100,000 processes: a row each). */
		struct json_object *rest = json_object_new_object();

		json_object_object_add(o, "per_thread", report_threads_json(s, threads, rest));
		json_object_object_add(o, "per_process", report_processes_json(s, rest));
		json_object_object_add(o, "per_module", report_modules_json(s));
		json_object_object_add(o, "not_listed", rest);
	}
	json_object_object_add(o, "observer", report_observer_json(s));
	json_object_object_add(o, "ibs", report_ibs_json(s));
	json_object_object_add(o, "gauges", gauges_json(s));
	/* The range's, as the tables (its samples along the session's paths). */
	json_object_object_add(o, "tree",
			       report_tree_json(m, json_object_new_string(NODES_MARK)));
	if (session_diff_with(s))
		json_object_object_add(o, "diff", report_diff_json(s, session_diff_with(s)));
	{
		struct json_object *cc = report_callerchain_json(session_whole(s));

		if (cc)
			json_object_object_add(o, "callerchain", cc);
	}
	/* One object per line, so -d output is JSON Lines. */
	{
		const char *doc = json_object_to_json_string_ext(o, json_flags);
		const char *r = strstr(doc, MARK_JSON("rows")), *t = strstr(doc, MARK_JSON("nodes"));
		struct rows_list l = { s, rows };

		if (r && t && r < t) {
			fwrite(doc, 1, (size_t)(r - doc), out);
			write_list(out, n < limit ? n : limit, row_element, &l);
			r += strlen(MARK_JSON("rows"));
			fwrite(r, 1, (size_t)(t - r), out);
			write_list(out, m->tree.n ? m->tree.n - 1 : 0, node_element, (void *)m);
			fputs(t + strlen(MARK_JSON("nodes")), out);
		} else {
			fputs(doc, out);	/* no marker written as expected: never here */
		}
		fputc('\n', out);
	}
	fflush(out);
	json_object_put(o);
	model_rows_free(rows);
}

void report_print(struct session *s, FILE *out)
{
	if (session_options(s)->format == ST_FORMAT_JSON)
		report_print_json(s, out);
	else if (session_options(s)->format == ST_FORMAT_FOLDED)
		report_folded(session_tables(s), out);
	else if (session_diff_with(s))
		report_diff_text(s, session_diff_with(s), out);
	else
		print_text(s, out);
}

/*
 * One report, written to standard output through a stream that keeps the
 * first write's reason: 0 or -errno after one line (a full disk,
 * /dev/full, a closed pipe), so the exit status says the report was lost.
 * Written as it is made: a system-wide hour's report is megabytes of
 * rows, and held whole it put RssAnon past --memory as the session ended.
 */
int report_write_stdout(struct session *s, bool spaced)
{
	struct st_output o;
	FILE *safe;
	int rc = fflush(stdout) ? -errno : 0;

	if (!rc)
		rc = st_output_descriptor(&o, STDOUT_FILENO);
	if (rc) {
		st_error("cannot write the report to standard output: %s", strerror(-rc));
		return rc;
	}
	safe = st_text_safe_stream(o.f);
	/* Names are made safe where they enter; this is for anything else. */
	if (safe) {
		report_print(s, safe);
		if (spaced)
			fputc('\n', safe);
	}
	rc = !safe ? -ENOMEM : fclose(safe) ? -EIO : 0;
	rc = st_output_finish(&o, rc);
	if (rc)
		st_error("cannot write the report to standard output: %s", strerror(-rc));
	return rc;
}
