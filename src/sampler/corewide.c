/* corewide.c - detecting SHIM-style core-wide counting. */
#include "sampler/corewide.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

void cpu_facts_read(struct cpu_facts *f, const char *sysroot, bool smt_sibling)
{
	char path[512];
	FILE *fp;

	memset(f, 0, sizeof(*f));
	f->smt_sibling = smt_sibling;
#if defined(__x86_64__) || defined(__i386__)
	{
		unsigned a, b, c, d;

		if (__get_cpuid(0, &a, &b, &c, &d)) {
			memcpy(f->vendor, &b, 4);
			memcpy(f->vendor + 4, &d, 4);
			memcpy(f->vendor + 8, &c, 4);
			if (a >= 1) {
				unsigned a1, b1, c1, d1;

				__cpuid(1, a1, b1, c1, d1);
				f->hypervisor = c1 & (1u << 31);
			}
			if (a >= 0xa) {
				__cpuid(0xa, a, b, c, d);
				f->perfmon_version = a & 0xff;
				f->anythread_deprecated = d & (1u << 15);
			}
		}
	}
#endif
	snprintf(path, sizeof(path), "%s/sys/bus/event_source/devices/cpu", sysroot);
	f->pmu = access(path, F_OK) == 0;
	snprintf(path, sizeof(path), "%s/sys/bus/event_source/devices/cpu/rdpmc",
		 sysroot);
	fp = fopen(path, "r");
	if (fp) {
		if (fscanf(fp, "%d", &f->rdpmc) != 1)
			f->rdpmc = 0;
		fclose(fp);
	}
}

bool corewide_supported(const struct cpu_facts *f, char *why, size_t len)
{
	const char *no = NULL;

	if (!f->pmu)
		no = f->hypervisor ? "no hardware PMU (the hypervisor exposes none)" :
		     "no hardware PMU";
	else if (strcmp(f->vendor, "GenuineIntel") != 0)
		no = strcmp(f->vendor, "AuthenticAMD") == 0 ?
		     "AMD cores have no core-wide (AnyThread) counting" :
		     "core-wide counting is Intel's AnyThread bit, and this is not an Intel CPU";
	else if (f->perfmon_version < 3)
		no = "architectural perfmon is older than version 3 (no AnyThread)";
	else if (f->perfmon_version >= 5 || f->anythread_deprecated)
		no = "this Intel CPU deprecates AnyThread (perfmon v5 and later)";
	else if (f->rdpmc == 0)
		no = "rdpmc is disabled (/sys/bus/event_source/devices/cpu/rdpmc is 0)";
	else if (!f->smt_sibling)
		no = "the observer is not on an SMT sibling of the target's CPU";
	if (no)
		snprintf(why, len, "observer reads no hardware counters: %s; IPC "
			 "comes from perf group sampling", no);
	else
		snprintf(why, len, "core-wide counting is possible here (perfmon "
			 "v%u, SMT sibling)", f->perfmon_version);
	return no == NULL;
}
