/*
 * record_file.h - the --record file: a header describing the session,
 * then the record stream exactly as the model received it (record.h),
 * module map included, so a replay symbolizes and aggregates the same.
 *
 * Layout, version 6, native byte order (x86-64: little-endian):
 *   struct st_file_header   magic "SHIMTOP\0", version, header_size, ...
 *   records                 each a struct st_header + body, size % 8 == 0
 *   a struct st_file_check  after every RECORD_CHECK_BYTES or so, and last
 *                           with ST_CHECK_END: the CRC-32 (zlib's) of the
 *                           bytes since the previous check (the first
 *                           covers the header)
 * A file whose checksums disagree is corrupt; one that ends without its
 * end check was cut short.  Both are said, after the records before the
 * fault are read.  Readers skip record types they do not know, read
 * versions 2 to 6 (2 to 4 without checks, 2 without the sampled events,
 * 3 to 5 with room for 4 of them) and refuse other versions.
 */
#ifndef SHIMTOP_RECORD_FILE_H
#define SHIMTOP_RECORD_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ring/record.h"

#define ST_FILE_MAGIC	"SHIMTOP"
/*
 * 2: the period as value and unit; 3: -e a,b; 4: the observer's own
 * counts; 5: checks; 6: 8 sampled events, not 4
 */
#define ST_FILE_VERSION	6u

/* Only in files, never in a ring: the reader checks it and hands it on to no one. */
#define ST_FILE_CHECK		0x7fffu
#define ST_CHECK_END		1u
#define RECORD_CHECK_BYTES	(256u << 10)	/* a block and its check fit the reader's buffer */

struct st_file_check {
	uint16_t type;			/* ST_FILE_CHECK */
	uint16_t flags;			/* ST_CHECK_END: the last record */
	uint32_t size;			/* sizeof(struct st_file_check) */
	uint32_t crc;			/* of the bytes since the previous check */
	uint32_t reserved;
	uint64_t bytes;			/* how many bytes that is */
	uint64_t records;		/* records in the file before this check */
};

struct st_file_header {
	char magic[8];
	uint32_t version;
	uint32_t header_size;
	int32_t pid;
	int32_t ncounters;
	int32_t ipc_cycles;
	int32_t ipc_instructions;
	uint64_t start_time;		/* CLOCK_MONOTONIC ns at start */
	char comm[64];
	char events[160];
	uint64_t period_value;
	uint32_t period_unit;		/* enum st_period_unit */
	uint32_t period_randomized;	/* 0 or 1 */
	char note[192];
	char counters[ST_MAX_EVENTS][64];
	/* Version 3: */
	int32_t nsampled;		/* events sampled each on its own, or 0 */
	uint32_t elapsed_ms;		/* a snapshot's: how long its session ran (0: not said) */
	char sampled[ST_MAX_SAMPLED][64];
};

/* A version 2 header ends where version 3 added its fields. */
#define ST_FILE_HEADER_V2_SIZE	offsetof(struct st_file_header, nsampled)
/* Versions 3 to 5 had room for 4 sampled events. */
#define ST_FILE_HEADER_V5_SIZE	(offsetof(struct st_file_header, sampled) + 4 * 64)

struct record_writer;
struct record_reader;

/* NULL after a one-line error naming the file. */
struct record_writer *record_writer_open(const char *path,
					 const struct st_file_header *h);
/* The same on a stream already open (its name for messages); closes it. */
struct record_writer *record_writer_on(FILE *f, const char *name,
				       const struct st_file_header *h);
/* Returns -EIO (said once) if the file cannot be written. */
int record_writer_append(struct record_writer *w, const void *rec);
/*
 * Writes the end check, flushes and closes; -errno after an error if
 * anything was lost (said once).
 */
int record_writer_close(struct record_writer *w);

/* NULL after a one-line error naming the file and the problem. */
struct record_reader *record_reader_open(const char *path,
					 struct st_file_header *h);
/* The same on a stream already open (its name for messages); closes it. */
struct record_reader *record_reader_on(FILE *f, const char *name, struct st_file_header *h);
/*
 * The next record, valid until the next call: >0 its size, 0 at the end,
 * -EBADMSG if the file is corrupt or truncated there, its checksum
 * disagrees or it ends without its end check (record_reader_error says
 * where and what).  Checks are read here, never handed out.
 */
long record_reader_next(struct record_reader *r, const void **rec);
const char *record_reader_error(const struct record_reader *r);
void record_reader_close(struct record_reader *r);

#endif
