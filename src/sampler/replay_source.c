/* replay_source.c - reading a record file into a ring. */
#include "sampler/replay_source.h"
#include "sampler/perf_data.h"
#include "ring/record.h"
#include "ring/ring.h"
#include "util.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct replay_source {
	struct st_source base;
	struct record_reader *reader;
	struct perf_data *perf;		/* or a perf.data's records */
	bool realtime;
	atomic_bool front_reading;	/* replay_front_reading: the clock may start */
	struct source_thread th;
	pthread_mutex_t lock;
	struct st_source_info info;
};

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };

	nanosleep(&ts, NULL);
}

static void *replay_main(void *arg)
{
	struct replay_source *rs = arg;
	uint64_t first_rec = 0, first_wall = 0;
	char reason[320] = "end of recording";
	const void *rec;
	long n = 0;

	while (!source_thread_stopping(&rs->th) &&
	       (n = rs->perf ? perf_data_next(rs->perf, &rec)
		    : record_reader_next(rs->reader, &rec)) > 0) {
		const struct st_header *h = rec;

		if (rs->realtime && h->type == ST_REC_SAMPLE) {
			uint64_t t = ((const struct st_sample *)rec)->time;

			if (!first_rec) {
				while (!source_thread_stopping(&rs->th) &&
				       !atomic_load(&rs->front_reading))
					sleep_ns(1000000);
				first_rec = t;
				first_wall = st_now_ns();
			}
			while (!source_thread_stopping(&rs->th) && t > first_rec &&
			       t - first_rec > st_now_ns() - first_wall)
				sleep_ns(1000000);
		}
		/* A file can wait for the model: nothing is dropped, nor counted so. */
		while (n <= (long)ring_max_record(rs->base.ring) &&
		       !ring_fits(rs->base.ring, (size_t)n) && !source_thread_stopping(&rs->th))
			sleep_ns(200000);
		ring_push(rs->base.ring, rec, (size_t)n);
	}
	if (n < 0)
		snprintf(reason, sizeof(reason), "%s", rs->perf ? perf_data_error(rs->perf)
			 : record_reader_error(rs->reader));
	else if (n == 0 && rs->perf && perf_data_ending(rs->perf)[0])
		snprintf(reason, sizeof(reason), "end of recording (%s)", perf_data_ending(rs->perf));
	pthread_mutex_lock(&rs->lock);
	rs->info.records_skipped = rs->perf ? perf_data_skipped(rs->perf) : 0;
	rs->info.samples_left_out = rs->perf ? perf_data_left_out(rs->perf) : 0;
	rs->info.offcpu_unpaired = rs->perf ? perf_data_waits_unpaired(rs->perf) : 0;
	/* Stopped before its end, the recording is not finished: the session says so. */
	rs->info.finished = n <= 0;
	rs->info.failed = n < 0;
	snprintf(rs->info.finish_reason, sizeof(rs->info.finish_reason), "%s", reason);
	pthread_mutex_unlock(&rs->lock);
	return NULL;
}

static int replay_start(struct st_source *s)
{
	struct replay_source *rs = (struct replay_source *)s;

	return source_thread_start(&rs->th, replay_main, rs, "replay");
}

static void replay_front_reading(struct st_source *s)
{
	atomic_store(&((struct replay_source *)s)->front_reading, true);
}

static void replay_stop(struct st_source *s)
{
	struct replay_source *rs = (struct replay_source *)s;

	source_thread_stop(&rs->th, -1);
}

static void replay_info(struct st_source *s, struct st_source_info *out)
{
	struct replay_source *rs = (struct replay_source *)s;

	pthread_mutex_lock(&rs->lock);
	*out = rs->info;
	pthread_mutex_unlock(&rs->lock);
}

static void replay_destroy(struct st_source *s)
{
	struct replay_source *rs = (struct replay_source *)s;

	replay_stop(s);
	record_reader_close(rs->reader);
	perf_data_close(rs->perf);
	pthread_mutex_destroy(&rs->lock);
	free(rs);
}

static const struct st_source_ops replay_ops = {
	.start = replay_start,
	.stop = replay_stop,
	.info = replay_info,
	.destroy = replay_destroy,
	.front_reading = replay_front_reading,
};

struct st_source *replay_source_create(const char *path, bool realtime,
				       struct ring *ring,
				       struct st_file_header *h)
{
	return replay_source_from(record_reader_open(path, h), realtime, ring, h);
}

static struct st_source *replay_new(struct record_reader *reader, struct perf_data *perf,
				   bool realtime, struct ring *ring,
				   const struct st_file_header *h)
{
	struct replay_source *rs;

	if (!reader && !perf)
		return NULL;
	rs = st_xcalloc(1, sizeof(*rs));
	rs->base.ops = &replay_ops;
	rs->base.ring = ring;
	rs->reader = reader;
	rs->perf = perf;
	rs->realtime = realtime;
	pthread_mutex_init(&rs->lock, NULL);
	rs->info.kind = ST_SOURCE_REPLAY;
	snprintf(rs->info.events, sizeof(rs->info.events), "%s", h->events);
	rs->info.period = (struct st_period){ h->period_value,
		(enum st_period_unit)h->period_unit, h->period_randomized != 0 };
	/* A perf.data's origin whole: the header's note has room for 191 bytes. */
	snprintf(rs->info.note, sizeof(rs->info.note), "%s", perf ? perf_data_origin(perf) : h->note);
	memcpy(rs->info.counters, h->counters, sizeof(rs->info.counters));
	rs->info.ncounters = h->ncounters;
	memcpy(rs->info.sampled, h->sampled, sizeof(rs->info.sampled));
	rs->info.nsampled = h->nsampled;
	rs->info.switches_counted = perf && perf_data_switches_counted(perf);
	rs->info.ipc_cycles = h->ipc_cycles;
	rs->info.ipc_instructions = h->ipc_instructions;
	return &rs->base;
}

struct st_source *replay_source_from(struct record_reader *reader, bool realtime,
				     struct ring *ring, const struct st_file_header *h)
{
	return replay_new(reader, NULL, realtime, ring, h);
}

struct st_source *replay_source_perf_data(struct perf_data *perf, bool realtime,
					  struct ring *ring, const struct st_file_header *h)
{
	return replay_new(NULL, perf, realtime, ring, h);
}
