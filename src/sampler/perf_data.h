/*
 * perf_data.h - perf.data, as perf record writes it to a file, read as a
 * stream of shimtop records: the header and the attributes checked once,
 * the data section's records converted by perf_parse as the ring's are,
 * and from the feature sections the host, perf's version and the
 * command line, for the header line.  Records shimtop does not use are
 * skipped and counted, never fatal.  The file is hostile input: every
 * offset and size is checked against the file before it is read.
 */
#ifndef SHIMTOP_PERF_DATA_H
#define SHIMTOP_PERF_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ring/record_file.h"

#define PERF_DATA_MAGIC		"PERFILE2"
/* perf.data version 1 (perf before 2.6.37): no feature bitmap in its header. */
#define PERF_DATA_MAGIC_V1	"PERFFILE"

struct perf_data;

/* Whether a file's first 8 bytes are perf.data's (file mode). */
bool perf_data_is(const unsigned char *first, size_t len);

/*
 * Reads f's header, attributes and features (name: the file, for
 * messages) and fills h as a recording's header; takes f.  NULL after a
 * one-line error naming the problem (st_error).  only: an event's name
 * (-e NAME) when the file samples more events than shimtop reads at
 * once (ST_MAX_SAMPLED): that one is read, the others' samples counted
 * (perf_data_left_out); NULL reads them all.
 */
/* What the file says of where it came from (perf's version, host, command), whole. */
const char *perf_data_origin(const struct perf_data *p);
#define PERF_DATA_ORIGIN 2048

struct perf_data *perf_data_on(FILE *f, const char *name, struct st_file_header *h,
			       const char *only);

/*
 * The next record, valid until the next call: >0 its size, 0 at the end,
 * -EBADMSG where the file is damaged or cut short (perf_data_error says
 * where; what came before stands).
 */
long perf_data_next(struct perf_data *p, const void **rec);
const char *perf_data_error(const struct perf_data *p);
/*
 * Its bytes are a damaged copy (why: a sentence): a file read to its end
 * still ends in -EBADMSG with why as its error, since bytes were lost.
 */
void perf_data_damaged(struct perf_data *p, const char *why);
/*
 * After the end (0): how a recording read whole ended otherwise than perf
 * ends one (killed before closing it, bytes after its stream), or "".
 */
const char *perf_data_ending(const struct perf_data *p);
/*
 * The feature sections a file cut short lost ("command line, build-ids"),
 * in words, or NULL: its samples are whole, what describes them is not.
 */
const char *perf_data_missing(const struct perf_data *p);
/*
 * The build-ids the file lists (perf record's, of each file with
 * samples): fn(path, id, len, kernel, arg) for each, path NUL-terminated
 * and not checked otherwise (the caller treats it as the file's words);
 * kernel: the kernel's or a module's, by perf's cpumode.
 */
typedef void (*perf_data_build_id_fn)(const char *path, const unsigned char *id, size_t len,
				      bool kernel, void *arg);
void perf_data_build_ids(const struct perf_data *p, perf_data_build_id_fn fn, void *arg);
/*
 * How sched_switch samples are read: as waits (off-CPU time) if as_waits
 * or beside an on-CPU event, else one sample each; true: as waits.
 * Before the first record.
 */
bool perf_data_read_switches(struct perf_data *p, bool as_waits);
/* Whether the file has sched_switch samples read one sample each. */
bool perf_data_switches_counted(const struct perf_data *p);
/* The recording kernel's release (uname -r, perf's osrelease feature) into out; false: none. */
bool perf_data_osrelease(const struct perf_data *p, char *out, size_t room);
/* Records of the data section of the kernel's kinds shimtop does not read (not perf's own). */
uint64_t perf_data_skipped(const struct perf_data *p);
/* Switches whose thread was never seen to run again (a recording without --switch-events). */
uint64_t perf_data_waits_unpaired(const struct perf_data *p);
/* Samples of events not read (only), or whose id names no event of the file. */
uint64_t perf_data_left_out(const struct perf_data *p);
void perf_data_close(struct perf_data *p);

#endif
