/*
 * perf_gunzip.h - a gzip'd perf.data (perf.data.gz, as other perf GUIs
 * open it): inflated by zlib into an unnamed temporary file, since
 * perf.data is read by offset.  The file is hostile: its data may not
 * grow past GUNZIP_RATIO times what was read of it (a compression bomb
 * fills no disk), and a damaged or cut stream gives what came before.
 */
#ifndef SHIMTOP_PERF_GUNZIP_H
#define SHIMTOP_PERF_GUNZIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* perf.data compresses 10-15 times; deflate at most about 1000. */
#define GUNZIP_RATIO	200u

/* Whether a file's first bytes are gzip's (1f 8b). */
bool perf_gzipped(const unsigned char *first, size_t len);

/*
 * f's gzip data (from its start; name for messages), inflated and
 * rewound; f is closed.  NULL after a one-line error naming the problem
 * (st_error).  A stream damaged or cut partway is said in one warning,
 * what it held before is given, and damage (room bytes) says it in a
 * sentence for the end of the read; else damage is "".
 */
FILE *perf_gunzip(FILE *f, const char *name, char *damage, size_t room);

#endif
