/*
 * perf_tracing.h - the tracing data perf record keeps with tracepoint
 * events (a file's feature section, a pipe's record): each event's
 * format as the kernel wrote it, for the event's name where nothing
 * else names it.
 */
#ifndef SHIMTOP_PERF_TRACING_H
#define SHIMTOP_PERF_TRACING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct perf_tracing;

/*
 * The events of tracing data buf[0..len) (perf's container: magic,
 * version, endianness, sizes, the header and ftrace files, then each
 * system's event formats).  NULL when it is none or names no event;
 * the bytes are copied where kept, never read again.
 */
struct perf_tracing *perf_tracing_parse(const unsigned char *buf, size_t len);
void perf_tracing_free(struct perf_tracing *t);

/* Where sched:sched_switch (tracepoint id) keeps prev_state in its raw data: --off-cpu's. */
bool perf_tracing_switch_state(const struct perf_tracing *t, uint64_t id, uint32_t *at,
			       uint32_t *size);

/* "system:name" of tracepoint id (a tracepoint attribute's config). */
bool perf_tracing_name(const struct perf_tracing *t, uint64_t id, char *out, size_t room);

/*
 * Where field name lies in an event's raw data, from its format text[0..len)
 * (a line "field:long prev_state;	offset:32;	size:8;	signed:1;").
 */
bool perf_tracing_field(const char *text, size_t len, const char *name, uint32_t *offset,
			uint32_t *size);

#endif
