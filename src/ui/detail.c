/*
 * detail.c - the drill-down (Enter on a table row): a symbol's full name
 * and module, however long, its figures with a share bar, how its
 * samples split over threads, its share of the samples over time, its
 * IPC distribution where counters count, its callers and callees in the
 * call tree (perf report's caller/callee view), its hottest source lines, and its
 * disassembly with the samples of each instruction, as perf annotate
 * shows it.  Over the selected time range when there is one.  The code
 * scrolls under the summary and opens at its hottest instruction, as
 * perf annotate does; it is decoded once, its samples counted each refresh.
 */
#include "model/annotate.h"
#include "model/cct.h"
#include "model/model.h"
#include "output/tables.h"
#include "session/session.h"
#include "symbols/symbols.h"
#include "ui/draw.h"
#include "ui/ui_internal.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct detail_view {
	struct view v;
	uint32_t id;
	bool found;
	struct model_row row;
	struct annotation a;
	struct source_cache src;
	/* The disassembly's rows: an instruction, or (source) its line first. */
	struct code_row {
		uint32_t insn;
		bool source;
	} *rows;
	size_t nrows;
	int top;		/* the first code row shown */
	int sel;		/* the selected code row */
	int code_rows;		/* rows the code had, last drawn */
	int back[16];		/* where followed jumps left from (Esc returns) */
	int nback;
	bool centred;		/* the hottest instruction was brought into view */
	int alone;		/* the code alone: 1, the summary too: 0; -1 by the view's height */
	bool drawn_alone;	/* as it was last drawn, for a to turn over */
	struct cct_link *callers, *callees;	/* from the call tree, hottest first */
	size_t ncallers, ncallees;
	uint64_t through;	/* samples through it in the tree */
};

/* One row per instruction, and its source line where that changes. */
static void lay_out_code(struct detail_view *d)
{
	const char *file = NULL;
	int line = 0;

	d->rows = st_xcalloc(2 * d->a.ninsn + 1, sizeof(*d->rows));
	for (size_t i = 0; i < d->a.ninsn; i++) {
		const struct annotated_insn *x = &d->a.insn[i];

		if (x->file && (x->line != line || !file || strcmp(x->file, file))) {
			d->rows[d->nrows++] = (struct code_row){ (uint32_t)i, true };
			file = x->file;
			line = x->line;
		}
		d->rows[d->nrows++] = (struct code_row){ (uint32_t)i, false };
	}
}

static void detail_refresh(struct view *v)
{
	struct detail_view *d = (struct detail_view *)v;
	struct model_row *rows;
	size_t n = model_rows(session_tables(v->ui->s), ST_SORT_SELF, false, &rows);

	d->found = false;
	if (!d->rows) {
		annotation_load(&d->a, session_whole(v->ui->s)->symbols, d->id);
		lay_out_code(d);
	}
	for (size_t i = 0; i < n; i++)
		if (rows[i].sym->id == d->id) {
			d->row = rows[i];
			d->row.ibs = NULL;	/* in rows, freed below; the detail shows none */
			d->row.event_share = NULL;
			d->found = true;
			break;
		}
	model_rows_free(rows);
	if (!d->found && d->id < CCT_SYM_BROKEN &&
	    symbolizer_symbol(session_whole(v->ui->s)->symbols, d->id)) {
		/* A caller with no samples of its own: its calls and code, self 0. */
		d->row = (struct model_row){
			.sym = symbolizer_symbol(session_whole(v->ui->s)->symbols, d->id), .ipc = NAN,
			.through = NAN };
		d->found = true;
	}
	session_settle(v->ui->s);	/* the tree's totals, for cct_links */
	{
		const struct session *s = v->ui->s;
		uint64_t from, to;

		/* After x or z, the disassembly's counts start where the table's did. */
		session_counted_ns(s, &from, &to);
		annotation_count(&d->a, session_whole(s), from, to);
		free(d->callers);
		free(d->callees);
		d->through = model_links(session_whole(s), &session_tables(s)->tree, d->id,
					 &d->callers, &d->ncallers, &d->callees, &d->ncallees);
	}
}

/* "name share%, ..." of the first links, into line. */
static void links_text(const struct model *m, const struct cct_link *v, size_t n,
		       uint64_t whole, char *line, size_t len)
{
	size_t at = 0;

	line[0] = '\0';
	for (size_t i = 0; i < n && i < 5 && at < len - 1; i++)
		at += (size_t)snprintf(line + at, len - at, "%s%.40s %.1f%%", i ? ", " : "",
				       v[i].sym == CCT_SYM_ROOT ? "(no caller)"
				       : model_frame_name(m, v[i].sym),
				       whole ? 100.0 * (double)v[i].samples / (double)whole : 0.0);
	if (n > 5 && at < len - 1)
		snprintf(line + at, len - at, ", ... (%zu in all)", n);
}

/* Source text fit for one row: unindented, tabs to spaces, control bytes to '?'. */
static void source_text(struct detail_view *d, const char *file, int line,
			char *buf, size_t len)
{
	size_t n, at = 0;
	const char *t = source_cache_line(&d->src, file, line, &n);

	/* The indentation says nothing here; the text needs the width. */
	while (t && n && (*t == ' ' || *t == '\t')) {
		t++;
		n--;
	}
	for (size_t i = 0; t && i < n && at + 1 < len; i++) {
		unsigned char c = (unsigned char)t[i];

		if (c == '\t') {
			do
				buf[at++] = ' ';
			while (at % 8 && at + 1 < len);
		} else {
			buf[at++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
		}
	}
	buf[at] = '\0';
}

static double share(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

static double seconds_at(const struct ui *ui, uint64_t time)
{
	uint64_t first = session_whole(ui->s)->first_time;

	return time > first ? (double)(time - first) / 1e9 : 0;
}

/*
 * The symbol's timeline row, `width` glyphs at most: its share of the
 * samples in each column (the annotation's columns merged to fit), the
 * highest share at full height, so its shape shows however small its
 * part; returns that share.
 */
static double time_row(const struct detail_view *d, int width, char *buf, size_t len)
{
	const struct annotation *a = &d->a;
	int n = width < (int)a->ncols ? width : (int)a->ncols;
	double v[ANNOTATE_COLUMNS], peak = 0;

	buf[0] = '\0';
	if (n < 1)
		return 0;
	for (int c = 0; c < n; c++) {
		uint64_t mine = 0, all = 0;

		for (size_t k = (size_t)c * a->ncols / (size_t)n;
		     k < (size_t)(c + 1) * a->ncols / (size_t)n; k++) {
			mine += a->col_samples[k];
			all += a->col_all[k];
		}
		v[c] = all ? (double)mine / (double)all : 0;
		if (v[c] > peak)
			peak = v[c];
	}
	draw_spark(buf, len, v, n, peak, d->v.ui->utf8);
	return peak;
}

/* The IPC histogram's 500 buckets over 0-4 summed into n columns. */
static void ipc_columns(const struct histogram *h, double *v, int n)
{
	memset(v, 0, (size_t)n * sizeof(*v));
	for (size_t i = 0; h->buckets && i < h->nbuckets; i++)
		v[i * (size_t)n / h->nbuckets] += (double)h->buckets[i];
}

/*
 * The rows above the disassembly, into out[] (NULL: only counted):
 * names, figures, threads, its timeline row and IPC distribution,
 * hottest lines, and the disassembly's title.
 */
struct text_row {
	chtype attr;
	char text[512];
};

/* Who woke the waits under sym, the heaviest first, on one line ("" where none is known). */
static void woken_by(const struct ui *ui, uint32_t sym, char *line, size_t len)
{
	struct model_waker *w;
	size_t n = model_wakers(session_whole(ui->s), 0, sym, false, &w), at = 0;
	char name[48], cell[32];

	line[0] = '\0';
	for (size_t i = 0; i < n && i < 4 && at < len - 1; i++) {
		double s = (double)w[i].ns / 1e9;

		table_field_text(FIELD_SECONDS, 0, &s, cell, sizeof(cell));
		at += (size_t)snprintf(line + at, len - at, "%s%s %s", i ? ", " : "",
				       model_waker_name(&w[i], name, sizeof(name)), cell);
	}
	if (n > 4 && at < len - 1)
		snprintf(line + at, len - at, ", %zu more", n - 4);
	free(w);
}

static int summary_rows(struct detail_view *d, struct text_row *out, int cols)
{
	const struct ui *ui = d->v.ui;
	const struct annotation *a = &d->a;
	const struct st_symbol *sym = d->row.sym;
	chtype row = ui->attr[TH_ROW], head = ui->attr[TH_HEADER];
	char bar[256];
	int n = 0;

#define ROW(at, ...) do {						\
		if (out) {							\
			out[n].attr = (at);					\
			snprintf(out[n].text, sizeof(out[n].text), __VA_ARGS__); \
		}							\
		n++;							\
	} while (0)
	/* Names however long: wrapped over as many rows as they need. */
#define WRAPPED(label, str) do {					\
		const char *s_ = (str);					\
		size_t w_ = cols > 19 ? (size_t)cols - 9 : 10;		\
		size_t l_ = strlen(s_), at_ = 0;			\
									\
		do {							\
			ROW(row, "%-9s%.*s", at_ ? "" : (label),	\
			    (int)(l_ - at_ < w_ ? l_ - at_ : w_), s_ + at_); \
			at_ += w_;					\
		} while (at_ < l_);					\
	} while (0)
	WRAPPED("symbol", sym->name);
	WRAPPED("module", sym->module);
	if (strcmp(sym->raw, sym->name)) {
		char *full = symbol_demangle(sym->raw, true);

		WRAPPED("full", full);
		WRAPPED("raw", sym->raw);
		free(full);
	}
	if (sym->aliases)
		WRAPPED("aliases", sym->aliases);
	WRAPPED("named by", st_named_by_text(sym->named_by));
#undef WRAPPED
	draw_bar(bar, sizeof(bar), d->row.self / 100, cols > 60 ? 40 : cols / 3, ui->utf8);
	ROW(row, "self     %6.2f%%  %s", d->row.self, bar);
	if (isnan(d->row.ipc))
		ROW(row, "samples  %llu   weight %llu   IPC - (no cycle and instruction counts)",
		    (unsigned long long)d->row.samples, (unsigned long long)d->row.weight);
	else
		ROW(row, "samples  %llu   weight %llu   IPC %.2f",
		    (unsigned long long)d->row.samples, (unsigned long long)d->row.weight,
		    d->row.ipc);
	/* --off-cpu: how long waits spent under it, and why they waited. */
	if (!isnan(d->row.waited_under) &&
	    model_waited_under(session_whole(ui->s), d->row.sym->id)) {
		uint64_t ns[MODEL_WAITS];
		char line[320], cell[32];
		size_t at = 0;
		/* Both now, from the model: the row is as it was when the detail opened. */
		double under = (double)model_waited_under(session_whole(ui->s), d->row.sym->id) / 1e9;

		model_waited_why(session_whole(ui->s), d->row.sym->id, ns);
		table_field_text(FIELD_SECONDS, 0, &under, cell, sizeof(cell));
		at += (size_t)snprintf(line, sizeof(line), "%s under it:", cell);
		for (int w = 0; w < MODEL_WAITS && at < sizeof(line) - 1; w++) {
			double s = (double)ns[w] / 1e9;

			if (!ns[w])
				continue;
			table_field_text(FIELD_SECONDS, 0, &s, cell, sizeof(cell));
			at += (size_t)snprintf(line + at, sizeof(line) - at, " %s %s",
					       model_wait_name((enum model_wait)w), cell);
		}
		ROW(row, "waited   %s", line);
		woken_by(ui, d->row.sym->id, line, sizeof(line));
		if (line[0])
			ROW(row, "woken by %s", line);
	}
	if (a->nthreads) {
		const struct model *m = session_whole(ui->s);
		char line[320];
		size_t at = 0;

		for (size_t i = 0; i < a->nthreads && i < 6 && at < sizeof(line) - 1; i++) {
			pid_t tid = (pid_t)a->threads[i].tid;
			const struct model_thread *t;

			HASH_FIND(hh, m->threads, &tid, sizeof(tid), t);
			at += (size_t)snprintf(line + at, sizeof(line) - at, "%s%d %.15s %.1f%%",
					       i ? ", " : "", (int)tid, t ? t->comm : "",
					       share(a->threads[i].samples, a->samples));
		}
		ROW(row, "threads  %s%s", line, a->nthreads > 6 ? ", ..." : "");
	}
	if (d->through) {
		const struct model *m = session_whole(ui->s);
		uint64_t called = 0;
		char line[400];

		for (size_t i = 0; i < d->ncallers; i++)
			called += d->callers[i].samples;
		links_text(m, d->callers, d->ncallers, called, line, sizeof(line));
		ROW(row, "callers  %s", line);
		for (size_t i = 0; i < d->ncallers; i++)
			if (d->callers[i].sym == CCT_SYM_BROKEN)
				ROW(row, "         (frame pointers broke in code without them: %s)",
				    model_unwind_hint(m));
		if (d->ncallees) {
			links_text(m, d->callees, d->ncallees, d->through, line, sizeof(line));
			ROW(row, "callees  %s (of its %llu samples)", line,
			    (unsigned long long)d->through);
		} else {
			ROW(row, "callees  none: every sample of it ends in it");
		}
	}
	if (a->ncols && a->samples) {
		char spark[1024];
		double peak = time_row(d, cols - 9 - 32, spark, sizeof(spark));

		ROW(row, "time     %s  %.1f-%.1f s, peak %.0f%%", spark,
		    seconds_at(ui, a->col_from),
		    seconds_at(ui, a->col_from + a->col_step * a->ncols), 100 * peak);
	}
	if (a->ipc.n) {
		char spark[512];
		double v[40];

		ipc_columns(&a->ipc, v, 40);
		ROW(row, "IPC      n %llu  mean %.2f  sd %.2f  p10 %.2f  median %.2f  p90 %.2f"
		    "  0 %s 4", (unsigned long long)a->ipc.n, a->ipc.mean, hist_stddev(&a->ipc),
		    hist_quantile(&a->ipc, 0.1), hist_quantile(&a->ipc, 0.5),
		    hist_quantile(&a->ipc, 0.9), draw_spark(spark, sizeof(spark), v, 40, 0,
							    ui->utf8));
	}
	ROW(head, "%s", "");
	if (a->nlines) {
		ROW(head, "hottest source lines (of %llu samples)", (unsigned long long)a->samples);
		for (size_t i = 0; i < a->nlines && i < 5; i++) {
			char text[256] = "";

			if (out)
				source_text(d, a->lines[i].file, a->lines[i].line, text, sizeof(text));
			ROW(row, "%6.2f%%  %s:%d  %s", share(a->lines[i].samples, a->samples),
			    st_basename(a->lines[i].file), a->lines[i].line, text);
		}
	} else if (a->ninsn) {
		ROW(head, "%s", "source lines: none (no DWARF line table for this code; install its -dbgsym package)");
	}
	switch (a->code) {
	case 0:
		ROW(head, "disassembly: %zu instructions at %#llx, %llu of %llu samples on them%s",
		    a->ninsn, (unsigned long long)a->start, (unsigned long long)a->placed,
		    (unsigned long long)a->samples,
		    a->truncated ? " (the first 1 MiB only)" : "");
		break;
	case -ENODATA:
		ROW(head, "%s", "disassembly: none (its file has no bytes for it)");
		break;
	case -ENOSYS:
		ROW(head, "disassembly: none (%s)", annotation_no_disassembler());
		break;
	default:
		ROW(head, "disassembly: none (%s)", sym->unknown ? "no symbol explains these addresses"
		    : sym->module[0] == '[' ? "no file holds this code: kernel, JIT or vDSO text is not read"
		    : "its file could not be read");
		break;
	}
#undef ROW
	return n;
}

static void code_row(struct detail_view *d, const struct code_row *r, char *buf,
		     size_t len, chtype *attr)
{
	const struct annotated_insn *x = &d->a.insn[r->insn];
	const struct ui *ui = d->v.ui;

	if (r->source) {
		char text[256];

		source_text(d, x->file, x->line, text, sizeof(text));
		snprintf(buf, len, "%17s%s:%d  %s", "", st_basename(x->file), x->line, text);
		*attr = ui->attr[TH_MODULE];
		return;
	}
	if (x->samples)
		snprintf(buf, len, "%6.2f%% %8llu  %8llx:  %s", share(x->samples, d->a.samples),
			 (unsigned long long)x->samples,
			 (unsigned long long)(d->a.start + x->offset), x->text);
	else
		snprintf(buf, len, "%17s  %8llx:  %s", "",
			 (unsigned long long)(d->a.start + x->offset), x->text);
	*attr = x->samples * 20 >= d->a.samples && x->samples ? ui->attr[TH_VALUE]
							     : ui->attr[TH_ROW];
}

/* The code row of the instruction with the most samples. */
static int hottest_row(const struct detail_view *d)
{
	uint64_t best = 0;
	int at = 0;

	for (size_t r = 0; r < d->nrows; r++) {
		const struct annotated_insn *x = &d->a.insn[d->rows[r].insn];

		if (!d->rows[r].source && x->samples > best) {
			best = x->samples;
			at = (int)r;
		}
	}
	return at;
}

static void detail_draw(struct view *v, WINDOW *w)
{
	struct detail_view *d = (struct detail_view *)v;
	int cols = getmaxx(w), rows = getmaxy(w), nsum, y = 1;
	struct text_row *sum;

	werase(w);
	draw_text(w, 0, 0, cols, v->ui->attr[TH_COLUMNS], "SYMBOL DETAIL");
	if (!d->found) {
		draw_text(w, 1, 0, cols, v->ui->attr[TH_ROW],
			  session_ranged(v->ui->s) ? "no samples in the selected range; Esc returns"
					   : "no samples (zeroed or filtered); Esc returns");
		return;
	}
	nsum = summary_rows(d, NULL, cols);
	sum = st_xcalloc((size_t)nsum, sizeof(*sum));
	summary_rows(d, sum, cols);
	d->drawn_alone = d->alone < 0 ? rows < 30 && d->nrows : d->alone;
	if (d->drawn_alone) {
		/* One line says whose code it is; a keeps the rest a key away. */
		char line[512];

		snprintf(line, sizeof(line), "%s  %s  self %.2f%%  %llu samples  (a: the summary)",
			 d->row.sym->name, d->row.sym->module, d->row.self,
			 (unsigned long long)d->row.samples);
		draw_text(w, 0, 0, cols, v->ui->attr[TH_COLUMNS], line);
	} else {
		/*
		 * The summary gives way to keep eight rows or a third of the view
		 * for the code (at 80x24 it left four); its last row, the code's
		 * heading, stays.
		 */
		int code_want = rows / 3 > 8 ? rows / 3 : 8;
		int code_min = (int)d->nrows < code_want ? (int)d->nrows : code_want;

		for (int k = 0; k < nsum - 1 && y < rows - code_min - 1; k++)
			draw_text(w, y++, 0, cols, sum[k].attr, sum[k].text);
	}
	if (nsum && y < rows)
		draw_text(w, y++, 0, cols, sum[nsum - 1].attr, sum[nsum - 1].text);
	free(sum);
	d->code_rows = rows - y;
	if (!d->centred && d->a.placed) {
		d->sel = hottest_row(d);
		d->top = d->sel - d->code_rows / 2;
		d->centred = true;
	}
	if (d->sel >= (int)d->nrows)
		d->sel = (int)d->nrows - 1;
	if (d->sel < 0)
		d->sel = 0;
	/* The selection stays in sight. */
	if (d->sel < d->top)
		d->top = d->sel;
	if (d->code_rows > 0 && d->sel >= d->top + d->code_rows)
		d->top = d->sel - d->code_rows + 1;
	if (d->top > (int)d->nrows - d->code_rows)
		d->top = (int)d->nrows - d->code_rows;
	if (d->top < 0)
		d->top = 0;
	for (int i = d->top; i < (int)d->nrows && y < rows; i++) {
		char buf[512];
		chtype attr;

		code_row(d, &d->rows[i], buf, sizeof(buf), &attr);
		draw_text(w, y++, 0, cols, i == d->sel ? v->ui->attr[TH_SELECTED] : attr, buf);
	}
}

/* The code row of instruction i. */
static int row_of_insn(const struct detail_view *d, size_t i)
{
	for (size_t r = 0; r < d->nrows; r++)
		if (!d->rows[r].source && d->rows[r].insn == i)
			return (int)r;
	return -1;
}

/*
 * J and K: the next and the previous instruction by heat (the hottest
 * first, ties by address), from the selected one.
 */
static void hot_step(struct detail_view *d, int dir)
{
	const struct annotated_insn *in = d->a.insn;
	int best = -1;
	uint64_t cur_n = UINT64_MAX;
	size_t cur_i = 0;

	if (d->sel >= 0 && d->sel < (int)d->nrows && !d->rows[d->sel].source &&
	    in[d->rows[d->sel].insn].samples) {
		cur_i = d->rows[d->sel].insn;
		cur_n = in[cur_i].samples;
	} else if (dir < 0) {
		return;
	}
	for (size_t i = 0; i < d->a.ninsn; i++) {
		uint64_t n = in[i].samples;
		/* Heat order: more samples first, then the lower address. */
		bool after = n < cur_n || (n == cur_n && i > cur_i);
		bool before = n > cur_n || (n == cur_n && i < cur_i);

		if (!n || (dir > 0 ? !after : !before))
			continue;
		if (best < 0 || (dir > 0 ? (n > in[best].samples ||
					   (n == in[best].samples && i < (size_t)best))
				 : (n < in[best].samples ||
				    (n == in[best].samples && i > (size_t)best))))
			best = (int)i;
	}
	if (best < 0) {
		snprintf(d->v.ui->message, sizeof(d->v.ui->message), "no %s instruction with samples",
			 dir > 0 ? "colder" : "hotter");
		return;
	}
	d->sel = row_of_insn(d, (size_t)best);
}

/* A sampled symbol of this module by name, for a call's detail; 0 when none. */
static bool symbol_named(const struct detail_view *d, const char *name, uint32_t *id)
{
	const struct model *m = session_tables(d->v.ui->s);
	struct model_row *rows;
	size_t n = model_rows(m, ST_SORT_SELF, false, &rows);
	bool found = false;

	for (size_t i = 0; i < n && !found; i++)
		if (!strcmp(rows[i].sym->name, name) &&
		    !strcmp(rows[i].sym->module, d->row.sym->module)) {
			*id = rows[i].sym->id;
			found = true;
		}
	model_rows_free(rows);
	return found;
}

/* Enter on a call or jump: to its target here, or the called function's detail. */
static enum view_reaction follow(struct detail_view *d)
{
	const struct annotated_insn *x;
	const struct annotated_insn *to;
	uint32_t id;

	if (d->sel < 0 || d->sel >= (int)d->nrows || d->rows[d->sel].source)
		return VIEW_REDRAW;
	x = &d->a.insn[d->rows[d->sel].insn];
	if (!x->target) {
		snprintf(d->v.ui->message, sizeof(d->v.ui->message),
			 "Enter follows a call or a jump; this is neither");
		return VIEW_REDRAW;
	}
	to = x->target >= d->a.start ? annotation_insn_at(&d->a, (uint32_t)(x->target - d->a.start))
				       : NULL;
	if (to) {
		if (d->nback < (int)(sizeof(d->back) / sizeof(d->back[0])))
			d->back[d->nback++] = d->sel;
		d->sel = row_of_insn(d, (size_t)(to - d->a.insn));
		return VIEW_REDRAW;
	}
	if (x->target_name[0] && symbol_named(d, x->target_name, &id)) {
		d->v.next = detail_view_create(d->v.ui, id);
		return VIEW_PUSH;
	}
	snprintf(d->v.ui->message, sizeof(d->v.ui->message), "%.80s has no samples to show",
		 x->target_name[0] ? x->target_name : "its target");
	return VIEW_REDRAW;
}

/*
 * Up, Down, PgUp, PgDn, Home, End move the selection in the code; J K
 * by heat; Enter follows a call or jump; Esc or Left comes back from a
 * jump followed, else returns.
 */
static enum view_reaction detail_key(struct view *v, int code, enum ui_action a)
{
	struct detail_view *d = (struct detail_view *)v;
	int page = d->code_rows > 1 ? d->code_rows - 1 : 1;

	(void)code;
	d->centred = true;	/* the user moves from here on */
	switch (a) {
	case UA_BACK:
	case UA_LEFT:
		if (d->nback) {
			d->sel = d->back[--d->nback];
			return VIEW_REDRAW;
		}
		return VIEW_POP;
	case UA_DOWN:
		d->sel++;
		return VIEW_REDRAW;
	case UA_UP:
		d->sel -= d->sel > 0;
		return VIEW_REDRAW;
	case UA_PAGE_DOWN:
		d->sel += page;
		d->top += page;
		return VIEW_REDRAW;
	case UA_PAGE_UP:
		d->sel = d->sel > page ? d->sel - page : 0;
		d->top = d->top > page ? d->top - page : 0;
		return VIEW_REDRAW;
	case UA_FIRST:
		d->sel = d->top = 0;
		return VIEW_REDRAW;
	case UA_LAST:
		d->sel = d->top = INT32_MAX / 2;
		return VIEW_REDRAW;
	case UA_HOT_NEXT:
	case UA_HOT_PREV:
		hot_step(d, a == UA_HOT_NEXT ? 1 : -1);
		return VIEW_REDRAW;
	case UA_OPEN:
	case UA_RIGHT:
		return follow(d);
	case UA_LINKS:
		v->next = links_view_create(v->ui, d->id);
		return VIEW_PUSH;
	case UA_CODE_ALONE:
		d->alone = !d->drawn_alone;
		d->centred = false;	/* the hottest instruction in view again */
		return VIEW_REDRAW;
	default:
		return VIEW_IGNORED;
	}
}

static void detail_destroy(struct view *v)
{
	struct detail_view *d = (struct detail_view *)v;

	annotation_free(&d->a);
	source_cache_free(&d->src);
	free(d->rows);
	free(d->callers);
	free(d->callees);
	view_free(v);
}

static const enum ui_action detail_actions[] = { UA_HELP, UA_HOT_NEXT, UA_LINKS, UA_CODE_ALONE,
						 UA_PAGE_DOWN, UA_BACK, UA_QUIT, UA_NONE };

static const struct view_ops detail_ops = {
	.name = "detail",
	.scope = SCOPE_DETAIL,
	.requery = detail_refresh,
	.draw = detail_draw,
	.key = detail_key,
	.destroy = detail_destroy,
	.actions = detail_actions,
	.as_of_requery = true,
};

struct view *detail_view_create(struct ui *ui, uint32_t symbol_id)
{
	struct detail_view *d = view_new(sizeof(*d), &detail_ops, ui);

	d->id = symbol_id;
	d->alone = -1;
	source_cache_init(&d->src);
	return &d->v;
}
