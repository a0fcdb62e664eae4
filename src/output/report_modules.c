/*
 * report_modules.c - the per-module table in batch output (--modules, and
 * the JSON's "per_module"): every module with samples, heaviest first.
 */
#include "output/report.h"
#include "output/tables.h"
#include "model/model.h"
#include "session/session.h"

#include <json-c/json.h>
#include <stdlib.h>

void report_modules_text(struct session *s, FILE *out)
{
	struct model_module_row *rows;
	size_t n = model_module_rows(session_tables(s), &rows);
	char line[512];

	table_title(&module_table, NULL, line, sizeof(line));
	fprintf(out, "\n%s\n", line);
	for (size_t i = 0; i < n; i++) {
		table_row(&module_table, NULL, &rows[i], session_tables(s), line, sizeof(line));
		fprintf(out, "%s\n", line);
	}
	free(rows);
}

struct json_object *report_modules_json(struct session *s)
{
	struct json_object *arr = json_object_new_array();
	struct model_module_row *rows;
	size_t n = model_module_rows(session_tables(s), &rows);

	for (size_t i = 0; i < n; i++)
		json_object_array_add(arr, table_json(&module_table, &rows[i], session_tables(s)));
	free(rows);
	return arr;
}
