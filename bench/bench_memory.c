/*
 * bench_memory.c - what a long session holds: the observer at a million
 * samples a second (faster than this machine's fastest period) for five
 * minutes of record time, with a program's four phases as tags, and once
 * more with a hostile program that writes a new tag in every sample;
 * then an hour of perf samples at 10 kHz (8 threads, addresses over
 * libc's text) fed to a model as fast as it takes them.  Resident memory
 * is printed every minute (observer) and every 10 minutes (perf) of
 * record time.  The bounds are the
 * history's (--history, 600 s by default, and HISTORY_MAX_BYTES), the
 * observer's per-millisecond ring (OBS_SERIES_MS) and its tag rows
 * (OBS_MAX_TAGS); this shows them hold.
 *
 * bench_memory [MINUTES]
 */
#include "bench_model.h"
#include "model/model.h"
#include "model/obs_model.h"
#include "session/options.h"
#include "ring/record.h"
#include "symbols/symbols.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OBS_HZ		1000000ull		/* observer samples a second */
#define TSC_HZ		3000000000ull
#define OBS_BATCH	256u

/* This process's resident set, MB (VmRSS). */
static double rss_mb(void)
{
	size_t len;
	char *text = st_read_file("/proc/self/status", &len), *at;
	double kb = 0;

	if (text && (at = strstr(text, "VmRSS:")))
		kb = atof(at + 6);
	free(text);
	return kb / 1024;
}

static void feed_perf(double minutes)
{
	uint64_t hz = 10000, n = (uint64_t)(minutes * 60 * (double)hz), step = 1000000000ull / hz;
	uint64_t t0 = 1000000000ull, rng = 88172645463325252ull, next_report = 0;
	struct symbolizer *sy = symbolizer_create(true);
	uint64_t libc_start, libc_len;
	_Alignas(8) unsigned char buf[sizeof(struct st_sample)];
	struct st_sample *s = (void *)buf;
	struct model m;

	model_init(&m, sy);
	model_set_history(&m, (uint64_t)ST_HISTORY_SECONDS * 1000000000ull);	/* shimtop's default */
	if (bench_model_maps(&m, &libc_start, &libc_len) < 0) {
		fprintf(stderr, "bench_memory: no libc mapping found\n");
		exit(1);
	}
	memset(buf, 0, sizeof(buf));
	s->h = (struct st_header){ ST_REC_SAMPLE, ST_SOURCE_PERF, sizeof(buf) };
	s->pid = (uint32_t)getpid();
	s->period = 100000;
	printf("perf samples at 10 kHz, 8 threads, %.0f minutes of record time:\n", minutes);
	for (uint64_t i = 0; i <= n; i++) {
		if (i == next_report) {
			printf("  at %3.0f min: RSS %6.1f MB, history %6.1f MB (%llu samples "
			       "held, %llu dropped), %zu symbols\n", (double)i / (double)hz / 60,
			       rss_mb(), (double)history_bytes(&m.history) / 1e6,
			       (unsigned long long)m.history.entries,
			       (unsigned long long)m.history.dropped, symbolizer_count(sy));
			next_report += 10 * 60 * hz;
		}
		bench_random(&rng);
		s->tid = s->pid + (uint32_t)(rng % 8);
		s->ip = libc_start + (rng >> 8) % libc_len;
		s->time = t0 + i * step;
		model_ingest(&m, s);
	}
	model_free(&m);
	symbolizer_destroy(sy);
}

static _Alignas(8) unsigned char obs_buf[sizeof(struct st_observe) + OBS_BATCH * 5 * 8];

/* One batch: one thread, one counter, the tag from tag_of(sample index). */
static const void *obs_batch(uint32_t seq, uint64_t first, bool hostile)
{
	struct st_observe *r = (void *)obs_buf;
	size_t words = st_observe_words(1, 1, 0);
	uint64_t cycles = TSC_HZ / OBS_HZ;

	memset(r, 0, sizeof(*r));
	r->h.type = ST_REC_OBSERVE;
	r->h.size = (uint32_t)(sizeof(*r) + OBS_BATCH * words * 8);
	r->seq = seq;
	r->nsamples = OBS_BATCH;
	r->nthreads = 1;
	r->ncounters = 1;
	r->tsc_hz = TSC_HZ;
	r->tsc_base = 0;
	r->mono_base = 1000000000ull;
	for (uint64_t i = 0; i < OBS_BATCH; i++) {
		uint64_t *p = r->data + i * words, k = first + i;

		p[0] = k * cycles;
		p[1] = k * cycles + cycles / 20;
		p[2] = k / 3;				/* the work counter */
		/* Four phases of 100 ms each, or a new tag every sample. */
		p[3] = hostile ? k + 1 : 1 + (k / (OBS_HZ / 10)) % 4;
		p[4] = 0;				/* depth */
	}
	return r;
}

static void feed_observer(double minutes, bool hostile)
{
	uint64_t n = (uint64_t)(minutes * 60 * (double)OBS_HZ), next_report = 0;
	struct st_observe_meta meta;
	struct obs_model m;
	uint32_t seq = 0;

	obs_model_init(&m, 0.01);
	memset(&meta, 0, sizeof(meta));
	meta.h = (struct st_header){ ST_REC_OBSERVE_META, ST_SOURCE_OBSERVER, sizeof(meta) };
	meta.mode = ST_OBS_SHARED_MEMORY;
	meta.ncounters = 1;
	meta.width[0] = 64;
	snprintf(meta.counter_name[0], ST_OBS_NAME_LEN, "work");
	obs_model_ingest(&m, &meta);
	printf("observer at %llu samples/s, %s, %.0f minutes of record time:\n",
	       (unsigned long long)OBS_HZ, hostile ? "a new tag every sample"
	       : "four phases as tags", minutes);
	for (uint64_t k = 0; k <= n; k += OBS_BATCH) {
		if (k >= next_report) {
			printf("  at %3.1f min: RSS %6.1f MB, %zu tag rows, %llu samples\n",
			       (double)k / (double)OBS_HZ / 60, rss_mb(), m.ntags,
			       (unsigned long long)m.dte.taken);
			next_report += OBS_HZ * 60;
		}
		obs_model_ingest(&m, obs_batch(seq++, k, hostile));
	}
	obs_model_free(&m);
}

int main(int argc, char **argv)
{
	double minutes = argc > 1 ? atof(argv[1]) : 60;

	/* The observer first: its memory shows before the model's heap is there to reuse. */
	feed_observer(minutes < 5 ? minutes : 5, false);
	feed_observer(minutes < 5 ? minutes : 5, true);
	feed_perf(minutes);
	printf("at the end: RSS %.1f MB\n", rss_mb());
	return 0;
}
