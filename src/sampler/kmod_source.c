/* kmod_source.c - --ibs through shimtop's IBS module (kmod_source.h). */
#include "sampler/kmod_source.h"
#include "sampler/ibs_source.h"
#include "sampler/kmod_ring.h"
#include "ring/ring.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define DRAIN_EVERY_NS	10000000L	/* 10 ms: 64K records a ring outlast it */

struct kmod_source {
	struct st_source base;
	struct source_thread th;
	int fd;
	uint8_t *map;
	struct shimtop_ibs_info in;
	struct kmod_ring_cursor *cursors;
	struct kmod_ring_stats stats;
	uint8_t family, model;
	_Atomic uint64_t period;
	pthread_mutex_t lock;
	struct st_source_info info;
};

bool kmod_source_available(void)
{
	return access(SHIMTOP_IBS_DEVICE, F_OK) == 0;
}

static void push(const void *rec, void *arg)
{
	struct kmod_source *ks = arg;
	const struct st_header *h = rec;

	ring_push(ks->base.ring, rec, h->size);	/* a full ring counts its drop */
}

/* Every ring once; the figures the header shows. */
static void drain(struct kmod_source *ks)
{
	uint64_t period = atomic_load(&ks->period);

	for (uint32_t r = 0; r < ks->in.rings; r++)
		kmod_ring_drain(ks->map, &ks->in, r, &ks->cursors[r], ks->family, ks->model,
				period, push, ks, &ks->stats);
	pthread_mutex_lock(&ks->lock);
	ks->info.kernel_lost = ks->stats.lost + ks->stats.seq_gaps;
	ks->info.produced = ks->stats.records;
	pthread_mutex_unlock(&ks->lock);
}

static void *kmod_main(void *arg)
{
	struct kmod_source *ks = arg;
	struct timespec pause = { 0, DRAIN_EVERY_NS };
	uint32_t off = 0;

	while (!source_thread_stopping(&ks->th)) {
		drain(ks);
		nanosleep(&pause, NULL);
	}
	/* Off first: the module flushes its aggregation table into the rings. */
	ioctl(ks->fd, SHIMTOP_IBS_IOC_ENABLE, &off);
	drain(ks);
	return NULL;
}

static int kmod_start(struct st_source *s)
{
	struct kmod_source *ks = (struct kmod_source *)s;
	uint32_t on = 1;

	if (ioctl(ks->fd, SHIMTOP_IBS_IOC_ENABLE, &on) < 0) {
		int err = errno;

		st_error("the IBS module cannot start sampling: %s%s", strerror(err),
			 err == EBUSY || err == ENODEV ? " (another IBS user, e.g. perf mem?)" : "");
		return -err;
	}
	return source_thread_start(&ks->th, kmod_main, ks, "IBS module");
}

static void kmod_stop(struct st_source *s)
{
	struct kmod_source *ks = (struct kmod_source *)s;

	source_thread_stop(&ks->th, -1);
}

static void kmod_info(struct st_source *s, struct st_source_info *out)
{
	struct kmod_source *ks = (struct kmod_source *)s;

	pthread_mutex_lock(&ks->lock);
	*out = ks->info;
	pthread_mutex_unlock(&ks->lock);
}

static int kmod_set_period(struct st_source *s, uint64_t value, int randomize,
			   char *why, size_t len)
{
	struct kmod_source *ks = (struct kmod_source *)s;
	bool clamped;
	uint64_t got = ibs_period_clamp(value, &clamped);

	(void)randomize;	/* the module always varies it (DCPI) */
	if (ioctl(ks->fd, SHIMTOP_IBS_IOC_PERIOD, &got) < 0) {
		snprintf(why, len, "the IBS module refuses a period of %llu ops: %s",
			 (unsigned long long)got, strerror(errno));
		return -ERANGE;
	}
	if (clamped)
		snprintf(why, len, "IBS takes %llu, not %llu (at least 144, in steps of 16)",
			 (unsigned long long)got, (unsigned long long)value);
	atomic_store(&ks->period, got);
	pthread_mutex_lock(&ks->lock);
	ks->info.period.value = got;
	pthread_mutex_unlock(&ks->lock);
	return 0;
}

static void kmod_destroy(struct st_source *s)
{
	struct kmod_source *ks = (struct kmod_source *)s;

	kmod_stop(s);
	if (ks->map)
		munmap(ks->map, ks->in.map_size);
	close(ks->fd);	/* the last close stops the module's counters too */
	pthread_mutex_destroy(&ks->lock);
	free(ks->cursors);
	free(ks);
}

static const struct st_source_ops kmod_ops = {
	.start = kmod_start,
	.stop = kmod_stop,
	.info = kmod_info,
	.destroy = kmod_destroy,
	.set_period = kmod_set_period,
};

/* The targets, each registered and started: a process or one thread (-t). */
static int add_targets(struct kmod_source *ks, const struct perf_source_config *cfg)
{
	for (size_t i = 0; i < cfg->npids; i++) {
		struct shimtop_ibs_target t = {
			(uint32_t)cfg->pids[i],
			cfg->scope == PERF_SCOPE_THREADS ? 0 : SHIMTOP_IBS_PROCESS,
		};

		if ((ioctl(ks->fd, SHIMTOP_IBS_IOC_ADD, &t) < 0 && errno != EEXIST) ||
		    ioctl(ks->fd, SHIMTOP_IBS_IOC_START, &t) < 0) {
			st_error("the IBS module refuses target %d: %s", cfg->pids[i],
				 strerror(errno));
			return -errno;
		}
	}
	return 0;
}

static int configure(struct kmod_source *ks, const struct perf_source_config *cfg)
{
	uint64_t period = cfg->period;
	char err[256];

	if (ioctl(ks->fd, SHIMTOP_IBS_IOC_INFO, &ks->in) < 0) {
		st_error("%s does not answer shimtop's IBS module's ioctls: %s",
			 SHIMTOP_IBS_DEVICE, strerror(errno));
		return -EIO;
	}
	if (kmod_info_check(&ks->in, err, sizeof(err)) < 0) {
		st_error("%s", err);
		return -EINVAL;
	}
	if (ks->in.selftest) {
		st_error("the IBS module was loaded with selftest=1, which does not sample: "
			 "reload it without (rmmod shimtop_ibs; insmod shimtop_ibs.ko ibs_type=...)");
		return -ENODEV;
	}
	if (cfg->scope == PERF_SCOPE_SYSTEM || !cfg->npids) {
		st_error("the IBS module samples given processes or threads: add -p or -t, "
			 "or a command");
		return -EINVAL;
	}
	if (ioctl(ks->fd, SHIMTOP_IBS_IOC_CLEAR) < 0 ||
	    ioctl(ks->fd, SHIMTOP_IBS_IOC_PERIOD, &period) < 0) {
		st_error("the IBS module refuses a period of %llu ops: %s",
			 (unsigned long long)period, strerror(errno));
		return -EINVAL;
	}
	return add_targets(ks, cfg);
}

struct st_source *kmod_source_create(const struct perf_source_config *cfg,
				     struct ring *ring, int *status)
{
	struct kmod_source *ks = st_xcalloc(1, sizeof(*ks));
	int err;

	ks->base.ops = &kmod_ops;
	ks->base.ring = ring;
	pthread_mutex_init(&ks->lock, NULL);
	ks->fd = open(SHIMTOP_IBS_DEVICE, O_RDWR | O_CLOEXEC);
	if (ks->fd < 0) {
		err = errno;
		st_error("cannot open %s: %s%s", SHIMTOP_IBS_DEVICE, strerror(err),
			 err == EACCES || err == EPERM ? " (it needs root or CAP_PERFMON)" : "");
		free(ks);
		*status = -err;
		return NULL;
	}
	err = configure(ks, cfg);
	if (!err) {
		ks->map = mmap(NULL, ks->in.map_size, PROT_READ | PROT_WRITE, MAP_SHARED, ks->fd, 0);
		if (ks->map == MAP_FAILED) {
			err = -errno;
			ks->map = NULL;
			st_error("cannot map the IBS module's rings: %s", strerror(-err));
		}
	}
	if (err) {
		close(ks->fd);
		free(ks);
		*status = err;
		return NULL;
	}
	ks->cursors = st_xcalloc(ks->in.rings, sizeof(*ks->cursors));
	ks->family = cfg->family;
	ks->model = cfg->model;
	atomic_store(&ks->period, cfg->period);
	ks->info.kind = ST_SOURCE_IBS;
	ks->info.ipc_cycles = ks->info.ipc_instructions = -1;
	snprintf(ks->info.events, sizeof(ks->info.events), "ibs_op (shimtop module)");
	ks->info.period = (struct st_period){ cfg->period, ST_PERIOD_EVENTS, true };
	snprintf(ks->info.note, sizeof(ks->info.note),
		 "IBS ops through shimtop's module: %u rings of %u records", ks->in.rings,
		 ks->in.nrec);
	*status = 0;
	return &ks->base;
}
