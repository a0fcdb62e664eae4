/*
 * perf_tracing.c - perf's tracing data.  The container is perf's own
 * (perf's trace-event-read), walked within its bounds.  Of each event's
 * format (the kernel's text) only the "name:" and "ID:" lines are read:
 * libtraceevent parses the whole format, print expressions included, and
 * dies on a NULL pointer when one comma is added to sched_switch's
 * (fuzz_perf_data found it; tests/fuzz/corpus keeps the file), so the
 * target's bytes never reach it.
 */
#include "sampler/perf_tracing.h"

#include <byteswap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text_safe.h"
#include "util.h"

#define TRACING_EVENTS_MAX	4096u	/* formats kept: perf writes the recorded events' */

struct tracing_event {
	uint64_t id;
	char name[96];			/* "system:name" */
	uint32_t state_at, state_size;	/* sched_switch's prev_state; size 0: none */
};

struct perf_tracing {
	struct tracing_event *events;
	size_t n, cap;
};

struct walk {
	const unsigned char *p, *end;
	bool swap;			/* the file's numbers are the other byte order */
	bool bad;
};

static const unsigned char *take(struct walk *w, uint64_t n)
{
	const unsigned char *at = w->p;

	if (w->bad || (uint64_t)(w->end - w->p) < n) {
		w->bad = true;
		return NULL;
	}
	w->p += n;
	return at;
}

static uint64_t take_number(struct walk *w, size_t n)
{
	const unsigned char *at = take(w, n);
	uint32_t v4;
	uint64_t v8;

	if (!at)
		return 0;
	if (n == 4) {
		memcpy(&v4, at, 4);
		return w->swap ? bswap_32(v4) : v4;
	}
	memcpy(&v8, at, 8);
	return w->swap ? bswap_64(v8) : v8;
}

/* A NUL-terminated string in the data, or NULL. */
static const char *take_cstring(struct walk *w)
{
	const unsigned char *nul;
	const char *s = (const char *)w->p;

	if (w->bad || !(nul = memchr(w->p, '\0', (size_t)(w->end - w->p)))) {
		w->bad = true;
		return NULL;
	}
	w->p = nul + 1;
	return s;
}

/* A section named tag: the tag (with its NUL), an 8-byte size, the bytes, passed. */
static void skip_named(struct walk *w, const char *tag)
{
	const unsigned char *at = take(w, strlen(tag) + 1);

	if (!at || memcmp(at, tag, strlen(tag) + 1)) {
		w->bad = true;
		return;
	}
	take(w, take_number(w, 8));
}

/*
 * The value of the line "key: value" that starts the format text[0..len)
 * or one of its lines, up to the line's end, into out.
 */
static bool format_line(const char *text, size_t len, const char *key, char *out, size_t room)
{
	size_t klen = strlen(key);

	for (size_t at = 0; at < len;) {
		const char *line = text + at, *nl = memchr(line, '\n', len - at);
		size_t n = nl ? (size_t)(nl - line) : len - at;

		if (n > klen && !memcmp(line, key, klen)) {
			line += klen;
			n -= klen;
			while (n && *line == ' ') {
				line++;
				n--;
			}
			if (!n || n >= room)
				return false;
			memcpy(out, line, n);
			out[n] = '\0';
			return true;
		}
		at += n + 1;
	}
	return false;
}

/* The number after "key:" in line[0..n), or false. */
static bool line_number(const char *line, size_t n, const char *key, uint32_t *out)
{
	size_t klen = strlen(key);
	unsigned long v = 0;
	size_t at;

	for (at = 0; at + klen <= n && memcmp(line + at, key, klen); at++)
		;
	if (at + klen > n)
		return false;
	at += klen;
	if (at == n || line[at] < '0' || line[at] > '9')
		return false;
	for (; at < n && line[at] >= '0' && line[at] <= '9' && v < 0x10000000ul; at++)
		v = v * 10 + (unsigned long)(line[at] - '0');
	*out = (uint32_t)v;
	return at < n && line[at] == ';';
}

/* Whether a field line's declaration ("long prev_state;", "char prev_comm[16];") names name. */
static bool declares(const char *line, size_t n, const char *name)
{
	const char *semi = memchr(line, ';', n), *end;
	size_t nlen = strlen(name);

	if (!semi)
		return false;
	end = memchr(line, '[', (size_t)(semi - line));
	if (!end)
		end = semi;
	return (size_t)(end - line) >= nlen && !memcmp(end - nlen, name, nlen) &&
	       (end - line == (ptrdiff_t)nlen || end[-(ptrdiff_t)nlen - 1] == ' ');
}

bool perf_tracing_field(const char *text, size_t len, const char *name, uint32_t *offset,
			uint32_t *size)
{
	for (size_t at = 0; at < len;) {
		const char *line = text + at, *nl = memchr(line, '\n', len - at);
		size_t n = nl ? (size_t)(nl - line) : len - at;
		const char *field = n > 6 ? memchr(line, 'f', n) : NULL;

		if (field && (size_t)(line + n - field) > 6 && !memcmp(field, "field:", 6) &&
		    declares(field + 6, (size_t)(line + n - field - 6), name))
			return line_number(line, n, "offset:", offset) &&
			       line_number(line, n, "size:", size);
		at += n + 1;
	}
	return false;
}

/* One event's format: its id and name kept, the rest not read. */
static void take_format(struct perf_tracing *t, const char *text, size_t len, const char *sys)
{
	char name[64], id[24], *end;
	unsigned long long v;

	if (t->n == TRACING_EVENTS_MAX || !format_line(text, len, "name:", name, sizeof(name)) ||
	    !format_line(text, len, "ID:", id, sizeof(id)))
		return;
	v = strtoull(id, &end, 10);
	if (end == id || *end)
		return;
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 8;
		t->events = st_xrealloc(t->events, t->cap * sizeof(*t->events));
	}
	t->events[t->n].id = v;
	t->events[t->n].state_size = 0;
	if (!strcmp(sys, "sched") && !strcmp(name, "sched_switch") &&
	    !perf_tracing_field(text, len, "prev_state", &t->events[t->n].state_at,
				&t->events[t->n].state_size))
		t->events[t->n].state_size = 0;
	snprintf(t->events[t->n].name, sizeof(t->events[t->n].name), "%.31s:%s", sys, name);
	st_text_safe(t->events[t->n].name);
	t->n++;
}

struct perf_tracing *perf_tracing_parse(const unsigned char *buf, size_t len)
{
	static const unsigned char magic[10] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	struct walk w = { buf, buf + len, false, false };
	const unsigned char *at, *order;
	struct perf_tracing *t;
	uint64_t n, systems;

	at = take(&w, sizeof(magic));
	if (!at || memcmp(at, magic, sizeof(magic)) || !take_cstring(&w) || !(order = take(&w, 2)))
		return NULL;
	/* order[0]: the file is big-endian; order[1]: its long's size. */
	w.swap = (order[0] != 0) != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	take_number(&w, 4);			/* the page size */
	skip_named(&w, "header_page");
	skip_named(&w, "header_event");
	/* ftrace's own formats: no event a sample names. */
	n = take_number(&w, 4);
	for (uint64_t i = 0; i < n && !w.bad; i++)
		take(&w, take_number(&w, 8));
	t = st_xcalloc(1, sizeof(*t));
	systems = take_number(&w, 4);
	for (uint64_t s = 0; s < systems && !w.bad; s++) {
		const char *sys = take_cstring(&w);

		n = take_number(&w, 4);
		for (uint64_t i = 0; i < n && !w.bad; i++) {
			uint64_t size = take_number(&w, 8);

			at = take(&w, size);
			if (at)
				take_format(t, (const char *)at, (size_t)size, sys);
		}
	}
	/* What follows (kallsyms, printk formats, saved command lines) is not read. */
	if (!t->n) {
		perf_tracing_free(t);
		return NULL;
	}
	return t;
}

void perf_tracing_free(struct perf_tracing *t)
{
	if (!t)
		return;
	free(t->events);
	free(t);
}

bool perf_tracing_switch_state(const struct perf_tracing *t, uint64_t id, uint32_t *at,
			       uint32_t *size)
{
	for (size_t i = 0; t && i < t->n; i++)
		if (t->events[i].id == id && t->events[i].state_size) {
			*at = t->events[i].state_at;
			*size = t->events[i].state_size;
			return true;
		}
	return false;
}

bool perf_tracing_name(const struct perf_tracing *t, uint64_t id, char *out, size_t room)
{
	for (size_t i = 0; t && i < t->n; i++)
		if (t->events[i].id == id) {
			snprintf(out, room, "%s", t->events[i].name);
			return out[0] != '\0';
		}
	return false;
}
