/*
 * cpulist.h - CPU lists as sysfs writes them ("0-3,8,10-11"): the online
 * CPUs, a core's SMT siblings.
 */
#ifndef SHIMTOP_CPULIST_H
#define SHIMTOP_CPULIST_H

#include <sched.h>

/* Parses a CPU list into *set; returns the CPU count, -EINVAL if malformed. */
int cpulist_parse(const char *s, cpu_set_t *set);

/* Reads a CPU list file under sysroot ("" for the real one); -errno if absent. */
int cpulist_read(const char *sysroot, const char *path, cpu_set_t *set);

#endif
