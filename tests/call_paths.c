/*
 * call_paths.c - a target with a known call tree, for the call tree's
 * test: one function (leaf_work) reached by three paths at three depths,
 *     main > via_one > leaf_work
 *     main > via_two > via_three > leaf_work
 *     main > recurse(5) > ... > recurse(0) > leaf_work   (six levels)
 * and a twin pair with equal frames (twin_left, twin_right > leaf_work).
 * Each path does the same work in turn, for --seconds of its own CPU
 * time (a loaded machine changes how long that takes, not how many
 * samples it gives nor how they fall before and after a tool attaches).
 * --deep N: only
 * recurse(N), deeper than the kernel's chains reach (10,000 for the
 * test).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile unsigned long sink;

#define PATH __attribute__((noinline, noclone))

/*
 * A leaf that needs no stack gets no frame even with frame pointers
 * (GCC 12), and a sample in it would skip its caller, as perf's does: a
 * local on the stack gives it one.
 */
PATH void leaf_work(void);
PATH void leaf_work(void)
{
	volatile unsigned long acc[2] = { 0, 0 };

	for (unsigned long i = 0; i < 2000000; i++)
		acc[i & 1] += i * i;
	sink += acc[0] + acc[1];
}

PATH void via_one(void);
PATH void via_one(void)
{
	leaf_work();
	sink++;		/* not a tail call: the frame stays */
}

PATH void via_three(void);
PATH void via_three(void)
{
	leaf_work();
	sink++;
}

PATH void via_two(void);
PATH void via_two(void)
{
	via_three();
	sink++;
}

PATH void recurse(int depth);
PATH void recurse(int depth)
{
	if (depth > 0)
		recurse(depth - 1);
	else
		leaf_work();
	sink++;
}

PATH void twin_left(void);
PATH void twin_left(void)
{
	leaf_work();
	sink++;
}

PATH void twin_right(void);
PATH void twin_right(void)
{
	leaf_work();
	sink++;
}

static double cpu_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double seconds = argc > 2 && !strcmp(argv[1], "--seconds") ? atof(argv[2]) : 2;
	int deep = argc > 2 && !strcmp(argv[1], "--deep") ? atoi(argv[2]) : 0;
	double end = cpu_seconds() + seconds;

	while (deep > 0 && cpu_seconds() < end)
		recurse(deep);
	while (!deep && cpu_seconds() < end) {
		via_one();
		via_two();
		recurse(5);
		twin_left();
		twin_right();
	}
	return 0;
}
