/* annotate.c - a symbol's instructions and lines with their samples (see annotate.h). */
#include "model/annotate.h"
#include "model/model.h"
#include "symbols/symbols.h"
#include "lazy_lib.h"
#include "util.h"

#include <capstone/capstone.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

#if defined(__x86_64__)
#define CS_THIS_ARCH	CS_ARCH_X86
#define CS_THIS_MODE	CS_MODE_64
#elif defined(__aarch64__)
#define CS_THIS_ARCH	CS_ARCH_ARM64
#define CS_THIS_MODE	CS_MODE_ARM
#endif

/* Capstone's functions, from the library this was built against, opened when first asked. */
#define SONAME_OF(major)	"libcapstone.so." #major
#define SONAME(major)		SONAME_OF(major)
static cs_err (*open_p)(cs_arch arch, cs_mode mode, csh *handle);
static cs_err (*option_p)(csh handle, cs_opt_type type, size_t value);
static size_t (*disasm_p)(csh handle, const uint8_t *code, size_t size, uint64_t address,
			  size_t count, cs_insn **insn);
static void (*free_p)(cs_insn *insn, size_t count);
static cs_err (*close_p)(csh *handle);
static bool (*insn_group_p)(csh handle, const cs_insn *insn, unsigned int group_id);
static const struct lazy_fn capstone_fns[] = {
	{ "cs_open", (void **)&open_p }, { "cs_option", (void **)&option_p },
	{ "cs_disasm", (void **)&disasm_p }, { "cs_free", (void **)&free_p },
	{ "cs_close", (void **)&close_p }, { "cs_insn_group", (void **)&insn_group_p },
};
static struct lazy_lib capstone = {
	.soname = SONAME(CS_API_MAJOR), .package = "Debian's libcapstone package",
	.fns = capstone_fns, .n = sizeof(capstone_fns) / sizeof(capstone_fns[0]),
};

#if defined(__x86_64__)
/* A direct call's or jump's target named, as objdump and perf annotate do. */
static void name_target(struct annotated_insn *x, csh h, const cs_insn *in,
			struct symbolizer *s, uint32_t sym, const struct symbol_code *c)
{
	const cs_x86 *d = in->detail ? &in->detail->x86 : NULL;
	const char *name;
	uint64_t off = 0;
	size_t used;

	if (!d || d->op_count != 1 || d->operands[0].type != X86_OP_IMM ||
	    !(insn_group_p(h, in, CS_GRP_CALL) || insn_group_p(h, in, CS_GRP_JUMP)))
		return;
	/* Where it goes, for the detail to follow (Enter). */
	x->target = (uint64_t)d->operands[0].imm;
	name = symbolizer_name_in_file(s, sym, x->target, &off);
	/* No file to ask (a snapshot's code): within the function, it is its own. */
	if (!name && x->target >= c->start && x->target - c->start < c->len) {
		name = symbolizer_symbol(s, sym)->name;
		off = x->target - c->start;
	}
	if (!name)
		return;
	snprintf(x->target_name, sizeof(x->target_name), "%s", name);
	used = strlen(x->text);
	if (off)
		snprintf(x->text + used, sizeof(x->text) - used, " <%.80s+%#llx>", name,
			 (unsigned long long)off);
	else
		snprintf(x->text + used, sizeof(x->text) - used, " <%.80s>", name);
}
#endif

/* Decodes the whole copy; bytes no instruction explains become .byte. */
static void decode(struct annotation *a, const struct symbol_code *c,
		   struct symbolizer *s)
{
#ifdef CS_THIS_ARCH
	csh h;
	cs_insn *insn;
	size_t n;

	if (!lazy_lib_ready(&capstone)) {
		a->code = -ENOSYS;
		return;
	}
	if (open_p(CS_THIS_ARCH, CS_THIS_MODE, &h) != CS_ERR_OK)
		return;
#if defined(__x86_64__)
	option_p(h, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	option_p(h, CS_OPT_DETAIL, CS_OPT_ON);
#endif
	option_p(h, CS_OPT_SKIPDATA, CS_OPT_ON);
	n = disasm_p(h, c->bytes, c->len, c->start, 0, &insn);
	a->insn = st_xcalloc(n ? n : 1, sizeof(*a->insn));
	for (size_t i = 0; i < n; i++) {
		struct annotated_insn *x = &a->insn[a->ninsn++];

		x->offset = insn[i].address - c->start;
		x->size = insn[i].size;
		snprintf(x->text, sizeof(x->text), "%-7.31s %.100s", insn[i].mnemonic,
			 insn[i].op_str);
#if defined(__x86_64__)
		name_target(x, h, &insn[i], s, a->sym, c);
#endif
	}
	if (n)
		free_p(insn, n);
	close_p(&h);
#else
	(void)a;
	(void)c;
	(void)s;
#endif
}

const char *annotation_no_disassembler(void)
{
	return capstone.why;
}

void annotation_load(struct annotation *a, struct symbolizer *s, uint32_t sym)
{
	struct symbol_code c;

	memset(a, 0, sizeof(*a));
	a->sym = sym;
	a->code = symbolizer_code(s, sym, &c);
	if (a->code)
		return;
	a->start = c.start;
	a->truncated = c.truncated;
	decode(a, &c, s);
	for (size_t i = 0; i < a->ninsn; i++)
		if (!symbolizer_source_line(s, sym, (uint32_t)a->insn[i].offset, &a->insn[i].file,
					    &a->insn[i].line))
			a->insn[i].file = NULL;
	symbol_code_free(&c);
}

const struct annotated_insn *annotation_insn_at(const struct annotation *a,
						uint32_t offset)
{
	size_t lo = st_after(a->insn, a->ninsn, sizeof(*a->insn),
			     offsetof(struct annotated_insn, offset), offset);

	if (!lo)
		return NULL;
	return offset - a->insn[lo - 1].offset < a->insn[lo - 1].size ? &a->insn[lo - 1] : NULL;
}

struct tid_count {
	UT_hash_handle hh;
	uint32_t tid;
	uint64_t samples;
};

/*
 * What a count walked, so that a count of the whole session again adds
 * only the samples appended since (the drill-down refreshes each second
 * over a history of millions), and a range counted again over an
 * unchanged history is not walked at all.  A dropped chunk, another event
 * shown or another window starts it over.  Over the whole session the
 * columns are built from per-100 ms counts; a range's are counted exactly.
 */
struct annotation_tally {
	bool counted;
	bool whole;
	uint64_t from, to;		/* a range's window */
	int event;
	uint64_t dropped;		/* the history's, when it began */
	uint64_t entries;		/* a range: the history's, when counted */
	struct history_cursor walked;	/* whole: where the walk stopped */
	struct tid_count *tids;
	uint64_t span0;			/* whole: the start of spans[0]; MAX: none yet */
	uint64_t (*spans)[2];		/* whole: the symbol's and all samples per span */
	size_t nspans, spans_cap;
};

struct count_ctx {
	struct annotation *a;
	const struct model *m;
	struct annotation_tally *t;
};

/* Into the columns: a range's exact ones, or the whole session's spans. */
static void count_time(struct count_ctx *c, uint64_t time, bool mine)
{
	struct annotation *a = c->a;
	struct annotation_tally *t = c->t;

	if (t->whole) {
		size_t k;

		if (t->span0 == UINT64_MAX)	/* the first sample of an empty start */
			t->span0 = a->col_from = time / HISTORY_SPAN_NS * HISTORY_SPAN_NS;
		if (time < t->span0)
			return;	/* before the first span: out of order, not drawn */
		k = (size_t)((time - t->span0) / HISTORY_SPAN_NS);
		if (k >= t->nspans) {
			ST_GROW(t->spans, t->spans_cap, k + 1);
			memset(t->spans + t->nspans, 0, (k + 1 - t->nspans) * sizeof(*t->spans));
			t->nspans = k + 1;
		}
		t->spans[k][0] += mine;
		t->spans[k][1]++;
	} else if (a->col_step && time >= a->col_from &&
		   (time - a->col_from) / a->col_step < a->ncols) {
		size_t col = (size_t)((time - a->col_from) / a->col_step);

		a->col_samples[col] += mine;
		a->col_all[col]++;
	}
}

static void count_one(uint64_t time, const struct history_entry *e, void *arg)
{
	struct count_ctx *c = arg;
	struct annotation *a = c->a;
	struct annotated_insn *x;
	struct tid_count *t;

	if (c->m->nsampled && (!(e->flags & HISTORY_EVENT) || e->event != c->m->shown_event))
		return;
	count_time(c, time, e->sym == a->sym);
	if (e->sym != a->sym)
		return;
	a->samples++;
	if ((e->flags & HISTORY_COUNTERS) && e->cycles)
		hist_add(&a->ipc, (double)e->instructions / e->cycles);
	HASH_FIND(hh, c->t->tids, &e->tid, sizeof(e->tid), t);
	if (!t) {
		t = st_xcalloc(1, sizeof(*t));
		t->tid = e->tid;
		HASH_ADD(hh, c->t->tids, tid, sizeof(t->tid), t);
	}
	t->samples++;
	if (e->offset != SYMBOL_NO_OFFSET &&
	    (x = (struct annotated_insn *)annotation_insn_at(a, e->offset))) {
		x->samples++;
		a->placed++;
	}
}

static int by_samples_thread(const void *x, const void *y)
{
	const struct annotated_thread *a = x, *b = y;

	if (a->samples != b->samples)
		return a->samples < b->samples ? 1 : -1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

static int by_samples_line(const void *x, const void *y)
{
	const struct annotated_line *a = x, *b = y;
	int c;

	if (a->samples != b->samples)
		return a->samples < b->samples ? 1 : -1;
	c = strcmp(a->file, b->file);
	return c ? c : (a->line > b->line) - (a->line < b->line);
}

/* The sampled instructions' lines, summed: the hottest source lines. */
static void sum_lines(struct annotation *a)
{
	for (size_t i = 0; i < a->ninsn; i++) {
		const struct annotated_insn *x = &a->insn[i];
		size_t k = 0;

		if (!x->samples || !x->file)
			continue;
		while (k < a->nlines && (a->lines[k].line != x->line ||
					 strcmp(a->lines[k].file, x->file)))
			k++;
		if (k == a->nlines) {
			if (a->nlines == ANNOTATE_LINES_MAX)
				continue;
			a->lines[a->nlines++] = (struct annotated_line){ x->file, x->line, 0 };
		}
		a->lines[k].samples += x->samples;
	}
	qsort(a->lines, a->nlines, sizeof(*a->lines), by_samples_line);
}

static void forget_tally(struct annotation_tally *t)
{
	struct tid_count *tc, *tmp;

	HASH_ITER(hh, t->tids, tc, tmp) {
		HASH_DEL(t->tids, tc);
		free(tc);
	}
	free(t->spans);
	memset(t, 0, sizeof(*t));
}

/* Forgets every count: a new tally over [from, to). */
static void start_over(struct annotation *a, const struct model *m, uint64_t from,
		       uint64_t to)
{
	const struct history *h = &m->history;
	struct annotation_tally *t = a->tally;
	uint64_t lo = from, hi = to;

	forget_tally(t);
	t->counted = true;
	t->whole = !from && to == UINT64_MAX;
	t->from = from;
	t->to = to;
	t->event = m->shown_event;
	t->dropped = h->dropped;
	t->entries = h->entries;
	hist_free(&a->ipc);
	hist_init_linear(&a->ipc, 0, 4, 500);
	a->samples = a->placed = 0;
	for (size_t i = 0; i < a->ninsn; i++)
		a->insn[i].samples = 0;
	memset(a->col_samples, 0, sizeof(a->col_samples));
	memset(a->col_all, 0, sizeof(a->col_all));
	a->ncols = 0;
	a->col_step = 0;
	if (h->oldest)
		lo = h->oldest->min_time > h->complete_from ? h->oldest->min_time
							    : h->complete_from;
	if (t->whole) {
		t->span0 = h->oldest ? lo / HISTORY_SPAN_NS * HISTORY_SPAN_NS : UINT64_MAX;
		a->col_from = h->oldest ? t->span0 : 0;
		return;
	}
	if (from)
		lo = from;
	if (to == UINT64_MAX)
		hi = h->newest ? h->newest->max_time + 1 : lo;
	a->col_from = lo;
	a->ncols = hi > lo ? ANNOTATE_COLUMNS : 0;
	a->col_step = hi > lo ? (hi - lo + ANNOTATE_COLUMNS - 1) / ANNOTATE_COLUMNS : 0;
}

/* The whole session's columns: its spans, as many to a column as fit 100. */
static void spans_to_columns(struct annotation *a, const struct annotation_tally *t)
{
	size_t per = (t->nspans + ANNOTATE_COLUMNS - 1) / ANNOTATE_COLUMNS;

	memset(a->col_samples, 0, sizeof(a->col_samples));
	memset(a->col_all, 0, sizeof(a->col_all));
	a->col_from = t->span0;
	a->col_step = per * HISTORY_SPAN_NS;
	a->ncols = per ? (t->nspans + per - 1) / per : 0;
	for (size_t k = 0; k < t->nspans; k++) {
		a->col_samples[k / per] += t->spans[k][0];
		a->col_all[k / per] += t->spans[k][1];
	}
}

void annotation_count(struct annotation *a, const struct model *m,
		      uint64_t from, uint64_t to)
{
	const struct history *h = &m->history;
	struct count_ctx c = { a, m, NULL };
	struct tid_count *tc, *tmp;
	bool whole = !from && to == UINT64_MAX;
	size_t n = 0;

	if (!a->tally)
		a->tally = st_xcalloc(1, sizeof(*a->tally));
	c.t = a->tally;
	if (c.t->counted && !whole && !c.t->whole && c.t->from == from && c.t->to == to &&
	    c.t->dropped == h->dropped && c.t->entries == h->entries &&
	    c.t->event == m->shown_event)
		return;		/* the same range of the same history */
	if (!c.t->counted || !whole || !c.t->whole || c.t->dropped != h->dropped ||
	    c.t->event != m->shown_event || (c.t->walked.chunk && !h->oldest))
		start_over(a, m, from, to);
	if (whole) {
		history_each_new(h, &c.t->walked, count_one, &c);
		spans_to_columns(a, c.t);
	} else {
		history_each(h, from, to, count_one, &c);
	}
	free(a->threads);
	a->threads = st_xcalloc(HASH_COUNT(c.t->tids) + 1, sizeof(*a->threads));
	HASH_ITER(hh, c.t->tids, tc, tmp) {
		a->threads[n++] = (struct annotated_thread){ tc->tid, tc->samples };
	}
	a->nthreads = n;
	qsort(a->threads, n, sizeof(*a->threads), by_samples_thread);
	free(a->lines);
	a->lines = st_xcalloc(ANNOTATE_LINES_MAX, sizeof(*a->lines));
	a->nlines = 0;
	sum_lines(a);
}

void annotation_free(struct annotation *a)
{
	if (a->tally)
		forget_tally(a->tally);
	free(a->tally);
	free(a->insn);
	free(a->lines);
	free(a->threads);
	hist_free(&a->ipc);
	memset(a, 0, sizeof(*a));
}
