/*
 * model_range.c - the tables of a time range: the history's samples in
 * the range, taken again by a fresh model through the same accounting as
 * live samples, so every table (symbols, threads, processes) agrees with
 * what the live session would have shown for that window alone.
 */
#include "model/model_internal.h"
#include "symbols/symbols.h"

#include <string.h>

struct range_ctx {
	const struct model *from;
	struct model *out;
};

static void take(uint64_t time, const struct history_entry *e, void *arg)
{
	struct range_ctx *c = arg;
	_Alignas(8) unsigned char buf[sizeof(struct st_sample) + 2 * sizeof(uint64_t)];
	struct st_sample *s = (void *)buf;

	memset(buf, 0, sizeof(buf));
	s->h = (struct st_header){ ST_REC_SAMPLE, ST_SOURCE_PERF, sizeof(buf) };
	s->pid = e->pid;
	s->tid = e->tid;
	s->time = time;
	s->period = e->weight;
	s->cpumode = e->cpumode;
	if (e->flags & HISTORY_MULTIPLEXED)
		s->flags |= ST_SAMPLE_MULTIPLEXED;
	if (e->flags & HISTORY_EVENT)
		s->flags |= (uint32_t)e->event << ST_SAMPLE_EVENT_SHIFT;
	if (e->flags & HISTORY_COUNTERS) {
		/* The range model reads cycles at 0 and instructions at 1. */
		s->flags |= ST_SAMPLE_HAS_COUNTERS;
		s->ncounters = 2;
		s->data[0] = e->cycles;
		s->data[1] = e->instructions;
	}
	model_account_sample(c->out, s, symbolizer_symbol(c->from->symbols, e->sym));
}

bool model_range(const struct model *m, uint64_t from, uint64_t to,
		 struct model *out)
{
	struct range_ctx c;
	struct model_thread *t;

	model_init(out, m->symbols);
	c.from = m;
	c.out = out;
	out->keep_history = false;
	out->nsampled = m->nsampled;
	out->shown_event = m->shown_event;
	if (m->ipc_cycles >= 0 && m->ipc_instructions >= 0) {
		out->ipc_cycles = 0;
		out->ipc_instructions = 1;
	}
	history_each(&m->history, from, to, take, &c);
	/* Names and states from the live model, where it still knows them. */
	for (t = out->threads; t; t = t->hh.next) {
		const struct model_thread *live;

		HASH_FIND(hh, m->threads, &t->tid, sizeof(t->tid), live);
		if (live) {
			memcpy(t->comm, live->comm, sizeof(t->comm));
			if (live->exited && !t->exited) {
				t->exited = true;
				out->live_threads--;
			}
		}
	}
	for (struct model_proc_sym *ps = out->proc_syms; ps; ps = ps->hh.next) {
		const struct model_proc_sym *live;

		HASH_FIND(hh, m->proc_syms, &ps->key, sizeof(ps->key), live);
		if (live) {
			memcpy(ps->comm, live->comm, sizeof(ps->comm));
		} else {
			/* Zeroed live (z): the process's main thread names it. */
			HASH_FIND(hh, out->threads, &ps->key.pid, sizeof(pid_t), t);
			if (t)
				memcpy(ps->comm, t->comm, sizeof(ps->comm));
		}
	}
	return from >= m->history.complete_from;
}
