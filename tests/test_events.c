/* test_events.c - libpfm4 names, close matches for typos, and the PMU probe. */
#include "check.h"
#include "sampler/events.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether libpfm4 is mapped in this process. */
static bool libpfm_mapped(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	bool found = false;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		found |= strstr(line, "libpfm") != NULL;
	fclose(f);
	return found;
}

int main(void)
{
	struct st_event ev[ST_MAX_SAMPLED];
	char close[5][64];
	size_t n = 0, k;
	int found = 0;

	CHECK(events_parse("cpu-clock", ev, &n) == 0);
	CHECK(n == 1);
	CHECK(ev[0].attr.type == PERF_TYPE_SOFTWARE);
	CHECK(ev[0].attr.config == PERF_COUNT_SW_CPU_CLOCK);
	CHECK(!event_is_hardware(&ev[0].attr));

	CHECK(events_parse("cycles,instructions", ev, &n) == 0);
	CHECK(n == 2);
	CHECK(event_is_cycles(&ev[0].attr) && event_is_hardware(&ev[0].attr));
	CHECK(event_is_instructions(&ev[1].attr));
	/* shimtop's own defaults are encoded without libpfm4, ... */
	CHECK(!libpfm_mapped());

	/* ... as libpfm4 encodes them. */
	static const char *const own[] = { "cpu-clock", "cycles", "instructions" };
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
		struct perf_event_attr a, b;

		CHECK(event_encode(own[i], &a) == 0);
		CHECK(event_encode_with_libpfm(own[i], &b) == 0);
		CHECK(!memcmp(&a, &b, sizeof(a)));
	}
	CHECK(libpfm_mapped());

	CHECK(events_parse("cpu-clok", ev, &n) == -EINVAL);
	CHECK(events_parse("", ev, &n) == -EINVAL);
	k = events_suggest("cpu-clok", close, 5);
	for (size_t i = 0; i < k; i++)
		found |= !strcmp(close[i], "cpu-clock");
	CHECK(found);
	CHECK(events_suggest("zzzzzzzzzzzzzzzzzzzzzzzz", close, 5) == 0);

	/* A recording's names keep perf's terms and modifiers. */
	CHECK(event_is_clock("cpu-clock") && event_is_clock("task-clock:u"));
	CHECK(event_is_clock("cpu-clock/freq=1000/"));
	CHECK(!event_is_clock("cpu-clocks") && !event_is_clock("cpu") && !event_is_clock(""));
	CHECK(event_weighs_ns("cpu-clock/period=100000/") && !event_weighs_ns("cycles"));

	/* The probe honours the override that tests the fallback on hardware. */
	setenv("SHIMTOP_NO_PMU", "1", 1);
	CHECK(!events_have_hardware_pmu());
	return check_done("test_events");
}
