/*
 * model_threads.c - the per-thread table (tiptop's and top's H): each
 * thread's share, IPC and heaviest symbols.
 */
#include "model/model.h"
#include "symbols/symbols.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double ratio(uint64_t num, uint64_t den)
{
	return den ? (double)num / (double)den : NAN;
}

static double share(const struct model *m, uint64_t w)
{
	uint64_t total = model_total_weight(m);

	return total ? 100.0 * (double)w / (double)total : 0;
}

static int heavier_thread(const void *pa, const void *pb)
{
	const struct model_thread_row *a = pa, *b = pb;

	if (a->share != b->share)
		return a->share > b->share ? -1 : 1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

/* Whether (samples, id) outweighs the kept top entry e: more samples, else the lower id. */
static bool outweighs(uint64_t samples, uint32_t id, const struct model_thread_top *e)
{
	return samples != e->samples ? samples > e->samples : id < e->sym->id;
}

/* t's n heaviest symbols into out, by insertion (a thread has few); the count. */
static size_t thread_top(const struct model *m, const struct model_thread *t,
			 struct model_thread_top *out, size_t n)
{
	size_t k = 0;

	for (const struct model_thread_sym *ts = t->syms; ts && n; ts = ts->next) {
		uint64_t samples = model_thread_sym_samples(m, ts);
		size_t at = k;

		while (at > 0 && outweighs(samples, ts->key.id, &out[at - 1]))
			at--;
		if (at == n)
			continue;
		if (k < n)
			k++;
		memmove(&out[at + 1], &out[at], (k - 1 - at) * sizeof(out[0]));
		out[at] = (struct model_thread_top){
			.sym = symbolizer_symbol(m->symbols, ts->key.id),
			.samples = samples,
			.share = t->samples ? 100.0 * (double)samples / (double)t->samples : 0,
		};
	}
	return k;
}

size_t model_thread_top(const struct model *m, pid_t tid, struct model_thread_top *out, size_t n)
{
	const struct model_thread *t;

	HASH_FIND(hh, m->threads, &tid, sizeof(tid), t);
	return t ? thread_top(m, t, out, n) : 0;
}

/* --off-cpu: its time on a CPU (a clock event's ns), off it by why, and the two. */
static void thread_waits(const struct model *m, const struct model_thread *t,
			 struct model_thread_row *r)
{
	double off = 0;

	r->on_cpu = r->wall = NAN;
	for (int w = 0; w < MODEL_WAITS; w++)
		r->waited[w] = NAN;
	if (m->offcpu_event < 0)
		return;
	/* A reason no wait had reads "-": a column all "-" goes (at 80 columns, room). */
	for (int w = 0; w < MODEL_WAITS; w++) {
		r->waited[w] = t->waited[w] ? (double)t->waited[w] / 1e9 : NAN;
		off += (double)t->waited[w] / 1e9;
	}
	if (m->clock_event >= 0 && m->clock_event < m->nsampled) {
		r->on_cpu = (double)t->event_weight[m->clock_event] / 1e9;
		r->wall = r->on_cpu + off;
	}
}

/* A row's place by its thread, while its heaviest waker is found. */
struct row_of {
	UT_hash_handle hh;
	pid_t tid;
	size_t at;
};

/* Each row's heaviest waker: the wakers by thread come heaviest first, the first of each wins. */
static void woke_most(const struct model *m, struct model_thread_row *r, size_t n)
{
	struct row_of *rows = NULL, *x;
	struct model_waker *w;
	size_t nw;

	if (!m->woken)
		return;
	for (size_t i = 0; i < n; i++) {
		x = st_xmalloc(sizeof(*x));
		x->tid = r[i].tid;
		x->at = i;
		HASH_ADD(hh, rows, tid, sizeof(x->tid), x);
	}
	nw = model_wakers(m, 0, UINT32_MAX, true, &w);
	for (size_t i = 0; i < nw; i++) {
		HASH_FIND(hh, rows, &w[i].woken, sizeof(w[i].woken), x);
		if (x && !r[x->at].woken) {
			r[x->at].woken = true;
			r[x->at].woke_most = w[i];
		}
	}
	free(w);
	ST_HASH_FREE_ALL(rows);
}

size_t model_thread_rows(const struct model *m, struct model_thread_row **rows)
{
	size_t n = 0, count = HASH_COUNT(m->threads);
	struct model_thread_row *r = st_xcalloc(count ? count : 1, sizeof(*r));
	const struct model_thread *t;

	for (t = m->threads; t; t = t->hh.next) {
		/* A thread named by a record but never sampled has no row (nor a pid yet). */
		if (!t->samples)
			continue;
		struct model_thread_top top;

		r[n].tid = t->tid;
		r[n].pid = t->pid;
		memcpy(r[n].comm, t->comm, sizeof(r[n].comm));
		r[n].samples = t->samples;
		r[n].exited = t->exited;
		r[n].share = share(m, model_shown_weight(m, t->weight, t->event_weight));
		r[n].ipc = t->cycles ? ratio(t->instructions, t->cycles) : NAN;
		r[n].top = thread_top(m, t, &top, 1) ? top.sym : NULL;
		thread_waits(m, t, &r[n]);
		n++;
	}
	woke_most(m, r, n);
	qsort(r, n, sizeof(*r), heavier_thread);
	*rows = r;
	return n;
}

/* ---- the per-process table ---- */

struct process_acc {
	UT_hash_handle hh;
	pid_t pid;
	struct model_process_row row;
	uint64_t cycles, instructions, top_weight;
};

static int heavier_process(const void *pa, const void *pb)
{
	const struct model_process_row *a = pa, *b = pb;

	if (a->weight != b->weight)
		return a->weight > b->weight ? -1 : 1;
	return (a->pid > b->pid) - (a->pid < b->pid);
}

size_t model_process_rows(const struct model *m, struct model_process_row **rows)
{
	struct process_acc *procs = NULL, *p, *tmp;
	const struct model_proc_sym *ps;
	size_t n = 0;

	for (ps = m->proc_syms; ps; ps = ps->hh.next) {
		struct model_sym tot = model_proc_sym_totals(m, ps);
		uint64_t w = model_shown_weight(m, tot.weight, tot.event_weight);

		HASH_FIND(hh, procs, &ps->key.pid, sizeof(pid_t), p);
		if (!p) {
			p = st_xcalloc(1, sizeof(*p));
			p->pid = p->row.pid = ps->key.pid;
			HASH_ADD(hh, procs, pid, sizeof(p->pid), p);
		}
		p->row.samples += tot.samples;
		p->row.weight += w;
		p->cycles += tot.cycles;
		p->instructions += tot.instructions;
		if (w > p->top_weight || !p->row.top) {
			p->top_weight = w;
			p->row.top = symbolizer_symbol(m->symbols, ps->key.id);
		}
		if (ps->comm[0])
			memcpy(p->row.comm, ps->comm, sizeof(p->row.comm));
	}
	for (size_t i = 0; i < m->nprocesses; i++) {
		HASH_FIND(hh, procs, &m->processes[i].pid, sizeof(pid_t), p);
		if (p) {
			p->row.threads = m->processes[i].threads;
			p->row.exited = m->processes[i].folded;
		}
	}
	*rows = st_xcalloc(HASH_COUNT(procs) + 1, sizeof(**rows));
	HASH_ITER(hh, procs, p, tmp) {
		p->row.share = share(m, p->row.weight);
		p->row.ipc = ratio(p->instructions, p->cycles);
		(*rows)[n++] = p->row;
		HASH_DEL(procs, p);
		free(p);
	}
	qsort(*rows, n, sizeof(**rows), heavier_process);
	return n;
}
