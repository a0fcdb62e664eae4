/*
 * report_diff.c - --diff in batch: the symbols and calling contexts of
 * -i A against --diff B, largest change of share first, as text or as
 * the JSON report's "diff" section.  A symbol one side lacks shows "-"
 * there (JSON: null) and is marked "only in A" or "only in B".
 */
#include "model/model_diff.h"
#include "output/tables.h"
#include "output/report.h"
#include "session/session.h"
#include "util.h"

#include <json-c/json.h>
#include <stdlib.h>

#define DIFF_PATHS_SHOWN 20u	/* text: the paths that changed most */

void report_diff_text(struct session *a, const struct session *b, FILE *out)
{
	const struct st_options *o = session_options(a);
	struct model_diff d;
	struct table_shown shown;
	size_t limit;
	char line[8192];

	model_diff(session_tables(a), session_tables(b), &d);
	limit = o->rows ? (size_t)o->rows : d.nrows;
	shown = table_shown_whole(&diff_table, d.rows, d.nrows, sizeof(*d.rows), NULL);
	fprintf(out, "diff: A %s (pid %d, %llu samples) against B %s (pid %d, %llu samples); "
		"CHANGE is B - A in points of share%s\n\n", o->replay_path, (int)session_pid(a),
		(unsigned long long)d.samples[0], o->diff_path, (int)session_pid(b),
		(unsigned long long)d.samples[1],
		session_tables(a)->offcpu_event >= 0 || session_tables(b)->offcpu_event >= 0
		? "; OFF A and OFF B the time waits spent under each function (--off-cpu)" : "");
	table_title(&diff_table, &shown, line, sizeof(line));
	fprintf(out, "%s\n", line);
	for (size_t i = 0; i < d.nrows && i < limit; i++) {
		table_row(&diff_table, &shown, &d.rows[i], NULL, line, sizeof(line));
		fprintf(out, "%s\n", line);
	}
	table_title(&diff_path_table, NULL, line, sizeof(line));
	fprintf(out, "\n%s (root first)\n", line);
	for (size_t i = 0; i < d.npaths && i < DIFF_PATHS_SHOWN; i++) {
		table_row(&diff_path_table, NULL, &d.paths[i], NULL, line, sizeof(line));
		fprintf(out, "%s\n", line);
	}
	model_diff_free(&d);
}

struct json_object *report_diff_json(struct session *a, const struct session *b)
{
	struct json_object *o = json_object_new_object();
	struct model_diff d;

	model_diff(session_tables(a), session_tables(b), &d);
	json_object_object_add(o, "a", json_object_new_string(session_options(a)->replay_path));
	json_object_object_add(o, "b", json_object_new_string(session_options(a)->diff_path));
	report_add_u64(o, "a_samples", d.samples[0]);
	report_add_u64(o, "b_samples", d.samples[1]);
	json_object_object_add(o, "a_pid", json_object_new_int(session_pid(a)));
	json_object_object_add(o, "b_pid", json_object_new_int(session_pid(b)));
	json_object_object_add(o, "rows", table_json_rows(&diff_table, d.rows, d.nrows,
							  sizeof(*d.rows), NULL));
	json_object_object_add(o, "paths", table_json_rows(&diff_path_table, d.paths, d.npaths,
							   sizeof(*d.paths), NULL));
	model_diff_free(&d);
	return o;
}
