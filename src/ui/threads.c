/*
 * threads.c - the per-thread view (H, as in top and tiptop): each thread
 * still known, heaviest first, with its share, IPC, state and heaviest
 * symbol; and the per-process view (P), the same by process.  H or P
 * switches between them, Esc returns to the symbols.
 */
#include "model/model.h"
#include "output/columns.h"
#include "session.h"
#include "symbols/symbols.h"
#include "ui/draw.h"
#include "ui/list.h"
#include "ui/ui_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

struct threads_view {
	struct view v;
	struct list list;
	bool processes;			/* P: a row per process */
	struct model_thread_row *rows;
	struct model_process_row *procs;
	size_t nrows;
};

static uint64_t thread_id(void *ctx, size_t i)
{
	const struct threads_view *t = ctx;

	return (uint64_t)(t->processes ? t->procs[i].pid : t->rows[i].t->tid);
}

static const char *thread_text(void *ctx, size_t i)
{
	const struct threads_view *t = ctx;

	return t->processes ? (t->procs[i].comm ? t->procs[i].comm : "")
			    : t->rows[i].t->comm;
}

static void threads_refresh(struct view *v)
{
	struct threads_view *t = (struct threads_view *)v;

	free(t->rows);
	free(t->procs);
	t->rows = NULL;
	t->procs = NULL;
	t->nrows = t->list.n = t->processes
		? model_process_rows(session_tables(v->ui->s), &t->procs)
		: model_thread_rows(session_tables(v->ui->s), &t->rows);
	list_refreshed(&t->list);
}

static void threads_draw(struct view *v, WINDOW *w)
{
	struct threads_view *t = (struct threads_view *)v;
	const struct ui *ui = v->ui;
	int lines, cols;
	char line[512];

	getmaxyx(w, lines, cols);
	t->list.height = lines - 1;
	list_select(&t->list, (long)t->list.selected);
	if (t->processes)
		process_columns_title(line, sizeof(line));
	else
		thread_columns_title(line, sizeof(line));
	draw_text(w, 0, 0, cols, ui->attr[TH_COLUMNS], line);
	for (int r = 0; r < lines - 1; r++) {
		size_t i = t->list.top + (size_t)r;

		if (i >= t->nrows) {
			draw_text(w, 1 + r, 0, cols, ui->attr[TH_ROW], "");
			continue;
		}
		if (t->processes)
			process_columns_row(line, sizeof(line), &t->procs[i]);
		else
			thread_columns_row(line, sizeof(line), session_tables(ui->s), &t->rows[i]);
		draw_text(w, 1 + r, 0, cols, i == t->list.selected ? ui->attr[TH_SELECTED]
			  : ui->attr[TH_ROW], line);
	}
}

static enum view_reaction threads_key(struct view *v, int code, enum ui_action a)
{
	struct threads_view *t = (struct threads_view *)v;

	if (list_key(&t->list, code, a) == LIST_MOVED)
		return VIEW_REDRAW;
	switch (a) {
	case UA_BACK:
		return VIEW_POP;
	case UA_THREADS:
	case UA_PROCESSES:
		/* The other table; the key of the one shown returns. */
		if (t->processes == (a == UA_PROCESSES))
			return VIEW_POP;
		t->processes = a == UA_PROCESSES;
		t->list.have_selection = false;
		return VIEW_REQUERY;
	default:
		return VIEW_IGNORED;
	}
}

static void threads_destroy(struct view *v)
{
	free(((struct threads_view *)v)->rows);
	free(((struct threads_view *)v)->procs);
	free(v);
}

static const enum ui_action threads_actions[] = {
	UA_HELP, UA_THREADS, UA_PROCESSES, UA_BACK, UA_ZERO, UA_QUIT, UA_NONE,
};

static const struct view_ops threads_ops = {
	.name = "threads",
	.requery = threads_refresh,
	.draw = threads_draw,
	.key = threads_key,
	.destroy = threads_destroy,
	.actions = threads_actions,
};

struct view *threads_view_create(struct ui *ui, bool processes)
{
	struct threads_view *t = view_new(sizeof(*t), &threads_ops, ui);

	t->processes = processes;
	t->list.id = thread_id;
	t->list.text = thread_text;
	t->list.ctx = t;
	return &t->v;
}
