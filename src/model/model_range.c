/*
 * model_range.c - the tables of a time range: the history's samples in
 * the range, taken again by a fresh model through the same accounting as
 * live samples (summed by kind first), so every table (symbols, threads,
 * processes) agrees with what the live session would have shown for that
 * window alone.
 */
#include "model/model_internal.h"
#include "symbols/symbols.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/*
 * The range's samples summed by kind (process, thread, symbol, event,
 * mode, flags) in an open-addressing table: one probe a sample, and the
 * model's hash-heavy accounting once a kind rather than once a sample.
 */
struct kind {
	uint64_t a, b;		/* pid:tid, sym:event:cpumode:flags; b 0: empty */
	uint64_t n, weight, cycles, instructions;
};

struct range_ctx {
	const struct model *from;
	struct model *out;
	struct kind *v;
	size_t cap, n;
	/* Samples of one 100 ms bucket, counted into the timeline at once. */
	uint64_t run_start, run_end;	/* the bucket's times */
	uint64_t run_time, run_n;
};

static void flush_run(struct range_ctx *c)
{
	if (c->run_n)
		model_count_time(c->out, c->run_time, c->run_n);
	c->run_n = 0;
}

static size_t slot_of(const struct range_ctx *c, uint64_t a, uint64_t b)
{
	size_t i = (size_t)((a * 0x9e3779b97f4a7c15ull) ^ (b * 0xc2b2ae3d27d4eb4full) ^
			    ((a ^ b) >> 29)) & (c->cap - 1);

	while (c->v[i].b && (c->v[i].a != a || c->v[i].b != b))
		i = (i + 1) & (c->cap - 1);
	return i;
}

static void grow(struct range_ctx *c)
{
	struct kind *old = c->v;
	size_t old_cap = c->cap;

	c->cap = c->cap ? c->cap * 2 : 4096;
	c->v = st_xcalloc(c->cap, sizeof(*c->v));
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].b)
			c->v[slot_of(c, old[i].a, old[i].b)] = old[i];
	free(old);
}

static void take(uint64_t time, const struct history_entry *e, void *arg)
{
	struct range_ctx *c = arg;
	/* The low bit keeps b non-zero: 0 marks an empty slot. */
	uint64_t a = (uint64_t)e->pid << 32 | e->tid;
	uint64_t b = (uint64_t)e->sym << 32 | (uint64_t)e->event << 24 |
		     (uint64_t)e->cpumode << 16 | (uint64_t)(e->flags & 0x7fff) << 1 | 1;
	struct kind *k;

	if (time >= c->run_start && time < c->run_end) {
		c->run_n++;
		c->run_time = time;
	} else {
		flush_run(c);
		model_count_time(c->out, time, 1);
		/* time >= first_time now: count_time took the earliest. */
		c->run_start = c->out->first_time + (time - c->out->first_time) /
			       MODEL_BUCKET_NS * MODEL_BUCKET_NS;
		c->run_end = c->run_start + MODEL_BUCKET_NS;
	}
	if ((c->n + 1) * 2 > c->cap)
		grow(c);
	k = &c->v[slot_of(c, a, b)];
	if (!k->b) {
		k->a = a;
		k->b = b;
		c->n++;
	}
	k->n++;
	k->weight += e->weight;
	if (e->flags & HISTORY_COUNTERS) {
		k->cycles += e->cycles;
		k->instructions += e->instructions;
	}
}

/* A kind's samples into the range's model, as one sample of their sums. */
static void account(struct range_ctx *c, const struct kind *k)
{
	_Alignas(8) unsigned char buf[sizeof(struct st_sample) + 2 * sizeof(uint64_t)];
	struct st_sample *s = (void *)buf;
	uint32_t flags = (uint32_t)(k->b >> 1) & 0x7fff;

	memset(buf, 0, sizeof(buf));
	s->h = (struct st_header){ ST_REC_SAMPLE, ST_SOURCE_PERF, sizeof(buf) };
	s->pid = (uint32_t)(k->a >> 32);
	s->tid = (uint32_t)k->a;
	s->period = k->weight;
	s->cpumode = (uint8_t)(k->b >> 16);
	if (flags & HISTORY_MULTIPLEXED)
		s->flags |= ST_SAMPLE_MULTIPLEXED;
	if (flags & HISTORY_EVENT)
		s->flags |= (uint32_t)(uint8_t)(k->b >> 24) << ST_SAMPLE_EVENT_SHIFT;
	if (flags & HISTORY_COUNTERS) {
		/* The range model reads cycles at 0 and instructions at 1. */
		s->flags |= ST_SAMPLE_HAS_COUNTERS;
		s->ncounters = 2;
		s->data[0] = k->cycles;
		s->data[1] = k->instructions;
	}
	model_account_samples(c->out, s, symbolizer_symbol(c->from->symbols,
							   (uint32_t)(k->b >> 32)), k->n);
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
	c.v = NULL;
	c.cap = c.n = 0;
	c.run_n = 0;
	c.run_start = c.run_end = 0;
	history_each(&m->history, from, to, take, &c);
	flush_run(&c);
	for (size_t i = 0; i < c.cap; i++)
		if (c.v[i].b)
			account(&c, &c.v[i]);
	free(c.v);
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
