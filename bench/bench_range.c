/*
 * bench_range.c - what a time-range selection costs: a model fed 10
 * minutes of samples at 10 kHz (6,000,000; 8 threads, addresses spread
 * over libc's text, so thousands of symbols), then the tables of the
 * whole session, of one minute and of one second aggregated again from
 * the history (model_range).  Prints the history's memory too.
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

static double time_range(const struct model *m, uint64_t from, uint64_t to,
			 uint64_t *samples)
{
	struct model r;
	uint64_t t = st_now_ns();

	model_range(m, from, to, &r);
	t = st_now_ns() - t;
	*samples = r.samples;
	model_free(&r);
	return (double)t / 1e6;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 600;
	double hz = argc > 2 ? atof(argv[2]) : 10000;
	uint64_t n = (uint64_t)(seconds * hz), step = (uint64_t)(1e9 / hz);
	uint64_t t0 = 1000000000ull, rng = 88172645463325252ull, got, start;
	struct symbolizer *sy = symbolizer_create(true);
	uint64_t libc_start, libc_len;
	_Alignas(8) unsigned char buf[sizeof(struct st_sample)];
	struct st_sample *s = (void *)buf;
	struct model m;
	double ms;

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
	ms = time_range(&m, t0, t0 + n * step, &got);
	printf("range, whole session: %llu samples in %.1f ms\n", (unsigned long long)got, ms);
	ms = time_range(&m, t0 + n * step / 2, t0 + n * step / 2 + 60000000000ull, &got);
	printf("range, one minute:    %llu samples in %.1f ms\n", (unsigned long long)got, ms);
	ms = time_range(&m, t0 + n * step / 2, t0 + n * step / 2 + 1000000000ull, &got);
	printf("range, one second:    %llu samples in %.1f ms\n", (unsigned long long)got, ms);
	model_free(&m);
	symbolizer_destroy(sy);
	return 0;
}
