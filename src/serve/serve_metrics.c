/*
 * serve_metrics.c - /metrics in Prometheus's text exposition format:
 * the header's figures as counters and gauges, a bounded set of labels
 * (the heaviest processes, the gauges, and symbols only when asked for).
 */
#include "model/histogram.h"
#include "model/model.h"
#include "output/gauges.h"
#include "serve/serve.h"
#include "session/session.h"
#include "symbols/symbols.h"
#include "text_safe.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A label value: the target's bytes made valid text, then \ " and newline escaped. */
static void put_label(FILE *out, const char *name, const char *value, bool last)
{
	char *safe = st_text_safe(st_xstrdup(value ? value : ""));

	fprintf(out, "%s=\"", name);
	for (const char *p = safe; *p; p++) {
		if (*p == '\\' || *p == '"')
			fputc('\\', out);
		if (*p == '\n')
			fputs("\\n", out);
		else
			fputc(*p, out);
	}
	fprintf(out, "\"%s", last ? "" : ",");
	free(safe);
}

static void family(FILE *out, const char *name, const char *type, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void value(FILE *out, double v)
{
	if (isnan(v))
		fputs(" NaN\n", out);
	else if (v == floor(v) && fabs(v) < 9007199254740992.0)
		fprintf(out, " %.0f\n", v);	/* a count, whole */
	else
		fprintf(out, " %.9g\n", v);
}

static void one(FILE *out, const char *name, const char *type, const char *help, double v)
{
	family(out, name, type, help);
	fputs(name, out);
	value(out, v);
}

static void processes(FILE *out, const struct model *m)
{
	struct model_process_row *rows = NULL;
	size_t n = model_process_rows(m, &rows), shown = n < SERVE_PROCESSES_MAX ? n : SERVE_PROCESSES_MAX;
	char pid[16];

	family(out, "shimtop_process_samples_total", "counter",
	       "Samples of each of the heaviest processes (at most 10).");
	for (size_t i = 0; i < shown; i++) {
		if (rows[i].exited)
			snprintf(pid, sizeof(pid), "exited");
		else
			snprintf(pid, sizeof(pid), "%d", (int)rows[i].pid);
		fputs("shimtop_process_samples_total{", out);
		put_label(out, "pid", pid, false);
		put_label(out, "comm", rows[i].comm, true);
		fputc('}', out);
		value(out, (double)rows[i].samples);
	}
	family(out, "shimtop_process_ipc", "gauge",
	       "Instructions per cycle of each of the heaviest processes, where counted.");
	for (size_t i = 0; i < shown; i++) {
		if (isnan(rows[i].ipc))
			continue;
		snprintf(pid, sizeof(pid), "%d", (int)rows[i].pid);
		fputs("shimtop_process_ipc{", out);
		put_label(out, "pid", pid, false);
		put_label(out, "comm", rows[i].comm, true);
		fputc('}', out);
		value(out, rows[i].ipc);
	}
	free(rows);
}

static void symbols(FILE *out, const struct model *m, unsigned top)
{
	struct model_row *rows = NULL;
	size_t n = model_rows(m, ST_SORT_SELF, false, &rows);

	family(out, "shimtop_symbol_samples_total", "counter",
	       "Samples of each of the heaviest symbols (--serve-top).");
	for (size_t i = 0; i < n && i < top; i++) {
		fputs("shimtop_symbol_samples_total{", out);
		put_label(out, "module", rows[i].sym->module, false);
		put_label(out, "symbol", rows[i].sym->name, true);
		fputc('}', out);
		value(out, (double)rows[i].samples);
	}
	model_rows_free(rows);
}

static void observer(FILE *out, const struct session *s, const struct session_metrics *mt)
{
	const struct obs_model *o = &session_whole(s)->obs;

	one(out, "shimtop_observer_samples_total", "counter",
	    "Samples the observer thread took.", (double)session_observer_info(s)->produced);
	one(out, "shimtop_observer_rate", "gauge", "Observer samples per second.",
	    mt->observer_rate);
	one(out, "shimtop_observer_dte_judged_total", "counter",
	    "Observer samples double-time error correction judged.", (double)dte_judged(&o->dte));
	one(out, "shimtop_observer_dte_accepted_total", "counter",
	    "Observer samples DTE accepted (|CPC - 1| within the tolerance).",
	    (double)o->dte.accepted);
	one(out, "shimtop_observer_dte_accepted_ratio", "gauge",
	    "The share of judged observer samples DTE accepted, 0 to 1.",
	    dte_share(&o->dte, o->dte.accepted) / 100);
	one(out, "shimtop_observer_cpc_median", "gauge",
	    "The median ratio of the observer's two clocks over a window (1: no skew).",
	    o->cpc.n ? hist_quantile(&o->cpc, 0.5) : NAN);
}

static void gauges(FILE *out, const struct session *s)
{
	struct gauge g[GAUGES_MAX];
	size_t n = gauges_collect(s, g);

	family(out, "shimtop_gauge_fill", "gauge",
	       "Each trust gauge of the gauges view, 0 to 1 (see its meaning there).");
	for (size_t i = 0; i < n; i++) {
		if (g[i].fill < 0)
			continue;
		fputs("shimtop_gauge_fill{", out);
		put_label(out, "source", g[i].source, false);
		put_label(out, "gauge", g[i].name, true);
		fputc('}', out);
		value(out, g[i].fill);
	}
	family(out, "shimtop_gauge_bad", "gauge", "1 where a gauge says its numbers are doubtful.");
	for (size_t i = 0; i < n; i++) {
		fputs("shimtop_gauge_bad{", out);
		put_label(out, "source", g[i].source, false);
		put_label(out, "gauge", g[i].name, true);
		fputc('}', out);
		value(out, g[i].bad);
	}
}

char *serve_metrics_text(const struct session *s, unsigned top, const struct serve_stats *st,
			 size_t *len)
{
	const struct model *m = session_tables(s);
	struct session_metrics mt;
	char *buf = NULL;
	FILE *out = st_xcheck(open_memstream(&buf, len));

	session_metrics(s, &mt);
	family(out, "shimtop_info", "gauge", "What is sampled: 1, the labels say.");
	fputs("shimtop_info{", out);
	put_label(out, "version", PACKAGE_VERSION, false);
	put_label(out, "source", source_kind_name(session_info(s)->kind), false);
	put_label(out, "events", session_info(s)->events, true);
	fputs("} 1\n", out);
	one(out, "shimtop_samples_total", "counter", "Samples taken of the target.",
	    (double)mt.samples);
	one(out, "shimtop_lost_samples_total", "counter", "Samples the kernel lost.",
	    (double)mt.lost);
	one(out, "shimtop_dropped_records_total", "counter",
	    "Records shimtop's rings dropped (never blocking the producer).", (double)mt.dropped);
	one(out, "shimtop_unknown_samples_total", "counter", "Samples no symbol explains.",
	    (double)mt.unknown);
	one(out, "shimtop_sample_rate", "gauge", "Samples per second over the last second.",
	    mt.rate);
	one(out, "shimtop_threads", "gauge", "The target's threads alive now.",
	    (double)mt.threads_live);
	one(out, "shimtop_threads_seen_total", "counter", "Threads seen since the start.",
	    (double)mt.threads_seen);
	one(out, "shimtop_elapsed_seconds", "gauge", "Seconds of sampling.", mt.elapsed);
	one(out, "shimtop_finished", "gauge", "1 once the target has ended (serving goes on).",
	    session_finished(s));
	processes(out, m);
	if (top)
		symbols(out, m, top);
	if (mt.observing)
		observer(out, s, &mt);
	gauges(out, s);
	one(out, "shimtop_http_requests_total", "counter", "HTTP requests answered.",
	    (double)st->answered);
	one(out, "shimtop_http_refused_total", "counter", "HTTP requests refused (4xx, 5xx).",
	    (double)st->refused);
	one(out, "shimtop_http_connections", "gauge", "HTTP connections open now.",
	    (double)st->connections);
	one(out, "shimtop_http_connection_slots", "gauge",
	    "HTTP connections held at most; past them the most crowded address loses one.",
	    (double)st->slots);
	one(out, "shimtop_http_connections_cut_total", "counter",
	    "HTTP connections the server cut: to make room in a flood, or silent too long.",
	    (double)st->connections_cut);
	one(out, "shimtop_profiles_running", "gauge", "pprof profile windows open now.",
	    st->profiles_running);
	if (fclose(out))
		st_xcheck(NULL);	/* out of memory */
	return buf;
}
