/*
 * export.c - --export: the format chosen, written where -o says through
 * a temporary name; and the CSV tables (symbols, the observer's tags,
 * the timeline), one table a file with a header row.
 */
#include "output/export.h"
#include "model/model.h"
#include "output/report.h"
#include "session/session.h"
#include "symbols/symbols.h"
#include "output_file.h"
#include "text_safe.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void export_csv_field(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

/* A number, or nothing where there is none (NAN: no counters). */
static void csv_number(FILE *out, double v)
{
	fputc(',', out);
	if (!isnan(v))
		fprintf(out, "%.6g", v);
}

int export_csv_symbols(struct session *s, FILE *out)
{
	const struct model *m = session_tables(s);
	struct model_row *rows;
	size_t n = model_rows_sorted(m, session_sort(s), false, &rows);

	fputs("self_pct,samples,weight,ipc,pid,command,module,symbol,raw_symbol\n", out);
	for (size_t i = 0; i < n; i++) {
		const struct model_row *r = &rows[i];

		fprintf(out, "%.4f,%llu,%llu", r->self, (unsigned long long)r->samples,
			(unsigned long long)r->weight);
		csv_number(out, r->ipc);
		fputc(',', out);
		if (r->pid > 0)	/* not swapper's 0, nor a command's folded processes */
			fprintf(out, "%d", (int)r->pid);
		fputc(',', out);
		export_csv_field(out, r->comm);
		fputc(',', out);
		export_csv_field(out, r->sym->module);
		fputc(',', out);
		export_csv_field(out, r->sym->name);
		fputc(',', out);
		export_csv_field(out, r->sym->raw ? r->sym->raw : r->sym->name);
		fputc('\n', out);
	}
	model_rows_free(rows);
	return ferror(out) ? -EIO : 0;
}

int export_csv_tags(struct session *s, FILE *out)
{
	const struct obs_model *m = &session_whole(s)->obs;
	const struct obs_tag **tags;
	size_t n;

	if (!m->active) {
		st_error("the recording has no observer samples (--observe): no tag table to export");
		return -ENODATA;
	}
	fputs("tag,time_pct,samples", out);
	for (unsigned c = 0; c < m->meta.ncounters; c++) {
		fputc(',', out);
		export_csv_field(out, m->meta.counter_name[c]);
		fputs("_per_s", out);
	}
	fputs(",ipc\n", out);
	n = obs_model_tags(m, &tags);
	for (size_t i = 0; i < n; i++) {
		char label[128];

		report_tag_label(s, tags[i], label, sizeof(label));
		export_csv_field(out, label);
		fprintf(out, ",%.4f,%llu", obs_tag_share(m, tags[i]),
			(unsigned long long)tags[i]->samples);
		for (unsigned c = 0; c < m->meta.ncounters; c++)
			csv_number(out, obs_tag_rate(m, tags[i], c));
		csv_number(out, m->have_hardware ? obs_tag_hardware_ipc(tags[i]) : NAN);
		fputc('\n', out);
	}
	free(tags);
	return ferror(out) ? -EIO : 0;
}

int export_csv_timeline(struct session *s, FILE *out)
{
	const struct model *m = session_tables(s);
	const double bucket = (double)MODEL_BUCKET_NS / 1e9;

	fputs("seconds,samples,samples_per_s\n", out);
	for (size_t b = 0; b < m->timeline_len; b++)
		fprintf(out, "%.1f,%u,%.1f\n", (double)b * bucket, m->timeline[b],
			m->timeline[b] / bucket);
	return ferror(out) ? -EIO : 0;
}

static int write_text(struct session *s, enum st_export how, FILE *out)
{
	switch (how) {
	case ST_EXPORT_FOLDED:
		report_folded(session_tables(s), out);
		return ferror(out) ? -EIO : 0;
	case ST_EXPORT_SPEEDSCOPE:
		return export_speedscope(s, out);
	case ST_EXPORT_PPROF:
		return export_pprof(s, out);
	case ST_EXPORT_CSV:
		return export_csv_symbols(s, out);
	case ST_EXPORT_CSV_TAGS:
		return export_csv_tags(s, out);
	case ST_EXPORT_CSV_TIMELINE:
		return export_csv_timeline(s, out);
	default:
		return -EINVAL;
	}
}

/* Every text format through text_safe.h's stream: pprof is binary. */
static int write_format(struct session *s, enum st_export how, FILE *out)
{
	FILE *safe;
	int rc;

	if (how == ST_EXPORT_PPROF)
		return write_text(s, how, out);
	safe = st_text_safe_stream(out);
	if (!safe)
		return -ENOMEM;
	rc = write_text(s, how, safe);
	if (fclose(safe) && !rc)
		rc = -EIO;
	return rc;
}

int export_session(struct session *s, enum st_export how, const char *path)
{
	struct st_output out;
	int rc;

	if (!path) {
		if (how == ST_EXPORT_PPROF && isatty(STDOUT_FILENO)) {
			st_error("pprof profiles are binary: give -o FILE (e.g. -o cpu.pb.gz) "
				 "or redirect standard output");
			return -EINVAL;
		}
		/*
		 * A reader that stops early (| head) ends us as it ends perf
		 * script: the session is stopped and its snapshot written.
		 */
		signal(SIGPIPE, SIG_DFL);
		rc = write_format(s, how, stdout);
		if (!rc && fflush(stdout))
			rc = -errno;
		if (rc == -EIO || (rc < 0 && rc != -ENODATA && rc != -EINVAL))
			st_error("cannot write the %s export to standard output: %s",
				 st_export_name(how), strerror(-rc));
		return rc;
	}
	rc = st_output_replace(&out, path, ST_OUTPUT_PRIVATE);
	if (rc) {
		st_error("cannot write %s: %s; choose another -o path", path,
			 st_output_strerror(rc));
		return rc;
	}
	rc = st_output_finish(&out, write_format(s, how, out.f));
	if (rc && rc != -ENODATA)
		st_error("cannot write %s: %s; nothing was written there", path,
			 st_output_strerror(rc));
	return rc;
}
