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

	table_print(out, &module_table, rows, n, sizeof(*rows), session_tables(s));
	free(rows);
}

struct json_object *report_modules_json(struct session *s)
{
	struct model_module_row *rows;
	size_t n = model_module_rows(session_tables(s), &rows);
	struct json_object *arr = table_json_rows(&module_table, rows, n, sizeof(*rows),
						  session_tables(s));

	free(rows);
	return arr;
}
