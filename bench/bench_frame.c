/*
 * bench_frame.c - what a UI refresh costs the model: a session of 10
 * minutes at 4 kHz (2,400,000 samples, 8 threads) over 10,000 distinct
 * functions of a large library (LIBRARY, default Debian's libLLVM-14),
 * then the work behind each frame: the symbol table sorted (the table
 * view's requery), the timeline's columns (100 wide) at the live zoom
 * (10 s) and fitted to the whole session, and the top named symbol's
 * drill-down over the whole session; each refresh after a second's new
 * samples, as live (the drill-down's first count, which walks it all,
 * is printed apart).  Curses output is not timed:
 * it writes one screen whatever the model holds.
 *
 * bench_frame [SECONDS [HZ [ADDRESSES [LIBRARY]]]]
 */
#include "bench_model.h"
#include "model/annotate.h"
#include "model/model.h"
#include "model/timeline.h"
#include "ring/record.h"
#include "symbols/symbols.h"
#include "util.h"

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ROUNDS 20

/* Ascending, for the medians. */
static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Samples from..to-1 of the session, at random threads and addresses. */
static void feed(struct model *m, struct st_sample *s, uint64_t from, uint64_t to,
		 uint64_t step, uint64_t t0, const uint64_t *ips, uint64_t nsym, uint64_t *rng)
{
	for (uint64_t i = from; i < to; i++) {
		bench_random(rng);
		s->tid = s->pid + (uint32_t)(*rng % 8);
		s->ip = ips[(*rng >> 8) % nsym];
		s->time = t0 + i * step;
		model_ingest(m, s);
	}
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 600;
	double hz = argc > 2 ? atof(argv[2]) : 4000;
	uint64_t nsym = argc > 3 ? strtoull(argv[3], NULL, 10) : 10000;
	uint64_t n = (uint64_t)(seconds * hz), step = (uint64_t)(1e9 / hz);
	uint64_t fit_step = 100000000ull;	/* as the UI's f: 100 ms times 2^k */
	uint64_t t0 = 1000000000ull, rng = 88172645463325252ull;
	struct symbolizer *sy = symbolizer_create(true);
	const char *lib = argc > 4 ? argv[4] : "/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1";
	uint64_t lib_start, lib_len, *fn = NULL;
	size_t nfn = 0;
	struct link_map *lm = NULL;
	void *handle;
	_Alignas(8) unsigned char buf[sizeof(struct st_sample)];
	struct st_sample *s = (void *)buf;
	struct st_sort sort = { .key = { ST_SORT_SELF }, .nkeys = 1 };
	double table[ROUNDS], live[ROUNDS], fit[ROUNDS], detail[ROUNDS], first_detail = 0;
	struct annotation a = { 0 };
	uint64_t *ips;
	struct model m;
	size_t rows = 0;

	model_init(&m, sy);
	/* Mapped, not run: its functions are the symbols sampled. */
	if (!(handle = dlopen(lib, RTLD_LAZY | RTLD_LOCAL)) && argc <= 4) {
		fprintf(stderr, "bench_frame: %s is not installed: libc's functions instead\n", lib);
		handle = dlopen(lib = "libc.so.6", RTLD_LAZY | RTLD_LOCAL);
	}
	if (!handle || dlinfo(handle, RTLD_DI_LINKMAP, &lm) || !lm ||
	    !(nfn = bench_function_starts(lm->l_name, lm->l_addr, &fn))) {
		fprintf(stderr, "bench_frame: %s: cannot load it or read its functions; "
			"name a shared library with symbols as the fourth argument\n", lib);
		return 1;
	}
	if (bench_model_maps(&m, &lib_start, &lib_len) < 0) {
		fprintf(stderr, "bench_frame: no libc mapping found\n");
		return 1;
	}
	/* nsym functions spread over the library's, each sampled a little past its start. */
	if (nsym > nfn)
		nsym = nfn;
	ips = st_xcalloc(nsym, sizeof(*ips));
	for (uint64_t i = 0; i < nsym; i++)
		ips[i] = fn[i * nfn / nsym] + 1;
	free(fn);
	memset(buf, 0, sizeof(buf));
	s->h = (struct st_header){ ST_REC_SAMPLE, ST_SOURCE_PERF, sizeof(buf) };
	s->pid = (uint32_t)getpid();
	s->period = 250000;
	feed(&m, s, 0, n, step, t0, ips, nsym, &rng);
	while (fit_step * 100 < n * step + fit_step)
		fit_step *= 2;
	for (int r = 0; r < ROUNDS; r++) {
		struct model_row *rw;
		struct timeline tl;
		uint64_t t, now = n + (uint64_t)r * (uint64_t)hz;

		/* A refresh a second: a second's samples arrive first (not timed). */
		if (r)
			feed(&m, s, now - (uint64_t)hz, now, step, t0, ips, nsym, &rng);
		t = st_now_ns();
		rows = model_rows_sorted(&m, &sort, false, &rw);
		table[r] = (double)(st_now_ns() - t) / 1e6;
		/* The drill-down on the top named row: the first count walks everything. */
		for (size_t i = 0; !r && i < rows; i++)
			if (!rw[i].sym->unknown) {
				annotation_load(&a, sy, rw[i].sym->id);
				break;
			}
		model_rows_free(rw);
		t = st_now_ns();
		annotation_count(&a, &m, 0, UINT64_MAX);
		detail[r] = (double)(st_now_ns() - t) / 1e6;
		if (!r)
			first_detail = detail[r];
		t = st_now_ns();
		timeline_build(&m, t0 + now * step - 10000000000ull, 100000000ull, 100, 20, &tl);
		timeline_free(&tl);
		live[r] = (double)(st_now_ns() - t) / 1e6;
		t = st_now_ns();
		timeline_build(&m, t0 / fit_step * fit_step, fit_step, 100, 20, &tl);
		timeline_free(&tl);
		fit[r] = (double)(st_now_ns() - t) / 1e6;
	}
	qsort(table, ROUNDS, sizeof(double), cmp);
	qsort(live, ROUNDS, sizeof(double), cmp);
	qsort(fit, ROUNDS, sizeof(double), cmp);
	qsort(detail, ROUNDS, sizeof(double), cmp);
	printf("%llu samples (%.0f s at %.0f Hz) over %llu of the %zu functions of %s: "
	       "%zu rows; medians of %d frames:\n", (unsigned long long)n, seconds, hz,
	       (unsigned long long)nsym, nfn, lib, rows, ROUNDS);
	printf("  table sorted:            %.2f ms\n", table[ROUNDS / 2]);
	printf("  timeline, last 10 s:     %.2f ms\n", live[ROUNDS / 2]);
	printf("  timeline, whole session: %.2f ms\n", fit[ROUNDS / 2]);
	printf("  drill-down, first count of the whole session: %.2f ms\n", first_detail);
	printf("  drill-down, a refresh (%zu instructions, %llu samples): %.2f ms\n",
	       a.ninsn, (unsigned long long)a.samples, detail[ROUNDS / 2]);
	annotation_free(&a);
	free(ips);
	model_free(&m);
	symbolizer_destroy(sy);
	return 0;
}
