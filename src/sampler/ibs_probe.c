/* ibs_probe.c - can this machine give IBS samples (ibs_probe.h)? */
#include "sampler/ibs_probe.h"
#include "util.h"

#include <cpuid.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ibs_probe_cpu(struct ibs_probe *p)
{
	unsigned a, b, c, d, max_ext;

	memset(p->vendor, 0, sizeof(p->vendor));
	p->family = p->model = 0;
	p->hypervisor = p->cpuid_ibs = false;
	p->caps = 0;
	if (!__get_cpuid(0, &a, &b, &c, &d))
		return;
	memcpy(p->vendor, &b, 4);
	memcpy(p->vendor + 4, &d, 4);
	memcpy(p->vendor + 8, &c, 4);
	if (__get_cpuid(1, &a, &b, &c, &d)) {
		/* The family and model as AMD's manuals count them (base plus extended). */
		p->family = (a >> 8 & 0xf) + ((a >> 8 & 0xf) == 0xf ? (a >> 20 & 0xff) : 0);
		p->model = (a >> 4 & 0xf) | ((a >> 8 & 0xf) == 0xf ? (a >> 16 & 0xf) << 4 : 0);
		p->hypervisor = c >> 31 & 1;
	}
	max_ext = __get_cpuid_max(0x80000000u, NULL);
	if (max_ext >= 0x80000001u && __get_cpuid(0x80000001u, &a, &b, &c, &d))
		p->cpuid_ibs = c >> 10 & 1;
	if (p->cpuid_ibs && max_ext >= 0x8000001bu && __get_cpuid(0x8000001bu, &a, &b, &c, &d))
		p->caps = a;
}

int ibs_format_parse(const char *text, struct ibs_format *out)
{
	unsigned long lo, hi;
	const char *at;
	char *end;

	if (!strncmp(text, "config:", 7))
		out->word = 0;
	else if (!strncmp(text, "config1:", 8))
		out->word = 1;
	else if (!strncmp(text, "config2:", 8))
		out->word = 2;
	else
		return -EINVAL;
	at = strchr(text, ':') + 1;
	if (*at < '0' || *at > '9')
		return -EINVAL;
	lo = strtoul(at, &end, 10);
	hi = lo;
	if (*end == '-') {
		if (end[1] < '0' || end[1] > '9')
			return -EINVAL;
		hi = strtoul(end + 1, &end, 10);
	}
	/* One range only: IBS's attributes are contiguous. */
	if ((*end && *end != '\n') || (*end == '\n' && end[1]) || hi < lo || hi > 63)
		return -EINVAL;
	out->lo = (unsigned)lo;
	out->hi = (unsigned)hi;
	return 0;
}

/* root/pmu/rel as text, NUL-terminated, or NULL. */
static char *read_text(const char *root, const char *pmu, const char *rel)
{
	char path[512];
	size_t len;

	snprintf(path, sizeof(path), "%s/%s/%s", root, pmu, rel);
	return st_read_file(path, &len);
}

static int pmu_type(const char *root, const char *pmu)
{
	char *t = read_text(root, pmu, "type");
	char *end;
	long v = t ? strtol(t, &end, 10) : -1;

	if (t && (end == t || v < 0 || v > 0xffff))
		v = -1;
	free(t);
	return (int)v;
}

static struct ibs_format format_of(const char *root, const char *name)
{
	struct ibs_format f = { -1, 0, 0 };
	char rel[64], *t;

	snprintf(rel, sizeof(rel), "format/%s", name);
	t = read_text(root, "ibs_op", rel);
	if (t && ibs_format_parse(t, &f) < 0)
		f.word = -1;
	free(t);
	return f;
}

void ibs_probe_sysfs(struct ibs_probe *p, const char *root)
{
	p->op_type = pmu_type(root, "ibs_op");
	p->fetch_type = pmu_type(root, "ibs_fetch");
	p->cnt_ctl = format_of(root, "cnt_ctl");
	p->l3missonly = format_of(root, "l3missonly");
	p->ldlat = format_of(root, "ldlat");
	p->swfilt = format_of(root, "swfilt");
}

int ibs_probe_explain(const struct ibs_probe *p, enum ibs_kind kind, char *why, size_t len)
{
	const char *name = kind == IBS_OP ? "ibs_op" : "ibs_fetch";
	uint32_t sampling = kind == IBS_OP ? IBS_CAPS_OPSAM : IBS_CAPS_FETCHSAM;
	int type = kind == IBS_OP ? p->op_type : p->fetch_type;

	if (strcmp(p->vendor, "AuthenticAMD") && strcmp(p->vendor, "HygonGenuine")) {
		snprintf(why, len, "IBS is not available: it is an AMD feature and this CPU is %s; "
			 "sample with -e instead", p->vendor[0] ? p->vendor : "unknown");
		return -ENODEV;
	}
	if (!p->cpuid_ibs) {
		snprintf(why, len, "IBS is not available: this AMD CPU (family %#x) does not report "
			 "it in CPUID (Fn8000_0001 ECX bit 10)%s", p->family,
			 p->hypervisor ? ", as in this VM, whose hypervisor hides it: run on bare "
					 "metal or a VM given IBS" : "");
		return -ENODEV;
	}
	if (p->caps && !(p->caps & sampling)) {
		snprintf(why, len, "IBS is not available for %s: this CPU's IBS has no %s sampling "
			 "(capabilities %#x)", kind == IBS_OP ? "ops" : "fetches",
			 kind == IBS_OP ? "op" : "fetch", p->caps);
		return -ENODEV;
	}
	if (type < 0) {
		snprintf(why, len, "IBS is not available: the CPU has it but the kernel offers no %s "
			 "PMU (%s/%s): its IBS driver did not start (see dmesg)", name,
			 IBS_SYSFS_ROOT, name);
		return -ENODEV;
	}
	return 0;
}

int ibs_probe_brief(const struct ibs_probe *p, char *out, size_t len)
{
	const char *why;

	if (strcmp(p->vendor, "AuthenticAMD") && strcmp(p->vendor, "HygonGenuine"))
		return 0;	/* no one expects IBS here */
	if (!p->cpuid_ibs)
		why = p->hypervisor ? "the VM hides it" : "not in this CPU's CPUID";
	else if (p->caps && !(p->caps & IBS_CAPS_OPSAM))
		why = "this CPU has no op sampling";
	else if (p->op_type < 0)
		why = "the kernel offers no ibs_op PMU";
	else
		return 0;
	snprintf(out, len, "no IBS (%s)", why);
	return 1;
}
