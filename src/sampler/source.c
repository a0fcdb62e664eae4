/* source.c - names and formats for what sources describe (source.h). */
#include "sampler/source.h"

#include <stdio.h>

const char *source_kind_name(enum st_source_kind k)
{
	switch (k) {
	case ST_SOURCE_PERF:
		return "perf";
	case ST_SOURCE_REPLAY:
		return "replay";
	case ST_SOURCE_OBSERVER:
		return "observer";
	case ST_SOURCE_IBS:
		return "ibs";
	default:
		return "";
	}
}

const char *period_unit_name(enum st_period_unit u)
{
	switch (u) {
	case ST_PERIOD_NS:
		return "ns";
	case ST_PERIOD_EVENTS:
		return "events";
	case ST_PERIOD_HZ:
		return "Hz";
	case ST_PERIOD_CYCLES:
		return "cycles";
	default:
		return "unknown";
	}
}

void period_format(const struct st_period *p, char *buf, size_t len)
{
	if (p->unit == ST_PERIOD_UNKNOWN)
		snprintf(buf, len, "unknown");
	else if (p->unit == ST_PERIOD_CYCLES && p->value == 0)
		snprintf(buf, len, "as fast as possible");
	else
		snprintf(buf, len, "%llu %s%s", (unsigned long long)p->value,
			 period_unit_name(p->unit), p->randomized ? " +/-3%" : "");
}
