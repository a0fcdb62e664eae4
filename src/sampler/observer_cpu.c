/* observer_cpu.c - choosing the observer's CPU from the topology. */
#include "sampler/observer_cpu.h"
#include "cpulist.h"
#include "sampler/target.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int first_in(const cpu_set_t *set, int skip)
{
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, set) && c != skip)
			return c;
	return -1;
}

int observer_place(const char *sysroot, int target_cpu,
		   const cpu_set_t *allowed, int requested,
		   struct observer_placement *out, char *err, size_t errlen)
{
	cpu_set_t online, siblings, both;
	char path[128];

	if (cpulist_read(sysroot, "/sys/devices/system/cpu/online", &online) < 0) {
		snprintf(err, errlen, "cannot read the online CPUs from "
			 "%s/sys/devices/system/cpu/online; is /sys mounted?", sysroot);
		return -ENOENT;
	}
	if (target_cpu < 0 || !CPU_ISSET(target_cpu, &online))
		target_cpu = first_in(allowed, -1);
	out->target_cpu = target_cpu;
	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list",
		 target_cpu);
	if (cpulist_read(sysroot, path, &siblings) < 0)
		CPU_ZERO(&siblings);
	if (requested >= 0) {
		if (requested >= CPU_SETSIZE || !CPU_ISSET(requested, &online)) {
			snprintf(err, errlen, "--observer-cpu %d: no such CPU is online "
				 "(online: see /sys/devices/system/cpu/online); choose "
				 "another", requested);
			return -EINVAL;
		}
		if (CPU_COUNT(allowed) == 1 && CPU_ISSET(requested, allowed)) {
			snprintf(err, errlen, "--observer-cpu %d is the only CPU the "
				 "target may run on; the observer would take its time: "
				 "choose another CPU", requested);
			return -EINVAL;
		}
		out->observer_cpu = requested;
		out->smt_sibling = requested != target_cpu &&
				   CPU_ISSET(requested, &siblings);
		if (requested == target_cpu) {
			/* Allowed elsewhere: the scheduler will move the target. */
			int other = first_in(allowed, requested);

			out->target_cpu = other >= 0 ? other : target_cpu;
		}
		return 0;
	}
	/* An online SMT sibling first (SHIM, ISCA 2015, §3), then any other online CPU. */
	CPU_AND(&both, &siblings, &online);
	out->observer_cpu = first_in(&both, target_cpu);
	out->smt_sibling = out->observer_cpu >= 0;
	if (out->observer_cpu < 0) {
		/* Prefer a CPU the target is not allowed on, then any other. */
		cpu_set_t spare;

		CPU_XOR(&spare, &online, allowed);
		CPU_AND(&spare, &spare, &online);
		out->observer_cpu = first_in(&spare, target_cpu);
		if (out->observer_cpu < 0)
			out->observer_cpu = first_in(&online, target_cpu);
	}
	if (out->observer_cpu < 0) {
		snprintf(err, errlen, "only one CPU is online: the observer needs "
			 "a CPU of its own; use perf sampling alone (drop --observe)");
		return -ENODEV;
	}
	if (CPU_COUNT(allowed) == 1 && CPU_ISSET(out->observer_cpu, allowed)) {
		snprintf(err, errlen, "CPU %d is the only CPU the target may run "
			 "on and no other is free for the observer", out->observer_cpu);
		return -ENODEV;
	}
	return 0;
}

int task_last_cpu(pid_t tid)
{
	return (int)st_proc_stat_field((int)tid, 39);
}

int pin_target_threads(pid_t pid, int cpu, char *err, size_t errlen)
{
	pid_t *tids;
	size_t n;
	cpu_set_t one;

	if (target_list_threads(pid, &tids, &n) < 0) {
		snprintf(err, errlen, "--pin-target: process %d is gone", (int)pid);
		return -ESRCH;
	}
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	for (size_t i = 0; i < n; i++) {
		if (sched_setaffinity(tids[i], sizeof(one), &one) < 0 &&
		    errno != ESRCH) {
			snprintf(err, errlen, "--pin-target: cannot pin thread %d to "
				 "CPU %d: %s", (int)tids[i], cpu, strerror(errno));
			free(tids);
			return -EPERM;
		}
	}
	free(tids);
	return 0;
}
