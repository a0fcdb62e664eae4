/*
 * gen_records.c - record files a target could cause, written with
 * shimtop's own writer, for the end-to-end tests of hostile input:
 *
 *   gen_records empty FILE        a header and no records
 *   gen_records pids FILE N       N samples, each of its own process
 *   gen_records path FILE PATH    a mapping of PATH (e.g. a FIFO) and a
 *                                 sample in it
 */
#include "record.h"
#include "record_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void sample(struct record_writer *w, uint32_t pid, uint64_t ip,
		   uint64_t time)
{
	struct st_sample s;

	memset(&s, 0, sizeof(s));
	s.h = (struct st_header){ ST_REC_SAMPLE, ST_SOURCE_PERF, sizeof(s) };
	s.pid = s.tid = pid;
	s.time = time;
	s.ip = ip;
	s.period = 250000;
	record_writer_append(w, &s);
}

static void mapping(struct record_writer *w, uint32_t pid, const char *path)
{
	_Alignas(8) unsigned char buf[4096];
	struct st_mmap *m = (void *)buf;
	size_t plen = strlen(path) + 1;

	memset(buf, 0, sizeof(buf));
	m->h = (struct st_header){ ST_REC_MMAP, ST_SOURCE_PERF,
				   (uint32_t)st_align8(sizeof(*m) + plen) };
	m->pid = m->tid = pid;
	m->time = 1000;
	m->start = 0x400000;
	m->len = 0x10000;
	memcpy(m->filename, path, plen);
	record_writer_append(w, m);
}

int main(int argc, char **argv)
{
	struct st_source_info info;
	struct st_file_header h;
	struct record_writer *w;

	if (argc < 3) {
		fputs("usage: gen_records empty|pids|path FILE [ARG]\n", stderr);
		return 2;
	}
	memset(&info, 0, sizeof(info));
	snprintf(info.kind, sizeof(info.kind), "perf");
	snprintf(info.events, sizeof(info.events), "cpu-clock");
	info.ipc_cycles = info.ipc_instructions = -1;
	record_header_from_info(&h, &info, 1, "gen_records");
	w = record_writer_open(argv[2], &h);
	if (!w)
		return 1;
	if (!strcmp(argv[1], "pids") && argc > 3) {
		long n = atol(argv[3]);

		for (long i = 0; i < n; i++)
			sample(w, (uint32_t)(100000 + i), 0x401000 + (uint64_t)i % 64,
			       1000000 + (uint64_t)i * 1000);
	} else if (!strcmp(argv[1], "path") && argc > 3) {
		mapping(w, 1, argv[3]);
		sample(w, 1, 0x401000, 2000);
	}
	return record_writer_close(w) < 0;
}
