/*
 * detail.c - one symbol's detail (Enter on a table row): its full name
 * and module, however long, and its figures with a share bar.
 */
#include "model/model.h"
#include "session.h"
#include "symbols/symbols.h"
#include "ui/draw.h"
#include "ui/ui_internal.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct detail_view {
	struct view v;
	uint32_t id;
	bool found;
	struct model_row row;
};

static void detail_refresh(struct view *v)
{
	struct detail_view *d = (struct detail_view *)v;
	struct model_row *rows;
	size_t n = model_rows(session_tables(v->ui->s), ST_SORT_SELF, false, &rows);

	d->found = false;
	for (size_t i = 0; i < n; i++)
		if (rows[i].sym->id == d->id) {
			d->row = rows[i];
			d->found = true;
			break;
		}
	free(rows);
}

/* Writes s over as many lines as it needs from y; returns the next y. */
static int wrapped(WINDOW *w, int y, chtype attr, const char *label, const char *s)
{
	int cols = getmaxx(w), rows = getmaxy(w), lw = (int)strlen(label);
	size_t len = strlen(s), at = 0;

	draw_text(w, y, 0, lw, attr, label);
	do {
		char part[512];
		size_t take = (size_t)(cols - lw) < sizeof(part) - 1
			? (size_t)(cols - lw) : sizeof(part) - 1;

		snprintf(part, sizeof(part), "%.*s", (int)take, s + at);
		draw_text(w, y, lw, cols - lw, attr, part);
		at += take;
		y++;
	} while (at < len && y < rows);
	return y;
}

static void detail_draw(struct view *v, WINDOW *w)
{
	const struct detail_view *d = (const struct detail_view *)v;
	chtype row = v->ui->attr[TH_ROW];
	int cols = getmaxx(w), y = 1;
	char buf[256], bar[256];

	werase(w);
	draw_text(w, 0, 0, cols, v->ui->attr[TH_COLUMNS], "SYMBOL DETAIL");
	if (!d->found) {
		draw_text(w, 1, 0, cols, row, "no samples (zeroed or filtered); Esc returns");
		return;
	}
	y = wrapped(w, y, row, "symbol   ", d->row.sym->name);
	y = wrapped(w, y, row, "module   ", d->row.sym->module);
	if (strcmp(d->row.sym->raw, d->row.sym->name)) {
		char *full = symbol_demangle(d->row.sym->raw, true);

		y = wrapped(w, y, row, "full     ", full);
		y = wrapped(w, y, row, "raw      ", d->row.sym->raw);
		free(full);
	}
	if (d->row.sym->aliases)
		y = wrapped(w, y, row, "aliases  ", d->row.sym->aliases);
	snprintf(buf, sizeof(buf), "self     %6.2f%%  ", d->row.self);
	draw_text(w, y, 0, cols, row, buf);
	draw_bar(bar, sizeof(bar), d->row.self / 100, cols - (int)strlen(buf) > 40 ? 40
		 : cols - (int)strlen(buf), v->ui->utf8);
	draw_text(w, y++, (int)strlen(buf), cols - (int)strlen(buf),
		  v->ui->attr[TH_VALUE], bar);
	snprintf(buf, sizeof(buf), "samples  %llu   weight %llu",
		 (unsigned long long)d->row.samples, (unsigned long long)d->row.weight);
	draw_text(w, y++, 0, cols, row, buf);
	if (isnan(d->row.ipc))
		snprintf(buf, sizeof(buf), "IPC      - (no cycle and instruction counts)");
	else
		snprintf(buf, sizeof(buf), "IPC      %.2f", d->row.ipc);
	draw_text(w, y++, 0, cols, row, buf);
}

static enum view_reaction detail_key(struct view *v, int code, enum ui_action a)
{
	(void)v;
	(void)code;
	return a == UA_BACK ? VIEW_POP : VIEW_IGNORED;
}

static const enum ui_action detail_actions[] = { UA_HELP, UA_BACK, UA_QUIT, UA_NONE };

static const struct view_ops detail_ops = {
	.name = "detail",
	.requery = detail_refresh,
	.draw = detail_draw,
	.key = detail_key,
	.destroy = view_free,
	.actions = detail_actions,
};

struct view *detail_view_create(struct ui *ui, uint32_t symbol_id)
{
	struct detail_view *d = view_new(sizeof(*d), &detail_ops, ui);

	d->id = symbol_id;
	return &d->v;
}
