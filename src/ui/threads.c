/*
 * threads.c - the per-thread table (H, as in top and tiptop): each thread
 * still known, heaviest first, with its share, IPC, state and heaviest
 * symbol; and the per-process table (P), the same by process.  H or P
 * switches between them.
 */
#include "model/model.h"
#include "session/session.h"
#include "ui/declared_view.h"
#include "ui/ui_internal.h"

#include <stdlib.h>
#include <string.h>

/* The rows of the table shown: one query's, freed by the next. */
static size_t thread_query(struct ui *ui, void **state, const void **rows)
{
	struct model_thread_row *r;
	size_t n = model_thread_rows(session_tables(ui->s), &r);

	free(*state);
	*state = r;
	*rows = r;
	return n;
}

static size_t process_query(struct ui *ui, void **state, const void **rows)
{
	struct model_process_row *r;
	size_t n = model_process_rows(session_tables(ui->s), &r);

	free(*state);
	*state = r;
	*rows = r;
	return n;
}

static uint64_t thread_id(const void *row)
{
	return (uint64_t)((const struct model_thread_row *)row)->tid;
}

static uint64_t process_id(const void *row)
{
	return (uint64_t)((const struct model_process_row *)row)->pid;
}

static bool thread_match(struct ui *ui, const void *row, const char *needle)
{
	(void)ui;
	return strcasestr(((const struct model_thread_row *)row)->comm, needle) != NULL;
}

static bool process_match(struct ui *ui, const void *row, const char *needle)
{
	(void)ui;
	return strcasestr(((const struct model_process_row *)row)->comm, needle) != NULL;
}

static const enum ui_action threads_actions[] = {
	UA_HELP, UA_INVERT, UA_THREADS, UA_PROCESSES, UA_BACK, UA_ZERO, UA_QUIT, UA_NONE,
};

const struct table_source thread_source = {
	.name = "threads", .noun = "thread", .table = &thread_table,
	.row_size = sizeof(struct model_thread_row),
	.query = thread_query, .forget = free, .id = thread_id, .match = thread_match,
	.key = UA_THREADS, .toggle = UA_PROCESSES, .other = &process_source,
	.actions = threads_actions, .hide_empty = true,
};

const struct table_source process_source = {
	.name = "threads", .noun = "thread", .table = &process_table,
	.row_size = sizeof(struct model_process_row),
	.query = process_query, .forget = free, .id = process_id, .match = process_match,
	.key = UA_PROCESSES, .toggle = UA_THREADS, .other = &thread_source,
	.actions = threads_actions,
};
