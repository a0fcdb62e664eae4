/*
 * test_perf_parse.c - the perf mmap reader and record converter over a
 * constructed perf_event_mmap_page: records of every kind, one wrapping
 * the end of the data area, group counter deltas, multiplexing, context
 * markers in call chains, and a corrupt record.
 */
#include "check.h"
#include "ring/record.h"
#include "sampler/perf_parse.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#define DATA_SIZE 1024u

static struct {
	struct perf_event_mmap_page page;
	_Alignas(8) unsigned char data[DATA_SIZE];
} ring;
static _Alignas(8) unsigned char scratch[65536];

/* Appends a record at data_head, wrapping as the kernel does. */
static void put(const void *rec, size_t len)
{
	const unsigned char *p = rec;

	for (size_t i = 0; i < len; i++)
		ring.data[(ring.page.data_head + i) % DATA_SIZE] = p[i];
	ring.page.data_head += len;
}

static const struct perf_layout group_layout = {
	.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN,
	.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
		PERF_FORMAT_TOTAL_TIME_RUNNING,
	.sample_id_all = 1,
};

/* A group sample: ip, pid/tid, time, period, read{2 counters}, chain. */
static size_t build_sample(uint64_t *w, uint64_t ip, uint64_t cycles,
			   uint64_t instr, uint64_t enabled, uint64_t running)
{
	struct perf_event_header h = { PERF_RECORD_SAMPLE,
				       PERF_RECORD_MISC_USER, 0 };
	size_t n = 1;

	w[n++] = ip;
	w[n++] = (uint64_t)42 | (uint64_t)43 << 32;	/* pid 42, tid 43 */
	w[n++] = 1000 + ip;				/* time */
	w[n++] = 5000;					/* period */
	w[n++] = 2;					/* nr */
	w[n++] = enabled;
	w[n++] = running;
	w[n++] = cycles;
	w[n++] = instr;
	w[n++] = 4;					/* chain: 4 entries */
	w[n++] = (uint64_t)PERF_CONTEXT_USER;		/* marker, dropped */
	w[n++] = ip;
	w[n++] = 0x401000;
	w[n++] = 0x402000;
	h.size = (uint16_t)(n * 8);
	memcpy(w, &h, sizeof(h));
	return n * 8;
}

struct seen {
	int count;
	_Alignas(8) unsigned char out[8][4096];
	size_t size[8];
	struct perf_group_state gs;
};

static void collect(const struct perf_event_header *ev, void *arg)
{
	struct seen *s = arg;

	if (s->count < 8) {
		s->size[s->count] = perf_convert(&group_layout, &s->gs, ev,
						 s->out[s->count]);
		s->count++;
	}
}

static void test_samples_and_wrap(void)
{
	uint64_t w[32];
	struct seen seen;
	const struct st_sample *a, *b;
	size_t len;

	memset(&ring, 0, sizeof(ring));
	memset(&seen, 0, sizeof(seen));
	/* Start near the end so the second sample wraps around. */
	ring.page.data_head = ring.page.data_tail = DATA_SIZE - 152;
	len = build_sample(w, 0x400100, 1000, 2000, 100, 100);
	put(w, len);
	len = build_sample(w, 0x400200, 1600, 2900, 200, 200);
	put(w, len);
	len = build_sample(w, 0x400300, 2600, 3900, 300, 250);
	put(w, len);
	CHECK(perf_mmap_drain(&ring.page, ring.data, DATA_SIZE, scratch,
			      collect, &seen) == 3);
	CHECK_EQ_U64(ring.page.data_tail, ring.page.data_head);
	CHECK(seen.count == 3);
	a = (const void *)seen.out[0];
	b = (const void *)seen.out[1];
	CHECK(seen.size[0] > 0 && seen.size[0] % 8 == 0);
	CHECK(a->h.type == ST_REC_SAMPLE);
	CHECK_EQ_U64(a->ip, 0x400100);
	CHECK(a->pid == 42 && a->tid == 43);
	CHECK_EQ_U64(a->time, 1000 + 0x400100);
	CHECK_EQ_U64(a->period, 5000);
	/* The first sample has no previous values: no interval counts. */
	CHECK(a->ncounters == 0 && !(a->flags & ST_SAMPLE_HAS_COUNTERS));
	CHECK(a->nchain == 3);
	CHECK_EQ_U64(st_sample_chain(a)[0], 0x400100);
	CHECK_EQ_U64(st_sample_chain(a)[2], 0x402000);
	/* The wrapped one: deltas of the cumulative group counts. */
	CHECK(b->ncounters == 2 && (b->flags & ST_SAMPLE_HAS_COUNTERS));
	CHECK_EQ_U64(b->data[0], 600);
	CHECK_EQ_U64(b->data[1], 900);
	CHECK(!(b->flags & ST_SAMPLE_MULTIPLEXED));
	CHECK_EQ_U64(st_sample_chain(b)[0], 0x400200);
	CHECK(b->cpumode == ST_MODE_USER);
	/* enabled grew by 100, running by 50: the group was multiplexed. */
	CHECK(((const struct st_sample *)(const void *)seen.out[2])->flags &
	      ST_SAMPLE_MULTIPLEXED);
	CHECK(st_record_check(seen.out[1], seen.size[1]) == seen.size[1]);
	CHECK(!(a->flags & ST_SAMPLE_CHAIN_TRUNC));

	/* At the kernel's perf_event_max_stack (here 3 frames): a cut chain. */
	{
		struct perf_layout l = group_layout;
		struct perf_group_state gs;
		_Alignas(8) unsigned char out[4096];
		const struct st_sample *s = (const void *)out;

		len = build_sample(w, 0x400100, 1000, 2000, 100, 100);
		memset(&gs, 0, sizeof(gs));
		l.max_stack = 3;
		CHECK(perf_convert(&l, &gs, (const void *)w, out) > 0);
		CHECK(s->nchain == 3 && (s->flags & ST_SAMPLE_CHAIN_TRUNC));
		memset(&gs, 0, sizeof(gs));
		l.max_stack = 4;
		CHECK(perf_convert(&l, &gs, (const void *)w, out) > 0);
		CHECK(s->nchain == 3 && !(s->flags & ST_SAMPLE_CHAIN_TRUNC));
	}
}

static void test_side_records(void)
{
	_Alignas(8) unsigned char buf[256];
	struct perf_event_header h;
	uint64_t w[16];
	struct seen seen;
	const struct st_mmap *m;
	const struct st_task *t;
	const struct st_comm *c;
	const struct st_lost *l;
	size_t n;

	memset(&ring, 0, sizeof(ring));
	memset(&seen, 0, sizeof(seen));
	/* MMAP2: pid/tid, addr, len, pgoff, maj/min, ino, gen, prot/flags, name, id. */
	memset(buf, 0, sizeof(buf));
	n = sizeof(h);
	w[0] = 42 | (uint64_t)42 << 32;
	w[1] = 0x400000;
	w[2] = 0x2000;
	w[3] = 0x1000;
	w[4] = w[5] = w[6] = 0;
	w[7] = PROT_READ | PROT_EXEC;
	memcpy(buf + n, w, 64);
	n += 64;
	memcpy(buf + n, "/usr/bin/demo\0\0\0", 16);
	n += 16;
	w[0] = 42 | (uint64_t)42 << 32;	/* sample_id: tid, time */
	w[1] = 777;
	memcpy(buf + n, w, 16);
	n += 16;
	h = (struct perf_event_header){ PERF_RECORD_MMAP2, 0, (uint16_t)n };
	memcpy(buf, &h, sizeof(h));
	put(buf, n);
	/* FORK: pid, ppid, tid, ptid, time. */
	w[0] = 42 | (uint64_t)42 << 32;
	w[1] = 44 | (uint64_t)43 << 32;
	w[2] = 888;
	h = (struct perf_event_header){ PERF_RECORD_FORK, 0, 8 + 24 };
	memcpy(buf, &h, 8);
	memcpy(buf + 8, w, 24);
	put(buf, 32);
	/* COMM */
	h = (struct perf_event_header){ PERF_RECORD_COMM, 0, 8 + 8 + 8 + 16 };
	memcpy(buf, &h, 8);
	w[0] = 42 | (uint64_t)44 << 32;
	memcpy(buf + 8, w, 8);
	memcpy(buf + 16, "worker\0\0", 8);
	w[0] = 0;
	w[1] = 999;
	memcpy(buf + 24, w, 16);
	put(buf, 40);
	/* COMM of an exec (comm_exec): the process's image is replaced. */
	h = (struct perf_event_header){ PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, 40 };
	memcpy(buf, &h, 8);
	memcpy(buf + 16, "make\0\0\0\0", 8);
	put(buf, 40);
	/* LOST: id, lost, sample_id. */
	h = (struct perf_event_header){ PERF_RECORD_LOST, 0, 8 + 16 + 16 };
	memcpy(buf, &h, 8);
	w[0] = 1;
	w[1] = 17;
	w[2] = 0;
	w[3] = 1234;
	memcpy(buf + 8, w, 32);
	put(buf, 40);
	CHECK(perf_mmap_drain(&ring.page, ring.data, DATA_SIZE, scratch,
			      collect, &seen) == 5);
	m = (const void *)seen.out[0];
	CHECK(m->h.type == ST_REC_MMAP);
	CHECK_EQ_U64(m->start, 0x400000);
	CHECK_EQ_U64(m->len, 0x2000);
	CHECK_EQ_U64(m->pgoff, 0x1000);
	CHECK_EQ_U64(m->time, 777);
	CHECK(!strcmp(m->filename, "/usr/bin/demo"));
	CHECK(st_record_check(m, seen.size[0]) == seen.size[0]);
	t = (const void *)seen.out[1];
	CHECK(t->h.type == ST_REC_FORK && t->tid == 44 && t->ptid == 43 &&
	      t->pid == 42);
	c = (const void *)seen.out[2];
	CHECK(c->h.type == ST_REC_COMM && c->tid == 44 && !strcmp(c->comm, "worker"));
	CHECK_EQ_U64(c->time, 999);
	c = (const void *)seen.out[3];
	CHECK(c->h.type == ST_REC_EXEC && c->pid == 42 && !strcmp(c->comm, "make"));
	CHECK(st_record_check(c, seen.size[3]) == seen.size[3]);
	l = (const void *)seen.out[4];
	CHECK(l->h.type == ST_REC_LOST);
	CHECK_EQ_U64(l->count, 17);
}

static void test_data_mmap_ignored(void)
{
	_Alignas(8) unsigned char buf[128], out[4096];
	struct perf_event_header h = { PERF_RECORD_MMAP2, 0, 8 + 64 + 8 };
	uint64_t w[8] = { 0, 0x1000, 0x1000, 0, 0, 0, 0, PROT_READ };

	memcpy(buf, &h, 8);
	memcpy(buf + 8, w, 64);
	memcpy(buf + 72, "/data\0\0\0", 8);
	CHECK(perf_convert(&group_layout, NULL, (const void *)buf, out) == 0);
}

static void test_corrupt(void)
{
	struct perf_event_header bad = { PERF_RECORD_SAMPLE, 0, 0 };
	struct seen seen;

	memset(&ring, 0, sizeof(ring));
	memset(&seen, 0, sizeof(seen));
	put(&bad, sizeof(bad));
	put(&bad, sizeof(bad));
	CHECK(perf_mmap_drain(&ring.page, ring.data, DATA_SIZE, scratch,
			      collect, &seen) == -EBADMSG);
	CHECK(seen.count == 0);
	/* The reader skips to the head rather than loop on garbage. */
	CHECK_EQ_U64(ring.page.data_tail, ring.page.data_head);
}

static void test_misaligned(void)
{
	struct perf_event_header odd = { PERF_RECORD_SAMPLE, 0, 12 };
	unsigned char pad[4] = { 0 };
	struct seen seen;

	memset(&ring, 0, sizeof(ring));
	memset(&seen, 0, sizeof(seen));
	put(&odd, sizeof(odd));
	put(pad, sizeof(pad));
	CHECK(perf_mmap_drain(&ring.page, ring.data, DATA_SIZE, scratch,
			      collect, &seen) == -EBADMSG);
	CHECK(seen.count == 0);
}

static void test_truncated_sample(void)
{
	uint64_t w[32];
	size_t len = build_sample(w, 0x400100, 1, 1, 1, 1);
	struct perf_event_header h;
	_Alignas(8) unsigned char out[4096];
	struct perf_group_state gs;

	memset(&gs, 0, sizeof(gs));
	/* Claim a shorter record: the chain would run past its end. */
	memcpy(&h, w, sizeof(h));
	h.size = (uint16_t)(len - 16);
	memcpy(w, &h, sizeof(h));
	CHECK(perf_convert(&group_layout, &gs, (const void *)w, out) == 0);
}

/*
 * A sample with user registers and a stack copy, as --call-graph dwarf
 * asks: ip, tid, then abi, bp, sp, ip, then the copy's size, its bytes
 * and the part the kernel filled (dyn_size).
 */
static size_t build_stack_sample(uint64_t *w, uint64_t abi, uint64_t size, uint64_t dyn)
{
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 0 };
	size_t n = 1;

	w[n++] = 0x401000;			/* IP */
	w[n++] = 43ull << 32 | 42;		/* TID */
	w[n++] = abi;
	if (abi) {
		w[n++] = 0x7ffd0100;		/* bp */
		w[n++] = 0x7ffd0000;		/* sp */
		w[n++] = 0x401000;		/* ip */
	}
	w[n++] = size;
	for (uint64_t i = 0; i < size / 8; i++)
		w[n++] = 0x1111111111111111ull * (i + 1);
	if (size)
		w[n++] = dyn;
	h.size = (uint16_t)(n * 8);
	memcpy(w, &h, sizeof(h));
	return n * 8;
}

/* A source's keep rule: 16 bytes of any copy; the thread it was asked for. */
static size_t keep_16(void *arg, uint32_t tid, uint64_t sp, size_t size)
{
	*(uint32_t *)arg = tid;
	(void)sp;
	return size < 16 ? size : 16;
}

static void test_stack_copy(void)
{
	uint32_t kept_tid = 0;
	struct perf_layout l = { .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				 PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER,
				 .regs_user = PERF_STACK_REGS };
	_Alignas(8) unsigned char out[4096];
	const struct st_sample *s = (const void *)out;
	const struct st_stack *k;
	struct perf_group_state gs;
	uint64_t w[64];
	size_t n;

	memset(&gs, 0, sizeof(gs));
	/* 64 bytes copied, 24 of them filled by the kernel: 24 kept. */
	build_stack_sample(w, PERF_SAMPLE_REGS_ABI_64, 64, 24);
	n = perf_convert(&l, &gs, (const void *)w, out);
	CHECK(n > 0 && st_record_check(out, n) == n);
	CHECK(s->flags & ST_SAMPLE_HAS_STACK);
	k = st_sample_stack(s);
	CHECK_EQ_U64(k->bp, 0x7ffd0100);
	CHECK_EQ_U64(k->sp, 0x7ffd0000);
	CHECK_EQ_U64(k->ip, 0x401000);
	CHECK(k->size == 24 && k->base == 0);
	CHECK(memcmp(k->bytes, &w[8], 24) == 0);
	CHECK(n == sizeof(*s) + sizeof(*k) + 24);
	/* What the source keeps of a copy (its thread's need) is all that is copied. */
	l.stack_keep = keep_16;
	l.stack_keep_arg = &kept_tid;
	build_stack_sample(w, PERF_SAMPLE_REGS_ABI_64, 64, 64);
	n = perf_convert(&l, &gs, (const void *)w, out);
	k = st_sample_stack(s);
	CHECK(n == sizeof(*s) + sizeof(*k) + 16 && st_record_check(out, n) == n);
	CHECK(k->size == 16 && memcmp(k->bytes, &w[8], 16) == 0);
	CHECK(kept_tid == s->tid);
	l.stack_keep = NULL;
	/* A kernel thread: no user registers, so no stack. */
	build_stack_sample(w, PERF_SAMPLE_REGS_ABI_NONE, 64, 64);
	n = perf_convert(&l, &gs, (const void *)w, out);
	CHECK(n == sizeof(*s) && !(s->flags & ST_SAMPLE_HAS_STACK));
	/* dyn_size past the copy, a size past the record, an odd size: corrupt. */
	build_stack_sample(w, PERF_SAMPLE_REGS_ABI_64, 64, 72);
	CHECK(perf_convert(&l, &gs, (const void *)w, out) == 0);
	build_stack_sample(w, PERF_SAMPLE_REGS_ABI_64, 64, 64);
	w[7] = 4096;
	CHECK(perf_convert(&l, &gs, (const void *)w, out) == 0);
	w[7] = 60;
	CHECK(perf_convert(&l, &gs, (const void *)w, out) == 0);
	/* A record that claims a stack its size cannot hold fails the check. */
	build_stack_sample(w, PERF_SAMPLE_REGS_ABI_64, 64, 64);
	n = perf_convert(&l, &gs, (const void *)w, out);
	CHECK(n > 0);
	k = st_sample_stack(s);
	((struct st_stack *)(uintptr_t)k)->size = 4000;
	CHECK(st_record_check(out, n) == 0);
}

/*
 * An ibs_op sample as the kernel writes it: ip, pid/tid, time, cpu,
 * period, then the raw size and the capabilities and registers.
 */
static size_t build_ibs(uint64_t *w, uint32_t caps, unsigned nregs, uint32_t cpu)
{
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 0 };
	size_t n = 1;
	uint32_t raw = 4 + 8 * nregs;

	w[n++] = 0x401000;			/* ip */
	w[n++] = 7ull | 8ull << 32;		/* pid 7, tid 8 */
	w[n++] = 5000;				/* time */
	w[n++] = cpu;				/* cpu, res */
	w[n++] = 0x100000;			/* period */
	/* u32 size, u32 caps, then the registers at 8-byte alignment */
	w[n++] = raw | (uint64_t)caps << 32;
	for (unsigned i = 0; i < nregs; i++)
		w[n++] = 0x1111111111111111ull * (i + 1);
	h.size = (uint16_t)(n * 8);
	memcpy(w, &h, sizeof(h));
	return n * 8;
}

static void test_ibs_raw(void)
{
	struct perf_layout l = { .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
				 PERF_SAMPLE_RAW, .sample_id_all = 1, .ibs = true,
				 .ibs_kind = ST_IBS_OP_KIND, .family = 0x19, .model = 0x11 };
	_Alignas(8) unsigned char out[ST_RECORD_MAX];
	const struct st_ibs *b = (const void *)out;
	uint64_t w[32];
	/* OpSam with BrnTrgt: seven registers and the branch target */
	uint32_t caps = 0x1 | 0x4 | 0x20;
	size_t len = build_ibs(w, caps, 8, 3);

	CHECK(perf_convert(&l, NULL, (const void *)w, out) == sizeof(*b) + 8 * 8);
	CHECK(b->h.type == ST_REC_IBS && b->h.source == ST_SOURCE_IBS);
	CHECK(b->pid == 7 && b->tid == 8 && b->time == 5000 && b->cpu == 3);
	CHECK(b->ip == 0x401000 && b->period == 0x100000 && b->cpumode == ST_MODE_USER);
	CHECK(b->caps == caps && b->nregs == 8 && b->kind == ST_IBS_OP_KIND);
	CHECK(b->family == 0x19 && b->model == 0x11);
	CHECK(b->reg[0] == 0x1111111111111111ull && b->reg[7] == 0x8888888888888888ull);
	CHECK(st_record_check(out, sizeof(out)) == b->h.size);
	/* Capabilities promising a register the sample lacks: dropped, not misread. */
	build_ibs(w, caps | 0x400, 8, 3);
	CHECK(perf_convert(&l, NULL, (const void *)w, out) == 0);
	/* A raw size past the record's end. */
	build_ibs(w, caps, 8, 3);
	w[6] = 0xfff0 | (uint64_t)caps << 32;
	CHECK(perf_convert(&l, NULL, (const void *)w, out) == 0);
	/* A record claiming more registers than any sample has. */
	build_ibs(w, caps, 8, 3);
	CHECK(perf_convert(&l, NULL, (const void *)w, out) > 0);
	((struct st_ibs *)(void *)out)->nregs = 10;
	CHECK(st_record_check(out, sizeof(out)) == 0);

	/* With a stack copy (--call-graph dwarf): registers and bytes after the raw ones. */
	l.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	l.regs_user = PERF_STACK_REGS;
	len = build_ibs(w, caps, 8, 3) / 8;
	w[len++] = PERF_SAMPLE_REGS_ABI_64;
	w[len++] = 0x7ffd1000;		/* bp */
	w[len++] = 0x7ffd0f00;		/* sp */
	w[len++] = 0x401000;		/* ip */
	w[len++] = 16;			/* size */
	w[len++] = 0xaaaa;
	w[len++] = 0xbbbb;
	w[len++] = 16;			/* dyn_size */
	{
		struct perf_event_header eh;

		memcpy(&eh, w, sizeof(eh));
		eh.size = (uint16_t)(len * 8);
		memcpy(w, &eh, sizeof(eh));
	}
	CHECK(perf_convert(&l, NULL, (const void *)w, out) == sizeof(*b) + 8 * 8 +
	      sizeof(struct st_stack) + 16);
	CHECK(b->flags == ST_IBS_HAS_STACK && b->reg[7] == 0x8888888888888888ull);
	CHECK(st_ibs_stack(b)->sp == 0x7ffd0f00 && st_ibs_stack(b)->ip == 0x401000 &&
	      st_ibs_stack(b)->size == 16 && st_ibs_stack(b)->bytes[0] == 0xaa);
	CHECK(st_record_check(out, sizeof(out)) == b->h.size);
	/* A stack size past the record: the record check refuses it. */
	((struct st_stack *)(uintptr_t)st_ibs_stack(b))->size = 4096;
	CHECK(st_record_check(out, sizeof(out)) == 0);
	/* An unknown flag would change the layout: refused. */
	((struct st_stack *)(uintptr_t)st_ibs_stack(b))->size = 16;
	((struct st_ibs *)(void *)out)->flags = 0x3;
	CHECK(st_record_check(out, sizeof(out)) == 0);
}

/*
 * A kernel sample's chain: the kernel's frames, then the user's.  A user
 * frame in the kernel's half (a frame pointer through data) is no code:
 * 0, as perf report finds no map for it, never a kernel address.
 */
static void test_user_frames_in_kernel_half(void)
{
	uint64_t w[32];
	struct seen seen;
	const struct st_sample *a;
	const uint64_t *chain;
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL, 0 };
	size_t n = 1;

	memset(&ring, 0, sizeof(ring));
	memset(&seen, 0, sizeof(seen));
	w[n++] = 0xffffffff81001234;			/* ip, in the kernel */
	w[n++] = (uint64_t)42 | (uint64_t)43 << 32;
	w[n++] = 2000;
	w[n++] = 5000;
	w[n++] = 2;
	w[n++] = 100;
	w[n++] = 100;
	w[n++] = 1;
	w[n++] = 1;
	w[n++] = 7;
	w[n++] = (uint64_t)PERF_CONTEXT_KERNEL;
	w[n++] = 0xffffffff81001234;
	w[n++] = 0xffffffffc0001000;			/* a module's: kept */
	w[n++] = (uint64_t)PERF_CONTEXT_USER;
	w[n++] = 0x401000;
	w[n++] = 0xffffffffc9bc3400;			/* through data */
	w[n++] = 0x402000;
	h.size = (uint16_t)(n * 8);
	memcpy(w, &h, sizeof(h));
	put(w, n * 8);
	CHECK(perf_mmap_drain(&ring.page, ring.data, DATA_SIZE, scratch, collect, &seen) == 1);
	a = (const void *)seen.out[0];
	chain = st_sample_chain(a);
	CHECK_EQ_U64(a->nchain, 5);
	CHECK_EQ_U64(chain[0], 0xffffffff81001234);
	CHECK_EQ_U64(chain[1], 0xffffffffc0001000);
	CHECK_EQ_U64(chain[2], 0x401000);
	CHECK_EQ_U64(chain[3], 0);
	CHECK_EQ_U64(chain[4], 0x402000);
}

/*
 * --call-graph lbr: the branch stack's calls are the user callers, after
 * the kernel's frames and the user ip; the frame-pointer walk after the
 * user ip is dropped.  Without the call-stack mode, and in a chain with
 * no user part, the chain stays as the kernel wrote it.
 */
static size_t build_lbr_sample(uint64_t *w, bool user_part)
{
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL, 0 };
	size_t n = 1;

	w[n++] = 0xffffffff81001234;			/* ip */
	w[n++] = (uint64_t)42 | (uint64_t)43 << 32;
	w[n++] = 3000;
	w[n++] = 5000;
	w[n++] = user_part ? 5 : 2;
	w[n++] = (uint64_t)PERF_CONTEXT_KERNEL;
	w[n++] = 0xffffffff81001234;
	if (user_part) {
		w[n++] = (uint64_t)PERF_CONTEXT_USER;
		w[n++] = 0x401234;			/* the user ip */
		w[n++] = 0x10;				/* garbage of a walk */
	}
	w[n++] = 3;					/* branches, newest first */
	w[n++] = 7;					/* hw_idx */
	w[n++] = 0x401500; w[n++] = 0x401200; w[n++] = 0;	/* from, to, flags */
	w[n++] = 0x400800; w[n++] = 0x401480; w[n++] = 0;
	w[n++] = 0x400100; w[n++] = 0x400780; w[n++] = 0;
	h.size = (uint16_t)(n * 8);
	memcpy(w, &h, sizeof(h));
	return n * 8;
}

static void test_lbr_call_stack(void)
{
	struct perf_layout l = {
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_BRANCH_STACK,
		.branch_hw_index = true, .lbr_callstack = true,
	};
	static _Alignas(8) unsigned char out[ST_RECORD_MAX];
	const struct st_sample *s = (const void *)out;
	struct perf_group_state gs = { 0 };
	uint64_t w[32];
	const uint64_t *chain;

	build_lbr_sample(w, true);
	CHECK(perf_convert(&l, &gs, (const void *)w, out) > 0);
	chain = st_sample_chain(s);
	CHECK_EQ_U64(s->nchain, 5);
	CHECK_EQ_U64(chain[0], 0xffffffff81001234);
	CHECK_EQ_U64(chain[1], 0x401234);
	CHECK_EQ_U64(chain[2], 0x401500);
	CHECK_EQ_U64(chain[3], 0x400800);
	CHECK_EQ_U64(chain[4], 0x400100);

	build_lbr_sample(w, false);
	CHECK(perf_convert(&l, &gs, (const void *)w, out) > 0);
	CHECK_EQ_U64(s->nchain, 1);

	l.lbr_callstack = false;
	build_lbr_sample(w, true);
	CHECK(perf_convert(&l, &gs, (const void *)w, out) > 0);
	chain = st_sample_chain(s);
	CHECK_EQ_U64(s->nchain, 3);
	CHECK_EQ_U64(chain[2], 0x10);

	/* A branch count past the record's end: refused, not read. */
	l.lbr_callstack = true;
	build_lbr_sample(w, true);
	w[11] = 4;
	CHECK(perf_convert(&l, &gs, (const void *)w, out) == 0);
}

/*
 * --off-cpu: a sched_switch sample's raw prev_state says why its thread
 * left (8 bytes at 32, as this kernel's format says; 4 bytes on others),
 * another event's raw data (4 zero bytes) says nothing; and a switch
 * record names the thread in its id trailer.
 */
static size_t build_switch_sample(uint64_t *w, uint64_t state, uint32_t raw_size)
{
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL, 0 };
	size_t n = 1;
	unsigned char raw[72];

	w[n++] = 0xffffffff81000100ull;			/* ip */
	w[n++] = (uint64_t)7 | (uint64_t)9 << 32;	/* pid 7, tid 9 */
	w[n++] = 5000;					/* time */
	w[n++] = 1;					/* period */
	memset(raw, 0, sizeof(raw));
	memcpy(raw, &raw_size, 4);
	memcpy(raw + 4 + 32, &state, 8);
	memcpy(&w[n], raw, 4 + 68);			/* raw: size, then 68 bytes */
	n += 9;
	h.size = (uint16_t)(n * 8);
	memcpy(w, &h, sizeof(h));
	return n * 8;
}

static void test_offcpu_records(void)
{
	struct perf_layout l = { .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				 PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW,
				 .sample_id_all = 1, .switch_state_at = 32, .switch_state_size = 8 };
	static const struct { uint64_t state; enum st_offcpu_reason why; } states[] = {
		{ 0x1, ST_OFFCPU_SLEEP }, { 0x2, ST_OFFCPU_DISK }, { 0x0, ST_OFFCPU_RUNNABLE },
		{ 0x100, ST_OFFCPU_RUNNABLE }, { 0x1000, ST_OFFCPU_RUNNABLE },
		{ 0x4, ST_OFFCPU_STOPPED }, { 0x8, ST_OFFCPU_STOPPED }, { 0x80, ST_OFFCPU_SLEEP },
		{ 0x10, ST_OFFCPU_EXITED }, { 0x20, ST_OFFCPU_EXITED },
	};
	_Alignas(8) unsigned char out[ST_RECORD_MAX];
	const struct st_sample *s = (const void *)out;
	const struct st_switch *sw = (const void *)out;
	uint64_t w[32];

	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++) {
		build_switch_sample(w, states[i].state, 68);
		CHECK(perf_convert(&l, NULL, (const void *)w, out) == sizeof(*s));
		CHECK(s->tid == 9 && s->time == 5000 && s->cpumode == ST_MODE_KERNEL);
		CHECK_EQ_U64(ST_SAMPLE_OFFCPU(s->flags), states[i].why);
	}
	/* Raw data too short for prev_state (another event's): no reason, still a sample. */
	build_switch_sample(w, 0x2, 36);
	CHECK(perf_convert(&l, NULL, (const void *)w, out) == sizeof(*s));
	CHECK(ST_SAMPLE_OFFCPU(s->flags) == ST_OFFCPU_NONE);
	/* prev_state as 4 bytes (an older format): the low half read. */
	l.switch_state_size = 4;
	build_switch_sample(w, 0x2, 68);
	CHECK(perf_convert(&l, NULL, (const void *)w, out) > 0 &&
	      ST_SAMPLE_OFFCPU(s->flags) == ST_OFFCPU_DISK);
	/* Not asked (no --off-cpu): raw data skipped, no reason. */
	l.switch_state_size = 0;
	build_switch_sample(w, 0x2, 68);
	CHECK(perf_convert(&l, NULL, (const void *)w, out) > 0 && !ST_SAMPLE_OFFCPU(s->flags));
	/* A raw size past the record: refused. */
	l.switch_state_size = 8;
	build_switch_sample(w, 0x2, 4000);
	CHECK(perf_convert(&l, NULL, (const void *)w, out) == 0);

	/* Switch records: out (preempted) and in; the thread and time from the trailer. */
	{
		struct perf_event_header h = { PERF_RECORD_SWITCH, PERF_RECORD_MISC_SWITCH_OUT |
					       PERF_RECORD_MISC_SWITCH_OUT_PREEMPT, 8 + 16 };
		uint64_t rec[3];

		memcpy(rec, &h, sizeof(h));
		rec[1] = (uint64_t)7 | (uint64_t)9 << 32;
		rec[2] = 6000;
		CHECK(perf_convert(&l, NULL, (const void *)rec, out) == sizeof(*sw));
		CHECK(sw->h.type == ST_REC_SWITCH && sw->tid == 9 && sw->pid == 7);
		CHECK(sw->time == 6000 && sw->flags == (ST_SWITCH_OUT | ST_SWITCH_PREEMPT));
		CHECK(st_record_check(out, sizeof(out)) == sizeof(*sw));
		CHECK(st_record_time(out) == 6000);
		h.misc = 0;
		memcpy(rec, &h, sizeof(h));
		CHECK(perf_convert(&l, NULL, (const void *)rec, out) == sizeof(*sw) &&
		      sw->flags == 0);
		/* Cut short of its trailer: not kept. */
		h.size = 8;
		memcpy(rec, &h, sizeof(h));
		CHECK(perf_convert(&l, NULL, (const void *)rec, out) == 0);
	}
}

int main(void)
{
	test_offcpu_records();
	test_lbr_call_stack();
	test_user_frames_in_kernel_half();
	test_ibs_raw();
	test_stack_copy();
	test_samples_and_wrap();
	test_side_records();
	test_data_mmap_ignored();
	test_corrupt();
	test_misaligned();
	test_truncated_sample();
	return check_done("test_perf_parse");
}
