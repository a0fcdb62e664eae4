/*
 * timeline.c - columns of the history (see timeline.h).  Two passes over
 * the window: the first finds its heaviest threads, the second fills the
 * columns, so each thread's row counts all of its samples.  Columns that
 * are whole spans (steps of 100 ms and more) add the history's span
 * summaries; the rest walk the samples.
 */
#include "model/timeline.h"
#include "model/model.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

struct tid_count {
	UT_hash_handle hh;
	pid_t tid;
	uint64_t samples;
};

struct pass {
	struct timeline *t;
	struct tid_count *counts;	/* first pass: by tid (uthash) */
	int offcpu, clock;		/* the off-CPU event and a clock event, or -1 */
	uint64_t to;			/* the window's end */
};

static void count_tid_n(struct pass *p, pid_t tid, uint64_t n);

static void count_tid(uint64_t time, const struct history_entry *e, void *arg)
{
	(void)time;
	count_tid_n(arg, (pid_t)e->tid, 1);
}

static void count_tid_n(struct pass *p, pid_t tid, uint64_t n)
{
	struct tid_count *c;

	HASH_FIND(hh, p->counts, &tid, sizeof(tid), c);
	if (!c) {
		c = st_xcalloc(1, sizeof(*c));
		c->tid = tid;
		HASH_ADD(hh, p->counts, tid, sizeof(c->tid), c);
	}
	c->samples += n;
}

static int heavier(const void *pa, const void *pb)
{
	const struct tid_count *a = *(const struct tid_count *const *)pa;
	const struct tid_count *b = *(const struct tid_count *const *)pb;

	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	return (a->tid > b->tid) - (a->tid < b->tid);
}

static void pick_threads(struct pass *p, size_t max)
{
	size_t n = HASH_COUNT(p->counts), k = 0;
	struct tid_count **all = st_xcalloc(n ? n : 1, sizeof(*all));
	struct tid_count *c, *tmp;

	HASH_ITER(hh, p->counts, c, tmp)
		all[k++] = c;
	qsort(all, n, sizeof(*all), heavier);
	for (k = 0; k < n && k < max; k++)
		p->t->tids[p->t->ntids++] = all[k]->tid;
	free(all);
	HASH_ITER(hh, p->counts, c, tmp) {
		HASH_DEL(p->counts, c);
		free(c);
	}
}

static enum timeline_off off_kind(uint16_t flags)
{
	switch ((flags & HISTORY_WAIT_MASK) >> HISTORY_WAIT_SHIFT) {
	case ST_OFFCPU_SLEEP:
	case ST_OFFCPU_FUTEX:
		return TIMELINE_SLEEP;
	case ST_OFFCPU_DISK:
		return TIMELINE_DISK;
	case ST_OFFCPU_RUNNABLE:
		return TIMELINE_RUNQ;
	default:
		return TIMELINE_OTHER;
	}
}

/* A wait of thread row i that ended at time: its ns into each column it covers. */
static void spread_wait(struct timeline *t, size_t i, uint64_t time, uint64_t ns,
			enum timeline_off why)
{
	uint64_t start = time > ns ? time - ns : 0, end = t->from + t->step * t->ncols;

	if (start < t->from)
		start = t->from;
	if (time < end)
		end = time;
	while (start < end) {
		size_t c = (start - t->from) / t->step;
		uint64_t edge = t->from + (c + 1) * t->step;
		uint64_t part = (edge < end ? edge : end) - start;

		t->col[c].thread_off[i][why] += part;
		start += part;
	}
}

/* An off-CPU sample: counted where it ended, its time spread over its thread's row. */
static void fill_wait(struct pass *p, uint64_t time, const struct history_entry *e)
{
	struct timeline *t = p->t;

	if (time < p->to)
		t->col[(time - t->from) / t->step].samples++;
	if (!(e->flags & HISTORY_WAIT_MASK))
		return;		/* a switch never seen to end: no time to spread */
	for (size_t i = 0; i < t->ntids; i++)
		if (t->tids[i] == (pid_t)e->tid) {
			spread_wait(t, i, time, e->weight, off_kind(e->flags));
			break;
		}
}

static void fill(uint64_t time, const struct history_entry *e, void *arg)
{
	struct pass *p = arg;
	struct timeline *t = p->t;
	struct timeline_column *c;

	if (p->offcpu >= 0 && (e->flags & HISTORY_EVENT) && e->event == p->offcpu) {
		fill_wait(p, time, e);
		return;
	}
	if (time >= p->to)
		return;		/* walked past the window for waits that began in it */
	c = &t->col[(time - t->from) / t->step];

	c->samples++;
	/* With waits, the weight is the clock's alone: the CPU row's ns. */
	if (!t->waits || ((e->flags & HISTORY_EVENT) && e->event == p->clock))
		c->weight += e->weight;
	if (e->flags & HISTORY_COUNTERS) {
		c->cycles += e->cycles;
		c->instructions += e->instructions;
	}
	for (size_t i = 0; i < t->ntids; i++)
		if (t->tids[i] == (pid_t)e->tid) {
			c->thread_samples[i]++;
			if ((e->flags & HISTORY_EVENT) && e->event == p->clock)
				c->thread_ran[i] += e->weight;
			break;
		}
}

/* A span's summary into its column. */
static void fill_span(struct timeline *t, const struct history_span *sp)
{
	struct timeline_column *c = &t->col[(sp->start - t->from) / t->step];

	c->samples += sp->samples;
	c->weight += sp->weight;
	c->cycles += sp->cycles;
	c->instructions += sp->instructions;
	for (size_t i = 0; i < t->ntids; i++) {
		uint32_t lo = 0, hi = sp->nthreads;

		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (sp->threads[mid].tid < (uint32_t)t->tids[i])
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < sp->nthreads && sp->threads[lo].tid == (uint32_t)t->tids[i])
			c->thread_samples[i] += sp->threads[lo].samples;
	}
}

/*
 * Columns of whole spans: the spans the history holds whole from `whole`
 * on, and the samples before it walked (the edge where history was dropped).
 */
static void build_by_spans(const struct model *m, struct pass *p, uint64_t from,
			   uint64_t to, size_t max_threads)
{
	const struct history *h = &m->history;
	uint64_t whole = (h->complete_from + HISTORY_SPAN_NS - 1) / HISTORY_SPAN_NS *
			 HISTORY_SPAN_NS;
	const struct history_span *sp;
	size_t n;

	if (whole < from)
		whole = from;
	if (whole > to)
		whole = to;
	sp = history_spans(h, whole, &n);
	if (max_threads) {
		history_each(h, from, whole, count_tid, p);
		for (size_t i = 0; i < n && sp[i].start < to; i++)
			for (uint32_t k = 0; k < sp[i].nthreads; k++)
				count_tid_n(p, (pid_t)sp[i].threads[k].tid, sp[i].threads[k].samples);
		pick_threads(p, max_threads);
	}
	history_each(h, from, whole, fill, p);
	for (size_t i = 0; i < n && sp[i].start < to; i++)
		fill_span(p->t, &sp[i]);
}

void timeline_build(const struct model *m, uint64_t from, uint64_t step,
		    size_t ncols, size_t max_threads, struct timeline *out)
{
	struct pass p;
	uint64_t to;

	memset(out, 0, sizeof(*out));
	p.t = out;
	p.counts = NULL;
	p.offcpu = m->offcpu_event;
	p.clock = m->clock_event;
	out->waits = m->offcpu_event >= 0;
	out->from = from;
	out->step = step ? step : 1;
	out->ncols = ncols;
	out->col = st_xcalloc(ncols ? ncols : 1, sizeof(*out->col));
	if (!ncols)
		return;
	to = from + out->step * ncols;
	p.to = to;
	if (max_threads > TIMELINE_MAX_THREADS)
		max_threads = TIMELINE_MAX_THREADS;
	if (out->step % HISTORY_SPAN_NS == 0 && from % HISTORY_SPAN_NS == 0 && !out->waits) {
		build_by_spans(m, &p, from, to, max_threads);
		return;
	}
	if (max_threads) {
		history_each(&m->history, from, to, count_tid, &p);
		pick_threads(&p, max_threads);
	}
	history_each(&m->history, from, !out->waits ? to : to < UINT64_MAX - TIMELINE_WAIT_SLACK_NS
		     ? to + TIMELINE_WAIT_SLACK_NS : UINT64_MAX, fill, &p);
}

void timeline_free(struct timeline *t)
{
	free(t->col);
	memset(t, 0, sizeof(*t));
}
