/*
 * test_kernel_walk.c - what the kernel's stack walker sends back, read:
 * bpf-output samples built as the kernel lays them out (pid tid, time,
 * cpu, raw size, then struct kw_chain), a walked chain becoming a sample
 * with that chain, its stack pointer and its kernel frames' count after
 * it (a sample taken in the kernel: its frames first), and a row asked
 * for; a switch's chain with its reason from its raw prev_state, and a
 * switch's state sent alone becoming a switch record told apart.
 * Everything else is refused: a chain of no frames or more than
 * KW_FRAMES_MAX, raw data shorter than its chain, a raw size past the
 * record, a record of another type, a request without a file.
 * Where the walker loads, which views of a process's mappings it takes:
 * one older than a library mapped beside them, not one older than code
 * mapped over code or an exec.  Files' pages given are held, and put
 * in the walker's map of maps together when the worker settles.
 * (The walk itself runs in the kernel: tests/t-kernel-walk.sh.)
 */
#include "check.h"
#include "sampler/kernel_walk.h"
#include "symbols/unwind.h"
#include "symbols/unwind_pages.h"
#include "symbols/symbols_internal.h"
#include "ring/record.h"

#include <bpf/bpf.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A bpf-output sample of c's first `words` ip words; raw_extra pads or cuts its raw size. */
static size_t build(unsigned char *buf, const struct kw_chain *c, size_t words, int raw_extra)
{
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE };
	uint32_t pid = 41, tid = 42, cpu = 1, res = 0;
	uint64_t time = 123456789;
	uint32_t raw = (uint32_t)((int)(offsetof(struct kw_chain, ip) + 8 * words) + raw_extra);
	size_t at = sizeof(h), body = offsetof(struct kw_chain, ip) + 8 * words;

	memcpy(buf + at, &pid, 4);
	memcpy(buf + at + 4, &tid, 4);
	memcpy(buf + at + 8, &time, 8);
	memcpy(buf + at + 16, &cpu, 4);
	memcpy(buf + at + 20, &res, 4);
	memcpy(buf + at + 24, &raw, 4);
	memcpy(buf + at + 28, c, body);
	at += 28 + body;
	at = (at + 7) & ~(size_t)7;
	h.size = (uint16_t)at;
	memcpy(buf, &h, sizeof(h));
	return at;
}

/* A walk at time saw pid's code at [0x1000, 0x3000), generation gen. */
static void teach_view(struct kernel_walk *kw, pid_t pid, uint64_t time, uint64_t gen)
{
	const struct unwind_teacher *t = kernel_walk_teacher(kw);
	const struct unwind_map m = { 0x1000, 0x3000, 0, 1 };

	t->maps(t->arg, pid, time, gen, &m, 1);
}

/*
 * A switch out (--off-cpu): its chain a sample flagged with the reason
 * its raw prev_state gives, as sched_switch reports it; its state alone
 * (let out with its copy) an st_switch told apart; either without
 * KW_SWITCHED refused or a plain sample.
 */
static void check_switches(unsigned char *buf, unsigned char *out)
{
	static const struct {
		uint32_t switched;
		enum st_offcpu_reason why;
	} states[] = {
		{ KW_SWITCHED | 0x1, ST_OFFCPU_SLEEP },		/* TASK_INTERRUPTIBLE */
		{ KW_SWITCHED | 0x2001, ST_OFFCPU_SLEEP },	/* and TASK_FREEZABLE */
		{ KW_SWITCHED | 0x2, ST_OFFCPU_DISK },		/* TASK_UNINTERRUPTIBLE */
		{ KW_SWITCHED | 0x102, ST_OFFCPU_DISK },	/* TASK_KILLABLE */
		{ KW_SWITCHED | 0x402, ST_OFFCPU_SLEEP },	/* TASK_IDLE: I */
		{ KW_SWITCHED | 0x1000, ST_OFFCPU_DISK },	/* TASK_RTLOCK_WAIT: D */
		{ KW_SWITCHED | 0x4, ST_OFFCPU_STOPPED },
		{ KW_SWITCHED | 0x8, ST_OFFCPU_STOPPED },
		{ KW_SWITCHED | 0x40, ST_OFFCPU_SLEEP },	/* TASK_PARKED */
		{ KW_SWITCHED | 0x80, ST_OFFCPU_EXITED },	/* TASK_DEAD */
		{ KW_SWITCHED | 0, ST_OFFCPU_RUNNABLE },	/* schedule() while running */
		{ KW_SWITCHED | KW_PREEMPTED | 0x1, ST_OFFCPU_RUNNABLE },
		{ KW_SWITCHED | KW_UNTOLD, ST_OFFCPU_OTHER },
	};
	const struct perf_event_header *ev = (const void *)buf;
	const struct st_sample *s = (const void *)out;
	const struct st_switch *w = (const void *)out;
	struct kw_chain c;

	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++)
		CHECK_EQ_U64(kernel_walk_switch_reason(states[i].switched), states[i].why);

	memset(&c, 0, sizeof(c));
	c.period = 1;
	c.sp = 0x7ffc0000f000;
	c.n = 3;
	c.kernel = 1;
	c.stop = KW_STOP_OUTERMOST;
	c.switched = KW_SWITCHED | 0x2;
	c.ip[0] = 0xffffffff81000010ull;
	c.ip[1] = 0x401000;
	c.ip[2] = 0x402000;
	build(buf, &c, 3, 0);
	CHECK(kernel_walk_convert(ev, out, ST_RECORD_MAX) > 0);
	CHECK_EQ_U64(s->h.type, ST_REC_SAMPLE);
	CHECK_EQ_U64(ST_SAMPLE_OFFCPU(s->flags), ST_OFFCPU_DISK);
	CHECK_EQ_U64(s->period, 1);
	CHECK_EQ_U64(s->cpumode, ST_MODE_KERNEL);
	/* Not a switch: no reason. */
	c.switched = 0;
	build(buf, &c, 3, 0);
	CHECK(kernel_walk_convert(ev, out, ST_RECORD_MAX) > 0);
	CHECK_EQ_U64(ST_SAMPLE_OFFCPU(s->flags), ST_OFFCPU_NONE);

	/* The state alone, its sample let out: an st_switch of the reason. */
	c.n = 0;
	c.kernel = 0;
	c.stop = KW_STOP_TOLD;
	c.switched = KW_SWITCHED | 0x1;
	build(buf, &c, 0, 0);
	CHECK_EQ_U64(kernel_walk_convert(ev, out, ST_RECORD_MAX), sizeof(struct st_switch));
	CHECK_EQ_U64(w->h.type, ST_REC_SWITCH);
	CHECK_EQ_U64(w->h.size, sizeof(*w));
	CHECK_EQ_U64(w->tid, 42);
	CHECK_EQ_U64(w->time, 123456789);
	CHECK_EQ_U64(w->flags, ST_SWITCH_OUT | ST_SWITCH_TOLD);
	CHECK_EQ_U64(w->reason, ST_OFFCPU_SLEEP);
	CHECK(st_record_check(out, sizeof(*w)) == sizeof(*w));
	/* No room for it; a state of no switch; frames with it: refused. */
	CHECK_EQ_U64(kernel_walk_convert(ev, out, sizeof(*w) - 1), 0);
	c.switched = 0x1;
	build(buf, &c, 0, 0);
	CHECK_EQ_U64(kernel_walk_convert(ev, out, ST_RECORD_MAX), 0);
	c.switched = KW_SWITCHED | 0x1;
	c.n = 1;
	build(buf, &c, 1, 0);
	CHECK_EQ_U64(kernel_walk_convert(ev, out, ST_RECORD_MAX), 0);
}

/*
 * A wakeup of a walked process's thread: an st_wake naming the woken
 * thread and its waker (the sample's thread), or no thread where it came
 * from an interrupt; one too short, or of no thread, refused.
 */
static void check_wakes(unsigned char *buf, unsigned char *out)
{
	const struct perf_event_header *ev = (const void *)buf;
	const struct st_wake *w = (const void *)out;
	struct kw_woke k = { .pid = 7, .tid = 8, .comm = "holder" };
	struct kw_chain c;

	memset(&c, 0, sizeof(c));
	c.stop = KW_STOP_WOKE;
	memcpy(c.ip, &k, sizeof(k));
	build(buf, &c, sizeof(k) / 8, 0);
	CHECK_EQ_U64(kernel_walk_convert(ev, out, ST_RECORD_MAX), sizeof(*w));
	CHECK_EQ_U64(w->h.type, ST_REC_WAKE);
	CHECK(w->pid == 7 && w->tid == 8 && w->waker_pid == 41 && w->waker_tid == 42 &&
	      w->time == 123456789 && !w->flags && !w->waited && !strcmp(w->waker_comm, "holder"));
	CHECK(st_record_check(out, sizeof(*w)) == sizeof(*w) && st_record_time(out) == 123456789);
	k.interrupt = 1;
	memcpy(c.ip, &k, sizeof(k));
	build(buf, &c, sizeof(k) / 8, 0);
	CHECK_EQ_U64(kernel_walk_convert(ev, out, ST_RECORD_MAX), sizeof(*w));
	CHECK(w->flags == ST_WAKE_INTERRUPT && !w->waker_tid && !w->waker_pid && !w->waker_comm[0]);
	CHECK_EQ_U64(kernel_walk_convert(ev, out, sizeof(*w) - 1), 0);
	build(buf, &c, sizeof(k) / 8, -8);		/* the comm cut short */
	CHECK_EQ_U64(kernel_walk_convert(ev, out, ST_RECORD_MAX), 0);
	k.tid = 0;
	memcpy(c.ip, &k, sizeof(k));
	build(buf, &c, sizeof(k) / 8, 0);
	CHECK_EQ_U64(kernel_walk_convert(ev, out, ST_RECORD_MAX), 0);
}

/*
 * The BPF programs named without /proc/kallsyms (symbols_bpf.c): the
 * walker's own, each image (the program, its functions) under the name
 * kallsyms gives it, at its address (kallsyms' may start a preamble
 * before the entry the bpf system call gives).
 */
static void check_bpf_names(void)
{
	char why[256], line[512], kname[256];
	struct kernel_walk *kw = kernel_walk_open(true, why, sizeof(why));
	struct range_table t = { 0 };
	FILE *f;
	size_t ours = 0, named = 0;

	if (!kw) {
		printf("BPF programs' names are not checked here: %s\n", why);
		return;
	}
	bpf_symbols_load(&t);
	f = fopen("/proc/kallsyms", "r");
	while (f && fgets(line, sizeof(line), f)) {
		uint64_t addr;
		char type;
		const struct range_entry *e;

		if (sscanf(line, "%" SCNx64 " %c %255s", &addr, &type, kname) != 3 ||
		    !strstr(line, "[bpf]") ||
		    (!strstr(kname, "_kw_walk") && !strstr(kname, "_step") && !strstr(kname, "_halve")))
			continue;
		ours++;
		e = range_table_find(&t, addr + 64);
		named += e && !strcmp(e->name, kname) && !strcmp(e->module, "bpf") &&
			 e->start >= addr && e->start < addr + 64;
	}
	if (f)
		fclose(f);
	/* kw_walk, kw_walk_switch, and the loop's callbacks of each. */
	CHECK(ours >= 4);
	CHECK_EQ_U64(named, ours);
	range_table_clear(&t);
	kernel_walk_close(kw);
}

/* The newest map named name this process can see (the walker's own), or -1. */
static int map_named(const char *name)
{
	uint32_t id = 0, newest = 0;

	while (!bpf_map_get_next_id(id, &id)) {
		struct bpf_map_info info;
		uint32_t len = sizeof(info);
		int fd = bpf_map_get_fd_by_id(id);

		memset(&info, 0, sizeof(info));
		if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len) && !strcmp(info.name, name))
			newest = id;
		if (fd >= 0)
			close(fd);
	}
	return newest ? bpf_map_get_fd_by_id(newest) : -1;
}

/*
 * Files' pages given are held, then put in the walker's map of maps
 * together when the worker settles (one update: one RCU grace period).
 */
static void check_pages_put_together(void)
{
	char why[256];
	struct kernel_walk *kw = kernel_walk_open(true, why, sizeof(why));
	const struct unwind_teacher *t;
	struct unwind_row rows[2] = { { .kind = ROW_NONE }, { .kind = ROW_CFA_RSP, .cfa_off = 8,
							      .ra_off = -8 } };
	struct unwind_page page = { 0x401, 0, 2 };
	uint32_t entries[2] = { UNWIND_ENTRY(0, 1), UNWIND_ENTRY(0x80, 0) };
	struct unwind_pages p = { .rows = rows, .nrows = 2, .pages = &page, .npages = 1,
				  .entries = entries, .nentries = 2 };
	uint32_t inner, files[3] = { 3, 7, 11 };
	int outer;

	if (!kw) {
		printf("files' pages given to the walker are not checked here: %s\n", why);
		return;
	}
	t = kernel_walk_teacher(kw);
	outer = map_named("kw_files");
	CHECK(outer >= 0 && t->pages && t->pages_settle);
	if (outer < 0 || !t->pages || !t->pages_settle) {
		kernel_walk_close(kw);
		return;
	}
	for (size_t i = 0; i < 3; i++)
		CHECK(t->pages(t->arg, files[i], &p));
	/* Held: not in the walker's map yet. */
	for (size_t i = 0; i < 3; i++)
		CHECK(bpf_map_lookup_elem(outer, &files[i], &inner) != 0);
	t->pages_settle(t->arg);
	for (size_t i = 0; i < 3; i++)
		CHECK(bpf_map_lookup_elem(outer, &files[i], &inner) == 0 && inner != 0);
	/* Nothing else put there. */
	CHECK(bpf_map_lookup_elem(outer, &(uint32_t){ 5 }, &inner) != 0);
	printf("three files' pages held, then put together\n");
	close(outer);
	kernel_walk_close(kw);
}

static void check_teaching(void)
{
	char why[256];
	struct kernel_walk *kw = kernel_walk_open(true, why, sizeof(why));
	const pid_t pid = 4242;

	if (!kw) {
		printf("the walker's teaching is not checked here: %s\n", why);
		return;
	}
	kernel_walk_mapped(kw, pid, 5, 0, 0);
	kernel_walk_mapped(kw, pid, 6, 0x1000, 0x2000);
	/* A library mapped at 20, beside: a view of 10 lacks it, and is right. */
	kernel_walk_mapped(kw, pid, 20, 0x8000, 0x1000);
	teach_view(kw, pid, 10, 1);
	CHECK(kernel_walk_holds(kw, pid));
	/* Beside what the kernel holds: kept. */
	kernel_walk_mapped(kw, pid, 21, 0x9000, 0x1000);
	CHECK(kernel_walk_holds(kw, pid));
	/* Over it: taken back, and no view older than the mapping comes back. */
	kernel_walk_mapped(kw, pid, 30, 0x2000, 0x100);
	CHECK(!kernel_walk_holds(kw, pid));
	teach_view(kw, pid, 25, 2);
	CHECK(!kernel_walk_holds(kw, pid));
	teach_view(kw, pid, 31, 3);
	CHECK(kernel_walk_holds(kw, pid));
	/* Over a library the kernel never held (mapped at 20): a view of 35 is refused too. */
	kernel_walk_mapped(kw, pid, 40, 0x8800, 0x100);
	CHECK(kernel_walk_holds(kw, pid));
	kernel_walk_mapped(kw, pid, 41, 0x2000, 0x100);
	teach_view(kw, pid, 35, 4);
	CHECK(!kernel_walk_holds(kw, pid));
	teach_view(kw, pid, 42, 5);
	CHECK(kernel_walk_holds(kw, pid));
	/* An exec: everything before it is another program's. */
	kernel_walk_mapped(kw, pid, 50, 0, 0);
	CHECK(!kernel_walk_holds(kw, pid));
	teach_view(kw, pid, 45, 6);
	CHECK(!kernel_walk_holds(kw, pid));
	/* After the exec, the old program's mappings no longer count as covered. */
	kernel_walk_mapped(kw, pid, 51, 0x1000, 0x2000);
	kernel_walk_mapped(kw, pid, 53, 0x8000, 0x1000);
	teach_view(kw, pid, 52, 7);
	CHECK(kernel_walk_holds(kw, pid));
	kernel_walk_close(kw);
}

int main(void)
{
	static unsigned char buf[4096], out[ST_RECORD_MAX];
	const struct perf_event_header *ev = (const void *)buf;
	const struct st_sample *s = (const void *)out;
	struct kw_chain c;
	struct unwind_need need;
	size_t n;

	memset(&c, 0, sizeof(c));
	c.period = 250000;
	c.sp = 0x7ffc0000f000;
	c.n = 3;
	c.stop = KW_STOP_OUTERMOST;
	c.ip[0] = 0x401000;
	c.ip[1] = 0x402000;
	c.ip[2] = 0x403000;
	build(buf, &c, 3, 0);
	n = kernel_walk_convert(ev, out, sizeof(out));
	CHECK_EQ_U64(n, sizeof(struct st_sample) + 5 * 8);
	CHECK_EQ_U64(s->h.type, ST_REC_SAMPLE);
	CHECK_EQ_U64(s->h.size, n);
	CHECK_EQ_U64(s->pid, 41);
	CHECK_EQ_U64(s->tid, 42);
	CHECK_EQ_U64(s->time, 123456789);
	CHECK_EQ_U64(s->ip, 0x401000);
	CHECK_EQ_U64(s->period, 250000);
	CHECK_EQ_U64(s->cpumode, ST_MODE_USER);
	CHECK_EQ_U64(s->nchain, 3);
	CHECK(s->flags & ST_SAMPLE_KERNEL_WALKED);
	CHECK(!(s->flags & (ST_SAMPLE_CHAIN_TRUNC | ST_SAMPLE_HAS_STACK)));
	CHECK_EQ_U64(st_sample_chain(s)[2], 0x403000);
	CHECK_EQ_U64(st_sample_chain(s)[3], 0x7ffc0000f000);
	CHECK_EQ_U64(st_sample_chain(s)[4], 0);
	CHECK(st_record_check(out, n) == n);
	CHECK(!kernel_walk_read_need(ev, &need));
	CHECK_EQ_U64(kernel_walk_lost(ev), 0);
	{
		/* The ring was full: the kernel's count of what it could not write. */
		struct { struct perf_event_header h; uint64_t id, lost; } l = {
			{ PERF_RECORD_LOST, 0, sizeof(l) }, 9, 7 };

		CHECK_EQ_U64(kernel_walk_lost(&l.h), 7);
		CHECK_EQ_U64(kernel_walk_convert(&l.h, out, sizeof(out)), 0);
		l.h.size = sizeof(l) - 1;
		CHECK_EQ_U64(kernel_walk_lost(&l.h), 0);
	}

	/* Taken in the kernel: its two frames first, then the user's. */
	c.kernel = 2;
	c.n = 4;
	c.ip[0] = 0xffffffff81000010ull;
	c.ip[1] = 0xffffffff81000020ull;
	c.ip[2] = 0x401000;
	c.ip[3] = 0x402000;
	build(buf, &c, 4, 0);
	n = kernel_walk_convert(ev, out, sizeof(out));
	CHECK_EQ_U64(n, sizeof(struct st_sample) + 6 * 8);
	CHECK_EQ_U64(s->cpumode, ST_MODE_KERNEL);
	CHECK_EQ_U64(s->ip, 0xffffffff81000010ull);
	CHECK_EQ_U64(st_sample_chain(s)[2], 0x401000);
	CHECK_EQ_U64(st_sample_chain(s)[5], 2);
	/* No user frame after the kernel's, or more kernel frames than it sends: refused. */
	c.kernel = 4;
	build(buf, &c, 4, 0);
	CHECK_EQ_U64(kernel_walk_convert(ev, out, sizeof(out)), 0);
	c.kernel = KW_KERNEL_FRAMES_MAX + 1;
	c.n = KW_FRAMES_MAX;
	build(buf, &c, KW_FRAMES_MAX, 0);
	CHECK_EQ_U64(kernel_walk_convert(ev, out, sizeof(out)), 0);
	c.kernel = 0;
	c.n = 3;
	c.ip[0] = 0x401000;
	c.ip[1] = 0x402000;
	c.ip[2] = 0x403000;

	/* Cut at the frame limit: a truncated chain. */
	c.stop = KW_STOP_MAX_FRAMES;
	c.n = KW_FRAMES_MAX;
	build(buf, &c, KW_FRAMES_MAX, 0);
	CHECK(kernel_walk_convert(ev, out, sizeof(out)) > 0);
	CHECK(s->flags & ST_SAMPLE_CHAIN_TRUNC);
	CHECK_EQ_U64(s->nchain, KW_FRAMES_MAX);
	/* No room for it: refused, nothing written past room. */
	CHECK_EQ_U64(kernel_walk_convert(ev, out, sizeof(struct st_sample) + 8), 0);

	/* Refused: no frames, too many, raw data short of its chain or past the record. */
	c.stop = KW_STOP_OUTERMOST;
	c.n = 0;
	build(buf, &c, 1, 0);
	CHECK_EQ_U64(kernel_walk_convert(ev, out, sizeof(out)), 0);
	c.n = KW_FRAMES_MAX + 1;
	build(buf, &c, KW_FRAMES_MAX + 1, 0);
	CHECK_EQ_U64(kernel_walk_convert(ev, out, sizeof(out)), 0);
	c.n = 3;
	build(buf, &c, 3, -8);
	CHECK_EQ_U64(kernel_walk_convert(ev, out, sizeof(out)), 0);
	build(buf, &c, 3, 4096);
	CHECK_EQ_U64(kernel_walk_convert(ev, out, sizeof(out)), 0);
	/* A header cut short, and a record of another type. */
	n = build(buf, &c, 3, 0);
	((struct perf_event_header *)buf)->size = 20;
	CHECK_EQ_U64(kernel_walk_convert(ev, out, sizeof(out)), 0);
	build(buf, &c, 3, 0);
	((struct perf_event_header *)buf)->type = PERF_RECORD_MMAP;
	CHECK_EQ_U64(kernel_walk_convert(ev, out, sizeof(out)), 0);
	(void)n;

	/* A row asked for: file in sp, address in ip[0]; no chain comes of it. */
	memset(&c, 0, sizeof(c));
	c.stop = KW_STOP_NEED_ROW;
	c.sp = 7;
	c.ip[0] = 0x1234;
	build(buf, &c, 1, 0);
	CHECK(kernel_walk_read_need(ev, &need));
	CHECK_EQ_U64(need.file, 7);
	CHECK_EQ_U64(need.addr, 0x1234);
	CHECK_EQ_U64(kernel_walk_convert(ev, out, sizeof(out)), 0);
	/* Without a file, with a chain, or with its address cut off: no request. */
	c.sp = 0;
	build(buf, &c, 1, 0);
	CHECK(!kernel_walk_read_need(ev, &need));
	c.sp = (uint64_t)UINT32_MAX + 1;
	build(buf, &c, 1, 0);
	CHECK(!kernel_walk_read_need(ev, &need));
	c.sp = 7;
	c.n = 1;
	build(buf, &c, 1, 0);
	CHECK(!kernel_walk_read_need(ev, &need));
	c.n = 0;
	build(buf, &c, 1, -8);
	CHECK(!kernel_walk_read_need(ev, &need));
	check_switches(buf, out);
	check_wakes(buf, out);
	check_teaching();
	check_bpf_names();
	/* After the names: a walker just closed leaves its programs in kallsyms a while. */
	check_pages_put_together();
	return check_done("test_kernel_walk");
}
