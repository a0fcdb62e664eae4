/* record_file.c - writing and reading --record files. */
#include "ring/record_file.h"
#include "ring/record.h"
#include "output_file.h"
#include "text_safe.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

struct record_writer {
	struct st_output out;		/* a file opened by name, or out.f NULL */
	FILE *f;
	char *path;
	int error;			/* the first failed write's -errno */
	uint32_t crc;			/* of the bytes since the last check */
	uint64_t bytes, records;
};

/*
 * Read in large pieces, records handed out in place: a small read a
 * record cost a replay of millions of them most of its time.  Records'
 * sizes are multiples of 8, so each starts 8-aligned in buf.
 */
#define READ_BUF	(1u << 20)

struct record_reader {
	FILE *f;
	char *path;
	uint64_t offset;
	size_t start, end;		/* the unread bytes in buf */
	/* Version 5's checks: a block is verified whole before it is read. */
	bool checked, ended, cut, check_next;
	size_t block_left;		/* verified bytes not yet handed out */
	uint32_t crc;			/* of the bytes since the last check */
	uint64_t crc_bytes, records;
	char error[256];
	_Alignas(8) unsigned char buf[READ_BUF];
};

static int put(struct record_writer *w, const void *p, size_t n)
{
	int rc = st_output_write(w->f, p, n);

	if (!rc) {
		w->crc = (uint32_t)crc32(w->crc, p, (uInt)n);
		w->bytes += n;
	}
	return rc;
}

static int put_check(struct record_writer *w, uint16_t flags)
{
	struct st_file_check c = {
		.type = ST_FILE_CHECK, .flags = flags, .size = sizeof(c),
		.crc = w->crc, .bytes = w->bytes, .records = w->records,
	};
	int rc = st_output_write(w->f, &c, sizeof(c));

	w->crc = (uint32_t)crc32(0, NULL, 0);
	w->bytes = 0;
	return rc;
}

/* The writer, its header written; NULL with *rc the failed write's -errno. */
static struct record_writer *writer_new(FILE *f, const char *path,
					const struct st_file_header *h, int *rc)
{
	struct record_writer *w = st_xcalloc(1, sizeof(*w));

	w->f = f;
	w->crc = (uint32_t)crc32(0, NULL, 0);
	*rc = put(w, h, sizeof(*h));
	if (*rc) {
		st_error("cannot write record file '%s': %s", path, strerror(-*rc));
		free(w);
		return NULL;
	}
	w->path = st_xstrdup(path);
	return w;
}

struct record_writer *record_writer_open(const char *path,
					 const struct st_file_header *h)
{
	struct st_output out;
	struct record_writer *w;
	/* Samples may carry the target's stack: private, as perf.data is. */
	int rc = st_output_stream(&out, path, ST_OUTPUT_PRIVATE);

	if (rc) {
		st_error("cannot create record file '%s': %s", path, st_output_strerror(rc));
		return NULL;
	}
	w = writer_new(out.f, path, h, &rc);
	if (!w)
		st_output_finish(&out, rc);
	else
		w->out = out;
	return w;
}

struct record_writer *record_writer_on(FILE *f, const char *path,
				       const struct st_file_header *h)
{
	int rc;
	struct record_writer *w = writer_new(f, path, h, &rc);

	if (!w)
		fclose(f);
	return w;
}

int record_writer_append(struct record_writer *w, const void *rec)
{
	const struct st_header *h = rec;
	int rc;

	if (w->error)
		return w->error;
	rc = put(w, rec, h->size);
	w->records++;
	if (!rc && w->bytes >= RECORD_CHECK_BYTES)
		rc = put_check(w, 0);
	if (rc) {
		st_error("writing record file '%s' failed: %s; recording stopped, "
			 "sampling goes on", w->path, strerror(-rc));
		w->error = rc;
	}
	return rc;
}

int record_writer_close(struct record_writer *w)
{
	int rc;

	if (!w)
		return 0;
	rc = w->error ? w->error : put_check(w, ST_CHECK_END);
	if (w->out.f) {
		rc = st_output_finish(&w->out, rc);
	} else {
		errno = 0;
		if (fclose(w->f) != 0 && !rc)
			rc = errno ? -errno : -EIO;
	}
	if (rc && !w->error)
		st_error("closing record file '%s' failed: %s", w->path, strerror(-rc));
	free(w->path);
	free(w);
	return rc;
}

struct record_reader *record_reader_open(const char *path,
					 struct st_file_header *h)
{
	FILE *f = fopen(path, "rbe");

	if (!f) {
		st_error("cannot open record file '%s': %s", path, strerror(errno));
		return NULL;
	}
	return record_reader_on(f, path, h);
}

struct record_reader *record_reader_on(FILE *f, const char *path, struct st_file_header *h)
{
	struct record_reader *r;
	uint32_t crc = (uint32_t)crc32(0, NULL, 0);
	size_t size;

	memset(h, 0, sizeof(*h));
	errno = 0;
	if (fread(h, ST_FILE_HEADER_V2_SIZE, 1, f) != 1 ||
	    memcmp(h->magic, ST_FILE_MAGIC, sizeof(ST_FILE_MAGIC)) != 0) {
		/* -i reads three kinds: say which it is not, and what it is. */
		const char *what = ferror(f) && errno == EISDIR ? "is a directory, not"
				   : ferror(f) ? "cannot be read, so is not"
				   : feof(f) && !ftell(f) ? "is empty, not" : "is not";

		st_error("'%s' %s a recording shimtop reads (its own from -o, a snapshot, or "
			 "perf record's perf.data, gzip'd or not)", path, what);
		fclose(f);
		return NULL;
	}
	/*
	 * 3 differs from 4 only in having no ST_OBS_SELF batches; 5 adds
	 * checks, 6 room for more sampled events.  The rest stays zero.
	 */
	size = h->version == 2 ? ST_FILE_HEADER_V2_SIZE
	       : h->version <= 5 ? ST_FILE_HEADER_V5_SIZE : sizeof(*h);
	if (h->version < 2 || h->version > ST_FILE_VERSION || h->header_size != size ||
	    (size > ST_FILE_HEADER_V2_SIZE &&
	     fread((char *)h + ST_FILE_HEADER_V2_SIZE, size - ST_FILE_HEADER_V2_SIZE, 1, f) != 1)) {
		st_error("record file '%s' is version %u; this shimtop reads "
			 "versions 2 to %u: replay it with the shimtop that wrote it",
			 path, h->version, ST_FILE_VERSION);
		fclose(f);
		return NULL;
	}
	/* The header as written: the first check covers it. */
	crc = (uint32_t)crc32(crc, (const Bytef *)h, h->header_size);
	/* Strings come from the file: make sure they end. */
	h->comm[sizeof(h->comm) - 1] = '\0';
	st_text_safe(h->comm);
	h->events[sizeof(h->events) - 1] = '\0';
	h->note[sizeof(h->note) - 1] = '\0';
	for (int i = 0; i < ST_MAX_EVENTS; i++)
		h->counters[i][63] = '\0';
	for (int i = 0; i < ST_MAX_SAMPLED; i++)
		h->sampled[i][63] = '\0';
	if (h->nsampled < 2 || h->nsampled > ST_MAX_SAMPLED)
		h->nsampled = 0;
	/* A unit from a newer or damaged file is shown as unknown. */
	if (h->period_unit > ST_PERIOD_CYCLES)
		h->period_unit = ST_PERIOD_UNKNOWN;
	if (h->ncounters < 0 || h->ncounters > ST_MAX_EVENTS ||
	    h->ipc_cycles >= h->ncounters || h->ipc_instructions >= h->ncounters) {
		h->ncounters = 0;
		h->ipc_cycles = h->ipc_instructions = -1;
	}
	r = st_xcalloc(1, sizeof(*r));
	r->f = f;
	r->path = st_xstrdup(path);
	r->offset = h->header_size;
	r->checked = h->version >= 5;
	r->crc = crc;
	r->crc_bytes = h->header_size;
	return r;
}

/* At least need unread bytes in buf, unless the file ends first. */
static bool have(struct record_reader *r, size_t need)
{
	size_t n;

	if (r->end - r->start >= need)
		return true;
	memmove(r->buf, r->buf + r->start, r->end - r->start);
	r->end -= r->start;
	r->start = 0;
	while (r->end < need && (n = fread(r->buf + r->end, 1, READ_BUF - r->end, r->f)) > 0)
		r->end += n;
	return r->end >= need;
}

static long corrupt(struct record_reader *r, uint64_t at, const char *what)
{
	snprintf(r->error, sizeof(r->error), "record file '%s' is corrupt at byte %llu (%s)",
		 r->path, (unsigned long long)at, what);
	return -EBADMSG;
}

/*
 * Version 5: finds the check that ends the block at the read position and
 * verifies the block against it before any of its records is handed out.
 * A file that ends first leaves its whole records to be read unverified,
 * and then said to be cut short.
 */
static long verify_block(struct record_reader *r)
{
	struct st_header h;
	struct st_file_check c;
	uint64_t records = 0;
	size_t off = 0;
	bool found = false;
	uint32_t crc;

	for (;;) {
		if (off + sizeof(c) + ST_RECORD_MAX > READ_BUF)
			return corrupt(r, r->offset + off, "no check where one must be");
		if (!have(r, off + sizeof(h)))
			break;
		memcpy(&h, r->buf + r->start + off, sizeof(h));
		if (h.type == ST_FILE_CHECK) {
			found = true;
			break;
		}
		if (h.size < sizeof(h) || h.size > ST_RECORD_MAX || h.size % 8) {
			char what[48];

			snprintf(what, sizeof(what), "record size %u", h.size);
			return corrupt(r, r->offset + off, what);
		}
		if (!have(r, off + h.size))
			break;
		off += h.size;
		records++;
	}
	if (ferror(r->f)) {
		snprintf(r->error, sizeof(r->error),
			 "record file '%s' cannot be read past byte %llu: %s", r->path,
			 (unsigned long long)(r->offset + off), strerror(errno));
		return -EBADMSG;
	}
	r->block_left = off;
	if (!found || !have(r, off + sizeof(c))) {
		r->cut = true;		/* said once these records are read */
		return 0;
	}
	memcpy(&c, r->buf + r->start + off, sizeof(c));
	crc = (uint32_t)crc32(r->crc, r->buf + r->start, (uInt)off);
	if (c.type != ST_FILE_CHECK || c.size != sizeof(c) || (c.flags & ~ST_CHECK_END) ||
	    c.reserved || c.crc != crc || c.bytes != r->crc_bytes + off ||
	    c.records != r->records + records) {
		snprintf(r->error, sizeof(r->error),
			 "record file '%s' is corrupt between bytes %llu and %llu: its checksum "
			 "disagrees", r->path,
			 (unsigned long long)(r->offset - r->crc_bytes),
			 (unsigned long long)(r->offset + off));
		return -EBADMSG;
	}
	r->check_next = true;
	return 0;
}

/* Version 5: the next record of a verified block, its check, or the end. */
static long next_checked(struct record_reader *r, const void **rec)
{
	while (r->block_left == 0) {
		if (r->check_next) {
			const struct st_file_check *c =
				(const void *)(r->buf + r->start);

			r->ended = c->flags & ST_CHECK_END;
			r->start += sizeof(*c);
			r->offset += sizeof(*c);
			r->crc = (uint32_t)crc32(0, NULL, 0);
			r->crc_bytes = 0;
			r->check_next = false;
		}
		if (r->cut) {
			snprintf(r->error, sizeof(r->error),
				 "record file '%s' is truncated at byte %llu: it has no end check "
				 "(shimtop was killed while writing it, or the file was cut)", r->path,
				 (unsigned long long)r->offset);
			return -EBADMSG;
		}
		if (r->ended) {
			if (have(r, 1))
				return corrupt(r, r->offset, "bytes after the end check");
			return 0;
		}
		{
			long rc = verify_block(r);

			if (rc < 0)
				return rc;
		}
	}
	{
		struct st_header h;

		memcpy(&h, r->buf + r->start, sizeof(h));
		if (!st_record_check(r->buf + r->start, h.size)) {
			char what[48];

			snprintf(what, sizeof(what), "bad type %u record", h.type);
			return corrupt(r, r->offset, what);
		}
		*rec = r->buf + r->start;
		r->crc = (uint32_t)crc32(r->crc, r->buf + r->start, h.size);
		r->crc_bytes += h.size;
		r->records++;
		r->start += h.size;
		r->offset += h.size;
		r->block_left -= h.size;
		return (long)h.size;
	}
}

long record_reader_next(struct record_reader *r, const void **rec)
{
	struct st_header h;

	if (r->checked)
		return next_checked(r, rec);
	if (!have(r, sizeof(h))) {
		if (r->end == 0 && !ferror(r->f))
			return 0;
		goto cut;
	}
	memcpy(&h, r->buf + r->start, sizeof(h));
	if (h.size < sizeof(h) || h.size > ST_RECORD_MAX || h.size % 8) {
		snprintf(r->error, sizeof(r->error),
			 "record file '%s' is corrupt at byte %llu (record size %u)",
			 r->path, (unsigned long long)r->offset, h.size);
		return -EBADMSG;
	}
	if (!have(r, h.size))
		goto cut;
	if (!st_record_check(r->buf + r->start, h.size)) {
		snprintf(r->error, sizeof(r->error),
			 "record file '%s' is corrupt at byte %llu (bad type %u record)",
			 r->path, (unsigned long long)r->offset, h.type);
		return -EBADMSG;
	}
	*rec = r->buf + r->start;
	r->start += h.size;
	r->offset += h.size;
	return (long)h.size;
cut:
	if (ferror(r->f))
		snprintf(r->error, sizeof(r->error),
			 "record file '%s' cannot be read past byte %llu: %s", r->path,
			 (unsigned long long)r->offset, strerror(errno));
	else
		snprintf(r->error, sizeof(r->error),
			 "record file '%s' is truncated at byte %llu", r->path,
			 (unsigned long long)r->offset);
	return -EBADMSG;
}

const char *record_reader_error(const struct record_reader *r)
{
	return r->error;
}

void record_reader_close(struct record_reader *r)
{
	if (!r)
		return;
	fclose(r->f);
	free(r->path);
	free(r);
}
