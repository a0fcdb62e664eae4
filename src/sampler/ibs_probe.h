/*
 * ibs_probe.h - whether this machine can give IBS samples, and if not,
 * why, in one line: the CPU's vendor and CPUID bits, then the kernel's
 * ibs_op / ibs_fetch PMUs in sysfs and the attribute bits their format
 * files describe (read there, never assumed).
 */
#ifndef SHIMTOP_IBS_PROBE_H
#define SHIMTOP_IBS_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sampler/ibs.h"

#define IBS_SYSFS_ROOT "/sys/bus/event_source/devices"

/* One perf_event_attr bit or field, as a format file names it. */
struct ibs_format {
	int word;		/* 0 config, 1 config1, 2 config2; -1: the PMU has none */
	unsigned lo, hi;	/* bits lo..hi */
};

struct ibs_probe {
	char vendor[13];	/* CPUID 0's, e.g. "AuthenticAMD" */
	unsigned family, model;
	bool hypervisor;	/* CPUID 1 ECX bit 31: running in a VM */
	bool cpuid_ibs;		/* CPUID Fn8000_0001 ECX bit 10 */
	uint32_t caps;		/* Fn8000_001B EAX, when cpuid_ibs */
	int op_type, fetch_type;	/* the PMUs' perf types; -1: not in sysfs */
	struct ibs_format cnt_ctl, l3missonly, ldlat, swfilt;	/* of ibs_op */
};

/* This CPU, through the cpuid instruction. */
void ibs_probe_cpu(struct ibs_probe *p);
/* The PMUs under root (IBS_SYSFS_ROOT; a test gives its own tree). */
void ibs_probe_sysfs(struct ibs_probe *p, const char *root);

/*
 * 0 if kind can be sampled; else -ENODEV and why in one line (the vendor,
 * the CPUID bit a hypervisor hides, the PMU missing from sysfs, the
 * capability missing).
 */
int ibs_probe_explain(const struct ibs_probe *p, enum ibs_kind kind, char *why, size_t len);

/*
 * For a header that says where IBS is missing: 1 and "no IBS (why)" in a
 * few words when this is an AMD CPU without IBS op sampling; else 0 (not
 * AMD: nobody expects IBS; or it is there).
 */
int ibs_probe_brief(const struct ibs_probe *p, char *out, size_t len);

/* A format file's text ("config:19", "config1:0-11"): 0, or -EINVAL. */
int ibs_format_parse(const char *text, struct ibs_format *out);

#endif
