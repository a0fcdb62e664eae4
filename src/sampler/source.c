/* source.c - names and formats for what sources describe (source.h). */
#include "sampler/source.h"

#include "util.h"

#include <stdio.h>
#include <unistd.h>

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

int source_thread_start(struct source_thread *t, void *(*fn)(void *),
			void *arg, const char *what)
{
	int rc = st_thread_start(&t->thread, fn, arg, what);

	if (rc == 0)
		t->running = true;
	return rc;
}

void source_thread_stop(struct source_thread *t, int wake_fd)
{
	char byte = 1;

	if (!t->running)
		return;
	atomic_store(&t->stop, true);
	if (wake_fd >= 0 && write(wake_fd, &byte, 1) < 0)
		st_warn("cannot wake a sampling thread");
	pthread_join(t->thread, NULL);
	t->running = false;
}
