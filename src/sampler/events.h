/*
 * events.h - event names to perf_event_attr, through libpfm4, and
 * detection of what the machine can count.
 */
#ifndef SHIMTOP_EVENTS_H
#define SHIMTOP_EVENTS_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "ring/record.h"	/* ST_MAX_EVENTS, ST_MAX_SAMPLED: what a record file holds */

struct st_event {
	char name[64];
	struct perf_event_attr attr;
};

/* Whether a sampled event's samples are waits, by its name: offcpu-time, a recording's sched_switch. */
bool event_is_waits(const char *name);
/* Whether an event is cpu-clock or task-clock, by its name, with perf's terms or modifiers. */
bool event_is_clock(const char *name);
/* Whether a sampled event's periods are nanoseconds, by its name: the clocks, and waits. */
bool event_weighs_ns(const char *name);

/* Whether a hardware event is: it needs a PMU this machine may lack. */
bool event_is_hardware(const struct perf_event_attr *attr);

/*
 * Parses a comma-separated list.  On an unknown name prints a one-line
 * error with the closest names libpfm4 knows and returns -EINVAL.
 */
int events_parse(const char *list, struct st_event *out, size_t *n);	/* out[ST_MAX_SAMPLED] */

/*
 * Parses -e in perf's syntax: "a" one event; "{a,b}" a group (a samples,
 * b is counted with it: *grouped); "a,b" each samples on its own (up to
 * ST_MAX_SAMPLED).  Prints a one-line error and returns -EINVAL for
 * anything else (two groups, unbalanced braces).
 */
int events_parse_spec(const char *spec, struct st_event *out, size_t *n,
		      bool *grouped);

/*
 * Prints what -e accepts here (perf list's role): libpfm4's names for
 * every PMU this machine has, each marked by whether the kernel opens it.
 * Returns 0, or -ENOSYS if libpfm4 failed.
 */
int events_list(FILE *out);

/*
 * One libpfm4 event name (with modifiers, e.g. "UNHALTED_CORE_CYCLES:t")
 * to a perf attribute counting user and kernel; -EINVAL if libpfm4 does
 * not know it for this machine's PMU (-ENOSYS: libpfm4 failed).
 */
int event_encode(const char *name, struct perf_event_attr *attr);
/* The same through libpfm4 alone (tests compare the two). */
int event_encode_with_libpfm(const char *name, struct perf_event_attr *attr);

/* Up to `max` known names close to `name`, best first; returns how many. */
size_t events_suggest(const char *name, char out[][64], size_t max);

/*
 * Whether a hardware PMU counts here: the `cpu` (or hybrid) PMU exists
 * in sysfs and a cycles counter opens.  SHIMTOP_NO_PMU=1 says no, so the
 * fallback can be tested on real hardware.
 */
bool events_have_hardware_pmu(void);

/* Whether `name` names one of the counters IPC needs. */
bool event_is_cycles(const struct perf_event_attr *attr);
bool event_is_instructions(const struct perf_event_attr *attr);

int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
			int group_fd, unsigned long flags);

#endif
