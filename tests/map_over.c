/*
 * map_over.c - a target that maps one page over part of libm's code, as
 * a JIT, a hot patch or an injected trampoline does (mmap MAP_FIXED),
 * then spins in cos.  The kernel keeps libm's code on either side of the
 * page; a profiler that drops libm's whole mapping names the spin [anon].
 *
 * map_over [--seconds S]: waits for SIGUSR1 (20 s at most, so a profiler
 * can attach first), maps the page at the end of libm's code farther
 * from cos, prints its address, and spins S seconds of its own CPU time
 * in cos (default 2).
 */
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static volatile double sink;

/* The executable mapping that holds cos: its bounds from /proc/self/maps. */
static int find_text(uint64_t at, uint64_t *start, uint64_t *end)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int found = -1;

	while (f && found < 0 && fgets(line, sizeof(line), f))
		if (sscanf(line, "%" SCNx64 "-%" SCNx64, start, end) == 2 && *start <= at && at < *end)
			found = 0;
	if (f)
		fclose(f);
	return found;
}

int main(int argc, char **argv)
{
	double seconds = argc > 2 && !strcmp(argv[1], "--seconds") ? atof(argv[2]) : 2;
	const uint64_t page = 4096;
	uint64_t start, end, cos_at = (uint64_t)(uintptr_t)&cos, over;
	struct timespec wait = { 20, 0 }, t0, t;
	sigset_t usr1;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	sink = cos(0.5);	/* bound now: nothing of ld.so's later */
	if (find_text(cos_at, &start, &end) < 0 || end - start < 4 * page) {
		fprintf(stderr, "map_over: no mapping of libm's code holds cos\n");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	sigtimedwait(&usr1, NULL, &wait);
	over = cos_at - start > end - cos_at ? start : end - page;
	if (mmap((void *)(uintptr_t)over, page, PROT_READ | PROT_EXEC,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) {
		perror("map_over: mmap");
		return 1;
	}
	printf("mapped %#" PRIx64 " over libm's %#" PRIx64 "-%#" PRIx64 "\n", over, start, end);
	fflush(stdout);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	do {
		for (int i = 0; i < 10000; i++)
			sink += cos(sink + i * 1e-4);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
	_exit(0);	/* libm's destructors may be under the page */
}
