/*
 * model_offcpu.c - off-CPU samples (--off-cpu): each is a wait, its
 * period the ns its thread was off the CPU.  Beyond a sample's usual
 * place (its event's weight, the tree), a wait counts under every
 * function of its chain, as a blocking chain is read (the leaf is the
 * scheduler's for all of them), and in its thread's time by why.  The
 * clock event's samples count their time under their functions the same
 * way: a function's wall time is the two.
 */
#include <string.h>
#include <uthash.h>

#include "model/model.h"
#include "model/model_internal.h"
#include "symbols/symbols.h"
#include "util.h"

const char *model_wait_name(enum model_wait w)
{
	static const char *const names[MODEL_WAITS] = { "sleep", "lock", "disk", "cpu", "other" };

	return (unsigned)w < MODEL_WAITS ? names[w] : "?";
}

/* Room for symbol id in the per-function arrays. */
static void grow(struct model *m, uint32_t id)
{
	size_t old = m->waited_cap, cap = old ? old : 1024;

	if (id < old)
		return;
	while (cap <= id)
		cap *= 2;
	m->waited_under = st_xrealloc(m->waited_under, cap * sizeof(*m->waited_under));
	m->ran_under = st_xrealloc(m->ran_under, cap * sizeof(*m->ran_under));
	m->waited_why = st_xrealloc(m->waited_why, cap * MODEL_WAITS * sizeof(*m->waited_why));
	memset(m->waited_why + old * MODEL_WAITS, 0,
	       (cap - old) * MODEL_WAITS * sizeof(*m->waited_why));
	m->waited_stamp = st_xrealloc(m->waited_stamp, cap * sizeof(*m->waited_stamp));
	m->is_futex = st_xrealloc(m->is_futex, cap * sizeof(*m->is_futex));
	memset(m->waited_under + old, 0, (cap - old) * sizeof(*m->waited_under));
	memset(m->ran_under + old, 0, (cap - old) * sizeof(*m->ran_under));
	memset(m->waited_stamp + old, 0, (cap - old) * sizeof(*m->waited_stamp));
	memset(m->is_futex + old, 0, (cap - old) * sizeof(*m->is_futex));
	m->waited_cap = cap;
}

/* The kernel's futex code: a sleep through it waits for a lock (or a condition). */
static bool futex_frame(struct model *m, uint32_t id)
{
	if (!m->is_futex[id]) {
		const struct st_symbol *sym = symbolizer_symbol(m->symbols, id);

		m->is_futex[id] = sym && sym->name && !strcmp(sym->module, "[kernel]") &&
				  strstr(sym->name, "futex") ? 2 : 1;
	}
	return m->is_futex[id] == 2;
}

static enum model_wait why(unsigned reason, bool futex)
{
	switch (reason) {
	case ST_OFFCPU_SLEEP:
		return futex ? MODEL_WAIT_LOCK : MODEL_WAIT_SLEEP;
	case ST_OFFCPU_FUTEX:		/* blocked in futex before sampling began */
		return MODEL_WAIT_LOCK;
	case ST_OFFCPU_DISK:
		return MODEL_WAIT_DISK;
	case ST_OFFCPU_RUNNABLE:
		return MODEL_WAIT_CPU;
	case ST_OFFCPU_OTHER:		/* perf record --off-cpu's: S or D, not said which */
		return futex ? MODEL_WAIT_LOCK : MODEL_WAIT_OTHER;
	default:
		return MODEL_WAIT_OTHER;
	}
}

bool model_knows_wall(const struct model *m)
{
	return m->offcpu_event >= 0 && m->clock_event >= 0 && m->clock_event < m->nsampled;
}

void model_count_wall(struct model *m, const struct st_sample *s, uint32_t node)
{
	uint32_t frames[CCT_MAX_DEPTH + 1];

	/* A switch not paired (a recording's without its end) is no wait. */
	if (ST_SAMPLE_OFFCPU(s->flags) && (s->flags & ST_SAMPLE_WAITED)) {
		/* A second's piece of a wait still going on is its time, not one more wait. */
		model_count_waits(m, (pid_t)s->tid, ST_SAMPLE_OFFCPU(s->flags), frames,
				  cct_path(&m->tree, node, frames), s->period,
				  !(s->flags & ST_SAMPLE_WAIT_GOES_ON));
		if (m->wake_pending.tid)
			model_count_woken(m, s, node);
	} else if (model_knows_wall(m) && (int)ST_SAMPLE_EVENT(s->flags) == m->clock_event)
		model_count_ran(m, frames, cct_path(&m->tree, node, frames), s->period);
}

/* A new stamp a chain; at its wrap, every function's forgotten. */
static void next_stamp(struct model *m)
{
	if (++m->waited_gen == 0) {
		if (m->waited_stamp)
			memset(m->waited_stamp, 0, m->waited_cap * sizeof(*m->waited_stamp));
		m->waited_gen = 1;
	}
}

/*
 * The functions of a chain, frames[0..n), each once (recursion: once a
 * chain), compacted into frames; their arrays made room for.  *futex
 * (unless NULL): whether any is the kernel's futex code.
 */
static size_t distinct(struct model *m, uint32_t *frames, size_t n, bool *futex)
{
	size_t counted = 0;

	next_stamp(m);
	for (size_t i = 0; i < n; i++) {
		uint32_t id = frames[i];

		if (id >= CCT_SYM_TRUNCATED)
			continue;
		grow(m, id);
		if (futex)
			*futex = *futex || futex_frame(m, id);
		if (m->waited_stamp[id] == m->waited_gen)
			continue;
		m->waited_stamp[id] = m->waited_gen;
		frames[counted++] = id;
	}
	return counted;
}

void model_count_ran(struct model *m, uint32_t *frames, size_t n, uint64_t ns)
{
	n = distinct(m, frames, n, NULL);
	for (size_t i = 0; i < n; i++)
		m->ran_under[frames[i]] += ns;
}

void model_count_waits(struct model *m, pid_t tid, unsigned reason, uint32_t *frames, size_t n,
		       uint64_t ns, uint64_t waits)
{
	bool futex = false;
	enum model_wait w;
	struct model_thread *t;

	n = distinct(m, frames, n, &futex);
	w = why(reason, futex);
	for (size_t i = 0; i < n; i++) {
		m->waited_under[frames[i]] += ns;
		m->waited_why[(size_t)frames[i] * MODEL_WAITS + w] += ns;
	}
	m->waited[w] += ns;
	m->waits += waits;
	HASH_FIND(hh, m->threads, &tid, sizeof(tid), t);
	if (t)
		t->waited[w] += ns;
}

uint64_t model_waited_under(const struct model *m, uint32_t sym)
{
	return sym < m->waited_cap ? m->waited_under[sym] : 0;
}

uint64_t model_ran_under(const struct model *m, uint32_t sym)
{
	return sym < m->waited_cap ? m->ran_under[sym] : 0;
}

void model_waited_why(const struct model *m, uint32_t sym, uint64_t ns[MODEL_WAITS])
{
	for (int w = 0; w < MODEL_WAITS; w++)
		ns[w] = sym < m->waited_cap ? m->waited_why[(size_t)sym * MODEL_WAITS + w] : 0;
}
