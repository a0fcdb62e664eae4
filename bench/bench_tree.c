/*
 * bench_tree.c - what call trees hold: 100,000 call paths of 10 to 30
 * frames, each a random walk down a program's call graph (5,000
 * functions, each calling FANOUT others (2 by default; 3 makes paths
 * diverge enough to reach the tree's node cap), each with one frame size, so a
 * function's depth depends on its path as in real programs) into
 * the calling context tree, and the same paths' frames with depths into
 * CallerChaining, then its tree built.  Prints nodes, bytes (the tree's
 * own count, and resident memory grown), and time per path.
 *
 * bench_tree [PATHS [FANOUT]]
 */
#include "model/callerchain.h"
#include "model/cct.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#define FUNCTIONS	5000u

static long rss_kib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static uint64_t rng = 88172645463325252ull;
static uint32_t callees[FUNCTIONS][3], frame_size[FUNCTIONS];
static unsigned fanout = 2;

static uint32_t next(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

/* From main (function 0) down n frames: each frame's function and depth. */
static void walk(uint32_t *frames, uint32_t *depths, size_t n)
{
	frames[0] = 0;
	depths[0] = frame_size[0];
	for (size_t i = 1; i < n; i++) {
		frames[i] = callees[frames[i - 1]][next(fanout)];
		depths[i] = depths[i - 1] + frame_size[frames[i]];
	}
}

int main(int argc, char **argv)
{
	size_t paths = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000;

	fanout = argc > 2 && atoi(argv[2]) >= 1 && atoi(argv[2]) <= 3 ? (unsigned)atoi(argv[2]) : 2;
	uint32_t frames[32], depths[32];
	struct callerchain cc;
	struct cc_result r;
	struct cct t;
	long before = rss_kib(), mid, after;
	uint64_t t0, t1, t2, t3;

	for (uint32_t f = 0; f < FUNCTIONS; f++) {
		for (unsigned k = 0; k < 3; k++)
			callees[f][k] = 1 + next(FUNCTIONS - 1);
		frame_size[f] = 16 * (1 + next(12));
	}
	cct_init(&t);
	callerchain_init(&cc);
	t0 = st_now_ns();
	for (size_t p = 0; p < paths; p++) {
		size_t n = 10 + next(21);

		walk(frames, depths, n);
		cct_add(&t, frames, n, false, 1);
	}
	t1 = st_now_ns();
	mid = rss_kib();
	for (size_t p = 0; p < paths; p++) {
		size_t n = 10 + next(21);
		struct cc_frame path[CC_PATH];
		uint32_t reference[CC_LEVELS];
		size_t np = 0;

		walk(frames, depths, n);
		/* Leaf first: the sample, its copy's two callers, their calls. */
		for (size_t i = n; i-- > 0 && np < 3;)
			path[np++] = (struct cc_frame){ frames[i], depths[i] };
		for (size_t i = 0; i + 1 < n; i++)
			callerchain_add_call(&cc, frames[i + 1], depths[i + 1], frames[i], depths[i], 1);
		for (size_t i = 0; i < CC_LEVELS; i++)
			reference[i] = frames[n - 2 - i];
		callerchain_add_sample(&cc, path, np, reference, CC_LEVELS, 1);
	}
	t2 = st_now_ns();
	callerchain_build(&cc, &r);
	t3 = st_now_ns();
	after = rss_kib();
	size_t leaves = 0;

	for (size_t i = 1; i < t.n; i++)
		leaves += cct_node(&t, (uint32_t)i)->self != 0;
	printf("calling context tree: %zu paths (%zu distinct), %zu nodes, %.1f MiB (cct_bytes), "
	       "resident +%.1f MiB, %.2f us a path\n", paths, leaves, t.n, cct_bytes(&t) / 1048576.0,
	       (mid - before) / 1024.0, (double)(t1 - t0) / 1e3 / (double)paths);
	/* What a table sorted or shown with TOTAL% pays a refresh. */
	uint64_t *through = calloc(FUNCTIONS, sizeof(*through)), t4 = st_now_ns();

	cct_through_by_symbol(&t, through, FUNCTIONS);
	printf("TOTAL%% of every function from the tree: %.1f ms\n",
	       (double)(st_now_ns() - t4) / 1e6);
	free(through);
	printf("callerchain: %zu sample paths, %zu quadruples, tree of %zu nodes%s; "
	       "resident +%.1f MiB; %.2f us a path to add, build %.1f ms\n",
	       cc.npaths, cc.nedges, r.n, r.capped ? " (capped)" : "",
	       (after - mid) / 1024.0, (double)(t2 - t1) / 1e3 / (double)paths,
	       (double)(t3 - t2) / 1e6);
	callerchain_result_free(&r);
	callerchain_free(&cc);
	cct_free(&t);
	return 0;
}
