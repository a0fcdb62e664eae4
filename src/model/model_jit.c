/*
 * model_jit.c - samples of anonymous code named late.  perf report names
 * a JIT's samples from /tmp/perf-PID.map as the map is at report time;
 * a JVM writes it mid-run (jcmd PID Compiler.perfmap) or at its exit
 * (-XX:+DumpPerfMapAtExit), after the samples.  Live, they were counted
 * as [unknown]; each is also kept here by kind, and when a map appears
 * or changes, or the session ends, the kinds it names move to their
 * function in every table, in the tree (the leaf; callers in JIT code
 * keep the name they had) and in the history.
 */
#include "model/model_internal.h"
#include "symbols/symbols.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static uint64_t kind_hash(pid_t pid, pid_t tid, uint64_t ip, uint32_t node, int event)
{
	return st_index_hash((uint64_t)(uint32_t)pid << 32 | (uint32_t)tid,
			     ip ^ ((uint64_t)node << 8 | (uint8_t)event) * 0x9e3779b97f4a7c15ull);
}

uint32_t model_jit_wait(struct model *m, const struct st_sample *s,
			uint32_t sym, uint32_t node)
{
	struct model_jit *j = &m->jit;
	int ev = sample_event(m, s);
	uint64_t h = kind_hash((pid_t)s->pid, (pid_t)s->tid, s->ip, node, ev);
	uint64_t w = s->period ? s->period : 1;
	struct model_jit_kind *k = NULL;
	struct st_index_probe p;

	for (uint32_t v = st_index_first(&j->index, h, &p); v; v = st_index_next(&j->index, &p)) {
		struct model_jit_kind *c = &j->v[v - 1];

		if (c->pid == (pid_t)s->pid && c->tid == (pid_t)s->tid && c->ip == s->ip &&
		    c->node == node && c->event == ev && c->sym == sym && !c->named) {
			k = c;
			break;
		}
	}
	if (!k) {
		if (j->n == MODEL_JIT_MAX) {
			j->unkept++;
			return UINT32_MAX;
		}
		ST_GROW(j->v, j->cap, j->n + 1);
		k = &j->v[j->n++];
		*k = (struct model_jit_kind){ .pid = (pid_t)s->pid, .tid = (pid_t)s->tid,
					      .ip = s->ip, .node = node, .sym = sym,
					      .event = ev };
		st_index_add(&j->index, h, (uint32_t)j->n);
		j->waiting++;
	}
	k->n++;
	k->weight += w;
	if (counters_usable(m, s)) {
		k->cycles += s->data[m->ipc_cycles];
		k->instructions += s->data[m->ipc_instructions];
	}
	return (uint32_t)(k - j->v);
}

/* The history's samples of kinds named: their function, node and offset now. */
static void rename_in_history(struct history_entry *e, void *arg)
{
	const struct model_jit *j = arg;
	const struct model_jit_kind *k;

	if (!(e->flags & HISTORY_JIT) || e->offset >= j->n)
		return;
	k = &j->v[e->offset];
	if (!k->named)
		return;
	e->sym = k->sym;
	e->node = k->node;
	e->offset = k->offset;
	e->flags &= (uint16_t)~HISTORY_JIT;
}

uint64_t model_jit_name(struct model *m, bool final)
{
	struct model_jit *j = &m->jit;
	uint64_t named = 0;
	size_t kinds = 0;
	pid_t last = 0;
	bool mapped = false, looked = false;

	j->last_pass = m->now;
	if (!j->waiting)
		return 0;
	if (final)
		symbolizer_jit_recheck(m->symbols);
	for (size_t i = 0; i < j->n; i++) {
		struct model_jit_kind *k = &j->v[i];
		const struct st_symbol *to;
		uint32_t offset = SYMBOL_NO_OFFSET;

		if (k->named)
			continue;
		/* A process without a map: one look for its run of kinds, not one each. */
		if (!looked || k->pid != last) {
			looked = true;
			last = k->pid;
			mapped = symbolizer_jit_mapped(m->symbols, k->pid);
		}
		if (!mapped || !(to = symbolizer_jit_name(m->symbols, k->pid, k->ip, &offset)))
			continue;
		model_rename_samples(m, k->pid, k->tid, k->sym, to->id, k->n, k->weight, k->event,
				     k->cycles, k->instructions);
		/* A capped tree stopped it short of its own leaf: that node stays. */
		if (k->node < m->tree.n && m->tree.nodes[k->node].sym == k->sym)
			k->node = cct_rename(&m->tree, k->node, to->id, k->n, k->weight,
					     k->cycles, k->instructions);
		k->sym = to->id;
		k->offset = offset;
		k->named = true;
		kinds++;
		j->waiting--;
		named += k->n;
	}
	j->loads_seen = symbolizer_jit_loads(m->symbols);
	/*
	 * Kinds named in earlier passes were renamed then: walk the history
	 * only for new ones (after z a kind holds no samples but its history does).
	 */
	if (kinds)
		history_edit(&m->history, rename_in_history, j);
	j->named += named;
	return named;
}

void model_jit_tick(struct model *m)
{
	struct model_jit *j = &m->jit;

	if (j->waiting && (symbolizer_jit_loads(m->symbols) != j->loads_seen ||
			   m->now - j->last_pass >= MODEL_JIT_PASS_NS))
		model_jit_name(m, false);
}

/* z: the tables forget the samples; their kinds stay, so the history's are named later. */
void model_jit_zero(struct model *m)
{
	for (size_t i = 0; i < m->jit.n; i++) {
		struct model_jit_kind *k = &m->jit.v[i];

		k->n = k->weight = k->cycles = k->instructions = 0;
	}
}

void model_jit_free(struct model *m)
{
	free(m->jit.v);
	st_index_free(&m->jit.index);
	memset(&m->jit, 0, sizeof(m->jit));
}
