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
#define SIDEBAND_RING	(1u << 20)	/* maps, comms, forks and exits */
/* Samples wait for the side band this long at most, then go on without it. */
#define HOLD_MAX_NS	250000000ull

struct kmod_source {
	struct st_source base;
	struct source_thread th;
	int fd;
	uint8_t *map;
	struct shimtop_ibs_info in;
	struct kmod_ring_cursor *cursors;
	struct kmod_ring_stats stats;
	enum perf_scope scope;
	uint8_t family, model;
	_Atomic uint64_t period;
	/* The target's maps, comms, forks and exits: perf's dummy event. */
	struct st_source *sideband;
	struct ring *sideband_ring;
	uint64_t children_refused;	/* the module's table of targets was full */
	char note[256];		/* info.note before anything is said of children */
	pthread_mutex_t lock;
	struct st_source_info info;
};

bool kmod_source_available(void)
{
	/* --check's perf ibs_op row sets it: that path tested where the module is too. */
	const char *no = getenv("SHIMTOP_NO_KMOD");

	if (no && *no && strcmp(no, "0"))
		return false;
	return access(SHIMTOP_IBS_DEVICE, F_OK) == 0;
}

int kmod_source_follow(const void *rec, enum perf_scope scope, unsigned long *cmd,
		       struct shimtop_ibs_target *t)
{
	const struct st_header *h = rec;
	const struct st_task *task = rec;

	if (scope != PERF_SCOPE_PROCESSES || (h->type != ST_REC_FORK && h->type != ST_REC_EXIT) ||
	    h->size < sizeof(*task) || task->pid != task->tid || !task->pid)
		return 0;
	/* A new process forks (a thread is its process's already); a process exits. */
	if (h->type == ST_REC_FORK && task->pid == task->ppid)
		return 0;
	*cmd = h->type == ST_REC_FORK ? SHIMTOP_IBS_IOC_ADD : SHIMTOP_IBS_IOC_REMOVE;
	*t = (struct shimtop_ibs_target){ task->pid, SHIMTOP_IBS_PROCESS };
	return 1;
}

static void push(const void *rec, void *arg)
{
	struct kmod_source *ks = arg;
	const struct st_header *h = rec;

	ring_push(ks->base.ring, rec, h->size);	/* a full ring counts its drop */
}

/* The module's records stamped up to `until`, every ring. */
static void drain_module(struct kmod_source *ks, uint64_t until)
{
	uint64_t period = atomic_load(&ks->period);

	for (uint32_t r = 0; r < ks->in.rings; r++)
		kmod_ring_drain(ks->map, &ks->in, r, &ks->cursors[r], ks->family, ks->model,
				period, until, push, ks, &ks->stats);
}

/*
 * The side band into our ring merged by time with the module's samples:
 * each side-band record after the samples stamped before it, so that a
 * library's map comes before the samples in it and a process's exit
 * after its samples.  A child the target forks is registered with the
 * module (its samples between its fork and this are not taken), an
 * exited one removed.
 */
static void forward_sideband(struct kmod_source *ks)
{
	const void *rec;
	size_t len;

	while ((rec = ring_peek(ks->sideband_ring, &len))) {
		uint64_t t = st_record_time(rec);	/* 0: none (LOST) */
		struct shimtop_ibs_target tg;
		unsigned long cmd;

		if (t)
			drain_module(ks, t);
		if (kmod_source_follow(rec, ks->scope, &cmd, &tg)) {
			bool added = ioctl(ks->fd, cmd, &tg) == 0 || errno == EEXIST;

			if (cmd == SHIMTOP_IBS_IOC_ADD &&
			    (!added || ioctl(ks->fd, SHIMTOP_IBS_IOC_START, &tg) < 0))
				ks->children_refused++;
		}
		push(rec, ks);
		ring_release(ks->sideband_ring);
	}
}

/*
 * Every ring once; the figures the header shows.  Samples wait in the
 * module's rings until the side band has said everything up to their
 * time (its complete_ns, read before its records), at most HOLD_MAX_NS;
 * the last drain takes all.
 */
static void drain(struct kmod_source *ks, bool last)
{
	struct st_source_info sb;
	uint64_t until, now = st_now_ns();

	source_info(ks->sideband, &sb);
	until = last || sb.failed ? UINT64_MAX : sb.complete_ns;
	if (until < now && now - until > HOLD_MAX_NS)
		until = now - HOLD_MAX_NS;
	forward_sideband(ks);
	drain_module(ks, until);
	pthread_mutex_lock(&ks->lock);
	ks->info.kernel_lost = ks->stats.lost + ks->stats.seq_gaps + sb.kernel_lost +
			       ring_dropped(ks->sideband_ring);
	ks->info.produced = ks->stats.records;
	ks->info.finished = sb.finished;
	ks->info.failed = sb.failed;
	memcpy(ks->info.finish_reason, sb.finish_reason, sizeof(sb.finish_reason));
	if (ks->children_refused)
		snprintf(ks->info.note, sizeof(ks->info.note), "%s; %llu child processes not "
			 "sampled: the module takes %d targets", ks->note,
			 (unsigned long long)ks->children_refused, SHIMTOP_IBS_MAX_TIDS);
	pthread_mutex_unlock(&ks->lock);
}

static void *kmod_main(void *arg)
{
	struct kmod_source *ks = arg;
	struct timespec pause = { 0, DRAIN_EVERY_NS };
	uint32_t off = 0;

	while (!source_thread_stopping(&ks->th)) {
		drain(ks, false);
		nanosleep(&pause, NULL);
	}
	/* Off first: the module flushes its aggregation table into the rings. */
	ioctl(ks->fd, SHIMTOP_IBS_IOC_ENABLE, &off);
	source_stop(ks->sideband);
	drain(ks, true);
	return NULL;
}

static int kmod_start(struct st_source *s)
{
	struct kmod_source *ks = (struct kmod_source *)s;
	uint32_t on = 1;
	int err = source_start(ks->sideband);

	if (err < 0)
		return err;
	if (ioctl(ks->fd, SHIMTOP_IBS_IOC_ENABLE, &on) < 0) {
		err = errno;
		st_error("the IBS module cannot start sampling: %s%s", strerror(err),
			 err == EBUSY || err == ENODEV ? " (another IBS user, e.g. perf mem?)" : "");
		source_stop(ks->sideband);
		return -err;
	}
	err = source_thread_start(&ks->th, kmod_main, ks, "IBS module");
	if (err < 0) {
		ioctl(ks->fd, SHIMTOP_IBS_IOC_ENABLE, &(uint32_t){ 0 });
		source_stop(ks->sideband);
	}
	return err;
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

/* Everything but the thread, which is not running. */
static void release(struct kmod_source *ks)
{
	source_destroy(ks->sideband);
	ring_destroy(ks->sideband_ring);
	if (ks->map)
		munmap(ks->map, ks->in.map_size);
	if (ks->fd >= 0)
		close(ks->fd);	/* the last close stops the module's counters too */
	pthread_mutex_destroy(&ks->lock);
	free(ks->cursors);
	free(ks);
}

static void kmod_destroy(struct st_source *s)
{
	kmod_stop(s);
	release((struct kmod_source *)s);
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
	uint32_t aggregate = cfg->ibs_aggregate;
	struct shimtop_ibs_config attrs = { cfg->events[0].attr.config,
					    cfg->events[0].attr.config1 };
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
			 "reload it without (rmmod shimtop_ibs; src/kmod/load.sh)");
		return -ENODEV;
	}
	if (cfg->scope == PERF_SCOPE_SYSTEM || !cfg->npids) {
		st_error("the IBS module samples given processes or threads: add -p or -t, "
			 "or a command");
		return -EINVAL;
	}
	if (cfg->freq) {
		st_error("the IBS module samples every N ops, not at a rate: give -c N instead "
			 "of -F");
		return -EINVAL;
	}
	/* cnt_ctl, l3missonly, ldlat: the bits ibs_source_configure set from sysfs. */
	if (ioctl(ks->fd, SHIMTOP_IBS_IOC_CONFIG, &attrs) < 0) {
		st_error("the IBS module refuses the attributes %#llx, %#llx: %s",
			 (unsigned long long)attrs.config, (unsigned long long)attrs.config1,
			 strerror(errno));
		return -EINVAL;
	}
	if (ioctl(ks->fd, SHIMTOP_IBS_IOC_CLEAR) < 0 ||
	    ioctl(ks->fd, SHIMTOP_IBS_IOC_PERIOD, &period) < 0) {
		st_error("the IBS module refuses a period of %llu ops: %s",
			 (unsigned long long)period, strerror(errno));
		return -EINVAL;
	}
	if (ioctl(ks->fd, SHIMTOP_IBS_IOC_AGGREGATE, &aggregate) < 0) {
		st_error("the IBS module refuses %s aggregation: %s",
			 aggregate ? "to turn on" : "to turn off", strerror(errno));
		return -EINVAL;
	}
	return add_targets(ks, cfg);
}

/* The side band, in a ring of its own that our thread reads. */
static int open_sideband(struct kmod_source *ks, const struct perf_source_config *cfg)
{
	int status = -ENOMEM;

	ks->sideband_ring = ring_create(SIDEBAND_RING);
	if (ks->sideband_ring)
		ks->sideband = perf_sideband_create(cfg, ks->sideband_ring, &status);
	return ks->sideband ? 0 : status;
}

/* The device is one profiler's at a time: say whose it is. */
static void report_open_error(int err)
{
	char who[256];

	if (err == EBUSY) {
		if (ibs_fd_holders("/proc", getpid(), SHIMTOP_IBS_DEVICE, who, sizeof(who)))
			st_error("%s is busy: another profiler holds it (%s); stop it and retry",
				 SHIMTOP_IBS_DEVICE, who);
		else
			st_error("%s is busy: another profiler holds it; stop it and retry",
				 SHIMTOP_IBS_DEVICE);
		return;
	}
	st_error("cannot open %s: %s%s", SHIMTOP_IBS_DEVICE, strerror(err),
		 err == EACCES || err == EPERM ? " (it needs root or CAP_PERFMON)" : "");
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
		report_open_error(err);
		release(ks);
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
	if (!err)
		err = open_sideband(ks, cfg);
	if (err) {
		release(ks);
		*status = err;
		return NULL;
	}
	ks->cursors = st_xcalloc(ks->in.rings, sizeof(*ks->cursors));
	ks->scope = cfg->scope;
	ks->family = cfg->family;
	ks->model = cfg->model;
	atomic_store(&ks->period, cfg->period);
	ks->info.kind = ST_SOURCE_IBS;
	ks->info.ipc_cycles = ks->info.ipc_instructions = -1;
	snprintf(ks->info.events, sizeof(ks->info.events), "ibs_op (shimtop module)");
	ks->info.period = (struct st_period){ cfg->period, ST_PERIOD_EVENTS, true };
	snprintf(ks->note, sizeof(ks->note),
		 "IBS ops through shimtop's module: %u rings of %u records%s", ks->in.rings,
		 ks->in.nrec, cfg->ibs_aggregate ? "; counted per thread and RIP in the kernel "
		 "(DCPI): SAMPLES counts its records, SELF% the ops; no per-op figures" : "");
	snprintf(ks->info.note, sizeof(ks->info.note), "%s", ks->note);
	*status = 0;
	return &ks->base;
}
