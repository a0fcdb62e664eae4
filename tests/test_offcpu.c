/*
 * test_offcpu.c - --off-cpu's parts without a kernel: sched_switch's
 * prev_state found in a format (this kernel's, an older one's, hostile
 * ones), a tracefs of files, and the pairing of switch-outs with the
 * moment their thread runs again over constructed record streams.
 */
#include "check.h"
#include "ring/record.h"
#include "sampler/offcpu.h"
#include "sampler/perf_tracing.h"

#include <errno.h>
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

int main(void)
{
	test_held_bytes();
	test_format_fields();
	test_tracefs();
	test_pairs();
	return check_done("test_offcpu");
}
