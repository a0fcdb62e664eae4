/* source.c - names and formats for what sources describe (source.h). */
#include "sampler/source.h"

#include "util.h"

#include <stdio.h>
#include <string.h>
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

void record_header_from_info(struct st_file_header *h,
			     const struct st_source_info *in, int pid,
			     const char *comm)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, ST_FILE_MAGIC, sizeof(ST_FILE_MAGIC));
	h->version = ST_FILE_VERSION;
	h->header_size = sizeof(*h);
	h->pid = pid;
	h->ncounters = in->ncounters;
	h->ipc_cycles = in->ipc_cycles;
	h->ipc_instructions = in->ipc_instructions;
	h->start_time = st_now_ns();
	snprintf(h->comm, sizeof(h->comm), "%s", comm);
	snprintf(h->events, sizeof(h->events), "%s", in->events);
	h->period_value = in->period.value;
	h->period_unit = in->period.unit;
	h->period_randomized = in->period.randomized;
	snprintf(h->note, sizeof(h->note), "%.191s", in->note);
	memcpy(h->counters, in->counters, sizeof(h->counters));
	h->nsampled = in->nsampled;
	memcpy(h->sampled, in->sampled, sizeof(h->sampled));
}
