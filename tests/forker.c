/*
 * forker.c - a target that forks short-lived children: --rate children
 * a second for --seconds, each busy in child_work for about a
 * millisecond and then gone.  Reaps them as it goes.  Between forks the
 * parent is busy in parent_work (a target sampled there), or with
 * --nap 1 asleep (churn alone, no CPU of its own).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) void child_work(void);
__attribute__((noinline)) void child_work(void)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 1000; i++)
			sink += (unsigned long)i * i;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + t.tv_nsec - t0.tv_nsec < 1000000L);
}

__attribute__((noinline)) void parent_work(long ns);
__attribute__((noinline)) void parent_work(long ns)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 1000; i++)
			sink += (unsigned long)i;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + t.tv_nsec - t0.tv_nsec < ns);
}

int main(int argc, char **argv)
{
	long rate = 50, seconds = 10, nap = 0;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--rate"))
			rate = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--seconds"))
			seconds = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--nap"))
			nap = atol(argv[i + 1]);
	}
	signal(SIGCHLD, SIG_DFL);
	for (long n = 0; n < rate * seconds; n++) {
		pid_t pid = fork();

		if (pid == 0) {
			child_work();
			_exit(0);
		}
		if (nap) {
			long ns = 1000000000L / rate;
			struct timespec ts = { ns / 1000000000L, ns % 1000000000L };

			nanosleep(&ts, NULL);
		} else {
			parent_work(1000000000L / rate);
		}
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
	}
	while (wait(NULL) > 0)
		;
	return 0;
}
