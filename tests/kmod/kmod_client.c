/*
 * kmod_client.c - the IBS module's test client, run inside the QEMU
 * guest (t-kmod.sh) on a module loaded with selftest=1.
 *
 *   kmod_client check     every ioctl's validation, random commands and
 *                         arguments, a reader racing the writer with the
 *                         conservation law, aggregation's traffic
 *   kmod_client open      the device opens (for the reload loop)
 *   kmod_client unload    the module cannot go while a mapping of its
 *                         rings outlives the file: read after close, then
 *                         unmapped, it unloads
 *   kmod_client load KO [PARAMS]
 *                         one finit_module call (busybox's insmod retries
 *                         with init_module): prints its errno's name
 *
 * Prints "ok ..." and "FAIL: ..." lines and "kmod_client: N checks, M
 * failed"; exits 1 when any failed.  Figures for bench/README.md are
 * printed as "figure: ...".
 */
#define _GNU_SOURCE
#include "../../src/kmod/uapi/shimtop_ibs.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int checks, failed;

#define CHECK(cond, ...) do {						\
	checks++;							\
	if (!(cond)) {							\
		failed++;						\
		printf("FAIL: line %d: %s: ", __LINE__, #cond);	\
		printf(__VA_ARGS__);					\
		printf("\n");						\
	}								\
} while (0)

/* ioctl's result as 0 or -errno. */
static int ctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) < 0 ? -errno : 0;
}

static int ctl_u32(int fd, unsigned long cmd, uint32_t v)
{
	return ctl(fd, cmd, &v);
}

static int ctl_target(int fd, unsigned long cmd, uint32_t id, uint32_t flags)
{
	struct shimtop_ibs_target t = { id, flags };

	return ctl(fd, cmd, &t);
}

static int push(int fd, uint32_t cpu, uint32_t count, uint64_t rip)
{
	struct shimtop_ibs_push p = { .cpu = cpu, .count = count, .tid = 42, .rip = rip };

	return ctl(fd, SHIMTOP_IBS_IOC_PUSH, &p);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void validation(int fd, const struct shimtop_ibs_info *in)
{
	struct shimtop_ibs_push p;
	uint64_t v64;

	CHECK(ctl(fd, SHIMTOP_IBS_IOC_INFO, NULL) == -EFAULT, "INFO to NULL");
	CHECK(ctl(fd, SHIMTOP_IBS_IOC_INFO, (void *)8) == -EFAULT, "INFO to a bad pointer");
	CHECK(ctl(fd, SHIMTOP_IBS_IOC_ENABLE, (void *)8) == -EFAULT, "ENABLE from a bad pointer");
	CHECK(ctl_u32(fd, SHIMTOP_IBS_IOC_ENABLE, 2) == -EINVAL, "ENABLE 2");
	CHECK(ctl_u32(fd, SHIMTOP_IBS_IOC_ENABLE, 1) == -EOPNOTSUPP,
	      "ENABLE under selftest must refuse: nothing samples");
	CHECK(ctl_u32(fd, SHIMTOP_IBS_IOC_ENABLE, 0) == 0, "ENABLE 0");
	/* Targets. */
	CHECK(ctl(fd, SHIMTOP_IBS_IOC_ADD, (void *)8) == -EFAULT, "ADD from a bad pointer");
	CHECK(ctl_target(fd, SHIMTOP_IBS_IOC_ADD, 0, 0) == -EINVAL, "ADD tid 0");
	CHECK(ctl_target(fd, SHIMTOP_IBS_IOC_ADD, 1u << 31, 0) == -EINVAL, "ADD a huge tid");
	CHECK(ctl_target(fd, SHIMTOP_IBS_IOC_ADD, 1u << 22, 0) == -EINVAL,
	      "ADD tid PID_MAX_LIMIT");
	CHECK(ctl_target(fd, SHIMTOP_IBS_IOC_ADD, 5, 0x2) == -EINVAL, "ADD unknown flags");
	CHECK(ctl_target(fd, SHIMTOP_IBS_IOC_ADD, 5, 0) == 0, "ADD 5");
	CHECK(ctl_target(fd, SHIMTOP_IBS_IOC_ADD, 5, 0) == -EEXIST, "ADD 5 twice");
	CHECK(ctl_target(fd, SHIMTOP_IBS_IOC_ADD, 5, SHIMTOP_IBS_PROCESS) == 0,
	      "ADD process 5 beside thread 5");
	CHECK(ctl_target(fd, SHIMTOP_IBS_IOC_START, 5, 0) == 0, "START 5");
	CHECK(ctl_target(fd, SHIMTOP_IBS_IOC_STOP, 5, 0) == 0, "STOP 5");
	CHECK(ctl_target(fd, SHIMTOP_IBS_IOC_START, 6, 0) == -ESRCH, "START an unknown tid");
	CHECK(ctl_target(fd, SHIMTOP_IBS_IOC_REMOVE, 5, 0) == 0, "REMOVE 5");
	CHECK(ctl_target(fd, SHIMTOP_IBS_IOC_REMOVE, 5, 0) == -ESRCH, "REMOVE 5 twice");
	for (uint32_t i = 1; i <= SHIMTOP_IBS_MAX_TIDS; i++)
		if (ctl_target(fd, SHIMTOP_IBS_IOC_ADD, 1000 + i, 0) != 0)
			break;
	CHECK(ctl_target(fd, SHIMTOP_IBS_IOC_ADD, 99999, 0) == -ENOSPC, "ADD past the table");
	CHECK(ctl(fd, SHIMTOP_IBS_IOC_CLEAR, NULL) == 0, "CLEAR");
	CHECK(ctl_target(fd, SHIMTOP_IBS_IOC_ADD, 99999, 0) == 0, "ADD after CLEAR");
	CHECK(ctl(fd, SHIMTOP_IBS_IOC_CLEAR, NULL) == 0, "CLEAR");
	/* The period: IBS's limits. */
	v64 = SHIMTOP_IBS_MIN_PERIOD - 1;
	CHECK(ctl(fd, SHIMTOP_IBS_IOC_PERIOD, &v64) == -ERANGE, "PERIOD under the minimum");
	v64 = 1ull << 40;
	CHECK(ctl(fd, SHIMTOP_IBS_IOC_PERIOD, &v64) == -ERANGE, "PERIOD past the maximum");
	CHECK(ctl(fd, SHIMTOP_IBS_IOC_PERIOD, (void *)8) == -EFAULT, "PERIOD from a bad pointer");
	v64 = 0x1234f;
	CHECK(ctl(fd, SHIMTOP_IBS_IOC_PERIOD, &v64) == 0, "PERIOD 0x1234f");
	{
		struct shimtop_ibs_info now_in;

		CHECK(ctl(fd, SHIMTOP_IBS_IOC_INFO, &now_in) == 0 && now_in.period == 0x12340,
		      "the period is rounded down to 16: %#llx", (unsigned long long)now_in.period);
	}
	/* The attributes: any bits (the IBS driver checks them at start), kept. */
	CHECK(ctl(fd, SHIMTOP_IBS_IOC_CONFIG, (void *)8) == -EFAULT, "CONFIG from a bad pointer");
	{
		struct shimtop_ibs_config c = { 1ull << 19 | 1ull << 16, 256 };
		struct shimtop_ibs_info now_in;

		CHECK(ctl(fd, SHIMTOP_IBS_IOC_CONFIG, &c) == 0, "CONFIG");
		CHECK(ctl(fd, SHIMTOP_IBS_IOC_INFO, &now_in) == 0 && now_in.config == c.config &&
		      now_in.config1 == 256, "INFO after CONFIG: %#llx %#llx",
		      (unsigned long long)now_in.config, (unsigned long long)now_in.config1);
	}
	/* Rings. */
	CHECK(ctl_u32(fd, SHIMTOP_IBS_IOC_RING, 63) == -EINVAL, "RING 63");
	CHECK(ctl_u32(fd, SHIMTOP_IBS_IOC_RING, 100) == -EINVAL, "RING 100 (not a power of 2)");
	CHECK(ctl_u32(fd, SHIMTOP_IBS_IOC_RING, 1u << 17) == -EINVAL, "RING 2^17");
	CHECK(ctl_u32(fd, SHIMTOP_IBS_IOC_AGGREGATE, 2) == -EINVAL, "AGGREGATE 2");
	/* Pushes. */
	CHECK(push(fd, in->rings, 1, 0) == -EINVAL, "PUSH to a ring past the last");
	CHECK(push(fd, 0, 0, 0) == -EINVAL, "PUSH of 0 records");
	CHECK(push(fd, 0, in->nrec + 1, 0) == -EINVAL, "PUSH of more than a ring");
	memset(&p, 0, sizeof(p));
	p.count = 1;
	CHECK(ctl(fd, SHIMTOP_IBS_IOC_PUSH, &p) == -EINVAL, "PUSH of tid 0");
	p.tid = 1u << 22;
	CHECK(ctl(fd, SHIMTOP_IBS_IOC_PUSH, &p) == -EINVAL, "PUSH of a tid past PID_MAX_LIMIT");
	memset(&p, 0, sizeof(p));
	p.count = 1;
	p.pad = 1;
	CHECK(ctl(fd, SHIMTOP_IBS_IOC_PUSH, &p) == -EINVAL, "PUSH with padding set");
	CHECK(ctl(fd, SHIMTOP_IBS_IOC_PUSH, (void *)8) == -EFAULT, "PUSH from a bad pointer");
	/* Commands it does not know, including its own numbers at other sizes. */
	CHECK(ctl(fd, _IO(SHIMTOP_IBS_IOC_MAGIC, 14), NULL) == -ENOTTY, "command 14");
	CHECK(ctl(fd, _IO(SHIMTOP_IBS_IOC_MAGIC, 13), NULL) == -ENOTTY,
	      "CONFIG's number without its argument");
	CHECK(ctl(fd, _IOR(SHIMTOP_IBS_IOC_MAGIC, 1, uint32_t), NULL) == -ENOTTY,
	      "INFO's number at another size");
	CHECK(ctl(fd, _IO('T', 1), NULL) == -ENOTTY, "a terminal's command");
	/* mmap: no more than the rings, from offset 0. */
	CHECK(mmap(NULL, in->map_size + 4096, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED,
	      "a map larger than the rings");
	CHECK(mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 4096) == MAP_FAILED,
	      "a map at an offset");
}

/* Random commands (mostly the module's magic) with random arguments. */
static void random_commands(int fd)
{
	static uint8_t junk[256];
	uint64_t x = 0x9e3779b97f4a7c15ull;
	unsigned int answered = 0;

	for (int i = 0; i < 20000; i++) {
		unsigned long cmd;
		void *arg;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		for (unsigned int b = 0; b < sizeof(junk); b += 8)
			memcpy(junk + b, &x, 8);
		junk[x % sizeof(junk)] ^= (uint8_t)(x >> 8);
		cmd = x % 4 ? _IOC((unsigned int)(x >> 16) % 4, SHIMTOP_IBS_IOC_MAGIC,
				  (unsigned int)(x >> 20) % 16, (unsigned int)(x >> 28) % 64)
			    : (unsigned long)(uint32_t)(x >> 32);
		if (cmd == SHIMTOP_IBS_IOC_ENABLE)
			continue;	/* refused under selftest anyway */
		arg = x % 3 == 0 ? (void *)(uintptr_t)(x >> 8) : junk;
		if (ioctl(fd, cmd, arg) == 0 || errno != ENOTTY)
			answered++;
	}
	ctl(fd, SHIMTOP_IBS_IOC_CLEAR, NULL);
	ctl_u32(fd, SHIMTOP_IBS_IOC_AGGREGATE, 0);
	CHECK(answered > 0, "no random command reached the module");
	printf("ok random commands: 20000 sent, %u not refused as unknown\n", answered);
}

struct race {
	int fd;
	uint32_t ring;
	volatile struct shimtop_ibs_ring *r;
	struct shimtop_ibs_record *rec;
	uint64_t nrec;
	atomic_bool done;
	uint64_t consumed, bad_seq, bad_type;
};

/* The reader: what the module published, in order, then the tail moved on. */
static void *reader(void *arg)
{
	struct race *rc = arg;
	uint64_t tail = rc->r->tail, expect = 0;

	for (;;) {
		uint64_t head = __atomic_load_n(&rc->r->head, __ATOMIC_ACQUIRE);
		bool done = atomic_load(&rc->done);

		for (; tail != head; tail++) {
			const struct shimtop_ibs_record *r = &rc->rec[tail % rc->nrec];

			rc->bad_seq += r->seq != (uint32_t)expect;
			rc->bad_type += r->type != SHIMTOP_IBS_REC_TEST || r->cpu != rc->ring;
			expect = r->seq + 1u;
			rc->consumed++;
		}
		__atomic_store_n(&rc->r->tail, tail, __ATOMIC_RELEASE);
		if (done && head == __atomic_load_n(&rc->r->head, __ATOMIC_ACQUIRE))
			return NULL;
	}
}

static void race(int fd, const struct shimtop_ibs_info *in, uint8_t *map)
{
	struct race rc = { .fd = fd, .ring = in->rings - 1, .nrec = in->nrec };
	struct shimtop_ibs_stats st0, st1;
	uint64_t pushed = 0, refused = 0, head, tail, dropped0;
	pthread_t t;
	double t0, t1;

	rc.r = (void *)(map + in->ring_stride * rc.ring);
	rc.rec = (void *)(map + in->ring_stride * rc.ring + sizeof(struct shimtop_ibs_ring));
	CHECK(rc.r->nrec == in->nrec, "the ring says %llu records", (unsigned long long)rc.r->nrec);
	dropped0 = rc.r->dropped;
	CHECK(rc.r->head == rc.r->tail, "the ring is not empty at the start");
	ctl(fd, SHIMTOP_IBS_IOC_STATS, &st0);
	atomic_init(&rc.done, false);
	pthread_create(&t, NULL, reader, &rc);
	t0 = now();
	for (int i = 0; i < 4000; i++) {
		uint32_t n = 1 + (uint32_t)(i * 37) % 64;

		if (push(fd, rc.ring, n, 0x400000) == 0)
			pushed += n;
		else
			refused++;
		/* produced = consumed + buffered + dropped, read while both run */
		if (i % 256 == 0) {
			uint64_t d = rc.r->dropped - dropped0;

			tail = __atomic_load_n(&rc.r->tail, __ATOMIC_ACQUIRE);
			head = __atomic_load_n(&rc.r->head, __ATOMIC_ACQUIRE);
			CHECK(head >= tail && head - tail <= rc.nrec && head + d == pushed,
			      "mid-run: head %llu tail %llu dropped %llu pushed %llu",
			      (unsigned long long)head, (unsigned long long)tail,
			      (unsigned long long)d, (unsigned long long)pushed);
		}
	}
	t1 = now();
	atomic_store(&rc.done, true);
	pthread_join(t, NULL);
	ctl(fd, SHIMTOP_IBS_IOC_STATS, &st1);
	head = rc.r->head;
	tail = rc.r->tail;
	CHECK(refused == 0, "%llu pushes refused", (unsigned long long)refused);
	CHECK(pushed == rc.consumed + (head - tail) + (rc.r->dropped - dropped0),
	      "conservation: pushed %llu != consumed %llu + buffered %llu + dropped %llu",
	      (unsigned long long)pushed, (unsigned long long)rc.consumed,
	      (unsigned long long)(head - tail), (unsigned long long)(rc.r->dropped - dropped0));
	CHECK(st1.samples - st0.samples == pushed && st1.dropped - st0.dropped ==
	      rc.r->dropped - dropped0, "the module's statistics: %llu pushed, %llu dropped",
	      (unsigned long long)(st1.samples - st0.samples),
	      (unsigned long long)(st1.dropped - st0.dropped));
	CHECK(rc.bad_seq == 0 && rc.bad_type == 0, "%llu records out of sequence, %llu not ours",
	      (unsigned long long)rc.bad_seq, (unsigned long long)rc.bad_type);
	CHECK(rc.consumed > 0, "the reader read nothing");
	printf("ok race: %llu pushed, %llu consumed, %llu dropped, %llu buffered\n",
	       (unsigned long long)pushed, (unsigned long long)rc.consumed,
	       (unsigned long long)(rc.r->dropped - dropped0), (unsigned long long)(head - tail));
	printf("figure: ring throughput under TCG: %.2f M records/s pushed, "
	       "%.1f%% dropped by a racing reader\n", pushed / (t1 - t0) / 1e6,
	       100.0 * (double)(rc.r->dropped - dropped0) / (double)pushed);
}

/*
 * Reads ring 0's records from its tail to its head and moves the tail:
 * the sum of their counts; each that is not a count of pid and tid 42
 * at a RIP in [lo, hi) is bad.
 */
static uint64_t drain_counts(volatile struct shimtop_ibs_ring *r,
			     const struct shimtop_ibs_record *rec, uint32_t nrec, uint64_t lo,
			     uint64_t hi, uint64_t *records, uint64_t *bad)
{
	uint64_t sum = 0, head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);

	for (uint64_t i = r->tail; i != head; i++) {
		const struct shimtop_ibs_record *x = &rec[i % nrec];

		*bad += x->type != SHIMTOP_IBS_REC_COUNT || x->tid != 42 || x->pid != 42 ||
			x->flags || x->rip < lo || x->rip >= hi;
		sum += x->count;
		(*records)++;
	}
	__atomic_store_n(&r->tail, head, __ATOMIC_RELEASE);
	return sum;
}

/* Aggregation: what reaches user space for the same pushes, with and without. */
static void aggregation(int fd, const struct shimtop_ibs_info *in, uint8_t *map)
{
	volatile struct shimtop_ibs_ring *r = (void *)map;
	const struct shimtop_ibs_record *rec = (const void *)(map + sizeof(*r));
	uint64_t sum, records = 0, bad = 0;
	const uint32_t n = 20000;

	r->tail = r->head;
	CHECK(ctl_u32(fd, SHIMTOP_IBS_IOC_AGGREGATE, 1) == 0, "AGGREGATE 1");
	for (uint32_t done = 0; done < n; done += 100)
		CHECK(push(fd, 0, 100, 0x400000) == 0, "PUSH with aggregation");
	CHECK(ctl_u32(fd, SHIMTOP_IBS_IOC_AGGREGATE, 0) == 0, "AGGREGATE 0 (flushes)");
	sum = drain_counts(r, rec, in->nrec, 0x400000, 0x400008, &records, &bad);
	CHECK(bad == 0, "%llu records not counts of tid 42 at 0x400000-7", (unsigned long long)bad);
	CHECK(sum == n, "the counts add up to %llu, not %u", (unsigned long long)sum, n);
	CHECK(records >= 8 && records <= 16, "%llu count records for 8 (tid, rip) pairs",
	      (unsigned long long)records);
	printf("figure: aggregation: %u samples of 8 (tid, rip) pairs reach user space as "
	       "%llu records (%llu bytes) instead of %u (%zu bytes): %.0fx less\n", n,
	       (unsigned long long)records,
	       (unsigned long long)(records * sizeof(struct shimtop_ibs_record)), n,
	       n * sizeof(struct shimtop_ibs_record), (double)n / (double)records);
}

/*
 * Aggregation where it is not the best case: 512 code addresses of 8
 * RIPs each (4,096 (tid, rip) pairs, four times the table's ways),
 * sampled in a Zipf distribution (the k-th 1/k as often), interleaved in
 * 20 rounds; the ring is read after every push, as shimtop reads it.
 * needs a ring of at least 1,024 records: the table's flush at the end.
 */
static void aggregation_spread(int fd, const struct shimtop_ibs_info *in, uint8_t *map)
{
	volatile struct shimtop_ibs_ring *r = (void *)map;
	const struct shimtop_ibs_record *rec = (const void *)(map + sizeof(*r));
	uint64_t pushed = 0, sum = 0, records = 0, bad = 0, dropped0 = r->dropped;
	enum { SITES = 512, ROUNDS = 20 };

	r->tail = r->head;
	CHECK(ctl_u32(fd, SHIMTOP_IBS_IOC_AGGREGATE, 1) == 0, "AGGREGATE 1");
	for (uint32_t round = 0; round < ROUNDS; round++)
		for (uint32_t k = 0; k < SITES; k++) {
			uint32_t n = 8000 / (k + 1), c = n / ROUNDS + (round < n % ROUNDS);

			if (!c)
				continue;
			CHECK(push(fd, 0, c, 0x400000 + 64ull * k) == 0, "PUSH %u at site %u", c, k);
			pushed += c;
			sum += drain_counts(r, rec, in->nrec, 0x400000, 0x400000 + 64 * SITES,
					    &records, &bad);
		}
	CHECK(ctl_u32(fd, SHIMTOP_IBS_IOC_AGGREGATE, 0) == 0, "AGGREGATE 0 (flushes)");
	sum += drain_counts(r, rec, in->nrec, 0x400000, 0x400000 + 64 * SITES, &records, &bad);
	CHECK(r->dropped == dropped0, "%llu records dropped", (unsigned long long)(r->dropped - dropped0));
	CHECK(sum == pushed && bad == 0, "the counts add up to %llu of %llu; %llu records not ours",
	      (unsigned long long)sum, (unsigned long long)pushed, (unsigned long long)bad);
	CHECK(records < pushed, "%llu records for %llu samples", (unsigned long long)records,
	      (unsigned long long)pushed);
	printf("figure: aggregation, 4096 (tid, rip) pairs in a Zipf distribution: %llu samples "
	       "reach user space as %llu records (%llu bytes) instead of %llu: %.1fx less\n",
	       (unsigned long long)pushed, (unsigned long long)records,
	       (unsigned long long)(records * sizeof(struct shimtop_ibs_record)),
	       (unsigned long long)pushed, (double)pushed / (double)records);
}

/*
 * One holder: a second open is refused while the first lasts; when the
 * holder closes, the next one finds no targets and empty rings.
 */
static void holder(int fd, const struct shimtop_ibs_info *in)
{
	int again = open(SHIMTOP_IBS_DEVICE, O_RDWR);
	struct shimtop_ibs_info now_in;
	uint8_t *map;

	CHECK(again < 0 && errno == EBUSY, "a second open while held: %s",
	      again < 0 ? strerror(errno) : "opened");
	if (again >= 0)
		close(again);
	CHECK(ctl_target(fd, SHIMTOP_IBS_IOC_ADD, 77, 0) == 0, "ADD 77");
	CHECK(push(fd, 0, 10, 0x500000) == 0, "PUSH 10 left unread");
	close(fd);
	fd = open(SHIMTOP_IBS_DEVICE, O_RDWR);
	CHECK(fd >= 0, "open after the holder closed: %s", strerror(errno));
	if (fd < 0)
		return;
	CHECK(ctl_target(fd, SHIMTOP_IBS_IOC_REMOVE, 77, 0) == -ESRCH,
	      "the last holder's target outlived it");
	CHECK(ctl(fd, SHIMTOP_IBS_IOC_INFO, &now_in) == 0 && now_in.nrec == in->nrec,
	      "INFO: %u records a ring, not the %u the last holder set", now_in.nrec, in->nrec);
	CHECK(now_in.config == 0 && now_in.config1 == 0,
	      "the last holder's attributes outlived it: %#llx %#llx",
	      (unsigned long long)now_in.config, (unsigned long long)now_in.config1);
	map = mmap(NULL, now_in.map_size, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(map != MAP_FAILED, "mmap: %s", strerror(errno));
	if (map != MAP_FAILED) {
		const volatile struct shimtop_ibs_ring *r = (const void *)map;

		CHECK(r->head >= 10 && r->tail == r->head,
		      "the last holder's unread records are still there: head %llu tail %llu",
		      (unsigned long long)r->head, (unsigned long long)r->tail);
		munmap(map, now_in.map_size);
	}
	close(fd);
}

/*
 * Unloading with records in the rings and a mapping that outlives its
 * file: the mapping holds the module, whose rings it reads; once
 * unmapped, the module goes.
 */
static int unload(void)
{
	int fd = open(SHIMTOP_IBS_DEVICE, O_RDWR);
	struct shimtop_ibs_info in;
	volatile struct shimtop_ibs_ring *r;
	const struct shimtop_ibs_record *rec;
	uint8_t *map;
	uint64_t head;
	int busy;

	CHECK(fd >= 0, "open: %s", strerror(errno));
	if (fd < 0)
		return 1;
	CHECK(ctl(fd, SHIMTOP_IBS_IOC_INFO, &in) == 0, "INFO");
	map = mmap(NULL, in.map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(map != MAP_FAILED, "mmap: %s", strerror(errno));
	if (map == MAP_FAILED)
		return 1;
	r = (void *)map;
	rec = (const void *)(map + sizeof(struct shimtop_ibs_ring));
	CHECK(push(fd, 0, 32, 0x600000) == 0, "PUSH 32");
	close(fd);
	busy = (int)syscall(SYS_delete_module, "shimtop_ibs", O_NONBLOCK);
	CHECK(busy < 0, "the module unloaded while its rings were mapped");
	if (busy == 0)
		return 1;	/* the mapping is gone with it: read no further */
	head = r->head;
	CHECK(head - r->tail == 32 && rec[(head - 1) % in.nrec].type == SHIMTOP_IBS_REC_TEST &&
	      rec[(head - 1) % in.nrec].rip == 0x600000 + 31 % 8,
	      "the mapping after close: %llu records buffered",
	      (unsigned long long)(head - r->tail));
	munmap(map, in.map_size);
	CHECK(syscall(SYS_delete_module, "shimtop_ibs", O_NONBLOCK) == 0,
	      "unloading once unmapped: %s", strerror(errno));
	printf("kmod_client unload: %d checks, %d failed\n", checks, failed);
	return failed != 0;
}

static void unprivileged(void)
{
	pid_t pid = fork();
	int status = 0;

	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(3);
		_exit(open(SHIMTOP_IBS_DEVICE, O_RDWR) < 0 && (errno == EPERM || errno == EACCES)
		      ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "an unprivileged user opened the device (status %d)", status);
}

static int load(const char *ko, const char *params)
{
	int fd = open(ko, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || syscall(SYS_finit_module, fd, params, 0) < 0) {
		printf("%s\n", errno == ENODEV ? "ENODEV" : errno == EINVAL ? "EINVAL"
		       : strerror(errno));
		return 1;
	}
	printf("loaded\n");
	return 0;
}

int main(int argc, char **argv)
{
	struct shimtop_ibs_info in;
	uint8_t *map;
	int fd;

	if (argc > 2 && !strcmp(argv[1], "load"))
		return load(argv[2], argc > 3 ? argv[3] : "");
	if (argc > 1 && !strcmp(argv[1], "unload"))
		return unload();
	fd = open(SHIMTOP_IBS_DEVICE, O_RDWR);

	if (fd < 0) {
		printf("FAIL: cannot open %s: %s\n", SHIMTOP_IBS_DEVICE, strerror(errno));
		return 1;
	}
	CHECK(ctl(fd, SHIMTOP_IBS_IOC_INFO, &in) == 0, "INFO");
	CHECK(in.version == SHIMTOP_IBS_VERSION && in.selftest == 1 && in.rings >= 1 &&
	      in.nrec >= SHIMTOP_IBS_MIN_RECORDS && in.map_size == in.ring_stride * in.rings,
	      "INFO: version %u selftest %u rings %u nrec %u", in.version, in.selftest,
	      in.rings, in.nrec);
	if (argc > 1 && !strcmp(argv[1], "open")) {
		close(fd);
		return failed != 0;
	}
	unprivileged();
	validation(fd, &in);
	random_commands(fd);
	/* A smaller ring, so the racing reader sees drops too. */
	CHECK(ctl_u32(fd, SHIMTOP_IBS_IOC_RING, 256) == 0, "RING 256");
	CHECK(ctl(fd, SHIMTOP_IBS_IOC_INFO, &in) == 0 && in.nrec == 256, "INFO after RING");
	map = mmap(NULL, in.map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(map != MAP_FAILED, "mmap: %s", strerror(errno));
	if (map == MAP_FAILED)
		return 1;
	CHECK(ctl_u32(fd, SHIMTOP_IBS_IOC_RING, 1024) == -EBUSY, "RING while mapped");
	race(fd, &in, map);
	aggregation(fd, &in, map);
	munmap(map, in.map_size);
	CHECK(ctl_u32(fd, SHIMTOP_IBS_IOC_RING, 1024) == 0, "RING after unmapping");
	CHECK(ctl(fd, SHIMTOP_IBS_IOC_INFO, &in) == 0 && in.nrec == 1024, "INFO after RING");
	map = mmap(NULL, in.map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(map != MAP_FAILED, "mmap: %s", strerror(errno));
	if (map == MAP_FAILED)
		return 1;
	aggregation_spread(fd, &in, map);
	munmap(map, in.map_size);
	holder(fd, &in);	/* closes fd */
	printf("kmod_client: %d checks, %d failed\n", checks, failed);
	return failed != 0;
}
