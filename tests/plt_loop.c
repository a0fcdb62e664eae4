/*
 * plt_loop.c - a target whose hot loop calls libc through the PLT:
 * built with -fno-builtin, each strlen and abs is a call to its stub, so
 * some samples land in the stub itself, between main's loop and libc.
 *
 * plt_loop [--seconds S]: S seconds of its own CPU time, however loaded
 * the machine (the samples it gives do not depend on the host's luck).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile size_t sink;

__attribute__((noinline)) void through_plt(const char *s);
__attribute__((noinline)) void through_plt(const char *s)
{
	for (int i = 0; i < 1000; i++)
		sink += strlen(s) + (size_t)abs(i);
}

int main(int argc, char **argv)
{
	double seconds = argc > 2 && !strcmp(argv[1], "--seconds") ? atof(argv[2]) : 5;
	struct timespec t0, t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	do {
		through_plt("abc");
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
	return 0;
}
