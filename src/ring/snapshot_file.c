/*
 * snapshot_file.c - the snapshot container (snapshot_file.h): every
 * field of a file is checked against the bytes before it is used, and a
 * section's size is the one zstd's frame declares and delivers.
 */
#include "ring/snapshot_file.h"
#include "output_file.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#define SECTION_ZSTD	0x1u
#define HEADER_BYTES	16u
#define SECTION_BYTES	40u
/* From version 3: "SHIMEND\0", the CRC-32 (zlib's) of every byte before it, 4 zero bytes. */
#define TRAILER_MAGIC	"SHIMEND"
#define TRAILER_BYTES	16u

bool snapshot_file_magic(const void *bytes, size_t len)
{
	return len >= 8 && !memcmp(bytes, SNAPSHOT_MAGIC, 8);
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* A name: printable, NUL-terminated inside its 16 bytes, not empty. */
static bool name_ok(const uint8_t *p)
{
	size_t i;

	for (i = 0; i < SNAPSHOT_NAME_LEN && p[i]; i++)
		if (p[i] < 0x21 || p[i] > 0x7e)
			return false;
	return i > 0 && i < SNAPSHOT_NAME_LEN;
}

static int take_section(const uint8_t *at, const uint8_t *end, const char *kept,
			struct snapshot_file *out, size_t index, size_t *used, char *err,
			size_t errlen)
{
	struct snapshot_section *s = &out->sections[out->nsections];
	uint32_t flags;
	uint64_t stored, raw;

	if ((size_t)(end - at) < SECTION_BYTES)
		return st_refuse(err, errlen, "section %zu's header is cut short: the file is truncated",
			       index + 1);
	if (!name_ok(at))
		return st_refuse(err, errlen, "section %zu has no valid name: the file is corrupt",
			       index + 1);
	memcpy(s->name, at, SNAPSHOT_NAME_LEN);
	flags = get32(at + 16);
	stored = get64(at + 24);
	raw = get64(at + 32);
	if (flags & ~SECTION_ZSTD || get32(at + 20))
		return st_refuse(err, errlen, "section '%s' has unknown flags %#x: the file is "
			       "corrupt or from a newer shimtop", s->name, flags);
	if (stored > (uint64_t)(end - at) - SECTION_BYTES)
		return st_refuse(err, errlen, "section '%s' needs %llu bytes, the file has %zu: "
			       "it is truncated", s->name, (unsigned long long)stored,
			       (size_t)(end - at) - SECTION_BYTES);
	if (raw > SNAPSHOT_SECTION_MAX)
		return st_refuse(err, errlen, "section '%s' holds %llu bytes, more than shimtop reads "
			       "(%llu)", s->name, (unsigned long long)raw, SNAPSHOT_SECTION_MAX);
	for (size_t i = 0; i < out->nsections; i++)
		if (!strcmp(out->sections[i].name, s->name))
			return st_refuse(err, errlen, "section '%s' appears twice: the file is corrupt",
				       s->name);
	at += SECTION_BYTES;
	if (kept && (flags & SECTION_ZSTD) && raw && !strcmp(s->name, kept)) {
		unsigned long long declared = ZSTD_getFrameContentSize(at, stored);

		/* What can be checked without decompressing; the rest as it is read. */
		if (declared != raw && !(declared == ZSTD_CONTENTSIZE_UNKNOWN && out->version >= 2))
			return st_refuse(err, errlen, "section '%s' does not decompress to its %llu "
				       "bytes: the file is corrupt", s->name,
				       (unsigned long long)raw);
		s->data = st_xmalloc(stored ? stored : 1);
		memcpy(s->data, at, stored);
		s->size = stored;
		s->raw = raw;
		out->nsections++;
		*used = SECTION_BYTES + stored;
		return 0;
	}
	s->data = st_xmalloc(raw ? raw : 1);
	s->size = raw;
	if (!(flags & SECTION_ZSTD)) {
		if (stored != raw) {
			free(s->data);
			return st_refuse(err, errlen, "section '%s' is stored with %llu bytes for %llu: "
				       "the file is corrupt", s->name, (unsigned long long)stored,
				       (unsigned long long)raw);
		}
		memcpy(s->data, at, raw);
	} else {
		unsigned long long declared = ZSTD_getFrameContentSize(at, stored);
		/* Streamed (version 2): the header's size bounds what it may give. */
		bool fits = declared == raw || (declared == ZSTD_CONTENTSIZE_UNKNOWN &&
						out->version >= 2);
		size_t got = fits ? ZSTD_decompress(s->data, raw, at, stored) : 0;

		if (!fits || ZSTD_isError(got) || got != raw) {
			free(s->data);
			return st_refuse(err, errlen, "section '%s' does not decompress to its %llu "
				       "bytes: the file is corrupt", s->name,
				       (unsigned long long)raw);
		}
	}
	out->nsections++;
	*used = SECTION_BYTES + stored;
	return 0;
}

int snapshot_file_parse(const uint8_t *buf, size_t len, const char *kept,
			struct snapshot_file *out, char *err, size_t errlen)
{
	const uint8_t *at = buf + HEADER_BYTES, *end = buf + len;
	uint32_t n;

	memset(out, 0, sizeof(*out));
	if (!len)
		return st_refuse(err, errlen, "the file is empty");
	if (!snapshot_file_magic(buf, len))
		return st_refuse(err, errlen, "not a shimtop snapshot (no SHIMSNAP magic)");
	if (len < HEADER_BYTES)
		return st_refuse(err, errlen, "the file is truncated inside its header");
	out->version = get32(buf + 8);
	n = get32(buf + 12);
	if (out->version > SNAPSHOT_VERSION)
		return st_refuse(err, errlen, "snapshot version %u is newer than this shimtop reads "
			       "(%u): open it with a newer shimtop", out->version, SNAPSHOT_VERSION);
	if (!out->version)
		return st_refuse(err, errlen, "version 0 is no snapshot version: the file is corrupt");
	if (n > SNAPSHOT_MAX_SECTIONS)
		return st_refuse(err, errlen, "%u sections, more than any snapshot has (%u): the "
			       "file is corrupt", n, SNAPSHOT_MAX_SECTIONS);
	if (out->version >= 3) {
		const uint8_t *t = end - TRAILER_BYTES;

		/* Every byte checked before any is believed. */
		if (len < HEADER_BYTES + TRAILER_BYTES || memcmp(t, TRAILER_MAGIC, 8) || get32(t + 12))
			return st_refuse(err, errlen, "the file is truncated: it ends without its "
				       "end marker");
		if ((uint32_t)crc32_z(crc32(0, NULL, 0), buf, len - TRAILER_BYTES) !=
		    get32(t + 8))
			return st_refuse(err, errlen, "the file is corrupt: its checksum disagrees");
		end = t;
	}
	for (uint32_t i = 0; i < n; i++) {
		size_t used = 0;
		int rc = take_section(at, end, kept, out, i, &used, err, errlen);

		if (rc < 0) {
			snapshot_file_free(out);
			return rc;
		}
		at += used;
	}
	if (at != end) {
		snapshot_file_free(out);
		return st_refuse(err, errlen, "%zu bytes follow its last section: the file is corrupt",
			       (size_t)(end - at));
	}
	return 0;
}

int snapshot_file_read(const char *path, const char *kept, struct snapshot_file *out)
{
	char err[256];
	size_t len;
	uint8_t *buf;
	int rc;

	memset(out, 0, sizeof(*out));
	buf = (uint8_t *)st_read_file(path, &len);
	if (!buf) {
		rc = -errno;
		st_error("cannot read snapshot '%s': %s", path, strerror(errno));
		return rc ? rc : -EIO;
	}
	rc = snapshot_file_parse(buf, len, kept, out, err, sizeof(err));
	free(buf);
	if (rc < 0)
		st_error("snapshot '%s': %s", path, err);
	return rc;
}

const struct snapshot_section *snapshot_file_section(const struct snapshot_file *f,
						     const char *name)
{
	for (size_t i = 0; i < f->nsections; i++)
		if (!strcmp(f->sections[i].name, name))
			return &f->sections[i];
	return NULL;
}

void snapshot_file_free(struct snapshot_file *f)
{
	for (size_t i = 0; i < f->nsections; i++)
		free(f->sections[i].data);
	f->nsections = 0;
}

/* ---- a kept section read as a stream ---- */

struct section_reader {
	ZSTD_DCtx *z;
	ZSTD_inBuffer in;
	uint64_t raw, given;
	bool ended, bad;
};

static ssize_t section_read(void *cookie, char *p, size_t len)
{
	struct section_reader *r = cookie;
	ZSTD_outBuffer o = { p, len, 0 };

	while (o.pos == 0 && !r->ended && !r->bad) {
		size_t left = ZSTD_decompressStream(r->z, &o, &r->in);

		r->given += o.pos;
		/* Undecodable, past its raw bytes, or cut short: nothing more of it. */
		if (ZSTD_isError(left) || r->given > r->raw ||
		    (left && o.pos == 0 && r->in.pos == r->in.size)) {
			r->bad = true;
			o.pos = 0;
		}
		/* Whole (its checksum checked) but not its raw size: this much is good. */
		r->ended = left == 0;
		if (r->ended && (r->given != r->raw || r->in.pos != r->in.size))
			r->bad = true;
	}
	if (o.pos == 0 && r->bad) {
		errno = EBADMSG;
		return -1;
	}
	return (ssize_t)o.pos;
}

static int section_close(void *cookie)
{
	struct section_reader *r = cookie;

	ZSTD_freeDCtx(r->z);
	free(r);
	return 0;
}

FILE *snapshot_section_open(const struct snapshot_section *s)
{
	cookie_io_functions_t io = { section_read, NULL, NULL, section_close };
	struct section_reader *r;
	FILE *f;

	if (!s->raw)
		return s->size ? fmemopen(s->data, s->size, "rb") : NULL;
	r = st_xcalloc(1, sizeof(*r));
	r->z = ZSTD_createDCtx();
	r->in = (ZSTD_inBuffer){ s->data, s->size, 0 };
	r->raw = s->raw;
	f = r->z ? fopencookie(r, "rb", io) : NULL;
	if (!f) {
		ZSTD_freeDCtx(r->z);
		free(r);
	}
	return f;
}

/* Written and added to the whole file's checksum. */
static int put(FILE *f, const void *p, size_t n, uint32_t *crc)
{
	*crc = (uint32_t)crc32_z(*crc, p, n);
	return st_output_write(f, p, n);
}

static int write_section(FILE *f, const struct snapshot_section *s, uint64_t *bytes,
			 uint32_t *crc)
{
	size_t bound = s->raw ? 0 : ZSTD_compressBound(s->size);
	uint8_t head[SECTION_BYTES], *packed = s->raw ? s->data : st_xmalloc(bound ? bound : 1);
	size_t stored = s->raw ? s->size : ZSTD_compress(packed, bound, s->data, s->size, 3);
	uint32_t flags = SECTION_ZSTD, reserved = 0;
	uint64_t st, raw = s->raw ? s->raw : s->size;
	int rc;

	if (ZSTD_isError(stored)) {
		free(packed);
		return -ENOMEM;
	}
	st = stored;
	memset(head, 0, sizeof(head));
	memcpy(head, s->name, strnlen(s->name, SNAPSHOT_NAME_LEN - 1));
	memcpy(head + 16, &flags, 4);
	memcpy(head + 20, &reserved, 4);
	memcpy(head + 24, &st, 8);
	memcpy(head + 32, &raw, 8);
	rc = put(f, head, sizeof(head), crc);
	if (!rc)
		rc = put(f, packed, stored, crc);
	if (!s->raw)
		free(packed);
	*bytes += sizeof(head) + stored;
	return rc;
}

struct snapshot_stream {
	ZSTD_CCtx *z;
	FILE *f;
	uint8_t *out;
	size_t n, cap;
	uint64_t raw;
	int error;
};

/* Compresses what is given (all of it: ZSTD_e_end once at the close). */
static int stream_push(struct snapshot_stream *s, const void *p, size_t len,
		       ZSTD_EndDirective how)
{
	ZSTD_inBuffer in = { p, len, 0 };
	size_t left;

	do {
		ZSTD_outBuffer o;

		ST_GROW(s->out, s->cap, s->n + ZSTD_CStreamOutSize());
		o = (ZSTD_outBuffer){ s->out + s->n, s->cap - s->n, 0 };
		left = ZSTD_compressStream2(s->z, &o, &in, how);
		if (ZSTD_isError(left))
			return -ENOMEM;
		s->n += o.pos;
	} while (how == ZSTD_e_end ? left != 0 : in.pos < in.size);
	return 0;
}

/*
 * Never fails the writer (whose messages would name a record file): a
 * section past the bound, or zstd out of memory, is only noted and said
 * by snapshot_stream_section.
 */
static ssize_t stream_write(void *cookie, const char *p, size_t len)
{
	struct snapshot_stream *s = cookie;

	s->raw += len;
	if (s->raw > SNAPSHOT_SECTION_MAX && !s->error)
		s->error = -EFBIG;
	if (!s->error)
		s->error = stream_push(s, p, len, ZSTD_e_continue);
	return (ssize_t)len;
}

static int stream_close(void *cookie)
{
	struct snapshot_stream *s = cookie;

	if (!s->error)
		s->error = stream_push(s, NULL, 0, ZSTD_e_end);
	s->f = NULL;
	return s->error ? -1 : 0;
}

struct snapshot_stream *snapshot_stream_new(void)
{
	struct snapshot_stream *s = st_xcalloc(1, sizeof(*s));
	cookie_io_functions_t io = { NULL, stream_write, NULL, stream_close };

	s->z = ZSTD_createCCtx();
	s->f = s->z ? fopencookie(s, "w", io) : NULL;
	/* The checksum: a damaged stream is told apart from records (read late). */
	if (s->f) {
		ZSTD_CCtx_setParameter(s->z, ZSTD_c_compressionLevel, 3);
		ZSTD_CCtx_setParameter(s->z, ZSTD_c_checksumFlag, 1);
	} else
		s->error = -ENOMEM;
	return s;
}

FILE *snapshot_stream_file(struct snapshot_stream *s)
{
	return s->f;
}

int snapshot_stream_section(struct snapshot_stream *s, const char *name,
			    struct snapshot_section *out)
{
	int rc = s->f ? -EIO : s->error;	/* still open: not finished */

	memset(out, 0, sizeof(*out));
	snprintf(out->name, SNAPSHOT_NAME_LEN, "%s", name);
	if (!rc && s->raw) {
		out->data = s->out;
		out->size = s->n;
		out->raw = s->raw;
		s->out = NULL;
	}
	if (s->f)
		fclose(s->f);
	ZSTD_freeCCtx(s->z);
	free(s->out);
	free(s);
	return rc;
}

int snapshot_file_write(const char *path, const struct snapshot_section *sections, size_t n,
			uint64_t *bytes)
{
	uint8_t head[HEADER_BYTES], end[TRAILER_BYTES] = TRAILER_MAGIC;
	uint32_t version = SNAPSHOT_VERSION, count = (uint32_t)n, crc = (uint32_t)crc32(0, NULL, 0);
	struct st_output out;
	int rc;

	*bytes = HEADER_BYTES + TRAILER_BYTES;
	/* What a reader would refuse is not written. */
	for (size_t i = 0; i < n; i++)
		if (sections[i].size > SNAPSHOT_SECTION_MAX || sections[i].raw > SNAPSHOT_SECTION_MAX)
			return -EFBIG;
	rc = st_output_replace(&out, path, ST_OUTPUT_PRIVATE);
	if (rc)
		return rc;
	memcpy(head, SNAPSHOT_MAGIC, 8);
	memcpy(head + 8, &version, 4);
	memcpy(head + 12, &count, 4);
	rc = put(out.f, head, sizeof(head), &crc);
	for (size_t i = 0; !rc && i < n; i++)
		rc = write_section(out.f, &sections[i], bytes, &crc);
	memcpy(end + 8, &crc, 4);
	if (!rc)
		rc = st_output_write(out.f, end, sizeof(end));
	return st_output_finish(&out, rc);
}
