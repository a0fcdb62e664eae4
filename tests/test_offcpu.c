/*
 * test_offcpu.c - --off-cpu's parts without a kernel: sched_switch's
 * prev_state found in a format (this kernel's, an older one's, hostile
 * ones), a tracefs of files, and the pairing of switch-outs with the
 * moment their thread runs again over constructed record streams.
 */
#include "check.h"
#include "ring/record.h"
#include "sampler/offcpu.h"
#include "sampler/offcpu_before.h"
#include "sampler/perf_tracing.h"

#include <errno.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char format_6x[] =
	"name: sched_switch\nID: 372\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"prev_comm=%s prev_state=%s\", REC->prev_comm, REC->prev_state\n";

static void test_format_fields(void)
{
	uint32_t at = 0, size = 0;
	char text[2048];

	CHECK(perf_tracing_field(format_6x, strlen(format_6x), "prev_state", &at, &size));
	CHECK(at == 32 && size == 8);
	CHECK(perf_tracing_field(format_6x, strlen(format_6x), "prev_comm", &at, &size));
	CHECK(at == 8 && size == 16);
	CHECK(perf_tracing_field(format_6x, strlen(format_6x), "next_pid", &at, &size));
	CHECK(at == 56 && size == 4);
	/* A name that only ends another's (pid of prev_pid), or absent: none. */
	CHECK(!perf_tracing_field(format_6x, strlen(format_6x), "pid", &at, &size));
	CHECK(!perf_tracing_field(format_6x, strlen(format_6x), "state", &at, &size));
	CHECK(!perf_tracing_field(format_6x, strlen(format_6x), "next_prio", &at, &size));
	/* Cut before its size: none, never read past the length given. */
	{
		const char *cut = strstr(format_6x, "size:8");

		CHECK(!perf_tracing_field(format_6x, (size_t)(cut - format_6x), "prev_state", &at,
					  &size));
	}
	/* Hostile numbers: no digits, no semicolon, a huge offset (bounded, not wrapped). */
	snprintf(text, sizeof(text), "\tfield:long prev_state;\toffset:x;\tsize:8;\n");
	CHECK(!perf_tracing_field(text, strlen(text), "prev_state", &at, &size));
	snprintf(text, sizeof(text), "\tfield:long prev_state;\toffset:32\tsize:8;\n");
	CHECK(!perf_tracing_field(text, strlen(text), "prev_state", &at, &size));
	snprintf(text, sizeof(text),
		 "\tfield:long prev_state;\toffset:99999999999999999999;\tsize:8;\n");
	CHECK(!perf_tracing_field(text, strlen(text), "prev_state", &at, &size));
	/* No field: prefix, no declaration's semicolon. */
	snprintf(text, sizeof(text), "\tlong prev_state;\toffset:32;\tsize:8;\n\tfield:prev_state");
	CHECK(!perf_tracing_field(text, strlen(text), "prev_state", &at, &size));
}

/* A tracefs of files: this kernel's, one without prev_state, an unreadable one. */
static void test_tracefs(void)
{
	char dir[] = "/tmp/test_offcpu.XXXXXX", path[256], why[320];
	struct offcpu_tracepoint tp;
	FILE *f;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/events", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/events/sched", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/events/sched/sched_switch", dir);
	mkdir(path, 0700);
	/* No files yet: tracefs shows no tracepoint, and says how to mount it. */
	CHECK(offcpu_tracepoint_find(dir, &tp, why, sizeof(why)) == -ENOENT);
	CHECK(strstr(why, "mount -t tracefs") != NULL);
	snprintf(path, sizeof(path), "%s/events/sched/sched_switch/id", dir);
	f = fopen(path, "w");
	fputs("372\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/events/sched/sched_switch/format", dir);
	f = fopen(path, "w");
	fputs(format_6x, f);
	fclose(f);
	CHECK(offcpu_tracepoint_find(dir, &tp, why, sizeof(why)) == 0);
	CHECK(tp.id == 372 && tp.state_at == 32 && tp.state_size == 8);
	/* A format whose prev_state is of no size we read: refused, said. */
	f = fopen(path, "w");
	fputs("\tfield:char prev_state[3];\toffset:32;\tsize:3;\tsigned:0;\n", f);
	fclose(f);
	CHECK(offcpu_tracepoint_find(dir, &tp, why, sizeof(why)) == -ENOTSUP);
	CHECK(strstr(why, "prev_state") != NULL);
	unlink(path);
	snprintf(path, sizeof(path), "%s/events/sched/sched_switch/id", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/events/sched/sched_switch", dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/events/sched", dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/events", dir);
	rmdir(path);
	rmdir(dir);
}

/* What the pairs passed on. */
struct emitted {
	int n;
	_Alignas(8) unsigned char rec[24][128];
};

static void keep(void *arg, const void *rec, size_t len)
{
	struct emitted *e = arg;

	if (e->n < 24 && len <= sizeof(e->rec[0]))
		memcpy(e->rec[e->n], rec, len);
	e->n++;
}

static void sample(struct offcpu_pairs *p, struct emitted *e, uint32_t tid, uint64_t t,
		   unsigned why)
{
	_Alignas(8) unsigned char buf[sizeof(struct st_sample) + 16];
	struct st_sample *s = (void *)buf;

	memset(buf, 0, sizeof(buf));
	s->h = (struct st_header){ ST_REC_SAMPLE, ST_SOURCE_PERF, sizeof(buf) };
	s->pid = 1;
	s->tid = tid;
	s->time = t;
	s->period = 1;
	s->nchain = 2;
	s->data[0] = 0x1000 + tid;
	s->data[1] = 0x2000;
	s->flags = why << ST_SAMPLE_OFFCPU_SHIFT;
	offcpu_pairs_take(p, buf, sizeof(buf), keep, e);
}

static void record(struct offcpu_pairs *p, struct emitted *e, uint16_t type, uint32_t tid,
		   uint64_t t, uint32_t flags)
{
	_Alignas(8) unsigned char buf[64];

	memset(buf, 0, sizeof(buf));
	if (type == ST_REC_SWITCH) {
		struct st_switch *w = (void *)buf;

		*w = (struct st_switch){ { type, ST_SOURCE_PERF, sizeof(*w) }, 1, tid, t, flags, 0 };
		offcpu_pairs_take(p, buf, sizeof(*w), keep, e);
	} else {
		struct st_task *k = (void *)buf;

		*k = (struct st_task){ { type, ST_SOURCE_PERF, sizeof(*k) }, 1, tid, 1, 1, t };
		offcpu_pairs_take(p, buf, sizeof(*k), keep, e);
	}
}

static const struct st_sample *nth(const struct emitted *e, int i)
{
	return (const void *)e->rec[i];
}

static void test_pairs(void)
{
	struct offcpu_pairs p = { 0 };
	struct emitted e = { 0 };

	/* Out at 100, in at 350: one sample, 250 ns, stamped 350, its chain kept. */
	sample(&p, &e, 9, 100, ST_OFFCPU_SLEEP);
	record(&p, &e, ST_REC_SWITCH, 9, 120, ST_SWITCH_OUT);	/* its own out: nothing */
	CHECK(e.n == 0 && p.nheld == 1);
	record(&p, &e, ST_REC_SWITCH, 9, 350, 0);
	CHECK(e.n == 1 && p.nheld == 0 && p.paired == 1);
	CHECK(nth(&e, 0)->period == 250 && nth(&e, 0)->time == 350 && nth(&e, 0)->tid == 9);
	CHECK(nth(&e, 0)->nchain == 2 && nth(&e, 0)->data[0] == 0x1009);
	CHECK(ST_SAMPLE_OFFCPU(nth(&e, 0)->flags) == ST_OFFCPU_SLEEP &&
	      (nth(&e, 0)->flags & ST_SAMPLE_WAITED));
	/* Another thread's switch in ends nothing; an ordinary sample passes on. */
	sample(&p, &e, 10, 400, ST_OFFCPU_DISK);
	record(&p, &e, ST_REC_SWITCH, 11, 450, 0);
	CHECK(e.n == 1);
	sample(&p, &e, 11, 460, ST_OFFCPU_NONE);
	CHECK(e.n == 2 && nth(&e, 1)->tid == 11 && nth(&e, 1)->period == 1);
	/* Its thread sampled running, its switch in lost: ended there. */
	sample(&p, &e, 10, 900, ST_OFFCPU_NONE);
	CHECK(e.n == 4 && nth(&e, 2)->tid == 10 && nth(&e, 2)->period == 500 &&
	      ST_SAMPLE_OFFCPU(nth(&e, 2)->flags) == ST_OFFCPU_DISK);
	CHECK(nth(&e, 3)->tid == 10 && !ST_SAMPLE_OFFCPU(nth(&e, 3)->flags));
	/* Two outs, no in between: the first still a sample, weighing nothing, counted unpaired. */
	sample(&p, &e, 12, 1000, ST_OFFCPU_SLEEP);
	sample(&p, &e, 12, 1100, ST_OFFCPU_SLEEP);
	CHECK(p.unpaired == 1 && p.nheld == 1 && e.n == 5);
	CHECK(nth(&e, 4)->tid == 12 && nth(&e, 4)->period == 1 && nth(&e, 4)->time == 1100 &&
	      (nth(&e, 4)->flags & ST_SAMPLE_WAITED));
	/* A wait still going on: passed on up to 2100, held from there. */
	offcpu_pairs_split(&p, 2100, 500, keep, &e);
	CHECK(e.n == 6 && nth(&e, 5)->period == 1000 && nth(&e, 5)->time == 2100 &&
	      p.split == 1 && p.nheld == 1);
	/* The piece says the wait goes on (its time, not one more wait); the end does not. */
	CHECK((nth(&e, 5)->flags & (ST_SAMPLE_WAITED | ST_SAMPLE_WAIT_GOES_ON)) ==
	      (ST_SAMPLE_WAITED | ST_SAMPLE_WAIT_GOES_ON));
	offcpu_pairs_split(&p, 2200, 500, keep, &e);	/* 100 ns on: not yet */
	CHECK(e.n == 6);
	record(&p, &e, ST_REC_SWITCH, 12, 2600, 0);
	CHECK(e.n == 7 && nth(&e, 6)->period == 500 && nth(&e, 6)->time == 2600);
	CHECK(!(nth(&e, 6)->flags & ST_SAMPLE_WAIT_GOES_ON));
	/* A switch in before its out (records out of order): unweighed, unpaired. */
	sample(&p, &e, 13, 3000, ST_OFFCPU_SLEEP);
	record(&p, &e, ST_REC_SWITCH, 13, 2900, 0);
	CHECK(e.n == 8 && nth(&e, 7)->period == 1 && p.unpaired == 2 && p.nheld == 0);
	/* A thread's exit with its wait held: the wait unweighed, then the exit. */
	sample(&p, &e, 14, 3100, ST_OFFCPU_SLEEP);
	record(&p, &e, ST_REC_EXIT, 14, 3200, 0);
	CHECK(e.n == 10 && p.nheld == 0 && p.unpaired == 3);
	CHECK(nth(&e, 8)->tid == 14 && nth(&e, 8)->period == 1 && nth(&e, 8)->time == 3200);
	CHECK(((const struct st_header *)e.rec[9])->type == ST_REC_EXIT);
	/* Its last switch (dead): passed on at once, weighing nothing, not lost. */
	sample(&p, &e, 15, 3300, ST_OFFCPU_EXITED);
	CHECK(p.nheld == 0 && e.n == 11 && nth(&e, 10)->period == 1 && p.unpaired == 3);
	/* A wait weighed already (perf record --off-cpu's): passed on as it is, not held. */
	{
		_Alignas(8) unsigned char buf[sizeof(struct st_sample)];
		struct st_sample *s = (void *)buf;

		memset(buf, 0, sizeof(buf));
		s->h = (struct st_header){ ST_REC_SAMPLE, ST_SOURCE_PERF, sizeof(buf) };
		s->tid = 17;
		s->time = 3360;
		s->period = 5000;
		s->flags = ST_SAMPLE_WAITED | (uint32_t)ST_OFFCPU_OTHER << ST_SAMPLE_OFFCPU_SHIFT;
		offcpu_pairs_take(&p, buf, sizeof(buf), keep, &e);
		CHECK(e.n == 12 && nth(&e, 11)->period == 5000 && p.nheld == 0);
	}
	/* Freed with waits held (ASan: nothing leaks). */
	sample(&p, &e, 16, 3400, ST_OFFCPU_RUNNABLE);
	offcpu_pairs_free(&p);
	CHECK(p.nheld == 0);
}

/*
 * Switches the kernel's walker let out with their copies: each one's
 * state told in a switch record beside it (ST_SWITCH_TOLD; the kernel
 * stamps it just after), joined to the thread's off-CPU sample marked
 * ST_SAMPLE_TOLD_APART within a millisecond; told for none, "other".  The kernel's walk of a switch beside its copy
 * (SHIMTOP_UNWIND_CHECK) passes on unheld and ends no wait.
 */
static void told(struct offcpu_pairs *p, struct emitted *e, uint32_t tid, uint64_t t,
		 uint32_t reason)
{
	_Alignas(8) unsigned char buf[sizeof(struct st_switch)];
	struct st_switch *w = (void *)buf;

	*w = (struct st_switch){ { ST_REC_SWITCH, ST_SOURCE_PERF, sizeof(*w) }, 1, tid, t,
				 ST_SWITCH_OUT | ST_SWITCH_TOLD, reason };
	offcpu_pairs_take(p, buf, sizeof(*w), keep, e);
}

static void let_out(struct offcpu_pairs *p, struct emitted *e, uint32_t tid, uint64_t t,
		    uint32_t extra)
{
	_Alignas(8) unsigned char buf[sizeof(struct st_sample) + 8];
	struct st_sample *s = (void *)buf;

	memset(buf, 0, sizeof(buf));
	s->h = (struct st_header){ ST_REC_SAMPLE, ST_SOURCE_PERF, sizeof(buf) };
	s->tid = tid;
	s->time = t;
	s->period = 1;
	s->nchain = 1;
	s->data[0] = 0x3000;
	/* As the sampler marks them: a placeholder reason, to be told. */
	s->flags = ST_SAMPLE_TOLD_APART | (uint32_t)ST_OFFCPU_OTHER << ST_SAMPLE_OFFCPU_SHIFT | extra;
	offcpu_pairs_take(p, buf, sizeof(buf), keep, e);
}

static void test_told_apart(void)
{
	struct offcpu_pairs p = { 0 };
	struct emitted e = { 0 };

	told(&p, &e, 5, 100, ST_OFFCPU_DISK);
	CHECK(e.n == 0 && p.nheld == 0);
	let_out(&p, &e, 5, 101, 0);
	record(&p, &e, ST_REC_SWITCH, 5, 600, 0);
	CHECK(e.n == 1 && nth(&e, 0)->period == 499 &&
	      ST_SAMPLE_OFFCPU(nth(&e, 0)->flags) == ST_OFFCPU_DISK &&
	      !(nth(&e, 0)->flags & ST_SAMPLE_TOLD_APART));
	/* Told once: the thread's next let-out sample, its record lost, is "other". */
	let_out(&p, &e, 5, 700, 0);
	record(&p, &e, ST_REC_SWITCH, 5, 800, 0);
	CHECK(e.n == 2 && ST_SAMPLE_OFFCPU(nth(&e, 1)->flags) == ST_OFFCPU_OTHER);
	/* Another thread's state is not this one's; the last told wins. */
	told(&p, &e, 6, 900, ST_OFFCPU_SLEEP);
	told(&p, &e, 7, 901, ST_OFFCPU_STOPPED);
	told(&p, &e, 7, 902, ST_OFFCPU_RUNNABLE);
	let_out(&p, &e, 7, 903, 0);
	record(&p, &e, ST_REC_SWITCH, 7, 1000, 0);
	CHECK(e.n == 3 && ST_SAMPLE_OFFCPU(nth(&e, 2)->flags) == ST_OFFCPU_RUNNABLE);
	/* Told it exited: not held, weighing nothing. */
	told(&p, &e, 8, 1100, ST_OFFCPU_EXITED);
	let_out(&p, &e, 8, 1101, 0);
	CHECK(e.n == 4 && p.nheld == 0 && nth(&e, 3)->period == 1);
	/* A reason no switch has (a hostile record): "other". */
	told(&p, &e, 9, 1200, 99);
	let_out(&p, &e, 9, 1201, 0);
	record(&p, &e, ST_REC_SWITCH, 9, 1300, 0);
	CHECK(e.n == 5 && ST_SAMPLE_OFFCPU(nth(&e, 4)->flags) == ST_OFFCPU_OTHER);
	/* The kernel's walk of a held thread's switch, only to be checked: passed on, no end. */
	let_out(&p, &e, 10, 1500, 0);
	{
		_Alignas(8) unsigned char buf[sizeof(struct st_sample) + 8];
		struct st_sample *s = (void *)buf;

		memset(buf, 0, sizeof(buf));
		s->h = (struct st_header){ ST_REC_SAMPLE, ST_SOURCE_PERF, sizeof(buf) };
		s->tid = 10;
		s->time = 1500;
		s->nchain = 1;
		s->flags = ST_SAMPLE_CHECK_ONLY | (uint32_t)ST_OFFCPU_SLEEP << ST_SAMPLE_OFFCPU_SHIFT;
		offcpu_pairs_take(&p, buf, sizeof(buf), keep, &e);
	}
	CHECK(e.n == 6 && p.nheld == 1 && (nth(&e, 5)->flags & ST_SAMPLE_CHECK_ONLY));
	/*
	 * As the kernel stamps them: the sample a few microseconds before its
	 * state (a program using bpf_get_stack runs after the sample is made).
	 */
	let_out(&p, &e, 11, 2000, 0);
	told(&p, &e, 11, 2003, ST_OFFCPU_DISK);
	record(&p, &e, ST_REC_SWITCH, 11, 2500, 0);
	CHECK(e.n == 7 && nth(&e, 6)->period == 500 &&
	      ST_SAMPLE_OFFCPU(nth(&e, 6)->flags) == ST_OFFCPU_DISK);
	/* Its state not come: "other"; the next switch's after it is that one's, not its. */
	let_out(&p, &e, 11, 3000, 0);
	record(&p, &e, ST_REC_SWITCH, 11, 3100, 0);
	let_out(&p, &e, 11, 4000, 0);
	told(&p, &e, 11, 4002, ST_OFFCPU_SLEEP);
	record(&p, &e, ST_REC_SWITCH, 11, 4100, 0);
	CHECK(e.n == 9 && ST_SAMPLE_OFFCPU(nth(&e, 7)->flags) == ST_OFFCPU_OTHER &&
	      ST_SAMPLE_OFFCPU(nth(&e, 8)->flags) == ST_OFFCPU_SLEEP);
	/* A state told long before a sample (its own sample lost) is not the sample's. */
	told(&p, &e, 12, 5000, ST_OFFCPU_DISK);
	let_out(&p, &e, 12, 5000 + 2000000, 0);
	record(&p, &e, ST_REC_SWITCH, 12, 5000 + 3000000, 0);
	CHECK(e.n == 10 && ST_SAMPLE_OFFCPU(nth(&e, 9)->flags) == ST_OFFCPU_OTHER);
	/* Told after its sample that it exited: passed on unweighed, at once. */
	let_out(&p, &e, 13, 9000000, 0);
	told(&p, &e, 13, 9000004, ST_OFFCPU_EXITED);
	CHECK(e.n == 11 && p.nheld == 1 && nth(&e, 10)->period == 1 && p.unpaired == 0);
	offcpu_pairs_free(&p);
	CHECK(p.nheld == 0 && !p.told);
}

/*
 * Who woke a wait: the thread's waker as last sent (the kernel sends one
 * where it changes) goes out right before each wait but a preemption's,
 * stamped as it, with the wait's whole time (pieces passed on already and
 * all); an exit forgets it.
 */
static void wake(struct offcpu_pairs *p, struct emitted *e, uint32_t tid, uint64_t t,
		 uint32_t waker)
{
	struct st_wake w = { { ST_REC_WAKE, ST_SOURCE_PERF, sizeof(w) }, 1, tid, t, 0, 1, waker,
			     0, 0, "waker" };

	offcpu_pairs_take(p, &w, sizeof(w), keep, e);
}

static const struct st_wake *waker_at(const struct emitted *e, int i)
{
	const struct st_wake *w = (const void *)e->rec[i];

	return w->h.type == ST_REC_WAKE ? w : NULL;
}

static void test_woken(void)
{
	struct offcpu_pairs p = { 0 };
	struct emitted e = { 0 };
	const struct st_wake *w;

	wake(&p, &e, 5, 50, 7);			/* not held: it goes nowhere yet */
	CHECK(e.n == 0);
	sample(&p, &e, 5, 100, ST_OFFCPU_SLEEP);
	wake(&p, &e, 5, 150, 8);
	wake(&p, &e, 5, 160, 9);		/* the last wins */
	offcpu_pairs_split(&p, 300, 100, keep, &e);	/* a piece: no waker with it */
	CHECK(e.n == 1 && nth(&e, 0)->h.type == ST_REC_SAMPLE);
	record(&p, &e, ST_REC_SWITCH, 5, 400, 0);
	CHECK(e.n == 3 && p.woken == 1);
	w = waker_at(&e, 1);
	CHECK(w && w->tid == 5 && w->waker_tid == 9 && w->time == 400 && w->waited == 300);
	CHECK(nth(&e, 2)->h.type == ST_REC_SAMPLE && nth(&e, 2)->time == 400 &&
	      nth(&e, 2)->period == 100);
	/* Its next wait, no wakeup sent (the same waker): 9 again; preempted, none. */
	sample(&p, &e, 5, 500, ST_OFFCPU_SLEEP);
	record(&p, &e, ST_REC_SWITCH, 5, 520, 0);
	sample(&p, &e, 5, 600, ST_OFFCPU_RUNNABLE);
	record(&p, &e, ST_REC_SWITCH, 5, 610, 0);
	CHECK(e.n == 6 && (w = waker_at(&e, 3)) && w->waker_tid == 9 && w->waited == 20 &&
	      !waker_at(&e, 5) && p.woken == 2);
	/* A thread woken before it left its CPU (the wakeup first): its waker too. */
	wake(&p, &e, 7, 650, 3);
	sample(&p, &e, 7, 700, ST_OFFCPU_DISK);
	record(&p, &e, ST_REC_SWITCH, 7, 750, 0);
	CHECK(e.n == 8 && (w = waker_at(&e, 6)) && w->tid == 7 && w->waker_tid == 3);
	/* A wait whose end was not seen has no waker; an exit forgets the thread's. */
	sample(&p, &e, 6, 800, ST_OFFCPU_SLEEP);
	wake(&p, &e, 6, 850, 9);
	record(&p, &e, ST_REC_EXIT, 6, 900, 0);
	CHECK(e.n == 10 && nth(&e, 8)->h.type == ST_REC_SAMPLE && nth(&e, 8)->period == 1);
	sample(&p, &e, 6, 1000, ST_OFFCPU_SLEEP);
	record(&p, &e, ST_REC_SWITCH, 6, 1100, 0);
	CHECK(e.n == 11 && !waker_at(&e, 10) && p.woken == 3);
	offcpu_pairs_free(&p);
	CHECK(!p.wakers);
}

/*
 * A hostile file's many threads each switched out with a large record
 * (a stack copy): held to 64 MiB, the rest passed on unweighed, counted.
 */
static void test_held_bytes(void)
{
	static _Alignas(8) unsigned char buf[64000];
	struct st_sample *s = (void *)buf;
	struct offcpu_pairs p = { 0 };
	struct emitted e = { 0 };
	uint32_t tid;

	memset(buf, 0, sizeof(buf));
	s->h = (struct st_header){ ST_REC_SAMPLE, ST_SOURCE_PERF, sizeof(buf) };
	s->flags = (uint32_t)ST_OFFCPU_SLEEP << ST_SAMPLE_OFFCPU_SHIFT;
	for (tid = 1; e.n == 0 && tid < 2000; tid++) {
		s->tid = tid;
		s->time = tid;
		offcpu_pairs_take(&p, buf, sizeof(buf), keep, &e);
	}
	/* 64 MiB hold 1,048 such records: the 1,049th is passed on at once. */
	CHECK(tid - 1 == 1049 && e.n == 1 && p.unpaired == 1 && p.nheld == 1048);
	CHECK(p.held_bytes == 1048u * sizeof(buf));
	offcpu_pairs_free(&p);
	CHECK(p.held_bytes == 0);
}

/* /proc/PID/task/TID/syscall as the kernel writes it, and what is not. */
static void test_at_parse(void)
{
	struct offcpu_at at;
	static const char *const bad[] = {
		"running\n", "", "\n", "230", "230 0x0 0x0 0x7ffe0 0x0 0x0 0x0 0x7ffe95297060\n",
		"230 0x0 0x0 0x7ffe0 0x0 0x0 0x0 0x7ffe95297060 0x7ff8c8c56545 0x1\n",
		"-1 0x7ff8\n", "-2 0x10 0x20\n", "230 0x0 0x0 0x0 0x0 0x0 0x0 0x10 0x20x\n",
		"230  0x0 0x0 0x0 0x0 0x0 0x0 0x10 0x20\n", "230 0 0 0 0 0 0 0x10 0x20\n",
		"230 0x0 0x0 0x0 0x0 0x0 0x0 0x10 0x\n", "230 0x0 0x0 0x0 0x0 0x0 0x0 0x10 0xg\n",
		"230 0x0 0x0 0x0 0x0 0x0 0x0 0x10 0x11111111111111111\n",
		"99999999999999999999 0x10 0x20\n", "-1 0x10 0x20\n\n", "x1 0x10 0x20\n",
		"230 0x0 0x0 0x0 0x0 0x0 0x0 0x10 0x-20\n",
	};

	CHECK(offcpu_at_parse("230 0x0 0x0 0x7ffe952970a0 0x0 0x0 0x0 0x7ffe95297060 "
			      "0x7ff8c8c56545\n", &at));
	CHECK(at.nr == 230 && at.sp == 0x7ffe95297060ull && at.pc == 0x7ff8c8c56545ull);
	CHECK(offcpu_at_parse("202 0x564f27665160 0x80 0x2 0x0 0x0 0x0 0x7ff8c8381e88 "
			      "0x7ff8c8c0d12b", &at));
	CHECK(at.nr == 202 && at.sp == 0x7ff8c8381e88ull && at.pc == 0x7ff8c8c0d12bull);
	/* Blocked outside a system call (a page fault's wait): sp and pc alone. */
	CHECK(offcpu_at_parse("-1 0x7ffd1000 0x401000\n", &at));
	CHECK(at.nr == -1 && at.sp == 0x7ffd1000 && at.pc == 0x401000);
	CHECK(offcpu_at_parse("0 0x0 0x0 0x0 0x0 0x0 0x0 0xffffffffffffffff 0x1\n", &at));
	CHECK(at.sp == UINT64_MAX && at.pc == 1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		at.nr = 7;
		if (offcpu_at_parse(bad[i], &at))
			fprintf(stderr, "test_offcpu: taken: \"%s\"\n", bad[i]);
		CHECK(!offcpu_at_parse(bad[i], &at) && at.nr == 7);
	}
}

static void test_before_reason(void)
{
	CHECK(offcpu_before_reason('S', SYS_nanosleep) == ST_OFFCPU_SLEEP);
	CHECK(offcpu_before_reason('S', -1) == ST_OFFCPU_SLEEP);
	CHECK(offcpu_before_reason('S', SYS_futex) == ST_OFFCPU_FUTEX);
	CHECK(offcpu_before_reason('D', SYS_fsync) == ST_OFFCPU_DISK);
	CHECK(offcpu_before_reason('D', SYS_futex) == ST_OFFCPU_DISK);
	CHECK(offcpu_before_reason('T', SYS_read) == ST_OFFCPU_STOPPED);
	CHECK(offcpu_before_reason('t', SYS_read) == ST_OFFCPU_STOPPED);
	CHECK(offcpu_before_reason('R', SYS_read) == ST_OFFCPU_NONE);
	CHECK(offcpu_before_reason('Z', SYS_read) == ST_OFFCPU_NONE);
	CHECK(offcpu_before_reason('\0', SYS_read) == ST_OFFCPU_NONE);
}

/*
 * A blocked thread's stack as libc's wrappers leave it: their return
 * addresses and spills (one a pointer into the stack, as a timespec's
 * address is), then the frame records of code keeping frame pointers.
 */
static void test_frame_guess(void)
{
	uint64_t w[32] = { 0 }, sp = 0x7ffd0000;

	w[0] = 0x7f0000001234;		/* the wrapper's caller's return address */
	w[1] = sp + 8 * 20;		/* a spilled pointer into the stack: w[20] is no record */
	w[2] = 7;
	w[4] = sp + 8 * 10;		/* the innermost frame record: saved rbp */
	w[5] = 0x555500001000;		/* and its return address */
	w[10] = sp + 8 * 14;		/* its caller's record */
	w[11] = 0x555500002000;
	w[14] = 0;			/* the outermost: rbp 0 */
	w[15] = 0x7f0000005678;
	w[20] = 3;
	w[21] = 4;
	CHECK(offcpu_frame_guess((void *)w, sizeof(w), sp, NULL) == sp + 8 * 4);
	/* A stack canary beside the spilled pointer is no return address either. */
	w[2] = 0x8b48901054b47800ull;
	CHECK(offcpu_frame_guess((void *)w, sizeof(w), sp, NULL) == sp + 8 * 4);
	/* With the process's code mapped: the records' return addresses in it, or not. */
	{
		uint64_t ranges[2][2] = { { 0x555500000000ull, 0x555500003000ull },
					  { 0x7f0000000000ull, 0x7f0000010000ull } };
		struct offcpu_code code = { ranges, 2, 2 };

		CHECK(offcpu_frame_guess((void *)w, sizeof(w), sp, &code) == sp + 8 * 4);
		ranges[0][1] = 0x555500001000ull;	/* the innermost's return address unmapped */
		CHECK(offcpu_frame_guess((void *)w, sizeof(w), sp, &code) == 0);
		code.n = 0;
		CHECK(offcpu_frame_guess((void *)w, sizeof(w), sp, &code) == 0);
	}
	/* Its caller's record past the copy: the first link is taken. */
	CHECK(offcpu_frame_guess((void *)w, 8 * 11, sp, NULL) == sp + 8 * 4);
	/* A record whose next goes down the stack, or beside no code, is none. */
	w[10] = sp + 8 * 2;
	CHECK(offcpu_frame_guess((void *)w, sizeof(w), sp, NULL) == 0);
	w[10] = sp + 8 * 14;
	w[5] = sp + 8 * 30;		/* "return address" in the stack */
	CHECK(offcpu_frame_guess((void *)w, sizeof(w), sp, NULL) == sp + 8 * 10);
	memset(w, 0, sizeof(w));
	CHECK(offcpu_frame_guess((void *)w, sizeof(w), sp, NULL) == 0);
	CHECK(offcpu_frame_guess((void *)w, sizeof(w), sp + 4, NULL) == 0);
	CHECK(offcpu_frame_guess((void *)w, sizeof(w), UINT64_MAX - 8, NULL) == 0);
	CHECK(offcpu_frame_guess((void *)w, 0, sp, NULL) == 0);
}

/* This process's code, from its maps: this very function in it. */
static void test_code_read(void)
{
	struct offcpu_code code;
	uint64_t self = (uint64_t)(uintptr_t)test_code_read;
	bool in = false;

	CHECK(offcpu_code_read(getpid(), &code) == 0 && code.n > 0);
	for (size_t i = 0; i < code.n; i++) {
		in = in || (self >= code.range[i][0] && self < code.range[i][1]);
		CHECK(i == 0 || code.range[i - 1][0] <= code.range[i][0]);
	}
	CHECK(in);
	offcpu_code_free(&code);
	CHECK(offcpu_code_read(-5, &code) < 0 && code.n == 0 && !code.range);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CHECK(f != NULL);
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
}

/*
 * A thread found waiting, from a /proc tree of files naming this
 * process (whose stack process_vm_readv reads): its record whole.
 */
static void test_before_sample(void)
{
	char dir[] = "/tmp/test_offcpu_procXXXXXX", path[512], text[256];
	static uint64_t stack[64];
	static unsigned char rec[ST_RECORD_MAX];
	const struct st_sample *s = (const void *)rec;
	const struct st_stack *k;
	pid_t pid = getpid(), tid = (pid_t)syscall(SYS_gettid);
	size_t n;

	for (size_t i = 0; i < 64; i++)
		stack[i] = 0x1111111100000000ull + i;
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/%d", dir, (int)pid);
	CHECK(mkdir(path, 0700) == 0);
	snprintf(path, sizeof(path), "%s/%d/task", dir, (int)pid);
	CHECK(mkdir(path, 0700) == 0);
	snprintf(path, sizeof(path), "%s/%d/task/%d", dir, (int)pid, (int)tid);
	CHECK(mkdir(path, 0700) == 0);
	snprintf(path, sizeof(path), "%s/%d/task/%d/stat", dir, (int)pid, (int)tid);
	write_text(path, "1234 (a) S) b) S 1 1234 1234 0 -1\n");
	snprintf(path, sizeof(path), "%s/%d/task/%d/syscall", dir, (int)pid, (int)tid);
	snprintf(text, sizeof(text), "%d 0x0 0x0 0x0 0x0 0x0 0x0 0x%llx 0x401000\n", SYS_futex,
		 (unsigned long long)(uintptr_t)stack);
	write_text(path, text);
	n = offcpu_before_sample(dir, pid, tid, 5000, sizeof(stack), NULL, rec, sizeof(rec));
	k = st_sample_stack(s);
	CHECK(n == sizeof(*s) + sizeof(*k) + sizeof(stack) && s->h.size == n);
	CHECK(s->h.type == ST_REC_SAMPLE && s->pid == (uint32_t)pid && s->tid == (uint32_t)tid);
	CHECK(s->time == 5000 && s->ip == 0x401000 && s->period == 1 && s->nchain == 0);
	CHECK(s->cpumode == ST_MODE_USER && (s->flags & ST_SAMPLE_HAS_STACK));
	CHECK(ST_SAMPLE_OFFCPU(s->flags) == ST_OFFCPU_FUTEX);
	CHECK(k->ip == 0x401000 && k->sp == (uintptr_t)stack && k->size == sizeof(stack));
	CHECK(!memcmp(k->bytes, stack, sizeof(stack)));
	CHECK(st_record_check(rec, n) == n);
	/* The copy asked is what is read; room cuts it. */
	n = offcpu_before_sample(dir, pid, tid, 5000, 100, NULL, rec, sizeof(rec));
	CHECK(n && st_sample_stack(s)->size == 96);
	n = offcpu_before_sample(dir, pid, tid, 5000, sizeof(stack), NULL, rec,
				 sizeof(*s) + sizeof(*k) + 40);
	CHECK(n == sizeof(*s) + sizeof(*k) + 40 && st_sample_stack(s)->size == 40);
	CHECK(offcpu_before_sample(dir, pid, tid, 5000, 64, NULL, rec, sizeof(*s)) == 0);
	/* Running, or runnable: no wait. */
	write_text(path, "running\n");
	CHECK(offcpu_before_sample(dir, pid, tid, 5000, 64, NULL, rec, sizeof(rec)) == 0);
	write_text(path, text);
	snprintf(path, sizeof(path), "%s/%d/task/%d/stat", dir, (int)pid, (int)tid);
	write_text(path, "1234 (a) S) b) R 1 1234 1234 0 -1\n");
	CHECK(offcpu_before_sample(dir, pid, tid, 5000, 64, NULL, rec, sizeof(rec)) == 0);
	/* D, in no system call. */
	write_text(path, "1234 (sync) D 1 1234\n");
	snprintf(path, sizeof(path), "%s/%d/task/%d/syscall", dir, (int)pid, (int)tid);
	snprintf(text, sizeof(text), "-1 0x%llx 0x402000\n", (unsigned long long)(uintptr_t)stack);
	write_text(path, text);
	n = offcpu_before_sample(dir, pid, tid, 5000, 64, NULL, rec, sizeof(rec));
	CHECK(n && ST_SAMPLE_OFFCPU(s->flags) == ST_OFFCPU_DISK && s->ip == 0x402000);
	/* A stack pointer nothing is mapped at: no record. */
	write_text(path, "-1 0x8 0x402000\n");
	CHECK(offcpu_before_sample(dir, pid, tid, 5000, 64, NULL, rec, sizeof(rec)) == 0);
	/* A thread that is gone. */
	CHECK(offcpu_before_sample(dir, pid, tid + 100000, 5000, 64, NULL, rec, sizeof(rec)) == 0);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	CHECK(system(path) == 0);
}

int main(void)
{
	test_held_bytes();
	test_format_fields();
	test_tracefs();
	test_pairs();
	test_told_apart();
	test_woken();
	test_at_parse();
	test_before_reason();
	test_frame_guess();
	test_code_read();
	test_before_sample();
	return check_done("test_offcpu");
}
