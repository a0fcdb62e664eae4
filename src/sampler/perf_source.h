/*
 * perf_source.h - sampling with perf_event_open: one event group per
 * thread of the target, each with its own mmap ring, drained by one
 * sampler thread into a shimtop ring.
 */
#ifndef SHIMTOP_PERF_SOURCE_H
#define SHIMTOP_PERF_SOURCE_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "sampler/events.h"
#include "sampler/offcpu.h"
#include "sampler/target.h"
#include "sampler/source.h"

/* What the events are opened on. */
enum perf_scope {
	PERF_SCOPE_PROCESSES,	/* every thread of pids[], and their children */
	PERF_SCOPE_THREADS,	/* only the threads pids[] (-t) */
	PERF_SCOPE_SYSTEM,	/* every process: one group per CPU (-a) */
};

struct stack_needs;
struct kernel_walk;

struct perf_source_config {
	enum perf_scope scope;
	pid_t pids[ST_MAX_TARGETS];	/* processes or threads, by scope */
	size_t npids;
	bool launched;		/* pids[0] waits to exec: enable_on_exec */
	cpu_set_t cpus;		/* where to sample: the online CPUs, or -C's */
	struct st_event events[ST_MAX_SAMPLED];	/* a group's: ST_MAX_EVENTS */
	size_t nevents;
	bool separate;		/* -e a,b: each samples on its own, not as a group */
	char note[192];		/* shown in the header, e.g. the PMU fallback */
	uint64_t freq;		/* Hz, or 0 for a period */
	uint64_t period;
	bool randomize;
	bool callchain;
	unsigned stack_copy;	/* bytes of user stack per sample; 0: none */
	/* Each thread's stack top as walks need it: copies cut to it (NULL: whole). */
	struct stack_needs *stack_needs;
	/* Samples with a stack copy walked in the kernel first (NULL: never; not owned). */
	struct kernel_walk *kernel_walk;
	/* --ibs (ibs_source.h): events[0] is an IBS PMU's; samples are st_ibs. */
	bool ibs;
	uint8_t ibs_kind;	/* ST_IBS_OP_KIND or ST_IBS_FETCH_KIND */
	uint8_t family, model;	/* of this CPU, stamped on every sample */
	bool ibs_per_cpu;	/* before Linux 6.2: per-CPU events, other processes' dropped */
	bool ibs_swfilt;	/* the PMU filters kernel samples itself (swfilt) */
	bool ibs_aggregate;	/* --ibs-aggregate: counts per (thread, RIP), shimtop's module */
	int poll_ms;		/* longest wait between drains; 0: 100 ms */
	/* --off-cpu: events[nevents - 1] is sched_switch, its samples paired into waits. */
	bool offcpu;
	struct offcpu_tracepoint offcpu_tp;
};

/*
 * Chooses the events from the options: -e (a group, or events sampled
 * each on its own, at 4000 Hz unless -F or -c says), else {cycles, instructions}
 * with a hardware PMU, else cpu-clock (saying so), and the CPUs (-C,
 * checked against the online ones).  The caller fills scope and pids.
 * Returns 0, or -EINVAL after a one-line error.
 */
struct perf_source_request {
	const char *cpus;		/* -C as given; NULL: every online CPU */
	const char *events;		/* -e, perf's syntax; NULL: default */
	uint64_t freq;			/* -F, Hz; 0 if not given */
	uint64_t period;		/* -c; 0 if not given */
	bool randomize;			/* vary the period as DCPI does */
	bool callchain;			/* the kernel's frame-pointer chains */
	unsigned stack_copy;		/* bytes of user stack a sample copies */
	struct stack_needs *stack_needs;	/* where copies are cut to (not owned) */
	struct kernel_walk *kernel_walk;	/* the kernel's stack walker (not owned) */
	enum { PERF_IBS_NONE, PERF_IBS_OP, PERF_IBS_FETCH } ibs;	/* --ibs */
	bool ibs_l3miss;		/* --ibs-l3miss */
	unsigned ibs_ldlat;		/* --ibs-ldlat CYCLES; 0: none */
	bool ibs_aggregate;		/* --ibs-aggregate */
	bool off_cpu;			/* --off-cpu */
};

int perf_source_configure(const struct perf_source_request *o, bool launched,
			  struct perf_source_config *cfg);

/*
 * Opens the events on every thread now, so that errors (no permission,
 * no such process, unsupported event) are reported before any UI starts.
 * Returns NULL after printing a one-line error; *status gets -errno.
 */
struct st_source *perf_source_create(const struct perf_source_config *cfg,
				     struct ring *ring, int *status);

/*
 * perf's dummy event on cfg's targets (scope, pids, launched, CPUs; its
 * events are ignored): no samples, only the side band another source's
 * samples need (maps, also of libraries loaded later and of a launched
 * command after its exec; comms; forks; exits, which finish it as they
 * finish a perf source).  NULL as perf_source_create.
 */
struct st_source *perf_sideband_create(const struct perf_source_config *cfg,
				       struct ring *ring, int *status);

#endif
