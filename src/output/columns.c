/* columns.c - the per-symbol table's columns (see columns.h). */
#include "output/columns.h"
#include "model/model.h"
#include "symbols/symbols.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void self_cell(const struct model_row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%.2f%%", r->self);
}

static void samples_cell(const struct model_row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%llu", (unsigned long long)r->samples);
}

static void ipc_cell(const struct model_row *r, char *buf, size_t len)
{
	if (isnan(r->ipc))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2f", r->ipc);
}

static void module_cell(const struct model_row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", r->sym->module);
}

static void symbol_cell(const struct model_row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", r->sym->name);
}

/* "1234 make", as htop's PID and COMMAND read together. */
static void process_cell(const struct model_row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%d %s", (int)r->pid, r->comm[0] ? r->comm : "?");
}

const struct column columns[] = {
	{ "SELF%", "self", 7, false, ST_SORT_SELF, 0, false, self_cell },
	{ "SAMPLES", "samples", 9, false, -1, 60, false, samples_cell },
	{ "IPC", "ipc", 6, false, ST_SORT_IPC, 0, false, ipc_cell },
	{ "PID COMMAND", "command", 22, true, ST_SORT_PROCESS, 0, true, process_cell },
	{ "MODULE", "module", 24, true, ST_SORT_MODULE, 60, false, module_cell },
	{ "SYMBOL", "symbol", 0, true, ST_SORT_SYMBOL, 0, false, symbol_cell },
};
const size_t ncolumns = sizeof(columns) / sizeof(columns[0]);

static bool hidden[sizeof(columns) / sizeof(columns[0])];

void columns_hide(const char *const *keys, size_t n)
{
	for (size_t i = 0; i < ncolumns; i++) {
		hidden[i] = false;
		for (size_t k = 0; keys && k < n; k++)
			if (!strcmp(keys[k], columns[i].key) &&
			    columns[i].sort != ST_SORT_SELF && columns[i].sort != ST_SORT_SYMBOL)
				hidden[i] = true;
	}
}

static bool shown(const struct column *c, int screen, bool by_process)
{
	if ((c->per_process && !by_process) || hidden[c - columns])
		return false;
	return screen == 0 || screen >= c->min_screen;
}

/* The module column narrows on screens under 100 columns. */
static int width_of(const struct column *c, int screen)
{
	if (screen && screen < 100 && c->sort == ST_SORT_MODULE)
		return 16;
	return c->width;
}

/* Appends one cell: right- or left-aligned, truncated to its width. */
static size_t put_cell(char *buf, size_t len, size_t at, const struct column *c,
		       int width, const char *text)
{
	int n;

	if (at >= len)
		return at;
	if (at) {
		/* Two spaces before a text column, as before a name. */
		n = snprintf(buf + at, len - at, c->left ? "  " : " ");
		at += (size_t)n < len - at ? (size_t)n : len - at - 1;
	}
	if (width == 0)
		n = snprintf(buf + at, len - at, "%s", text);
	else if (c->left)
		n = snprintf(buf + at, len - at, "%-*.*s", width, width, text);
	else
		n = snprintf(buf + at, len - at, "%*s", width, text);
	return at + ((size_t)n < len - at ? (size_t)n : len - at - 1);
}

void columns_title(char *buf, size_t len, int screen, bool by_process, int sort,
		   bool invert)
{
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < ncolumns; i++) {
		const struct column *c = &columns[i];
		char t[32];

		if (!shown(c, screen, by_process))
			continue;
		snprintf(t, sizeof(t), "%s%s", c->title,
			 c->sort >= 0 && c->sort == sort ? (invert ? "^" : "v") : "");
		at = put_cell(buf, len, at, c, width_of(c, screen), t);
	}
}

int columns_sort_at(int x, int screen, bool by_process)
{
	int at = 0;

	for (size_t i = 0; i < ncolumns; i++) {
		const struct column *c = &columns[i];
		int w = width_of(c, screen), gap = at ? (c->left ? 2 : 1) : 0;

		if (!shown(c, screen, by_process))
			continue;
		/* The title's cell, with the gap before it (a click there counts). */
		if (x < at + gap + w || w == 0)
			return c->sort;
		at += gap + w;
	}
	return -1;
}

void columns_row(char *buf, size_t len, int screen, bool by_process,
		 const struct model_row *r)
{
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < ncolumns; i++) {
		const struct column *c = &columns[i];
		char cell[4096];

		if (!shown(c, screen, by_process))
			continue;
		c->format(r, cell, sizeof(cell));
		at = put_cell(buf, len, at, c, width_of(c, screen), cell);
	}
}

void thread_columns_title(char *buf, size_t len)
{
	snprintf(buf, len, "%8s %8s %-16s %9s %7s %6s %-7s %s", "TID", "PID",
		 "COMMAND", "SAMPLES", "SHARE", "IPC", "STATE", "TOP SYMBOL");
}

void thread_columns_row(char *buf, size_t len, const struct model *m,
			const struct model_thread_row *r)
{
	struct model_row top;
	char ipc[16] = "-";

	if (!isnan(r->ipc))
		snprintf(ipc, sizeof(ipc), "%.2f", r->ipc);
	snprintf(buf, len, "%8d %8d %-16.16s %9llu %6.2f%% %6s %-7s %s",
		 (int)r->t->tid, (int)r->t->pid, r->t->comm,
		 (unsigned long long)r->t->samples, r->share, ipc,
		 r->t->exited ? "exited" : "live",
		 model_thread_top(m, r->t, &top, 1) ? top.sym->name : "-");
}

void process_columns_title(char *buf, size_t len)
{
	snprintf(buf, len, "%8s %-16s %7s %9s %7s %6s %s", "PID", "COMMAND",
		 "THREADS", "SAMPLES", "SHARE", "IPC", "TOP SYMBOL");
}

void process_columns_row(char *buf, size_t len, const struct model_process_row *r)
{
	char ipc[16] = "-";

	if (!isnan(r->ipc))
		snprintf(ipc, sizeof(ipc), "%.2f", r->ipc);
	snprintf(buf, len, "%8d %-16.16s %7zu %9llu %6.2f%% %6s %s", (int)r->pid,
		 r->comm && r->comm[0] ? r->comm : "?", r->threads,
		 (unsigned long long)r->samples, r->share, ipc,
		 r->top ? r->top->name : "-");
}
