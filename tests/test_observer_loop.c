/*
 * test_observer_loop.c - the observer thread on this very process: it
 * finds the segment, reads a thread's counter and tag, never samples
 * faster than its period, takes a new period while running (the control
 * path the UI key uses), sends the period in its meta record, keeps
 * sampling when its ring is full (counting what the ring drops), and
 * stops cleanly with the last batch delivered.  Core-wide counters (from
 * a fixture: no PMU here) go ahead of the threads' words, and counters
 * that will not open leave a note saying why.
 */
#include "check.h"
#include "model/obs_model.h"
#include "ring/record.h"
#include "ring/ring.h"
#include "sampler/observer.h"

#include <shimtop/signals.h>

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* What the fixture's core and self counters advance by per read. */
#define CORE_STEP 10
#define SELF_STEP 4

static struct shimtop_signals *sig;
static atomic_bool done;

/* Publishes tag *arg (7 for the first worker) and counts as fast as it can. */
static void *worker(void *arg)
{
	struct shimtop_slot *me = shimtop_signals_thread(sig);
	uint64_t tag = arg ? *(const uint64_t *)arg : 7;

	shimtop_tag(me, tag, (uint32_t)tag - 4);
	while (!atomic_load(&done))
		shimtop_count(me, 0, 1);
	return NULL;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

struct seen {
	uint64_t samples, min_period, max_period, last_meta_period;
	uint64_t metas, counter_last, tag, meta_ncounters, max_ncounters;
	uint64_t long_periods;		/* >= the second period */
	uint64_t hw_samples, hw_bad_steps;	/* ST_OBS_HARDWARE */
};

static void drain(struct ring *r, struct seen *v, uint64_t second)
{
	const void *rec;
	size_t len;

	while ((rec = ring_peek(r, &len))) {
		const struct st_header *h = rec;

		if (h->type == ST_REC_OBSERVE_META) {
			const struct st_observe_meta *m = rec;

			v->metas++;
			v->last_meta_period = m->period;
			v->meta_ncounters = m->ncounters;
		} else if (h->type == ST_REC_OBSERVE) {
			const struct st_observe *o = rec;
			size_t w = st_observe_words(o->nthreads, o->ncounters, o->flags);

			for (size_t i = 1; i < o->nsamples; i++) {
				uint64_t d = o->data[i * w] - o->data[(i - 1) * w];

				if (d < v->min_period)
					v->min_period = d;
				if (d > v->max_period)
					v->max_period = d;
				v->long_periods += d >= second;
				if (o->flags & ST_OBS_HARDWARE) {
					const uint64_t *a = o->data + (i - 1) * w, *b = a + w;

					/* Each sample reads each counter once. */
					v->hw_samples++;
					v->hw_bad_steps += b[2] - a[2] != CORE_STEP - SELF_STEP ||
							   b[3] - a[3] != 2 * (CORE_STEP - SELF_STEP);
					/* The observer's own counts beside them (§4.3). */
					v->hw_bad_steps += !(o->flags & ST_OBS_SELF) ||
							   b[4] - a[4] != SELF_STEP ||
							   b[5] - a[5] != 2 * SELF_STEP;
				}
			}
			if (o->ncounters > v->max_ncounters)
				v->max_ncounters = o->ncounters;
			v->samples += o->nsamples -
				      ((o->flags & ST_OBS_CONTINUES) ? 1 : 0);
			if (o->nthreads == 1 && o->ncounters == 1) {
				const uint64_t *last = o->data + (o->nsamples - 1) * w;

				v->counter_last = last[st_observe_counters_at(o->flags, 1, 0)];
				v->tag = last[st_observe_tag_at(o->flags, 1, 1, 0)];
			}
		}
		ring_release(r);
	}
}

/*
 * Core-wide counters without a PMU: constructed pages, and an rdpmc
 * whose registers advance on every read, the core's faster than the
 * observer's own, so app = core - self grows by a known step per sample.
 * Each page is mapped on its own, as the kernel's are: corewide_close
 * unmaps them (a static array here once lost a page of this test's bss
 * to it).
 */
static uint64_t regs[4];

static uint64_t advancing_rdpmc(uint32_t idx, void *arg)
{
	(void)arg;
	/* idx: core cycles, core instructions, self cycles, self instructions */
	regs[idx] += (idx < 2 ? CORE_STEP : SELF_STEP) * (idx % 2 + 1);
	return regs[idx];
}

static int open_fixture(struct corewide *cw, char *why, size_t len)
{
	(void)why;
	(void)len;
	memset(cw, 0, sizeof(*cw));
	cw->rd = advancing_rdpmc;
	for (unsigned w = 0; w < 2; w++)
		for (unsigned e = 0; e < COREWIDE_EVENTS; e++) {
			struct perf_event_mmap_page *pg = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE),
							       PROT_READ | PROT_WRITE,
							       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (pg == MAP_FAILED)
				return -1;
			pg->index = w * 2 + e + 1;
			pg->pmc_width = 48;
			pg->cap_user_rdpmc = 1;
			cw->page[w][e] = pg;
			cw->fd[w][e] = -1;
		}
	return 0;
}

static int refuse_fixture(struct corewide *cw, char *why, size_t len)
{
	(void)cw;
	snprintf(why, len, "the fixture says no");
	return -1;
}

static struct st_source *observer_counting(struct ring *r, uint64_t period,
					   corewide_open_fn open)
{
	struct observer_config cfg;
	int status = 0;

	memset(&cfg, 0, sizeof(cfg));
	cfg.pid = getpid();
	cfg.place.observer_cpu = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 1 : 0;
	cfg.period = period;
	cfg.wait_seconds = 1;
	cfg.open_counters = open;
	return observer_source_create(&cfg, r, &status);
}

static struct st_source *observer(struct ring *r, uint64_t period)
{
	return observer_counting(r, period, NULL);
}

/* Observes for 50 ms at 20,000 cycles with counters from `open`. */
static void run_counting(corewide_open_fn open, struct seen *v,
			 struct st_source_info *info)
{
	struct ring *r = ring_create(16u << 20);
	struct st_source *s = observer_counting(r, 20000, open);

	memset(v, 0, sizeof(*v));
	memset(info, 0, sizeof(*info));
	CHECK(s != NULL);
	if (!s) {
		ring_destroy(r);
		return;
	}
	CHECK(source_start(s) == 0);
	/* On past 50 ms until 100 samples: a loaded machine's observer may barely have run. */
	sleep_ms(50);
	for (int i = 0; i < 500 && observer_samples(s) < 100; i++)
		sleep_ms(10);
	source_stop(s);
	drain(r, v, UINT64_MAX);
	source_info(s, info);
	source_destroy(s);
	ring_destroy(r);
}

/*
 * Three threads publish tags 7, 8 and 9 at depths 3, 4 and 5: what the
 * observer writes, read by the model, has exactly those tags and depths,
 * and every thread's counter grows under its own tag.
 */
static void several_threads(void)
{
	static uint64_t tags[2] = { 8, 9 };
	struct ring *r = ring_create(64u << 20);
	struct st_source *s;
	struct obs_model m;
	pthread_t t[2];
	const void *rec;
	size_t len;

	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, &tags[i]);
	sleep_ms(20);
	s = observer(r, 20000);
	CHECK(s && source_start(s) == 0);
	obs_model_init(&m, 0.01);
	for (int i = 0; i < 10; i++) {
		sleep_ms(10);
		while ((rec = ring_peek(r, &len))) {
			obs_model_ingest(&m, rec);
			ring_release(r);
		}
	}
	source_stop(s);
	while ((rec = ring_peek(r, &len))) {
		obs_model_ingest(&m, rec);
		ring_release(r);
	}
	CHECK_EQ_U64(m.ntags, 3);
	for (size_t i = 0; i < m.ntags; i++) {
		const struct obs_tag *g = &m.tags[i];

		CHECK(g->tag >= 7 && g->tag <= 9);
		CHECK_EQ_U64(g->max_depth, g->tag - 4);
		CHECK(g->delta_all[0] > 0);
		CHECK(g->samples > 10);
	}
	CHECK(m.dte.taken > 30);
	obs_model_free(&m);
	source_destroy(s);
	ring_destroy(r);
	atomic_store(&done, true);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
}

int main(void)
{
	const char *names[] = { "items" };
	struct seen v = { .min_period = UINT64_MAX };
	struct st_source_info info;
	struct st_source *s;
	struct ring *r = ring_create(64u << 20);
	pthread_t t;

	sig = shimtop_signals_open("phase", names, 1);
	CHECK(sig != NULL);
	if (!sig)
		return check_done("test_observer_loop");
	pthread_create(&t, NULL, worker, NULL);
	sleep_ms(20);

	/* 50,000 cycles, then 2,000,000 (the sleeping path), while running. */
	s = observer(r, 50000);
	CHECK(s != NULL);
	if (!s)
		return check_done("test_observer_loop");
	CHECK(source_start(s) == 0);
	sleep_ms(100);
	drain(r, &v, UINT64_MAX);
	CHECK(v.samples > 10);
	CHECK(v.min_period >= 50000);
	CHECK(v.last_meta_period == 50000);
	CHECK_EQ_U64(v.tag, 7);
	CHECK(v.counter_last > 0);
	/*
	 * The program rewrites its counter count after attach (a hostile one
	 * would, to push the observer past its arrays): the count validated
	 * at attach stays, in the meta records and in every batch.
	 */
	sig->header.ncounters = 4000;
	observer_set_period(s, 2000000);
	sleep_ms(150);
	source_stop(s);
	drain(r, &v, 2000000);
	CHECK(v.min_period >= 50000);
	CHECK(v.long_periods > 10);		/* the new period took effect */
	CHECK(v.last_meta_period == 2000000);	/* and was announced */
	CHECK_EQ_U64(v.meta_ncounters, 1);
	CHECK_EQ_U64(v.max_ncounters, 1);
	sig->header.ncounters = 1;
	/* Every sample made arrived: the last batch was flushed at stop. */
	CHECK_EQ_U64(v.samples, observer_samples(s));
	CHECK_EQ_U64(ring_dropped(r), 0);
	source_info(s, &info);
	CHECK(info.finished);
	CHECK(info.kind == ST_SOURCE_OBSERVER);
	source_destroy(s);
	ring_destroy(r);

	/* A ring nobody drains: the observer keeps sampling, drops counted. */
	r = ring_create(4096);
	s = observer(r, 0);
	CHECK(s && source_start(s) == 0);
	sleep_ms(50);
	{
		uint64_t a = observer_samples(s);

		sleep_ms(20);
		CHECK(observer_samples(s) > a);
	}
	source_stop(s);
	CHECK(ring_dropped(r) > 0);
	source_destroy(s);
	ring_destroy(r);

	/* Core-wide counters: the core's counts ahead of the thread's. */
	run_counting(open_fixture, &v, &info);
	CHECK(v.hw_samples > 10);
	CHECK_EQ_U64(v.hw_bad_steps, 0);
	CHECK_EQ_U64(v.tag, 7);			/* the thread's words follow */
	CHECK(strstr(info.note, "reads the core's cycles and instructions") != NULL);

	/* Counters that will not open: samples without them, and the note says why. */
	run_counting(refuse_fixture, &v, &info);
	CHECK(v.samples > 10);
	CHECK_EQ_U64(v.hw_samples, 0);
	CHECK_EQ_U64(v.tag, 7);
	CHECK(strstr(info.note, "observer reads no hardware counters: the fixture "
		     "says no; IPC comes from perf group sampling") != NULL);

	several_threads();
	pthread_join(t, NULL);
	shimtop_signals_close();
	return check_done("test_observer_loop");
}
