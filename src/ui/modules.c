/*
 * modules.c - the per-module table (O, perf report's --sort dso): each
 * file's share of the samples, its symbols with samples, how many of
 * them have no name, and what named most of its samples.
 */
#include "model/model.h"
#include "session/session.h"
#include "ui/browser.h"
#include "ui/declared_view.h"
#include "ui/ui_internal.h"

#include <stdlib.h>
#include <string.h>

static size_t module_query(struct ui *ui, void **state, const void **rows)
{
	struct model_module_row *r;
	size_t n = model_module_rows(session_tables(ui->s), &r);

	free(*state);
	*state = r;
	*rows = r;
	return n;
}

static uint64_t module_id(const void *row)
{
	return browser_name_id(((const struct model_module_row *)row)->module, NULL);
}

static bool module_match(struct ui *ui, const void *row, const char *needle)
{
	(void)ui;
	return strcasestr(((const struct model_module_row *)row)->module, needle) != NULL;
}

static const enum ui_action modules_actions[] = {
	UA_HELP, UA_SEARCH, UA_INVERT, UA_MODULES, UA_BACK, UA_ZERO, UA_QUIT, UA_NONE,
};

const struct table_source module_source = {
	.name = "modules", .noun = "module", .table = &module_table,
	.row_size = sizeof(struct model_module_row),
	.query = module_query, .forget = free, .id = module_id, .match = module_match,
	.key = UA_MODULES, .actions = modules_actions,
};
