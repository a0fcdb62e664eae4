/*
 * observer_cpu.h - where the observer runs (SHIM, ISCA 2015, §3): on the SMT sibling
 * of the target's CPU when there is one, else on another core; never on
 * the only CPU the target may use.  Topology comes from sysfs, under a
 * root directory so tests can hand in a constructed machine.
 */
#ifndef SHIMTOP_OBSERVER_CPU_H
#define SHIMTOP_OBSERVER_CPU_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct observer_placement {
	int observer_cpu;
	int target_cpu;		/* the CPU paired with the observer */
	bool smt_sibling;	/* the two share a core */
};

/*
 * Chooses the observer's CPU for a target last seen on target_cpu and
 * allowed on *allowed.  requested is --observer-cpu, or -1.  Returns 0,
 * or -errno (-EINVAL: a bad --observer-cpu) with a one-line message
 * naming the problem and what to do.
 */
int observer_place(const char *sysroot, int target_cpu,
		   const cpu_set_t *allowed, int requested,
		   struct observer_placement *out, char *err, size_t errlen);

/* The CPU a task last ran on (/proc/PID/stat field 39), or -1. */
int task_last_cpu(pid_t tid);

/* Pins every thread of pid to cpu (--pin-target).  0, or -errno with err. */
int pin_target_threads(pid_t pid, int cpu, char *err, size_t errlen);

#endif
