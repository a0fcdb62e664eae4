/*
 * perf_inflate.h - the records inside perf record -z's compressed
 * records: each one's payload continues one zstd stream, and the records
 * it holds can run on into the next one.  Output is made a bounded piece
 * at a time, so a small payload that inflates to gigabytes costs time in
 * proportion, never memory.
 */
#ifndef SHIMTOP_PERF_INFLATE_H
#define SHIMTOP_PERF_INFLATE_H

#include <stdbool.h>
#include <stddef.h>

struct perf_inflate;

struct perf_inflate *perf_inflate_new(void);
/* Takes a compressed record's payload (copied: the caller's buffer is free after). */
void perf_inflate_feed(struct perf_inflate *z, const void *payload, size_t len);
/*
 * The next whole record into rec (room bytes, at least 65535): 1, or 0
 * when the payloads so far hold no more, or -1 when the stream or a
 * record in it is damaged (why in err).
 */
int perf_inflate_next(struct perf_inflate *z, void *rec, size_t room, char *err, size_t errlen);
/* Whether part of a record is held, waiting for the next payload. */
bool perf_inflate_partial(const struct perf_inflate *z);
void perf_inflate_free(struct perf_inflate *z);

#endif
