/*
 * report_diff.c - --diff in batch: the symbols and calling contexts of
 * -i A against --diff B, largest change of share first, as text or as
 * the JSON report's "diff" section.  A symbol one side lacks shows "-"
 * there (JSON: null) and is marked "only in A" or "only in B".
 */
#include "model/model_diff.h"
#include "output/columns.h"
#include "output/report.h"
#include "session.h"
#include "util.h"

#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>

#define DIFF_PATHS_SHOWN 20u	/* text: the paths that changed most */

void report_diff_text(struct session *a, const struct session *b, FILE *out)
{
	struct model_diff d;
	size_t limit;
	char line[8192];

	model_diff(session_tables(a), session_tables(b), &d);
	limit = a->opt->rows ? (size_t)a->opt->rows : d.nrows;
	fprintf(out, "diff: A %s (pid %d, %llu samples) against B %s (pid %d, %llu samples); "
		"CHANGE is B - A in points of share\n\n", a->opt->replay_path, (int)a->pid,
		(unsigned long long)d.samples[0], a->opt->diff_path, (int)b->pid,
		(unsigned long long)d.samples[1]);
	diff_columns_title(line, sizeof(line), false);
	fprintf(out, "%s\n", line);
	for (size_t i = 0; i < d.nrows && i < limit; i++) {
		diff_columns_row(line, sizeof(line), &d.rows[i]);
		fprintf(out, "%s\n", line);
	}
	diff_columns_title(line, sizeof(line), true);
	fprintf(out, "\n%s (root first)\n", line);
	for (size_t i = 0; i < d.npaths && i < DIFF_PATHS_SHOWN; i++) {
		diff_columns_path(line, sizeof(line), &d.paths[i]);
		fprintf(out, "%s\n", line);
	}
	model_diff_free(&d);
}

static struct json_object *side_json(bool present, double v)
{
	return present && !isnan(v) ? json_object_new_double(v) : NULL;
}

struct json_object *report_diff_json(struct session *a, const struct session *b)
{
	struct json_object *o = json_object_new_object(), *rows = json_object_new_array(),
			   *paths = json_object_new_array();
	struct model_diff d;

	model_diff(session_tables(a), session_tables(b), &d);
	json_object_object_add(o, "a", json_object_new_string(a->opt->replay_path));
	json_object_object_add(o, "b", json_object_new_string(a->opt->diff_path));
	report_add_u64(o, "a_samples", d.samples[0]);
	report_add_u64(o, "b_samples", d.samples[1]);
	json_object_object_add(o, "a_pid", json_object_new_int(a->pid));
	json_object_object_add(o, "b_pid", json_object_new_int(b->pid));
	for (size_t i = 0; i < d.nrows; i++) {
		const struct diff_row *r = &d.rows[i];
		struct json_object *row = json_object_new_object();

		json_object_object_add(row, "module", json_object_new_string(r->module));
		json_object_object_add(row, "symbol", json_object_new_string(r->name));
		json_object_object_add(row, "a", side_json(r->present[0], r->share[0]));
		json_object_object_add(row, "b", side_json(r->present[1], r->share[1]));
		json_object_object_add(row, "change", json_object_new_double(r->delta));
		json_object_object_add(row, "a_samples", json_object_new_uint64(r->samples[0]));
		json_object_object_add(row, "b_samples", json_object_new_uint64(r->samples[1]));
		json_object_object_add(row, "a_ipc", side_json(r->present[0], r->ipc[0]));
		json_object_object_add(row, "b_ipc", side_json(r->present[1], r->ipc[1]));
		json_object_array_add(rows, row);
	}
	for (size_t i = 0; i < d.npaths; i++) {
		const struct diff_path *p = &d.paths[i];
		struct json_object *row = json_object_new_object();

		json_object_object_add(row, "path", json_object_new_string(p->path));
		json_object_object_add(row, "a", side_json(p->present[0], p->share[0]));
		json_object_object_add(row, "b", side_json(p->present[1], p->share[1]));
		json_object_object_add(row, "change", json_object_new_double(p->delta));
		json_object_array_add(paths, row);
	}
	json_object_object_add(o, "rows", rows);
	json_object_object_add(o, "paths", paths);
	model_diff_free(&d);
	return o;
}
