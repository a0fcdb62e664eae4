/*
 * ibs_source.c - the attributes of perf's IBS PMUs (ibs_source.h).
 * Attribute bits come from the PMU's format files, never from memory:
 * the kernel moves them between releases (ldlat, swfilt).
 */
#include "sampler/ibs_source.h"
#include "ring/record.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

uint64_t ibs_period_clamp(uint64_t want, bool *clamped)
{
	uint64_t got = want < IBS_MIN_PERIOD ? IBS_MIN_PERIOD : want & ~(uint64_t)(IBS_PERIOD_STEP - 1);

	if (clamped)
		*clamped = got != want;
	return got;
}

bool ibs_kernel_per_task(const char *release)
{
	char *end;
	long major = strtol(release, &end, 10), minor = 0;

	if (end == release)
		return false;	/* unknown: per CPU works on every kernel */
	if (*end == '.')
		minor = strtol(end + 1, NULL, 10);
	return major > 6 || (major == 6 && minor >= 2);
}

int ibs_format_set(const struct ibs_format *f, uint64_t value, struct perf_event_attr *a)
{
	unsigned width = f->hi - f->lo + 1;
	__u64 *word;

	if (f->word < 0 || f->hi < f->lo || f->hi > 63)
		return -ERANGE;
	if (width < 64 && value >> width)
		return -ERANGE;
	word = f->word == 0 ? &a->config : f->word == 1 ? &a->config1 : &a->config2;
	*word |= value << f->lo;
	return 0;
}

int ibs_source_configure(const struct ibs_probe *p, const struct ibs_request *rq,
			 const char *release, struct perf_source_config *cfg,
			 char *why, size_t len)
{
	struct st_event *e = &cfg->events[0];
	bool op = rq->kind == IBS_OP, clamped = false;

	memset(e, 0, sizeof(*e));
	snprintf(e->name, sizeof(e->name), "%s", op ? "ibs_op" : "ibs_fetch");
	e->attr.type = (uint32_t)(op ? p->op_type : p->fetch_type);
	e->attr.size = sizeof(e->attr);
	cfg->nevents = 1;
	cfg->separate = false;
	cfg->ibs = true;
	cfg->ibs_kind = op ? ST_IBS_OP_KIND : ST_IBS_FETCH_KIND;
	cfg->family = (uint8_t)p->family;
	cfg->model = (uint8_t)p->model;
	/*
	 * IBS refuses exclude_kernel unless the PMU filters in software
	 * (swfilt): set where offered, so an unprivileged user's retry
	 * without kernel samples can work.
	 */
	cfg->ibs_swfilt = p->swfilt.word >= 0 && ibs_format_set(&p->swfilt, 1, &e->attr) == 0;
	/* Dispatched ops, not cycles: every op equally likely (DCPI's unbiased sampling). */
	if (op && p->cnt_ctl.word >= 0)
		ibs_format_set(&p->cnt_ctl, 1, &e->attr);
	if (rq->l3miss && (!op || ibs_format_set(&p->l3missonly, 1, &e->attr) < 0)) {
		snprintf(why, len, "--ibs-l3miss: this CPU's %s PMU has no l3missonly filter "
			 "(Zen 4 and later have it for ops); drop the option", e->name);
		return -EINVAL;
	}
	if (rq->ldlat) {
		if (!op || p->ldlat.word < 0) {
			snprintf(why, len, "--ibs-ldlat: this CPU's %s PMU has no load latency "
				 "filter (Zen 5 and later have it for ops); drop the option", e->name);
			return -EINVAL;
		}
		if (rq->ldlat < 128 || rq->ldlat > 2048 ||
		    ibs_format_set(&p->ldlat, rq->ldlat, &e->attr) < 0) {
			snprintf(why, len, "--ibs-ldlat %u: the hardware filters loads of 128 to "
				 "2048 cycles; pick a threshold in that range", rq->ldlat);
			return -EINVAL;
		}
	}
	cfg->freq = rq->freq;
	cfg->randomize = rq->randomize && !rq->freq;
	if (!rq->freq)
		cfg->period = ibs_period_clamp(rq->period ? rq->period : IBS_DEFAULT_PERIOD,
					       &clamped);
	cfg->ibs_per_cpu = !ibs_kernel_per_task(release);
	snprintf(cfg->note, sizeof(cfg->note), "IBS %s, %s%s%s", op ? "ops" : "fetches",
		 cfg->ibs_per_cpu ? "per CPU filtered by process (kernel before 6.2)"
				  : "per task",
		 clamped ? "; period raised to IBS's minimum of 144, in steps of 16" : "",
		 rq->l3miss || rq->ldlat ? "; L3 misses only" : "");
	return 0;
}

/* Whether process dir (under /proc) holds an fd whose link reads want. */
static bool holds_fd(const char *proc, const char *pid, const char *want)
{
	char path[PATH_MAX], link[64];
	struct dirent *d;
	bool found = false;
	DIR *fds;

	snprintf(path, sizeof(path), "%s/%s/fd", proc, pid);
	fds = opendir(path);
	if (!fds)
		return false;
	while (!found && (d = readdir(fds))) {
		ssize_t n;

		snprintf(path, sizeof(path), "%s/%s/fd/%s", proc, pid, d->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n > 0) {
			link[n] = '\0';
			found = strcmp(link, want) == 0;
		}
	}
	closedir(fds);
	return found;
}

size_t ibs_fd_holders(const char *proc, pid_t self, const char *link, char *out, size_t len)
{
	DIR *dir = opendir(proc);
	struct dirent *d;
	size_t n = 0, used = 0;

	out[0] = '\0';
	if (!dir)
		return 0;
	while ((d = readdir(dir)) && n < 4) {
		char path[PATH_MAX], comm[32] = "?";
		FILE *f;

		if (d->d_name[0] < '1' || d->d_name[0] > '9' || atoi(d->d_name) == (int)self ||
		    !holds_fd(proc, d->d_name, link))
			continue;
		snprintf(path, sizeof(path), "%s/%s/comm", proc, d->d_name);
		f = fopen(path, "r");
		if (f) {
			if (fgets(comm, sizeof(comm), f))
				comm[strcspn(comm, "\n")] = '\0';
			fclose(f);
		}
		used += (size_t)snprintf(out + used, len - used, "%s%s (%s)", n ? ", " : "",
					 comm, d->d_name);
		if (used >= len)
			used = len - 1;
		n++;
	}
	closedir(dir);
	return n;
}
