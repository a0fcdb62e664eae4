/*
 * test_perf_tracing.c - perf's tracing data over constructed bytes: a
 * tracepoint named by its format, in either byte order; bad magic; and
 * every prefix of the data read within its bounds.
 */
#include "check.h"
#include "sampler/perf_tracing.h"

#include <byteswap.h>
#include <stdlib.h>
#include <string.h>

static const char format[] =
	"name: sched_switch\n"
	"ID: 316\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:pid_t prev_pid;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"prev_pid=%d\", REC->prev_pid\n";

struct blob {
	unsigned char b[4096];
	size_t n;
	bool big;
};

static void put(struct blob *o, const void *p, size_t n)
{
	memcpy(o->b + o->n, p, n);
	o->n += n;
}

static void put4(struct blob *o, uint32_t v)
{
	v = o->big ? bswap_32(v) : v;
	put(o, &v, 4);
}

static void put8(struct blob *o, uint64_t v)
{
	v = o->big ? bswap_64(v) : v;
	put(o, &v, 8);
}

/* Tracing data as perf record writes it: one system, one event. */
static void build(struct blob *o, bool big)
{
	static const unsigned char magic[10] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	unsigned char sizes[2] = { big, 8 };

	memset(o, 0, sizeof(*o));
	o->big = big;
	put(o, magic, sizeof(magic));
	put(o, "0.6", 4);
	put(o, sizes, 2);
	put4(o, 4096);
	put(o, "header_page", 12);
	put8(o, 3);
	put(o, "abc", 3);
	put(o, "header_event", 13);
	put8(o, 0);
	put4(o, 0);			/* ftrace's formats */
	put4(o, 1);			/* systems */
	put(o, "sched", 6);
	put4(o, 1);
	put8(o, strlen(format));
	put(o, format, strlen(format));
	put4(o, 0);			/* kallsyms */
	put4(o, 0);			/* printk formats */
	put8(o, 0);			/* saved command lines */
}

static void test_named(void)
{
	struct blob o;
	char name[64];

	for (int big = 0; big <= 1; big++) {
		struct perf_tracing *t;

		build(&o, big);
		t = perf_tracing_parse(o.b, o.n);
		CHECK(t != NULL);
		CHECK(perf_tracing_name(t, 316, name, sizeof(name)));
		CHECK(strcmp(name, "sched:sched_switch") == 0);
		CHECK(!perf_tracing_name(t, 317, name, sizeof(name)));
		CHECK(!perf_tracing_name(t, 1ull << 40, name, sizeof(name)));
		perf_tracing_free(t);
	}
	CHECK(!perf_tracing_name(NULL, 316, name, sizeof(name)));
}

static void test_hostile(void)
{
	struct blob o;
	char name[64];

	build(&o, false);
	o.b[3] = 'T';
	CHECK(perf_tracing_parse(o.b, o.n) == NULL);
	/* Every prefix: read within it, named only when the format is whole. */
	build(&o, false);
	for (size_t n = 0; n < o.n; n++) {
		unsigned char *copy = malloc(n ? n : 1);
		struct perf_tracing *t;

		memcpy(copy, o.b, n);
		t = perf_tracing_parse(copy, n);
		if (t)
			CHECK(!perf_tracing_name(t, 316, name, sizeof(name)) ||
			      n >= o.n - 16);
		perf_tracing_free(t);
		free(copy);
	}
	/* A format's size past the data's end. */
	build(&o, false);
	memset(o.b + o.n - 16 - strlen(format) - 8, 0xff, 8);
	CHECK(perf_tracing_parse(o.b, o.n) == NULL);
}

int main(void)
{
	test_named();
	test_hostile();
	return check_done("test_perf_tracing");
}
