/*
 * shimtop-demo - the bundled workload: four phases a user can tell apart
 * in shimtop's table, run in turn, 100 ms each, until killed or for
 * --seconds N.
 *
 *   phase_compute        floating-point arithmetic, high IPC
 *   phase_pointer_chase  dependent loads over a 64 MiB random cycle
 *   phase_branchy        branches on random data, mispredicted half the time
 *   phase_recursive      a call tree eight levels deep (recurse_tree)
 *
 * --threads N starts N more threads running the same phases after
 * --thread-delay S seconds, to show that threads born later are followed.
 *
 * It publishes software signals (<shimtop/signals.h>): each thread's
 * current phase (1-4) as its tag, and its work items (inner-loop batches
 * done) as counter 0.  --no-signals turns that off.
 */
#include <getopt.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <shimtop/signals.h>

#define SLICE_NS	100000000ull
#define CHASE_ENTRIES	(8u << 20)	/* 8 Mi entries of 8 bytes */
#define BRANCH_BYTES	(1u << 16)

static size_t *chase;
static unsigned char *branch_data;
static volatile uint64_t sink;		/* keeps results alive */
static double run_seconds;
static struct shimtop_signals *signals;
static _Thread_local struct shimtop_slot *my_slot;

enum { PHASE_COMPUTE = 1, PHASE_CHASE, PHASE_BRANCHY, PHASE_RECURSIVE };

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Sattolo's shuffle: one cycle through every entry, so no shortcut. */
static __attribute__((noinline, noclone)) void build_chase(void)
{
	uint64_t seed = 88172645463325252ull;

	chase = malloc(CHASE_ENTRIES * sizeof(*chase));
	branch_data = malloc(BRANCH_BYTES);
	if (!chase || !branch_data) {
		fputs("shimtop-demo: out of memory\n", stderr);
		exit(1);
	}
	for (size_t i = 0; i < CHASE_ENTRIES; i++)
		chase[i] = i;
	for (size_t i = CHASE_ENTRIES - 1; i > 0; i--) {
		size_t j = xorshift(&seed) % i, t = chase[i];

		chase[i] = chase[j];
		chase[j] = t;
	}
	for (size_t i = 0; i < BRANCH_BYTES; i++)
		branch_data[i] = (unsigned char)xorshift(&seed);
}

static __attribute__((noinline, noclone)) void phase_compute(uint64_t until)
{
	double a = 1.0001, b = 0.9999, c = 0.5;

	while (now_ns() < until) {
		for (int i = 0; i < 100000; i++) {
			a = a * b + c;
			b = b * 0.99999 + 0.00001;
			c = c * a - b * 0.5;
		}
		shimtop_count(my_slot, 0, 1);
	}
	sink += (uint64_t)(a + b + c);
}

static __attribute__((noinline, noclone)) void phase_pointer_chase(uint64_t until)
{
	static size_t at;
	size_t p = at;

	while (now_ns() < until) {
		for (int i = 0; i < 20000; i++)
			p = chase[p];
		shimtop_count(my_slot, 0, 1);
	}
	at = p;
	sink += p;
}

static __attribute__((noinline, noclone)) void phase_branchy(uint64_t until)
{
	uint64_t hist[8] = { 0 }, x = 1;

	while (now_ns() < until) {
		for (size_t i = 0; i < BRANCH_BYTES; i++) {
			unsigned v = branch_data[i];

			if (v & 1)
				hist[v & 7]++;
			else if (v & 2)
				x = x * 31 + v;
			else
				x ^= v << 3;
		}
		shimtop_count(my_slot, 0, 1);
	}
	sink += x + hist[1] + hist[3];
}

static __attribute__((noinline, noclone)) uint64_t recurse_tree(int depth, uint64_t seed)
{
	uint64_t sum = seed;

	if (depth == 0) {
		for (int i = 0; i < 200; i++)
			sum = sum * 6364136223846793005ull + 1442695040888963407ull;
		return sum;
	}
	for (int child = 0; child < 3; child++)
		sum += recurse_tree(depth - 1, sum + (uint64_t)child);
	return sum;
}

static __attribute__((noinline, noclone)) void phase_recursive(uint64_t until)
{
	uint64_t s = 1;

	while (now_ns() < until) {
		s += recurse_tree(8, s);
		shimtop_count(my_slot, 0, 1);
	}
	sink += s;
}

static void *run_phases(void *arg)
{
	uint64_t end = *(const uint64_t *)arg;

	if (!my_slot)
		my_slot = shimtop_signals_thread(signals);
	for (;;) {
		void (*phase[])(uint64_t) = { phase_compute, phase_pointer_chase,
					      phase_branchy, phase_recursive };

		for (size_t i = 0; i < sizeof(phase) / sizeof(phase[0]); i++) {
			uint64_t t = now_ns();

			if (end && t >= end)
				return NULL;
			shimtop_tag(my_slot, PHASE_COMPUTE + i, 0);
			phase[i](t + SLICE_NS);
		}
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seconds", required_argument, NULL, 's' },
		{ "threads", required_argument, NULL, 't' },
		{ "thread-delay", required_argument, NULL, 'D' },
		{ "no-signals", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *counters[] = { "work items" };
	int threads = 0, c, publish = 1;
	double delay = 0.5;
	uint64_t end = 0;
	pthread_t *tid;

	while ((c = getopt_long(argc, argv, "s:t:D:Nh", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			run_seconds = atof(optarg);
			break;
		case 't':
			threads = atoi(optarg);
			break;
		case 'D':
			delay = atof(optarg);
			break;
		case 'N':
			publish = 0;
			break;
		default:
			fputs("usage: shimtop-demo [--seconds N] [--threads N] "
			      "[--thread-delay S] [--no-signals]\n", stderr);
			return c == 'h' ? 0 : 2;
		}
	}
	if (threads < 0 || threads > 64 || run_seconds < 0 || delay < 0) {
		fputs("shimtop-demo: --threads takes 0..64, times are >= 0\n", stderr);
		return 2;
	}
	if (publish) {
		/* Without a segment the signal calls do nothing. */
		signals = shimtop_signals_open("phase", counters, 1);
		if (signals)
			atexit(shimtop_signals_close);
	}
	build_chase();
	if (run_seconds > 0)
		end = now_ns() + (uint64_t)(run_seconds * 1e9);
	tid = calloc((size_t)threads + 1, sizeof(*tid));
	if (threads) {
		uint64_t start = now_ns() + (uint64_t)(delay * 1e9);

		/* The main thread works until the others are due. */
		run_phases(&start);
		for (int i = 0; i < threads; i++)
			pthread_create(&tid[i], NULL, run_phases, &end);
	}
	run_phases(&end);
	for (int i = 0; i < threads; i++)
		pthread_join(tid[i], NULL);
	free(tid);
	return 0;
}
