/* corewide_counters.c - opening and reading core-wide counters with rdpmc. */
#include "sampler/corewide.h"
#include "sampler/events.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Intel's architectural events; ":t" sets AnyThread (IA32_PERFEVTSELx[21]). */
static const char *const names[2][COREWIDE_EVENTS] = {
	[COREWIDE_CORE] = { "UNHALTED_CORE_CYCLES:t", "INSTRUCTION_RETIRED:t" },
	[COREWIDE_SELF] = { "UNHALTED_CORE_CYCLES", "INSTRUCTION_RETIRED" },
};

const char *corewide_event_name(unsigned event, unsigned who)
{
	return event < COREWIDE_EVENTS && who <= COREWIDE_SELF ?
	       names[who][event] : NULL;
}

static void forget(struct corewide *cw)
{
	for (unsigned w = 0; w < 2; w++)
		for (unsigned e = 0; e < COREWIDE_EVENTS; e++) {
			cw->fd[w][e] = -1;
			cw->page[w][e] = NULL;
		}
}

int corewide_open(struct corewide *cw, char *why, size_t len)
{
	long pagesize = sysconf(_SC_PAGESIZE);
	int leader = -1;

	memset(cw, 0, sizeof(*cw));
	forget(cw);
	cw->rd = rdpmc_instruction;
	for (unsigned w = 0; w < 2; w++) {
		for (unsigned e = 0; e < COREWIDE_EVENTS; e++) {
			struct perf_event_attr attr;
			void *p;

			if (event_encode(names[w][e], &attr) < 0) {
				snprintf(why, len, "libpfm4 cannot encode %s for this CPU",
					 names[w][e]);
				goto fail;
			}
			/* One group: all four count over the same time. */
			attr.pinned = leader < 0;
			cw->fd[w][e] = sys_perf_event_open(&attr, 0, -1, leader, 0);
			if (cw->fd[w][e] < 0) {
				snprintf(why, len, "cannot open %s: %s%s", names[w][e],
					 strerror(errno), errno == EACCES || errno == EPERM ?
					 " (core-wide counting needs perf_event_paranoid <= 0 "
					 "or CAP_PERFMON)" : "");
				goto fail;
			}
			if (leader < 0)
				leader = cw->fd[w][e];
			p = mmap(NULL, (size_t)pagesize, PROT_READ, MAP_SHARED,
				 cw->fd[w][e], 0);
			if (p == MAP_FAILED) {
				snprintf(why, len, "cannot map %s's page: %s", names[w][e],
					 strerror(errno));
				goto fail;
			}
			cw->page[w][e] = p;
			if (!rdpmc_allowed(cw->page[w][e])) {
				snprintf(why, len, "the kernel does not allow rdpmc on %s",
					 names[w][e]);
				goto fail;
			}
		}
	}
	return 0;
fail:
	corewide_close(cw);
	return -EOPNOTSUPP;
}

static uint64_t count_of(struct corewide *cw, unsigned w, unsigned e)
{
	uint64_t v = 0;
	unsigned retries;

	if (rdpmc_read(cw->page[w][e], cw->rd, cw->rd_arg, &v, &retries) == RDPMC_OK)
		return v;
	/* Off its register for now (index 0): ask the kernel. */
	cw->slow_reads++;
	if (read(cw->fd[w][e], &v, sizeof(v)) != (ssize_t)sizeof(v))
		v = 0;
	return v;
}

void corewide_read(struct corewide *cw, uint64_t out[2 * COREWIDE_EVENTS])
{
	uint64_t core[COREWIDE_EVENTS], self[COREWIDE_EVENTS];

	/*
	 * Core first, then self: the observer's own work between the two
	 * reads is the same every sample, so it cancels in the differences.
	 */
	for (unsigned e = 0; e < COREWIDE_EVENTS; e++)
		core[e] = count_of(cw, COREWIDE_CORE, e);
	for (unsigned e = 0; e < COREWIDE_EVENTS; e++)
		self[e] = count_of(cw, COREWIDE_SELF, e);
	for (unsigned e = 0; e < COREWIDE_EVENTS; e++) {
		out[e] = core[e] - self[e];
		out[COREWIDE_EVENTS + e] = self[e];
	}
}

void corewide_close(struct corewide *cw)
{
	long pagesize = sysconf(_SC_PAGESIZE);

	for (unsigned w = 0; w < 2; w++)
		for (unsigned e = 0; e < COREWIDE_EVENTS; e++) {
			if (cw->page[w][e])
				munmap((void *)(uintptr_t)cw->page[w][e], (size_t)pagesize);
			if (cw->fd[w][e] >= 0)
				close(cw->fd[w][e]);
		}
	forget(cw);
}
