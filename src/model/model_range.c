/*
 * model_range.c - the tables of a time range: the history's samples in
 * the range, taken again by a fresh model through the same accounting as
 * live samples (summed by kind first), so every table (symbols, threads,
 * processes) agrees with what the live session would have shown for that
 * window alone.  Its call tree: each sample's node in the session's tree
 * (kept in the history) counted, and the paths to them added again.
 */
#include "model/model_internal.h"
#include "symbols/symbols.h"
#include "index.h"
#include "util.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * The range's samples summed by kind (process, thread, symbol, event,
 * mode, flags) in an open-addressing table: one probe a sample, and the
 * model's hash-heavy accounting once a kind rather than once a sample.
 * A long range is cut into consecutive windows summed side by side, one
 * thread each (the walk is bound by memory and the probe, not by
 * arithmetic), then merged.
 */
struct kind {
	uint64_t a, b;		/* pid:tid, sym:event:cpumode:flags:1 */
	uint64_t n, weight;
};

/*
 * --off-cpu: the waits summed by where they blocked too, in the same
 * table (b's low bit 0 tells them apart): node:tid, reason:goes on:0
 * (a piece of a wait still going on is time, not another wait).
 */
#define WAIT_KIND(b)	(((b) & 1) == 0)

/* The counters' sums beside, kind for kind, made at the first sample that has them. */
struct kind_counters {
	uint64_t cycles, instructions;
};

/* Samples of one MODEL_BUCKET_NS of the timeline, the last one's time. */
struct run {
	uint64_t time, n;
};

#define RANGE_MAX_PARTS		4u
#define RANGE_PART_CHUNKS	8u	/* no thread for less than this */

struct range_part {
	const struct history *history;
	uint64_t lo, hi;		/* its window */
	uint64_t first;			/* the range's earliest sample: the timeline's 0 */
	struct kind *v;			/* in the order first seen */
	struct kind_counters *cv;	/* NULL until needed */
	size_t cap, n;
	struct st_index index;		/* (a, b) -> v's entry + 1 */
	struct run *runs;
	size_t nruns, runs_cap;
	uint64_t run_start, run_end;	/* the current run's bucket */
	struct node_sum {
		uint64_t n, weight;
		uint64_t cycles, instructions;
	} *node;			/* samples, weight and counters by tree node */
	size_t nodes;			/* the live tree's, when the walk began */
	pthread_t thread;
	bool threaded;
};

static struct kind_counters *counters_of(struct range_part *c, const struct kind *k)
{
	if (!c->cv)
		c->cv = st_xcalloc(c->cap, sizeof(*c->cv));
	return &c->cv[k - c->v];
}

/* The kind's entry in c, made if new. */
static struct kind *kind_of(struct range_part *c, uint64_t a, uint64_t b)
{
	uint64_t h = st_index_hash(a, b);
	struct st_index_probe p;

	for (uint32_t v = st_index_first(&c->index, h, &p); v; v = st_index_next(&c->index, &p))
		if (c->v[v - 1].a == a && c->v[v - 1].b == b)
			return &c->v[v - 1];
	{
		if (c->n == c->cap) {
			size_t was = c->cap;

			c->cap = was ? was * 2 : 4096;
			c->v = st_xrealloc(c->v, c->cap * sizeof(*c->v));
			if (c->cv) {
				c->cv = st_xrealloc(c->cv, c->cap * sizeof(*c->cv));
				memset(c->cv + was, 0, (c->cap - was) * sizeof(*c->cv));
			}
		}
		c->v[c->n++] = (struct kind){ a, b, 0, 0 };
		st_index_add(&c->index, h, (uint32_t)c->n);
	}
	return &c->v[c->n - 1];
}

static void take(uint64_t time, const struct history_entry *e, void *arg)
{
	struct range_part *c = arg;
	uint64_t a = (uint64_t)e->pid << 32 | e->tid;
	uint64_t b = (uint64_t)e->sym << 32 | (uint64_t)e->event << 24 |
		     (uint64_t)e->cpumode << 16 | (uint64_t)(e->flags & 0x7fff) << 1 | 1;
	struct kind *k;

	if (c->nruns && time >= c->run_start && time < c->run_end) {
		c->runs[c->nruns - 1].n++;
		c->runs[c->nruns - 1].time = time;
	} else {
		ST_GROW(c->runs, c->runs_cap, c->nruns + 1);
		c->runs[c->nruns++] = (struct run){ time, 1 };
		/* time >= first: first is the range's earliest. */
		c->run_start = c->first + (time - c->first) / MODEL_BUCKET_NS * MODEL_BUCKET_NS;
		c->run_end = c->run_start + MODEL_BUCKET_NS;
	}
	if (e->node < c->nodes) {
		struct node_sum *ns = &c->node[e->node];

		ns->n++;
		ns->weight += e->weight;
		if (e->flags & HISTORY_COUNTERS) {
			ns->cycles += e->cycles;
			ns->instructions += e->instructions;
		}
	}
	k = kind_of(c, a, b);
	k->n++;
	k->weight += e->weight;
	if (e->flags & HISTORY_COUNTERS) {
		struct kind_counters *kc = counters_of(c, k);

		kc->cycles += e->cycles;
		kc->instructions += e->instructions;
	}
	if ((e->flags & HISTORY_WAIT_MASK) && e->node < c->nodes) {
		k = kind_of(c, (uint64_t)e->node << 32 | e->tid,
			    (uint64_t)(e->flags & HISTORY_WAIT_MASK) >> HISTORY_WAIT_SHIFT << 2 |
			    (e->flags & HISTORY_WAIT_GOES_ON ? 2u : 0u));
		k->n++;
		k->weight += e->weight;
	}
}

static void *walk_part(void *arg)
{
	struct range_part *c = arg;

	history_each(c->history, c->lo, c->hi, take, c);
	return NULL;
}

/* One window per thread where the range is long enough to be worth it. */
static unsigned parts_for(const struct history *h, uint64_t from, uint64_t to)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t chunks = history_chunks_in(h, from, to);
	unsigned parts = cpus > (long)RANGE_MAX_PARTS ? RANGE_MAX_PARTS
			 : cpus > 1 ? (unsigned)cpus : 1;

	while (parts > 1 && chunks < (size_t)parts * RANGE_PART_CHUNKS)
		parts--;
	return parts;
}

/* Part i's kinds into part 0's. */
static void merge_part(struct range_part *into, const struct range_part *p)
{
	for (size_t i = 0; i < into->nodes; i++) {
		into->node[i].n += p->node[i].n;
		into->node[i].weight += p->node[i].weight;
		into->node[i].cycles += p->node[i].cycles;
		into->node[i].instructions += p->node[i].instructions;
	}
	for (size_t i = 0; i < p->n; i++) {
		const struct kind *src = &p->v[i];
		struct kind *k;

		k = kind_of(into, src->a, src->b);
		k->n += src->n;
		k->weight += src->weight;
		if (p->cv) {
			struct kind_counters *kc = counters_of(into, k);

			kc->cycles += p->cv[i].cycles;
			kc->instructions += p->cv[i].instructions;
		}
	}
}

/* A kind's samples into the range's model, as one sample of their sums. */
static void account(struct model *out, const struct model *m, const struct kind *k,
		    const struct kind_counters *kc)
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
	if ((flags & HISTORY_COUNTERS) && kc) {
		/* The range model reads cycles at 0 and instructions at 1. */
		s->flags |= ST_SAMPLE_HAS_COUNTERS;
		s->ncounters = 2;
		s->data[0] = kc->cycles;
		s->data[1] = kc->instructions;
	}
	model_account_samples(out, s, (uint32_t)(k->b >> 32),
			      symbolizer_symbol(m->symbols, (uint32_t)(k->b >> 32))->unknown, k->n);
}

/* A wait kind's time, under the live tree's path to where it blocked. */
static void take_waits(struct model *out, const struct model *m, const struct kind *k)
{
	uint32_t path[CCT_MAX_DEPTH + 1];
	size_t n = cct_path(&m->tree, (uint32_t)(k->a >> 32), path);

	model_count_waits(out, (pid_t)(uint32_t)k->a, (unsigned)(k->b >> 2), path, n, k->weight,
			  k->b & 2 ? 0 : k->n);
}

/* The clock event's time in the range under each function, by the live tree's nodes (WALL). */
static void take_ran(struct model *out, const struct model *m, uint64_t from, uint64_t to)
{
	size_t ne = (size_t)m->nsampled;
	uint64_t *v = history_node_events(&m->history, from, to, (uint32_t)m->tree.n, ne);
	uint32_t path[CCT_MAX_DEPTH + 1];

	for (size_t i = 1; i < m->tree.n; i++) {
		uint64_t ns = v[(i * ne + (size_t)m->clock_event) * 2 + 1];

		if (ns)
			model_count_ran(out, path, cct_path(&m->tree, (uint32_t)i, path), ns);
	}
	free(v);
}

/* The range's tree: each node's samples along the live tree's path to it. */
static void take_tree(struct model *out, const struct cct *live, const struct range_part *p)
{
	for (size_t i = 1; i < p->nodes; i++)
		if (p->node[i].n)
			cct_add_counters(&out->tree,
					 cct_add_path_of(&out->tree, live, (uint32_t)i,
							 p->node[i].n, p->node[i].weight),
					 p->node[i].cycles, p->node[i].instructions);
}

bool model_range(const struct model *m, uint64_t from, uint64_t to,
		 struct model *out)
{
	return model_range_split(m, from, to, parts_for(&m->history, from, to), out);
}

bool model_range_split(const struct model *m, uint64_t from, uint64_t to,
		       unsigned parts, struct model *out)
{
	struct range_part part[RANGE_MAX_PARTS];
	uint64_t bounds[RANGE_MAX_PARTS + 1], first;
	struct model_thread *t;

	model_init(out, m->symbols);
	out->keep_history = false;
	out->nsampled = m->nsampled;
	out->shown_event = m->shown_event;
	out->offcpu_event = m->offcpu_event;
	out->clock_event = m->clock_event;
	out->offcpu_folded_us = m->offcpu_folded_us;
	out->recorded = m->recorded;
	out->unwind_hint = m->unwind_hint;
	if (m->ipc_cycles >= 0 && m->ipc_instructions >= 0) {
		out->ipc_cycles = 0;
		out->ipc_instructions = 1;
	}
	parts = parts < 1 ? 1 : parts > RANGE_MAX_PARTS ? RANGE_MAX_PARTS : parts;
	first = history_first_time(&m->history, from, to);
	history_split(&m->history, from, to, parts, bounds);
	memset(part, 0, sizeof(part));
	for (unsigned i = 0; i < parts; i++) {
		part[i].history = &m->history;
		part[i].lo = bounds[i];
		part[i].hi = bounds[i + 1];
		part[i].first = first;
		part[i].nodes = m->tree.n;
		part[i].node = st_xcalloc(m->tree.n + 1, sizeof(*part[i].node));
		/* Part 0 is the caller's; a thread that cannot start is walked here. */
		part[i].threaded = i > 0 &&
			pthread_create(&part[i].thread, NULL, walk_part, &part[i]) == 0;
	}
	for (unsigned i = 0; i < parts; i++) {
		if (part[i].threaded)
			pthread_join(part[i].thread, NULL);
		else
			walk_part(&part[i]);
	}
	/* The timeline: the earliest first, so its buckets start there. */
	if (first)
		model_count_time(out, first, 0);
	for (unsigned i = 0; i < parts; i++) {
		for (size_t r = 0; r < part[i].nruns; r++)
			model_count_time(out, part[i].runs[r].time, part[i].runs[r].n);
		free(part[i].runs);
		if (i > 0) {
			merge_part(&part[0], &part[i]);
			free(part[i].v);
			free(part[i].cv);
			st_index_free(&part[i].index);
			free(part[i].node);
		}
	}
	take_tree(out, &m->tree, &part[0]);
	cct_settle(&out->tree);
	free(part[0].node);
	for (size_t i = 0; i < part[0].n; i++)
		if (!WAIT_KIND(part[0].v[i].b))
			account(out, m, &part[0].v[i], part[0].cv ? &part[0].cv[i] : NULL);
	/* After the samples: their threads exist to take their waits. */
	for (size_t i = 0; i < part[0].n; i++)
		if (WAIT_KIND(part[0].v[i].b))
			take_waits(out, m, &part[0].v[i]);
	if (model_knows_wall(m))
		take_ran(out, m, from, to);
	free(part[0].v);
	free(part[0].cv);
	st_index_free(&part[0].index);
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
