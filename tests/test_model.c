/*
 * test_model.c - aggregation over constructed records: shares weighted
 * by period, sorting, unknown rows kept, IPC only from clean intervals,
 * threads, lost counts, zeroing, the sample-rate timeline, and events
 * sampled each on its own (-e a,b) kept apart, and time ranges
 * aggregated again from the history, with its bound; the kernel
 * walker's check pairing a sample's two walks.
 */
#include "check.h"
#include "own_maps.h"
#include "model/model.h"
#include "model/model_internal.h"
#include "model/timeline.h"
#include "ring/record.h"
#include "symbols/symbols.h"
#include "symbols/unwind.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

__attribute__((noinline)) int model_fn_one(void);
__attribute__((noinline)) int model_fn_one(void)
{
	return 1;
}

__attribute__((noinline)) int model_fn_two(void);
__attribute__((noinline)) int model_fn_two(void)
{
	return 2;
}

static void sample_of(struct model *m, uint32_t pid, uint64_t ip, uint32_t tid,
		      uint64_t time, uint64_t period, int cycles, int instr,
		      uint32_t flags)
{
	_Alignas(8) unsigned char buf[256];
	struct st_sample *s = (void *)buf;

	memset(buf, 0, sizeof(buf));
	s->h = (struct st_header){ ST_REC_SAMPLE, ST_SOURCE_PERF,
				   (uint32_t)(sizeof(*s) + (cycles ? 16 : 0)) };
	s->pid = pid;
	s->tid = tid;
	s->ip = ip;
	s->time = time;
	s->period = period;
	s->flags = flags;
	if (cycles) {
		s->ncounters = 2;
		s->flags |= ST_SAMPLE_HAS_COUNTERS;
		s->data[0] = (uint64_t)cycles;
		s->data[1] = (uint64_t)instr;
	}
	model_ingest(m, s);
}

static void sample(struct model *m, uint64_t ip, uint32_t tid, uint64_t time,
		   uint64_t period, int cycles, int instr, uint32_t flags)
{
	sample_of(m, (uint32_t)getpid(), ip, tid, time, period, cycles, instr, flags);
}

static void task(struct model *m, uint16_t type, uint32_t pid, uint32_t ppid,
		 uint64_t time)
{
	struct st_task t = { { type, ST_SOURCE_PERF, sizeof(t) }, pid, pid,
			     ppid, ppid, time };

	model_ingest(m, &t);
}

/*
 * -e a,b: event 0 (a clock, period 1000 ns) lands 9 times in one and
 * once in two; event 1 (page faults, period 1) 1 time in one and 3 in
 * two.  Each event's shares are of its own total, never of the sum of
 * periods in different units; Tab (shown_event) switches whose shares
 * SELF% and the thread and process tables show.  A sample naming an
 * event past the session's (a damaged recording) counts, in no event.
 */
static void separate_events(uint64_t one, uint64_t two)
{
	struct symbolizer *sy = symbolizer_create(true);
	struct model_thread_row *tr;
	struct model_process_row *pr;
	struct model_row *rows;
	struct model m;
	uint32_t ev1 = 1u << ST_SAMPLE_EVENT_SHIFT;
	size_t n;

	model_init(&m, sy);
	m.nsampled = 2;
	symbols_read_proc_maps(getpid(), ingest_own_map, &m);
	for (int i = 0; i < 9; i++)
		sample(&m, one, 1, 1000 + (uint64_t)i, 1000, 0, 0, 0);
	sample(&m, two, 2, 2000, 1000, 0, 0, 0);
	sample(&m, one, 1, 3000, 1, 0, 0, ev1);
	for (int i = 0; i < 3; i++)
		sample(&m, two, 2, 4000 + (uint64_t)i, 1, 0, 0, ev1);
	sample(&m, two, 2, 5000, 1, 0, 0, 7u << ST_SAMPLE_EVENT_SHIFT);

	CHECK_EQ_U64(m.samples, 15);
	CHECK_EQ_U64(m.event_samples[0], 10);
	CHECK_EQ_U64(m.event_samples[1], 4);
	CHECK_EQ_U64(m.event_weight[0], 10000);
	CHECK_EQ_U64(m.event_weight[1], 4);

	n = model_rows(&m, ST_SORT_SELF, false, &rows);
	CHECK(n == 2);
	CHECK(!strcmp(rows[0].sym->name, "model_fn_one"));
	CHECK(fabs(rows[0].self - 90.0) < 1e-9);
	CHECK(fabs(rows[0].event_share[0] - 90.0) < 1e-9);
	CHECK(fabs(rows[0].event_share[1] - 25.0) < 1e-9);
	CHECK(fabs(rows[1].self - 10.0) < 1e-9);
	CHECK(fabs(rows[1].event_share[1] - 75.0) < 1e-9);
	model_rows_free(rows);
	n = model_thread_rows(&m, &tr);
	CHECK(n == 2 && tr[0].tid == 1 && fabs(tr[0].share - 90.0) < 1e-9);
	free(tr);

	/* Page faults shown: two leads, in every table. */
	m.shown_event = 1;
	n = model_rows(&m, ST_SORT_SELF, false, &rows);
	CHECK(n == 2 && !strcmp(rows[0].sym->name, "model_fn_two"));
	CHECK(fabs(rows[0].self - 75.0) < 1e-9);
	CHECK(fabs(rows[0].event_share[0] - 10.0) < 1e-9);
	model_rows_free(rows);
	n = model_thread_rows(&m, &tr);
	CHECK(n == 2 && tr[0].tid == 2 && fabs(tr[0].share - 75.0) < 1e-9);
	free(tr);
	n = model_process_rows(&m, &pr);
	CHECK(n == 1 && fabs(pr[0].share - 100.0) < 1e-9);
	CHECK(pr[0].top && !strcmp(pr[0].top->name, "model_fn_two"));
	free(pr);

	/* z clears each event's totals too. */
	model_zero(&m);
	CHECK_EQ_U64(m.event_samples[0] + m.event_samples[1], 0);
	CHECK_EQ_U64(m.event_weight[0] + m.event_weight[1], 0);
	model_free(&m);
	symbolizer_destroy(sy);
}

static void comm_of(struct model *m, uint32_t pid, uint32_t tid, const char *comm)
{
	struct st_comm c = { .h = { ST_REC_COMM, ST_SOURCE_PERF, sizeof(c) }, .pid = pid,
			     .tid = tid };

	snprintf(c.comm, sizeof(c.comm), "%s", comm);
	model_ingest(m, &c);
}

static void exits(struct model *m, uint32_t pid, uint32_t first, uint32_t last, uint64_t time);

/*
 * A command run as several processes (a shell loop): -s comm makes one
 * row of each symbol for them, -s pid one per process.  The process
 * table counts every thread that had a sample; a thread named by a
 * record but never sampled has no row in the thread table.
 */
static void rows_by_command(void)
{
	struct symbolizer *sy = symbolizer_create(true);
	struct st_sort by_comm = { .key = { ST_SORT_SELF }, .nkeys = 1, .split = ST_SPLIT_COMM };
	struct st_sort by_pid = { .key = { ST_SORT_SELF }, .nkeys = 1, .split = ST_SPLIT_PID };
	struct model_process_row *pr;
	struct model_thread_row *tr;
	struct model_row *rows;
	struct model m;
	size_t n;

	model_init(&m, sy);
	comm_of(&m, 100, 100, "worker");
	comm_of(&m, 100, 103, "worker");
	comm_of(&m, 100, 104, "worker");
	comm_of(&m, 101, 101, "worker");
	comm_of(&m, 102, 102, "other");
	for (int i = 0; i < 3; i++)
		sample_of(&m, 100, 0x10, 100, 1000 + (uint64_t)i, 10, 0, 0, 0);
	sample_of(&m, 100, 0x10, 103, 2000, 10, 0, 0, 0);
	for (int i = 0; i < 2; i++)
		sample_of(&m, 101, 0x10, 101, 3000 + (uint64_t)i, 10, 0, 0, 0);
	sample_of(&m, 102, 0x10, 102, 4000, 10, 0, 0, 0);

	model_flush(&m);	/* the processes' maps never come: their samples wait no more */
	n = model_rows_sorted(&m, &by_comm, false, &rows);
	CHECK(n == 2);
	CHECK(n == 2 && !strcmp(rows[0].comm, "worker") && rows[0].samples == 6 &&
	      rows[0].processes == 2);
	CHECK(n == 2 && !strcmp(rows[1].comm, "other") && rows[1].samples == 1 &&
	      rows[1].processes == 1);
	model_rows_free(rows);
	n = model_rows_sorted(&m, &by_pid, false, &rows);
	CHECK(n == 3);
	model_rows_free(rows);
	n = model_process_rows(&m, &pr);
	CHECK(n == 3 && pr[0].pid == 100 && pr[0].threads == 2 && pr[1].threads == 1);
	free(pr);
	n = model_thread_rows(&m, &tr);
	CHECK(n == 4);
	for (size_t i = 0; i < n; i++)
		CHECK(tr[i].samples > 0 && tr[i].pid != 0);
	free(tr);
	/*
	 * Exited threads: live, forgotten a second after; in a recording
	 * listed as perf report lists them.
	 */
	for (int recorded = 0; recorded < 2; recorded++) {
		struct model r;

		model_init(&r, sy);
		r.recorded = recorded;
		sample_of(&r, 300, 0x10, 300, 1000, 10, 0, 0, 0);
		sample_of(&r, 300, 0x10, 301, 1001, 10, 0, 0, 0);
		model_flush(&r);	/* taken, not held for maps that never come */
		exits(&r, 300, 301, 302, 2000);
		sample_of(&r, 300, 0x10, 300, 3000000000ull, 10, 0, 0, 0);
		model_flush(&r);
		n = model_thread_rows(&r, &tr);
		CHECK_EQ_U64(n, recorded ? 2 : 1);
		free(tr);
		model_free(&r);
	}
	/* The idle task, which no COMM record names, is perf's swapper in the thread table too. */
	sample_of(&m, 0, 0x10, 0, 5000, 10, 0, 0, 0);
	model_flush(&m);
	n = model_thread_rows(&m, &tr);
	for (size_t i = 0; i < n; i++)
		if (tr[i].tid == 0)
			CHECK(!strcmp(tr[i].comm, "swapper"));
	CHECK(n == 5);
	free(tr);
	model_free(&m);
	symbolizer_destroy(sy);
}

static uint64_t proc_count(const struct model *m, uint32_t pid, const char *name);
static uint64_t thread_count(const struct model *m, uint32_t tid, const char *name);

/* The tree's samples ending in a node of the function named name. */
static uint64_t tree_self(const struct model *m, const char *name)
{
	uint64_t n = 0;

	for (size_t i = 1; i < m->tree.n; i++)
		if (m->tree.nodes[i].sym < symbolizer_count(m->symbols) &&
		    !strcmp(symbolizer_symbol(m->symbols, m->tree.nodes[i].sym)->name, name))
			n += m->tree.nodes[i].self;
	return n;
}

/*
 * A JIT's map written after its samples (model_jit.c): they move from
 * [unknown] to the map's functions in the symbol, thread and process
 * tables, the tree's leaves and the history, so a time range names them
 * too.  Before the map, a look names nothing.
 */
static void jit_named_late(void)
{
	const uint32_t pid = 4194000;	/* no such process: its map is its reader's */
	struct symbolizer *sy = symbolizer_create(true);
	struct model_row *rows;
	struct model m, r;
	char path[64];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/tmp/perf-%u.map", pid);
	unlink(path);
	model_init(&m, sy);
	comm_of(&m, pid, pid, "jit");
	{
		_Alignas(8) unsigned char buf[256];

		/* Its code cache: anonymous memory, as perf's MMAP records name it. */
		if (st_mmap_make(buf, sizeof(buf), pid, 500, 0x7000000000ull, 0x10000, 0, "//anon"))
			model_ingest(&m, buf);
	}
	for (uint64_t i = 0; i < 30; i++)
		sample_of(&m, pid, 0x7000000010ull + i % 3, pid, 1000 + i, 10, 0, 0, 0);
	for (uint64_t i = 0; i < 10; i++)
		sample_of(&m, pid, 0x7000000110ull, pid, 2000 + i, 10, 0, 0, 0);
	model_flush(&m);
	CHECK_EQ_U64(m.unknown, 40);
	CHECK_EQ_U64(m.jit.waiting, 4);
	CHECK_EQ_U64(model_jit_name(&m, true), 0);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fprintf(f, "7000000000 100 jit_alpha\n7000000100 100 jit_beta\n");
	fclose(f);
	CHECK_EQ_U64(model_jit_name(&m, true), 40);
	CHECK_EQ_U64(m.unknown, 0);
	CHECK_EQ_U64(m.jit.waiting, 0);
	n = model_rows(&m, ST_SORT_SELF, false, &rows);
	CHECK(n == 2 && !strcmp(rows[0].sym->name, "jit_alpha") && rows[0].samples == 30 &&
	      rows[0].weight == 300);
	CHECK(n == 2 && !strcmp(rows[1].sym->name, "jit_beta") && rows[1].samples == 10);
	model_rows_free(rows);
	CHECK(thread_count(&m, pid, "jit_alpha") == 30 && thread_count(&m, pid, "[unknown]") == 0);
	CHECK(proc_count(&m, pid, "jit_beta") == 10 && proc_count(&m, pid, "[unknown]") == 0);
	CHECK_EQ_U64(tree_self(&m, "jit_alpha"), 30);
	CHECK_EQ_U64(tree_self(&m, "[unknown]"), 0);
	CHECK(model_range(&m, 0, 3000, &r));
	n = model_rows(&r, ST_SORT_SELF, false, &rows);
	CHECK(n == 2 && !strcmp(rows[0].sym->name, "jit_alpha") && rows[0].samples == 30);
	model_rows_free(rows);
	CHECK_EQ_U64(tree_self(&r, "jit_beta"), 10);
	model_free(&r);
	model_free(&m);
	symbolizer_destroy(sy);
	unlink(path);
}

/* The samples of (pid, symbol name) in the process rows, and of name in tid's thread rows. */
static uint64_t proc_count(const struct model *m, uint32_t pid, const char *name)
{
	for (const struct model_proc_sym *ps = m->proc_syms; ps; ps = ps->hh.next)
		if (ps->key.pid == (pid_t)pid &&
		    !strcmp(symbolizer_symbol(m->symbols, ps->key.id)->name, name))
			return model_proc_sym_totals(m, ps).samples;
	return 0;
}

static uint64_t thread_count(const struct model *m, uint32_t tid, const char *name)
{
	for (const struct model_thread *t = m->threads; t; t = t->hh.next)
		for (const struct model_thread_sym *ts = t->syms; ts && t->tid == (pid_t)tid;
		     ts = ts->next)
			if (!strcmp(symbolizer_symbol(m->symbols, ts->key.id)->name, name))
				return model_thread_sym_samples(m, ts);
	return 0;
}

/* Threads first..last-1 of pid exit at time. */
static void exits(struct model *m, uint32_t pid, uint32_t first, uint32_t last, uint64_t time)
{
	for (uint32_t tid = first; tid < last; tid++) {
		struct st_task e = { { ST_REC_EXIT, ST_SOURCE_PERF, sizeof(e) }, pid, tid, pid, tid,
				     time };

		model_ingest(m, &e);
	}
}

/*
 * The (thread, symbol) and (process, symbol) rows found through the
 * model's index: a tid in two processes with the same symbols keeps its
 * counts apart by process; after 2,000 of 3,000 threads are forgotten
 * (the index made again of the rest) and after z, the rest still count.
 */
static void rows_found(uint64_t one, uint64_t two)
{
	const uint64_t F = MODEL_FORGET_NS;
	struct symbolizer *sy = symbolizer_create(true);
	uint32_t a = (uint32_t)getpid(), b = a + 100000;
	/* Thread ids past a: none is a process id here (a thread a exits forgets the process). */
	const uint32_t T = a + 1;
	struct model m;

	model_init(&m, sy);
	symbols_read_proc_maps(getpid(), ingest_own_map, &m);
	task(&m, ST_REC_FORK, b, a, 500);	/* b: a's copy */
	for (uint64_t i = 0; i < 100; i++)
		sample_of(&m, a, i % 2 ? two : one, T + 7, 1000 + i, 1, 0, 0, 0);
	for (uint64_t i = 0; i < 30; i++)
		sample_of(&m, b, one, T + 7, 2000 + i, 1, 0, 0, 0);
	CHECK(m.threads && thread_count(&m, T + 7, "model_fn_one") == 80);
	CHECK(thread_count(&m, T + 7, "model_fn_two") == 50);
	CHECK(proc_count(&m, a, "model_fn_one") == 50 && proc_count(&m, a, "model_fn_two") == 50);
	CHECK(proc_count(&m, b, "model_fn_one") == 30 && proc_count(&m, b, "model_fn_two") == 0);
	for (uint32_t tid = T + 5000; tid < T + 8000; tid++)
		sample_of(&m, a, one, tid, 3000, 1, 0, 0, 0);
	exits(&m, a, T + 5000, T + 6600, 3001);
	sample_of(&m, a, two, T + 7, F + 3010, 1, 0, 0, 0);	/* 1,600 forgotten: made again */
	CHECK(m.thread_rows.n < 3000);
	for (uint32_t tid = T + 7000; tid < T + 8000; tid++)		/* new rows after that */
		sample_of(&m, a, two, tid, F + 3020, 1, 0, 0, 0);
	exits(&m, a, T + 6600, T + 7000, F + 3030);
	sample_of(&m, a, two, T + 7, 2 * F + 3040, 1, 0, 0, 0);	/* 400 more forgotten */
	{
		size_t wrong = 0;

		/* Every thread left finds both its rows again, counted on them. */
		for (uint32_t tid = T + 7000; tid < T + 8000; tid++) {
			sample_of(&m, a, one, tid, 2 * F + 3050, 1, 0, 0, 0);
			sample_of(&m, a, two, tid, 2 * F + 3050, 1, 0, 0, 0);
			wrong += thread_count(&m, tid, "model_fn_one") != 2 ||
				 thread_count(&m, tid, "model_fn_two") != 2;
		}
		CHECK(wrong == 0);
	}
	CHECK_EQ_U64(m.thread_rows.n - m.thread_rows.dead, 2002);	/* tid 7's 2, 1,000 x 2 */
	CHECK(thread_count(&m, T + 5000, "model_fn_one") == 0 && thread_count(&m, T + 7, "model_fn_two") == 52);
	CHECK(proc_count(&m, a, "model_fn_one") == 4050 && proc_count(&m, a, "model_fn_two") == 2052);
	/*
	 * A function's last rows are remembered (row_memo): a tid used again
	 * after its thread was forgotten counts on the new thread's rows.
	 */
	sample_of(&m, a, one, T + 9000, 2 * F + 3060, 1, 0, 0, 0);
	exits(&m, a, T + 9000, T + 9001, 2 * F + 3061);
	sample_of(&m, a, two, T + 7, 3 * F + 3070, 1, 0, 0, 0);	/* 9000 forgotten */
	sample_of(&m, a, one, T + 9000, 3 * F + 3080, 1, 0, 0, 0);
	CHECK(thread_count(&m, T + 9000, "model_fn_one") == 1);
	CHECK(proc_count(&m, a, "model_fn_one") == 4052);
	model_zero(&m);
	for (uint64_t i = 0; i < 80; i++)
		sample_of(&m, a, two, T + 7, 3000 + i, 1, 0, 0, 0);
	CHECK(thread_count(&m, T + 7, "model_fn_two") == 80 && thread_count(&m, T + 7, "model_fn_one") == 0);
	CHECK(proc_count(&m, a, "model_fn_two") == 80 && proc_count(&m, b, "model_fn_one") == 0);
	model_free(&m);
	symbolizer_destroy(sy);
}

/*
 * A view draws its rows until its next requery while the model goes on:
 * the tables read before every thread exited and was forgotten, z freed
 * the process rows and new threads took the freed memory read as they
 * did (the thread table held the threads themselves: a churning host's
 * H crashed in seconds).  ASan's build fails on any read of freed memory.
 */
static void tables_outlive_model(uint64_t one)
{
	const uint64_t F = MODEL_FORGET_NS;
	const uint32_t N = 64;
	struct symbolizer *sy = symbolizer_create(true);
	struct st_sort by_pid = { .key = { ST_SORT_SELF }, .nkeys = 1, .split = ST_SPLIT_PID };
	uint32_t a = (uint32_t)getpid(), T = a + 1;
	struct model_thread_row *tr;
	struct model_process_row *pr;
	struct model_row *rows;
	size_t nt, np, n, wrong = 0;
	struct model m;

	model_init(&m, sy);
	symbols_read_proc_maps(getpid(), ingest_own_map, &m);
	for (uint32_t i = 0; i < N; i++) {
		char name[16];

		snprintf(name, sizeof(name), "churn-%u", i);
		comm_of(&m, a, T + i, name);
		for (uint32_t k = 0; k <= i; k++)
			sample_of(&m, a, one, T + i, 1000 + k, 1, 0, 0, 0);
	}
	comm_of(&m, a, a, "churner");
	sample_of(&m, a, one, a, 2000, 1, 0, 0, 0);
	nt = model_thread_rows(&m, &tr);
	np = model_process_rows(&m, &pr);
	n = model_rows_sorted(&m, &by_pid, false, &rows);
	CHECK(nt == N + 1 && np == 1 && n == 1);

	exits(&m, a, T, T + N, 3000);
	exits(&m, a, a, a + 1, 3000);
	sample_of(&m, a + 7, one, a + 7, F + 4000, 1, 0, 0, 0);	/* they are forgotten */
	CHECK(m.gone_threads == N + 1);
	model_zero(&m);
	for (uint32_t i = 0; i < 4 * N; i++) {		/* others take the memory */
		comm_of(&m, a + 7, T + 1000 + i, "newcomer");
		sample_of(&m, a + 7, one, T + 1000 + i, F + 5000, 1, 0, 0, 0);
	}

	for (size_t i = 0; i < nt; i++) {
		uint32_t k = (uint32_t)tr[i].tid - T;
		char name[16];

		snprintf(name, sizeof(name), "churn-%u", k);
		if (tr[i].tid == (pid_t)a)
			wrong += tr[i].samples != 1 || strcmp(tr[i].comm, "churner");
		else
			wrong += k >= N || tr[i].samples != k + 1 || strcmp(tr[i].comm, name);
		wrong += tr[i].pid != (pid_t)a || tr[i].exited || !tr[i].top ||
			 strcmp(tr[i].top->name, "model_fn_one");
	}
	CHECK(wrong == 0);
	CHECK(tr[0].tid == (pid_t)(T + N - 1));		/* the heaviest */
	CHECK(pr[0].pid == (pid_t)a && !strcmp(pr[0].comm, "churner") &&
	      pr[0].samples == N * (N + 1) / 2 + 1 && !strcmp(pr[0].top->name, "model_fn_one"));
	CHECK(rows[0].pid == (pid_t)a && !strcmp(rows[0].comm, "churner") &&
	      rows[0].samples == pr[0].samples && !rows[0].ibs);
	free(tr);
	free(pr);
	model_rows_free(rows);
	model_free(&m);
	symbolizer_destroy(sy);
}

/*
 * A host whose processes churn for hours: past MODEL_GONE_ROWS_MAX rows
 * of processes forgotten after their exit, the oldest's rows fold into
 * their command's, so the rows stay bounded while every sample still
 * counts (by command, and in the per-process table as "N gone").  Before,
 * every exited process kept its rows: 190 KB a second on a churning host.
 * Under --memory (bytes) the rows kept are fewer, and the folded
 * processes' own entries go too once they are half of them.
 */
/*
 * Past the bound, commands never folded before fold into one stand-in: a
 * host that runs thousands of commands keeps rows for a bounded few.
 */
static void commands_fold_bounded(uint64_t one, uint64_t two)
{
	const uint32_t N = 3000;
	struct symbolizer *sy = symbolizer_create(true);
	struct st_sort by_comm = { .key = { ST_SORT_SELF }, .nkeys = 1, .split = ST_SPLIT_COMM };
	uint32_t a = (uint32_t)getpid(), base = a + 100;
	uint64_t any = 0, all = 0, other = 0;
	struct model_row *rows;
	struct model m;
	size_t n;

	model_init(&m, sy);
	model_set_memory(&m, (size_t)1 << 20);
	symbols_read_proc_maps(getpid(), ingest_own_map, &m);
	for (uint32_t i = 0; i < N; i++) {
		uint32_t pid = base + i;
		uint64_t t = 1000000ull * (i + 1);
		char comm[16];

		snprintf(comm, sizeof(comm), "cmd-%u", i);
		task(&m, ST_REC_FORK, pid, a, t);
		comm_of(&m, pid, pid, comm);
		sample_of(&m, pid, one, pid, t + 1, 1, 0, 0, 0);
		sample_of(&m, pid, two, pid, t + 2, 1, 0, 0, 0);
		exits(&m, pid, pid, pid + 1, t + 3);
	}
	/*
	 * Commands folded before, past the bound, in functions their
	 * stand-ins have no row for: [other functions] of [any command].
	 */
	for (uint32_t i = 0; i < N; i++) {
		const uint64_t fn[] = { (uint64_t)(uintptr_t)sample_of, (uint64_t)(uintptr_t)sample };
		uint32_t pid = base + N + i;
		uint64_t t = 1000000ull * (N + i + 1);
		char comm[16];

		snprintf(comm, sizeof(comm), "cmd-%u", i % 100);
		task(&m, ST_REC_FORK, pid, a, t);
		comm_of(&m, pid, pid, comm);
		sample_of(&m, pid, fn[i % 2] + 4, pid, t + 1, 1, 0, 0, 0);
		exits(&m, pid, pid, pid + 1, t + 3);
	}
	/* Without the bound: 2 rows a command, 6,000 of them, and 200 more. */
	CHECK(m.folded_rows <= model_gone_rows_max(&m) + 2 + 1);
	CHECK(HASH_COUNT(m.proc_syms) <= 2 * model_gone_rows_max(&m) + 2 * 1024 + 8);
	n = model_rows_sorted(&m, &by_comm, false, &rows);
	for (size_t i = 0; i < n; i++) {
		all += rows[i].samples;
		any += !strcmp(rows[i].comm, MODEL_ANY_COMMAND) ? rows[i].samples : 0;
		other += !strcmp(rows[i].comm, MODEL_ANY_COMMAND) &&
			 rows[i].sym->id == symbolizer_other_id(sy) ? rows[i].samples : 0;
	}
	printf("%u commands folded: %llu rows of commands, %llu samples under %s, %llu in its "
	       "[other functions]\n", N, (unsigned long long)m.folded_rows, (unsigned long long)any,
	       MODEL_ANY_COMMAND, (unsigned long long)other);
	CHECK_EQ_U64(all, 3 * N);
	CHECK(any > N);
	CHECK(other >= N - 200);
	model_rows_free(rows);
	model_free(&m);
	symbolizer_destroy(sy);
}

/*
 * Memos are slots, not one a symbol: 20,000 symbols in one thread, each
 * three times, share 8,192 of them, and every sample still counts in its
 * rows (a memo another symbol takes is flushed first).
 */
static void memos_shared_by_symbols(void)
{
	const uint32_t N = 20000;
	struct symbolizer *sy = symbolizer_create(true);
	_Alignas(8) unsigned char buf[256];
	struct st_sample *s = (void *)buf;
	uint64_t rows = 0, samples = 0, thread_samples = 0, wrong = 0;
	struct model_thread *t;
	struct model m;

	model_init(&m, sy);
	memset(buf, 0, sizeof(buf));
	s->h = (struct st_header){ ST_REC_SAMPLE, ST_SOURCE_PERF, (uint32_t)sizeof(*s) };
	s->pid = s->tid = 4242;
	s->period = 1;
	for (int round = 0; round < 3; round++)
		for (uint32_t id = 0; id < N; id++) {
			s->time = 1000 + round * N + id;
			model_account_samples(&m, s, id, false, 1);
		}
	for (struct model_proc_sym *ps = m.proc_syms; ps; ps = ps->hh.next) {
		uint64_t got = model_proc_sym_totals(&m, ps).samples;

		rows++;
		samples += got;
		wrong += got != 3;
	}
	HASH_FIND(hh, m.threads, &s->tid, sizeof(pid_t), t);
	for (const struct model_thread_sym *ts = t ? t->syms : NULL; ts; ts = ts->next)
		thread_samples += model_thread_sym_samples(&m, ts);
	CHECK_EQ_U64(rows, N);
	CHECK_EQ_U64(samples, 3 * N);
	CHECK_EQ_U64(thread_samples, 3 * N);
	CHECK_EQ_U64(wrong, 0);
	CHECK(m.row_memo_cap < N);
	model_free(&m);
	symbolizer_destroy(sy);
}

static void churn_folds_rows(uint64_t one, uint64_t two, size_t bytes)
{
	const uint32_t N = 40000;
	struct symbolizer *sy = symbolizer_create(true);
	struct st_sort by_comm = { .key = { ST_SORT_SELF }, .nkeys = 1, .split = ST_SPLIT_COMM };
	struct st_sort by_pid = { .key = { ST_SORT_SELF }, .nkeys = 1, .split = ST_SPLIT_PID };
	uint32_t a = (uint32_t)getpid(), base = a + 100;
	uint64_t worker = 0, other = 0, folded = 0, exited = 0;
	struct model_process_row *pr;
	struct model_row *rows;
	struct model m;
	size_t n;

	model_init(&m, sy);
	model_set_memory(&m, bytes);
	symbols_read_proc_maps(getpid(), ingest_own_map, &m);
	for (uint32_t i = 0; i < N; i++) {
		uint32_t pid = base + i;
		uint64_t t = 1000000ull * (i + 1);

		task(&m, ST_REC_FORK, pid, a, t);
		comm_of(&m, pid, pid, i % 2 ? "other" : "worker");
		sample_of(&m, pid, one, pid, t + 1, 1, 0, 0, 0);
		sample_of(&m, pid, two, pid, t + 2, 1, 0, 0, 0);
		exits(&m, pid, pid, pid + 1, t + 3);
	}
	CHECK(m.folded_processes > 0);
	CHECK(HASH_COUNT(m.proc_syms) <= model_gone_rows_max(&m) + 2 * 1024 + 8);
	printf("%u processes churned%s: %llu folded, %u rows kept as their own, %zu entries\n", N,
	       bytes ? " under --memory" : "", (unsigned long long)m.folded_processes,
	       model_gone_rows_max(&m), m.nprocesses);
	if (bytes) {
		CHECK(model_gone_rows_max(&m) < MODEL_GONE_ROWS_MAX / 4);
		/* At most as many folded away as kept (past 1,024), and the rest their own. */
		CHECK(m.nprocesses - m.processes_away == N - m.folded_processes + 2);
		CHECK(m.processes_away < 1024 || 2 * m.processes_away < m.nprocesses);
		CHECK(m.nprocesses < N / 4);
	}
	CHECK_EQ_U64(m.samples, 2 * N);
	n = model_rows_sorted(&m, &by_comm, false, &rows);
	for (size_t i = 0; i < n; i++) {
		worker += !strcmp(rows[i].comm, "worker") ? rows[i].samples : 0;
		other += !strcmp(rows[i].comm, "other") ? rows[i].samples : 0;
	}
	CHECK(n == 4 && worker == N && other == N);
	model_rows_free(rows);
	n = model_rows_sorted(&m, &by_pid, false, &rows);
	for (size_t i = 0; i < n; i++)
		if (rows[i].pid <= MODEL_FOLDED_PID)
			folded += rows[i].processes;
	CHECK_EQ_U64(folded, 2 * m.folded_processes);	/* one row a function */
	model_rows_free(rows);
	n = model_process_rows(&m, &pr);
	{
		uint64_t samples = 0;

		for (size_t i = 0; i < n; i++) {
			samples += pr[i].samples;
			exited += pr[i].exited;
			if (pr[i].exited)
				CHECK(pr[i].pid <= MODEL_FOLDED_PID && pr[i].threads == pr[i].exited);
		}
		CHECK_EQ_U64(samples, 2 * N);
	}
	CHECK_EQ_U64(exited, m.folded_processes);
	free(pr);
	model_free(&m);
	symbolizer_destroy(sy);
}

/*
 * A constructed stream with known phases: one runs in [0, 1 s) on thread
 * 1, two in [1 s, 2 s) on thread 2, one sample a millisecond, cycles
 * and instructions with every sample (IPC 2 and 0.5).  A range gives
 * exactly its samples: [0.5 s, 1.5 s) is 500 of each, with their IPC and
 * threads.  Then a bounded history: 10 s of samples kept 3 s drops its
 * oldest chunks, and a range reaching before what it holds says so.
 */

/*
 * A target churning threads (a new tid every sample: 10,000 threads a
 * 100 ms span) grows the spans' per-thread counts; they count against the
 * byte bound, so the history drops chunks to stay within it.
 */
static void history_span_bytes_bounded(void)
{
	struct history h;
	struct history_entry e;
	size_t most = 0;

	history_init(&h, 0);
	h.max_bytes = 3 * HISTORY_CHUNK_BYTES;
	memset(&e, 0, sizeof(e));
	e.weight = 1;
	for (uint32_t i = 0; i < 100000; i++) {
		e.tid = i;
		history_add(&h, 1000000000ull + i * 10000ull, &e);
		if (history_bytes(&h) > most)
			most = history_bytes(&h);
	}
	CHECK(most <= h.max_bytes);
	CHECK(h.span_bytes > 10000 * sizeof(struct history_span_thread));
	/* Fewer chunks than the 3 the bound holds without spans. */
	CHECK(h.chunks < 3);
	CHECK_EQ_U64(h.entries + h.dropped, 100000);
	history_free(&h);
	CHECK_EQ_U64(h.span_bytes, 0);
}
/*
 * --memory under what the rest of the process holds (1 MB here): the
 * history keeps its least, two chunks, and knows what the rest took, for
 * the report to say the bound is under it.
 */
static void history_rest_over_bound(void)
{
	struct history h;
	struct history_entry e;

	history_init(&h, 0);
	h.rss_cap = (size_t)1 << 20;
	memset(&e, 0, sizeof(e));
	e.weight = 1;
	for (uint32_t i = 0; i < 400000; i++)
		history_add(&h, 1000000000ull + i * 10000ull, &e);
	CHECK(h.rss_capped && h.dropped_for_bytes > 0);
	CHECK(h.chunks <= 3);
	CHECK(h.rest_most > h.rss_cap);
	history_free(&h);
	CHECK(h.rest_most > h.rss_cap);	/* kept for the report */
}

/*
 * The rest of the process rising between two fits (a session's first
 * programs' tables): the next fit leaves that rise free again under
 * --memory, so one more like it stays within the bound; quiet, the room
 * kept for it is given back.  Before, the history took all but two
 * chunks and the next rise put the process over.
 */
static void history_rest_rise(void)
{
	const size_t rise = (size_t)4 << 20;
	struct history h;
	struct history_entry e;
	size_t rss;
	char *block;

	history_init(&h, 0);
	memset(&e, 0, sizeof(e));
	e.weight = 1;
	history_add(&h, 1000000000ull, &e);
	h.rss_cap = st_own_resident_bytes() + ((size_t)16 << 20);
	for (uint32_t i = 1; i < 1000000; i++)
		history_add(&h, 1000000000ull + i * 10000ull, &e);
	CHECK(h.rss_capped && h.dropped_for_bytes > 0);
	history_fit(&h);
	/* Fresh pages, not a heap's free ones already resident. */
	block = mmap(NULL, rise, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(block != MAP_FAILED);
	if (block == MAP_FAILED)
		return;
	memset(block, 1, rise);
	__asm__ volatile("" : : "r"(block) : "memory");	/* the pages touched, not elided */
	history_fit(&h);
	rss = st_own_resident_bytes();
	printf("rest rose %zu KB: kept free %zu KB, %zu KB under the bound\n", rise >> 10,
	       h.rest_rise >> 10, rss < h.rss_cap ? (h.rss_cap - rss) >> 10 : 0);
	CHECK(h.rest_rise >= rise - rise / 4);
	CHECK(rss + rise <= h.rss_cap);
	/* Kept for a rise like it minutes later (a build's next compile), then forgotten. */
	for (int i = 0; i < 150; i++)
		history_fit(&h);
	CHECK(h.rest_rise >= rise / 2);
	for (int i = 0; i < 600; i++)
		history_fit(&h);
	CHECK(h.rest_rise < rise / 4);
	munmap(block, rise);
	history_free(&h);
}

/*
 * A slow stream (1 kHz for 60 s: its chunks end at dt's 2.1 s reach, not
 * full) is held in about its samples' size: a chunk is sized by what the
 * one before it held.  Full-size chunks held 8 times that (386 bytes a
 * sample), and the history grew 0.37 MB a second whatever the rate.
 */
static void history_slow_stream(void)
{
	struct history h;
	struct history_entry e;
	double each;

	history_init(&h, 0);
	memset(&e, 0, sizeof(e));
	e.weight = 1;
	for (uint64_t i = 0; i < 60000; i++)
		history_add(&h, 1000000000ull + i * 1000000ull, &e);
	each = (double)(history_bytes(&h) - h.span_bytes) / (double)h.entries;
	CHECK_EQ_U64(h.entries, 60000);
	fprintf(stderr, "slow: %.1f bytes a sample in %zu chunks\n", each, h.chunks);
	CHECK(each > sizeof(struct history_entry) && each < 70);
	history_free(&h);
}

/*
 * A long range walked in 1 to 4 windows side by side gives the same
 * tables, timeline and bounds, and they match the samples counted here:
 * 300,000 samples (19 chunks) slightly out of time order, five threads,
 * two functions, weights, counters on some and multiplexing on others.
 */
static void range_windows(uint64_t one, uint64_t two)
{
	struct symbolizer *sy = symbolizer_create(true);
	const uint64_t us = 1000, t0 = 7000000000ull, from = t0 + 3000000 * us,
		       to = t0 + 27000000 * us;
	uint64_t want = 0, want_weight = 0, want_two = 0, want_tid[5] = { 0 };
	uint64_t bounds[5], first = UINT64_MAX;
	struct model m, r[4];
	struct model_row *rows;
	struct model_thread_row *tr;

	rows_found(one, two);
	rows_by_command();
	jit_named_late();
	model_init(&m, sy);
	m.ipc_cycles = 0;
	m.ipc_instructions = 1;
	symbols_read_proc_maps(getpid(), ingest_own_map, &m);
	for (uint64_t i = 0; i < 300000; i++) {
		uint64_t time = t0 + i * 100 * us + (i % 7) * 30 * us, w = i % 5 + 1;
		bool is_two = i % 3 == 0;

		sample(&m, is_two ? two : one, 100 + (uint32_t)(i % 5), time, w,
		       i % 2 ? 1000 : 0, (int)(i % 4) * 100, i % 11 == 0 ? ST_SAMPLE_MULTIPLEXED : 0);
		if (time >= from && time < to) {
			if (time < first)
				first = time;
			want++;
			want_weight += w;
			want_two += is_two;
			want_tid[i % 5]++;
		}
	}
	CHECK(m.history.chunks >= 16);
	history_split(&m.history, from, to, 4, bounds);
	CHECK(bounds[0] == from && bounds[4] == to);
	for (int i = 0; i < 4; i++)
		CHECK(bounds[i] <= bounds[i + 1]);
	CHECK(bounds[1] > from && bounds[3] < to);	/* four windows, none empty */
	CHECK_EQ_U64(history_first_time(&m.history, from, to), first);
	CHECK(first > from);	/* the out-of-order sample, not the range's start */
	for (unsigned p = 0; p < 4; p++) {
		size_t n;

		CHECK(model_range_split(&m, from, to, p + 1, &r[p]));
		CHECK_EQ_U64(r[p].samples, want);
		CHECK_EQ_U64(r[p].weight, want_weight);
		n = model_rows(&r[p], ST_SORT_SELF, false, &rows);
		CHECK(n == 2);
		for (size_t i = 0; i < n; i++)
			CHECK_EQ_U64(rows[i].samples, !strcmp(rows[i].sym->name, "model_fn_two")
				     ? want_two : want - want_two);
		model_rows_free(rows);
		n = model_thread_rows(&r[p], &tr);
		CHECK(n == 5);
		for (size_t i = 0; i < n; i++)
			CHECK_EQ_U64(tr[i].samples, want_tid[tr[i].tid - 100]);
		free(tr);
		if (p == 0)
			continue;
		/* Everything else as one window has it. */
		CHECK(r[p].first_time == r[0].first_time && r[p].last_time == r[0].last_time);
		CHECK(r[p].timeline_len == r[0].timeline_len && r[p].timeline_len > 200);
		CHECK(!memcmp(r[p].timeline, r[0].timeline, r[0].timeline_len * sizeof(*r[0].timeline)));
		CHECK(r[p].multiplexed == r[0].multiplexed && r[p].multiplexed > 0);
		n = model_rows(&r[p], ST_SORT_SELF, false, &rows);
		for (size_t i = 0; i < n; i++) {
			struct model_row *one_rows;
			size_t k = model_rows(&r[0], ST_SORT_SELF, false, &one_rows);

			for (size_t j = 0; j < k; j++)
				if (one_rows[j].sym == rows[i].sym)
					CHECK(fabs(one_rows[j].ipc - rows[i].ipc) < 1e-12 &&
					      rows[i].ipc > 0);
			model_rows_free(one_rows);
		}
		model_rows_free(rows);
	}
	for (unsigned p = 0; p < 4; p++)
		model_free(&r[p]);
	model_free(&m);
	symbolizer_destroy(sy);
}

static void ranges(uint64_t one, uint64_t two)
{
	struct symbolizer *sy = symbolizer_create(true);
	struct model_thread_row *tr;
	struct model_row *rows;
	struct model m, r;
	const uint64_t ms = 1000000, t0 = 5000 * ms;
	size_t n;

	model_init(&m, sy);
	m.ipc_cycles = 0;
	m.ipc_instructions = 1;
	symbols_read_proc_maps(getpid(), ingest_own_map, &m);
	for (uint64_t i = 0; i < 1000; i++)
		sample(&m, one, 1, t0 + i * ms, 100, 1000, 2000, 0);
	for (uint64_t i = 1000; i < 2000; i++)
		sample(&m, two, 2, t0 + i * ms, 100, 1000, 500, 0);
	CHECK_EQ_U64(m.history.entries, 2000);

	CHECK(model_range(&m, t0 + 500 * ms, t0 + 1500 * ms, &r));
	CHECK_EQ_U64(r.samples, 1000);
	CHECK_EQ_U64(r.weight, 100000);
	CHECK(r.history.entries == 0);	/* a range keeps no history of its own */
	n = model_rows(&r, ST_SORT_SELF, false, &rows);
	CHECK(n == 2);
	for (size_t i = 0; i < n; i++) {
		CHECK(rows[i].samples == 500 && fabs(rows[i].self - 50.0) < 1e-9);
		CHECK(fabs(rows[i].ipc - (!strcmp(rows[i].sym->name, "model_fn_one")
					  ? 2.0 : 0.5)) < 1e-9);
	}
	model_rows_free(rows);
	n = model_thread_rows(&r, &tr);
	CHECK(n == 2 && tr[0].samples == 500 && tr[1].samples == 500);
	free(tr);
	model_free(&r);

	/* One phase alone: only its function, all of the share. */
	CHECK(model_range(&m, t0 + 1200 * ms, t0 + 1300 * ms, &r));
	n = model_rows(&r, ST_SORT_SELF, false, &rows);
	CHECK(n == 1 && !strcmp(rows[0].sym->name, "model_fn_two") && rows[0].samples == 100);
	model_rows_free(rows);
	model_free(&r);
	/* The timeline: 20 columns of 100 ms, one thread in each half. */
	{
		struct timeline tl;
		int one_at;

		timeline_build(&m, t0, 100 * ms, 20, 4, &tl);
		CHECK(tl.ntids == 2);
		one_at = tl.tids[0] == 1 ? 0 : 1;
		for (size_t c = 0; c < 20; c++) {
			CHECK_EQ_U64(tl.col[c].samples, 100);
			CHECK_EQ_U64(tl.col[c].weight, 10000);
			CHECK_EQ_U64(tl.col[c].thread_samples[c < 10 ? one_at : !one_at], 100);
			CHECK_EQ_U64(tl.col[c].thread_samples[c < 10 ? !one_at : one_at], 0);
			CHECK_EQ_U64(tl.col[c].instructions, c < 10 ? 200000 : 50000);
		}
		timeline_free(&tl);
		/* Narrower than a sample apart, and beyond the samples: empty columns. */
		timeline_build(&m, t0 + 1990 * ms, ms / 2, 40, 0, &tl);
		for (size_t c = 0; c < 40; c++)
			CHECK_EQ_U64(tl.col[c].samples, c % 2 == 0 && c < 20 ? 1 : 0);
		CHECK(tl.ntids == 0);
		timeline_free(&tl);
	}
	/* Before the first sample and after the last: nothing. */
	CHECK(model_range(&m, 0, t0, &r) && r.samples == 0);
	model_free(&r);
	CHECK(model_range(&m, t0 + 2000 * ms, t0 + 9000 * ms, &r) && r.samples == 0);
	model_free(&r);
	model_free(&m);

	/* 10 s kept 3 s: chunks close every 2.1 s (their int32 offsets). */
	model_init(&m, sy);
	model_set_history(&m, 3000 * ms);
	symbols_read_proc_maps(getpid(), ingest_own_map, &m);
	for (uint64_t i = 0; i < 10000; i++)
		sample(&m, one, 1, t0 + i * ms, 1, 0, 0, 0);
	CHECK(m.history.dropped > 0);
	CHECK_EQ_U64(m.history.dropped + m.history.entries, 10000);
	CHECK(m.history.complete_from > t0 + 4000 * ms &&
	      m.history.complete_from <= t0 + 7000 * ms);
	CHECK(!model_range(&m, t0 + 1000 * ms, t0 + 10000 * ms, &r));
	CHECK_EQ_U64(r.samples, m.history.entries);
	model_free(&r);
	CHECK(model_range(&m, t0 + 7000 * ms, t0 + 10000 * ms, &r));
	CHECK_EQ_U64(r.samples, 3000);
	model_free(&r);
	CHECK_EQ_U64(m.samples, 10000);	/* the live totals keep everything */
	model_free(&m);

	/*
	 * The byte bound, lowered to 3 chunks and room for the spans: 100,000
	 * samples 10 us apart (one chunk of 16,384 is 164 ms) keep the newest
	 * 3 or 4 chunks whatever --history says, and say from when.
	 */
	model_init(&m, sy);
	model_set_history(&m, 3000 * ms);
	m.history.max_bytes = 3 * HISTORY_CHUNK_BYTES + 65536;
	symbols_read_proc_maps(getpid(), ingest_own_map, &m);
	for (uint64_t i = 0; i < 100000; i++)
		sample(&m, one, 1, t0 + i * 10000, 1, 0, 0, 0);
	CHECK(m.history.chunks <= 3);
	CHECK(history_bytes(&m.history) <= m.history.max_bytes);
	CHECK(m.history.span_bytes > 0);
	CHECK_EQ_U64(m.history.dropped + m.history.entries, 100000);
	CHECK(m.history.entries > 2 * HISTORY_CHUNK_ENTRIES);
	CHECK(m.history.complete_from > t0 + 100000 * 10000ull - 4 * HISTORY_CHUNK_ENTRIES * 10000ull);
	CHECK(!model_range(&m, t0, t0 + 100000 * 10000ull, &r));
	CHECK_EQ_U64(r.samples, m.history.entries);
	model_free(&r);
	model_free(&m);
	symbolizer_destroy(sy);
	history_span_bytes_bounded();
	history_slow_stream();
	history_rest_over_bound();
	history_rest_rise();
}

/* A wait's waker (0: an interrupt), as the pairing sends it before the wait. */
static void woke(struct model *m, uint32_t tid, uint64_t time, uint64_t waited, uint32_t waker)
{
	struct st_wake w = { { ST_REC_WAKE, ST_SOURCE_PERF, sizeof(w) }, 1, tid, time, waited,
			     1, waker, waker ? 0 : ST_WAKE_INTERRUPT, 0, "holder\033]" };

	model_ingest(m, &w);
}

/*
 * Who woke the waits: each wait's whole time (the wake's waited, not
 * its piece's period) to its waker, by thread and by the functions of
 * its chain; a wake not stamped as the wait after it (its own wait not
 * counted) goes to none; a piece of a wait going on takes none.
 */
static void wakers_of_waits(uint64_t one, uint64_t two)
{
	struct symbolizer *sy = symbolizer_create(true);
	const uint64_t ms = 1000000, t0 = 9000 * ms;
	const uint32_t sleep = ST_SAMPLE_WAITED | (uint32_t)ST_OFFCPU_SLEEP << ST_SAMPLE_OFFCPU_SHIFT;
	struct model_waker *w;
	struct model m;
	char name[48];
	uint32_t one_id, two_id, offset;
	bool unknown;
	size_t n;

	model_init(&m, sy);
	m.offcpu_event = 0;
	symbols_read_proc_maps(getpid(), ingest_own_map, &m);
	woke(&m, 5, t0 + ms, 3 * ms, 9);
	sample(&m, two, 5, t0 + ms, ms, 0, 0, sleep);		/* its last piece: 1 of 3 ms */
	woke(&m, 5, t0 + 2 * ms, 2 * ms, 0);
	sample(&m, one, 5, t0 + 2 * ms, 2 * ms, 0, 0, sleep);
	woke(&m, 6, t0 + 3 * ms, ms, 9);
	sample(&m, two, 6, t0 + 3 * ms, ms, 0, 0, sleep);
	woke(&m, 6, t0 + 4 * ms, 5 * ms, 7);			/* its wait never counted */
	sample(&m, two, 6, t0 + 5 * ms, ms, 0, 0, sleep);
	woke(&m, 6, t0 + 6 * ms, 5 * ms, 7);			/* a piece: no waker's */
	sample(&m, two, 6, t0 + 6 * ms, ms, 0, 0, sleep | ST_SAMPLE_WAIT_GOES_ON);
	CHECK_EQ_U64(m.woken_waits, 3);
	CHECK_EQ_U64(m.woken_ns, 6 * ms);
	n = model_wakers(&m, 0, UINT32_MAX, false, &w);
	CHECK(n == 2 && w[0].tid == 9 && w[0].pid == 1 && w[0].ns == 4 * ms && w[0].waits == 2 &&
	      w[1].tid == 0 && w[1].ns == 2 * ms && w[1].waits == 1);
	/* The waker names itself: its escape is not passed on to a terminal. */
	CHECK(n == 2 && !strchr(model_waker_name(&w[0], name, sizeof(name)), '\033') &&
	      !strncmp(name, "holder", 6) && strstr(name, "[9]"));
	CHECK(n == 2 && !strcmp(model_waker_name(&w[1], name, sizeof(name)), "[interrupt]"));
	free(w);
	one_id = symbolizer_lookup_id(sy, getpid(), one, false, &offset, &unknown);
	two_id = symbolizer_lookup_id(sy, getpid(), two, false, &offset, &unknown);
	n = model_wakers(&m, 0, one_id, false, &w);
	CHECK(n == 1 && w[0].tid == 0 && w[0].ns == 2 * ms);
	free(w);
	n = model_wakers(&m, 0, two_id, false, &w);
	CHECK(n == 1 && w[0].tid == 9 && w[0].ns == 4 * ms);
	free(w);
	n = model_wakers(&m, 6, UINT32_MAX, false, &w);
	CHECK(n == 1 && w[0].tid == 9 && w[0].ns == ms);
	free(w);
	n = model_wakers(&m, 0, UINT32_MAX, true, &w);
	CHECK(n == 3 && w[0].woken == 5 && w[0].tid == 9 && w[0].ns == 3 * ms &&
	      w[1].woken == 5 && w[1].tid == 0 && w[2].woken == 6 && w[2].ns == ms);
	free(w);
	/* The thread table: each thread's heaviest waker. */
	{
		struct model_thread_row *tr;
		size_t nt = model_thread_rows(&m, &tr), five = nt, six = nt;

		for (size_t i = 0; i < nt; i++) {
			five = tr[i].tid == 5 ? i : five;
			six = tr[i].tid == 6 ? i : six;
		}
		CHECK(five < nt && tr[five].woken && tr[five].woke_most.tid == 9 &&
		      tr[five].woke_most.ns == 3 * ms);
		CHECK(six < nt && tr[six].woken && tr[six].woke_most.tid == 9 &&
		      tr[six].woke_most.ns == ms);
		free(tr);
	}
	model_zero(&m);
	CHECK(model_wakers(&m, 0, UINT32_MAX, false, &w) == 0 && m.woken_waits == 0);
	free(w);
	model_free(&m);
	symbolizer_destroy(sy);
}

/*
 * --off-cpu in a time range: clock samples (event 0) all along, waits
 * (event 1, period the ns off the CPU) in two, 2 ms sleeps in the first
 * 100 ms and 3 ms disk waits in the next.  The range of the second half
 * has its waits alone: under the function, in the thread's columns, and
 * counted; the whole has both.  WALL: each function's clock time and
 * waits, the range's own.
 */
static void waits_in_ranges(uint64_t one, uint64_t two)
{
	struct symbolizer *sy = symbolizer_create(true);
	const uint64_t ms = 1000000, t0 = 7000 * ms;
	const uint32_t waited = 1u << ST_SAMPLE_EVENT_SHIFT | ST_SAMPLE_WAITED;
	struct model_thread_row *tr;
	struct model_row *rows;
	struct model m, r;
	uint32_t two_id = UINT32_MAX;
	size_t n;

	model_init(&m, sy);
	m.nsampled = 2;
	m.clock_event = 0;
	m.offcpu_event = 1;
	symbols_read_proc_maps(getpid(), ingest_own_map, &m);
	for (uint64_t i = 0; i < 200; i++)
		sample(&m, one, 1, t0 + i * ms, ms, 0, 0, 0);
	for (uint64_t i = 0; i < 20; i++)
		sample(&m, two, 1, t0 + i * 10 * ms + ms / 2, i < 10 ? 2 * ms : 3 * ms, 0, 0,
		       waited | (uint32_t)(i < 10 ? ST_OFFCPU_SLEEP : ST_OFFCPU_DISK)
		       << ST_SAMPLE_OFFCPU_SHIFT);
	n = model_rows(&m, ST_SORT_SELF, false, &rows);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(rows[i].sym->name, "model_fn_two"))
			two_id = rows[i].sym->id;
	model_rows_free(rows);
	CHECK(two_id != UINT32_MAX);
	CHECK_EQ_U64(model_waited_under(&m, two_id), 50 * ms);
	CHECK_EQ_U64(m.waits, 20);
	/* The clock's 200 ms under model_fn_one alone; none under the waits' function. */
	CHECK_EQ_U64(model_ran_under(&m, two_id), 0);
	n = model_rows(&m, ST_SORT_WALL, false, &rows);
	CHECK(n == 2 && !strcmp(rows[0].sym->name, "model_fn_one") &&
	      model_ran_under(&m, rows[0].sym->id) == 200 * ms && fabs(rows[0].wall - 0.2) < 1e-12);
	model_rows_free(rows);
	/* A second's piece of a wait going on (at 250 ms): its time, not one more wait. */
	sample(&m, two, 1, t0 + 250 * ms, 4 * ms, 0, 0,
	       waited | ST_SAMPLE_WAIT_GOES_ON | (uint32_t)ST_OFFCPU_SLEEP << ST_SAMPLE_OFFCPU_SHIFT);
	CHECK_EQ_U64(model_waited_under(&m, two_id), 54 * ms);
	CHECK_EQ_U64(m.waits, 20);
	CHECK(model_range(&m, t0 + 200 * ms, t0 + 300 * ms, &r));
	CHECK_EQ_U64(r.waits, 0);
	CHECK_EQ_U64(model_waited_under(&r, two_id), 4 * ms);
	model_free(&r);

	CHECK(model_range(&m, t0 + 100 * ms, t0 + 200 * ms, &r));
	CHECK(r.offcpu_event == 1 && r.clock_event == 0);
	CHECK_EQ_U64(r.waits, 10);
	CHECK_EQ_U64(model_waited_under(&r, two_id), 30 * ms);
	CHECK_EQ_U64(r.waited[MODEL_WAIT_DISK], 30 * ms);
	CHECK_EQ_U64(r.waited[MODEL_WAIT_SLEEP], 0);
	n = model_rows(&r, ST_SORT_OFFCPU, false, &rows);
	CHECK(n == 2 && !strcmp(rows[0].sym->name, "model_fn_two"));
	CHECK(fabs(rows[0].waited_under - 0.030) < 1e-12);
	CHECK(rows[1].waited_under == 0);
	model_rows_free(rows);
	/* WALL: the range's clock time under each function and its waits; by it, the clock's first. */
	n = model_rows(&r, ST_SORT_WALL, false, &rows);
	CHECK(n == 2 && !strcmp(rows[0].sym->name, "model_fn_one"));
	CHECK(fabs(rows[0].wall - 0.100) < 1e-12 && fabs(rows[1].wall - 0.030) < 1e-12);
	model_rows_free(rows);
	n = model_thread_rows(&r, &tr);
	CHECK(n == 1 && tr[0].tid == 1);
	CHECK(isnan(tr[0].waited[MODEL_WAIT_SLEEP]));
	CHECK(fabs(tr[0].waited[MODEL_WAIT_DISK] - 0.030) < 1e-12);
	CHECK(fabs(tr[0].on_cpu - 0.100) < 1e-12 && fabs(tr[0].wall - 0.130) < 1e-12);
	free(tr);
	model_free(&r);
	/* Each event's own tree: the clock's 100 samples, the waits weighed by their 30 ms. */
	{
		struct cct c;

		CHECK(model_event_tree(&m, 0, t0 + 100 * ms, t0 + 200 * ms, &c));
		CHECK(!c.weighed && c.samples == 100 && cct_whole(&c) == 100);
		cct_free(&c);
		CHECK(model_event_tree(&m, 1, t0 + 100 * ms, t0 + 200 * ms, &c));
		CHECK(c.weighed && c.samples == 10 && cct_whole(&c) == 30 * ms);
		cct_free(&c);
		CHECK(!model_event_tree(&m, 2, 0, UINT64_MAX, &c));
	}
	/*
	 * The timeline: waits spread over the columns they cover, by why, not
	 * CPU time; the clock's samples are.  The first wait began before the
	 * window (0.5 ms of it in); a wait that ends past a window's end
	 * counts its part in it.
	 */
	{
		struct timeline tl;
		uint64_t sleep = 0, disk = 0, ran = 0, weight = 0, samples = 0;

		timeline_build(&m, t0, 10 * ms, 20, 4, &tl);
		CHECK(tl.waits && tl.ntids == 1 && tl.tids[0] == 1);
		for (size_t c = 0; c < 20; c++) {
			sleep += tl.col[c].thread_off[0][TIMELINE_SLEEP];
			disk += tl.col[c].thread_off[0][TIMELINE_DISK];
			ran += tl.col[c].thread_ran[0];
			weight += tl.col[c].weight;
			samples += tl.col[c].samples;
		}
		CHECK_EQ_U64(sleep, 18 * ms + ms / 2);
		CHECK_EQ_U64(disk, 30 * ms);
		CHECK_EQ_U64(ran, 200 * ms);
		CHECK_EQ_U64(weight, 200 * ms);
		CHECK_EQ_U64(samples, 220);
		/* Column 12 (120-130 ms): 0.5 ms of the wait of 117.5-120.5, 2.5 of 127.5-130.5. */
		CHECK_EQ_U64(tl.col[12].thread_off[0][TIMELINE_DISK], 3 * ms);
		CHECK_EQ_U64(tl.col[19].thread_off[0][TIMELINE_DISK], ms / 2);	/* 190-190.5 */
		timeline_free(&tl);
		timeline_build(&m, t0, 10 * ms, 10, 4, &tl);
		CHECK_EQ_U64(tl.col[9].thread_off[0][TIMELINE_DISK], 5 * ms / 2);
		timeline_free(&tl);
	}
	/* Split across threads, the same sums. */
	CHECK(model_range_split(&m, t0, t0 + 200 * ms, 3, &r));
	CHECK_EQ_U64(r.waits, 20);
	CHECK_EQ_U64(model_waited_under(&r, two_id), 50 * ms);
	CHECK_EQ_U64(r.waited[MODEL_WAIT_SLEEP], 20 * ms);
	model_free(&r);
	model_free(&m);
	symbolizer_destroy(sy);
}

struct brute {
	uint64_t from, to, samples, weight, cycles;
	uint32_t tid;
	uint64_t tid_samples;
};

static void brute_count(uint64_t time, const struct history_entry *e, void *arg)
{
	struct brute *b = arg;

	(void)time;
	b->samples++;
	b->weight += e->weight;
	if (e->flags & HISTORY_COUNTERS)
		b->cycles += e->cycles;
	if (e->tid == b->tid)
		b->tid_samples++;
}

/*
 * The timeline from the history's 100 ms spans agrees with the samples
 * walked one by one: 24 threads (more than the rows), samples a little
 * out of order, weights and counters varying, and a history bound that
 * dropped chunks in the middle of a span, so the window's start is
 * walked and the rest comes from spans.
 */
static void timeline_spans(uint64_t one)
{
	struct symbolizer *sy = symbolizer_create(true);
	const uint64_t ms = 1000000, t0 = 7000 * ms, step = 400 * ms;
	uint64_t rng = 12345, from;
	struct timeline tl;
	struct model m;

	model_init(&m, sy);
	m.ipc_cycles = 0;
	m.ipc_instructions = 1;
	model_set_history(&m, 6000 * ms);
	symbols_read_proc_maps(getpid(), ingest_own_map, &m);
	for (uint64_t i = 0; i < 40000; i++) {
		uint64_t jitter;

		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		jitter = rng % 3 * 100000;	/* up to 0.2 ms late */
		sample(&m, one, (uint32_t)(1 + (rng >> 8) % 24 * ((rng >> 20) % 24) / 24),
		       t0 + i * ms / 4 + jitter, 1 + rng % 1000, 100 + rng % 7, 50, 0);
	}
	CHECK(m.history.dropped > 0);
	CHECK(m.history.complete_from % HISTORY_SPAN_NS != 0);
	from = (m.history.complete_from - 2000 * ms) / step * step;
	timeline_build(&m, from, step, 20, 16, &tl);
	CHECK_EQ_U64(tl.ntids, 16);
	for (size_t c = 0; c < 20; c++) {
		for (size_t k = 0; k < tl.ntids; k++) {
			struct brute b = { 0 };

			b.tid = (uint32_t)tl.tids[k];
			history_each(&m.history, from + c * step, from + (c + 1) * step,
				     brute_count, &b);
			CHECK_EQ_U64(tl.col[c].samples, b.samples);
			CHECK_EQ_U64(tl.col[c].weight, b.weight);
			CHECK_EQ_U64(tl.col[c].cycles, b.cycles);
			CHECK_EQ_U64(tl.col[c].thread_samples[k], b.tid_samples);
		}
	}
	/* The rows are the heaviest threads of the window. */
	for (size_t k = 1; k < tl.ntids; k++) {
		struct brute a = { 0 }, b = { 0 };

		a.tid = (uint32_t)tl.tids[k - 1];
		b.tid = (uint32_t)tl.tids[k];
		history_each(&m.history, from, from + 20 * step, brute_count, &a);
		history_each(&m.history, from, from + 20 * step, brute_count, &b);
		CHECK(a.tid_samples >= b.tid_samples);
	}
	timeline_free(&tl);
	model_free(&m);
	symbolizer_destroy(sy);
}

/*
 * Hostile or just busy targets: `z` before any sample; a child's sample
 * that arrives before its FORK record; 20,000 short-lived children whose
 * state is freed once they exit; 100,000 processes that are only ever
 * seen in one sample each.
 */
static void hostile(uint64_t one)
{
	struct symbolizer *sy = symbolizer_create(true);
	struct symbolizer_stats st;
	struct model m;
	struct model_row *rows;
	uint64_t t0 = 5000000000ull;
	uint32_t me = (uint32_t)getpid();
	size_t n;

	model_init(&m, sy);
	model_zero(&m);		/* undefined behaviour once (memset of NULL) */
	CHECK_EQ_U64(m.samples, 0);
	symbols_read_proc_maps(getpid(), ingest_own_map, &m);

	/* The child's sample first, its FORK after: still model_fn_one. */
	sample_of(&m, 4000001, one, 4000001, t0, 1, 0, 0, 0);
	CHECK_EQ_U64(m.samples, 0);		/* held */
	task(&m, ST_REC_FORK, 4000001, me, t0 + 1000);
	CHECK_EQ_U64(m.samples, 1);
	n = model_rows(&m, ST_SORT_SELF, false, &rows);
	CHECK(n == 1 && !strcmp(rows[0].sym->name, "model_fn_one"));
	model_rows_free(rows);
	/* One whose FORK never comes is taken after 100 ms, unknown. */
	sample_of(&m, 4000002, one, 4000002, t0 + 2000, 1, 0, 0, 0);
	sample(&m, one, me, t0 + 2000 + MODEL_HOLD_NS, 1, 0, 0, 0);
	CHECK_EQ_U64(m.samples, 3);
	CHECK_EQ_U64(m.unknown, 1);

	/* 20,000 children, each forks, is sampled and exits, 1 ms apart. */
	for (uint32_t i = 0; i < 20000; i++) {
		uint32_t pid = 5000000 + i;
		uint64_t t = t0 + 1000000000ull + i * 1000000ull;

		task(&m, ST_REC_FORK, pid, me, t);
		sample_of(&m, pid, one, pid, t + 10, 1, 0, 0, 0);
		task(&m, ST_REC_EXIT, pid, me, t + 20);
	}
	symbolizer_stats(sy, &st);
	/* Those that exited in the last second are kept; the rest are gone. */
	CHECK(st.spaces < 1100);
	CHECK(HASH_COUNT(m.threads) < 1100);
	CHECK_EQ_U64(m.nthreads, 20000 + 3);
	CHECK_EQ_U64(model_live_threads(&m), 3);
	CHECK_EQ_U64(m.unknown, 1);		/* every child resolved */
	CHECK(st.files < 64);			/* shared, not per child */

	/* 100,000 processes seen once: each costs its map alone (none). */
	for (uint32_t i = 0; i < 100000; i++)
		sample_of(&m, 6000000 + i, one, 6000000 + i,
			  t0 + 30000000000ull + i * 1000ull, 1, 0, 0, 0);
	model_flush(&m);
	CHECK_EQ_U64(m.samples, 3 + 20000 + 100000);
	model_free(&m);
	symbolizer_destroy(sy);
}

/*
 * The kernel walker's check pairs a sample's two walks by thread, pc
 * and stack pointer: two samples in one loop of a leaf under two
 * callers of the same frame size share all three, and their walks may
 * come in either order; each is paired with the one of its frames.
 */
static void check_kernel_walk_pairs(void)
{
	struct model m;
	uint64_t callers[2] = { 0x13b9, 0x1479 };

	memset(&m, 0, sizeof(m));
	for (int i = 0; i < 2; i++) {
		uint64_t buf[(sizeof(struct st_sample) + 7) / 8 + 4] = { 0 };
		struct st_sample *s = (struct st_sample *)buf;
		uint64_t *chain = (uint64_t *)(s + 1);

		s->h.type = ST_REC_SAMPLE;
		s->h.size = (uint16_t)(sizeof(*s) + 4 * sizeof(uint64_t));
		s->tid = 5;
		s->nchain = 2;
		chain[0] = 0x1376;
		chain[1] = callers[i];
		chain[2] = 0x7000;	/* the stack pointer */
		chain[3] = 0;		/* no kernel frames */
		model_keep_kernel_check(&m, s);
	}
	/* The walks here in the other order. */
	for (int i = 1; i >= 0; i--) {
		struct st_sample s = { .tid = 5 };
		struct unwound_frame f[2] = { { 0x1376, 0x7000 }, { callers[i], 0x7008 } };

		model_check_kernel_walk(&m, &s, f, 2, false);
	}
	CHECK_EQ_U64(m.kernel_check_same, 2);
	CHECK_EQ_U64(m.kernel_check_differ, 0);
	model_free_kernel_checks(&m);
}

int main(void)
{
	struct symbolizer *sy = symbolizer_create(true);
	struct model m;
	struct model_row *rows;
	uint64_t one = (uint64_t)(uintptr_t)&model_fn_one + 1;
	uint64_t two = (uint64_t)(uintptr_t)&model_fn_two + 1;
	uint64_t t0 = 1000000000ull;
	struct st_lost lost = { { ST_REC_LOST, ST_SOURCE_PERF, sizeof(lost) }, 5, 0 };
	size_t n;

	check_kernel_walk_pairs();
	model_init(&m, sy);
	m.ipc_cycles = 0;
	m.ipc_instructions = 1;
	symbols_read_proc_maps(getpid(), ingest_own_map, &m);

	/* 30 samples in one (period 100), 10 in two (period 100), and 20 in
	 * two with period 50: weight 3000 : 2000. */
	for (int i = 0; i < 30; i++)
		sample(&m, one, 1, t0 + (uint64_t)i * 50000000ull, 100, 1000, 2000, 0);
	for (int i = 0; i < 10; i++)
		sample(&m, two, 2, t0 + (uint64_t)i * 50000000ull, 100, 1000, 500, 0);
	for (int i = 0; i < 20; i++)
		sample(&m, two, 2, t0 + (uint64_t)i * 50000000ull, 50, 0, 0, 0);
	/* A multiplexed interval: counted as a sample, kept out of IPC. */
	sample(&m, one, 1, t0, 100, 1000, 9000, ST_SAMPLE_MULTIPLEXED);
	/* Two addresses nothing explains. */
	sample(&m, 0x10, 1, t0, 100, 0, 0, 0);
	sample(&m, 0x20, 1, t0, 100, 0, 0, 0);
	model_ingest(&m, &lost);

	CHECK_EQ_U64(m.samples, 63);
	CHECK_EQ_U64(m.unknown, 2);
	CHECK_EQ_U64(m.kernel_lost, 5);
	CHECK_EQ_U64(m.multiplexed, 1);
	/* The session's IPC (--check's): the scheduled intervals' sums alone. */
	CHECK_EQ_U64(m.cycles, 40 * 1000);
	CHECK_EQ_U64(m.instructions, 30 * 2000 + 10 * 500);
	CHECK(m.nthreads == 2);

	n = model_rows(&m, ST_SORT_SELF, false, &rows);
	CHECK(n == 3);
	CHECK(!strcmp(rows[0].sym->name, "model_fn_one"));
	CHECK(rows[0].samples == 31);
	CHECK(fabs(rows[0].self - 100.0 * 3100 / 5300) < 1e-9);
	CHECK(fabs(rows[0].ipc - 2.0) < 1e-9);
	CHECK(!strcmp(rows[1].sym->name, "model_fn_two"));
	CHECK(fabs(rows[1].ipc - 0.5) < 1e-9);
	CHECK(rows[2].sym->unknown && rows[2].samples == 2);
	model_rows_free(rows);

	n = model_rows(&m, ST_SORT_SELF, true, &rows);
	CHECK(rows[0].sym->unknown);
	model_rows_free(rows);

	/*
	 * Per thread: tid 1 has 33 samples (weight 3300: 31 in one, 2
	 * unknown; IPC 2 from its 30 counted ones), tid 2 has 30 (weight
	 * 2000, all in two, IPC 0.5).
	 */
	{
		struct model_thread_row *tr;
		size_t nt = model_thread_rows(&m, &tr);

		CHECK(nt == 2);
		CHECK(tr[0].tid == 1 && tr[0].samples == 33);
		CHECK(fabs(tr[0].share - 100.0 * 3300 / 5300) < 1e-9);
		CHECK(fabs(tr[0].ipc - 2.0) < 1e-9);
		CHECK(tr[1].tid == 2 && tr[1].samples == 30);
		CHECK(fabs(tr[1].ipc - 0.5) < 1e-9);
		struct model_thread_top top[3];

		CHECK(tr[0].top && !strcmp(tr[0].top->name, "model_fn_one"));
		CHECK(model_thread_top(&m, 1, top, 3) == 2);	/* the unknown addresses are one [unknown] */
		CHECK(!strcmp(top[0].sym->name, "model_fn_one") && top[0].samples == 31);
		CHECK(top[1].sym->unknown && top[1].samples == 2);
		CHECK(fabs(top[0].share - 100.0 * 31 / 33) < 1e-9);
		CHECK(tr[1].top && !strcmp(tr[1].top->name, "model_fn_two"));
		CHECK(model_thread_top(&m, 2, top, 1) == 1 && !strcmp(top[0].sym->name, "model_fn_two"));
		CHECK(model_thread_top(&m, 99, top, 1) == 0);
		free(tr);
	}
	n = model_rows(&m, ST_SORT_IPC, false, &rows);
	CHECK(!strcmp(rows[0].sym->name, "model_fn_one"));
	CHECK(isnan(rows[n - 1].ipc));	/* no IPC sorts last */
	model_rows_free(rows);
	n = model_rows(&m, ST_SORT_SYMBOL, false, &rows);
	CHECK(!strcmp(rows[0].sym->name, "[unknown]"));
	model_rows_free(rows);

	/* 63 samples over 1.45 s, 40 of them per second at the end. */
	CHECK(model_rate(&m) > 30 && model_rate(&m) < 70);

	model_zero(&m);
	CHECK_EQ_U64(m.samples, 0);
	n = model_rows(&m, ST_SORT_SELF, false, &rows);
	CHECK(n == 0);
	model_rows_free(rows);
	CHECK(model_fn_one() + model_fn_two() == 3);
	model_free(&m);
	symbolizer_destroy(sy);
	hostile(one);
	separate_events(one, two);
	tables_outlive_model(one);
	churn_folds_rows(one, two, 0);
	churn_folds_rows(one, two, (size_t)40 << 20);
	commands_fold_bounded(one, two);
	memos_shared_by_symbols();
	ranges(one, two);
	waits_in_ranges(one, two);
	wakers_of_waits(one, two);
	range_windows(one, two);
	timeline_spans(one);
	return check_done("test_model");
}

