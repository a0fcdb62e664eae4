/*
 * test_observer_math.c - the observer's arithmetic over constructed
 * inputs: exact DTE accept/reject on timestamp sequences, counter wrap and
 * backwards detection, histograms, and the rdpmc read loop against a
 * constructed perf_event_mmap_page (seqlock retry, sign extension,
 * index 0 fallback), and the TSC's frequency from bracketed clock pairs
 * with a preemption planted inside a bracket.
 */
#include "check.h"
#include "model/dte.h"
#include "model/histogram.h"
#include "sampler/rdpmc.h"
#include "sampler/tsc_clock.h"

#include <math.h>
#include <string.h>

static void test_dte(void)
{
	/* (start, end) pairs: windows of 20 cycles, periods of 1000. */
	static const uint64_t ts[][2] = {
		{ 1000, 1020 },		/* first */
		{ 2000, 2020 },		/* CPC 1.000: accept */
		{ 3000, 3029 },		/* CPC 1.009: accept (<= 0.01) */
		{ 4000, 4040 },		/* CPC 1.011: reject */
		{ 5000, 5040 },		/* CPC 1.000: accept */
		{ 6000, 6200 },		/* CPC 1.160: reject (perturbed) */
		{ 6000, 6300 },		/* start did not advance: clock reject */
		{ 7000, 7300 },		/* CPC 1.000, but both windows are 300 > 8 x 20 */
		{ 8000, 8020 },		/* CPC 0.720: reject */
		{ 9000, 9020 },		/* CPC 1.000, windows 20: accept */
		{ 10000, 10161 },	/* CPC 1.141: reject */
		{ 11000, 11160 },	/* CPC 0.999, windows 161 > 160: long window */
		{ 12000, 12160 },	/* CPC 1.000, windows 160: accept */
	};
	static const enum dte_verdict want[] = {
		DTE_FIRST, DTE_ACCEPT, DTE_ACCEPT, DTE_REJECT_CPC, DTE_ACCEPT,
		DTE_REJECT_CPC, DTE_REJECT_CLOCK, DTE_REJECT_WINDOW,
		DTE_REJECT_CPC, DTE_ACCEPT, DTE_REJECT_CPC, DTE_REJECT_WINDOW,
		DTE_ACCEPT,
	};
	struct dte d;
	double cpc;

	dte_init(&d, DTE_DEFAULT_TOLERANCE);
	for (size_t i = 0; i < sizeof(ts) / sizeof(ts[0]); i++) {
		enum dte_verdict v = dte_check(&d, ts[i][0], ts[i][1], &cpc);

		if (v != want[i])
			fprintf(stderr, "sample %zu: verdict %d, want %d (cpc %f)\n",
				i, v, want[i], cpc);
		CHECK(v == want[i]);
	}
	CHECK_EQ_U64(d.taken, 13);
	CHECK_EQ_U64(d.accepted, 5);
	CHECK_EQ_U64(d.rejected_cpc, 4);
	CHECK_EQ_U64(d.rejected_clock, 1);
	CHECK_EQ_U64(d.rejected_window, 2);
	CHECK_EQ_U64(d.min_window, 20);
	dte_check(&d, 13000, 13160, &cpc);
	CHECK(fabs(cpc - 1.0) < 1e-12);

	/* A looser tolerance keeps the 1.6% window. */
	dte_init(&d, 0.02);
	dte_check(&d, 0, 10, &cpc);
	CHECK(dte_check(&d, 1000, 1026, &cpc) == DTE_ACCEPT);
}

static void test_counter_delta(void)
{
	uint64_t d = 0;

	CHECK(counter_delta(100, 350, 64, &d) && d == 250);
	/* A 48-bit counter wrapping past its top. */
	CHECK(counter_delta((UINT64_C(1) << 48) - 10, 5, 48, &d) && d == 15);
	/* Backwards by a little: a reset or torn read, not a wrap. */
	CHECK(!counter_delta(1000, 990, 64, &d));
	CHECK(!counter_delta(1000, 990, 48, &d));
	{
		struct dte dt;
		double cpc;

		enum dte_verdict v;

		dte_init(&dt, 0.01);
		dte_check(&dt, 0, 10, &cpc);
		v = dte_check(&dt, 100, 110, &cpc);
		CHECK(dte_backwards(&dt, v) == DTE_REJECT_BACKWARDS);
		CHECK_EQ_U64(dt.accepted, 0);
		CHECK_EQ_U64(dt.rejected_backwards, 1);
		/* A CPC reject whose counter also went back counts once. */
		v = dte_check(&dt, 200, 260, &cpc);
		CHECK(v == DTE_REJECT_CPC);
		CHECK(dte_backwards(&dt, v) == DTE_REJECT_BACKWARDS);
		CHECK_EQ_U64(dt.rejected_cpc, 0);
		CHECK_EQ_U64(dt.accepted, 0);
		CHECK_EQ_U64(dt.rejected_backwards, 2);
		CHECK_EQ_U64(dt.taken, dt.accepted + dt.rejected_cpc +
			     dt.rejected_clock + dt.rejected_backwards + 1);
	}
}

static void test_histograms(void)
{
	struct histogram h;

	hist_init_linear(&h, 0, 4, 500);	/* SHIM's IPC histogram */
	hist_add(&h, 0.0);
	hist_add(&h, 1.0);
	hist_add(&h, 1.004);
	hist_add(&h, 3.999);
	hist_add(&h, 4.0);	/* over */
	hist_add(&h, -1);	/* under */
	CHECK_EQ_U64(h.buckets[0], 1);
	CHECK_EQ_U64(h.buckets[125], 2);	/* [1.000, 1.008) */
	CHECK_EQ_U64(h.buckets[499], 1);
	CHECK_EQ_U64(h.over, 1);
	CHECK_EQ_U64(h.under, 1);
	CHECK_EQ_U64(h.n, 6);
	CHECK(fabs(h.mean - (0 + 1 + 1.004 + 3.999 + 4 - 1) / 6) < 1e-12);
	CHECK(h.min == -1 && h.max == 4);
	CHECK(fabs(hist_bucket_low(&h, 125) - 1.0) < 1e-12);
	hist_free(&h);

	hist_init_log(&h);
	for (int i = 0; i < 1000; i++)
		hist_add(&h, 2.0);
	hist_add(&h, 1e6);
	hist_add(&h, 1e-9);
	hist_add(&h, 0);	/* not positive: under */
	CHECK_EQ_U64(h.under, 1);
	CHECK(fabs(hist_quantile(&h, 0.5) - 2.0) / 2.0 < 0.05);
	CHECK(hist_stddev(&h) > 0);
	hist_free(&h);

	/* A rate mostly idle: the busy figures leave the zeros out. */
	{
		struct hist_busy b;

		hist_init_log(&h);
		for (int i = 0; i < 30; i++)
			hist_add(&h, 0);
		for (int i = 0; i < 10; i++)
			hist_add(&h, 1000 + 100 * (i % 2));	/* 1000, 1100: mean 1050 */
		CHECK(hist_quantile(&h, 0.5) == 0);	/* what the idle ones made the median */
		hist_busy(&h, &b);
		CHECK_EQ_U64(b.n, 10);
		CHECK(fabs(b.mean - 1050) < 1e-6);
		CHECK(fabs(b.sd - sqrt(10 * 50.0 * 50 / 9)) < 1e-3);
		CHECK(b.min > 950 && b.min <= 1000);
		CHECK(fabs(hist_quantile_busy(&h, 0.5) - 1050) < 60);
		hist_free(&h);
	}

	hist_init_linear(&h, 0, 10, 10);
	hist_add(&h, 2);
	hist_add(&h, 4);
	hist_add(&h, 4);
	hist_add(&h, 4);
	hist_add(&h, 5);
	hist_add(&h, 5);
	hist_add(&h, 7);
	hist_add(&h, 9);
	CHECK(fabs(h.mean - 5) < 1e-12);
	CHECK(fabs(hist_stddev(&h) - sqrt(32.0 / 7)) < 1e-12);
	hist_free(&h);
}

struct fake {
	struct perf_event_mmap_page *pc;
	uint64_t value;
	uint32_t last_idx;
	int bump_lock;		/* times to change the lock under the reader */
	int calls;
};

static uint64_t fake_rdpmc(uint32_t idx, void *arg)
{
	struct fake *f = arg;

	f->calls++;
	f->last_idx = idx;
	if (f->bump_lock > 0) {
		f->bump_lock--;
		f->pc->lock += 2;	/* the kernel rescheduled the event */
	}
	return f->value;
}

static void test_rdpmc(void)
{
	static struct perf_event_mmap_page pc;
	struct fake f = { .pc = &pc };
	uint64_t v = 0;
	unsigned retries;

	memset(&pc, 0, sizeof(pc));
	pc.cap_user_rdpmc = 1;
	pc.index = 3;			/* hardware counter 2 */
	pc.pmc_width = 48;
	pc.offset = 1000;
	f.value = 500;
	CHECK(rdpmc_read(&pc, fake_rdpmc, &f, &v, &retries) == RDPMC_OK);
	CHECK_EQ_U64(v, 1500);
	CHECK(f.last_idx == 2);
	CHECK(retries == 0);

	/* A 48-bit counter reading as "negative" (the kernel starts it at
	 * -period): sign-extended, so offset + pmc is right. */
	pc.offset = (int64_t)1000000;
	f.value = (UINT64_C(1) << 48) - 100;	/* -100 in 48 bits */
	CHECK(rdpmc_read(&pc, fake_rdpmc, &f, &v, &retries) == RDPMC_OK);
	CHECK_EQ_U64(v, 1000000 - 100);

	/* The lock changes twice under the reader: it reads three times. */
	f.value = 7;
	f.calls = 0;
	f.bump_lock = 2;
	pc.offset = 10;
	CHECK(rdpmc_read(&pc, fake_rdpmc, &f, &v, &retries) == RDPMC_OK);
	CHECK(retries == 2 && f.calls == 3);
	CHECK_EQ_U64(v, 17);

	/* Not on a counter now: fall back to read(). */
	pc.index = 0;
	f.calls = 0;
	CHECK(rdpmc_read(&pc, fake_rdpmc, &f, &v, &retries) == RDPMC_USE_READ);
	CHECK(f.calls == 0);
	/* rdpmc not allowed by the kernel: the same. */
	pc.index = 1;
	pc.cap_user_rdpmc = 0;
	CHECK(rdpmc_read(&pc, fake_rdpmc, &f, &v, &retries) == RDPMC_USE_READ);
	CHECK(!rdpmc_allowed(&pc));
}

/*
 * Fake clocks on one timeline: each read costs 30 ns; the read numbered
 * stall_at waits stall_ns first (a host taking the vCPU away).  The TSC
 * runs at 2.1 GHz.
 */
static uint64_t fake_ns, fake_reads, stall_at = UINT64_MAX, stall_ns, stall_every_mono;

static void fake_tick(void)
{
	if (fake_reads++ == stall_at)
		fake_ns += stall_ns;
	fake_ns += 30;
}

static bool tsc_runs_back;

static uint64_t fake_tsc(void)
{
	fake_tick();
	/* Each pair's second read under its first: no pair can be had. */
	return tsc_runs_back ? (UINT64_MAX - fake_ns) / 2 : fake_ns * 21 / 10;
}

static uint64_t fake_mono(void)
{
	fake_ns += stall_every_mono;
	fake_tick();
	return fake_ns;
}

static void fake_clocks(uint64_t at, uint64_t ns)
{
	fake_ns = 1000000000;
	fake_reads = 0;
	stall_at = at;
	stall_ns = ns;
}

static void test_tsc_clock(void)
{
	struct tsc_clock c;
	uint64_t hz;

	/* 190 ms between the first pair's mono and TSC reads: the old single
	 * pair made every rate of a 4 s session 4.6% low. */
	for (uint64_t at = 0; at < 3; at++) {
		fake_clocks(at, 190000000);
		tsc_clock_start(&c, fake_tsc, fake_mono);
		CHECK(c.origin.bracket < 1000);
		fake_ns += 4000000000u;
		CHECK(tsc_clock_update(&c, fake_tsc, fake_mono));
		CHECK(fabs((double)c.hz - 2.1e9) < 2.1e9 * 1e-6);
	}
	/* A stall inside every try of an update: refused, hz kept. */
	fake_clocks(UINT64_MAX, 0);
	tsc_clock_start(&c, fake_tsc, fake_mono);
	fake_ns += 1000000000;
	CHECK(tsc_clock_update(&c, fake_tsc, fake_mono));
	hz = c.hz;
	stall_every_mono = 50000000;
	fake_ns += 1000000000;
	CHECK(!tsc_clock_update(&c, fake_tsc, fake_mono));
	CHECK_EQ_U64(c.hz, hz);
	stall_every_mono = 0;
	CHECK(tsc_clock_update(&c, fake_tsc, fake_mono));
	/* A TSC that runs back inside every pair: the read ends, nothing taken. */
	tsc_runs_back = true;
	fake_reads = 0;
	CHECK_EQ_U64(tsc_pair_read(fake_tsc, fake_mono, 4).bracket, UINT64_MAX);
	CHECK(fake_reads <= 3 * 16);
	CHECK(!tsc_clock_update(&c, fake_tsc, fake_mono));
	tsc_runs_back = false;
	/* Too soon after the origin (under 1 ms): not a rate yet. */
	fake_clocks(UINT64_MAX, 0);
	tsc_clock_start(&c, fake_tsc, fake_mono);
	CHECK(!tsc_clock_update(&c, fake_tsc, fake_mono));
	CHECK_EQ_U64(c.hz, 0);
}

int main(void)
{
	test_dte();
	test_counter_delta();
	test_histograms();
	test_rdpmc();
	test_tsc_clock();
	return check_done("test_observer_math");
}
