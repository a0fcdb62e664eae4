/*
 * corewide.h - whether the observer can read the target's hardware
 * counters the SHIM way (000 §3): rdpmc on the SMT sibling of the
 * target's CPU, counting core-wide (Intel's AnyThread bit) and
 * subtracting its own count, app = core - self.  That needs a hardware
 * PMU, rdpmc allowed from user space, an Intel CPU whose architectural
 * perfmon version is below 5 and does not deprecate AnyThread (AMD has
 * no equivalent), and an SMT sibling for the observer.  Where any
 * condition fails, IPC comes from perf group sampling instead.
 */
#ifndef SHIMTOP_COREWIDE_H
#define SHIMTOP_COREWIDE_H

#include <stdbool.h>
#include <stddef.h>

struct cpu_facts {
	char vendor[13];		/* "GenuineIntel", "AuthenticAMD" */
	unsigned perfmon_version;	/* CPUID 0AH EAX[7:0]; 0 if none */
	bool anythread_deprecated;	/* CPUID 0AH EDX[15] */
	bool pmu;			/* /sys/bus/event_source/devices/cpu */
	int rdpmc;			/* .../cpu/rdpmc: 0 never, 1 own, 2 any */
	bool smt_sibling;		/* the observer shares the target's core */
};

/* This machine's facts (CPUID, sysfs under sysroot; "" for the real one). */
void cpu_facts_read(struct cpu_facts *f, const char *sysroot, bool smt_sibling);

/* true if core-wide counting works; else false and why, in one line. */
bool corewide_supported(const struct cpu_facts *f, char *why, size_t len);

#endif
