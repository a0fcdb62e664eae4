/* perf_inflate.c - perf record -z's records inflated (see perf_inflate.h). */
#include "sampler/perf_inflate.h"
#include "util.h"

#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#define PLAIN_MAX	(1u << 20)	/* inflated bytes held at once */

struct perf_inflate {
	ZSTD_DStream *stream;
	unsigned char *in;		/* the payload not yet inflated */
	size_t in_len, in_at, in_cap;
	unsigned char *plain;		/* inflated bytes: records from plain_at */
	size_t plain_len, plain_at;
};

struct perf_inflate *perf_inflate_new(void)
{
	struct perf_inflate *z = st_xcalloc(1, sizeof(*z));

	/* A stream zstd cannot make is memory it could not get, as st_xmalloc's. */
	z->stream = st_xcheck(ZSTD_createDStream());
	(void)ZSTD_initDStream(z->stream);
	z->plain = st_xmalloc(PLAIN_MAX);
	return z;
}

void perf_inflate_feed(struct perf_inflate *z, const void *payload, size_t len)
{
	/* What is left of the last payload comes first. */
	if (z->in_at) {
		memmove(z->in, z->in + z->in_at, z->in_len - z->in_at);
		z->in_len -= z->in_at;
		z->in_at = 0;
	}
	ST_GROW_BARE(z->in, z->in_cap, z->in_len + len ? z->in_len + len : 1);
	memcpy(z->in + z->in_len, payload, len);
	z->in_len += len;
}

/* More inflated bytes after those held: false when the input gives none. */
static bool inflate_more(struct perf_inflate *z, char *err, size_t errlen, bool *bad)
{
	ZSTD_outBuffer out;
	ZSTD_inBuffer in = { z->in, z->in_len, z->in_at };
	size_t rc;

	if (z->plain_at) {
		memmove(z->plain, z->plain + z->plain_at, z->plain_len - z->plain_at);
		z->plain_len -= z->plain_at;
		z->plain_at = 0;
	}
	if (z->in_at == z->in_len || z->plain_len == PLAIN_MAX)
		return false;
	out = (ZSTD_outBuffer){ z->plain, PLAIN_MAX, z->plain_len };
	rc = ZSTD_decompressStream(z->stream, &out, &in);
	if (ZSTD_isError(rc)) {
		snprintf(err, errlen, "its compressed data is damaged (zstd: %s)",
			 ZSTD_getErrorName(rc));
		*bad = true;
		return false;
	}
	z->in_at = in.pos;
	z->plain_len = out.pos;
	return true;
}

int perf_inflate_next(struct perf_inflate *z, void *rec, size_t room, char *err, size_t errlen)
{
	bool bad = false;

	for (;;) {
		size_t held = z->plain_len - z->plain_at;
		struct perf_event_header h;

		if (held >= sizeof(h)) {
			memcpy(&h, z->plain + z->plain_at, sizeof(h));
			if (h.size < sizeof(h) || h.size > room) {
				snprintf(err, errlen, "a compressed record holds a record of size %u",
					 (unsigned)h.size);
				return -1;
			}
			if (h.size <= held) {
				memcpy(rec, z->plain + z->plain_at, h.size);
				z->plain_at += h.size;
				return 1;
			}
		}
		if (!inflate_more(z, err, errlen, &bad))
			return bad ? -1 : 0;
	}
}

bool perf_inflate_partial(const struct perf_inflate *z)
{
	return z->plain_len > z->plain_at;
}

void perf_inflate_free(struct perf_inflate *z)
{
	if (!z)
		return;
	ZSTD_freeDStream(z->stream);
	free(z->in);
	free(z->plain);
	free(z);
}
