/*
 * test_obs_model.c - the observer's analysis over constructed batches:
 * exact DTE verdicts and counts, rates and their time base, tag
 * attribution, a counter going backwards, batches that continue one
 * another (the same answer as one batch), a dropped batch, two threads,
 * a gap while the observer was away,
 * IPC from cycle and instruction counters, record validation, and the
 * statistics saved for a snapshot and read back whole.
 */
#include "check.h"
#include "model/obs_model.h"
#include "ring/packed.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HZ 1000000000ull	/* 1 GHz: one cycle is one ns */

/* One constructed sample of up to two threads with one or two counters. */
struct smp {
	uint64_t start, end;
	uint64_t c[2][2];	/* [thread][counter] */
	uint64_t tag[2];
	uint64_t hw[4];		/* ST_OBS_HARDWARE: app cycles, instructions; ST_OBS_SELF: self's */
};

static _Alignas(8) unsigned char buf[65536];

static void meta(struct obs_model *m, unsigned ncounters, const char *c0,
		 const char *c1)
{
	struct st_observe_meta r;

	memset(&r, 0, sizeof(r));
	r.h.type = ST_REC_OBSERVE_META;
	r.h.size = sizeof(r);
	r.mode = ST_OBS_SHARED_MEMORY;
	r.ncounters = ncounters;
	for (unsigned i = 0; i < ST_OBS_MAX_COUNTERS; i++)
		r.width[i] = 64;
	snprintf(r.counter_name[0], ST_OBS_NAME_LEN, "%s", c0);
	snprintf(r.counter_name[1], ST_OBS_NAME_LEN, "%s", c1);
	snprintf(r.tag_value_name[1], ST_OBS_NAME_LEN, "parse");
	obs_model_ingest(m, &r);
}

static const void *batch(uint32_t seq, uint32_t flags, unsigned nthreads,
			 unsigned ncounters, const struct smp *s, size_t n)
{
	struct st_observe *r = (void *)buf;
	size_t words = st_observe_words(nthreads, ncounters, flags);

	memset(buf, 0, sizeof(buf));
	r->h.type = ST_REC_OBSERVE;
	r->seq = seq;
	r->flags = flags;
	r->nsamples = (uint16_t)n;
	r->nthreads = (uint8_t)nthreads;
	r->ncounters = (uint8_t)ncounters;
	r->tsc_hz = HZ;
	for (size_t i = 0; i < n; i++) {
		uint64_t *p = r->data + i * words;
		unsigned w = (unsigned)st_observe_head(flags);

		p[0] = s[i].start;
		p[1] = s[i].end;
		if (flags & ST_OBS_HARDWARE) {
			p[2] = s[i].hw[0];
			p[3] = s[i].hw[1];
		}
		if (flags & ST_OBS_SELF) {
			p[4] = s[i].hw[2];
			p[5] = s[i].hw[3];
		}
		/* record.h: every thread's counters, then every (tag, depth). */
		for (unsigned t = 0; t < nthreads; t++)
			for (unsigned c = 0; c < ncounters; c++)
				p[w++] = s[i].c[t][c];
		for (unsigned t = 0; t < nthreads; t++) {
			p[w++] = s[i].tag[t];
			p[w++] = 0;
		}
	}
	r->h.size = (uint32_t)(sizeof(*r) + n * words * 8);
	return r;
}

/*
 * Seven samples, 1000 cycles apart: accept, accept (CPC 1.005), reject
 * (CPC 1.095, a jump of 970), accept, backwards (counter reset to 5),
 * accept.
 */
static const struct smp seven[] = {
	{ 1000, 1100, { { 0 } }, { 1 }, { 0 } },
	{ 2000, 2100, { { 10 } }, { 1 }, { 0 } },
	{ 3000, 3105, { { 30 } }, { 2 }, { 0 } },
	{ 4000, 4200, { { 1000 } }, { 2 }, { 0 } },
	{ 5000, 5200, { { 1010 } }, { 1 }, { 0 } },
	{ 6000, 6200, { { 5 } }, { 1 }, { 0 } },
	{ 7000, 7200, { { 15 } }, { 1 }, { 0 } },
};

static const struct obs_tag *find(const struct obs_model *m, uint64_t tag)
{
	for (size_t i = 0; i < m->ntags; i++)
		if (m->tags[i].tag == tag)
			return &m->tags[i];
	return NULL;
}

static void check_seven(const struct obs_model *m)
{
	const struct obs_tag *t1 = find(m, 1), *t2 = find(m, 2);

	CHECK_EQ_U64(m->dte.taken, 7);
	CHECK_EQ_U64(m->dte.first, 1);
	CHECK_EQ_U64(m->dte.accepted, 4);
	CHECK_EQ_U64(m->dte.rejected_cpc, 1);
	CHECK_EQ_U64(m->dte.rejected_backwards, 1);
	CHECK_EQ_U64(m->dte.rejected_clock, 0);
	CHECK_EQ_U64(m->counter[0].delta, 50);		/* accepted only */
	CHECK_EQ_U64(m->counter[0].delta_all, 1020);	/* all but backwards */
	CHECK(m->cycles == 6000);
	CHECK(m->accepted_cycles == 4000);
	/* 1020 counts in 6000 ns. */
	CHECK(fabs(obs_model_rate(m, 0) - 1020 / 6e-6) < 1);
	/* Accepted samples: 10 counts per 1000 ns (three) and 20 (one). */
	CHECK_EQ_U64(m->counter[0].rate.n, 4);
	CHECK(fabs(m->counter[0].rate.max - 2e7) < 1);
	CHECK(fabs(m->counter[0].rate.mean - 1.25e7) < 1);
	CHECK_EQ_U64(m->counter[0].rejected.n, 1);	/* the CPC reject */
	CHECK(fabs(m->counter[0].rejected.max - 9.7e8) < 1);
	/* CPC of every judged pair, periods of every pair, gaps 1000, 2000, 2000. */
	CHECK_EQ_U64(m->cpc.n, 6);
	CHECK(fabs(m->cpc.max - 1.095) < 1e-9);
	CHECK_EQ_U64(m->period.n, 6);
	CHECK_EQ_U64(m->gap.n, 3);
	CHECK(fabs(m->gap.mean - 5000.0 / 3) < 1e-6);
	/* Tags own the period they were read in. */
	CHECK(t1 && t2);
	if (t1 && t2) {
		CHECK(t1->cycles == 4000 && t2->cycles == 2000);
		CHECK_EQ_U64(t1->samples, 4);
		CHECK_EQ_U64(t1->delta[0], 30);
		CHECK_EQ_U64(t2->delta[0], 20);
		CHECK_EQ_U64(t2->delta_all[0], 990);
		CHECK(fabs(obs_tag_rate(m, t2, 0) - 990 / 2e-6) < 1);
	}
	CHECK(!strcmp(obs_model_tag_name(m, 1), "parse"));
	CHECK(obs_model_tag_name(m, 2) == NULL);
}

/*
 * The ring of single samples: what it holds before and after it wraps,
 * the search by time, saturation of values past 32 bits, and a sample
 * out of time order (a hostile recording's clocks) left out.
 */
static void raw_ring(void)
{
	struct obs_series s;
	const struct obs_raw_sample *r;
	uint64_t total = OBS_RAW_SAMPLES + 1000;

	memset(&s, 0, sizeof(s));
	CHECK_EQ_U64(obs_series_raw_count(&s), 0);
	CHECK_EQ_U64(obs_series_raw_from(&s, 5), 0);
	for (uint64_t i = 0; i < 10; i++)
		obs_series_raw(&s, 1000 + i * 10, i % 2 == 0, 2000, i, 7);
	CHECK_EQ_U64(obs_series_raw_count(&s), 10);
	CHECK_EQ_U64(obs_series_raw_at(&s, 3)->ns, 1030);
	CHECK_EQ_U64(obs_series_raw_at(&s, 3)->accepted, 0);
	CHECK_EQ_U64(obs_series_raw_from(&s, 1031), 4);
	CHECK_EQ_U64(obs_series_raw_from(&s, 1030), 3);
	CHECK_EQ_U64(obs_series_raw_from(&s, 99999), 10);
	obs_series_raw(&s, 500, true, 1, 1, 1);		/* earlier than the last */
	CHECK_EQ_U64(obs_series_raw_count(&s), 10);
	obs_series_raw(&s, 1100, true, 1e12, 1ull << 40, 9);
	r = obs_series_raw_at(&s, 10);
	CHECK(r->cycles == UINT32_MAX && r->delta0 == UINT32_MAX && r->tag == 9);
	obs_series_free(&s);

	/* Past the ring's size: the newest OBS_RAW_SAMPLES, oldest first. */
	memset(&s, 0, sizeof(s));
	for (uint64_t i = 0; i < total; i++)
		obs_series_raw(&s, 1000 + i, true, 100, 1, i);
	CHECK_EQ_U64(obs_series_raw_count(&s), OBS_RAW_SAMPLES);
	CHECK_EQ_U64(obs_series_raw_at(&s, 0)->tag, total - OBS_RAW_SAMPLES);
	CHECK_EQ_U64(obs_series_raw_at(&s, OBS_RAW_SAMPLES - 1)->tag, total - 1);
	CHECK_EQ_U64(obs_series_raw_from(&s, 1000 + total - 5), OBS_RAW_SAMPLES - 5);
	CHECK_EQ_U64(obs_series_raw_from(&s, 0), 0);
	obs_series_free(&s);
}

/*
 * A window's distributions: 10 ms of 10 samples each (the tenth
 * rejected), tag 1 with 10 increments a sample in ms 0-4, tag 2 with 30
 * in ms 5-9, 2000 cycles at 2 GHz (10 and 30 million a second).  From
 * the single samples, then from the buckets alone (no ring kept).
 */
static void window_dist(void)
{
	struct obs_series s, b;
	struct obs_window_dist d;
	const uint64_t ms = 1000000, two = 2;

	memset(&s, 0, sizeof(s));
	memset(&b, 0, sizeof(b));
	for (uint64_t k = 0; k < 10; k++)
		for (uint64_t j = 0; j < 10; j++) {
			uint64_t ns = k * ms + j * 100000, tag = k < 5 ? 1 : 2, d0 = k < 5 ? 10 : 30;

			obs_series_sample(&s, ns, j != 9, 2000, d0);
			obs_series_tag(&s, ns, tag, 2000, d0, true);
			obs_series_raw(&s, ns, j != 9, 2000, d0, tag);
			obs_series_sample(&b, ns, j != 9, 2000, d0);
			obs_series_tag(&b, ns, tag, 2000, d0, true);
		}
	obs_series_window_dist(&s, 2 * ms, 7 * ms, 2000000000, NULL, &d);
	CHECK(d.per_sample);
	CHECK_EQ_U64(d.samples, 50);
	CHECK_EQ_U64(d.rate.n, 45);
	CHECK(fabs(d.rate.mean - 1.8e7) < 1);
	CHECK(fabs(d.rate.min - 1e7) < 1 && fabs(d.rate.max - 3e7) < 1);
	CHECK(d.period.n == 50 && fabs(d.period.mean - 2000) < 1e-9);
	obs_window_dist_free(&d);
	obs_series_window_dist(&s, 2 * ms, 7 * ms, 2000000000, &two, &d);
	CHECK(d.samples == 20 && d.rate.n == 18 && fabs(d.rate.mean - 3e7) < 1);
	obs_window_dist_free(&d);

	/* Per millisecond: five of them, accepted time and increments only. */
	obs_series_window_dist(&b, 2 * ms, 7 * ms, 2000000000, NULL, &d);
	CHECK(!d.per_sample);
	CHECK_EQ_U64(d.samples, 50);
	CHECK(d.rate.n == 5 && fabs(d.rate.mean - 1.8e7) < 1);
	CHECK_EQ_U64(d.period.n, 0);
	obs_window_dist_free(&d);
	obs_series_window_dist(&b, 2 * ms, 7 * ms, 2000000000, &two, &d);
	CHECK(d.samples == 20 && d.rate.n == 2 && fabs(d.rate.mean - 3e7) < 1);
	obs_window_dist_free(&d);
	/* A window with nothing in it. */
	obs_series_window_dist(&s, 20 * ms, 30 * ms, 2000000000, NULL, &d);
	CHECK(d.samples == 0 && d.rate.n == 0);
	obs_window_dist_free(&d);
	obs_series_free(&s);
	obs_series_free(&b);
}

/*
 * A window of the per-millisecond series: tag 1 in ms 0-4, tag 2 in ms
 * 5-9 (one of its samples' counter going backwards at ms 7), and at ms
 * 8 four more tags, one more than a millisecond keeps.
 */
static void window_tags(void)
{
	struct obs_series s;
	struct obs_window_tag *v;
	double all;
	size_t n;

	memset(&s, 0, sizeof(s));
	for (uint64_t ms = 0; ms < 10; ms++) {
		uint64_t ns = 1000000000ull + ms * 1000000ull + 100;

		obs_series_sample(&s, ns, true, 1000, 0);
		obs_series_tag(&s, ns, ms < 5 ? 1 : 2, 1000, ms < 5 ? 10 : 30, true);
		if (ms == 7)
			obs_series_tag(&s, ns, 2, 500, 999, false);
		for (uint64_t t = 3; ms == 8 && t <= 6; t++)
			obs_series_tag(&s, ns, t, 100, 1, true);
	}
	n = obs_series_window_tags(&s, 1002000000ull, 1008000000ull, &v, &all);
	CHECK_EQ_U64(n, 2);
	CHECK(all == 6500);
	if (n == 2) {
		CHECK_EQ_U64(v[0].tag, 2);		/* the most time first */
		CHECK_EQ_U64(v[0].samples, 4);
		CHECK(v[0].cycles == 3500);
		CHECK_EQ_U64(v[0].delta0, 90);	/* not the backwards one */
		CHECK_EQ_U64(v[1].tag, 1);
		CHECK(v[1].cycles == 3000);
		CHECK_EQ_U64(v[1].delta0, 30);
	}
	free(v);
	/* The whole series: tag 6 found no slot, but its time counts in the total. */
	n = obs_series_window_tags(&s, 0, UINT64_MAX, &v, &all);
	CHECK_EQ_U64(n, 5);
	CHECK(all == 10900);
	for (size_t i = 0; i < n; i++)
		CHECK(v[i].tag != 6);
	free(v);
	/* After the newest millisecond, nothing. */
	n = obs_series_window_tags(&s, 1010000000ull, 1020000000ull, &v, &all);
	CHECK_EQ_U64(n, 0);
	CHECK(all == 0);
	free(v);
	/* Over two minutes on, the ring no longer holds those milliseconds. */
	obs_series_sample(&s, 1000000000ull + OBS_SERIES_MS * 1000000ull + 20000000ull, true, 1, 0);
	n = obs_series_window_tags(&s, 1000000000ull, 1010000000ull, &v, &all);
	CHECK_EQ_U64(n, 0);
	free(v);
	obs_series_free(&s);
}

/* A model saved, read back into a new one: the same figures, the same bytes. */
static void saved(void)
{
	struct obs_model m, back;
	struct packed_out o = { 0 }, again = { 0 };
	char err[256];
	size_t cut;

	obs_model_init(&m, 0.02);
	meta(&m, 2, "cycles", "instructions");
	{
		/* At 5 s on the monotonic clock: the timeline keeps it. */
		struct st_observe *r = (void *)batch(0, 0, 1, 2, seven, 7);

		r->mono_base = 5000000000ull;
		obs_model_ingest(&m, r);
	}
	CHECK(m.have_ipc && m.ntags == 2 && m.series.nraw == 6);
	obs_model_save(&m, &o);

	obs_model_init(&back, 0.01);
	CHECK(obs_model_load(&back, o.p, o.n, err, sizeof(err)) == 0);
	CHECK(back.active && back.have_ipc && back.tolerance == 0.02);
	CHECK(!strcmp(back.meta.counter_name[1], "instructions"));
	CHECK(!strcmp(obs_model_tag_name(&back, 1), "parse"));
	CHECK_EQ_U64(back.dte.accepted, m.dte.accepted);
	CHECK_EQ_U64(back.cpc.n, m.cpc.n);
	CHECK(back.cpc.max == m.cpc.max && back.gap.mean == m.gap.mean);
	CHECK(hist_quantile(&back.cpc, 0.5) == hist_quantile(&m.cpc, 0.5));
	CHECK(hist_quantile(&back.counter[0].rate, 0.9) == hist_quantile(&m.counter[0].rate, 0.9));
	CHECK(obs_model_rate(&back, 0) == obs_model_rate(&m, 0));
	CHECK(back.ntags == 2 && back.tags[1].tag == m.tags[1].tag);
	CHECK(back.tags[0].ipc.n == m.tags[0].ipc.n);
	CHECK(obs_tag_rate(&back, &back.tags[1], 0) == obs_tag_rate(&m, &m.tags[1], 0));
	/* The timeline: the same milliseconds and single samples. */
	CHECK(obs_series_raw_count(&back.series) == 6);
	CHECK(obs_series_raw_at(&back.series, 5)->ns == obs_series_raw_at(&m.series, 5)->ns);
	CHECK(obs_series_at(&back.series, 5000) != NULL);
	for (uint64_t ms = 5000; ms < 5002; ms++) {
		const struct obs_bucket *a = obs_series_at(&m.series, ms);
		const struct obs_bucket *b = obs_series_at(&back.series, ms);

		CHECK(!a == !b);
		if (a && b)
			CHECK(a->taken == b->taken && a->accepted_cycles == b->accepted_cycles);
	}
	CHECK(back.present_cycles == m.present_cycles && back.present_cycles > 0);
	CHECK(back.tags[1].present_cycles == m.tags[1].present_cycles);
	CHECK(back.tags[0].depth_samples == m.tags[0].depth_samples);
	obs_model_save(&back, &again);
	CHECK(again.n == o.n && !memcmp(again.p, o.p, o.n));
	obs_model_free(&back);
	/* Version 1 had no time shares of its own: every period counts. */
	{
		uint32_t v1 = 1;
		uint8_t *old = malloc(o.n);

		if (!old)
			abort();
		memcpy(old, o.p, o.n);
		memcpy(old, &v1, 4);
		m.tags[1].present_cycles = 1;	/* not what version 1 reads */
		obs_model_init(&back, 0.01);
		CHECK(obs_model_load(&back, old, o.n - 8 * (1 + 2 * m.ntags), err, sizeof(err)) == 0);
		CHECK(back.present_cycles == back.cycles && back.cycles == m.cycles);
		CHECK(back.tags[1].present_cycles == m.tags[1].cycles);
		CHECK(back.tags[1].depth_samples == m.tags[1].samples);
		CHECK(obs_tag_share(&back, &back.tags[1]) > 0);
		obs_model_free(&back);
		free(old);
	}

	/* Cut anywhere, or followed by more: refused with a reason. */
	for (cut = 0; cut < o.n; cut += 1 + cut / 64) {
		obs_model_init(&back, 0.01);
		err[0] = '\0';
		CHECK(obs_model_load(&back, o.p, cut, err, sizeof(err)) == -EINVAL);
		CHECK(err[0] != '\0' && !strchr(err, '\n'));
		obs_model_free(&back);
	}
	packed_u64(&o, 0);
	obs_model_init(&back, 0.01);
	CHECK(obs_model_load(&back, o.p, o.n, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "8 bytes follow") != NULL);
	obs_model_free(&back);
	/* A histogram of another shape: the CPC histogram's bucket count (after meta, totals). */
	{
		size_t at = 4 + sizeof(struct st_observe_meta) + 8 * 4 + 4 + 1 + 8 * 5 + 1 + 1 +
			    8 * 4 + 8 + 1 + 8 * 4 + 1 + 8 + 8 * 9 + 1 + 8 * 2 + 1;
		uint32_t n;

		memcpy(&n, o.p + at, 4);
		CHECK(n == 400);
		n = 401;
		memcpy(o.p + at, &n, 4);
		obs_model_init(&back, 0.01);
		CHECK(obs_model_load(&back, o.p, o.n - 8, err, sizeof(err)) == -EINVAL);
		CHECK(strstr(err, "histogram is malformed") != NULL);
		obs_model_free(&back);
	}
	free(o.p);
	free(again.p);
	obs_model_free(&m);
}

int main(void)
{
	struct obs_model m;

	saved();

	raw_ring();
	window_tags();
	window_dist();

	/* One batch. */
	obs_model_init(&m, 0.01);
	meta(&m, 1, "items", "");
	obs_model_ingest(&m, batch(0, 0, 1, 1, seven, 7));
	check_seven(&m);
	CHECK_EQ_U64(m.missing, 0);
	obs_model_free(&m);

	/* The same in two batches, the second continuing the first. */
	obs_model_init(&m, 0.01);
	meta(&m, 1, "items", "");
	obs_model_ingest(&m, batch(0, 0, 1, 1, seven, 4));
	obs_model_ingest(&m, batch(1, ST_OBS_CONTINUES, 1, 1, seven + 3, 4));
	check_seven(&m);
	CHECK_EQ_U64(m.missing, 0);

	/* A lost batch: counted, and the next batch is judged on its own. */
	obs_model_ingest(&m, batch(3, 0, 1, 1, seven, 2));
	CHECK_EQ_U64(m.missing, 1);
	CHECK_EQ_U64(m.dte.first, 2);
	CHECK_EQ_U64(m.dte.accepted, 5);
	/* A clock that did not advance is a clock reject, not a rate. */
	{
		struct smp still[] = { { 9000, 9100, { { 0 } }, { 1 }, { 0 } },
				       { 9000, 9100, { { 7 } }, { 1 }, { 0 } } };

		obs_model_ingest(&m, batch(4, 0, 1, 1, still, 2));
		CHECK_EQ_U64(m.dte.rejected_clock, 1);
	}
	obs_model_zero(&m);
	CHECK_EQ_U64(m.dte.taken, 0);
	CHECK(m.ntags == 0 && m.active);
	obs_model_free(&m);

	/* Two threads, two tags: each thread's period goes to its own tag. */
	{
		struct smp two[] = {
			{ 0, 100, { { 0 }, { 0 } }, { 1, 3 }, { 0 } },
			{ 1000, 1100, { { 5 }, { 50 } }, { 1, 3 }, { 0 } },
			{ 2000, 2100, { { 10 }, { 100 } }, { 1, 3 }, { 0 } },
		};

		obs_model_init(&m, 0.01);
		meta(&m, 1, "items", "");
		obs_model_ingest(&m, batch(0, 0, 2, 1, two, 3));
		CHECK(find(&m, 1) && find(&m, 1)->cycles == 2000);
		CHECK(find(&m, 3) && find(&m, 3)->delta[0] == 100);
		CHECK_EQ_U64(m.thread_samples, 4);
		CHECK_EQ_U64(m.counter[0].delta, 110);
		obs_model_free(&m);
	}

	/*
	 * The observer away for 10 ms (preempted): the tag it reads after
	 * the gap is counted a sample and given the gap's counts and time for
	 * its rates, but none of the gap in its time share.  A period within
	 * the limit (16 times the shortest, at least 50 us) counts in full.
	 */
	{
		struct smp gap[] = {
			{ 0, 100, { { 0 } }, { 1 }, { 0 } },
			{ 1000, 1100, { { 10 } }, { 1 }, { 0 } },
			{ 2000, 2100, { { 20 } }, { 1 }, { 0 } },
			{ 10002000, 10002100, { { 100020 } }, { 2 }, { 0 } },
			{ 10003000, 10003100, { { 100030 } }, { 2 }, { 0 } },
			{ 10043000, 10043100, { { 100430 } }, { 2 }, { 0 } },
		};

		obs_model_init(&m, 0.01);
		meta(&m, 1, "items", "");
		obs_model_ingest(&m, batch(0, 0, 1, 1, gap, 6));
		CHECK(find(&m, 1) && find(&m, 1)->present_cycles == 2000);
		CHECK(find(&m, 2) && find(&m, 2)->present_cycles == 41000);
		CHECK(m.present_cycles == 43000);
		CHECK(obs_tag_share(&m, find(&m, 2)) == 100.0 * 41000 / 43000);
		/* Its rate keeps the gap: the target ran through it. */
		CHECK(find(&m, 2)->cycles == 10041000);
		CHECK_EQ_U64(find(&m, 2)->delta_all[0], 100410);
		CHECK_EQ_U64(find(&m, 2)->samples, 3);
		CHECK_EQ_U64(m.thread_samples, 5);
		obs_model_free(&m);
	}

	/*
	 * A tag's depth from accepted samples only: the sample DTE rejects
	 * (the fourth of seven's, CPC 1.095) read tag 1 with a
	 * neighbour's depth 13, as a torn pair of stores read across a
	 * preemption does; it counts as a sample, not for the depth.
	 */
	{
		static const uint64_t depth[] = { 12, 12, 12, 13, 11 };
		struct st_observe *r = (void *)batch(0, 0, 1, 1, seven, 5);
		size_t words = st_observe_words(1, 1, 0);

		for (size_t i = 0; i < 5; i++)
			r->data[i * words + st_observe_tag_at(0, 1, 1, 0) + 1] = depth[i];
		for (size_t i = 0; i < 5; i++)
			r->data[i * words + st_observe_tag_at(0, 1, 1, 0)] = 1;
		obs_model_init(&m, 0.01);
		meta(&m, 1, "items", "");
		obs_model_ingest(&m, r);
		CHECK_EQ_U64(m.dte.rejected_cpc, 1);
		CHECK_EQ_U64(find(&m, 1)->samples, 4);
		CHECK_EQ_U64(find(&m, 1)->depth_samples, 3);
		CHECK_EQ_U64(find(&m, 1)->max_depth, 12);
		CHECK_EQ_U64(find(&m, 1)->depth_sum, 35);
		obs_model_free(&m);
	}

	/* Cycle and instruction counters give IPC (500 buckets over 0-4). */
	{
		struct smp ipc[] = {
			{ 0, 100, { { 0, 0 } }, { 1 }, { 0 } },
			{ 1000, 1100, { { 1000, 2500 } }, { 1 }, { 0 } },
			{ 2000, 2100, { { 2000, 3000 } }, { 1 }, { 0 } },
		};

		obs_model_init(&m, 0.01);
		meta(&m, 2, "cycles", "instructions");
		CHECK(m.have_ipc);
		obs_model_ingest(&m, batch(0, 0, 1, 2, ipc, 3));
		CHECK_EQ_U64(m.ipc.n, 2);
		CHECK(fabs(m.ipc.max - 2.5) < 1e-9 && fabs(m.ipc.min - 0.5) < 1e-9);
		CHECK(m.ipc.nbuckets == 500);
		CHECK(find(&m, 1) && find(&m, 1)->ipc.n == 2);
		obs_model_free(&m);
	}

	/*
	 * The core's counters (app = core - self) ahead of the threads'
	 * words: IPC per accepted sample, attributed to thread 0's tag, and
	 * a CPC reject kept out of the accepted counts but not the totals.
	 */
	{
		struct smp hw[] = {
			{ 0, 100, { { 0 } }, { 1, 3 }, { 0, 0 } },
			{ 1000, 1100, { { 5 } }, { 1, 3 }, { 1000, 2000 } },
			{ 2000, 2100, { { 10 } }, { 2, 3 }, { 2000, 2500 } },
			{ 3000, 3200, { { 15 } }, { 2, 3 }, { 3000, 6500 } },
			{ 4000, 4200, { { 20 } }, { 2, 3 }, { 5000, 7500 } },
		};
		const struct obs_tag *t1, *t2, *t3;

		obs_model_init(&m, 0.01);
		meta(&m, 1, "items", "");
		CHECK(!m.have_ipc && !m.have_hardware);
		obs_model_ingest(&m, batch(0, ST_OBS_HARDWARE, 2, 1, hw, 5));
		t1 = find(&m, 1);
		t2 = find(&m, 2);
		t3 = find(&m, 3);
		CHECK(m.have_hardware && m.have_ipc);
		CHECK_EQ_U64(m.dte.accepted, 3);
		CHECK_EQ_U64(m.dte.rejected_cpc, 1);
		/* The threads' counters are where they were. */
		CHECK_EQ_U64(m.counter[0].delta_all, 20);
		CHECK_EQ_U64(m.hw_delta_all[0], 5000);
		CHECK_EQ_U64(m.hw_delta_all[1], 7500);
		CHECK_EQ_U64(m.hw_delta[0], 4000);
		CHECK_EQ_U64(m.hw_delta[1], 3500);
		CHECK(fabs(obs_model_hardware_ipc(&m) - 1.5) < 1e-12);
		/* IPC 2.0, 0.5, 0.5 accepted; 4.0 rejected. */
		CHECK_EQ_U64(m.ipc.n, 3);
		CHECK(fabs(m.ipc.max - 2.0) < 1e-9 && fabs(m.ipc.min - 0.5) < 1e-9);
		CHECK(fabs(m.hw_rejected_max_ipc - 4.0) < 1e-9);
		CHECK(t1 && t2 && t3);
		if (t1 && t2 && t3) {
			CHECK_EQ_U64(t1->hw_delta_all[1], 2000);
			CHECK_EQ_U64(t2->hw_delta_all[0], 4000);
			CHECK_EQ_U64(t2->hw_delta[1], 1500);
			CHECK(fabs(obs_tag_hardware_ipc(t2) - 5500.0 / 4000) < 1e-12);
			CHECK_EQ_U64(t1->ipc.n, 1);
			CHECK_EQ_U64(t2->ipc.n, 2);
			/* Thread 1 is not on the sibling: no hardware counts. */
			CHECK_EQ_U64(t3->hw_delta_all[0], 0);
			CHECK_EQ_U64(t3->ipc.n, 0);
		}
		/* A core counter going backwards rejects the sample. */
		{
			struct smp back[] = {
				{ 5000, 5200, { { 25 } }, { 2, 3 }, { 4000, 8000 } },
			};

			obs_model_ingest(&m, batch(1, ST_OBS_HARDWARE | ST_OBS_CONTINUES,
						   2, 1, (const struct smp[]){ hw[4], back[0] }, 2));
			CHECK_EQ_U64(m.dte.rejected_backwards, 1);
			CHECK_EQ_U64(m.hw_delta_all[0], 5000);
		}
		obs_model_free(&m);
	}

	/*
	 * The observer's own counts (ST_OBS_SELF), as the observer-effect
	 * display shows them: the same samples as above with self's cycles
	 * and instructions beside app's.  Accepted: samples 1, 2 and 4 (the
	 * third's CPC is out); per millisecond on a clock that puts each
	 * sample in its own millisecond.
	 */
	{
		struct smp hw[] = {
			{ 0, 100, { { 0 } }, { 1 }, { 0, 0, 0, 0 } },
			{ 1000, 1100, { { 5 } }, { 1 }, { 1000, 2000, 1000, 3000 } },
			{ 2000, 2100, { { 10 } }, { 2 }, { 2000, 2500, 2000, 4000 } },
			{ 3000, 3200, { { 15 } }, { 2 }, { 3000, 6500, 3000, 9000 } },
			{ 4000, 4200, { { 20 } }, { 2 }, { 5000, 7500, 4000, 12000 } },
		};
		struct st_observe *r;
		const struct obs_bucket *b;

		obs_model_init(&m, 0.01);
		meta(&m, 1, "items", "");
		r = (struct st_observe *)batch(0, ST_OBS_HARDWARE | ST_OBS_SELF, 1, 1, hw, 5);
		r->mono_base = 1000000000;	/* TSC 0 at 1 s; 1 MHz: 1000 cycles a millisecond */
		r->tsc_base = 0;
		r->tsc_hz = 1000000;
		CHECK(st_record_check(r, r->h.size) == r->h.size);
		obs_model_ingest(&m, r);
		CHECK(m.have_hardware && m.have_self);
		CHECK_EQ_U64(m.dte.accepted, 3);
		CHECK_EQ_U64(m.self_delta_all[0], 4000);
		CHECK_EQ_U64(m.self_delta_all[1], 12000);
		CHECK_EQ_U64(m.self_delta[0], 3000);	/* 1000 + 1000 + 1000 */
		CHECK_EQ_U64(m.self_delta[1], 7000);	/* 3000 + 1000 + 3000 */
		CHECK(fabs(obs_model_self_ipc(&m) - 3.0) < 1e-12);
		CHECK(fabs(obs_model_hardware_ipc(&m) - 1.5) < 1e-12);
		CHECK(fabs(obs_model_core_ipc(&m) - 19500.0 / 9000) < 1e-12);
		/* The per-millisecond series: app and self of accepted samples only. */
		b = obs_series_at(&m.series, 1001);
		CHECK(b && b->hw[0] == 1000 && b->hw[1] == 2000 && b->hw[2] == 1000 && b->hw[3] == 3000);
		b = obs_series_at(&m.series, 1003);
		CHECK(b && b->hw[0] == 0 && b->hw[2] == 0);	/* rejected */
		b = obs_series_at(&m.series, 1004);
		CHECK(b && b->hw[0] == 2000 && b->hw[3] == 3000);
		obs_model_free(&m);

		/* Without it, no self figures: NAN, and nothing in the series' self. */
		obs_model_init(&m, 0.01);
		meta(&m, 1, "items", "");
		r = (struct st_observe *)batch(0, ST_OBS_HARDWARE, 1, 1, hw, 5);
		r->mono_base = 1000000000;
		r->tsc_hz = 1000000;
		obs_model_ingest(&m, r);
		CHECK(m.have_hardware && !m.have_self);
		CHECK(isnan(obs_model_self_ipc(&m)));
		b = obs_series_at(&m.series, 1001);
		CHECK(b && b->hw[0] == 1000 && b->hw[2] == 0);
		obs_model_free(&m);
	}

	/*
	 * The layout spelled out word by word, as the observer writes it:
	 * start, end, both threads' two counters, then both (tag, depth).
	 * A reader that took each thread's block as (counters, tag, depth)
	 * would see counter values as tags.
	 */
	{
		static const uint64_t words[3][10] = {
			{ 0, 100,     0, 0,   0, 0,      4, 1,  6, 2 },
			{ 1000, 1100, 3, 30,  5, 500,    4, 1,  6, 2 },
			{ 2000, 2100, 6, 60,  10, 1000,  4, 3,  6, 2 },
		};
		struct st_observe *r = (void *)buf;

		obs_model_init(&m, 0.01);
		meta(&m, 2, "items", "bytes");
		memset(buf, 0, sizeof(buf));
		r->h.type = ST_REC_OBSERVE;
		r->nsamples = 3;
		r->nthreads = 2;
		r->ncounters = 2;
		r->tsc_hz = HZ;
		memcpy(r->data, words, sizeof(words));
		r->h.size = (uint32_t)(sizeof(*r) + sizeof(words));
		CHECK(st_record_check(r, r->h.size) == r->h.size);
		obs_model_ingest(&m, r);
		CHECK_EQ_U64(m.ntags, 2);
		CHECK(find(&m, 4) && find(&m, 4)->samples == 2);
		CHECK(find(&m, 4) && find(&m, 4)->max_depth == 3);
		CHECK(find(&m, 4) && find(&m, 4)->delta[0] == 6 &&
		      find(&m, 4)->delta[1] == 60);
		CHECK(find(&m, 6) && find(&m, 6)->delta[0] == 10 &&
		      find(&m, 6)->delta[1] == 1000);
		CHECK(find(&m, 6) && find(&m, 6)->max_depth == 2);
		obs_model_free(&m);
	}

	/*
	 * A target that writes a new tag in every sample cannot grow the
	 * table without bound: past OBS_MAX_TAGS they share one row.
	 */
	{
		static struct smp many[OBS_MAX_TAGS + 100];

		for (size_t i = 0; i < OBS_MAX_TAGS + 100; i++) {
			many[i].start = 1000 * i;
			many[i].end = 1000 * i + 100;
			many[i].c[0][0] = 3 * i;
			many[i].tag[0] = 1000000 + i;
		}
		obs_model_init(&m, 0.01);
		meta(&m, 1, "items", "");
		for (size_t i = 0; i + 1 < OBS_MAX_TAGS + 100; i += 600) {
			size_t n = OBS_MAX_TAGS + 100 - i < 601 ? OBS_MAX_TAGS + 100 - i : 601;

			obs_model_ingest(&m, batch((uint32_t)(i / 600),
						   i ? ST_OBS_CONTINUES : 0, 1, 1, many + i, n));
		}
		CHECK_EQ_U64(m.ntags, OBS_MAX_TAGS + 1);
		CHECK(m.tags_overflowed > 0);
		{
			const struct obs_tag *other = NULL;

			for (size_t i = 0; i < m.ntags; i++)
				if (m.tags[i].other)
					other = &m.tags[i];
			CHECK(other != NULL);
			/* Every thread-sample is still counted somewhere. */
			CHECK(other && other->samples == m.tags_overflowed);
		}
		CHECK_EQ_U64(m.counter[0].delta_all, 3 * (OBS_MAX_TAGS + 99));
		obs_model_free(&m);
	}

	/* Records from a file are checked before use. */
	{
		struct st_observe *r = (void *)buf;

		batch(0, 0, 1, 1, seven, 7);
		CHECK(st_record_check(r, r->h.size) == r->h.size);
		r->nsamples = 200;
		CHECK(st_record_check(r, r->h.size) == 0);
		r->nsamples = 7;
		r->nthreads = ST_OBS_MAX_THREADS + 1;
		CHECK(st_record_check(r, r->h.size) == 0);
		/* Two more words per sample than the record holds. */
		r->nthreads = 1;
		r->flags = ST_OBS_HARDWARE;
		CHECK(st_record_check(r, r->h.size) == 0);
		/* Self's counts without the core's, and flags no layout knows. */
		batch(0, 0, 1, 1, seven, 7);
		r->flags = ST_OBS_SELF;
		CHECK(st_record_check(r, r->h.size) == 0);
		r->flags = 0x100;
		CHECK(st_record_check(r, r->h.size) == 0);
		r->flags = 0;
		CHECK(st_record_check(r, r->h.size) == r->h.size);
	}
	return check_done("test_obs_model");
}
