/*
 * bench_range.c - what a time-range selection costs: a model fed 10
 * minutes of samples at 10 kHz (6,000,000; 8 threads, addresses spread
 * over libc's text, so thousands of symbols), then the tables of the
 * whole session, of one minute and of one second aggregated again from
 * the history (model_range, which walks a long range in one window per
 * CPU, up to 4), and the whole session again in one window
 * (model_range_split) for comparison.  Prints the history's memory too.
 *
 * bench_range [SECONDS [HZ]]
 */
#include "bench_model.h"
#include "model/model.h"
#include "ring/record.h"
#include "symbols/symbols.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* parts 0: as model_range chooses. */
static double time_range(const struct model *m, uint64_t from, uint64_t to,
			 unsigned parts, uint64_t *samples)
{
	struct model r;
	uint64_t t = st_now_ns();

	if (parts)
		model_range_split(m, from, to, parts, &r);
	else
		model_range(m, from, to, &r);
	t = st_now_ns() - t;
	*samples = r.samples;
	model_free(&r);
	return (double)t / 1e6;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void report(const struct model *m, const char *what, uint64_t from, uint64_t to,
		   unsigned parts)
{
	double ms[4];
	uint64_t got = 0;

	for (int i = 0; i < 4; i++)
		ms[i] = time_range(m, from, to, parts, &got);
	qsort(ms + 1, 3, sizeof(ms[0]), by_value);
	printf("range, %s: %llu samples in %.1f ms first, %.1f ms again (%ld CPUs, %s)\n",
	       what, (unsigned long long)got, ms[0], ms[2], sysconf(_SC_NPROCESSORS_ONLN),
	       parts == 1 ? "one window" : "a window per CPU up to 4");
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 600;
	double hz = argc > 2 ? atof(argv[2]) : 10000;
	uint64_t n = (uint64_t)(seconds * hz), step = (uint64_t)(1e9 / hz);
	uint64_t t0 = 1000000000ull, rng = 88172645463325252ull, start;
	struct symbolizer *sy = symbolizer_create(true);
	uint64_t libc_start, libc_len;
	_Alignas(8) unsigned char buf[sizeof(struct st_sample)];
	struct st_sample *s = (void *)buf;
	struct model m;

	model_init(&m, sy);
	if (bench_model_maps(&m, &libc_start, &libc_len) < 0) {
		fprintf(stderr, "bench_range: no libc mapping found\n");
		return 1;
	}
	memset(buf, 0, sizeof(buf));
	s->h = (struct st_header){ ST_REC_SAMPLE, ST_SOURCE_PERF, sizeof(buf) };
	s->pid = (uint32_t)getpid();
	s->period = 100000;
	start = st_now_ns();
	for (uint64_t i = 0; i < n; i++) {
		bench_random(&rng);
		s->tid = s->pid + (uint32_t)(rng % 8);
		s->ip = libc_start + (rng >> 8) % libc_len;
		s->time = t0 + i * step;
		model_ingest(&m, s);
	}
	printf("fed %llu samples (%.0f s at %.0f Hz) in %.2f s: %zu symbols, "
	       "history %.1f MB (%zu bytes a sample)\n", (unsigned long long)n,
	       seconds, hz, (double)(st_now_ns() - start) / 1e9,
	       symbolizer_count(sy), (double)history_bytes(&m.history) / 1e6,
	       sizeof(struct history_entry));
	/*
	 * Each range four times: the first pays for the range model's memory
	 * (its hash tables' first allocations); the rest, as a user moving
	 * the selection sees them, are given by their median.
	 */
	report(&m, "whole session", t0, t0 + n * step, 0);
	report(&m, "whole session in one window", t0, t0 + n * step, 1);
	report(&m, "one minute", t0 + n * step / 2, t0 + n * step / 2 + 60000000000ull, 0);
	report(&m, "one second", t0 + n * step / 2, t0 + n * step / 2 + 1000000000ull, 0);
	model_free(&m);
	symbolizer_destroy(sy);
	return 0;
}
