/*
 * diff.c - the comparison view (--diff B; D on the symbol table): -i A's
 * symbols against B's, largest change of share first, with both shares
 * and IPCs; p switches to calling contexts (folded paths); > < and a
 * click on a title sort by a column, I inverts; Enter opens A's detail of
 * a symbol, or of the function a path ends in.  Under 100 columns MODULE
 * narrows and IPC columns with no figure go: the names keep their room.  A symbol one
 * side lacks shows "-" there.  Esc returns to A's symbol table.
 */
#include "model/model_diff.h"
#include "output/tables.h"
#include "session.h"
#include "ui/draw.h"
#include "ui/browser.h"
#include "ui/ui_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct diff_view {
	struct view v;
	struct browser rows_shown;
	bool paths;		/* p: calling contexts, not symbols */
	struct model_diff d;
	const struct model *of;	/* the tables d was made of ... */
	uint64_t of_samples;	/* ... when they held this many ... */
	double of_from, of_to;	/* ... of this range */
	struct view_sorting sort[2];	/* the symbols', the paths' */
};

static const struct table_def *table_of(const struct diff_view *d)
{
	return d->paths ? &diff_path_table : &diff_table;
}

static const void *diff_row_at(const void *ctx, size_t i)
{
	return &((const struct diff_view *)ctx)->d.rows[i];
}

static const void *diff_path_at(const void *ctx, size_t i)
{
	return &((const struct diff_view *)ctx)->d.paths[i];
}

/* An id that survives re-sorting: the row's name (FNV-1a). */
static uint64_t name_id(const char *a, const char *b)
{
	uint64_t h = 1469598103934665603ull;

	for (const char *p = a; p && *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	h = (h ^ 0x1f) * 1099511628211ull;
	for (const char *p = b; p && *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	return h;
}

static void diff_items(struct browser *b, const struct browser_item *parent)
{
	const struct diff_view *d = b->ctx;

	(void)parent;
	for (size_t k = 0; k < (d->paths ? d->d.npaths : d->d.nrows); k++) {
		size_t i = view_sorted_row(&d->sort[d->paths], k);

		browser_add(b, d->paths ? name_id(d->d.paths[i].path, NULL)
				: name_id(d->d.rows[i].module, d->d.rows[i].name), i, false);
	}
}

static bool diff_match(struct browser *b, const struct browser_item *it, const char *needle)
{
	const struct diff_view *d = b->ctx;

	return strcasestr(d->paths ? d->d.paths[it->ref].path : d->d.rows[it->ref].name, needle);
}

static int diff_write(struct browser *b, const struct browser_item *it, char *line, size_t len,
		      int cols)
{
	const struct diff_view *d = b->ctx;

	(void)cols;
	if (d->paths)
		table_row(&diff_path_table, &d->sort[1].shown, &d->d.paths[it->ref], NULL, line, len);
	else
		table_row(&diff_table, &d->sort[0].shown, &d->d.rows[it->ref], NULL, line, len);
	return TH_ROW;
}

static void diff_title(struct browser *b, char *line, size_t len, int cols)
{
	const struct diff_view *d = b->ctx;
	const struct ui *ui = d->v.ui;

	(void)cols;
	table_title(table_of(d), &d->sort[d->paths].shown, line, len);
	snprintf(line + strlen(line), len - strlen(line), "  (A %s, B %s; p %s)",
		 ui->s->opt->replay_path, ui->s->opt->diff_path, d->paths ? "symbols" : "paths");
}

static const struct browser_ops diff_browser = {
	.items = diff_items,
	.write = diff_write,
	.match = diff_match,
	.title = diff_title,
};

static void diff_refresh(struct view *v)
{
	struct diff_view *d = (struct diff_view *)v;
	const struct session *s = v->ui->s;

	/* Made again only when A's tables changed (B's are read to the end). */
	if (d->of != session_tables(s) || d->of_samples != session_tables(s)->samples ||
	    d->of_from != s->range_from || d->of_to != s->range_to || !d->d.samples[0]) {
		model_diff_free(&d->d);
		model_diff(session_tables(s), session_tables(s->diff_with), &d->d);
		d->of = session_tables(s);
		d->of_samples = session_tables(s)->samples;
		d->of_from = s->range_from;
		d->of_to = s->range_to;
	}
	view_sort_order(&d->sort[d->paths], table_of(d), d->paths ? d->d.npaths : d->d.nrows,
			d->paths ? diff_path_at : diff_row_at, d, NULL);
	/* IPC columns without a figure (no counters on either side) make room for names. */
	d->sort[0].shown.hidden = table_empty_columns(&diff_table, d->d.nrows, diff_row_at, d, NULL);
	browser_rebuild(&d->rows_shown);
}

static void diff_draw(struct view *v, WINDOW *w)
{
	struct diff_view *d = (struct diff_view *)v;

	d->sort[d->paths].shown.screen = getmaxx(w);
	browser_draw(&d->rows_shown, w, 0, 0, getmaxx(w), getmaxy(w), true, v->ui->attr);
}

/*
 * Enter: A's detail of the selected symbol, or of the function a path
 * ends in; what only B has, A cannot show.
 */
static enum view_reaction open_detail(struct diff_view *d)
{
	const struct browser_item *sel = browser_selected(&d->rows_shown);
	const struct diff_row *r = NULL;

	if (!sel)
		return VIEW_REDRAW;
	if (d->paths) {
		const char *path = d->d.paths[sel->ref].path, *leaf = strrchr(path, ';');

		leaf = leaf ? leaf + 1 : path;
		for (size_t i = 0; i < d->d.nrows && !r; i++)
			if (d->d.rows[i].sides.present[0] && !strcmp(d->d.rows[i].name, leaf))
				r = &d->d.rows[i];
	} else {
		r = &d->d.rows[sel->ref];
	}
	if (!r || !r->sides.present[0]) {
		snprintf(d->v.ui->message, sizeof(d->v.ui->message),
			 "only in B (%s): no detail in A", d->v.ui->s->opt->diff_path);
		return VIEW_REDRAW;
	}
	d->v.next = detail_view_create(d->v.ui, r->sym_a);
	return VIEW_PUSH;
}

static enum view_reaction diff_key(struct view *v, int code, enum ui_action a)
{
	struct diff_view *d = (struct diff_view *)v;

	if (view_browse(v, &d->rows_shown, code, a) != VIEW_IGNORED)
		return VIEW_REDRAW;
	if (view_sort_key(&d->sort[d->paths], table_of(d), a) != VIEW_IGNORED)
		return VIEW_REQUERY;
	if (a == UA_DIFF_PATHS) {
		d->paths = !d->paths;
		browser_forget_selection(&d->rows_shown);
		return VIEW_REQUERY;
	}
	if (a == UA_BACK || a == UA_DIFF)
		return VIEW_POP;
	if (a == UA_OPEN || a == UA_RIGHT)
		return open_detail(d);
	return VIEW_IGNORED;
}

/* A click on a title sorts by its column (again: inverts); on a row selects it. */
static enum view_reaction diff_click(struct view *v, int y, int x, bool twice)
{
	struct diff_view *d = (struct diff_view *)v;

	(void)twice;
	return view_sort_click(&d->sort[d->paths], table_of(d), &d->rows_shown, y, x);
}

static void diff_destroy(struct view *v)
{
	struct diff_view *d = (struct diff_view *)v;

	browser_free(&d->rows_shown);
	view_sorting_free(&d->sort[0]);
	view_sorting_free(&d->sort[1]);
	model_diff_free(&d->d);
	free(v);
}

static const enum ui_action diff_actions[] = {
	UA_HELP, UA_SEARCH, UA_OPEN, UA_INVERT, UA_DIFF_PATHS, UA_BACK, UA_QUIT, UA_NONE,
};

static const struct view_ops diff_ops = {
	.name = "diff",
	.scope = SCOPE_DIFF,
	.requery = diff_refresh,
	.draw = diff_draw,
	.key = diff_key,
	.click = diff_click,
	.destroy = diff_destroy,
	.actions = diff_actions,
};

struct view *diff_view_create(struct ui *ui)
{
	struct diff_view *d = view_new(sizeof(*d), &diff_ops, ui);

	d->sort[0].shown.col = d->sort[1].shown.col = -1;	/* the model's: largest change first */
	browser_init(&d->rows_shown, &diff_browser, d, "row", false);
	d->v.browser = &d->rows_shown;
	return &d->v;
}
