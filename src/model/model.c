/* model.c - per-symbol aggregation of the record stream. */
#include "model/model_internal.h"
#include "ring/record.h"
#include "symbols/symbols.h"
#include "symbols/unwind.h"
#include "text_safe.h"
#include "util.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

void model_init(struct model *m, struct symbolizer *symbols)
{
	memset(m, 0, sizeof(*m));
	m->symbols = symbols;
	m->ipc_cycles = m->ipc_instructions = -1;
	m->offcpu_event = m->clock_event = -1;
	obs_model_init(&m->obs, DTE_DEFAULT_TOLERANCE);
	ibs_model_init(&m->ibs);
	m->keep_history = true;
	history_init(&m->history, 0);
	cct_init(&m->tree);
	cct_expect_large(&m->tree);
	callerchain_init(&m->chaining);
	m->chain_window = MODEL_CHAIN_WINDOW;
	m->next_folded_pid = MODEL_FOLDED_PID;
}

void model_set_history(struct model *m, uint64_t keep_ns)
{
	m->history.keep_ns = keep_ns;
}

void model_set_dte_tolerance(struct model *m, double tolerance)
{
	m->obs.tolerance = tolerance;
	m->obs.dte.tolerance = tolerance;
}

static void rows_free(struct model_rows *r)
{
	st_index_free(&r->index);
	free(r->rows);
	memset(r, 0, sizeof(*r));
}

/* row under key (a, b), new: its place. */
static uint32_t rows_add(struct model_rows *r, uint64_t a, uint64_t b, void *row)
{
	ST_GROW(r->rows, r->cap, r->n + 1);
	r->rows[r->n++] = row;
	st_index_add(&r->index, st_index_hash(a, b), (uint32_t)r->n);
	return (uint32_t)r->n - 1;
}

/* One key layout for both kinds of row: (tid or pid, symbol). */
_Static_assert(sizeof(struct model_thread_sym_key) == sizeof(struct model_proc_sym_key) &&
	       offsetof(struct model_thread_sym_key, id) == offsetof(struct model_proc_sym_key, id),
	       "row keys differ");

/*
 * Deleted rows past half: the index made again of the rest, each row told
 * its new place (its key key_at bytes into it, its place at_at).
 */
static void rows_compact(struct model_rows *r, size_t key_at, size_t at_at)
{
	size_t live = 0;

	if (r->dead < 1024 || r->dead * 2 < r->n)
		return;
	st_index_free(&r->index);
	st_index_init(&r->index);
	for (size_t i = 0; i < r->n; i++) {
		unsigned char *row = r->rows[i];
		struct model_thread_sym_key k;
		uint32_t at = (uint32_t)live;

		if (!row)
			continue;
		r->rows[live++] = row;
		memcpy(row + at_at, &at, sizeof(at));
		memcpy(&k, row + key_at, sizeof(k));
		st_index_add(&r->index, st_index_hash((uint32_t)k.tid, k.id), (uint32_t)live);
	}
	r->n = live;
	r->dead = 0;
}

static void thread_rows_compact(struct model_rows *r)
{
	rows_compact(r, offsetof(struct model_thread_sym, key), offsetof(struct model_thread_sym, at));
}

/* The row under (who, id), its key key_at bytes into it; NULL if none. */
static void *rows_find(const struct model_rows *r, pid_t who, uint32_t id, size_t key_at)
{
	struct st_index_probe p;

	for (uint32_t v = st_index_first(&r->index, st_index_hash((uint32_t)who, id), &p); v;
	     v = st_index_next(&r->index, &p)) {
		const unsigned char *row = r->rows[v - 1];
		struct model_thread_sym_key k;

		if (!row)
			continue;	/* deleted */
		memcpy(&k, row + key_at, sizeof(k));
		if (k.tid == who && k.id == id)
			return r->rows[v - 1];
	}
	return NULL;
}

static struct model_thread_sym *thread_sym_find(const struct model *m, pid_t tid, uint32_t id)
{
	return rows_find(&m->thread_rows, tid, id, offsetof(struct model_thread_sym, key));
}

static struct model_proc_sym *proc_sym_find(const struct model *m, pid_t pid, uint32_t id)
{
	return rows_find(&m->proc_rows, pid, id, offsetof(struct model_proc_sym, key));
}

static void sum_into(struct model_sym *to, const struct model_sym *t)
{
	to->samples += t->samples;
	to->weight += t->weight;
	to->cycles += t->cycles;
	to->instructions += t->instructions;
	for (int e = 0; e < ST_MAX_SAMPLED; e++)
		to->event_weight[e] += t->event_weight[e];
}

/* The process's row takes its main thread's name, or another thread's until it has one. */
static void name_process(struct model_proc_sym *ps, const struct model_thread *t, pid_t pid)
{
	if (t->tid == t->pid || !ps->comm[0])
		memcpy(ps->comm, t->comm, sizeof(ps->comm));
	/* pid 0 is each CPU's idle task, which perf calls swapper. */
	if (!ps->comm[0] && pid == 0)
		memcpy(ps->comm, "swapper", sizeof("swapper"));
}

/*
 * The memos are slots a symbol's id picks (id & mask), not one a symbol:
 * a host that churns for hours names hundreds of thousands of functions,
 * and a memo is worth keeping only for the few that run now.
 */
#define MODEL_ROW_MEMOS 8192u

static struct model_row_memo *memo_slot(const struct model *m, uint32_t sym)
{
	return m->row_memo ? &m->row_memo[sym & (MODEL_ROW_MEMOS - 1)] : NULL;
}

/* The slot's memo if it is current (rows_gen's), whichever symbol's, else NULL. */
static struct model_row_memo *slot_current(const struct model *m, struct model_row_memo *memo)
{
	return memo && memo->gen == m->rows_gen + 1 ? memo : NULL;
}

/* The memo of sym if it is current, else NULL. */
static struct model_row_memo *memo_current(const struct model *m, uint32_t sym)
{
	struct model_row_memo *memo = slot_current(m, memo_slot(m, sym));

	return memo && memo->id == sym ? memo : NULL;
}

/* What a memo counted since it was made, into its rows. */
static void memo_flush(struct model_row_memo *memo)
{
	if (!memo || !memo->pending.samples)
		return;
	memo->thread_sym->samples += memo->pending.samples;
	sum_into(&memo->proc_sym->totals, &memo->pending);
	name_process(memo->proc_sym, memo->thread, memo->pid);
	memset(&memo->pending, 0, sizeof(memo->pending));
}

struct model_sym model_proc_sym_totals(const struct model *m, const struct model_proc_sym *ps)
{
	const struct model_row_memo *memo = memo_current(m, ps->key.id);
	struct model_sym t = ps->totals;

	if (memo && memo->proc_sym == ps)
		sum_into(&t, &memo->pending);
	return t;
}

uint64_t model_thread_sym_samples(const struct model *m, const struct model_thread_sym *ts)
{
	const struct model_row_memo *memo = memo_current(m, ts->key.id);

	return ts->samples + (memo && memo->thread_sym == ts ? memo->pending.samples : 0);
}

/* t's memos, their samples in its rows, forgotten: t or its name changes. */
static void forget_thread_memos(struct model *m, const struct model_thread *t)
{
	for (const struct model_thread_sym *ts = t->syms; ts; ts = ts->next) {
		struct model_row_memo *memo = memo_current(m, ts->key.id);

		if (memo && memo->thread == t) {
			memo_flush(memo);
			memo->gen = 0;
		}
	}
}

static void thread_clear_syms(struct model *m, struct model_thread *t)
{
	forget_thread_memos(m, t);
	while (t->syms) {
		struct model_thread_sym *ts = t->syms;

		t->syms = ts->next;
		m->thread_rows.rows[ts->at] = NULL;
		m->thread_rows.dead++;
		free(ts);
	}
	thread_rows_compact(&m->thread_rows);
}

static void thread_free(struct model *m, struct model_thread *t)
{
	thread_clear_syms(m, t);
	free(t);
}

static void thread_free_all(struct model *m)
{
	struct model_thread *t, *tmp;

	HASH_ITER(hh, m->threads, t, tmp) {
		HASH_DEL(m->threads, t);
		thread_free(m, t);
	}
}

static void proc_syms_free(struct model *m)
{
	struct model_proc_sym *ps, *tmp;

	m->rows_gen++;		/* every memo is stale: its rows go */
	m->folded_rows = 0;
	free(m->gone.v);
	memset(&m->gone, 0, sizeof(m->gone));

	HASH_ITER(hh, m->proc_syms, ps, tmp) {
		HASH_DEL(m->proc_syms, ps);
		free(ps);
	}
	free(m->processes);
	m->processes = NULL;
	m->nprocesses = m->processes_cap = 0;
	m->processes_away = 0;
	st_index_free(&m->processes_index);
	rows_free(&m->proc_rows);
}

void model_free(struct model *m)
{
	proc_syms_free(m);
	for (size_t i = 0; i < m->nheld; i++)
		free(m->held[(m->held_head + i) % MODEL_HOLD_MAX].rec);
	free(m->held);
	model_free_kernel_checks(m);
	model_free_path_memos(m);
	obs_model_free(&m->obs);
	ibs_model_free(&m->ibs);
	free(m->per_sym);
	free(m->waited_under);
	free(m->ran_under);
	free(m->waited_why);
	free(m->waited_stamp);
	free(m->is_futex);
	model_wakers_free(m);
	free(m->root_kind);
	thread_free_all(m);	/* before the memos: a thread's go with it */
	free(m->row_memo);
	rows_free(&m->thread_rows);
	free(m->timeline);
	history_free(&m->history);
	cct_free(&m->tree);
	callers_seen_free(&m->callers_seen);
	paths_seen_free(&m->paths_seen);
	model_jit_free(m);
	callerchain_free(&m->chaining);
	unwinder_destroy(m->unwinder);
	{
		struct model_folded *f, *tmp;

		HASH_ITER(hh, m->folded, f, tmp) {
			HASH_DEL(m->folded, f);
			free(f);
		}
	}
	memset(m, 0, sizeof(*m));
}

static struct model_thread *thread_of(struct model *m, pid_t tid)
{
	struct model_thread *t;

	HASH_FIND(hh, m->threads, &tid, sizeof(tid), t);
	if (t)
		return t;
	t = st_xcalloc(1, sizeof(*t));
	t->tid = tid;
	/* Each CPU's idle task, which no COMM record names: perf's swapper, until one does. */
	if (tid == 0)
		memcpy(t->comm, "swapper", sizeof("swapper"));
	HASH_ADD(hh, m->threads, tid, sizeof(t->tid), t);
	m->nthreads++;
	m->live_threads++;
	return t;
}

static void thread_exited(struct model *m, struct model_thread *t, bool exited)
{
	if (t->exited == exited)
		return;
	t->exited = exited;
	if (exited)
		m->live_threads--;
	else
		m->live_threads++;
}

static void process_gone(struct model *m, pid_t pid);

/* Forgets the oldest exit: the thread, and the process if it was one. */
static void forget_oldest_exit(struct model *m)
{
	const struct model_exit *e = &m->exits[m->exit_head];
	struct model_thread *t;

	HASH_FIND(hh, m->threads, &e->tid, sizeof(e->tid), t);
	/*
	 * A recording's exited threads stay in the table as perf report
	 * lists them, up to MODEL_RECORDED_THREADS: a 13-thread file listed
	 * 12.  Live, the table is of threads that run.
	 */
	if (t && t->exited && (!m->recorded || HASH_COUNT(m->threads) > MODEL_RECORDED_THREADS)) {
		HASH_DEL(m->threads, t);
		m->gone_threads++;
		m->gone_samples += t->samples;
		thread_free(m, t);
	}
	if (e->pid == e->tid) {
		if (m->unwinder)
			unwinder_forget(m->unwinder, e->pid);
		symbolizer_forget(m->symbols, e->pid);
		process_gone(m, e->pid);
	}
	m->exit_head = (m->exit_head + 1) % MODEL_EXITS_KEPT;
	m->nexits--;
}

static void note_exit(struct model *m, const struct st_task *t)
{
	thread_exited(m, thread_of(m, (pid_t)t->tid), true);
	if (t->pid == t->tid)
		symbolizer_exit(m->symbols, (pid_t)t->pid);
	if (m->nexits == MODEL_EXITS_KEPT)
		forget_oldest_exit(m);
	m->exits[(m->exit_head + m->nexits++) % MODEL_EXITS_KEPT] =
		(struct model_exit){ (pid_t)t->pid, (pid_t)t->tid, t->time };
}

static struct model_sym *sym_of(struct model *m, uint32_t id)
{
	ST_GROW(m->per_sym, m->per_sym_cap, (size_t)id + 1);
	return &m->per_sym[id];
}

static void count_time(struct model *m, uint64_t t, uint64_t n)
{
	size_t b;

	if (!t)
		return;
	if (!m->first_time || t < m->first_time)
		m->first_time = t;
	if (t > m->last_time)
		m->last_time = t;
	b = (size_t)((t - m->first_time) / MODEL_BUCKET_NS);
	if (b >= 1u << 24)
		return;		/* over 19 days: stop growing the timeline */
	ST_GROW(m->timeline, m->timeline_cap, b + 1);
	if (b + 1 > m->timeline_len)
		m->timeline_len = b + 1;
	m->timeline[b] += (uint32_t)n;
}

/* A multiplexed interval's counts are scaled guesses: kept out of IPC. */
bool counters_usable(const struct model *m, const struct st_sample *s)
{
	return (s->flags & ST_SAMPLE_HAS_COUNTERS) &&
	       !(s->flags & ST_SAMPLE_MULTIPLEXED) &&
	       m->ipc_cycles >= 0 && m->ipc_instructions >= 0 &&
	       m->ipc_cycles < s->ncounters && m->ipc_instructions < s->ncounters;
}

/* The event of -e a,b that took the sample; -1 if none (or out of range). */
int sample_event(const struct model *m, const struct st_sample *s)
{
	unsigned ev = ST_SAMPLE_EVENT(s->flags);

	return m->nsampled && ev < (unsigned)m->nsampled ? (int)ev : -1;
}

/*
 * n samples into a symbol's totals (1, or a range's samples of one kind
 * summed: w their weight, the counters their sums); counters only where
 * they are usable.
 */
static void add_sample(const struct model *m, struct model_sym *t,
		       const struct st_sample *s, uint64_t w, uint64_t n)
{
	int ev = sample_event(m, s);

	t->samples += n;
	t->weight += w;
	if (ev >= 0)
		t->event_weight[ev] += w;
	if (counters_usable(m, s)) {
		t->cycles += s->data[m->ipc_cycles];
		t->instructions += s->data[m->ipc_instructions];
	}
}

/* pid's place in m->processes, or -1. */
static long process_find(const struct model *m, pid_t pid)
{
	struct st_index_probe probe;

	for (uint32_t v = st_index_first(&m->processes_index, st_index_hash((uint32_t)pid, 0),
					 &probe); v; v = st_index_next(&m->processes_index, &probe))
		if (m->processes[v - 1].pid == pid)
			return (long)v - 1;
	return -1;
}

/* pid's place in m->processes, made if new and asked (else -1). */
static long process_at(struct model *m, pid_t pid, bool make)
{
	long at = process_find(m, pid);

	if (at >= 0 && make && m->processes[at].folded_away) {
		/* Its pid came round: a process of its own. */
		m->processes[at] = (struct model_process){ .pid = pid };
		m->processes_away--;
	}
	if (at >= 0 || !make)
		return at;
	ST_GROW(m->processes, m->processes_cap, m->nprocesses + 1);
	m->processes[m->nprocesses++] = (struct model_process){ .pid = pid };
	st_index_add(&m->processes_index, st_index_hash((uint32_t)pid, 0),
		      (uint32_t)m->nprocesses);
	return (long)m->nprocesses - 1;
}

/* A thread's first sample: one more of its process's threads. */
static void count_thread_of_process(struct model *m, pid_t pid)
{
	long at = process_at(m, pid, true);	/* first: it may move the array */

	m->processes[at].threads++;
}

/* t's row of symbol id, made if new. */
static struct model_thread_sym *thread_sym_of(struct model *m, struct model_thread *t, uint32_t id)
{
	struct model_thread_sym *ts = thread_sym_find(m, t->tid, id);

	if (!ts) {
		ts = st_xcalloc(1, sizeof(*ts));
		ts->key.tid = t->tid;
		ts->key.id = id;
		ts->at = rows_add(&m->thread_rows, (uint32_t)t->tid, id, ts);
		ts->next = t->syms;
		t->syms = ts;
	}
	return ts;
}

/* pid's row of symbol id, made if new. */
static struct model_proc_sym *proc_sym_of(struct model *m, pid_t pid, uint32_t id)
{
	struct model_proc_sym *ps = proc_sym_find(m, pid, id);

	if (!ps) {
		long at = process_at(m, pid, true);	/* first: it may move the array */
		struct model_process *p = &m->processes[at];

		ps = st_xcalloc(1, sizeof(*ps));
		ps->key.pid = pid;
		ps->key.id = id;
		HASH_ADD(hh, m->proc_syms, key, sizeof(ps->key), ps);
		ps->at = rows_add(&m->proc_rows, (uint32_t)pid, id, ps);
		ps->next = p->syms;
		p->syms = ps;
		p->nsyms++;
		if (pid <= MODEL_FOLDED_PID)
			m->folded_rows++;
	}
	return ps;
}

/* The stand-in the folded processes of comm share, or NULL if none yet. */
static struct model_folded *folded_of(const struct model *m, const char *comm)
{
	struct model_folded *f;
	char key[16] = "";

	memcpy(key, comm, sizeof(key) - 1);
	HASH_FIND(hh, m->folded, key, sizeof(key), f);
	return f;
}

/* The pid the folded processes of comm share, made if new. */
static pid_t folded_pid(struct model *m, const char *comm)
{
	struct model_folded *f = folded_of(m, comm);

	if (!f) {
		f = st_xcalloc(1, sizeof(*f));
		memcpy(f->comm, comm, sizeof(f->comm) - 1);
		f->pid = m->next_folded_pid > INT32_MIN + 1 ? m->next_folded_pid-- : INT32_MIN + 1;
		HASH_ADD(hh, m->folded, comm, sizeof(f->comm), f);
	}
	return f->pid;
}

/*
 * pid's rows into its command's stand-in: its samples count there, its
 * own rows go (with what memos counted in them), and the stand-in counts
 * it and its threads.
 */
static void fold_process(struct model *m, pid_t pid)
{
	long at = process_at(m, pid, false);
	static const char any[16] = MODEL_ANY_COMMAND;
	struct model_proc_sym *ps;
	char comm[16];
	bool bounded;
	uint32_t threads;
	long into;
	pid_t to;

	if (at < 0 || !m->processes[at].syms)
		return;
	ps = m->processes[at].syms;
	threads = m->processes[at].threads;
	/*
	 * Commands' rows are bounded as processes' are (a build host ran
	 * 2,000 commands, each with its own functions, in 15 minutes; a
	 * churning one made 38,000 rows of commands in 25): past as many, a
	 * command not folded before folds into one stand-in for them all, and
	 * a function its stand-in has no row for counts in that stand-in's
	 * one row of [other functions].  The functions' own totals stay whole.
	 */
	bounded = m->folded_rows >= model_gone_rows_max(m);
	memcpy(comm, !bounded || folded_of(m, ps->comm) ? ps->comm : any, sizeof(comm));
	to = folded_pid(m, comm);
	m->processes[at].syms = NULL;
	m->processes[at].nsyms = 0;
	while (ps) {
		struct model_proc_sym *next = ps->next, *into_ps;
		struct model_row_memo *memo = memo_current(m, ps->key.id);

		if (memo && memo->proc_sym == ps) {
			memo_flush(memo);
			memo->gen = 0;
		}
		into_ps = bounded ? proc_sym_find(m, to, ps->key.id) : proc_sym_of(m, to, ps->key.id);
		if (into_ps) {
			memcpy(into_ps->comm, comm, sizeof(into_ps->comm));
		} else {
			into_ps = proc_sym_of(m, folded_pid(m, any), symbolizer_other_id(m->symbols));
			memcpy(into_ps->comm, any, sizeof(into_ps->comm));
		}
		sum_into(&into_ps->totals, &ps->totals);
		HASH_DEL(m->proc_syms, ps);
		m->proc_rows.rows[ps->at] = NULL;
		m->proc_rows.dead++;
		free(ps);
		ps = next;
	}
	m->processes[at].folded_away = true;
	m->processes[at].threads = 0;
	m->processes_away++;
	into = process_at(m, to, true);
	m->processes[into].threads += threads;
	m->processes[into].folded++;
	m->folded_processes++;
	rows_compact(&m->proc_rows, offsetof(struct model_proc_sym, key),
		     offsetof(struct model_proc_sym, at));
}

/*
 * The entries of processes folded into their commands' go once they are
 * half of them: a host forking 200 processes a second that run long
 * enough to be sampled made 720,000 of them an hour.
 */
void model_set_memory(struct model *m, size_t bytes)
{
	size_t rows = bytes / 32 / sizeof(struct model_proc_sym);

	m->history.rss_cap = bytes;
	m->gone_rows_max = (uint32_t)(bytes && rows < MODEL_GONE_ROWS_MAX ? rows : MODEL_GONE_ROWS_MAX);
	if (bytes) {
		model_tree_bound(m, bytes / 16);
		cct_bound(&m->tree, bytes / 8);
		callers_seen_bound(&m->callers_seen, bytes / 64);
	}
}

uint32_t model_gone_rows_max(const struct model *m)
{
	return m->gone_rows_max ? m->gone_rows_max : MODEL_GONE_ROWS_MAX;
}

static void processes_compact(struct model *m)
{
	size_t n = 0;

	if (m->processes_away < 1024 || 2 * m->processes_away < m->nprocesses)
		return;
	st_index_free(&m->processes_index);
	for (size_t i = 0; i < m->nprocesses; i++) {
		if (m->processes[i].folded_away)
			continue;
		m->processes[n++] = m->processes[i];
		st_index_add(&m->processes_index, st_index_hash((uint32_t)m->processes[i].pid, 0),
			     (uint32_t)n);
	}
	m->nprocesses = n;
	m->processes_away = 0;
}

/*
 * A process forgotten after its exit: its rows stay its own while the
 * rows of such processes are under MODEL_GONE_ROWS_MAX, the oldest
 * process's folded into its command's past it.
 */
static void process_gone(struct model *m, pid_t pid)
{
	long at = process_at(m, pid, false);
	struct model_gone *g = &m->gone;

	if (at < 0 || !m->processes[at].nsyms)
		return;
	if (g->n == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 64;
		pid_t *v = st_xcalloc(cap, sizeof(*v));

		for (size_t i = 0; i < g->n; i++)
			v[i] = g->v[(g->head + i) % g->cap];
		free(g->v);
		g->v = v;
		g->cap = cap;
		g->head = 0;
	}
	g->v[(g->head + g->n++) % g->cap] = pid;
	g->rows += m->processes[at].nsyms;
	while (g->rows > model_gone_rows_max(m) && g->n) {
		pid_t oldest = g->v[g->head];
		long o = process_at(m, oldest, false);
		struct model_thread *t;

		g->head = (g->head + 1) % g->cap;
		g->n--;
		if (o < 0)
			continue;
		g->rows -= m->processes[o].nsyms < g->rows ? m->processes[o].nsyms : g->rows;
		/* Its pid came round to a process that runs: the rows are that one's now. */
		HASH_FIND(hh, m->threads, &oldest, sizeof(oldest), t);
		if (!t || t->exited)
			fold_process(m, oldest);
	}
	processes_compact(m);
}

/* The sample's thread's figures; memo: its rows, if current, else found and kept. */
static void count_thread(struct model *m, const struct st_sample *s, uint32_t sym, uint64_t w,
			 uint64_t n, struct model_row_memo *memo)
{
	struct model_thread *t = memo->thread ? memo->thread : thread_of(m, (pid_t)s->tid);
	int ev = sample_event(m, s);
	struct model_thread_sym *ts = memo->thread_sym;

	t->pid = (pid_t)s->pid;
	if (!t->samples)
		count_thread_of_process(m, t->pid);
	t->samples += n;
	t->weight += w;
	if (ev >= 0)
		t->event_weight[ev] += w;
	if (counters_usable(m, s)) {
		t->cycles += s->data[m->ipc_cycles];
		t->instructions += s->data[m->ipc_instructions];
	}
	if (!ts)
		ts = thread_sym_of(m, t, sym);
	memo->thread = t;
	memo->thread_sym = ts;
}

/* A memo's process row, found when it is made; named then and when it flushes. */
static void count_process(struct model *m, const struct st_sample *s, uint32_t sym,
			  struct model_row_memo *memo)
{
	if (memo->proc_sym)
		return;
	memo->proc_sym = proc_sym_of(m, (pid_t)s->pid, sym);
	name_process(memo->proc_sym, memo->thread, (pid_t)s->pid);
}

/* The rows sym's last sample counted in, if they are this sample's and still kept; else none. */
static struct model_row_memo *row_memo_of(struct model *m, const struct st_sample *s, uint32_t id)
{
	struct model_row_memo *memo;

	if (!m->row_memo) {
		m->row_memo = st_xcalloc(MODEL_ROW_MEMOS, sizeof(*m->row_memo));
		m->row_memo_cap = MODEL_ROW_MEMOS;
	}
	memo = memo_slot(m, id);
	if (memo->gen != m->rows_gen + 1 || memo->id != id || memo->tid != (pid_t)s->tid ||
	    memo->pid != (pid_t)s->pid) {
		/* Another thread's or symbol's: what it counted goes to its rows now. */
		memo_flush(slot_current(m, memo));
		*memo = (struct model_row_memo){ .tid = (pid_t)s->tid, .pid = (pid_t)s->pid,
						 .gen = m->rows_gen + 1, .id = id };
	}
	return memo;
}

void model_account_samples(struct model *m, const struct st_sample *s, uint32_t sym,
			   bool unknown, uint64_t n)
{
	struct model_sym *ms = sym_of(m, sym);
	struct model_row_memo *memo;
	uint64_t w = s->period ? s->period : 1;
	int ev = sample_event(m, s);

	add_sample(m, ms, s, w, n);
	m->samples += n;
	m->weight += w;
	if (ev >= 0) {
		m->event_samples[ev] += n;
		m->event_weight[ev] += w;
	}
	if (unknown)
		m->unknown += n;
	if (s->cpumode == ST_MODE_KERNEL)
		m->kernel_samples += n;
	if (s->flags & ST_SAMPLE_MULTIPLEXED)
		m->multiplexed += n;
	if (counters_usable(m, s)) {
		m->cycles += s->data[m->ipc_cycles];
		m->instructions += s->data[m->ipc_instructions];
	}
	if (s->nchain) {
		m->chains += n;
		m->chain_frames += s->nchain * n;
	}
	memo = row_memo_of(m, s, sym);
	count_thread(m, s, sym, w, n, memo);
	count_process(m, s, sym, memo);
	add_sample(m, &memo->pending, s, w, n);
}

static uint64_t at_most(uint64_t v, uint64_t cap)
{
	return v < cap ? v : cap;
}

/* n samples' figures out of a and into b (never below zero: z may have cleared a). */
static void move_totals(struct model_sym *a, struct model_sym *b, uint64_t n, uint64_t w, int ev,
			uint64_t cycles, uint64_t instructions)
{
	n = at_most(n, a->samples);
	w = at_most(w, a->weight);
	cycles = at_most(cycles, a->cycles);
	instructions = at_most(instructions, a->instructions);
	a->samples -= n;
	a->weight -= w;
	a->cycles -= cycles;
	a->instructions -= instructions;
	b->samples += n;
	b->weight += w;
	b->cycles += cycles;
	b->instructions += instructions;
	if (ev >= 0 && ev < ST_MAX_SAMPLED) {
		w = at_most(w, a->event_weight[ev]);
		a->event_weight[ev] -= w;
		b->event_weight[ev] += w;
	}
}

void model_rename_samples(struct model *m, pid_t pid, pid_t tid, uint32_t from, uint32_t to,
			  uint64_t n, uint64_t w, int ev, uint64_t cycles,
			  uint64_t instructions)
{
	struct model_proc_sym *ps;
	struct model_thread *t;

	if (!n || from == to)
		return;
	sym_of(m, to);	/* first: it may move per_sym */
	/* The rows as they stand, memos' samples in. */
	memo_flush(memo_current(m, from));
	memo_flush(memo_current(m, to));
	move_totals(sym_of(m, from), sym_of(m, to), n, w, ev, cycles, instructions);
	if (symbolizer_symbol(m->symbols, from)->unknown)
		m->unknown -= at_most(n, m->unknown);
	if (symbolizer_symbol(m->symbols, to)->unknown)
		m->unknown += n;
	HASH_FIND(hh, m->threads, &tid, sizeof(tid), t);
	if (t) {
		struct model_thread_sym *a = thread_sym_find(m, tid, from);
		uint64_t k = a ? at_most(n, a->samples) : 0;

		if (k) {
			a->samples -= k;
			thread_sym_of(m, t, to)->samples += k;
		}
	}
	if ((ps = proc_sym_find(m, pid, from)) != NULL) {
		struct model_proc_sym *b = proc_sym_of(m, pid, to);

		move_totals(&ps->totals, &b->totals, n, w, ev, cycles, instructions);
		if (!b->comm[0])
			memcpy(b->comm, ps->comm, sizeof(b->comm));
	}
}

void model_count_time(struct model *m, uint64_t time, uint64_t n)
{
	count_time(m, time, n);
}

void model_account_sample(struct model *m, const struct st_sample *s, uint32_t sym,
			  bool unknown)
{
	model_account_samples(m, s, sym, unknown, 1);
	count_time(m, s->time, 1);
}

_Static_assert(ST_OFFCPU_FUTEX <= (HISTORY_WAIT_MASK >> HISTORY_WAIT_SHIFT),
	       "the history keeps a wait's reason in HISTORY_WAIT_MASK");

/* The sample as the history keeps it: what its tables need again. */
static void remember_sample(struct model *m, const struct st_sample *s,
			    uint32_t sym, uint32_t offset, uint32_t node,
			    bool waits_for_jit)
{
	struct history_entry e;
	int ev = sample_event(m, s);

	memset(&e, 0, sizeof(e));
	e.pid = s->pid;
	e.tid = s->tid;
	e.sym = sym;
	e.offset = offset;
	e.node = node;
	e.weight = s->period ? s->period : 1;
	e.cpumode = s->cpumode;
	if (s->flags & ST_SAMPLE_MULTIPLEXED)
		e.flags |= HISTORY_MULTIPLEXED;
	if (waits_for_jit)
		e.flags |= HISTORY_JIT;	/* offset: its kind's place */
	if (ev >= 0) {
		e.flags |= HISTORY_EVENT;
		e.event = (uint8_t)ev;
	}
	if (ST_SAMPLE_OFFCPU(s->flags) && (s->flags & ST_SAMPLE_WAITED))
		e.flags |= (uint16_t)(ST_SAMPLE_OFFCPU(s->flags) << HISTORY_WAIT_SHIFT |
				      (s->flags & ST_SAMPLE_WAIT_GOES_ON ? HISTORY_WAIT_GOES_ON : 0));
	if (counters_usable(m, s) && s->data[m->ipc_cycles] <= UINT32_MAX &&
	    s->data[m->ipc_instructions] <= UINT32_MAX) {
		e.flags |= HISTORY_COUNTERS;
		e.cycles = (uint32_t)s->data[m->ipc_cycles];
		e.instructions = (uint32_t)s->data[m->ipc_instructions];
	}
	history_add(&m->history, s->time, &e);
}

/* Returns the sample's symbol's id. */
static uint32_t ingest_sample(struct model *m, const struct st_sample *s)
{
	uint32_t sym, offset, node, late = UINT32_MAX;
	bool unknown;

	/* By id: a large program's symbols are not read for each sample. */
	sym = symbolizer_lookup_id(m->symbols, (pid_t)s->pid, s->ip,
				   s->cpumode == ST_MODE_KERNEL, &offset, &unknown);
	model_account_sample(m, s, sym, unknown);
	if (counters_usable(m, s)) {
		uint64_t counters[2] = { s->data[m->ipc_cycles], s->data[m->ipc_instructions] };

		node = model_take_chain(m, s, sym, counters);
	} else {
		node = model_take_chain(m, s, sym, NULL);
	}
	/* Anonymous code no map names yet: kept, to be named if one does. */
	if (unknown && s->cpumode == ST_MODE_USER &&
	    symbolizer_code_anonymous(m->symbols, (pid_t)s->pid, s->ip) &&
	    (late = model_jit_wait(m, s, sym, node)) != UINT32_MAX)
		offset = late;
	model_count_wall(m, s, node);
	if (m->keep_history)
		remember_sample(m, s, sym, offset, node, late != UINT32_MAX);
	return sym;
}

/*
 * An IBS sample counts as a sample of its op's function (its period in
 * ops), and what its registers say goes to the IBS figures.  With a
 * stack copy it is unwound into the tree and feeds CallerChaining, as a
 * perf sample's copy does.  Registers that do not check (a hostile or
 * corrupt recording) count it as bad.
 */
static void ingest_ibs(struct model *m, const struct st_ibs *b)
{
	_Alignas(8) unsigned char small[sizeof(struct st_sample)];
	unsigned char *buf = small;
	struct st_sample *s;
	struct ibs_op op;
	bool fetch;
	uint32_t sym;
	size_t size = sizeof(*s), stack = 0;
	char err[160];

	if (ibs_decode_record(b, &op, &fetch, err, sizeof(err)) < 0) {
		if (!m->ibs.bad++)
			snprintf(m->ibs.first_bad, sizeof(m->ibs.first_bad), "%s", err);
		return;
	}
	if (b->flags & ST_IBS_HAS_STACK) {
		stack = sizeof(struct st_stack) + st_align8(st_ibs_stack(b)->size);
		size += stack;
		buf = st_xmalloc(size);
	}
	memset(buf, 0, sizeof(*s));
	s = (struct st_sample *)(void *)buf;
	s->h = (struct st_header){ ST_REC_SAMPLE, ST_SOURCE_IBS, (uint32_t)size };
	if (stack) {
		memcpy(buf + sizeof(*s), st_ibs_stack(b), stack);
		s->flags = ST_SAMPLE_HAS_STACK;
	}
	s->pid = b->pid;
	s->tid = b->tid;
	s->time = b->time;
	s->ip = !fetch && op.has_rip ? op.rip : b->ip;
	s->period = b->period;
	s->cpumode = b->cpumode;
	sym = ingest_sample(m, s);
	if (buf != small)
		free(buf);
	ibs_model_add(&m->ibs, fetch ? NULL : &op, b->family, b->model, (pid_t)b->pid, sym,
		      b->time > m->first_time ? (size_t)((b->time - m->first_time) /
							 MODEL_BUCKET_NS) : 0);
}

/* ---- samples of processes not known yet ---- */

static void release_held(struct model *m)
{
	struct model_held *h = &m->held[m->held_head];

	ingest_sample(m, h->rec);
	free(h->rec);
	m->held_head = (m->held_head + 1) % MODEL_HOLD_MAX;
	m->nheld--;
}

static bool hold(struct model *m, const struct st_sample *s)
{
	struct model_held *h;

	if (s->cpumode == ST_MODE_KERNEL ||
	    symbolizer_knows(m->symbols, (pid_t)s->pid))
		return false;
	if (!m->held)
		m->held = st_xcalloc(MODEL_HOLD_MAX, sizeof(*m->held));
	if (m->nheld == MODEL_HOLD_MAX)
		release_held(m);
	h = &m->held[(m->held_head + m->nheld++) % MODEL_HOLD_MAX];
	h->time = s->time;
	h->rec = st_xmalloc(s->h.size);
	memcpy(h->rec, s, s->h.size);
	m->held_total++;
	return true;
}

/*
 * Takes the held samples that are due: all of pid's now that it is known
 * (pid > 0), and any that waited HOLD_NS.  Order among the rest is kept.
 */
static void take_held(struct model *m, pid_t pid)
{
	size_t n = m->nheld, kept = 0;

	if (!n)
		return;
	for (size_t i = 0; i < n; i++) {
		struct model_held h = m->held[(m->held_head + i) % MODEL_HOLD_MAX];
		const struct st_sample *smp = h.rec;

		if ((pid > 0 && (pid_t)smp->pid == pid) ||
		    h.time + MODEL_HOLD_NS <= m->now) {
			ingest_sample(m, smp);
			free(h.rec);
		} else {
			m->held[(m->held_head + kept++) % MODEL_HOLD_MAX] = h;
		}
	}
	m->nheld = kept;
}

void model_set_sampled(struct model *m, int n)
{
	struct model_thread *t;
	struct model_proc_sym *ps;

	/* From one event to several: what came before was the first one's. */
	if (!m->nsampled && n >= 2) {
		for (size_t i = 0; i < m->row_memo_cap; i++)
			if (slot_current(m, &m->row_memo[i])) {
				memo_flush(&m->row_memo[i]);
				m->row_memo[i].gen = 0;
			}
		m->event_samples[0] = m->samples;
		m->event_weight[0] = m->weight;
		for (size_t i = 0; m->per_sym && i < m->per_sym_cap; i++)
			m->per_sym[i].event_weight[0] = m->per_sym[i].weight;
		for (t = m->threads; t; t = t->hh.next)
			t->event_weight[0] = t->weight;
		for (ps = m->proc_syms; ps; ps = ps->hh.next)
			ps->totals.event_weight[0] = ps->totals.weight;
	}
	m->nsampled = n;
}

void model_flush(struct model *m)
{
	while (m->nheld)
		release_held(m);
}

/* Record time moves on: due exits are forgotten, due samples taken. */
static void advance(struct model *m, uint64_t t)
{
	if (t <= m->now)
		return;
	m->now = t;
	while (m->nexits &&
	       m->exits[m->exit_head].time + MODEL_FORGET_NS <= m->now)
		forget_oldest_exit(m);
	if (m->nheld && m->held[m->held_head].time + MODEL_HOLD_NS <= m->now)
		take_held(m, 0);
	model_jit_tick(m);
}

void model_ingest(struct model *m, const void *rec)
{
	const struct st_header *h = rec;

	switch (h->type) {
	case ST_REC_SAMPLE: {
		const struct st_sample *smp = rec;

		/* The kernel's chain of a sample whose copy comes next: compared with it, not counted. */
		if (smp->flags & ST_SAMPLE_CHECK_ONLY) {
			model_keep_kernel_check(m, smp);
			break;
		}
		advance(m, smp->time);
		m->copies_shed += (smp->flags & ST_SAMPLE_COPY_SHED) != 0;
		if (!hold(m, smp))
			ingest_sample(m, smp);
		break;
	}
	case ST_REC_MMAP: {
		const struct st_mmap *mm = rec;

		advance(m, mm->time);
		symbolizer_add_map(m->symbols, (pid_t)mm->pid, mm->start, mm->len,
				   mm->pgoff, mm->filename);
		take_held(m, (pid_t)mm->pid);
		break;
	}
	case ST_REC_COMM:
	case ST_REC_EXEC: {
		const struct st_comm *c = rec;

		advance(m, c->time);
		{
			struct model_thread *t = thread_of(m, (pid_t)c->tid);

			/* Its rows took its name at each sample: the samples so far, the old. */
			forget_thread_memos(m, t);
			memcpy(t->comm, c->comm, sizeof(c->comm));
			t->comm[sizeof(t->comm) - 1] = '\0';
			st_text_safe(t->comm);	/* the target names itself */
		}
		if (h->type == ST_REC_EXEC)
			symbolizer_exec(m->symbols, (pid_t)c->pid);
		break;
	}
	case ST_REC_FORK: {
		const struct st_task *t = rec;
		struct model_thread *child;

		advance(m, t->time);
		child = thread_of(m, (pid_t)t->tid);
		thread_exited(m, child, false);
		child->pid = (pid_t)t->pid;
		/* A child runs its parent's command until it execs (COMM says). */
		if (!child->comm[0]) {
			struct model_thread *parent;
			pid_t ptid = (pid_t)t->ptid;

			HASH_FIND(hh, m->threads, &ptid, sizeof(ptid), parent);
			if (parent)
				memcpy(child->comm, parent->comm, sizeof(child->comm));
		}
		if (t->pid != t->ppid) {	/* a new process, not a thread */
			symbolizer_fork(m->symbols, (pid_t)t->ppid, (pid_t)t->pid);
			take_held(m, (pid_t)t->pid);
		}
		break;
	}
	case ST_REC_EXIT:
		advance(m, ((const struct st_task *)rec)->time);
		note_exit(m, rec);
		break;
	case ST_REC_LOST:
		m->kernel_lost += ((const struct st_lost *)rec)->count;
		break;
	case ST_REC_THROTTLE:
		m->throttled += ((const struct st_lost *)rec)->count;
		break;
	case ST_REC_OBSERVE:
	case ST_REC_OBSERVE_META:
		obs_model_ingest(&m->obs, rec);
		break;
	case ST_REC_IBS:
		advance(m, ((const struct st_ibs *)rec)->time);
		ingest_ibs(m, rec);
		break;
	case ST_REC_WAKE:
		model_note_wake(m, rec);
		break;
	default:
		break;
	}
}

void model_prefetch(struct model *m, const void *rec)
{
	const struct st_sample *s = rec;

	if (s->h.type != ST_REC_SAMPLE)
		return;
	symbolizer_prefetch(m->symbols, (pid_t)s->pid, s->ip, s->cpumode == ST_MODE_KERNEL);
	model_prefetch_chain(m, s);
}

bool model_ready(struct model *m, const void *rec)
{
	const struct st_header *h = rec;
	const struct st_sample *s = rec;
	const uint64_t *chain;

	if (h->type == ST_REC_IBS) {
		const struct st_ibs *b = rec;

		return symbolizer_ready(m->symbols, (pid_t)b->pid, b->ip,
					b->cpumode == ST_MODE_KERNEL);
	}
	if (h->type != ST_REC_SAMPLE)
		return true;
	if (!symbolizer_ready(m->symbols, (pid_t)s->pid, s->ip, s->cpumode == ST_MODE_KERNEL))
		return false;
	/* Callers are looked up a byte before their return address. */
	chain = st_sample_chain(s);
	for (size_t i = s->nchain && chain[0] == s->ip ? 1 : 0; i < s->nchain; i++)
		if (!symbolizer_ready(m->symbols, (pid_t)s->pid, chain[i] ? chain[i] - 1 : 0,
				      false))
			return false;
	/* A stack copy is unwound here, into whatever the process maps. */
	if (s->flags & ST_SAMPLE_HAS_STACK)
		return symbolizer_ready_process(m->symbols, (pid_t)s->pid);
	return true;
}

void model_zero(struct model *m)
{
	struct model_thread *t;

	m->zeroed_at = m->last_time + 1;
	/* Before the first sample there is nothing to clear (per_sym NULL). */
	if (m->per_sym)
		memset(m->per_sym, 0, m->per_sym_cap * sizeof(*m->per_sym));
	for (t = m->threads; t; t = t->hh.next) {
		t->samples = t->weight = t->cycles = t->instructions = 0;
		memset(t->event_weight, 0, sizeof(t->event_weight));
		memset(t->waited, 0, sizeof(t->waited));
		thread_clear_syms(m, t);
	}
	if (m->waited_under) {
		memset(m->waited_under, 0, m->waited_cap * sizeof(*m->waited_under));
		memset(m->ran_under, 0, m->waited_cap * sizeof(*m->ran_under));
		memset(m->waited_why, 0, m->waited_cap * MODEL_WAITS * sizeof(*m->waited_why));
	}
	memset(m->waited, 0, sizeof(m->waited));
	m->waits = 0;
	proc_syms_free(m);
	m->gone_samples = 0;
	m->samples = m->weight = m->unknown = m->kernel_samples = 0;
	memset(m->event_samples, 0, sizeof(m->event_samples));
	memset(m->event_weight, 0, sizeof(m->event_weight));
	m->multiplexed = m->chains = m->chain_frames = 0;
	m->cycles = m->instructions = 0;
	m->tree_frames = m->tree_unknown = 0;
	/* Counts only: the history's samples still name their nodes. */
	cct_zero(&m->tree);
	model_wakers_clear(m);
	callerchain_clear(&m->chaining);
	m->unwound = m->unwind_cut = m->unwind_lost = 0;
	obs_model_zero(&m->obs);
	ibs_model_zero(&m->ibs);
	model_jit_zero(m);
}

struct sort_ctx {
	struct st_sort sort;
	bool invert;
};

static _Thread_local struct sort_ctx sort_ctx;

static int cmp_double(double a, double b)
{
	/* NaN (no IPC) sorts below every number. */
	if (isnan(a))
		return isnan(b) ? 0 : 1;
	if (isnan(b))
		return -1;
	return a > b ? -1 : a < b;
}

static int cmp_key(const struct model_row *a, const struct model_row *b,
		   enum st_sort_key key)
{
	int c;

	switch (key) {
	case ST_SORT_SELF:
		return a->weight > b->weight ? -1 : a->weight < b->weight;
	case ST_SORT_IPC:
		return cmp_double(a->ipc, b->ipc);
	case ST_SORT_MODULE:
		return strcmp(a->sym->module, b->sym->module);
	case ST_SORT_SYMBOL:
		return strcmp(a->sym->name, b->sym->name);
	case ST_SORT_PROCESS:
		c = strcmp(a->comm, b->comm);
		return c ? c : (a->pid > b->pid) - (a->pid < b->pid);
	case ST_SORT_OFFCPU:
		return cmp_double(a->waited_under, b->waited_under);
	case ST_SORT_TOTAL:
		return cmp_double(a->through, b->through);
	case ST_SORT_WALL:
		return cmp_double(a->wall, b->wall);
	default:
		return 0;
	}
}

static int cmp_rows(const void *pa, const void *pb)
{
	const struct model_row *a = pa, *b = pb;
	int c = cmp_key(a, b, sort_ctx.sort.key[0]);

	if (sort_ctx.invert)
		c = -c;
	for (int k = 1; !c && k < sort_ctx.sort.nkeys; k++)
		c = cmp_key(a, b, sort_ctx.sort.key[k]);
	/* Ties: heavier first, then by id and process, so the order is stable. */
	if (!c)
		c = a->weight > b->weight ? -1 : a->weight < b->weight;
	if (!c)
		c = a->sym->id < b->sym->id ? -1 : a->sym->id > b->sym->id;
	if (!c)
		c = (a->pid > b->pid) - (a->pid < b->pid);
	return c;
}

static double share(const struct model *m, uint64_t w)
{
	uint64_t total = model_total_weight(m);

	return total ? 100.0 * (double)w / (double)total : 0;
}

/* Room behind the rows for what each row holds a copy of. */
struct row_extras {
	struct ibs_stats *ibs;	/* a row's IBS figures, where IBS counted; else NULL */
	double *shares;		/* -e a,b: nsampled event shares a row; else NULL */
};

/* Room before the rows for their block's size, the rows' alignment kept. */
#define ROWS_HEAD	((size_t)64)

/*
 * count rows, and behind them room for their extras: the rows are
 * values, and model_rows_free frees all.  Without IBS or -e a,b, none.
 */

static struct model_row *rows_alloc(const struct model *m, size_t count, struct row_extras *x)
{
	unsigned char *block;
	size_t bytes;
	bool with_ibs = ibs_model_active(&m->ibs);
	size_t ne = m->nsampled >= 2 ? (size_t)m->nsampled : 0;
	size_t each = sizeof(struct model_row) + (with_ibs ? sizeof(struct ibs_stats) : 0) +
		      ne * sizeof(double);
	struct model_row *r;

	count = count ? count : 1;
	/*
	 * A fresh mapping (st_table_alloc), not the heap, with its size
	 * before it: the heap is shared with a snapshot's copy of the
	 * process while it writes, and a refresh's megabytes of rows in
	 * reused heap pages were each copied first.
	 */
	if (count > (SIZE_MAX - ROWS_HEAD) / each)
		st_xcheck(NULL);
	bytes = ROWS_HEAD + count * each;
	block = st_table_alloc(1, bytes);
	*(size_t *)(void *)block = bytes;
	r = (struct model_row *)(void *)(block + ROWS_HEAD);
	x->ibs = with_ibs ? (struct ibs_stats *)(void *)(r + count) : NULL;
	x->shares = ne ? (double *)(void *)((char *)(r + count) +
					     (with_ibs ? count * sizeof(struct ibs_stats) : 0))
		       : NULL;
	return r;
}

/* Row n from a symbol's totals (of all processes, or of one); x: rows_alloc's. */
static void fill_row(const struct model *m, struct model_row *r, const struct row_extras *x,
		     size_t n, uint32_t id, const struct model_sym *t)
{
	const struct ibs_stats *st = x->ibs ? ibs_model_symbol(&m->ibs, id) : NULL;
	struct ibs_stats *ibs = x->ibs;

	r += n;
	r->sym = symbolizer_symbol(m->symbols, id);
	r->samples = t->samples;
	r->weight = model_shown_weight(m, t->weight, t->event_weight);
	r->self = share(m, r->weight);
	if (x->shares) {
		double *shares = x->shares + n * (size_t)m->nsampled;

		for (int e = 0; e < m->nsampled; e++)
			shares[e] = m->event_weight[e]
				? 100.0 * (double)t->event_weight[e] / (double)m->event_weight[e] : 0;
		r->event_share = shares;
	}
	r->ipc = t->cycles ? (double)t->instructions / (double)t->cycles : NAN;
	/* Of the symbol in every process, as IBS's. */
	r->waited_under = m->offcpu_event >= 0 ? (double)model_waited_under(m, id) / 1e9 : NAN;
	r->wall = model_knows_wall(m) ? r->waited_under + (double)model_ran_under(m, id) / 1e9 : NAN;
	r->through = NAN;
	/* Of the symbol in every process: IBS figures are not split by process. */
	if (st) {
		ibs[n] = *st;
		r->ibs = &ibs[n];
	}
}

bool model_knows_through(const struct model *m)
{
	/* The tree pools events by count: -e a,b's shares through are its events' trees'. */
	return m->tree.max_depth > 1 && m->nsampled < 2;
}

/*
 * Sorted by TOTAL, a function samples only passed through has a row too
 * (main, _start), as perf top --children lists them; else rows are where
 * samples ended.
 */
static size_t rows_by_symbol(const struct model *m, bool every_caller, struct model_row **rows)
{
	size_t n = 0, nsym = symbolizer_count(m->symbols);
	struct row_extras x;
	struct model_row *r = rows_alloc(m, nsym, &x);
	uint64_t *through = NULL;

	if (model_knows_through(m)) {
		through = st_table_alloc(nsym ? nsym : 1, sizeof(*through));
		cct_through_by_symbol(&m->tree, through, nsym);
	}
	for (uint32_t id = 0; id < nsym; id++) {
		static const struct model_sym none;
		const struct model_sym *t = id < m->per_sym_cap ? &m->per_sym[id] : &none;

		/* A function waits passed through has a row, though no sample ended in it. */
		if (!t->samples && !model_waited_under(m, id) &&
		    !(every_caller && through && through[id]))
			continue;
		fill_row(m, r, &x, n, id, t);
		if (through)
			r[n].through = share(m, through[id]);
		n++;
	}
	st_table_free(through, nsym ? nsym : 1, sizeof(*through));
	*rows = r;
	return n;
}

static size_t rows_by_process(const struct model *m, struct model_row **rows)
{
	size_t n = 0, count = HASH_COUNT(m->proc_syms);
	struct row_extras x;
	struct model_row *r = rows_alloc(m, count, &x);
	const struct model_proc_sym *ps;

	for (ps = m->proc_syms; ps; ps = ps->hh.next) {
		struct model_sym t = model_proc_sym_totals(m, ps);

		if (!t.samples)
			continue;
		fill_row(m, r, &x, n, ps->key.id, &t);
		r[n].waited_under = r[n].wall = NAN;	/* kept by function, not by process */
		r[n].pid = ps->key.pid;
		if (ps->key.pid <= MODEL_FOLDED_PID) {
			long at = process_find(m, ps->key.pid);

			r[n].processes = at >= 0 ? m->processes[at].folded : 0;
		}
		memcpy(r[n++].comm, ps->comm, sizeof(r->comm));
	}
	*rows = r;
	return n;
}

static int by_command(const void *pa, const void *pb)
{
	const struct model_proc_sym *a = *(const struct model_proc_sym *const *)pa;
	const struct model_proc_sym *b = *(const struct model_proc_sym *const *)pb;
	int c = strcmp(a->comm, b->comm);

	return c ? c : (a->key.id > b->key.id) - (a->key.id < b->key.id);
}

/* perf's -s comm: a row per command and symbol, its processes' samples summed. */
static size_t rows_by_command(const struct model *m, struct model_row **rows)
{
	size_t n = 0, k = 0, count = HASH_COUNT(m->proc_syms);
	const struct model_proc_sym **all = st_xcalloc(count ? count : 1, sizeof(*all));
	struct row_extras x;
	struct model_row *r = rows_alloc(m, count, &x);
	const struct model_proc_sym *ps;

	for (ps = m->proc_syms; ps; ps = ps->hh.next)
		if (model_proc_sym_totals(m, ps).samples)
			all[k++] = ps;
	qsort(all, k, sizeof(*all), by_command);
	for (size_t i = 0; i < k;) {
		struct model_sym sum = { 0 };
		size_t j = i;

		for (; j < k && all[j]->key.id == all[i]->key.id &&
		       !strcmp(all[j]->comm, all[i]->comm); j++) {
			struct model_sym t = model_proc_sym_totals(m, all[j]);

			sum_into(&sum, &t);
		}
		fill_row(m, r, &x, n, all[i]->key.id, &sum);
		r[n].waited_under = r[n].wall = NAN;	/* kept by function, not by command */
		memcpy(r[n].comm, all[i]->comm, sizeof(r->comm));
		r[n++].processes = (uint32_t)(j - i);
		i = j;
	}
	free(all);
	*rows = r;
	return n;
}

size_t model_rows_sorted(const struct model *m, const struct st_sort *sort,
			 bool invert, struct model_row **rows)
{
	size_t n = sort->split == ST_SPLIT_PID ? rows_by_process(m, rows)
		   : sort->split == ST_SPLIT_COMM ? rows_by_command(m, rows)
		   : rows_by_symbol(m, sort->key[0] == ST_SORT_TOTAL, rows);

	sort_ctx = (struct sort_ctx){ *sort, invert };
	if (sort_ctx.sort.nkeys < 1)
		sort_ctx.sort.nkeys = 1;
	qsort(*rows, n, sizeof(**rows), cmp_rows);
	return n;
}

void model_rows_free(struct model_row *rows)
{
	unsigned char *block;

	if (!rows)
		return;
	block = (unsigned char *)rows - ROWS_HEAD;
	st_table_free(block, 1, *(size_t *)(void *)block);
}

size_t model_rows(const struct model *m, enum st_sort_key key, bool invert,
		  struct model_row **rows)
{
	struct st_sort sort = { .key = { key }, .nkeys = 1 };

	return model_rows_sorted(m, &sort, invert, rows);
}

double model_rate(const struct model *m)
{
	uint64_t sum = 0;
	size_t n = m->timeline_len, from;

	if (n < 2)
		return m->samples && m->last_time > m->first_time
		       ? (double)m->samples * 1e9 / (double)(m->last_time - m->first_time)
		       : 0;
	/* The last, partly filled bucket is left out; 10 before it = 1 s. */
	from = n > 11 ? n - 11 : 0;
	for (size_t i = from; i < n - 1; i++)
		sum += m->timeline[i];
	return (double)sum * 1e9 / (double)((n - 1 - from) * MODEL_BUCKET_NS);
}

size_t model_live_threads(const struct model *m)
{
	size_t n = 0;

	if (!m->recorded)
		return m->live_threads;
	/* A recording's: those with a row (a sample) that ran to its end. */
	for (const struct model_thread *t = m->threads; t; t = t->hh.next)
		n += t->samples && !t->exited;
	return n;
}

size_t model_seen_threads(const struct model *m)
{
	return m->nthreads;
}

double model_unknown_pct(const struct model *m)
{
	return m->samples ? 100.0 * (double)m->unknown / (double)m->samples : 0;
}


const struct model_thread *model_thread_of(const struct model *m, pid_t tid)
{
	const struct model_thread *t;

	HASH_FIND(hh, m->threads, &tid, sizeof(tid), t);
	return t;
}
