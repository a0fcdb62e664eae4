/*
 * kmod_source.h - --ibs through shimtop's own IBS module (src/kmod/) when
 * its device exists: the target's processes (or threads, -t) registered
 * with the module, its per-CPU rings read from their mapping, each op
 * sample pushed as the perf ibs source pushes it (st_ibs), each
 * aggregated count (--ibs-aggregate) as a weighted sample.  The module
 * gives samples only: perf's dummy event on the same targets gives the
 * rest (maps, comms, forks, exits), read into the same ring first, and
 * the processes the target forks are registered as they appear.
 */
#ifndef SHIMTOP_KMOD_SOURCE_H
#define SHIMTOP_KMOD_SOURCE_H

#include "kmod/uapi/shimtop_ibs.h"
#include "sampler/perf_source.h"
#include "sampler/source.h"

#include <stdbool.h>

/* Whether the module's device is there (then --ibs uses it), and SHIMTOP_NO_KMOD unset. */
bool kmod_source_available(void);

/*
 * Whether a side-band record (st_task) changes the module's targets:
 * with scope PERF_SCOPE_PROCESSES a new process (FORK, pid != ppid) is
 * added (*cmd SHIMTOP_IBS_IOC_ADD), an exiting one (EXIT, pid == tid)
 * removed; 1 and *cmd, *t filled, or 0.
 */
int kmod_source_follow(const void *rec, enum perf_scope scope, unsigned long *cmd,
		       struct shimtop_ibs_target *t);

/*
 * A source over the module for cfg's targets (cfg as ibs_source_configure
 * left it: period, family, model).  NULL with *status -errno after one
 * line saying why (no permission, a selftest module, a version mismatch).
 */
struct st_source *kmod_source_create(const struct perf_source_config *cfg,
				     struct ring *ring, int *status);

#endif
