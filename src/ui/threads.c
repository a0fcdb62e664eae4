/*
 * threads.c - the per-thread view (H, as in top and tiptop): each thread
 * still known, heaviest first, with its share, IPC, state and heaviest
 * symbol; and the per-process view (P), the same by process.  H or P
 * switches between them, Esc returns to the symbols; > < and a click on
 * a title sort by a column, I inverts.
 */
#include "model/model.h"
#include "output/tables.h"
#include "session.h"
#include "symbols/symbols.h"
#include "ui/draw.h"
#include "ui/browser.h"
#include "ui/ui_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct threads_view {
	struct view v;
	struct browser rows_shown;
	bool processes;			/* P: a row per process */
	struct model_thread_row *rows;
	struct model_process_row *procs;
	size_t nrows;
	struct view_sorting sort[2];	/* the threads', the processes' */
};

static const struct table_def *table_of(const struct threads_view *t)
{
	return t->processes ? &process_table : &thread_table;
}

static const void *thread_at(const void *ctx, size_t i)
{
	return &((const struct threads_view *)ctx)->rows[i];
}

static const void *process_at(const void *ctx, size_t i)
{
	return &((const struct threads_view *)ctx)->procs[i];
}

static void threads_items(struct browser *b, const struct browser_item *parent)
{
	const struct threads_view *t = b->ctx;

	(void)parent;
	for (size_t k = 0; k < t->nrows; k++) {
		size_t i = view_sorted_row(&t->sort[t->processes], k);

		browser_add(b, (uint64_t)(t->processes ? t->procs[i].pid : t->rows[i].tid), i,
			    false);
	}
}

static bool threads_match(struct browser *b, const struct browser_item *it, const char *needle)
{
	const struct threads_view *t = b->ctx;
	const char *comm = t->processes ? t->procs[it->ref].comm : t->rows[it->ref].comm;

	return strcasestr(comm, needle) != NULL;
}

static int threads_write(struct browser *b, const struct browser_item *it, char *line,
			 size_t len, int cols)
{
	const struct threads_view *t = b->ctx;

	(void)cols;
	if (t->processes)
		table_row(&process_table, &t->sort[1].shown, &t->procs[it->ref],
			  session_tables(t->v.ui->s), line, len);
	else
		table_row(&thread_table, &t->sort[0].shown, &t->rows[it->ref],
			  session_tables(t->v.ui->s), line, len);
	return TH_ROW;
}

static void threads_title(struct browser *b, char *line, size_t len, int cols)
{
	const struct threads_view *t = b->ctx;

	(void)cols;
	table_title(table_of(t), &t->sort[t->processes].shown, line, len);
}

static const struct browser_ops threads_browser = {
	.items = threads_items,
	.write = threads_write,
	.match = threads_match,
	.title = threads_title,
};

static void threads_refresh(struct view *v)
{
	struct threads_view *t = (struct threads_view *)v;

	free(t->rows);
	free(t->procs);
	t->rows = NULL;
	t->procs = NULL;
	t->nrows = t->processes
		? model_process_rows(session_tables(v->ui->s), &t->procs)
		: model_thread_rows(session_tables(v->ui->s), &t->rows);
	view_sort_order(&t->sort[t->processes], table_of(t), t->nrows,
			t->processes ? process_at : thread_at, t, session_tables(v->ui->s));
	browser_rebuild(&t->rows_shown);
}

static void threads_draw(struct view *v, WINDOW *w)
{
	struct threads_view *t = (struct threads_view *)v;

	browser_draw(&t->rows_shown, w, 0, 0, getmaxx(w), getmaxy(w), true, v->ui->attr);
}

static enum view_reaction threads_key(struct view *v, int code, enum ui_action a)
{
	struct threads_view *t = (struct threads_view *)v;

	if (view_browse(v, &t->rows_shown, code, a) != VIEW_IGNORED)
		return VIEW_REDRAW;
	if (view_sort_key(&t->sort[t->processes], table_of(t), a) != VIEW_IGNORED)
		return VIEW_REQUERY;
	switch (a) {
	case UA_BACK:
		return VIEW_POP;
	case UA_THREADS:
	case UA_PROCESSES:
		/* The other table; the key of the one shown returns. */
		if (t->processes == (a == UA_PROCESSES))
			return VIEW_POP;
		t->processes = a == UA_PROCESSES;
		browser_forget_selection(&t->rows_shown);
		return VIEW_REQUERY;
	default:
		return VIEW_IGNORED;
	}
}

/* A click on a title sorts by its column (again: inverts); on a row selects it. */
static enum view_reaction threads_click(struct view *v, int y, int x, bool twice)
{
	struct threads_view *t = (struct threads_view *)v;

	(void)twice;
	return view_sort_click(&t->sort[t->processes], table_of(t), &t->rows_shown, y, x);
}

static void threads_destroy(struct view *v)
{
	struct threads_view *t = (struct threads_view *)v;

	browser_free(&t->rows_shown);
	view_sorting_free(&t->sort[0]);
	view_sorting_free(&t->sort[1]);
	free(t->rows);
	free(t->procs);
	free(v);
}

static const enum ui_action threads_actions[] = {
	UA_HELP, UA_INVERT, UA_THREADS, UA_PROCESSES, UA_BACK, UA_ZERO, UA_QUIT, UA_NONE,
};

static const struct view_ops threads_ops = {
	.name = "threads",
	.requery = threads_refresh,
	.draw = threads_draw,
	.key = threads_key,
	.click = threads_click,
	.destroy = threads_destroy,
	.actions = threads_actions,
	.as_of_requery = true,
};

struct view *threads_view_create(struct ui *ui, bool processes)
{
	struct threads_view *t = view_new(sizeof(*t), &threads_ops, ui);

	t->processes = processes;
	t->sort[0].shown.col = t->sort[1].shown.col = -1;	/* the model's: heaviest first */
	browser_init(&t->rows_shown, &threads_browser, t, "thread", false);
	t->v.browser = &t->rows_shown;
	return &t->v;
}
