/*
 * observer.h - the SHIM observer (SHIM, ISCA 2015, §3, Fig. 2): one thread pinned to a
 * CPU of its own that busy-reads the target's software signals between
 * two rdtscp reads, as fast as it can or throttled to a period in TSC
 * cycles, and ships the raw samples in batches through its ring.  The
 * consumer does the analysis (DTE, histograms, per-tag rates: obs_model).
 *
 * Two ways to read signals: the shared-memory slots of <shimtop/signals.h>
 * (plain loads, no system call in the loop), or global variables of an
 * unmodified program (--signal) with one process_vm_readv per sample.
 */
#ifndef SHIMTOP_OBSERVER_H
#define SHIMTOP_OBSERVER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "sampler/corewide.h"
#include "sampler/observer_cpu.h"
#include "sampler/variable_signal.h"
#include "sampler/source.h"

struct observer_config {
	pid_t pid;
	bool launched;		/* the segment appears after exec: wait for it */
	struct observer_placement place;
	bool pin_target;
	uint64_t period;	/* TSC cycles; 0: as fast as possible */
	struct variable_signal vars[ST_MAX_SIGNALS];
	size_t nvars;		/* --signal mode when > 0 */
	double wait_seconds;	/* how long a launched target may take */
	/*
	 * Where core-wide counting is supported: opens the counters on the
	 * observer's thread (corewide_open; tests pass their own).  NULL:
	 * no hardware counters in the samples.
	 */
	corewide_open_fn open_counters;
	char no_counters[256];	/* otherwise: why not, for the note */
};

/*
 * Checks the options against the machine and the target: CPUs, and for
 * an attached target its segment or variables.  Returns 0, or -errno
 * (-EINVAL: a bad option) after a one-line error.
 */
struct observer_request {
	int cpu;			/* --observer-cpu; -1: choose */
	bool pin_target;
	uint64_t period;		/* TSC cycles between samples; 0: no pause */
	const char *const *signals;	/* --signal NAME[:tag] */
	size_t nsignals;
};

int observer_configure(const struct observer_request *rq, pid_t pid, bool launched,
		       struct observer_config *cfg);

/* The source; start() pins the thread and begins sampling. */
struct st_source *observer_source_create(const struct observer_config *cfg,
					 struct ring *ring, int *status);

/* Changes the throttle while running (the UI's key); 0 = no pause. */
void observer_set_period(struct st_source *s, uint64_t cycles);

/* Samples taken so far (shipped or dropped by the ring). */
uint64_t observer_samples(struct st_source *s);

#endif
