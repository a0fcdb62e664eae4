/*
 * diff.c - the comparison table (--diff B; D): -i A's symbols against
 * B's, largest change of share first, with both shares and IPCs; p
 * switches to calling contexts (folded paths); Enter opens A's detail of
 * a symbol, or of the function a path ends in.  Under 100 columns MODULE
 * narrows and IPC columns with no figure go: the names keep their room.
 * A symbol one side lacks shows "-" there.
 */
#include "model/model_diff.h"
#include "session/session.h"
#include "ui/browser.h"
#include "ui/declared_view.h"
#include "ui/ui_internal.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Both tables' rows, made again only when A's tables changed (B's are read to the end). */
struct diff_state {
	struct model_diff d;
	const struct model *of;	/* the tables d was made of ... */
	uint64_t of_samples;	/* ... when they held this many ... */
	double of_from, of_to;	/* ... of this range */
};

static struct model_diff *diff_of(struct ui *ui, void **state)
{
	const struct session *s = ui->s;
	struct diff_state *d = *state ? *state : (*state = st_xcalloc(1, sizeof(*d)));

	if (d->of != session_tables(s) || d->of_samples != session_tables(s)->samples ||
	    d->of_from != session_range_from(s) || d->of_to != session_range_to(s) ||
	    !d->d.samples[0]) {
		model_diff_free(&d->d);
		model_diff(session_tables(s), session_tables(session_diff_with(s)), &d->d);
		d->of = session_tables(s);
		d->of_samples = session_tables(s)->samples;
		d->of_from = session_range_from(s);
		d->of_to = session_range_to(s);
	}
	return &d->d;
}

static void diff_forget(void *state)
{
	struct diff_state *d = state;

	if (d)
		model_diff_free(&d->d);
	free(d);
}

static size_t diff_query(struct ui *ui, void **state, const void **rows)
{
	const struct model_diff *d = diff_of(ui, state);

	*rows = d->rows;
	return d->nrows;
}

static size_t diff_path_query(struct ui *ui, void **state, const void **rows)
{
	const struct model_diff *d = diff_of(ui, state);

	*rows = d->paths;
	return d->npaths;
}

static uint64_t diff_id(const void *row)
{
	const struct diff_row *r = row;

	return browser_name_id(r->module, r->name);
}

static uint64_t diff_path_id(const void *row)
{
	return browser_name_id(((const struct diff_path *)row)->path, NULL);
}

static bool diff_match(struct ui *ui, const void *row, const char *needle)
{
	(void)ui;
	return strcasestr(((const struct diff_row *)row)->name, needle) != NULL;
}

static bool diff_path_match(struct ui *ui, const void *row, const char *needle)
{
	(void)ui;
	return strcasestr(((const struct diff_path *)row)->path, needle) != NULL;
}

static const char *diff_unavailable(struct ui *ui)
{
	return session_diff_with(ui->s) ? NULL : "no comparison: start with -i A --diff B";
}

/* The files by name alone: a path's directories cut its end off at 80 columns. */
static void title_of(struct ui *ui, const char *other, char *buf, size_t len)
{
	snprintf(buf, len, "  (A %s, B %s; p %s)", st_basename(session_options(ui->s)->replay_path),
		 st_basename(session_options(ui->s)->diff_path), other);
}

static void diff_title(struct ui *ui, char *buf, size_t len)
{
	title_of(ui, "paths", buf, len);
}

static void diff_path_title(struct ui *ui, char *buf, size_t len)
{
	title_of(ui, "symbols", buf, len);
}

/* Enter: A's detail of a symbol; what only B has, A cannot show. */
static enum view_reaction open_row(struct view *v, const struct diff_row *r)
{
	if (!r || !r->sides.present[0]) {
		snprintf(v->ui->message, sizeof(v->ui->message),
			 "only in B (%s): no detail in A", session_options(v->ui->s)->diff_path);
		return VIEW_REDRAW;
	}
	v->next = detail_view_create(v->ui, r->sym_a);
	return VIEW_PUSH;
}

static enum view_reaction diff_open(struct view *v, void *state, const void *row)
{
	(void)state;
	return open_row(v, row);
}

/* ... of the function a path ends in, as A names it. */
static enum view_reaction diff_path_open(struct view *v, void *state, const void *row)
{
	const char *path = ((const struct diff_path *)row)->path, *leaf = strrchr(path, ';');
	const struct model_diff *d = &((const struct diff_state *)state)->d;
	const struct diff_row *r = NULL;

	leaf = leaf ? leaf + 1 : path;
	for (size_t i = 0; i < d->nrows && !r; i++)
		if (d->rows[i].sides.present[0] && !strcmp(d->rows[i].name, leaf))
			r = &d->rows[i];
	return open_row(v, r);
}

static const enum ui_action diff_actions[] = {
	UA_HELP, UA_SEARCH, UA_OPEN, UA_INVERT, UA_DIFF_PATHS, UA_BACK, UA_QUIT, UA_NONE,
};

const struct table_source diff_source = {
	.name = "diff", .noun = "row", .table = &diff_table, .row_size = sizeof(struct diff_row),
	.query = diff_query, .forget = diff_forget, .id = diff_id, .match = diff_match,
	.unavailable = diff_unavailable, .title_more = diff_title, .open = diff_open,
	.key = UA_DIFF, .toggle = UA_DIFF_PATHS, .other = &diff_path_source, .hide_empty = true,
	.actions = diff_actions, .scope = SCOPE_DIFF, .live = true,
};

const struct table_source diff_path_source = {
	.name = "diff", .noun = "row", .table = &diff_path_table,
	.row_size = sizeof(struct diff_path),
	.query = diff_path_query, .forget = diff_forget, .id = diff_path_id,
	.match = diff_path_match, .unavailable = diff_unavailable, .title_more = diff_path_title,
	.open = diff_path_open, .key = UA_DIFF, .toggle = UA_DIFF_PATHS, .other = &diff_source,
	.actions = diff_actions, .scope = SCOPE_DIFF, .live = true,
};
