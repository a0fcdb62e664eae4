/*
 * kmod_source.h - --ibs through shimtop's own IBS module (src/kmod/) when
 * its device exists: the target's threads registered with the module, its
 * per-CPU rings read from their mapping, each op sample pushed as the
 * perf ibs source pushes it (st_ibs), each aggregated count as a
 * weighted sample.  The module gives no map events: the session's maps
 * of the target at the start are what symbolizes its samples.
 */
#ifndef SHIMTOP_KMOD_SOURCE_H
#define SHIMTOP_KMOD_SOURCE_H

#include "sampler/perf_source.h"
#include "sampler/source.h"

#include <stdbool.h>

/* Whether the module's device is there (then --ibs uses it). */
bool kmod_source_available(void);

/*
 * A source over the module for cfg's targets (cfg as ibs_source_configure
 * left it: period, family, model).  NULL with *status -errno after one
 * line saying why (no permission, a selftest module, a version mismatch).
 */
struct st_source *kmod_source_create(const struct perf_source_config *cfg,
				     struct ring *ring, int *status);

#endif
