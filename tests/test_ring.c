/*
 * test_ring.c - the ring: empty, full, wrap-around, oversize, and two
 * threads hammering it, where every record must arrive intact and in
 * order or be counted as dropped.  Then its bell: a sleeping consumer
 * is woken once, when mark bytes wait, never before, and two threads
 * sleeping and filling lose no wake-up.  Then samples with stack copies
 * into a ring nearly full: the sample goes, its copy does not.  Then
 * the queue records are held in while a snapshot is written: in order,
 * whole, refused past its limit, and not in a forked copy.
 */
#include "check.h"
#include "ring/record.h"
#include "ring/ring.h"
#include "ring/sample_push.h"
#include "ring/record_queue.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static void test_empty(void)
{
	struct ring *r = ring_create(4096);
	size_t len = 99;

	CHECK(r != NULL);
	CHECK(ring_peek(r, &len) == NULL);
	CHECK(len == 99);
	CHECK_EQ_U64(ring_dropped(r), 0);
	CHECK_EQ_U64(ring_capacity(r), 4096);
	ring_destroy(r);
}

static void test_full(void)
{
	struct ring *r = ring_create(4096);
	unsigned char rec[120];
	int pushed = 0;
	size_t len;

	memset(rec, 0xab, sizeof(rec));
	/* ring_fits says what a push would do, and counts nothing. */
	while (ring_fits(r, sizeof(rec)) && ring_push(r, rec, sizeof(rec)))
		pushed++;
	CHECK(pushed == 32 && ring_dropped(r) == 0 && !ring_fits(r, 8));
	CHECK_EQ_U64(ring_dropped(r), 0);
	/* 4096 bytes hold 32 slots of 8 + 120 bytes. */
	CHECK(!ring_push(r, rec, sizeof(rec)));
	CHECK_EQ_U64(ring_dropped(r), 1);
	CHECK(!ring_push(r, rec, 8));
	CHECK_EQ_U64(ring_dropped(r), 2);
	/* Freeing one slot makes room for exactly one more. */
	CHECK(ring_peek(r, &len) != NULL);
	ring_release(r);
	CHECK(ring_fits(r, sizeof(rec)) && !ring_fits(r, sizeof(rec) + 8));
	CHECK(ring_push(r, rec, sizeof(rec)));
	CHECK(!ring_push(r, rec, sizeof(rec)));
	CHECK_EQ_U64(ring_dropped(r), 3);
	ring_destroy(r);
}

static void test_oversize(void)
{
	struct ring *r = ring_create(4096);
	static unsigned char big[4096];

	CHECK(!ring_push(r, big, ring_max_record(r) + 1));
	CHECK(ring_push(r, big, ring_max_record(r)));
	CHECK(!ring_push(r, big, 0));
	CHECK_EQ_U64(ring_dropped(r), 2);
	ring_destroy(r);
}

/* Records of odd sizes force pads at the end of the buffer. */
static void test_wrap(void)
{
	struct ring *r = ring_create(4096);
	unsigned char rec[300], out[300];
	uint32_t next_in = 0, next_out = 0;
	int pads_crossed = 0;

	for (int round = 0; round < 2000; round++) {
		size_t n = 8 + (size_t)(round * 37) % 290;
		const unsigned char *got;
		size_t len;

		memset(rec, (int)(next_in & 0xff), n);
		memcpy(rec, &next_in, sizeof(next_in));
		if (ring_push(r, rec, n))
			next_in++;
		if (round % 3 == 2)
			continue;	/* let the ring fill up a little */
		got = ring_peek(r, &len);
		if (!got)
			continue;
		memcpy(out, got, len);
		ring_release(r);
		CHECK(memcmp(out, &next_out, sizeof(next_out)) == 0);
		for (size_t i = 4; i < len; i++)
			if (out[i] != (unsigned char)(next_out & 0xff)) {
				CHECK(!"record body corrupted");
				break;
			}
		next_out++;
		if ((uintptr_t)got < (uintptr_t)out)
			pads_crossed++;
	}
	CHECK(next_out > 1000);
	CHECK_EQ_U64(ring_delivered(r), next_out);
	ring_destroy(r);
	(void)pads_crossed;
}

/*
 * Looking ahead: records in order from the next one, across pads, never
 * more than the distance unreleased; released without looking (a drain
 * that stops, another consumer) it starts again at the next record.
 */
static void test_ahead(void)
{
	struct ring *r = ring_create(4096);
	unsigned char rec[300];
	uint32_t next_in = 0, next_out = 0, next_ahead = 0, v;
	uint64_t given = 0, restarts = 0;

	for (int round = 0; round < 3000; round++) {
		size_t n = 8 + (size_t)(round * 53) % 290, len;
		const unsigned char *got;

		memset(rec, 0, n);
		memcpy(rec, &next_in, sizeof(next_in));
		if (ring_push(r, rec, n))
			next_in++;
		if (round % 4 == 1)
			continue;
		if (round % 7 != 3) {
			if (next_ahead < next_out) {
				next_ahead = next_out;
				restarts++;
			}
			while ((got = ring_peek_ahead(r, 3))) {
				memcpy(&v, got, sizeof(v));
				CHECK_EQ_U64(v, next_ahead);
				next_ahead = v + 1;
				CHECK(next_ahead - next_out <= 3);
				given++;
			}
			CHECK(next_ahead - next_out == 3 || next_ahead == next_in);
		}
		/* Without looking, past what was given. */
		for (int k = round % 7 == 3 ? 4 : 1; k-- > 0 && (got = ring_peek(r, &len));) {
			memcpy(&v, got, sizeof(v));
			CHECK_EQ_U64(v, next_out);
			ring_release(r);
			next_out++;
		}
	}
	CHECK(given > 1000);
	CHECK(restarts > 10);
	ring_destroy(r);
}

#define HAMMER_RECORDS 2000000u

struct hammer {
	struct ring *ring;
	uint64_t pushed;
};

static void *producer(void *arg)
{
	struct hammer *h = arg;
	uint64_t rec[8];

	for (uint64_t seq = 0; seq < HAMMER_RECORDS; seq++) {
		size_t words = 2 + seq % 6;

		rec[0] = seq;
		for (size_t i = 1; i < words; i++)
			rec[i] = seq * 31 + i;
		if (ring_push(h->ring, rec, words * 8))
			h->pushed++;
	}
	return NULL;
}

static void test_hammer(void)
{
	struct hammer h = { .ring = ring_create(16384) };
	uint64_t expect_min = 0, received = 0, bad = 0, out_of_order = 0;
	pthread_t t;
	int done = 0;

	pthread_create(&t, NULL, producer, &h);
	for (;;) {
		size_t len;
		const uint64_t *rec = ring_peek(h.ring, &len);

		if (!rec) {
			if (done)
				break;
			/* The producer may be finished; look once more. */
			if (ring_dropped(h.ring) + received == HAMMER_RECORDS)
				done = 1;
			continue;
		}
		if (len != (2 + rec[0] % 6) * 8)
			bad++;
		for (size_t i = 1; i < len / 8; i++)
			if (rec[i] != rec[0] * 31 + i)
				bad++;
		if (rec[0] < expect_min)
			out_of_order++;
		expect_min = rec[0] + 1;
		received++;
		ring_release(h.ring);
	}
	pthread_join(t, NULL);
	CHECK_EQ_U64(bad, 0);
	CHECK_EQ_U64(out_of_order, 0);
	CHECK_EQ_U64(received, h.pushed);
	CHECK_EQ_U64(received + ring_dropped(h.ring), HAMMER_RECORDS);
	printf("hammer: %" PRIu64 " delivered, %" PRIu64 " dropped\n",
	       received, ring_dropped(h.ring));
	ring_destroy(h.ring);
}

/* Whether the bell was written (and reads it back to zero). */
static bool rung(int bell)
{
	uint64_t v = 0;

	return read(bell, &v, sizeof(v)) == sizeof(v) && v == 1;
}

static void test_bell(void)
{
	struct ring *r = ring_create(65536);
	int bell = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	unsigned char rec[1024 - 8];
	size_t len;

	memset(rec, 7, sizeof(rec));
	ring_set_bell(r, bell, 8192);
	/* Awake: no bell whatever comes. */
	for (int i = 0; i < 10; i++)
		CHECK(ring_push(r, rec, sizeof(rec)));
	CHECK(!rung(bell));
	/* More than the mark waits: no sleep. */
	CHECK(!ring_sleep(r));
	while (ring_peek(r, &len))
		ring_release(r);
	/* Asleep: under the mark, quiet; at it, one ring; past it, no second. */
	CHECK(ring_sleep(r));
	for (int i = 0; i < 7; i++)
		CHECK(ring_push(r, rec, sizeof(rec)));
	CHECK(!rung(bell));
	CHECK(ring_push(r, rec, sizeof(rec)));
	CHECK(rung(bell));
	for (int i = 0; i < 8; i++)
		CHECK(ring_push(r, rec, sizeof(rec)));
	CHECK(!rung(bell));
	ring_woken(r);
	close(bell);
	ring_destroy(r);
}

#define BELL_RECORDS	200000u
struct filler {
	struct ring *ring;
	_Atomic bool done, stop;
};

/* Bursts of a few records, a short pause now and then. */
static void *filler(void *arg)
{
	struct filler *f = arg;
	uint64_t rec[32] = { 0 };

	for (uint32_t i = 0; i < BELL_RECORDS; i++) {
		rec[0] = i;
		/* Full: waits for room (a push that fails counts a drop). */
		while (!ring_fits(f->ring, sizeof(rec)))
			if (atomic_load(&f->stop))
				return NULL;
		ring_push(f->ring, rec, sizeof(rec));
		if (i % 512 == 0)
			usleep(200);
	}
	atomic_store(&f->done, true);
	return NULL;
}

static void test_bell_threads(void)
{
	struct filler f = { .ring = ring_create(1u << 20) };
	const size_t mark = 64u << 10;
	int bell = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	uint64_t got = 0, next = 0, sleeps = 0, lost = 0;
	pthread_t t;

	ring_set_bell(f.ring, bell, mark);
	pthread_create(&t, NULL, filler, &f);
	/* A bell that never rings fails in a few sleeps, not BELL_RECORDS' worth. */
	while (got < BELL_RECORDS && lost < 3) {
		struct pollfd p = { .fd = bell, .events = POLLIN };
		size_t len, bytes = 0;
		const uint64_t *rec;
		bool done = atomic_load(&f.done);

		while ((rec = ring_peek(f.ring, &len))) {
			next += rec[0] == next;
			bytes += len + 8;
			got++;
			ring_release(f.ring);
		}
		if (done || !ring_sleep(f.ring))
			continue;
		sleeps++;
		/* Ended by the bell, or by the time with less than the mark waiting. */
		if (poll(&p, 1, 2000) == 0) {
			bytes = 0;
			while ((rec = ring_peek(f.ring, &len))) {
				next += rec[0] == next;
				bytes += len + 8;
				got++;
				ring_release(f.ring);
			}
			lost += bytes >= mark;
		}
		(void)rung(bell);
		ring_woken(f.ring);
	}
	atomic_store(&f.stop, true);
	pthread_join(t, NULL);
	printf("bell: %" PRIu64 " records in order of %u, %" PRIu64 " sleeps, %" PRIu64
	       " wake-ups lost\n", next, BELL_RECORDS, sleeps, lost);
	CHECK_EQ_U64(next, BELL_RECORDS);
	CHECK_EQ_U64(ring_dropped(f.ring), 0);
	CHECK(sleeps > 10);
	CHECK_EQ_U64(lost, 0);
	close(bell);
	ring_destroy(f.ring);
}

/* A sample of 2 counters and 3 callers with a copy of copy bytes; its length. */
static size_t sample_with_copy(unsigned char *buf, size_t copy, uint64_t time)
{
	struct st_sample *s = (struct st_sample *)(void *)buf;
	struct st_stack *k;
	size_t len = sizeof(*s) + 5 * sizeof(uint64_t) + sizeof(*k) + copy;

	memset(buf, 0, len);
	s->h = (struct st_header){ ST_REC_SAMPLE, 0, (uint32_t)len };
	s->time = time;
	s->ip = 0x401000;
	s->ncounters = 2;
	s->nchain = 3;
	s->flags = ST_SAMPLE_HAS_STACK;
	for (int i = 0; i < 5; i++)
		s->data[i] = 0x1000 + (uint64_t)i;
	k = (struct st_stack *)(void *)(s->data + 5);
	k->size = (uint32_t)copy;
	memset(k->bytes, 0x5a, copy);
	return len;
}

static void test_sample_push(void)
{
	static unsigned char buf[20000];
	struct ring *r = ring_create(65536);
	size_t len, got, whole = 0, shed = 0, copy = 16384;
	const struct st_sample *s;
	uint64_t t = 0;

	/*
	 * Copies while an eighth stays free after them (three of 16 KiB in
	 * 64 KiB), then the samples alone, each in full but for its copy,
	 * until not even that fits: only then a drop.
	 */
	for (;;) {
		len = sample_with_copy(buf, copy, ++t);
		if (!sample_push(r, buf, len))
			break;
	}
	CHECK_EQ_U64(ring_dropped(r), 1);
	while ((s = ring_peek(r, &got))) {
		if (s->flags & ST_SAMPLE_COPY_SHED) {
			shed++;
			CHECK(got == sizeof(*s) + 5 * sizeof(uint64_t) && s->h.size == got);
			CHECK(!(s->flags & ST_SAMPLE_HAS_STACK) && (s->flags & ST_SAMPLE_CHAIN_TRUNC));
			CHECK(s->data[4] == 0x1004 && s->ip == 0x401000 && s->nchain == 3);
		} else {
			whole++;
			CHECK(got == len && (s->flags & ST_SAMPLE_HAS_STACK) && !shed);
		}
		CHECK_EQ_U64(s->time, whole + shed);
		ring_release(r);
	}
	CHECK_EQ_U64(whole, 3);
	CHECK(shed > 100 && whole + shed + 1 == t);
	/* Room again: copies go whole; a record that is no sample is never cut. */
	len = sample_with_copy(buf, copy, 1);
	CHECK(sample_push(r, buf, len));
	s = ring_peek(r, &got);
	CHECK(s && got == len && !(s->flags & ST_SAMPLE_COPY_SHED));
	ring_release(r);
	((struct st_header *)(void *)buf)->type = ST_REC_MMAP;
	while (sample_push(r, buf, len))
		;
	while ((s = ring_peek(r, &got))) {
		CHECK(got == len);
		ring_release(r);
	}
	ring_destroy(r);
}

static void test_record_queue(void)
{
	struct record_queue q;
	unsigned char rec[300];
	const unsigned char *got;
	size_t len, kept = 0;
	pid_t pid;
	int status = -1;

	record_queue_init(&q, 2048);
	CHECK(!record_queue_pending(&q) && !record_queue_peek(&q, &len));
	/* Records of odd sizes until the limit refuses one: each whole, in order. */
	for (int i = 0; i < 20; i++) {
		memset(rec, i, sizeof(rec));
		if (!record_queue_add(&q, rec, 100 + (size_t)i * 7))
			break;
		kept++;
	}
	CHECK(kept > 5 && kept < 20);
	CHECK(!record_queue_add(&q, rec, 5000));
	/* A forked copy of the process has none of its memory (MADV_DONTFORK). */
	pid = fork();
	if (pid == 0)
		_exit(msync(q.buf, 2048, MS_ASYNC) == 0 ? 1 : errno == ENOMEM ? 0 : 2);
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0);
	for (size_t i = 0; i < kept; i++) {
		got = record_queue_peek(&q, &len);
		CHECK(got && len == 100 + i * 7 && ((uintptr_t)got & 7) == 0);
		CHECK(got && got[0] == (unsigned char)i && got[len - 1] == (unsigned char)i);
		record_queue_release(&q);
	}
	CHECK(!record_queue_pending(&q) && q.used == 0);
	/* Emptied, its room is whole again. */
	CHECK(record_queue_add(&q, rec, 100) && record_queue_pending(&q));
	record_queue_free(&q);
}

int main(void)
{
	test_empty();
	test_full();
	test_oversize();
	test_wrap();
	test_ahead();
	test_hammer();
	test_bell();
	test_bell_threads();
	test_sample_push();
	test_record_queue();
	return check_done("test_ring");
}
