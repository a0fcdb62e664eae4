/*
 * corewide.h - whether the observer can read the target's hardware
 * counters the SHIM way (SHIM, ISCA 2015, §3): rdpmc on the SMT sibling of the
 * target's CPU, counting core-wide (Intel's AnyThread bit) and
 * subtracting its own count, app = core - self.  That needs a hardware
 * PMU, rdpmc allowed from user space, an Intel CPU whose architectural
 * perfmon version is below 5 and does not deprecate AnyThread (AMD has
 * no equivalent), and an SMT sibling for the observer.  Where any
 * condition fails, IPC comes from perf group sampling instead.
 *
 * The counters belong to the observer's thread (rdpmc reads the CPU it
 * runs on), so they count while it runs: with periods long enough to
 * sleep (over 200 us), the core's IPC covers the spinning part of each.
 */
#ifndef SHIMTOP_COREWIDE_H
#define SHIMTOP_COREWIDE_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sampler/rdpmc.h"

struct cpu_facts {
	char vendor[13];		/* "GenuineIntel", "AuthenticAMD" */
	unsigned perfmon_version;	/* CPUID 0AH EAX[7:0]; 0 if none */
	bool anythread_deprecated;	/* CPUID 0AH EDX[15] */
	bool pmu;			/* /sys/bus/event_source/devices/cpu */
	int rdpmc;			/* .../cpu/rdpmc: 0 never, 1 own, 2 any */
	bool smt_sibling;		/* the observer shares the target's core */
	bool hypervisor;		/* CPUID 01H ECX[31]: a guest */
};

/* This machine's facts (CPUID, sysfs under sysroot; "" for the real one). */
void cpu_facts_read(struct cpu_facts *f, const char *sysroot, bool smt_sibling);

/* true if core-wide counting works; else false and why, in one line. */
bool corewide_supported(const struct cpu_facts *f, char *why, size_t len);

/* ---- reading them (corewide_counters.c) ---- */

enum { COREWIDE_CYCLES, COREWIDE_INSTRUCTIONS, COREWIDE_EVENTS };
enum { COREWIDE_CORE, COREWIDE_SELF };

struct corewide {
	/* [COREWIDE_CORE]: both hyperthreads; [COREWIDE_SELF]: the observer */
	int fd[2][COREWIDE_EVENTS];
	const volatile struct perf_event_mmap_page *page[2][COREWIDE_EVENTS];
	rdpmc_fn rd;			/* rdpmc_instruction, or a test's */
	void *rd_arg;
	uint64_t slow_reads;		/* read() because a counter was off its
					   register: a system call in the loop */
};

/*
 * The libpfm4 name of an event counted core-wide (AnyThread, ":t") or
 * for the observer alone.
 */
const char *corewide_event_name(unsigned event, unsigned who);

/*
 * Opens cycles and instructions, core-wide and the observer's own, on
 * the calling thread (the pinned observer: rdpmc reads the counters of
 * the CPU it runs on) and maps their pages.  0, or -EOPNOTSUPP with why
 * in one line naming the failing step.
 */
int corewide_open(struct corewide *cw, char *why, size_t len);

/*
 * app = core - self for cycles and instructions: what the target's
 * hyperthread did, without the observer's own share (SHIM, ISCA 2015, §3),
 * into out[0..1]; self, the observer's own, into out[2..3] (what the
 * observer-effect display of §4.3 needs beside them).
 */
void corewide_read(struct corewide *cw, uint64_t out[2 * COREWIDE_EVENTS]);

void corewide_close(struct corewide *cw);

/* Opens a corewide; the observer calls it on its own thread. */
typedef int (*corewide_open_fn)(struct corewide *cw, char *why, size_t len);

#endif
