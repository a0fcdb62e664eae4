/*
 * rt_stall.c - a deterministic perturbation for the DTE test: a
 * real-time (SCHED_FIFO) thread pinned to one CPU that wakes every
 * PERIOD_US microseconds and spins SPIN_US, preempting whatever runs
 * there.  A preemption that lands inside an observer sample's clock
 * window stretches it, as a host's scheduler would now and then; here it
 * happens at a known rate on every machine.
 *
 *   rt_stall CPU SECONDS [PERIOD_US SPIN_US]    (defaults 1000 20)
 *
 * Exits 77 if it may not use SCHED_FIFO (not root, RT throttled away).
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long long ns_of(const struct timespec *t)
{
	return t->tv_sec * 1000000000LL + t->tv_nsec;
}

int main(int argc, char **argv)
{
	struct sched_param sp = { .sched_priority = 50 };
	struct timespec next, now;
	long long end, period, spin;
	long wakes = 0;
	cpu_set_t one;

	if (argc < 3) {
		fputs("usage: rt_stall CPU SECONDS [PERIOD_US SPIN_US]\n", stderr);
		return 2;
	}
	period = (argc > 3 ? atoll(argv[3]) : 1000) * 1000;
	spin = (argc > 4 ? atoll(argv[4]) : 20) * 1000;
	CPU_ZERO(&one);
	CPU_SET(atoi(argv[1]), &one);
	if (sched_setaffinity(0, sizeof(one), &one) < 0 ||
	    sched_setscheduler(0, SCHED_FIFO, &sp) < 0) {
		fprintf(stderr, "rt_stall: %s\n", strerror(errno));
		return 77;
	}
	clock_gettime(CLOCK_MONOTONIC, &next);
	end = ns_of(&next) + (long long)(atof(argv[2]) * 1e9);
	while (ns_of(&next) < end) {
		long long t = ns_of(&next) + period;

		next.tv_sec = t / 1000000000LL;
		next.tv_nsec = t % 1000000000LL;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			;
		do
			clock_gettime(CLOCK_MONOTONIC, &now);
		while (ns_of(&now) - ns_of(&next) < spin);
		wakes++;
	}
	printf("rt_stall: %ld wakes\n", wakes);
	return 0;
}
