/*
 * test_observer_cpu.c - where the observer goes, on constructed sysfs
 * trees (tests/fixtures/sys-*): the SMT sibling of the target's CPU when
 * there is one and it is online, else another core; refusals for a CPU
 * that does not exist, the target's only CPU, and a one-CPU machine.
 * Then whether core-wide counting works, for constructed CPUs: each
 * failing condition is named.
 */
#include "check.h"
#include "sampler/corewide.h"
#include "cpulist.h"
#include "sampler/observer_cpu.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char root[512];

static const char *machine(const char *name)
{
	snprintf(root, sizeof(root), "%s/fixtures/%s",
		 getenv("TESTS_DIR") ? getenv("TESTS_DIR") : "tests", name);
	return root;
}

static cpu_set_t cpus(const char *list)
{
	cpu_set_t s;

	cpulist_parse(list, &s);
	return s;
}

int main(void)
{
	struct observer_placement p;
	char err[256];
	cpu_set_t s, all8 = cpus("0-7"), two = cpus("0-1"), only1 = cpus("1");

	CHECK(cpulist_parse("0-3,8,10-11\n", &s) == 7);
	CHECK(CPU_ISSET(8, &s) && CPU_ISSET(11, &s) && !CPU_ISSET(9, &s));
	CHECK(cpulist_parse("3-1", &s) == -EINVAL);
	CHECK(cpulist_parse("x", &s) == -EINVAL);
	CHECK(cpulist_parse("1,,2", &s) == -EINVAL);
	CHECK(cpulist_parse("99999", &s) == -EINVAL);

	/* SMT: the sibling. */
	CHECK(observer_place(machine("sys-smt"), 0, &all8, -1, &p, err, sizeof(err)) == 0);
	CHECK(p.observer_cpu == 4 && p.target_cpu == 0 && p.smt_sibling);
	CHECK(observer_place(machine("sys-smt"), 6, &all8, -1, &p, err, sizeof(err)) == 0);
	CHECK(p.observer_cpu == 2 && p.smt_sibling);
	/* The sibling offline: another core, and not a sibling. */
	CHECK(observer_place(machine("sys-smt-offline"), 0, &all8, -1, &p, err,
			     sizeof(err)) == 0);
	CHECK(p.observer_cpu != 0 && p.observer_cpu != 4 && !p.smt_sibling);
	/* No SMT: a CPU the target may not use first, then any other. */
	CHECK(observer_place(machine("sys-2cpu"), 1, &two, -1, &p, err, sizeof(err)) == 0);
	CHECK(p.observer_cpu == 0 && p.target_cpu == 1 && !p.smt_sibling);
	CHECK(observer_place(machine("sys-2cpu"), 1, &only1, -1, &p, err, sizeof(err)) == 0);
	CHECK(p.observer_cpu == 0);
	/* Asked for explicitly. */
	CHECK(observer_place(machine("sys-smt"), 0, &all8, 5, &p, err, sizeof(err)) == 0);
	CHECK(p.observer_cpu == 5 && !p.smt_sibling);
	CHECK(observer_place(machine("sys-smt"), 1, &all8, 5, &p, err, sizeof(err)) == 0);
	CHECK(p.smt_sibling);
	/* On the target's own CPU, but the target may move: it is paired elsewhere. */
	CHECK(observer_place(machine("sys-2cpu"), 1, &two, 1, &p, err, sizeof(err)) == 0);
	CHECK(p.observer_cpu == 1 && p.target_cpu == 0);

	/* Refusals. */
	CHECK(observer_place(machine("sys-2cpu"), 0, &two, 7, &p, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "--observer-cpu 7: no such CPU is online") != NULL);
	CHECK(observer_place(machine("sys-smt-offline"), 0, &all8, 4, &p, err,
			     sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "no such CPU is online") != NULL);
	CHECK(observer_place(machine("sys-2cpu"), 1, &only1, 1, &p, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "only CPU the target may run on") != NULL);
	CHECK(observer_place(machine("sys-1cpu"), 0, &two, -1, &p, err, sizeof(err)) == -ENODEV);
	CHECK(strstr(err, "only one CPU is online") != NULL);
	CHECK(observer_place(machine("no-such-machine"), 0, &two, -1, &p, err,
			     sizeof(err)) == -ENOENT);
	CHECK(strstr(err, "cannot read the online CPUs") != NULL);

	/* Core-wide counting: every condition, and the one that failed. */
	{
		struct cpu_facts good = {
			.vendor = "GenuineIntel", .perfmon_version = 4, .pmu = true,
			.rdpmc = 1, .smt_sibling = true,
		}, f;
		char why[256];

		CHECK(corewide_supported(&good, why, sizeof(why)));
		CHECK(strstr(why, "perfmon v4") != NULL);
		f = good;
		f.pmu = false;
		CHECK(!corewide_supported(&f, why, sizeof(why)) &&
		      strstr(why, "no hardware PMU;") && strstr(why, "perf group sampling"));
		f.hypervisor = true;
		CHECK(!corewide_supported(&f, why, sizeof(why)) &&
		      strstr(why, "the hypervisor exposes none"));
		f = good;
		memcpy(f.vendor, "AuthenticAMD", 13);
		CHECK(!corewide_supported(&f, why, sizeof(why)) && strstr(why, "AMD cores"));
		f = good;
		f.perfmon_version = 5;
		CHECK(!corewide_supported(&f, why, sizeof(why)) && strstr(why, "deprecates"));
		f = good;
		f.anythread_deprecated = true;
		CHECK(!corewide_supported(&f, why, sizeof(why)) && strstr(why, "deprecates"));
		f = good;
		f.perfmon_version = 2;
		CHECK(!corewide_supported(&f, why, sizeof(why)) && strstr(why, "older than version 3"));
		f = good;
		f.rdpmc = 0;
		CHECK(!corewide_supported(&f, why, sizeof(why)) && strstr(why, "rdpmc is disabled"));
		f = good;
		f.smt_sibling = false;
		CHECK(!corewide_supported(&f, why, sizeof(why)) && strstr(why, "not on an SMT sibling"));

		/* sysfs: a PMU with rdpmc 2 in one tree, none in another. */
		cpu_facts_read(&f, machine("sys-smt"), true);
		CHECK(f.pmu && f.rdpmc == 2 && f.smt_sibling);
		cpu_facts_read(&f, machine("sys-2cpu"), false);
		CHECK(!f.pmu && f.rdpmc == 0);
	}

	/* This machine: the task's own last CPU is readable. */
	CHECK(task_last_cpu(getpid()) >= 0);
	CHECK(task_last_cpu(0x7ffffff0) == -1);
	return check_done("test_observer_cpu");
}
