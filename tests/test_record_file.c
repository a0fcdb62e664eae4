/*
 * test_record_file.c - --record files: a round trip keeps every record
 * byte for byte and the events sampled each on its own; a version 2 file
 * still reads; truncation, corruption, a foreign file and another
 * version are refused with messages that say so.
 */
#include "check.h"
#include "ring/record.h"
#include "ring/record_file.h"
#include "sampler/source.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char path[] = "/tmp/shimtop-test-XXXXXX";

static size_t make_sample(void *buf, uint64_t ip, int chain)
{
	struct st_sample *s = buf;
	size_t size = sizeof(*s) + (size_t)chain * 8;

	memset(s, 0, size);
	s->h = (struct st_header){ ST_REC_SAMPLE, ST_SOURCE_PERF, (uint32_t)size };
	s->pid = s->tid = 7;
	s->ip = ip;
	s->time = ip * 10;
	s->period = 1;
	s->nchain = (uint16_t)chain;
	for (int i = 0; i < chain; i++)
		s->data[i] = ip + (uint64_t)i;
	return size;
}

static void write_file(int records)
{
	struct st_source_info in;
	struct st_file_header h;
	struct record_writer *w;
	_Alignas(8) unsigned char buf[1024];

	memset(&in, 0, sizeof(in));
	snprintf(in.events, sizeof(in.events), "cpu-clock");
	in.period = (struct st_period){ 250000, ST_PERIOD_NS, true };
	in.ipc_cycles = in.ipc_instructions = -1;
	record_header_from_info(&h, &in, 7, "demo");
	w = record_writer_open(path, &h);
	CHECK(w != NULL);
	for (int i = 0; i < records; i++) {
		make_sample(buf, 0x1000 + (uint64_t)i, i % 5);
		CHECK(record_writer_append(w, buf) == 0);
	}
	CHECK(record_writer_close(w) == 0);
}

/*
 * records of 48 to 80 bytes: 100 in one read of the reader's; 50,000
 * (3 MB) across several, records cut at their edges.
 */
static void test_round_trip(int records)
{
	struct st_file_header h;
	struct record_reader *r;
	_Alignas(8) unsigned char want[1024];
	const void *rec;
	long n;
	int i = 0;

	write_file(records);
	r = record_reader_open(path, &h);
	CHECK(r != NULL);
	if (!r)
		return;
	CHECK(h.pid == 7 && !strcmp(h.comm, "demo") && !strcmp(h.events, "cpu-clock"));
	/* The period comes back as a number in its unit. */
	CHECK_EQ_U64(h.period_value, 250000);
	CHECK(h.period_unit == ST_PERIOD_NS && h.period_randomized == 1);
	while ((n = record_reader_next(r, &rec)) > 0) {
		size_t size = make_sample(want, 0x1000 + (uint64_t)i, i % 5);

		CHECK((size_t)n == size && memcmp(rec, want, size) == 0);
		i++;
	}
	CHECK(n == 0);
	CHECK(i == records);
	record_reader_close(r);
}

/* -e a,b's events travel in the header; a damaged count is dropped. */
static void test_sampled_events(void)
{
	struct st_source_info in;
	struct st_file_header h;
	struct record_writer *w;
	struct record_reader *r;
	const void *rec;
	FILE *f;

	memset(&in, 0, sizeof(in));
	in.nsampled = 2;
	snprintf(in.sampled[0], sizeof(in.sampled[0]), "cpu-clock");
	snprintf(in.sampled[1], sizeof(in.sampled[1]), "page-faults");
	record_header_from_info(&h, &in, 7, "demo");
	w = record_writer_open(path, &h);
	CHECK(w && record_writer_close(w) == 0);
	r = record_reader_open(path, &h);
	CHECK(r && h.nsampled == 2 && !strcmp(h.sampled[1], "page-faults"));
	record_reader_close(r);

	h.nsampled = ST_MAX_SAMPLED + 1;
	w = record_writer_open(path, &h);
	CHECK(w && record_writer_close(w) == 0);
	r = record_reader_open(path, &h);
	CHECK(r && h.nsampled == 0);
	record_reader_close(r);

	/* Version 2: the header without them, then the records. */
	{
		_Alignas(8) unsigned char buf[256];
		size_t size = make_sample(buf, 0x42, 2);

		record_header_from_info(&h, &in, 7, "demo");
		h.version = 2;
		h.header_size = ST_FILE_HEADER_V2_SIZE;
		f = fopen(path, "wb");
		fwrite(&h, ST_FILE_HEADER_V2_SIZE, 1, f);
		fwrite(buf, size, 1, f);
		fclose(f);
		r = record_reader_open(path, &h);
		CHECK(r != NULL);
		if (!r)
			return;
		CHECK(h.version == 2 && h.nsampled == 0 && !strcmp(h.comm, "demo"));
		CHECK(record_reader_next(r, &rec) == (long)size && memcmp(rec, buf, size) == 0);
		CHECK(record_reader_next(r, &rec) == 0);
		record_reader_close(r);
	}
}

static void test_truncated(void)
{
	struct st_file_header h;
	struct record_reader *r;
	const void *rec;
	long n;
	int good = 0;

	write_file(10);
	/* Cut the last record in half. */
	CHECK(truncate(path, (off_t)(sizeof(h) + 9 * sizeof(struct st_sample) +
				     8 * (0 + 1 + 2 + 3 + 4 + 0 + 1 + 2 + 3) + 20)) == 0);
	r = record_reader_open(path, &h);
	CHECK(r != NULL);
	if (!r)
		return;
	while ((n = record_reader_next(r, &rec)) > 0)
		good++;
	CHECK(n == -EBADMSG);
	CHECK(good == 9);	/* nothing before the damage is lost */
	CHECK(strstr(record_reader_error(r), "truncated") != NULL);
	record_reader_close(r);
}

static void test_corrupt(void)
{
	struct st_file_header h;
	struct record_reader *r;
	struct st_header bad = { ST_REC_SAMPLE, 1, 12 };	/* not a multiple of 8 */
	const void *rec;
	FILE *f;

	write_file(3);
	f = fopen(path, "ab");
	fwrite(&bad, sizeof(bad), 1, f);
	fclose(f);
	r = record_reader_open(path, &h);
	CHECK(r != NULL);
	if (!r)
		return;
	for (int i = 0; i < 3; i++)
		CHECK(record_reader_next(r, &rec) > 0);
	CHECK(record_reader_next(r, &rec) == -EBADMSG);
	CHECK(strstr(record_reader_error(r), "corrupt at byte") != NULL);
	record_reader_close(r);

	/* A sample claiming a longer chain than its size holds. */
	write_file(0);
	{
		_Alignas(8) unsigned char buf[256];
		struct st_sample *s = (void *)buf;

		make_sample(buf, 0x10, 1);
		s->nchain = 30;
		f = fopen(path, "ab");
		fwrite(buf, s->h.size, 1, f);
		fclose(f);
	}
	r = record_reader_open(path, &h);
	CHECK(r && record_reader_next(r, &rec) == -EBADMSG);
	record_reader_close(r);
}

static void test_not_ours(void)
{
	struct st_file_header h;
	FILE *f = fopen(path, "wb");

	fputs("this is not a recording at all, just some text......", f);
	fclose(f);
	CHECK(record_reader_open(path, &h) == NULL);

	write_file(1);
	f = fopen(path, "r+b");
	{
		uint32_t v = 99;

		fseek(f, 8, SEEK_SET);
		fwrite(&v, sizeof(v), 1, f);
	}
	fclose(f);
	CHECK(record_reader_open(path, &h) == NULL);
	CHECK(record_reader_open("/nonexistent/file", &h) == NULL);

	/*
	 * Versions 3 to 5 (room for 4 sampled events) still read, with their
	 * smaller header; 7 does not, nor a header of the other version's size.
	 */
	for (uint32_t v = 3; v <= 7; v++) {
		_Alignas(8) unsigned char buf[256];
		size_t size = make_sample(buf, 0x42, 2), hsize;
		struct st_source_info in;
		struct record_reader *r;

		memset(&in, 0, sizeof(in));
		in.nsampled = 4;
		for (int e = 0; e < 4; e++)
			snprintf(in.sampled[e], sizeof(in.sampled[e]), "event%d", e);
		record_header_from_info(&h, &in, 7, "demo");
		for (int other = 0; other < 2; other++) {
			hsize = (v <= 5) != (other == 1) ? ST_FILE_HEADER_V5_SIZE : sizeof(h);
			h.version = v;
			h.header_size = (uint32_t)hsize;
			f = fopen(path, "wb");
			fwrite(&h, hsize, 1, f);
			fwrite(buf, size, 1, f);
			fclose(f);
			r = record_reader_open(path, &h);
			CHECK((r != NULL) == (v <= ST_FILE_VERSION && !other));
			if (r) {
				CHECK(h.nsampled == 4 && !strcmp(h.sampled[3], "event3"));
				CHECK(h.sampled[4][0] == '\0');
				record_reader_close(r);
			}
		}
	}
}

int main(void)
{
	int fd = mkstemp(path);

	if (fd < 0)
		return 99;
	close(fd);
	test_round_trip(100);
	test_round_trip(50000);
	test_sampled_events();
	test_truncated();
	test_corrupt();
	test_not_ours();
	unlink(path);
	return check_done("test_record_file");
}
