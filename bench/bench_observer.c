/*
 * bench_observer.c - the observer measured as SHIM measured itself
 * (SHIM, ISCA 2015, §6, Fig. 7a), on this machine.
 *
 * 1. Floors: a bare loop of two rdtscp around one load of a cache line
 *    another core keeps writing (the cheapest possible shared-memory
 *    signal read), and the same around one 8-byte process_vm_readv.
 * 2. shimtop's observer, as fast as it goes: the median sample period in
 *    TSC cycles reading 1 signal, 1 counter + 1 tag, and 4 signals from
 *    a thread that keeps writing them; and in process_vm_readv mode.
 * 3. Slowdown: a worker pinned to one CPU does fixed units of work and
 *    counts each in a signal; its units per second with the observer on
 *    the other CPU at several periods, against no observer.
 *
 * A consumer thread drains the ring on the observer's CPU, as the model
 * would (on a 2-CPU VM there is no third CPU for it).
 */
#include "ring/record.h"
#include "ring/ring.h"
#include "sampler/observer.h"
#include "sampler/tsc.h"

#include <shimtop/signals.h>

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

static int worker_cpu, observer_cpu;
static struct shimtop_signals *sig;
static atomic_int mode;			/* what the worker publishes */
static atomic_bool quit;
static atomic_uint_fast64_t units;	/* work units done */
volatile uint64_t bench_variable;	/* for process_vm_readv */

enum { PUBLISH_ONE, PUBLISH_COUNTER_TAG, PUBLISH_FOUR };

static void pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	pthread_setaffinity_np(pthread_self(), sizeof(s), &s);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ~100 cycles of dependent arithmetic, then the signal stores. */
static void *worker(void *arg)
{
	struct shimtop_slot *me = shimtop_signals_thread(sig);
	uint64_t x = 1, n = 0;

	(void)arg;
	pin(worker_cpu);
	while (!atomic_load_explicit(&quit, memory_order_relaxed)) {
		for (int i = 0; i < 30; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
		n++;
		switch (atomic_load_explicit(&mode, memory_order_relaxed)) {
		case PUBLISH_ONE:
			me->counter[0] = n;
			break;
		case PUBLISH_COUNTER_TAG:
			me->counter[0] = n;
			me->tag = x & 7;
			break;
		default:
			me->counter[0] = n;
			me->counter[1] = x;
			me->counter[2] = n + x;
			me->counter[3] = n * 3;
			break;
		}
		bench_variable = n;
		if ((n & 1023) == 0)
			atomic_store_explicit(&units, n, memory_order_relaxed);
	}
	atomic_store(&units, n + (x == 0));
	return NULL;
}

/* ---- floors ---- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

#define FLOOR_N 200000

static uint64_t floor_shared_memory(void)
{
	static uint64_t d[FLOOR_N];
	const volatile uint64_t *v = &sig->slot[0].counter[0];
	uint64_t prev = tsc_start(), sink = 0;

	pin(observer_cpu);
	for (int i = 0; i < FLOOR_N; i++) {
		uint64_t s = tsc_start();

		sink += *v;
		(void)tsc_end();
		d[i] = s - prev;
		prev = s;
	}
	qsort(d, FLOOR_N, sizeof(d[0]), cmp_u64);
	return d[FLOOR_N / 2] + (sink & 0);
}

static uint64_t floor_vm_read(void)
{
	static uint64_t d[FLOOR_N / 10];
	uint64_t val, prev = tsc_start();
	struct iovec l = { &val, 8 }, r = { (void *)&bench_variable, 8 };
	pid_t self = getpid();

	pin(observer_cpu);
	for (int i = 0; i < FLOOR_N / 10; i++) {
		uint64_t s = tsc_start();

		process_vm_readv(self, &l, 1, &r, 1, 0);
		(void)tsc_end();
		d[i] = s - prev;
		prev = s;
	}
	qsort(d, FLOOR_N / 10, sizeof(d[0]), cmp_u64);
	return d[FLOOR_N / 20];
}

/* ---- the observer ---- */

struct consumer {
	struct ring *ring;
	atomic_bool stop;
	uint64_t *periods;
	size_t n, cap;
};

static void *consume(void *arg)
{
	struct consumer *c = arg;

	pin(observer_cpu);
	for (;;) {
		const void *rec;
		size_t len;
		bool stopping = atomic_load(&c->stop);

		while ((rec = ring_peek(c->ring, &len))) {
			const struct st_observe *o = rec;

			if (o->h.type == ST_REC_OBSERVE) {
				size_t w = st_observe_words(o->nthreads, o->ncounters, o->flags);

				for (size_t i = 1; i < o->nsamples && c->n < c->cap; i++)
					c->periods[c->n++] = o->data[i * w] - o->data[(i - 1) * w];
			}
			ring_release(c->ring);
		}
		if (stopping)
			return NULL;
		usleep(2000);
	}
}

struct run {
	uint64_t median_period;
	double samples_per_s;
	double units_per_s;
	uint64_t dropped;
};

/* Runs the observer (or none: period UINT64_MAX) for `seconds`. */
static struct run observe(uint64_t period, bool vm, double seconds)
{
	struct observer_config cfg;
	struct consumer c = { .cap = 50000000 };
	struct st_source *s = NULL;
	struct run out = { 0 };
	pthread_t ct;
	uint64_t u0, u1;
	double t0, t1;
	int status;

	c.ring = ring_create(64u << 20);
	c.periods = malloc(c.cap * sizeof(*c.periods));
	memset(&cfg, 0, sizeof(cfg));
	cfg.pid = getpid();
	cfg.place.observer_cpu = observer_cpu;
	cfg.place.target_cpu = worker_cpu;
	cfg.period = period;
	cfg.wait_seconds = 1;
	if (vm) {
		cfg.nvars = 1;
		snprintf(cfg.vars[0].name, sizeof(cfg.vars[0].name), "bench_variable");
		cfg.vars[0].address = (uint64_t)(uintptr_t)&bench_variable;
		cfg.vars[0].size = 8;
		cfg.launched = true;	/* no lookup: the address is given */
	}
	if (period != UINT64_MAX) {
		s = observer_source_create(&cfg, c.ring, &status);
		if (!s || source_start(s) < 0) {
			fprintf(stderr, "bench_observer: cannot start the observer\n");
			exit(1);
		}
		pthread_create(&ct, NULL, consume, &c);
	}
	usleep(100000);		/* settle */
	u0 = atomic_load(&units);
	t0 = now_s();
	usleep((useconds_t)(seconds * 1e6));
	u1 = atomic_load(&units);
	t1 = now_s();
	out.units_per_s = (double)(u1 - u0) / (t1 - t0);
	if (s) {
		uint64_t made = observer_samples(s);

		source_stop(s);
		atomic_store(&c.stop, true);
		pthread_join(ct, NULL);
		out.samples_per_s = (double)made / (t1 - t0 + 0.1);
		out.dropped = ring_dropped(c.ring);
		source_destroy(s);
		if (c.n) {
			qsort(c.periods, c.n, sizeof(*c.periods), cmp_u64);
			out.median_period = c.periods[c.n / 2];
		}
	}
	ring_destroy(c.ring);
	free(c.periods);
	return out;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * The slowdown at one setting: five pairs of 1 s runs, without and with
 * the observer back to back, so the VM's drift hits both alike; the
 * median of the five ratios.
 */
static double slowdown(uint64_t period, bool vm, uint64_t *median_period,
		       double *with)
{
	double ratio[5], r[5];

	for (int i = 0; i < 5; i++) {
		double base = observe(UINT64_MAX, false, 1.0).units_per_s;
		struct run x = observe(period, vm, 1.0);

		ratio[i] = 1 - x.units_per_s / base;
		r[i] = x.units_per_s;
		*median_period = x.median_period;
	}
	qsort(ratio, 5, sizeof(ratio[0]), cmp_double);
	qsort(r, 5, sizeof(r[0]), cmp_double);
	*with = r[2];
	return ratio[2];
}

int main(int argc, char **argv)
{
	const char *names[] = { "a", "b", "c", "d" };
	static const char *const label[] = {
		"1 signal", "1 counter + 1 tag", "4 signals"
	};
	static const int ncount[] = { 1, 1, 4 };
	uint64_t p;
	pthread_t w;

	(void)argc;
	(void)argv;
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		fprintf(stderr, "bench_observer: needs two CPUs\n");
		return 1;
	}
	worker_cpu = 0;
	observer_cpu = 1;
	sig = shimtop_signals_open("tag", names, 1);
	if (!sig) {
		perror("bench_observer: shm_open");
		return 1;
	}
	pthread_create(&w, NULL, worker, NULL);
	usleep(100000);

	/*
	 * Each observer run right after a floor run, five times; medians of
	 * each, and of the ratios: the VM's speed drifts between seconds.
	 */
	printf("observer as fast as possible against the floor (median of 5 paired runs, TSC cycles):\n");
	for (int m = 0; m <= 3; m++) {
		uint64_t fl[5], ob[5];
		double ratio[5], rate = 0;
		bool vm = m == 3;

		atomic_store(&mode, vm ? PUBLISH_ONE : m);
		sig->header.ncounters = (uint32_t)(vm ? 1 : ncount[m]);
		for (int i = 0; i < 5; i++) {
			struct run r;

			fl[i] = vm ? floor_vm_read() : floor_shared_memory();
			r = observe(0, vm, 0.5);
			ob[i] = r.median_period;
			ratio[i] = (double)ob[i] / (double)fl[i];
			rate += r.samples_per_s / 5;
		}
		qsort(fl, 5, sizeof(fl[0]), cmp_u64);
		qsort(ob, 5, sizeof(ob[0]), cmp_u64);
		qsort(ratio, 5, sizeof(ratio[0]), cmp_double);
		printf("  %-20s floor %5llu  observer %5llu  ratio %.2f (runs %.2f-%.2f)  %.2fM samples/s\n",
		       vm ? "process_vm_readv" : label[m], (unsigned long long)fl[2],
		       (unsigned long long)ob[2], ratio[2], ratio[0], ratio[4], rate / 1e6);
	}
	printf("\nworker slowdown, observer on the other CPU, 1 signal "
	       "(median of 5 paired 1 s runs):\n");
	atomic_store(&mode, PUBLISH_ONE);
	sig->header.ncounters = 1;
	{
		static const uint64_t periods[] = { 0, 1200, 10000, 100000 };

		for (size_t i = 0; i <= 4; i++) {
			bool vm = i == 4;
			uint64_t period = vm ? 0 : periods[i];
			double with, sd = slowdown(period, vm, &p, &with);
			char what[40];

			snprintf(what, sizeof(what), vm ? "process_vm_readv, fastest" :
				 period ? "period %llu" : "as fast as possible",
				 (unsigned long long)period);
			printf("  %-26s %8llu cycles  %.2fM units/s  slowdown %.2f%%\n",
			       what, (unsigned long long)p, with / 1e6, 100 * sd);
		}
	}
	atomic_store(&quit, true);
	pthread_join(w, NULL);
	shimtop_signals_close();
	return 0;
}
