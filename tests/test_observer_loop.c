/*
 * test_observer_loop.c - the observer thread on this very process: it
 * finds the segment, reads a thread's counter and tag, never samples
 * faster than its period, takes a new period while running (the control
 * path the UI key uses), sends the period in its meta record, keeps
 * sampling when its ring is full (counting what the ring drops), and
 * stops cleanly with the last batch delivered.
 */
#include "check.h"
#include "record.h"
#include "ring.h"
#include "sampler/observer.h"

#include <shimtop/signals.h>

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static struct shimtop_signals *sig;
static atomic_bool done;

static void *worker(void *arg)
{
	struct shimtop_slot *me = shimtop_signals_thread(sig);

	(void)arg;
	shimtop_tag(me, 7, 3);
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
	uint64_t metas, counter_last, tag;
	uint64_t long_periods;		/* >= the second period */
};

static void drain(struct ring *r, struct seen *v, uint64_t second)
{
	const void *rec;
	size_t len;

	while ((rec = ring_peek(r, &len))) {
		const struct st_header *h = rec;

		if (h->type == ST_REC_OBSERVE_META) {
			v->metas++;
			v->last_meta_period = ((const struct st_observe_meta *)rec)->period;
		} else if (h->type == ST_REC_OBSERVE) {
			const struct st_observe *o = rec;
			size_t w = st_observe_words(o->nthreads, o->ncounters);

			for (size_t i = 1; i < o->nsamples; i++) {
				uint64_t d = o->data[i * w] - o->data[(i - 1) * w];

				if (d < v->min_period)
					v->min_period = d;
				if (d > v->max_period)
					v->max_period = d;
				v->long_periods += d >= second;
			}
			v->samples += o->nsamples -
				      ((o->flags & ST_OBS_CONTINUES) ? 1 : 0);
			if (o->nthreads == 1 && o->ncounters == 1) {
				v->counter_last = o->data[(o->nsamples - 1) * w + 2];
				v->tag = o->data[(o->nsamples - 1) * w + 3];
			}
		}
		ring_release(r);
	}
}

static struct st_source *observer(struct ring *r, uint64_t period)
{
	struct observer_config cfg;
	int status = 0;

	memset(&cfg, 0, sizeof(cfg));
	cfg.pid = getpid();
	cfg.place.observer_cpu = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 1 : 0;
	cfg.period = period;
	cfg.wait_seconds = 1;
	return observer_source_create(&cfg, r, &status);
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
	observer_set_period(s, 2000000);
	sleep_ms(150);
	source_stop(s);
	drain(r, &v, 2000000);
	CHECK(v.min_period >= 50000);
	CHECK(v.long_periods > 10);		/* the new period took effect */
	CHECK(v.last_meta_period == 2000000);	/* and was announced */
	/* Every sample made arrived: the last batch was flushed at stop. */
	CHECK_EQ_U64(v.samples, observer_samples(s));
	CHECK_EQ_U64(ring_dropped(r), 0);
	source_info(s, &info);
	CHECK(info.finished);
	CHECK(!strcmp(info.kind, "observer"));
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

	atomic_store(&done, true);
	pthread_join(t, NULL);
	shimtop_signals_close();
	return check_done("test_observer_loop");
}
