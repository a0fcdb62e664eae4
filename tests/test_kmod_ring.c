/*
 * test_kmod_ring.c - shimtop's reader of the IBS module's rings over a
 * ring image built here the way the module writes it (uapi/shimtop_ibs.h):
 * op samples become st_ibs records, counts become weighted samples, and
 * what does not check (a selftest record, a wrong register count, another
 * CPU's record, a head out of reach) is skipped and counted.
 */
#include "check.h"
#include "ring/record.h"
#include "sampler/kmod_ring.h"
#include "sampler/kmod_source.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define RINGS	2u
#define NREC	64u
#define PERIOD	0x10000u

static struct shimtop_ibs_info info;
static uint8_t *map;
static uint32_t seq[RINGS];

static struct shimtop_ibs_ring *ring_of(uint32_t r)
{
	return (void *)(map + info.ring_stride * r);
}

/* As the module's ring_insert: the record, then head moved on. */
static void put(uint32_t r, struct shimtop_ibs_record rec)
{
	struct shimtop_ibs_ring *rg = ring_of(r);
	struct shimtop_ibs_record *recs = (void *)(rg + 1);

	rec.seq = seq[r]++;
	recs[rg->head % NREC] = rec;
	__atomic_store_n(&rg->head, rg->head + 1, __ATOMIC_RELEASE);
}

static struct shimtop_ibs_record op(uint32_t cpu, uint64_t rip, uint8_t nregs, uint8_t flags)
{
	struct shimtop_ibs_record r;

	memset(&r, 0, sizeof(r));
	r.type = SHIMTOP_IBS_REC_OP;
	r.nregs = nregs;
	r.flags = flags;
	r.cpu = cpu;
	r.pid = 100;
	r.tid = 101;
	r.time = 5000 + rip;
	r.rip = rip;
	r.count = 1;
	r.caps = 0x8f5;		/* Zen 4: BrnTrgt, eight registers */
	r.reg[0] = 1ull << 18 | 1ull << 19;
	r.reg[1] = rip;
	r.reg[4] = 1 | 1ull << 17;	/* a load, its address valid */
	r.reg[5] = 0x7f0000001000 + rip;
	return r;
}

static struct {
	unsigned char rec[512];
	size_t size;
} got[256];
static size_t ngot;

static void take(const void *rec, void *arg)
{
	const struct st_header *h = rec;

	(void)arg;
	if (ngot < 256 && h->size <= sizeof(got[0].rec)) {
		memcpy(got[ngot].rec, rec, h->size);
		got[ngot++].size = h->size;
	}
}

/* Ring r as a Zen 4 (family 19h, model 11h) reads it, up to `until`. */
static size_t drain(uint32_t r, struct kmod_ring_cursor *cur, uint64_t until,
		    struct kmod_ring_stats *st)
{
	return kmod_ring_drain(map, &info, r, cur, 0x19, 0x11, PERIOD, until, take, NULL, st);
}

static void info_checks(void)
{
	struct shimtop_ibs_info in = info;
	char err[256];

	CHECK(kmod_info_check(&info, err, sizeof(err)) == 0);
	in.version = 1;
	CHECK(kmod_info_check(&in, err, sizeof(err)) == -EINVAL &&
	      strstr(err, "speaks version 1, shimtop 2"));
	in = info;
	in.nrec = 100;
	CHECK(kmod_info_check(&in, err, sizeof(err)) == -EINVAL &&
	      strstr(err, "2 rings of 100 records"));
	in = info;
	in.ring_stride = 4096;
	CHECK(kmod_info_check(&in, err, sizeof(err)) == -EINVAL && strstr(err, "do not hold"));
	in = info;
	in.map_size = info.ring_stride;
	CHECK(kmod_info_check(&in, err, sizeof(err)) == -EINVAL && strstr(err, "do not hold"));
	in = info;
	in.rings = 0;
	CHECK(kmod_info_check(&in, err, sizeof(err)) == -EINVAL);
}

static void records(void)
{
	struct kmod_ring_cursor cur[RINGS];
	struct kmod_ring_stats st;
	struct shimtop_ibs_record r;
	const struct st_ibs *b;
	const struct st_sample *s;

	memset(cur, 0, sizeof(cur));
	memset(&st, 0, sizeof(st));
	put(1, op(1, 0x401000, 8, 0));
	put(1, op(1, 0x401010, 8, SHIMTOP_IBS_KERNEL));
	r = op(1, 0x401020, 7, 0);		/* caps promise 8 */
	put(1, r);
	r = op(0, 0x401030, 8, 0);		/* CPU 0's record in CPU 1's ring */
	put(1, r);
	memset(&r, 0, sizeof(r));
	r.type = SHIMTOP_IBS_REC_TEST;		/* selftest: never a sample */
	r.cpu = 1;
	put(1, r);
	r.type = SHIMTOP_IBS_REC_COUNT;
	r.pid = 7;
	r.tid = 8;
	r.rip = 0x402000;
	r.count = 5;
	r.time = 9000;
	put(1, r);
	r.flags = SHIMTOP_IBS_KERNEL;		/* a kernel RIP's count */
	r.rip = 0xffffffff81000000ull;
	put(1, r);
	r.flags = 0;
	r.pid = 0;				/* a count of no process */
	put(1, r);
	ngot = 0;
	CHECK(drain(1, &cur[1], UINT64_MAX, &st) == 4);
	CHECK(ngot == 4 && st.records == 4 && st.bad == 4 && st.seq_gaps == 0);
	CHECK(ring_of(1)->tail == ring_of(1)->head);
	b = (const void *)got[0].rec;
	CHECK(b->h.type == ST_REC_IBS && b->h.source == ST_SOURCE_IBS &&
	      b->h.size == sizeof(*b) + 8 * 8);
	CHECK(b->pid == 100 && b->tid == 101 && b->ip == 0x401000 && b->time == 5000 + 0x401000);
	CHECK(b->period == PERIOD && b->caps == 0x8f5 && b->nregs == 8 && b->family == 0x19 &&
	      b->model == 0x11 && b->cpu == 1 && b->cpumode == ST_MODE_USER);
	CHECK(b->reg[5] == 0x7f0000001000 + 0x401000 && b->reg[1] == 0x401000);
	b = (const void *)got[1].rec;
	CHECK(b->cpumode == ST_MODE_KERNEL && b->ip == 0x401010);
	s = (const void *)got[2].rec;
	CHECK(s->h.type == ST_REC_SAMPLE && s->h.source == ST_SOURCE_IBS && s->pid == 7 &&
	      s->tid == 8 && s->ip == 0x402000 && s->period == 5ull * PERIOD && s->time == 9000 &&
	      s->cpumode == ST_MODE_USER);
	s = (const void *)got[3].rec;
	CHECK(s->pid == 7 && s->ip == 0xffffffff81000000ull && s->cpumode == ST_MODE_KERNEL);
	/* Nothing new: nothing handed on, nothing counted. */
	CHECK(drain(1, &cur[1], UINT64_MAX, &st) == 0);
	CHECK(st.records == 4 && st.bad == 4);
	/* The module's drops show as lost, counted once. */
	ring_of(1)->dropped = 7;
	drain(1, &cur[1], UINT64_MAX, &st);
	ring_of(1)->dropped = 9;
	drain(1, &cur[1], UINT64_MAX, &st);
	CHECK_EQ_U64(st.lost, 9);
	/* Records missing between two read: a gap in the sequence. */
	seq[1] += 2;
	put(1, op(1, 0x401040, 8, 0));
	drain(1, &cur[1], UINT64_MAX, &st);
	CHECK_EQ_U64(st.seq_gaps, 2);
	/* A head out of reach: skipped to it, nothing read. */
	ngot = 0;
	ring_of(1)->head = ring_of(1)->tail + NREC + 1;
	CHECK(drain(1, &cur[1], UINT64_MAX, &st) == 0);
	CHECK(ngot == 0 && st.resyncs == 1 && ring_of(1)->tail == ring_of(1)->head);
	/* A ring past the last is not read. */
	CHECK(drain(RINGS, &cur[0], UINT64_MAX, &st) == 0);
}

/* Many laps of ring 0, drained in uneven batches: all of it, in order. */
static void wraps(void)
{
	struct kmod_ring_cursor cur;
	struct kmod_ring_stats st;
	uint64_t want = 0x500000, bad_order = 0, taken = 0;

	memset(&cur, 0, sizeof(cur));
	memset(&st, 0, sizeof(st));
	for (unsigned round = 0; round < 40; round++) {
		unsigned n = 1 + round * 7 % NREC;

		for (unsigned i = 0; i < n; i++)
			put(0, op(0, 0x500000 + taken + i, 8, 0));
		ngot = 0;
		CHECK(kmod_ring_drain(map, &info, 0, &cur, 0x1a, 0x02, PERIOD, UINT64_MAX, take, NULL,
				      &st) == n);
		for (size_t i = 0; i < ngot; i++)
			bad_order += ((const struct st_ibs *)(const void *)got[i].rec)->ip != want++;
		taken += n;
	}
	CHECK(bad_order == 0 && st.records == taken && st.bad == 0 && st.seq_gaps == 0);
}

/*
 * Records stamped after `until` stay in the ring for a later call, so
 * that the side band's maps can come first: none lost, none counted as a
 * gap, none handed twice.
 */
static void held_back(void)
{
	struct kmod_ring_cursor cur;
	struct kmod_ring_stats st;
	uint64_t head;

	memset(&cur, 0, sizeof(cur));
	memset(&st, 0, sizeof(st));
	drain(0, &cur, UINT64_MAX, &st);
	memset(&st, 0, sizeof(st));
	for (uint64_t i = 1; i <= 3; i++)
		put(0, op(0, i, 8, 0));		/* stamped 5001, 5002, 5003 */
	head = ring_of(0)->head;
	ngot = 0;
	CHECK(drain(0, &cur, 5000, &st) == 0 && ring_of(0)->tail == head - 3);
	CHECK(drain(0, &cur, 5002, &st) == 2 && ring_of(0)->tail == head - 1);
	CHECK(drain(0, &cur, 5002, &st) == 0);
	CHECK(drain(0, &cur, UINT64_MAX, &st) == 1 && ring_of(0)->tail == head);
	CHECK(ngot == 3 && st.records == 3 && st.seq_gaps == 0 && st.bad == 0);
	for (size_t i = 0; i < ngot; i++)
		CHECK(((const struct st_ibs *)(const void *)got[i].rec)->ip == i + 1);
}

/* Which side-band records change the module's targets. */
static void follow(void)
{
	struct st_task t;
	struct shimtop_ibs_target tg;
	unsigned long cmd = 0;

	memset(&t, 0, sizeof(t));
	t.h = (struct st_header){ ST_REC_FORK, ST_SOURCE_PERF, sizeof(t) };
	t.pid = t.tid = 200;
	t.ppid = t.ptid = 100;
	CHECK(kmod_source_follow(&t, PERF_SCOPE_PROCESSES, &cmd, &tg) == 1 &&
	      cmd == SHIMTOP_IBS_IOC_ADD && tg.id == 200 && tg.flags == SHIMTOP_IBS_PROCESS);
	/* -t follows no one; a new thread is its process's already. */
	CHECK(kmod_source_follow(&t, PERF_SCOPE_THREADS, &cmd, &tg) == 0);
	t.pid = t.ppid = 100;
	t.tid = 101;
	CHECK(kmod_source_follow(&t, PERF_SCOPE_PROCESSES, &cmd, &tg) == 0);
	/* A process exits (its main thread); another thread's exit is not one. */
	t.h.type = ST_REC_EXIT;
	CHECK(kmod_source_follow(&t, PERF_SCOPE_PROCESSES, &cmd, &tg) == 0);
	t.tid = 100;
	CHECK(kmod_source_follow(&t, PERF_SCOPE_PROCESSES, &cmd, &tg) == 1 &&
	      cmd == SHIMTOP_IBS_IOC_REMOVE && tg.id == 100);
	/* A record too short to be a task, pid 0, another type: nothing. */
	t.h.size = sizeof(t) - 8;
	CHECK(kmod_source_follow(&t, PERF_SCOPE_PROCESSES, &cmd, &tg) == 0);
	t.h.size = sizeof(t);
	t.pid = t.tid = 0;
	CHECK(kmod_source_follow(&t, PERF_SCOPE_PROCESSES, &cmd, &tg) == 0);
	t.pid = t.tid = 100;
	t.h.type = ST_REC_COMM;
	CHECK(kmod_source_follow(&t, PERF_SCOPE_PROCESSES, &cmd, &tg) == 0);
}

/*
 * The times the merge of side band and samples goes by (st_record_time):
 * a LOST record has none, and no samples are drained before it.
 */
static void sideband_times(void)
{
	struct st_task t = { .h = { ST_REC_EXIT, ST_SOURCE_PERF, sizeof(t) }, .time = 77 };
	struct st_comm c = { .h = { ST_REC_COMM, ST_SOURCE_PERF, sizeof(c) }, .time = 78 };
	struct st_lost l = { .h = { ST_REC_LOST, ST_SOURCE_PERF, sizeof(l) }, .time = 79 };
	_Alignas(8) unsigned char buf[sizeof(struct st_mmap) + 16] = { 0 };
	struct st_mmap *m = (void *)buf;

	m->h = (struct st_header){ ST_REC_MMAP, ST_SOURCE_PERF, sizeof(buf) };
	m->time = 76;
	CHECK(st_record_time(m) == 76 && st_record_time(&t) == 77 && st_record_time(&c) == 78);
	CHECK(st_record_time(&l) == 0);
}

int main(void)
{
	info.version = SHIMTOP_IBS_VERSION;
	info.rings = RINGS;
	info.nrec = NREC;
	info.selftest = 0;
	info.ring_stride = (sizeof(struct shimtop_ibs_ring) +
			    NREC * sizeof(struct shimtop_ibs_record) + 4095) & ~4095ull;
	info.map_size = info.ring_stride * RINGS;
	map = aligned_alloc(4096, info.map_size);
	memset(map, 0, info.map_size);
	for (uint32_t r = 0; r < RINGS; r++)
		ring_of(r)->nrec = NREC;
	info_checks();
	records();
	wraps();
	held_back();
	follow();
	sideband_times();
	free(map);
	return check_done("test_kmod_ring");
}
