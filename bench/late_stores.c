/*
 * late_stores.c - how often does this machine show a reader on one CPU
 * another CPU's progress late, in a way no observer-side timing can see?
 *
 * A writer pinned to CPU 0 steps a counter at most once per D TSC cycles
 * (as tests/tsc_signal does) and publishes, with each step, the TSC it
 * stepped at.  A reader pinned to CPU 1 samples both every P cycles
 * between rdtscp brackets, as the observer does.  A pair of samples whose
 * own timing is clean (|CPC - 1| <= 0.01, both windows under 1,000
 * cycles) yet whose counter grew by more than the writer can step,
 * (interval + window) / D + 2, is an anomaly: DTE accepts it and no rule
 * over the reader's clocks could reject it.  For each anomaly the reader
 * prints how old the newest visible step was at the earlier sample
 * (its TSC minus the step's): when that age is near a whole period, the
 * writer's steps were made on time but reached the reader late.
 *
 * Usage: late_stores [seconds [D [P]]]  (30, 1000, 10000)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

#include "sampler/tsc.h"

/*
 * The counter, its step's TSC and the writer's loop count at that step,
 * on one line.  Loops per step tell a writer that ran from one that
 * stalled: a stalled writer takes fewer loops per step afterwards.
 */
static struct {
	volatile uint64_t stepped_at;
	volatile uint64_t loops;
	volatile uint64_t steps;
} __attribute__((aligned(64))) shared;

static volatile int stopping;
static uint64_t step_cycles = 1000;

static int pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *write_steps(void *arg)
{
	uint64_t n = 0, loops = 0, next = __rdtsc() + step_cycles;

	(void)arg;
	if (pin_to(0))
		return NULL;
	while (!stopping) {
		uint64_t now = __rdtsc();

		loops++;
		if (now >= next) {
			shared.stepped_at = now;
			shared.loops = loops;
			shared.steps = ++n;
			next = now + step_cycles;
		}
	}
	return NULL;
}

struct sample {
	uint64_t start, end, steps, stepped_at, loops;
};

static struct sample take_sample(void)
{
	struct sample s;

	/* The observer's own bracket, so the probe sees what it sees. */
	s.start = tsc_start();
	s.stepped_at = shared.stepped_at;
	s.loops = shared.loops;
	s.steps = shared.steps;
	s.end = tsc_end();
	return s;
}

int main(int argc, char **argv)
{
	int seconds = argc > 1 ? atoi(argv[1]) : 30;
	uint64_t period = argc > 3 ? strtoull(argv[3], NULL, 10) : 10000;
	uint64_t pairs = 0, clean = 0, anomalies = 0, loops = 0, steps = 0;
	struct sample prev = { 0 };
	pthread_t writer;
	time_t end;

	if (argc > 2)
		step_cycles = strtoull(argv[2], NULL, 10);
	if (seconds <= 0 || step_cycles == 0 || period == 0) {
		fprintf(stderr, "late_stores: usage: late_stores [seconds [D [P]]], all positive\n");
		return 2;
	}
	if (pthread_create(&writer, NULL, write_steps, NULL) || pin_to(1)) {
		fprintf(stderr, "late_stores: needs two CPUs (0 and 1)\n");
		return 1;
	}
	end = time(NULL) + seconds;
	while (time(NULL) < end) {
		for (int i = 0; i < 1000; i++) {
			struct sample s = take_sample();
			double dt = (double)(s.start - prev.start);
			double cpc = (double)(s.end - prev.end) / dt;
			uint64_t w = s.end - s.start, pw = prev.end - prev.start;

			if (prev.start) {
				pairs++;
				if (fabs(cpc - 1) <= 0.01 && w < 1000 && pw < 1000) {
					uint64_t n = s.steps - prev.steps;
					double most = (dt + (double)w) / (double)step_cycles + 2;

					clean++;
					if ((double)n > most) {
						if (++anomalies <= 10)
							printf("%lu steps in %.0f cycles (at most %.1f), "
							       "%.1f loops per step; newest step visible "
							       "before: %ld cycles old\n",
							       (unsigned long)n, dt, most,
							       (double)(s.loops - prev.loops) / (double)n,
							       (long)(prev.start - prev.stepped_at));
					} else {
						loops += s.loops - prev.loops;
						steps += n;
					}
				}
			}
			prev = s;
			while (tsc_end() < s.start + period)
				tsc_pause();
		}
	}
	stopping = 1;
	pthread_join(writer, NULL);
	printf("%lu sample pairs, %lu with clean timing, %lu over the writer's "
	       "bound: %.2f per million clean pairs; %.1f loops per step in "
	       "the others\n", (unsigned long)pairs,
	       (unsigned long)clean, (unsigned long)anomalies,
	       clean ? 1e6 * (double)anomalies / (double)clean : 0.0,
	       steps ? (double)loops / (double)steps : 0.0);
	return 0;
}
