/*
 * perf_source.c - the perf_event_open sampler.
 *
 * As perf record does: each thread of the target gets an event group on
 * every online CPU, and all groups on one CPU write into that CPU's mmap
 * ring (PERF_EVENT_IOC_SET_OUTPUT); the kernel refuses to mmap inherited
 * per-task events, but per-CPU ones work.  With `inherit`, threads and
 * processes the target creates later are sampled automatically; where the
 * kernel refuses inherit (groups with PERF_SAMPLE_READ on older kernels)
 * new threads are opened as their FORK records arrive.  A rescan of
 * /proc/PID/task closes the race at attach time.  The sampler thread only
 * drains, converts and pushes: it never waits for the model.
 */
#include "sampler/perf_source.h"
#include "sampler/offcpu_before.h"
#include "sampler/ibs_source.h"
#include "sampler/reorder.h"
#include "sampler/stack_base.h"
#include "sampler/kernel_walk.h"
#include "symbols/stack_needs.h"
#include "cpulist.h"
#include "sampler/perf_parse.h"
#include "ring/record.h"
#include "ring/ring.h"
#include "ring/sample_push.h"
#include "sampler/target.h"
#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <uthash.h>

#define DEFAULT_HW_PERIOD	1000000u	/* cycles: ~2.5 kHz at 2.5 GHz */
#define DEFAULT_SW_PERIOD	250000u		/* ns of cpu-clock: 4 kHz */
#define DEFAULT_FREQ		4000u		/* Hz: perf's default, for -e a,b */
#define RING_PAGES		32u
#define STACK_RING_PAGES	128u
#define CHECK_NS	100000000ull	/* targets alive, periods redrawn: 0.1 s */
#define RESCAN_NS		500000000u
/* A wait going on this long shows up to now, not only when it ends. */
#define OFFCPU_SPLIT_NS		1000000000ull

/* One CPU's ring, owned by the first leader opened on that CPU. */
struct perf_ring {
	int cpu;
	int fd;
	void *base;
	size_t map_size;
};

/*
 * The event fds of one thread: nevents per CPU, leaders first in each
 * group (with -e a,b every event leads itself).
 */
struct perf_thread {
	pid_t tid;
	int *fd;
	size_t nfd;
};

/*
 * A thread whose events exist (opened by us, or inherited: it forked or
 * has samples), with its previous group values for per-interval counter
 * deltas.  Gone when it exits, so the table holds live threads only.
 */
struct tid_state {
	UT_hash_handle hh;
	pid_t tid;
	bool copied;		/* sampled through copies the kernel made at its birth */
	struct perf_group_state gs;
};

/* A sampling event's kernel id (PERF_EVENT_IOC_ID): which of -e a,b it is. */
struct event_id {
	UT_hash_handle hh;
	uint64_t id;
	uint8_t event;
};

struct perf_source {
	struct st_source base;
	struct perf_source_config cfg;
	struct perf_layout layout;
	bool inherit;
	bool exclude_kernel;
	size_t pages;
	uint64_t rng;

	struct perf_ring *rings;
	size_t nrings;
	/* With the kernel's walker: each CPU's bpf-output event, its walked chains. */
	struct perf_ring *walked;
	bool walk_on;			/* the walker is attached to the events */
	bool switches_sw;		/* --off-cpu samples context-switches, walked there */
	bool switches_refused;		/* and the kernel refused the walker on them */
	bool switches_decided;		/* switches_sw, until the events are made again */
	bool watching;			/* the kernel sends the sampled processes' wakeups */
	bool walk_refused;		/* and why not (info.walk_note), once */
	size_t randomize_next;	/* round-robin over leaders */
	size_t failed_event;	/* the event the kernel last refused */
	uint64_t copied;	/* known threads with tid_state.copied */

	struct perf_thread *threads;
	size_t nthreads, cap;
	struct tid_state *known;	/* by tid (uthash) */
	struct event_id *ids;		/* with cfg.separate: by id (uthash) */

	struct source_thread th;
	int wake[2];
	uint64_t last_rescan;
	uint64_t last_alive;	/* when targets_gone last said no */
	uint64_t last_vary;	/* when vary_periods last ran */

	pthread_mutex_t lock;	/* guards info */
	struct st_source_info info;

	unsigned char scratch[ST_RECORD_MAX];
	struct reorder order;		/* records of all rings, back in time order */
	struct stack_bases stacks;	/* with a stack copy: each thread's base */
	uint64_t prev_pass;		/* when the previous drain pass began */
	struct offcpu_pairs pairs;	/* --off-cpu: switch-outs waiting for their thread */

	/* A new period asked for by another thread, applied by the sampler's. */
	bool by_freq;			/* -F: the value is a frequency (never changes) */
	atomic_bool change;
	atomic_bool unwind_change;	/* the UI's U: --call-graph auto from now on */
	atomic_bool offcpu_change;	/* the UI's W: --off-cpu from now on */
	atomic_bool offcpu_asked;	/* by --off-cpu or W: once */
	struct offcpu_tracepoint want_tp;	/* its tracepoint, found when asked */
	_Atomic unsigned want_stack;	/* its stack copy's bytes */
	_Atomic uint64_t want_value;
	atomic_int want_random;		/* -1: keep */
	_Atomic uint64_t period_seen;	/* of the latest sample (source.h) */
	_Atomic uint64_t stack_copied, stack_kept;	/* bytes of stack copies, in and passed on */
	uint64_t size_set_ns, copied_at_size;	/* when the copy's size was set, copied by then */
	bool copy_held;			/* a larger copy would move too much: no more asked */
};

static bool is_clock(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_CPU_CLOCK ||
		a->config == PERF_COUNT_SW_TASK_CLOCK);
}

/* The online CPUs, or -C's list checked against them. */
static int choose_cpus(const char *list, cpu_set_t *cpus)
{
	cpu_set_t online, asked;

	if (cpulist_read("", "/sys/devices/system/cpu/online", &online) <= 0) {
		CPU_ZERO(&online);	/* no sysfs: assume one CPU numbered 0 */
		CPU_SET(0, &online);
	}
	*cpus = online;
	if (!list)
		return 0;
	if (cpulist_parse(list, &asked) <= 0) {
		st_error("-C '%s' is not a CPU list (e.g. 0-3,8); see shimtop --help", list);
		return -EINVAL;
	}
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &asked) && !CPU_ISSET(c, &online)) {
			char *on = st_read_file("/sys/devices/system/cpu/online", NULL);

			if (on)
				on[strcspn(on, "\n")] = '\0';
			st_error("-C: CPU %d is not online (online: %s); pick from those",
				 c, on ? on : "0");
			free(on);
			return -EINVAL;
		}
	*cpus = asked;
	return 0;
}

/*
 * --ibs: this machine's IBS PMU, or one line saying why there is none.
 * The samples are the hardware's own: nothing here stands in for them.
 */
/* On an AMD CPU without IBS the header says so, as it says the PMU is missing. */
static void note_ibs_missing(struct perf_source_config *cfg)
{
	struct ibs_probe p;
	char brief[64];
	size_t l = strlen(cfg->note);

	ibs_probe_cpu(&p);
	ibs_probe_sysfs(&p, IBS_SYSFS_ROOT);
	if (ibs_probe_brief(&p, brief, sizeof(brief)))
		snprintf(cfg->note + l, sizeof(cfg->note) - l, "%s%s", l ? "; " : "", brief);
}

static int configure_ibs(const struct perf_source_request *o, struct perf_source_config *cfg)
{
	struct ibs_request rq = {
		.kind = o->ibs == PERF_IBS_FETCH ? IBS_FETCH : IBS_OP,
		.period = o->period, .freq = o->freq, .l3miss = o->ibs_l3miss,
		.ldlat = o->ibs_ldlat, .randomize = o->randomize,
	};
	struct ibs_probe p;
	struct utsname u;
	char why[320];
	int rc;

	cfg->ibs_aggregate = o->ibs_aggregate;
	if (o->events) {
		st_error("--ibs samples IBS alone: drop -e");
		return -EINVAL;
	}
	/*
	 * The kernel's frame-pointer chains are not taken with IBS: its
	 * samples feed the tree through a stack copy (--call-graph dwarf or
	 * callerchain), or give their function alone.
	 */
	cfg->callchain = false;
	ibs_probe_cpu(&p);
	ibs_probe_sysfs(&p, IBS_SYSFS_ROOT);
	if (ibs_probe_explain(&p, rq.kind, why, sizeof(why)) < 0) {
		st_error("%s", why);
		return -ENODEV;
	}
	if (uname(&u) < 0)
		snprintf(u.release, sizeof(u.release), "unknown");
	rc = ibs_source_configure(&p, &rq, u.release, cfg, why, sizeof(why));
	if (rc < 0)
		st_error("%s", why);
	return rc;
}

/*
 * --off-cpu: sched_switch sampled at every switch, each on its own beside
 * the on-CPU event (a group's leader alone: a tracepoint joins no PMU's
 * group), named as perf record --off-cpu names its event.
 */
/* The off-CPU event after cfg's; tp found.  0, or -EINVAL after why (a group, no room). */
static int offcpu_room(const struct perf_source_config *cfg, char *why, size_t len)
{
	if (!cfg->separate && cfg->nevents > 1) {
		snprintf(why, len, "off-CPU samples go beside one event, or several each on its own "
			 "(-e a,b), not a group of counters: drop the braces or --off-cpu");
		return -EINVAL;
	}
	if (cfg->nevents == ST_MAX_SAMPLED) {
		snprintf(why, len, "off-CPU samples are one more sampled event, and -e gave the %d "
			 "there can be: give fewer", ST_MAX_SAMPLED);
		return -EINVAL;
	}
	return 0;
}

static int append_offcpu(struct perf_source_config *cfg, const struct offcpu_tracepoint *tp,
			 char *why, size_t len)
{
	struct st_event *e;
	int err = offcpu_room(cfg, why, len);

	if (err < 0)
		return err;
	cfg->offcpu_tp = *tp;
	e = &cfg->events[cfg->nevents++];
	memset(e, 0, sizeof(*e));
	snprintf(e->name, sizeof(e->name), "%s", OFFCPU_EVENT);
	e->attr.type = PERF_TYPE_TRACEPOINT;
	e->attr.config = cfg->offcpu_tp.id;
	cfg->separate = true;
	cfg->offcpu = true;
	return 0;
}

static int add_offcpu(const struct perf_source_request *o, struct perf_source_config *cfg)
{
	struct offcpu_tracepoint tp;
	char why[320];
	int err = offcpu_tracepoint_find(NULL, &tp, why, sizeof(why));

	/* The machine's lack, not the command line's fault: not -EINVAL. */
	if (err < 0) {
		st_error("%s", why);
		return err == -EINVAL ? -ENOTSUP : err;
	}
	if (!cfg->separate && cfg->nevents > 1 && !o->events)
		cfg->nevents = 1;	/* the default group's cycles */
	err = append_offcpu(cfg, &tp, why, sizeof(why));
	if (err < 0)
		st_error("--off-cpu: %s", why);
	return err;
}

/* What events sampled each on its own write: their id first; sched_switch's prev_state. */
static void separate_layout(struct perf_source *ps)
{
	ps->layout.sample_type |= PERF_SAMPLE_IDENTIFIER;
	if (ps->cfg.offcpu) {
		ps->layout.sample_type |= PERF_SAMPLE_RAW;
		ps->layout.switch_state_at = ps->cfg.offcpu_tp.state_at;
		ps->layout.switch_state_size = ps->cfg.offcpu_tp.state_size;
	}
}

/* Event i is the off-CPU one: every switch sampled, whatever the period asked. */
static bool is_offcpu(const struct perf_source_config *cfg, size_t i)
{
	return cfg->offcpu && i == cfg->nevents - 1;
}

int perf_source_configure(const struct perf_source_request *o, bool launched,
			  struct perf_source_config *cfg)
{
	bool pmu = events_have_hardware_pmu();

	memset(cfg, 0, sizeof(*cfg));
	cfg->launched = launched;
	if (choose_cpus(o->cpus, &cfg->cpus) < 0)
		return -EINVAL;
	cfg->freq = o->freq;
	cfg->period = o->period;
	cfg->randomize = o->randomize && !o->freq;
	cfg->callchain = o->callchain;
	cfg->stack_copy = o->stack_copy;
	cfg->stack_needs = o->stack_needs;
	cfg->kernel_walk = o->kernel_walk;
	if (o->ibs != PERF_IBS_NONE)
		return configure_ibs(o, cfg);
	if (o->events) {
		bool hw = false, grouped;

		if (events_parse_spec(o->events, cfg->events, &cfg->nevents,
				      &grouped) < 0)
			return -EINVAL;
		cfg->separate = !grouped && cfg->nevents > 1;
		for (size_t i = 0; i < cfg->nevents; i++)
			hw |= event_is_hardware(&cfg->events[i].attr);
		if (hw && !pmu) {
			st_warn("-e %s needs a hardware PMU, which this machine lacks "
				"(a VM?); sampling cpu-clock instead", o->events);
			snprintf(cfg->note, sizeof(cfg->note),
				 "no hardware PMU: %s unavailable, sampling cpu-clock",
				 o->events);
			events_parse("cpu-clock", cfg->events, &cfg->nevents);
			cfg->separate = false;
		}
	} else if (pmu) {
		events_parse("cycles,instructions", cfg->events, &cfg->nevents);
	} else {
		events_parse("cpu-clock", cfg->events, &cfg->nevents);
		snprintf(cfg->note, sizeof(cfg->note),
			 "no hardware PMU: IPC unavailable, sampling cpu-clock");
	}
	note_ibs_missing(cfg);
	if (o->off_cpu) {
		int err = add_offcpu(o, cfg);

		if (err < 0)
			return err;
	}
	/* One period cannot suit events of different kinds; a rate can. */
	if (cfg->separate && !cfg->freq && !cfg->period) {
		cfg->freq = DEFAULT_FREQ;
		cfg->randomize = false;
	}
	if (!cfg->freq && !cfg->period)
		cfg->period = is_clock(&cfg->events[0].attr) ? DEFAULT_SW_PERIOD
							     : DEFAULT_HW_PERIOD;
	return 0;
}

/* A ring per CPU sampled. */
static size_t make_rings(const cpu_set_t *cpus, struct perf_ring **rings)
{
	size_t n = 0;

	*rings = st_xcalloc((size_t)CPU_COUNT(cpus) + 1, sizeof(**rings));
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, cpus))
			(*rings)[n++] = (struct perf_ring){ .cpu = c, .fd = -1 };
	return n;
}

/* Whether pid is one of the processes sampled (their new threads are ours). */
static bool is_target_process(const struct perf_source *ps, pid_t pid)
{
	if (ps->cfg.scope != PERF_SCOPE_PROCESSES)
		return false;
	for (size_t i = 0; i < ps->cfg.npids; i++)
		if (ps->cfg.pids[i] == pid)
			return true;
	return false;
}

/* Every process (or thread, with -t) sampled has gone; never for -a. */
static bool targets_gone(const struct perf_source *ps, char *why, size_t len)
{
	if (ps->cfg.scope == PERF_SCOPE_SYSTEM)
		return false;
	for (size_t i = 0; i < ps->cfg.npids; i++)
		if (ps->cfg.scope == PERF_SCOPE_THREADS ? target_exists(ps->cfg.pids[i])
							: !target_gone(ps->cfg.pids[i]))
			return false;
	if (ps->cfg.npids == 1)
		snprintf(why, len, "target %d exited", (int)ps->cfg.pids[0]);
	else
		snprintf(why, len, "all %zu %s exited", ps->cfg.npids,
			 ps->cfg.scope == PERF_SCOPE_THREADS ? "threads" : "targets");
	return true;
}

static uint64_t next_random(struct perf_source *ps)
{
	/* xorshift64: cheap, and plenty for decorrelating periods. */
	ps->rng ^= ps->rng << 13;
	ps->rng ^= ps->rng >> 7;
	ps->rng ^= ps->rng << 17;
	return ps->rng;
}

/* DCPI varies each period uniformly over about +/-3% of the base. */
static uint64_t random_period(struct perf_source *ps)
{
	uint64_t base = ps->cfg.period, spread = base / 16;

	uint64_t p;

	if (!ps->cfg.randomize || spread == 0)
		return base;
	p = base - spread / 2 + next_random(ps) % (spread + 1);
	/* IBS takes only multiples of 16 from 0x90 up. */
	return ps->cfg.ibs ? ibs_period_clamp(p, NULL) : p;
}

static struct tid_state *tid_find(const struct perf_source *ps, pid_t tid)
{
	struct tid_state *t;

	HASH_FIND(hh, ps->known, &tid, sizeof(tid), t);
	return t;
}

static bool tid_known(const struct perf_source *ps, pid_t tid)
{
	return tid_find(ps, tid) != NULL;
}

static struct tid_state *remember_tid(struct perf_source *ps, pid_t tid)
{
	struct tid_state *t = tid_find(ps, tid);

	if (!t) {
		t = st_xcalloc(1, sizeof(*t));
		t->tid = tid;
		HASH_ADD(hh, ps->known, tid, sizeof(t->tid), t);
	}
	return t;
}

/*
 * The threads sampled through inherited copies, told to the header: the
 * +/-3% never reaches them (vary_periods has no descriptor of a copy), so
 * their period is the one drawn when they were born.
 */
static void publish_copied(struct perf_source *ps)
{
	pthread_mutex_lock(&ps->lock);
	ps->info.period_fixed_threads = ps->copied;
	pthread_mutex_unlock(&ps->lock);
}

/* A thread born of a known one: sampled through the copies it inherited (unless opened already). */
static void remember_copied(struct perf_source *ps, pid_t tid)
{
	if (tid_known(ps, tid))
		return;
	remember_tid(ps, tid)->copied = true;
	ps->copied++;
	publish_copied(ps);
}

static void drop_tid(struct perf_source *ps, pid_t tid)
{
	struct tid_state *t = tid_find(ps, tid);

	if (t) {
		if (t->copied) {
			ps->copied--;
			publish_copied(ps);
		}
		HASH_DEL(ps->known, t);
		free(t);
	}
}

/*
 * How much of a sample's stack copy to keep: what its thread's walks
 * read (stack_needs), not the bytes above the outermost frame (a main
 * thread's environment, a thread's descriptor), which are then never
 * copied out of the kernel's ring.  A copy on another stack (sp past
 * the top, or the top beyond the copy) stays whole.
 */
static size_t keep_stack(void *arg, uint32_t tid, uint64_t sp, size_t size)
{
	struct perf_source *ps = arg;
	uint64_t top = stack_needs_top(ps->cfg.stack_needs, (pid_t)tid);
	size_t want = size;

	if (top > sp && top - sp < size)
		want = (size_t)(top - sp + 7) & ~(size_t)7;
	atomic_fetch_add_explicit(&ps->stack_copied, size, memory_order_relaxed);
	atomic_fetch_add_explicit(&ps->stack_kept, want, memory_order_relaxed);
	return want;
}

/* What samples carry for call chains and stack copies, from ps->cfg. */
static void chain_layout(struct perf_source *ps)
{
	if ((ps->cfg.callchain || ps->cfg.stack_copy) && !ps->cfg.ibs) {
		char *max = st_read_file("/proc/sys/kernel/perf_event_max_stack", NULL);

		ps->layout.sample_type |= PERF_SAMPLE_CALLCHAIN;
		/* Chains that reach the kernel's limit were cut: say so in the tree. */
		if (max) {
			long v = atol(max);

			ps->layout.max_stack = v > 0 && v < 65536 ? (unsigned)v : 0;
			free(max);
		}
	}
	if (ps->cfg.stack_copy) {
		ps->layout.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		ps->layout.regs_user = PERF_STACK_REGS;
		if (ps->cfg.stack_needs) {
			ps->layout.stack_keep = keep_stack;
			ps->layout.stack_keep_arg = ps;
		}
		/* perf record's 512 KiB for 8 KiB copies: a few dozen copies per drain. */
		ps->pages = STACK_RING_PAGES;
		for (unsigned copy = 8192; copy < ps->cfg.stack_copy && ps->pages < 4 * STACK_RING_PAGES;
		     copy *= 2)
			ps->pages *= 2;
		/*
		 * With the kernel's walker every sample comes with its copy
		 * until the model has taught it the process, while the model
		 * starts and the sampler faults in a fresh ring: the demo's
		 * first second lost 9 to 12 samples in CI with 64 copies a ring.
		 */
		if (ps->cfg.kernel_walk && ps->pages < 4 * STACK_RING_PAGES)
			ps->pages *= 2;
		if (!ps->stacks.v)
			stack_bases_init(&ps->stacks);
	}
}

/*
 * Samples with a stack copy walked in the kernel first, where the walker
 * loaded and the samples need nothing it cannot give: one sampling event
 * (no group to read, no -e a,b to tell apart) and --off-cpu's switches,
 * no IBS.  The first refusal (an older kernel) leaves every sample to
 * the copy.
 */
static bool walker_wanted(const struct perf_source *ps)
{
	return ps->cfg.kernel_walk && ps->cfg.stack_copy && !ps->cfg.ibs &&
	       ps->cfg.nevents == 1 + (size_t)ps->cfg.offcpu &&
	       !(ps->layout.sample_type & PERF_SAMPLE_READ);
}

/*
 * --off-cpu's switches walked in the kernel too: sampled by the software
 * event context-switches, whose program the walker attaches per event
 * (a program on the tracepoint would run for, and could filter, every
 * tool's sched_switch samples), their states noted by sched_switch.
 */
static bool switches_by_walker(struct perf_source *ps)
{
	return walker_wanted(ps) && !ps->walk_refused &&
	       kernel_walk_note_switches(ps->cfg.kernel_walk) == 0;
}

/*
 * When the kernel wakes the sampler: a ring a quarter full, half where it
 * is 1 MiB or more (the default call graph's, for the copies the walker
 * lets out), as perf record's: at 10 kHz a compile's chains and copies
 * woke it 13 times a second at a quarter.  Half of 1 MiB is 0.25 s at
 * 4 MB/s.
 */
static uint32_t wake_bytes(const struct perf_source *ps)
{
	size_t bytes = ps->pages * (size_t)getpagesize();

	return (uint32_t)(bytes >= (1u << 20) ? bytes / 2 : bytes / 4);
}

static void set_attr(struct perf_source *ps, struct perf_event_attr *a,
		     size_t i)
{
	*a = ps->cfg.events[i].attr;
	a->size = sizeof(*a);
	/* Where paranoia forbids the kernel, and where -e EVENT:u asked. */
	a->exclude_kernel = ps->exclude_kernel || ps->cfg.events[i].attr.exclude_kernel;
	/* IBS refuses every exclude bit unless the PMU filters in software. */
	a->exclude_hv = !ps->cfg.ibs;
	a->inherit = ps->inherit;
	/* The kernel refuses a group whose members keep other clocks. */
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	if (i > 0 && !ps->cfg.separate) {
		/* Members only count; the leader samples and reads them. */
		a->sample_period = 0;
		a->freq = 0;
		a->disabled = 0;
		return;
	}
	if (is_offcpu(&ps->cfg, i)) {
		a->sample_period = 1;
		a->context_switch = 1;	/* when the thread runs again */
		/* Once for all threads' events: on_record tells their samples apart by it. */
		if (!ps->switches_decided) {
			ps->switches_sw = switches_by_walker(ps);
			pthread_mutex_lock(&ps->lock);
			ps->info.offcpu_wakers = ps->switches_sw &&
						 kernel_walk_notes_wakes(ps->cfg.kernel_walk);
			pthread_mutex_unlock(&ps->lock);
		}
		ps->switches_decided = true;
		if (ps->switches_sw) {
			a->type = PERF_TYPE_SOFTWARE;
			a->config = PERF_COUNT_SW_CONTEXT_SWITCHES;
		}
	} else if (ps->cfg.freq) {
		a->freq = 1;
		a->sample_freq = ps->cfg.freq;
	} else {
		a->sample_period = random_period(ps);
	}
	a->sample_type = ps->layout.sample_type;
	a->sample_regs_user = ps->layout.regs_user;
	a->sample_stack_user = ps->cfg.stack_copy;
	/*
	 * dwarf: the kernel's chain holds only kernel frames; the copy gives
	 * the rest.  So with the kernel's walker: the samples it lets out are
	 * walked from their copies, and no sample has the kernel follow its
	 * frame pointers through code that has none.
	 */
	a->exclude_callchain_user = ps->cfg.stack_copy && (!ps->cfg.callchain || walker_wanted(ps));
	a->read_format = ps->layout.read_format;
	a->sample_id_all = 1;	/* CLOCK_MONOTONIC (above): shimtop's clock, so timelines line up */
	/* The side band once: the on-CPU event's. */
	a->mmap = !is_offcpu(&ps->cfg, i);
	a->mmap2 = a->mmap;
	a->comm = a->mmap;
	a->comm_exec = a->mmap;
	a->task = a->mmap;
	a->disabled = 1;
	a->enable_on_exec = ps->cfg.launched && !ps->cfg.ibs_per_cpu;
	a->wakeup_watermark = wake_bytes(ps);
	a->watermark = 1;
}

/* Events per group: all of them, or one each with -e a,b. */
static size_t group_size(const struct perf_source *ps)
{
	return ps->cfg.separate ? 1 : ps->cfg.nevents;
}

/*
 * Notes which event a leader is.  Samples carry its id; an inherited
 * copy in a child reports its parent's (the kernel's primary id).
 */
static int remember_id(struct perf_source *ps, int fd, size_t event)
{
	struct event_id *e;
	uint64_t id;

	if (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0)
		return -errno;
	e = st_xcalloc(1, sizeof(*e));
	e->id = id;
	e->event = (uint8_t)event;
	HASH_ADD(hh, ps->ids, id, sizeof(e->id), e);
	return 0;
}

/* The ids of a thread's events leave with them (not inherited ones). */
static void forget_ids(struct perf_source *ps, const struct perf_thread *t)
{
	for (size_t i = 0; ps->cfg.separate && i < t->nfd; i++) {
		struct event_id *e;
		uint64_t id;

		if (t->fd[i] < 0 || ioctl(t->fd[i], PERF_EVENT_IOC_ID, &id) < 0)
			continue;
		HASH_FIND(hh, ps->ids, &id, sizeof(id), e);
		if (e) {
			HASH_DEL(ps->ids, e);
			free(e);
		}
	}
}

static void close_thread(struct perf_thread *t)
{
	for (size_t i = 0; i < t->nfd; i++)
		if (t->fd[i] >= 0)
			close(t->fd[i]);
	free(t->fd);
	t->fd = NULL;
	t->nfd = 0;
}

static int map_ring(struct perf_source *ps, struct perf_ring *r, int fd)
{
	size_t page = (size_t)getpagesize();

	/* The locked-memory limit bites first for non-root users. */
	for (;;) {
		r->map_size = (ps->pages + 1) * page;
		r->base = mmap(NULL, r->map_size, PROT_READ | PROT_WRITE,
			       MAP_SHARED, fd, 0);
		if (r->base != MAP_FAILED) {
			r->fd = fd;
			return 0;
		}
		r->base = NULL;
		if ((errno != EPERM && errno != ENOMEM) || ps->pages <= 2)
			return -errno;
		ps->pages /= 2;
	}
}

/* Sends a new leader's records to its CPU's ring, making one if needed. */
static int attach_output(struct perf_source *ps, size_t k, int fd)
{
	struct perf_ring *r = &ps->rings[k];

	if (r->fd < 0)
		return map_ring(ps, r, fd);
	return ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd);
}

/* Why no stack is walked in the kernel, for the header and report (once). */
static void walker_refused(struct perf_source *ps, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void walker_refused(struct perf_source *ps, const char *fmt, ...)
{
	va_list ap;

	ps->walk_refused = true;
	pthread_mutex_lock(&ps->lock);
	va_start(ap, fmt);
	vsnprintf(ps->info.walk_note, sizeof(ps->info.walk_note), fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&ps->lock);
}

static void open_walked(struct perf_source *ps)
{
	ps->walked = st_xcalloc(ps->nrings + 1, sizeof(*ps->walked));
	for (size_t k = 0; k < ps->nrings; k++) {
		struct perf_ring *r = &ps->walked[k];
		int fd = kernel_walk_open_output(ps->cfg.kernel_walk, ps->rings[k].cpu,
						 wake_bytes(ps));
		void *base = MAP_FAILED;

		/* As large as the sample rings are now, never halved. */
		*r = (struct perf_ring){ .cpu = ps->rings[k].cpu, .fd = -1 };
		r->map_size = (ps->pages + 1) * (size_t)getpagesize();
		if (fd >= 0) {
			base = mmap(NULL, r->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
			if (base == MAP_FAILED) {
				int err = -errno;

				close(fd);
				fd = err;
			}
		}
		if (fd < 0) {
			walker_refused(ps, "no bpf-output event on CPU %d (%s): stacks are walked "
				       "in user space", ps->rings[k].cpu, strerror(-fd));
			return;
		}
		r->base = base;
		r->fd = fd;
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	}
}

/* The walker on event's leader fd: the sampling event's program, or the switches'. */
static void attach_walker(struct perf_source *ps, int fd, size_t event)
{
	int err;

	if (ps->walk_refused || !ps->cfg.kernel_walk || !ps->cfg.stack_copy)
		return;
	if (!walker_wanted(ps)) {
		walker_refused(ps, "%s", ps->cfg.separate
			       ? "events sampled each on its own (-e a,b) are not told "
				 "apart by the BPF stack walker: stacks are walked in user space"
			       : ps->cfg.nevents > 1
			       ? "samples read a group of counters, which the BPF stack walker "
				 "does not: stacks are walked in user space"
			       : "IBS samples' stacks are walked in user space");
		return;
	}
	if (!ps->walked)
		open_walked(ps);
	if (ps->walk_refused)
		return;
	if (is_offcpu(&ps->cfg, event)) {
		err = ps->switches_sw ? kernel_walk_attach_switches(ps->cfg.kernel_walk, fd) : 0;
		/* Refused: walked here from their copies, each one's state told "other". */
		if (err < 0 && err != -EEXIST && !ps->switches_refused) {
			ps->switches_refused = true;
			pthread_mutex_lock(&ps->lock);
			snprintf(ps->info.walk_note, sizeof(ps->info.walk_note),
				 "the kernel refused the BPF stack walker on context switches (%s): "
				 "their states are not known", strerror(-err));
			pthread_mutex_unlock(&ps->lock);
		}
		return;
	}
	err = kernel_walk_attach(ps->cfg.kernel_walk, fd);
	if (err < 0 && !ps->walk_on) {
		walker_refused(ps, "the kernel refused the BPF stack walker on its events (%s): "
			       "stacks are walked in user space", strerror(-err));
		return;
	}
	ps->walk_on = ps->walk_on || err == 0;
}

/*
 * Opens the group on one thread, on every CPU.  Returns 0, or -errno of
 * the first failure with everything opened so far closed again.
 */
static int open_thread(struct perf_source *ps, pid_t tid)
{
	struct perf_thread t;
	size_t ne = ps->cfg.nevents;
	int err = 0;

	memset(&t, 0, sizeof(t));
	t.tid = tid;
	t.fd = st_xmalloc(ps->nrings * ne * sizeof(int));
	for (size_t k = 0; k < ps->nrings; k++) {
		int leader = -1;

		for (size_t i = 0; i < ne; i++) {
			struct perf_event_attr a;
			int fd;

			if (ps->cfg.separate)
				leader = -1;
			set_attr(ps, &a, i);
			fd = sys_perf_event_open(&a, tid, ps->rings[k].cpu, leader,
						 PERF_FLAG_FD_CLOEXEC);
			if (fd < 0) {
				err = -errno;
				ps->failed_event = i;
				goto fail;
			}
			t.fd[t.nfd++] = fd;
			if (leader < 0) {
				leader = fd;
				err = attach_output(ps, k, fd);
				if (err == 0 && ps->cfg.separate)
					err = remember_id(ps, fd, i);
				if (err < 0)
					goto fail;
				attach_walker(ps, fd, i);
			}
		}
	}
	ST_GROW(ps->threads, ps->cap, ps->nthreads + 1);
	ps->threads[ps->nthreads++] = t;
	if (tid > 0)
		remember_tid(ps, tid);
	return 0;
fail:
	forget_ids(ps, &t);
	/* A ring owned by an fd we are closing goes with it. */
	for (size_t k = 0; k < ps->nrings; k++)
		for (size_t i = 0; i < t.nfd; i++)
			if (ps->rings[k].fd == t.fd[i]) {
				munmap(ps->rings[k].base, ps->rings[k].map_size);
				ps->rings[k].base = NULL;
				ps->rings[k].fd = -1;
			}
	close_thread(&t);
	return err;
}

static void enable_thread(const struct perf_source *ps,
			  const struct perf_thread *t)
{
	for (size_t i = 0; i < t->nfd; i += group_size(ps))
		ioctl(t->fd[i], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
}

/*
 * Opens the first thread, finding what the kernel allows: kernel samples
 * (paranoid), inherit with PERF_SAMPLE_READ (kernel version).
 */
static int open_first(struct perf_source *ps, pid_t tid)
{
	int err = open_thread(ps, tid);

	if ((err == -EACCES || err == -EPERM) && !ps->exclude_kernel &&
	    (!ps->cfg.ibs || ps->cfg.ibs_swfilt)) {
		ps->exclude_kernel = true;
		err = open_thread(ps, tid);
	}
	if (err == -EINVAL && ps->inherit &&
	    (ps->layout.sample_type & PERF_SAMPLE_READ)) {
		ps->inherit = false;
		err = open_thread(ps, tid);
	}
	return err;
}

/* IBS's own refusals: privilege, a PMU another user holds, a period. */
static bool report_ibs_error(const struct perf_source *ps, int err)
{
	const char *ev = ps->cfg.events[0].name;
	char who[256];

	switch (err) {
	case EACCES:
	case EPERM:
		st_error("no permission to open %s: IBS samples need CAP_PERFMON (or root, or "
			 "kernel.perf_event_paranoid at most 1 where the PMU cannot leave the "
			 "kernel out); run shimtop as root or setcap cap_perfmon", ev);
		return true;
	case EBUSY:
		if (ibs_fd_holders("/proc", getpid(), "anon_inode:[perf_event]", who, sizeof(who)))
			st_error("%s is busy: IBS takes one event per CPU and another profiler "
				 "holds it (processes with perf events: %s); stop it and retry",
				 ev, who);
		else
			st_error("%s is busy: IBS takes one event per CPU and another profiler "
				 "(perf mem, perf record -e %s, a kernel user) holds it; stop it "
				 "and retry", ev, ev);
		return true;
	case EINVAL:
		st_error("the kernel refused %s's attributes (period %llu%s): try the default "
			 "period, without --ibs-l3miss or --ibs-ldlat", ev,
			 (unsigned long long)ps->cfg.period, ps->cfg.freq ? ", -F" : "");
		return true;
	default:
		return false;
	}
}

static int report_open_error(const struct perf_source *ps, int err)
{
	const char *ev = ps->cfg.events[ps->failed_event < ps->cfg.nevents ? ps->failed_event : 0].name;
	char paranoid[16] = "?";
	int max_rate = 0;
	char *p;

	if (ps->cfg.ibs && report_ibs_error(ps, err))
		return err == EINVAL ? -EOPNOTSUPP : -err;
	p = st_read_file("/proc/sys/kernel/perf_event_paranoid", NULL);
	if (p) {
		snprintf(paranoid, sizeof(paranoid), "%d", atoi(p));
		free(p);
	}
	if (is_offcpu(&ps->cfg, ps->failed_event) && (err == EACCES || err == EPERM)) {
		st_error("no permission for --off-cpu's sched:sched_switch samples "
			 "(kernel.perf_event_paranoid is %s): run as root, give shimtop CAP_PERFMON, "
			 "or set perf_event_paranoid to -1; or drop --off-cpu", paranoid);
		return -err;
	}
	p = st_read_file("/proc/sys/kernel/perf_event_max_sample_rate", NULL);
	if (p) {
		max_rate = atoi(p);
		free(p);
	}
	switch (err) {
	case ESRCH:
		st_error("%s %d exited before it could be sampled",
			 ps->cfg.scope == PERF_SCOPE_THREADS ? "thread" : "process",
			 (int)ps->cfg.pids[0]);
		break;
	case EACCES:
	case EPERM:
		if (ps->cfg.scope == PERF_SCOPE_SYSTEM)
			st_error("no permission to sample the whole system "
				 "(kernel.perf_event_paranoid is %s): run as root, give "
				 "shimtop CAP_PERFMON, or set perf_event_paranoid to 0; "
				 "or sample one process with -p PID", paranoid);
		else
			st_error("no permission to sample process %d "
				 "(kernel.perf_event_paranoid is %s): run as root, give shimtop "
				 "CAP_PERFMON, or lower perf_event_paranoid; another user's "
				 "process also needs CAP_SYS_PTRACE", (int)ps->cfg.pids[0],
				 paranoid);
		break;
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		st_error("event '%s' is not supported on this machine; try -e cpu-clock", ev);
		break;
	case EMFILE:
		st_error("out of file descriptors for the events; raise ulimit -n");
		break;
	case EINVAL:
		if (ps->cfg.freq && max_rate && ps->cfg.freq > (uint64_t)max_rate) {
			st_error("-F %llu is above the kernel's limit of %d Hz "
				 "(kernel.perf_event_max_sample_rate): use -F %d or less, or "
				 "raise the limit with sysctl", (unsigned long long)ps->cfg.freq,
				 max_rate, max_rate);
			break;
		}
		if (ps->cfg.nevents > 1 && !ps->cfg.separate) {
			st_error("the kernel refused the group of %zu events led by '%s' "
				 "(more events than the PMU's counters, or events of "
				 "different PMUs); sample fewer: -e '{%s,...}' with less",
				 ps->cfg.nevents, ev, ev);
			break;
		}
		/* fall through */
	default:
		st_error("perf_event_open for '%s' on %s %d failed: %s", ev,
			 ps->cfg.scope == PERF_SCOPE_SYSTEM ? "CPU" : "process",
			 ps->cfg.scope == PERF_SCOPE_SYSTEM ? ps->rings[0].cpu
							    : (int)ps->cfg.pids[0],
			 strerror(err));
		break;
	}
	/* The kernel refusing our attributes is not a usage error. */
	return err == EINVAL ? -EOPNOTSUPP : -err;
}

/*
 * Opens threads of the target processes not yet sampled (attach race, no
 * inherit).  With -t and -a there is nothing to find.
 */
static void rescan_threads(struct perf_source *ps, bool enable)
{
	if (ps->cfg.scope != PERF_SCOPE_PROCESSES)
		return;
	for (size_t p = 0; p < ps->cfg.npids; p++) {
		pid_t *tids = NULL;
		size_t n = 0;

		if (target_list_threads(ps->cfg.pids[p], &tids, &n) < 0)
			continue;
		for (size_t i = 0; i < n; i++) {
			if (tid_known(ps, tids[i]))
				continue;
			if (open_thread(ps, tids[i]) == 0 && enable)
				enable_thread(ps, &ps->threads[ps->nthreads - 1]);
		}
		free(tids);
	}
}

static struct perf_group_state *group_state(struct perf_source *ps, pid_t tid)
{
	return &remember_tid(ps, tid)->gs;
}

static pid_t sample_tid(const struct perf_event_header *ev,
			const struct perf_layout *l)
{
	const unsigned char *p = (const unsigned char *)(ev + 1);
	uint32_t tid;

	if (l->sample_type & PERF_SAMPLE_IDENTIFIER)
		p += 8;
	if (l->sample_type & PERF_SAMPLE_IP)
		p += 8;
	if (ev->size < (size_t)(p - (const unsigned char *)ev) + 8)
		return 0;
	memcpy(&tid, p + 4, sizeof(tid));
	return (pid_t)tid;
}

static bool owns_ring(const struct perf_source *ps, const struct perf_thread *t)
{
	for (size_t k = 0; k < ps->nrings; k++)
		for (size_t i = 0; i < t->nfd; i++)
			if (ps->rings[k].fd == t->fd[i])
				return true;
	return false;
}

/*
 * An exited thread's events are dead: close them, unless a ring hangs on
 * one.  Its id leaves the known list, which would otherwise grow with
 * every thread a target ever made.
 */
static void forget_thread(struct perf_source *ps, pid_t tid)
{
	drop_tid(ps, tid);
	/* Its stack top too: the tid may name another thread's stack next. */
	if (ps->cfg.stack_needs)
		stack_needs_forget(ps->cfg.stack_needs, tid);
	for (size_t i = 0; i < ps->nthreads; i++) {
		struct perf_thread *t = &ps->threads[i];

		if (t->tid != tid || owns_ring(ps, t))
			continue;
		forget_ids(ps, t);
		close_thread(t);
		ps->threads[i] = ps->threads[--ps->nthreads];
		return;
	}
}

/*
 * Marks a sample with the event that took it (-e a,b), by the id the
 * kernel put first (PERF_SAMPLE_IDENTIFIER).  Every sampling event's id
 * is known, inherited ones report their parent's: false (the sample is
 * dropped) only for a record the kernel did not write as asked.
 */
static bool mark_event(const struct perf_source *ps,
		       const struct perf_event_header *ev, void *out)
{
	struct st_sample *s = out;
	struct event_id *e;
	uint64_t id;

	if (s->h.type != ST_REC_SAMPLE)
		return true;
	if (ev->size < sizeof(*ev) + sizeof(id))
		return false;
	memcpy(&id, ev + 1, sizeof(id));
	HASH_FIND(hh, ps->ids, &id, sizeof(id), e);
	if (!e)
		return false;
	s->flags |= (uint32_t)e->event << ST_SAMPLE_EVENT_SHIFT;
	return true;
}

/*
 * Per-CPU IBS events (kernels before 6.2) see every process: only the
 * targets' records are kept (their children are not followed).
 */
static bool wanted(const struct perf_source *ps, const void *rec)
{
	const struct st_header *h = rec;
	uint32_t pid, tid;

	if (!ps->cfg.ibs_per_cpu || ps->cfg.scope == PERF_SCOPE_SYSTEM)
		return true;
	switch (h->type) {
	case ST_REC_IBS:
		pid = ((const struct st_ibs *)rec)->pid;
		tid = ((const struct st_ibs *)rec)->tid;
		break;
	case ST_REC_MMAP:
		pid = tid = ((const struct st_mmap *)rec)->pid;
		break;
	case ST_REC_COMM:
	case ST_REC_EXEC:
		pid = ((const struct st_comm *)rec)->pid;
		tid = ((const struct st_comm *)rec)->tid;
		break;
	case ST_REC_FORK:
	case ST_REC_EXIT:
		pid = ((const struct st_task *)rec)->pid;
		tid = ((const struct st_task *)rec)->tid;
		break;
	default:
		return true;
	}
	for (size_t i = 0; i < ps->cfg.npids; i++)
		if ((pid_t)(ps->cfg.scope == PERF_SCOPE_THREADS ? tid : pid) == ps->cfg.pids[i])
			return true;
	return false;
}

static void on_record(const struct perf_event_header *ev, void *arg)
{
	struct perf_source *ps = arg;
	struct perf_group_state *gs = NULL;
	unsigned char *out;
	size_t n;

	if (ev->type == PERF_RECORD_SAMPLE &&
	    (ps->layout.sample_type & PERF_SAMPLE_READ))
		gs = group_state(ps, sample_tid(ev, &ps->layout));
	/* Converted where it waits for its turn: the stack copy moved once less. */
	out = reorder_reserve(&ps->order, ST_RECORD_MAX);
	n = perf_convert(&ps->layout, gs, ev, out);
	if (!n || !wanted(ps, out))
		return;
	if (ps->cfg.separate && !mark_event(ps, ev, out))
		return;
	/* A switch let out by the kernel's walker: its state came before it (offcpu.h). */
	if (ps->switches_sw && ((struct st_header *)out)->type == ST_REC_SAMPLE &&
	    is_offcpu(&ps->cfg, ST_SAMPLE_EVENT(((struct st_sample *)out)->flags)))
		((struct st_sample *)out)->flags |= ST_SAMPLE_TOLD_APART |
						    ST_OFFCPU_OTHER << ST_SAMPLE_OFFCPU_SHIFT;
	switch (((struct st_header *)out)->type) {
	case ST_REC_SAMPLE: {
		struct st_sample *sm = (void *)out;

		if (!ST_SAMPLE_OFFCPU(sm->flags))
			atomic_store_explicit(&ps->period_seen, sm->period, memory_order_relaxed);
		if (sm->flags & ST_SAMPLE_HAS_STACK) {
			struct st_stack *k = (struct st_stack *)(uintptr_t)st_sample_stack(sm);

			k->base = stack_base_of(&ps->stacks, (pid_t)sm->pid, k->sp, sm->time);
		}
		break;
	}
	case ST_REC_IBS: {
		struct st_ibs *b = (void *)out;

		if (b->flags & ST_IBS_HAS_STACK) {
			struct st_stack *k = (struct st_stack *)(uintptr_t)st_ibs_stack(b);

			k->base = stack_base_of(&ps->stacks, (pid_t)b->pid, k->sp, b->time);
		}
		break;
	}
	case ST_REC_EXEC:
		if (ps->cfg.stack_copy)
			stack_bases_forget(&ps->stacks,
					   (pid_t)((const struct st_comm *)(const void *)out)->pid);
		if (ps->walk_on)
			kernel_walk_mapped(ps->cfg.kernel_walk,
					   (pid_t)((const struct st_comm *)(const void *)out)->pid,
					   ((const struct st_comm *)(const void *)out)->time, 0, 0);
		break;
	case ST_REC_MMAP: {
		const struct st_mmap *mm = (const void *)out;

		/* Over code the kernel's walker holds: forgotten until the model has this one. */
		if (ps->walk_on)
			kernel_walk_mapped(ps->cfg.kernel_walk, (pid_t)mm->pid, mm->time, mm->start,
					   mm->len);
		break;
	}
	case ST_REC_FORK: {
		const struct st_task *tk = (const void *)out;

		if (is_target_process(ps, (pid_t)tk->pid) && !tid_known(ps, (pid_t)tk->tid)) {
			if (ps->inherit)
				remember_copied(ps, (pid_t)tk->tid);
			else if (open_thread(ps, (pid_t)tk->tid) == 0)
				enable_thread(ps, &ps->threads[ps->nthreads - 1]);
		} else if (ps->inherit && tid_known(ps, (pid_t)tk->ptid)) {
			/* A descendant, sampled through inherited copies: a period change reopens it. */
			remember_copied(ps, (pid_t)tk->tid);
		}
		/* A new process: what the kernel's walker held for its pid was another's. */
		if (ps->walk_on && tk->pid == tk->tid)
			kernel_walk_mapped(ps->cfg.kernel_walk, (pid_t)tk->pid, tk->time, 0, 0);
		/* A child followed: its wakeups from its first wait. */
		if (ps->watching && ps->inherit && tk->pid == tk->tid &&
		    ps->cfg.scope != PERF_SCOPE_SYSTEM)
			kernel_walk_watch(ps->cfg.kernel_walk, (pid_t)tk->pid, true);
		break;
	}
	case ST_REC_EXIT: {
		const struct st_task *tk = (const void *)out;

		forget_thread(ps, (pid_t)tk->tid);
		if (ps->watching && tk->pid == tk->tid && ps->cfg.scope != PERF_SCOPE_SYSTEM)
			kernel_walk_watch(ps->cfg.kernel_walk, (pid_t)tk->pid, false);
		break;
	}
	case ST_REC_LOST:
		pthread_mutex_lock(&ps->lock);
		ps->info.kernel_lost += ((const struct st_lost *)(const void *)out)->count;
		pthread_mutex_unlock(&ps->lock);
		break;
	case ST_REC_THROTTLE:
		pthread_mutex_lock(&ps->lock);
		ps->info.throttled++;
		pthread_mutex_unlock(&ps->lock);
		break;
	default:
		break;
	}
	reorder_commit(&ps->order, n, st_record_time(out));
}

/* A chain the kernel's walker sent, into time order with the rest. */
static void on_walked(const struct perf_event_header *ev, void *arg)
{
	struct perf_source *ps = arg;
	unsigned char *out;
	struct st_sample *sm;
	uint64_t lost = kernel_walk_lost(ev);
	size_t n;

	/* Its ring full, the walker's chain went nowhere: counted as the sample rings' losses are. */
	if (lost) {
		pthread_mutex_lock(&ps->lock);
		ps->info.kernel_lost += lost;
		pthread_mutex_unlock(&ps->lock);
		return;
	}
	if (kernel_walk_take_need(ps->cfg.kernel_walk, ev))
		return;
	out = reorder_reserve(&ps->order, ST_RECORD_MAX);
	n = kernel_walk_convert(ev, out, ST_RECORD_MAX);
	sm = (void *)out;
	if (!n)
		return;
	/* A let-out switch's state, for its sample after it; a wakeup, for the wait it ends. */
	if (sm->h.type != ST_REC_SAMPLE) {
		reorder_commit(&ps->order, n, st_record_time(out));
		return;
	}
	/* Told apart by what walked them: a switch is --off-cpu's event, the last; the rest, event 0. */
	if (ps->cfg.separate && ST_SAMPLE_OFFCPU(sm->flags))
		sm->flags |= (uint32_t)(ps->cfg.nevents - 1) << ST_SAMPLE_EVENT_SHIFT;
	/* Checking: the sample comes out too, with its copy; this is only compared with it. */
	if (kernel_walk_checking(ps->cfg.kernel_walk))
		sm->flags |= ST_SAMPLE_CHECK_ONLY;
	else if (!ST_SAMPLE_OFFCPU(sm->flags))
		atomic_store_explicit(&ps->period_seen, sm->period, memory_order_relaxed);
	reorder_commit(&ps->order, n, sm->time);
}

static void push_to_ring(void *arg, const void *rec, size_t len)
{
	struct perf_source *ps = arg;

	(void)sample_push(ps->base.ring, rec, len);
}

/* In time order: switch-outs wait here for their thread to run again (--off-cpu). */
static void push_record(void *arg, const void *rec, size_t len)
{
	struct perf_source *ps = arg;

	uint16_t type = ((const struct st_header *)rec)->type;

	if (ps->cfg.offcpu)
		offcpu_pairs_take(&ps->pairs, rec, len, push_to_ring, ps);
	else if (type != ST_REC_SWITCH && type != ST_REC_WAKE)
		push_to_ring(ps, rec, len);
}

/*
 * Stack bytes read of a thread found waiting, at least: once a thread, so
 * more than a sample's copy (cut to what walks read), for whole chains.
 */
#define WAIT_BEFORE_COPY	(16u << 10)

/*
 * Off-CPU sampling from now: threads blocked already left the CPU before
 * sched_switch was sampled, so each is given its wait from now, in time
 * order before any switch the kernel writes after (offcpu_before.h).
 * Threads of -t and -a, and a command not yet started, are not looked at.
 */
static void waits_before(struct perf_source *ps)
{
	size_t copy = ps->cfg.stack_copy > WAIT_BEFORE_COPY ? ps->cfg.stack_copy : WAIT_BEFORE_COPY;
	uint64_t now = st_now_ns(), found = 0;

	if (!ps->cfg.offcpu || ps->cfg.scope != PERF_SCOPE_PROCESSES)
		return;
	for (size_t p = 0; p < ps->cfg.npids; p++) {
		struct offcpu_code code;
		pid_t *tids = NULL;
		size_t n = 0;

		if (target_list_threads(ps->cfg.pids[p], &tids, &n) < 0)
			continue;
		(void)offcpu_code_read(ps->cfg.pids[p], &code);
		for (size_t i = 0; i < n; i++) {
			struct st_sample *sm = reorder_reserve(&ps->order, ST_RECORD_MAX);
			size_t len = offcpu_before_sample("/proc", ps->cfg.pids[p], tids[i], now, copy,
							  &code, sm, ST_RECORD_MAX);
			struct st_stack *k;

			if (!len)
				continue;
			if (ps->cfg.separate)
				sm->flags |= (uint32_t)(ps->cfg.nevents - 1) << ST_SAMPLE_EVENT_SHIFT;
			k = (struct st_stack *)(uintptr_t)st_sample_stack(sm);
			/* Stack bases are kept where samples carry copies (CallerChaining's). */
			k->base = ps->stacks.v ? stack_base_of(&ps->stacks, (pid_t)sm->pid, k->sp, now) : 0;
			reorder_commit(&ps->order, len, now);
			found++;
		}
		offcpu_code_free(&code);
		free(tids);
	}
	pthread_mutex_lock(&ps->lock);
	ps->info.offcpu_before += found;
	pthread_mutex_unlock(&ps->lock);
}

/* Waits still going on, shown up to t; and how many switches were not paired. */
static void offcpu_pass(struct perf_source *ps, uint64_t t, uint64_t min_ns)
{
	if (!ps->cfg.offcpu)
		return;
	offcpu_pairs_split(&ps->pairs, t, min_ns, push_to_ring, ps);
	pthread_mutex_lock(&ps->lock);
	ps->info.offcpu_unpaired = ps->pairs.unpaired;
	pthread_mutex_unlock(&ps->lock);
}

/*
 * DCPI varies every period; from user space the cheapest equivalent is
 * to re-draw a few leaders' periods after each drain, round-robin.
 */
static void vary_periods(struct perf_source *ps)
{
	size_t g = group_size(ps), per_thread = ps->nrings * ps->cfg.nevents / g;
	size_t leaders = ps->nthreads * per_thread;

	/* Four at most, each once: a second ioctl on one leader only costs an IPI. */
	for (size_t n = 0; n < 4 && n < leaders; n++) {
		size_t l = ps->randomize_next++ % leaders;
		const struct perf_thread *t = &ps->threads[l / per_thread];
		uint64_t p = random_period(ps);

		ioctl(t->fd[(l % per_thread) * g], PERF_EVENT_IOC_PERIOD, &p);
	}
}

/*
 * What PERF_EVENT_IOC_PERIOD takes for event i.  The kernel turns a clock
 * event's frequency into a fixed period of ns when it opens it and then
 * forgets it was a frequency: given 62 (Hz) it samples every 62 ns (its
 * floor, 10 us).  So a clock event is given the period in ns.
 */
static uint64_t ioctl_period(struct perf_source *ps, size_t i)
{
	if (!ps->cfg.freq)
		return random_period(ps);
	if (is_clock(&ps->cfg.events[i].attr))
		return ps->cfg.freq >= 1000000000u ? 1 : 1000000000u / ps->cfg.freq;
	return ps->cfg.freq;
}

/*
 * With inherit, PERF_EVENT_IOC_PERIOD is not enough: it sets the event it
 * is given, never the copies its threads' children inherited, and once a
 * target has forked the kernel may run it on those copies (it swaps a
 * task's context with an equivalent clone at a context switch), so the
 * period shown would not be the one sampled.  The events are opened
 * again instead, with the new period, on every thread known (the
 * target's, and its descendants' from their FORK records); closing the
 * old ones removes their inherited copies.  The events that hold a ring's
 * mapping stay, disabled (which reaches their copies), for the new
 * events to write into.
 */
static void reopen_threads(struct perf_source *ps)
{
	struct perf_thread *old = ps->threads;
	size_t nold = ps->nthreads;
	struct tid_state *t, *tmp;
	pid_t *tids = st_xcalloc(HASH_COUNT(ps->known) + 1, sizeof(*tids));
	size_t n = 0;
	bool launched = ps->cfg.launched;

	HASH_ITER(hh, ps->known, t, tmp) {
		tids[n++] = t->tid;
		t->gs.have_prev = 0;	/* new counters start from 0 */
	}
	ps->threads = NULL;
	ps->nthreads = ps->cap = 0;
	/* Running already: no waiting for an exec. */
	ps->cfg.launched = false;
	for (size_t i = 0; i < n; i++) {
		if (open_thread(ps, tids[i]) == 0) {
			struct tid_state *own = tid_find(ps, tids[i]);

			enable_thread(ps, &ps->threads[ps->nthreads - 1]);
			/* Its own events now: vary_periods reaches them. */
			if (own && own->copied) {
				own->copied = false;
				ps->copied--;
			}
		} else if (!target_exists(tids[i])) {
			drop_tid(ps, tids[i]);
		}
	}
	publish_copied(ps);
	ps->cfg.launched = launched;
	for (size_t i = 0; i < nold; i++) {
		if (owns_ring(ps, &old[i])) {
			for (size_t k = 0; k < old[i].nfd; k++)
				ioctl(old[i].fd[k], PERF_EVENT_IOC_DISABLE, 0);
			ST_GROW(ps->threads, ps->cap, ps->nthreads + 1);
			ps->threads[ps->nthreads++] = old[i];
			continue;
		}
		forget_ids(ps, &old[i]);
		close_thread(&old[i]);
	}
	free(old);
	free(tids);
}

/*
 * Applies a period asked for (the UI's [ and ]) to every sampling event:
 * by reopening them where they are inherited (above), else with the
 * kernel's PERF_EVENT_IOC_PERIOD, which sets the period or the frequency.
 * Threads born later open with it.
 */
static void apply_period(struct perf_source *ps)
{
	size_t g = group_size(ps);
	uint64_t v;
	int r;
	char byte;

	while (read(ps->wake[0], &byte, 1) == 1)
		;
	if (!atomic_exchange(&ps->change, false))
		return;
	v = atomic_load(&ps->want_value);
	r = atomic_load(&ps->want_random);
	if (ps->cfg.freq)
		ps->cfg.freq = v;
	else
		ps->cfg.period = v;
	if (r >= 0 && !ps->cfg.freq)
		ps->cfg.randomize = r;
	if (ps->inherit) {
		reopen_threads(ps);
		return;
	}
	for (size_t i = 0; i < ps->nthreads; i++) {
		const struct perf_thread *t = &ps->threads[i];

		for (size_t k = 0; k < t->nfd; k += g) {
			size_t e = ps->cfg.separate ? k % ps->cfg.nevents : 0;
			uint64_t p = ioctl_period(ps, e);

			if (!is_offcpu(&ps->cfg, e))
				ioctl(t->fd[k], PERF_EVENT_IOC_PERIOD, &p);
		}
	}
}

static int perf_set_period(struct st_source *s, uint64_t value, int randomize,
			   char *why, size_t len)
{
	struct perf_source *ps = (struct perf_source *)s;
	char *max = st_read_file("/proc/sys/kernel/perf_event_max_sample_rate", NULL);
	uint64_t limit = max ? strtoull(max, NULL, 10) : 0;

	free(max);
	if (value == 0) {
		snprintf(why, len, "a period of 0 would sample nothing");
		return -ERANGE;
	}
	if (ps->by_freq && limit && value > limit) {
		snprintf(why, len, "%llu Hz is over the kernel's limit of %llu "
			 "(kernel.perf_event_max_sample_rate)",
			 (unsigned long long)value, (unsigned long long)limit);
		return -ERANGE;
	}
	if (value > (1ull << 62)) {
		snprintf(why, len, "a period of %llu is too long", (unsigned long long)value);
		return -ERANGE;
	}
	if (ps->cfg.ibs && !ps->by_freq) {
		bool clamped;
		uint64_t got = ibs_period_clamp(value, &clamped);

		if (clamped)
			snprintf(why, len, "IBS takes %llu, not %llu (at least 144, in steps of 16)",
				 (unsigned long long)got, (unsigned long long)value);
		value = got;
	}
	atomic_store(&ps->want_value, value);
	atomic_store(&ps->want_random, randomize);
	atomic_store(&ps->change, true);
	/* Said at once, so that a second key press starts from this one. */
	pthread_mutex_lock(&ps->lock);
	ps->info.period.value = value;
	ps->info.period_asked_ns = st_now_ns();
	if (randomize >= 0 && !ps->by_freq)
		ps->info.period.randomized = randomize;
	pthread_mutex_unlock(&ps->lock);
	/* The sampler sleeps in poll(): a byte wakes it. */
	if (write(ps->wake[1], "p", 1) < 0 && errno != EAGAIN)
		return -errno;
	return 0;
}

/* Records up to t are all pushed (the reorder flushed them). */
static void said_complete(struct perf_source *ps, uint64_t t)
{
	pthread_mutex_lock(&ps->lock);
	ps->info.complete_ns = t;
	pthread_mutex_unlock(&ps->lock);
}

static long drain_rings(struct perf_source *ps)
{
	size_t page = (size_t)getpagesize();
	uint64_t pass = st_now_ns();	/* perf stamps records with CLOCK_MONOTONIC too */
	long total = 0;

	for (size_t k = 0; k < ps->nrings; k++) {
		struct perf_ring *r = &ps->rings[k];
		long n;

		if (!r->base)
			continue;
		n = perf_mmap_drain(r->base, (unsigned char *)r->base + page,
				    ps->pages * page, ps->scratch, on_record, ps);
		if (n > 0)
			total += n;
	}
	for (size_t k = 0; ps->walked && k < ps->nrings; k++) {
		struct perf_ring *r = &ps->walked[k];
		long n;

		if (!r->base)
			continue;
		/* Its own size: the sample rings' grows with their copies. */
		n = perf_mmap_drain(r->base, (unsigned char *)r->base + page,
				    r->map_size - page, ps->scratch, on_walked, ps);
		if (n > 0)
			total += n;
	}
	reorder_flush(&ps->order, ps->prev_pass, push_record, ps);
	offcpu_pass(ps, ps->prev_pass, OFFCPU_SPLIT_NS);
	said_complete(ps, ps->prev_pass);
	ps->prev_pass = pass;
	/* Each redraw is an IPI to the target's CPU: ten a second decorrelate as well. */
	if (total > 0 && ps->cfg.randomize && pass - ps->last_vary >= CHECK_NS) {
		vary_periods(ps);
		ps->last_vary = pass;
	}
	return total;
}

static void mark_finished(struct perf_source *ps, const char *reason)
{
	pthread_mutex_lock(&ps->lock);
	ps->info.finished = true;
	snprintf(ps->info.finish_reason, sizeof(ps->info.finish_reason), "%s",
		 reason);
	pthread_mutex_unlock(&ps->lock);
}

/* The copies' size from now on, as the unwinder's growth sees it. */
static void copy_size_set(struct perf_source *ps)
{
	ps->size_set_ns = st_now_ns();
	ps->copied_at_size = atomic_load_explicit(&ps->stack_copied, memory_order_relaxed);
	if (ps->cfg.stack_needs && ps->cfg.stack_copy)
		stack_needs_copy_is(ps->cfg.stack_needs, ps->cfg.stack_copy, false);
}

/*
 * The events opened again on every thread known at the present layout
 * (a stack copy asked for, or grown): the old ones are switched off and
 * what they wrote is read with the old layout; the rings are made again
 * at the copy's size, as a period change does.
 */
static void remake_events(struct perf_source *ps, bool callchain, unsigned stack_copy)
{
	for (size_t i = 0; i < ps->nthreads; i++)
		for (size_t k = 0; k < ps->threads[i].nfd; k++)
			ioctl(ps->threads[i].fd[k], PERF_EVENT_IOC_DISABLE, 0);
	drain_rings(ps);
	ps->cfg.callchain = callchain;
	ps->cfg.stack_copy = stack_copy;
	chain_layout(ps);
	ps->switches_decided = false;
	/* No ring is kept: the events that held them close below. */
	for (size_t k = 0; k < ps->nrings; k++) {
		if (ps->rings[k].base)
			munmap(ps->rings[k].base, ps->rings[k].map_size);
		ps->rings[k].base = NULL;
		ps->rings[k].fd = -1;
	}
	if (ps->cfg.scope == PERF_SCOPE_PROCESSES || ps->cfg.scope == PERF_SCOPE_THREADS) {
		reopen_threads(ps);
	} else {
		/* Every task on each CPU: one set of events, opened again. */
		for (size_t i = 0; i < ps->nthreads; i++) {
			forget_ids(ps, &ps->threads[i]);
			close_thread(&ps->threads[i]);
		}
		ps->nthreads = 0;
		if (open_thread(ps, -1) == 0)
			enable_thread(ps, &ps->threads[0]);
	}
	pthread_mutex_lock(&ps->lock);
	ps->info.stack_copy = ps->nthreads ? ps->cfg.stack_copy : 0;
	pthread_mutex_unlock(&ps->lock);
	copy_size_set(ps);
}

/* --call-graph auto asked for while sampling (the UI's U): every sample carries a copy. */
static void apply_unwind(struct perf_source *ps)
{
	if (atomic_exchange(&ps->unwind_change, false))
		remake_events(ps, true, atomic_load(&ps->want_stack));
}

/*
 * The unwinder found a quarter of its walks running off their copies'
 * end: copies of the size it asks for (stack_needs.h), at most twice in
 * a session (8 KiB to 32 KiB).  Each thread's copies are still cut to
 * what its walks read before they are passed on.
 */
static void apply_copy_growth(struct perf_source *ps)
{
	uint64_t now, copied, rate;
	uint32_t want;

	if (!ps->cfg.stack_copy || !ps->cfg.stack_needs || ps->cfg.ibs || ps->copy_held)
		return;
	want = stack_needs_copy_wanted(ps->cfg.stack_needs);
	if (want <= ps->cfg.stack_copy)
		return;
	/* What copies move a second since the size was set, at the size asked for. */
	now = st_now_ns();
	copied = atomic_load_explicit(&ps->stack_copied, memory_order_relaxed) - ps->copied_at_size;
	rate = now > ps->size_set_ns ? copied * 1000000000ull / (now - ps->size_set_ns) : 0;
	if (rate / ps->cfg.stack_copy * want > STACK_COPY_BUDGET) {
		ps->copy_held = true;
		stack_needs_copy_is(ps->cfg.stack_needs, ps->cfg.stack_copy, true);
		return;
	}
	remake_events(ps, ps->cfg.callchain, want);
}

static void describe(struct perf_source *ps);

/*
 * The UI's W: sched_switch from now on, beside the events sampled.  What
 * the events wrote is read with the old layout first; then every event
 * is opened again, each on its own, as a period change opens them.
 */
static void apply_offcpu(struct perf_source *ps)
{
	char why[320];

	if (!atomic_exchange(&ps->offcpu_change, false))
		return;
	for (size_t i = 0; i < ps->nthreads; i++)
		for (size_t k = 0; k < ps->threads[i].nfd; k++)
			ioctl(ps->threads[i].fd[k], PERF_EVENT_IOC_DISABLE, 0);
	drain_rings(ps);
	if (append_offcpu(&ps->cfg, &ps->want_tp, why, sizeof(why)) < 0)
		return;		/* checked when asked: not reached */
	separate_layout(ps);
	/* Said before the first sample of the new event is pushed (session.c's take). */
	pthread_mutex_lock(&ps->lock);
	describe(ps);
	pthread_mutex_unlock(&ps->lock);
	remake_events(ps, ps->cfg.callchain, ps->cfg.stack_copy);
	waits_before(ps);
}

static int perf_set_offcpu(struct st_source *s, char *why, size_t len)
{
	struct perf_source *ps = (struct perf_source *)s;
	int err;

	/* ibs, separate and nevents change only when this asks: read here safely. */
	if (ps->cfg.ibs) {
		snprintf(why, len, "IBS samples are not switches: start without --ibs");
		return -ENOTSUP;
	}
	if (atomic_exchange(&ps->offcpu_asked, true)) {
		snprintf(why, len, "off-CPU samples are taken already");
		return -EALREADY;
	}
	if (offcpu_room(&ps->cfg, why, len) < 0) {
		atomic_store(&ps->offcpu_asked, false);
		return -ENOTSUP;
	}
	err = offcpu_tracepoint_find(NULL, &ps->want_tp, why, len);
	if (err < 0) {
		atomic_store(&ps->offcpu_asked, false);
		return err;
	}
	atomic_store(&ps->offcpu_change, true);
	if (write(ps->wake[1], "w", 1) < 0 && errno != EAGAIN)
		return -errno;
	return 0;
}

static int perf_set_unwind(struct st_source *s, unsigned stack_copy, char *why, size_t len)
{
	struct perf_source *ps = (struct perf_source *)s;

	if (ps->cfg.ibs) {
		snprintf(why, len, "IBS samples here carry no stack copy");
		return -ENOTSUP;
	}
	if (ps->cfg.stack_copy) {
		snprintf(why, len, "samples carry a stack copy already");
		return -EALREADY;
	}
	atomic_store(&ps->want_stack, stack_copy);
	atomic_store(&ps->unwind_change, true);
	if (write(ps->wake[1], "u", 1) < 0 && errno != EAGAIN)
		return -errno;
	return 0;
}

static bool hung_up(const struct pollfd *pfd, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (pfd[k].revents & (POLLHUP | POLLERR))
			return true;
	return false;
}

/* Over ST_COPIES_FLOW_BYTES a second of stack copies since the last look. */
static bool copies_flow(struct perf_source *ps, uint64_t *copied, uint64_t *at, uint64_t now)
{
	uint64_t bytes = atomic_load_explicit(&ps->stack_copied, memory_order_relaxed);
	bool flow = now > *at && (bytes - *copied) * 1000000000u / (now - *at) > ST_COPIES_FLOW_BYTES;

	*copied = bytes;
	*at = now;
	return flow;
}

static void *sampler_main(void *arg)
{
	struct perf_source *ps = arg;
	struct pollfd *pfd = st_xcalloc(2 * ps->nrings + 1, sizeof(*pfd));
	char reason[128] = "";
	uint64_t copied = 0, copied_at = st_now_ns();
	int wait = 100;

	/* A command's threads start under sampling: nothing waits from before. */
	if (!ps->cfg.launched)
		waits_before(ps);
	while (!source_thread_stopping(&ps->th)) {
		size_t n = 0;
		uint64_t now;

		for (size_t k = 0; k < ps->nrings; k++)
			if (ps->rings[k].base)
				pfd[n++] = (struct pollfd){ .fd = ps->rings[k].fd,
							    .events = POLLIN };
		for (size_t k = 0; ps->walked && k < ps->nrings; k++)
			if (ps->walked[k].base)
				pfd[n++] = (struct pollfd){ .fd = ps->walked[k].fd,
							    .events = POLLIN };
		pfd[n] = (struct pollfd){ .fd = ps->wake[0], .events = POLLIN };
		if (poll(pfd, n + 1, wait) < 0 && errno != EINTR)
			break;
		apply_period(ps);
		apply_unwind(ps);
		apply_offcpu(ps);
		apply_copy_growth(ps);
		drain_rings(ps);
		now = st_now_ns();
		/*
		 * While stack copies flow (samples the kernel's walker let
		 * out: a program it was not yet taught), 100 ms at most: each
		 * pass teaches it.  Else poll_ms: a batch session's 100 ms
		 * passes were ten wake-ups a second where perf record waits
		 * for its buffers to fill.
		 */
		wait = ps->cfg.poll_ms ? ps->cfg.poll_ms : 100;
		if (copies_flow(ps, &copied, &copied_at, now) && wait > 100)
			wait = 100;
		/*
		 * Whether the targets went: at once when an event says so (POLLHUP,
		 * the task exited), else ten times a second, not at every drain.
		 */
		if ((hung_up(pfd, n) || now - ps->last_alive >= CHECK_NS) &&
		    targets_gone(ps, reason, sizeof(reason))) {
			drain_rings(ps);	/* what they wrote before they went */
			break;
		}
		if (now - ps->last_alive >= CHECK_NS)
			ps->last_alive = now;
		if (now - ps->last_rescan > RESCAN_NS) {
			rescan_threads(ps, true);
			ps->last_rescan = now;
		}
	}
	if (reason[0]) {
		/* The target is gone: nothing more comes; the rest, in order. */
		reorder_flush(&ps->order, UINT64_MAX, push_record, ps);
		said_complete(ps, UINT64_MAX);
		mark_finished(ps, reason);
	}
	free(pfd);
	return NULL;
}

/*
 * Whose wakeups the kernel sends from the start (--off-cpu's wakers): the
 * processes sampled, and those they fork where children are followed.
 */
static void watch_targets(struct perf_source *ps)
{
	pthread_mutex_lock(&ps->lock);
	ps->watching = ps->info.offcpu_wakers;
	pthread_mutex_unlock(&ps->lock);
	if (!ps->watching)
		return;
	if (ps->cfg.scope == PERF_SCOPE_SYSTEM) {
		kernel_walk_watch_all(ps->cfg.kernel_walk);
		return;
	}
	for (size_t i = 0; i < ps->cfg.npids; i++)
		kernel_walk_watch(ps->cfg.kernel_walk, ps->cfg.scope == PERF_SCOPE_THREADS
				  ? target_thread_process(ps->cfg.pids[i]) : ps->cfg.pids[i], true);
}

static int perf_start(struct st_source *s)
{
	struct perf_source *ps = (struct perf_source *)s;

	watch_targets(ps);
	ps->last_rescan = st_now_ns();
	copy_size_set(ps);
	/* Per-CPU events cannot wait for the target's exec: on at once. */
	if (!ps->cfg.launched || ps->cfg.ibs_per_cpu)
		for (size_t i = 0; i < ps->nthreads; i++)
			enable_thread(ps, &ps->threads[i]);
	return source_thread_start(&ps->th, sampler_main, ps, "sampler");
}

static void perf_stop(struct st_source *s)
{
	struct perf_source *ps = (struct perf_source *)s;

	if (!ps->th.running)
		return;
	source_thread_stop(&ps->th, ps->wake[1]);
	/* What the kernel buffered after the last drain still counts. */
	drain_rings(ps);
	reorder_flush(&ps->order, UINT64_MAX, push_record, ps);
	/* Threads blocked as sampling stops: their waits so far. */
	offcpu_pass(ps, st_now_ns(), 0);
	said_complete(ps, UINT64_MAX);
}

static void perf_info(struct st_source *s, struct st_source_info *out)
{
	struct perf_source *ps = (struct perf_source *)s;

	pthread_mutex_lock(&ps->lock);
	*out = ps->info;
	pthread_mutex_unlock(&ps->lock);
	out->period_seen = atomic_load_explicit(&ps->period_seen, memory_order_relaxed);
	out->stack_copied = atomic_load_explicit(&ps->stack_copied, memory_order_relaxed);
	out->stack_kept = atomic_load_explicit(&ps->stack_kept, memory_order_relaxed);
	/* A kernel-kept frequency varies a counting event's period: nothing to check. */
	if (!ps->by_freq)
		out->period_expected = out->period.value;
	else if (is_clock(&ps->cfg.events[0].attr) && out->period.value)
		out->period_expected = 1000000000u / out->period.value;
	else
		out->period_expected = 0;
}

static void perf_destroy(struct st_source *s)
{
	struct perf_source *ps = (struct perf_source *)s;

	perf_stop(s);
	for (size_t k = 0; k < ps->nrings; k++)
		if (ps->rings[k].base)
			munmap(ps->rings[k].base, ps->rings[k].map_size);
	for (size_t k = 0; ps->walked && k < ps->nrings; k++)
		if (ps->walked[k].base) {
			munmap(ps->walked[k].base, ps->walked[k].map_size);
			close(ps->walked[k].fd);
		}
	free(ps->walked);
	for (size_t i = 0; i < ps->nthreads; i++)
		close_thread(&ps->threads[i]);
	free(ps->threads);
	free(ps->rings);
	reorder_free(&ps->order);
	offcpu_pairs_free(&ps->pairs);
	stack_bases_free(&ps->stacks);
	{
		struct tid_state *t, *next;

		HASH_ITER(hh, ps->known, t, next) {
			HASH_DEL(ps->known, t);
			free(t);
		}
	}
	{
		struct event_id *e, *next;

		HASH_ITER(hh, ps->ids, e, next) {
			HASH_DEL(ps->ids, e);
			free(e);
		}
	}
	close(ps->wake[0]);
	close(ps->wake[1]);
	pthread_mutex_destroy(&ps->lock);
	free(ps);
}

/*
 * Opens every thread of every target process (-p, -u), or the threads
 * named (-t).  A thread or process that ended meanwhile is no error, as
 * long as one is left.
 */
static int open_targets(struct perf_source *ps)
{
	int err = 0;

	for (size_t p = 0; p < ps->cfg.npids && !err; p++) {
		pid_t one = ps->cfg.pids[p], *tids = &one;
		size_t n = 1;

		if (ps->cfg.scope == PERF_SCOPE_PROCESSES &&
		    target_list_threads(one, &tids, &n) < 0)
			continue;
		for (size_t i = 0; i < n; i++) {
			int e = ps->nthreads ? open_thread(ps, tids[i])
					     : open_first(ps, tids[i]);

			if (e && e != -ESRCH) {
				err = e;
				break;
			}
		}
		if (tids != &one)
			free(tids);
	}
	if (!err && ps->nthreads == 0)
		err = -ESRCH;
	return err;
}

static const struct st_source_ops perf_ops = {
	.start = perf_start,
	.stop = perf_stop,
	.info = perf_info,
	.destroy = perf_destroy,
	.set_period = perf_set_period,
	.set_unwind = perf_set_unwind,
	.set_offcpu = perf_set_offcpu,
};

static void describe(struct perf_source *ps)
{
	struct st_source_info *in = &ps->info;
	size_t len = 0;

	in->kind = ps->cfg.ibs ? ST_SOURCE_IBS : ST_SOURCE_PERF;
	in->ipc_cycles = in->ipc_instructions = -1;
	for (size_t i = 0; i < ps->cfg.nevents; i++) {
		const struct st_event *e = &ps->cfg.events[i];

		len += (size_t)snprintf(in->events + len, sizeof(in->events) - len,
					"%s%s", i ? "," : "", e->name);
		if (len >= sizeof(in->events))
			len = sizeof(in->events) - 1;
		if (ps->cfg.separate) {
			snprintf(in->sampled[i], sizeof(in->sampled[i]), "%s", e->name);
		} else if (ps->cfg.nevents > 1) {
			snprintf(in->counters[i], sizeof(in->counters[i]), "%s", e->name);
			if (event_is_cycles(&e->attr))
				in->ipc_cycles = (int)i;
			if (event_is_instructions(&e->attr))
				in->ipc_instructions = (int)i;
		}
	}
	in->ncounters = ps->cfg.nevents > 1 && !ps->cfg.separate ? (int)ps->cfg.nevents : 0;
	in->nsampled = ps->cfg.separate ? (int)ps->cfg.nevents : 0;
	if (ps->cfg.freq)
		in->period = (struct st_period){ ps->cfg.freq, ST_PERIOD_HZ, false };
	else
		in->period = (struct st_period){
			ps->cfg.period,
			is_clock(&ps->cfg.events[0].attr) ? ST_PERIOD_NS : ST_PERIOD_EVENTS,
			ps->cfg.randomize };
	in->stack_copy = ps->cfg.stack_copy;
	in->kernel_excluded = ps->exclude_kernel;
	snprintf(in->note, sizeof(in->note), "%s", ps->cfg.note);
	if (ps->exclude_kernel) {
		size_t l = strlen(in->note);

		snprintf(in->note + l, sizeof(in->note) - l, "%s%s", l ? "; " : "",
			 "kernel samples excluded (perf_event_paranoid)");
	}
}

struct st_source *perf_source_create(const struct perf_source_config *cfg,
				     struct ring *ring, int *status)
{
	struct perf_source *ps = st_xcalloc(1, sizeof(*ps));
	int err = 0;

	ps->base.ops = &perf_ops;
	ps->base.ring = ring;
	ps->cfg = *cfg;
	ps->by_freq = cfg->freq != 0;
	atomic_init(&ps->want_random, -1);
	atomic_init(&ps->offcpu_asked, cfg->offcpu);
	ps->pages = RING_PAGES;
	/* perf's -t and -a do not inherit: threads are named, CPUs cover all. */
	ps->inherit = cfg->scope == PERF_SCOPE_PROCESSES && !cfg->ibs_per_cpu;
	ps->rng = st_now_ns() | 1;
	ps->layout.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
		PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
	chain_layout(ps);
	if (cfg->separate) {
		separate_layout(ps);
	} else if (cfg->nevents > 1) {
		ps->layout.sample_type |= PERF_SAMPLE_READ;
		ps->layout.read_format = PERF_FORMAT_GROUP |
			PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	}
	if (cfg->ibs) {
		ps->layout.sample_type |= PERF_SAMPLE_RAW | PERF_SAMPLE_CPU;
		ps->layout.ibs = true;
		ps->layout.ibs_kind = cfg->ibs_kind;
		ps->layout.family = cfg->family;
		ps->layout.model = cfg->model;
	}
	ps->layout.sample_id_all = 1;
	pthread_mutex_init(&ps->lock, NULL);
	ps->nrings = make_rings(&cfg->cpus, &ps->rings);
	if (pipe2(ps->wake, O_CLOEXEC | O_NONBLOCK) < 0) {
		*status = -errno;
		st_error("cannot create a pipe: %s", strerror(-*status));
		free(ps);
		return NULL;
	}
	if (cfg->scope == PERF_SCOPE_SYSTEM || cfg->ibs_per_cpu) {
		/* pid -1: every task on each CPU. */
		err = open_first(ps, -1);
	} else if (cfg->launched) {
		/* One thread, waiting to exec: its children inherit. */
		err = open_first(ps, cfg->pids[0]);
	} else {
		err = open_targets(ps);
	}
	if (err) {
		*status = report_open_error(ps, -err);
		perf_destroy(&ps->base);
		return NULL;
	}
	describe(ps);
	return &ps->base;
}

struct st_source *perf_sideband_create(const struct perf_source_config *cfg,
				       struct ring *ring, int *status)
{
	struct perf_source_config *sb = st_xmalloc(sizeof(*sb));
	struct st_source *s;

	*sb = *cfg;
	memset(sb->events, 0, sizeof(sb->events));
	snprintf(sb->events[0].name, sizeof(sb->events[0].name), "dummy");
	sb->events[0].attr.type = PERF_TYPE_SOFTWARE;
	sb->events[0].attr.config = PERF_COUNT_SW_DUMMY;
	sb->nevents = 1;
	sb->separate = false;
	sb->freq = 0;
	sb->period = 1;		/* a dummy event never counts: no sample comes */
	sb->randomize = false;
	sb->callchain = false;
	sb->stack_copy = 0;
	sb->ibs = false;
	sb->ibs_per_cpu = false;
	sb->ibs_aggregate = false;
	/* Its reader merges samples by its complete_ns: keep that recent. */
	sb->poll_ms = 10;
	s = perf_source_create(sb, ring, status);
	free(sb);
	return s;
}
