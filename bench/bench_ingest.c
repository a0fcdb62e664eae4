/*
 * bench_ingest.c - the model's ingest rate: records per second through
 * the ring, the symbol cache and aggregation, fed from a recording.
 *
 *   bench_ingest RECORDING [RECORDS]
 *
 * A producer thread pushes the recording's records (over and over, up to
 * RECORDS, default 5,000,000; 0: each record once, as its session saw
 * them) into a ring, retrying when it is full as replay does; the main
 * thread drains the ring into a model, as the UI and batch mode do.
 * Prints records/s, the time a sample took (the model thread's CPU time,
 * not the producer's or another tenant's), and the cache hit rate.
 * When RECORDS is more than the recording holds, also the first pass's
 * time a sample (every file's table built, every address seen first)
 * and the time a sample after it (the same chains again: what a sample
 * costs once the program's code has been seen).
 */
#include "model/model.h"
#include "ring/record.h"
#include "ring/record_file.h"
#include "ring/ring.h"
#include "symbols/symbols.h"
#include "util.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct stream {
	unsigned char *bytes;
	size_t len;
	size_t first_sample;	/* offset of the first sample record */
	struct ring *ring;
	uint64_t total;
	atomic_bool done;
};

/* The model thread's own time: not the producer's, not another tenant's. */
static uint64_t model_thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *producer(void *arg)
{
	struct stream *st = arg;
	size_t off = 0;

	bool again = false;

	for (uint64_t n = 0; n < st->total;) {
		const struct st_header *h = (const void *)(st->bytes + off);

		/* Maps once, samples again: a map seen twice would start a new generation. */
		if (!again || h->type == ST_REC_SAMPLE) {
			/*
			 * The consumer is behind: wait for room, off its CPU (a
			 * spin would read its line at every record it releases).
			 */
			while (!ring_fits(st->ring, h->size))
				sched_yield();
			ring_push(st->ring, h, h->size);
			n++;
		}
		off += h->size;
		if (off >= st->len) {
			off = st->first_sample;
			again = true;
		}
	}
	atomic_store(&st->done, true);
	return NULL;
}

int main(int argc, char **argv)
{
	struct st_file_header h;
	struct record_reader *r;
	struct stream st;
	struct symbolizer *sy;
	struct symbolizer_stats ss;
	struct model m;
	pthread_t t;
	const void *rec;
	size_t cap = 1 << 20, len;
	uint64_t got = 0, records = 0, t0, t1, t_first = 0, samples_first = 0;
	long n;

	if (argc < 2) {
		fprintf(stderr, "usage: bench_ingest RECORDING [RECORDS]\n");
		return 2;
	}
	memset(&st, 0, sizeof(st));
	st.total = argc > 2 ? strtoull(argv[2], NULL, 10) : 5000000;
	r = record_reader_open(argv[1], &h);
	if (!r)
		return 1;
	st.bytes = st_xmalloc(cap);
	st.first_sample = SIZE_MAX;
	while ((n = record_reader_next(r, &rec)) > 0) {
		if (st.len + (size_t)n > cap)
			st.bytes = st_xrealloc(st.bytes, cap *= 2);
		if (((const struct st_header *)rec)->type == ST_REC_SAMPLE &&
		    st.first_sample == SIZE_MAX)
			st.first_sample = st.len;
		memcpy(st.bytes + st.len, rec, (size_t)n);
		st.len += (size_t)n;
		records++;
	}
	if (!st.total)
		st.total = records;
	record_reader_close(r);
	if (st.first_sample == SIZE_MAX) {
		fprintf(stderr, "bench_ingest: %s holds no samples\n", argv[1]);
		return 1;
	}
	st.ring = ring_create(8u << 20);
	sy = symbolizer_create(false);
	model_init(&m, sy);
	t0 = model_thread_ns();
	pthread_create(&t, NULL, producer, &st);
	pthread_setname_np(t, "producer");	/* perf report --comm tells the two apart */
	for (;;) {
		const void *p, *later;

		/* As a session's drain: a few records ahead prefetched. */
		while ((later = ring_peek_ahead(st.ring, MODEL_PREFETCH_AHEAD)))
			model_prefetch(&m, later);
		p = ring_peek(st.ring, &len);
		if (!p) {
			if (atomic_load(&st.done) && !ring_peek(st.ring, &len))
				break;
			continue;
		}
		/* As a session's pump: the time given once a pass, not read a lookup. */
		if (got % 1024 == 0)
			symbolizer_set_time(sy, st_now_ns());
		model_ingest(&m, p);
		ring_release(st.ring);
		if (++got == records) {
			t_first = model_thread_ns();
			samples_first = m.samples;
		}
	}
	t1 = model_thread_ns();
	pthread_join(t, NULL);
	symbolizer_stats(sy, &ss);
	printf("ingest: %llu records in %.3f s = %.0f records/s; %.2f us a sample; "
	       "%zu symbols; cache hits %.2f%%; samples %llu; lookups %llu, unknown %llu; "
	       "callers seen %llu of %llu; a sample: %.2f lookups, %.2f tree steps\n",
	       (unsigned long long)got, (double)(t1 - t0) / 1e9,
	       (double)got * 1e9 / (double)(t1 - t0),
	       m.samples ? (double)(t1 - t0) / 1e3 / (double)m.samples : 0.0,
	       symbolizer_count(sy),
	       ss.lookups ? 100.0 * (double)ss.cache_hits / (double)ss.lookups : 0,
	       (unsigned long long)m.samples, (unsigned long long)ss.lookups,
	       (unsigned long long)ss.unknown, (unsigned long long)m.callers_seen.hits,
	       (unsigned long long)(m.callers_seen.hits + m.callers_seen.misses),
	       m.samples ? (double)ss.lookups / (double)m.samples : 0.0,
	       m.samples ? (double)m.tree.steps / (double)m.samples : 0.0);
	if (t_first && m.samples > samples_first)
		printf("first pass: %.2f us a sample (%llu samples); after it: %.2f us a sample "
		       "(%llu samples)\n",
		       (double)(t_first - t0) / 1e3 / (double)samples_first,
		       (unsigned long long)samples_first,
		       (double)(t1 - t_first) / 1e3 / (double)(m.samples - samples_first),
		       (unsigned long long)(m.samples - samples_first));
	model_free(&m);
	symbolizer_destroy(sy);
	ring_destroy(st.ring);
	free(st.bytes);
	return 0;
}
