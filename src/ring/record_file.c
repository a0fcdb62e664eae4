/* record_file.c - writing and reading --record files. */
#include "ring/record_file.h"
#include "ring/record.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct record_writer {
	FILE *f;
	char *path;
	bool failed;
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
	char error[256];
	_Alignas(8) unsigned char buf[READ_BUF];
};

void record_header_from_info(struct st_file_header *h,
			     const struct st_source_info *in, int pid,
			     const char *comm)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, ST_FILE_MAGIC, sizeof(ST_FILE_MAGIC));
	h->version = ST_FILE_VERSION;
	h->header_size = sizeof(*h);
	h->pid = pid;
	h->ncounters = in->ncounters;
	h->ipc_cycles = in->ipc_cycles;
	h->ipc_instructions = in->ipc_instructions;
	h->start_time = st_now_ns();
	snprintf(h->comm, sizeof(h->comm), "%s", comm);
	snprintf(h->events, sizeof(h->events), "%s", in->events);
	h->period_value = in->period.value;
	h->period_unit = in->period.unit;
	h->period_randomized = in->period.randomized;
	snprintf(h->note, sizeof(h->note), "%.191s", in->note);
	memcpy(h->counters, in->counters, sizeof(h->counters));
	h->nsampled = in->nsampled;
	memcpy(h->sampled, in->sampled, sizeof(h->sampled));
}

struct record_writer *record_writer_open(const char *path,
					 const struct st_file_header *h)
{
	FILE *f = fopen(path, "wbe");

	if (!f) {
		st_error("cannot create record file '%s': %s", path, strerror(errno));
		return NULL;
	}
	return record_writer_on(f, path, h);
}

struct record_writer *record_writer_on(FILE *f, const char *path,
				       const struct st_file_header *h)
{
	struct record_writer *w;

	if (fwrite(h, sizeof(*h), 1, f) != 1) {
		st_error("cannot write record file '%s': %s", path, strerror(errno));
		fclose(f);
		return NULL;
	}
	w = st_xcalloc(1, sizeof(*w));
	w->f = f;
	w->path = st_xstrdup(path);
	return w;
}

int record_writer_append(struct record_writer *w, const void *rec)
{
	const struct st_header *h = rec;

	if (w->failed)
		return -EIO;
	if (fwrite(rec, h->size, 1, w->f) != 1) {
		st_error("writing record file '%s' failed: %s; recording stopped, "
			 "sampling goes on", w->path, strerror(errno));
		w->failed = true;
		return -EIO;
	}
	return 0;
}

int record_writer_close(struct record_writer *w)
{
	int rc = 0;

	if (!w)
		return 0;
	if (fclose(w->f) != 0 && !w->failed) {
		st_error("closing record file '%s' failed: %s", w->path, strerror(errno));
		rc = -EIO;
	}
	if (w->failed)
		rc = -EIO;
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

	memset(h, 0, sizeof(*h));
	if (fread(h, ST_FILE_HEADER_V2_SIZE, 1, f) != 1 ||
	    memcmp(h->magic, ST_FILE_MAGIC, sizeof(ST_FILE_MAGIC)) != 0) {
		st_error("'%s' is not a shimtop record file (bad header); "
			 "make one with shimtop --record", path);
		fclose(f);
		return NULL;
	}
	/* 3 differs from 4 only in having no ST_OBS_SELF batches. */
	if (!(h->version == 2 && h->header_size == ST_FILE_HEADER_V2_SIZE) &&
	    !((h->version == 3 || h->version == ST_FILE_VERSION) && h->header_size == sizeof(*h) &&
	      fread((char *)h + ST_FILE_HEADER_V2_SIZE,
		    sizeof(*h) - ST_FILE_HEADER_V2_SIZE, 1, f) == 1)) {
		st_error("record file '%s' is version %u; this shimtop reads "
			 "versions 2 to %u: replay it with the shimtop that wrote it",
			 path, h->version, ST_FILE_VERSION);
		fclose(f);
		return NULL;
	}
	/* Strings come from the file: make sure they end. */
	h->comm[sizeof(h->comm) - 1] = '\0';
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

long record_reader_next(struct record_reader *r, const void **rec)
{
	struct st_header h;

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
