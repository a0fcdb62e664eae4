/*
 * ibs_source.h - perf's ibs_op / ibs_fetch PMU as a sampling source.
 *
 * The events are the perf source's (perf_source.h) with an IBS PMU's
 * attributes: its type and format bits read from sysfs (ibs_probe.h),
 * PERF_SAMPLE_RAW for the registers, and the period IBS can take.  The
 * samples arrive as st_ibs records.  From Linux 6.2 IBS is a per-task
 * PMU; before, its events exist only per CPU, and the samples of other
 * processes are dropped as they are read.
 */
#ifndef SHIMTOP_IBS_SOURCE_H
#define SHIMTOP_IBS_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sampler/ibs_probe.h"
#include "sampler/perf_source.h"

/* IBS's op period floor and step (MaxCnt counts in 16s; Linux refuses less). */
#define IBS_MIN_PERIOD		0x90u
#define IBS_PERIOD_STEP		16u
/* ops: about 4 kHz per busy core at several billion ops a second */
#define IBS_DEFAULT_PERIOD	0x100000u

struct ibs_request {
	enum ibs_kind kind;
	uint64_t period;	/* -c; 0: the default */
	uint64_t freq;		/* -F; 0: a period */
	bool l3miss;		/* --ibs-l3miss: only ops that missed L3 */
	unsigned ldlat;		/* --ibs-ldlat: only loads slower than this; 0: all */
	bool randomize;
};

/*
 * The period IBS takes for `want`: at least IBS_MIN_PERIOD, a multiple
 * of IBS_PERIOD_STEP.  *clamped says whether it differs.
 */
uint64_t ibs_period_clamp(uint64_t want, bool *clamped);

/* Whether this kernel release ("6.1.0-28-amd64") has per-task IBS (6.2+). */
bool ibs_kernel_per_task(const char *release);

/*
 * Sets a format field (e.g. cnt_ctl, "config:19") in the attributes:
 * 0, or -ERANGE when value does not fit its bits or the PMU lacks it.
 */
int ibs_format_set(const struct ibs_format *f, uint64_t value, struct perf_event_attr *a);

/*
 * Fills the perf source's events and flags for IBS from what the probe
 * found (p, which must have passed ibs_probe_explain) and the kernel
 * release: 0, or -EINVAL with why in one line (an option the PMU does
 * not offer, a latency out of range).  cfg->note says how it samples.
 */
int ibs_source_configure(const struct ibs_probe *p, const struct ibs_request *rq,
			 const char *release, struct perf_source_config *cfg,
			 char *why, size_t len);

/*
 * Processes under proc ("/proc") other than self with a file descriptor
 * whose link reads `link` ("anon_inode:[perf_event]", "/dev/shimtop_ibs"),
 * as "perf (4242), ..." in out: who may hold IBS when the PMU (one event
 * per CPU) or shimtop's module (one holder) is busy.  Returns how many
 * (up to 4 named).
 */
size_t ibs_fd_holders(const char *proc, pid_t self, const char *link, char *out, size_t len);

#endif
