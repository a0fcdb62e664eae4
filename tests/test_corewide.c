/*
 * test_corewide.c - core-wide counting without a PMU: the events are
 * encoded for a Haswell (libpfm4's LIBPFM_FORCE_PMU) and must set
 * AnyThread for the core and not for the observer; app = core - self is
 * read through constructed perf_event_mmap_pages with a fake rdpmc,
 * including a counter sign-extended from 48 bits and one off its
 * register (index 0) that falls back to read().
 */
#include "check.h"
#include "sampler/events.h"
#include "sampler/corewide.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ANYTHREAD (1ull << 21)

static void encodings(void)
{
	static const uint64_t code[COREWIDE_EVENTS] = { 0x3c, 0xc0 };

	for (unsigned who = COREWIDE_CORE; who <= COREWIDE_SELF; who++)
		for (unsigned e = 0; e < COREWIDE_EVENTS; e++) {
			struct perf_event_attr a;
			const char *name = corewide_event_name(e, who);

			CHECK(name && event_encode(name, &a) == 0);
			CHECK(a.type == PERF_TYPE_RAW);
			CHECK_EQ_U64(a.config & 0xffff, code[e]);	/* event, umask 0 */
			CHECK_EQ_U64(!!(a.config & ANYTHREAD), who == COREWIDE_CORE);
			CHECK(!a.exclude_user);
		}
	CHECK(corewide_event_name(COREWIDE_EVENTS, COREWIDE_CORE) == NULL);
}

/* Hardware counter registers, by rdpmc index. */
static uint64_t regs[8];

static uint64_t fake_rdpmc(uint32_t idx, void *arg)
{
	(void)arg;
	return idx < 8 ? regs[idx] : 0;
}

static struct perf_event_mmap_page pages[2][COREWIDE_EVENTS];

static void page(unsigned who, unsigned e, uint32_t index, int64_t offset)
{
	struct perf_event_mmap_page *p = &pages[who][e];

	memset(p, 0, sizeof(*p));
	p->index = index;
	p->offset = offset;
	p->pmc_width = 48;
	p->cap_user_rdpmc = 1;
}

static void app_is_core_minus_self(void)
{
	struct corewide cw;
	uint64_t app[2 * COREWIDE_EVENTS], fallback = 300;
	int pipefd[2];

	memset(&cw, 0, sizeof(cw));
	cw.rd = fake_rdpmc;
	for (unsigned w = 0; w < 2; w++)
		for (unsigned e = 0; e < COREWIDE_EVENTS; e++) {
			cw.page[w][e] = &pages[w][e];
			cw.fd[w][e] = -1;
		}
	/* Core cycles 1000 + 5000; core instructions: the register holds -10
	 * in 48 bits, the kernel's offset 1010: 1000. */
	page(COREWIDE_CORE, COREWIDE_CYCLES, 1, 1000);
	regs[0] = 5000;
	page(COREWIDE_CORE, COREWIDE_INSTRUCTIONS, 2, 1010);
	regs[1] = (1ull << 48) - 10;
	page(COREWIDE_SELF, COREWIDE_CYCLES, 3, 0);
	regs[2] = 1500;
	page(COREWIDE_SELF, COREWIDE_INSTRUCTIONS, 4, 0);
	regs[3] = 300;
	corewide_read(&cw, app);
	CHECK_EQ_U64(app[COREWIDE_CYCLES], 4500);
	CHECK_EQ_U64(app[COREWIDE_INSTRUCTIONS], 700);
	/* Self beside it, for the observer-effect display. */
	CHECK_EQ_U64(app[COREWIDE_EVENTS + COREWIDE_CYCLES], 1500);
	CHECK_EQ_U64(app[COREWIDE_EVENTS + COREWIDE_INSTRUCTIONS], 300);
	CHECK_EQ_U64(cw.slow_reads, 0);

	/* The observer's instructions are off their register: read(). */
	page(COREWIDE_SELF, COREWIDE_INSTRUCTIONS, 0, 0);
	regs[3] = 999999;	/* must not be used */
	if (pipe(pipefd) == 0) {
		CHECK(write(pipefd[1], &fallback, sizeof(fallback)) == sizeof(fallback));
		cw.fd[COREWIDE_SELF][COREWIDE_INSTRUCTIONS] = pipefd[0];
		corewide_read(&cw, app);
		CHECK_EQ_U64(app[COREWIDE_INSTRUCTIONS], 700);
		CHECK_EQ_U64(cw.slow_reads, 1);
		close(pipefd[0]);
		close(pipefd[1]);
	} else {
		CHECK(!"pipe");
	}
}

/* Without a PMU, opening fails and names the first event it tried. */
static void open_without_pmu(void)
{
	struct corewide cw;
	char why[256] = "";

	if (events_have_hardware_pmu())
		return;
	CHECK(corewide_open(&cw, why, sizeof(why)) == -EOPNOTSUPP);
	CHECK(strstr(why, "UNHALTED_CORE_CYCLES:t") != NULL);
	for (unsigned w = 0; w < 2; w++)
		for (unsigned e = 0; e < COREWIDE_EVENTS; e++)
			CHECK(cw.fd[w][e] == -1 && cw.page[w][e] == NULL);
}

int main(void)
{
	/* Before libpfm4 initializes: encode for a Haswell, whatever runs this. */
	setenv("LIBPFM_FORCE_PMU", "hsw", 1);
	encodings();
	app_is_core_minus_self();
	open_without_pmu();
	return check_done("test_corewide");
}
