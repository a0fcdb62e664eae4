/*
 * unwind_rows_cache.c - a file's unwind rows kept on disk by its
 * build-id, so the next session on the same programs asks libdw for
 * nothing it already knows: the FDE index, the rows of each function a
 * session made, and the rows of long functions worked out address by
 * address.  The copy is a file in shimtop's cache directory
 * (cache_dir.c), "rows-" and the build-id in hex, written when a file's
 * rows are let go with rows made since it was read.
 *
 * The cache is shimtop's own, but a file there is still bytes from
 * disk: it is checked whole before any of it is used (its build-id is
 * the file's, its counts add up to its size, every function's rows are
 * in bounds and cover it without gaps, every rule is one the walk
 * knows), and refused otherwise.  Host byte order: a copy is read on
 * the machine that wrote it.
 */
#include "symbols/unwind_rows_internal.h"
#include "symbols/symbols_internal.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define ROWS_MAGIC		"SHIMROWS"
#define ROWS_VERSION		1u
#define CACHE_MAX	(256ull << 20)
#define FDES_MAX	(1ull << 24)
#define SPANS_MAX	(1ull << 26)

struct disk_head {
	char magic[8];
	uint32_t version, id_len;
	unsigned char id[BUILD_ID_MAX];
	uint64_t nfdes, nspans, nalone;
};

struct disk_row {
	int32_t cfa_off;
	int16_t ra_off, rbp_off, rbx_off;
	uint8_t kind, plt_at, rbp_lost, rbx_lost;
	uint8_t pad[2];
};

struct disk_fde {
	uint64_t start, end;
	uint32_t at, n;
};

struct disk_span {
	uint64_t start, end;
	struct disk_row row;
};

struct disk_alone {
	uint64_t addr;		/* the row's address + 1, as a slot holds it */
	struct disk_row row;
};

static struct disk_row row_out(const struct unwind_row *r)
{
	return (struct disk_row){ r->cfa_off, r->ra_off, r->rbp_off, r->rbx_off, r->kind,
				  r->plt_at, r->rbp_lost, r->rbx_lost, { 0, 0 } };
}

/* A rule the walk knows, into r; false for anything else. */
static bool row_in(const struct disk_row *d, struct unwind_row *r)
{
	if (d->kind > ROW_NONE || d->plt_at > 15 || d->rbp_lost > 1 || d->rbx_lost > 1)
		return false;
	*r = (struct unwind_row){ .cfa_off = d->cfa_off, .ra_off = d->ra_off,
				  .rbp_off = d->rbp_off, .rbx_off = d->rbx_off, .kind = d->kind,
				  .plt_at = d->plt_at, .rbp_lost = d->rbp_lost,
				  .rbx_lost = d->rbx_lost };
	return true;
}

/* r's copy into o: the head, the FDEs, their rows, the rows worked out alone. */
static void rows_put(const struct unwind_rows *r, struct cache_out *o)
{
	struct disk_head h = { .version = ROWS_VERSION, .id_len = (uint32_t)r->build_id_len,
			       .nfdes = r->nfdes, .nspans = r->nspans, .nalone = r->nalone };

	memcpy(h.magic, ROWS_MAGIC, sizeof(h.magic));
	memcpy(h.id, r->build_id, r->build_id_len);
	cache_out_put(o, &h, sizeof(h));
	for (size_t i = 0; i < r->nfdes; i++) {
		struct disk_fde d = { r->fdes[i].start, r->fdes[i].end, r->fdes[i].at, r->fdes[i].n };

		cache_out_put(o, &d, sizeof(d));
	}
	for (size_t i = 0; i < r->nspans; i++) {
		struct disk_span d = { r->spans[i].start, r->spans[i].end, row_out(&r->spans[i].rule) };

		cache_out_put(o, &d, sizeof(d));
	}
	for (size_t i = 0; i < r->nalone; i++) {
		struct disk_alone d = { r->alone[i].addr, row_out(&r->alone[i]) };

		cache_out_put(o, &d, sizeof(d));
	}
}

size_t unwind_rows_to_bytes(const struct unwind_rows *r, unsigned char **out)
{
	struct cache_out o;

	cache_out_memory(&o);
	rows_put(r, &o);
	return cache_out_bytes(&o, out);
}

/* A made function's rows: in bounds, each non-empty, end to end over [f->start, f->end). */
static bool rows_cover(const struct fde *f, const struct span *spans, size_t nspans)
{
	uint64_t at;

	if (f->n == NOT_MADE)
		return true;
	if (!f->n || f->n > FDE_ROWS_MAX + 1 || f->at > nspans || f->n > nspans - f->at ||
	    f->end - f->start > FDE_MADE_WHOLE)
		return false;
	at = f->start;
	for (uint32_t i = 0; i < f->n; i++) {
		const struct span *sp = &spans[f->at + i];

		if (sp->start != at || sp->end <= sp->start || sp->end > f->end)
			return false;
		at = sp->end;
	}
	return at == f->end;
}

bool unwind_rows_from_bytes(struct unwind_rows *r, const unsigned char *id, size_t id_len,
			    const unsigned char *buf, size_t len)
{
	struct fde *fdes = NULL;
	struct span *spans = NULL;
	struct unwind_row *alone = NULL;
	const unsigned char *p = buf;
	struct disk_head h;
	bool ok = false;

	if (len < sizeof(h))
		goto out;
	memcpy(&h, p, sizeof(h));
	p += sizeof(h);
	/* Another file's copy (or another format's) is not this file's. */
	if (memcmp(h.magic, ROWS_MAGIC, sizeof(h.magic)) || h.version != ROWS_VERSION ||
	    h.id_len != id_len || id_len > BUILD_ID_MAX || memcmp(h.id, id, id_len))
		goto out;
	if (h.nfdes > FDES_MAX || h.nspans > SPANS_MAX || h.nalone > ROWS_MAX ||
	    len - sizeof(h) != h.nfdes * sizeof(struct disk_fde) +
	    h.nspans * sizeof(struct disk_span) + h.nalone * sizeof(struct disk_alone))
		goto out;
	fdes = st_xcalloc(h.nfdes + 1, sizeof(*fdes));
	spans = st_xcalloc(h.nspans + 1, sizeof(*spans));
	alone = st_xcalloc(h.nalone + 1, sizeof(*alone));
	for (size_t i = 0; i < h.nfdes; i++, p += sizeof(struct disk_fde)) {
		struct disk_fde d;

		memcpy(&d, p, sizeof(d));
		if (d.start >= d.end || (i && d.start < fdes[i - 1].start))
			goto out;
		fdes[i] = (struct fde){ d.start, d.end, d.at, d.n, false, 0, 0, NULL };
	}
	for (size_t i = 0; i < h.nspans; i++, p += sizeof(struct disk_span)) {
		struct disk_span d;

		memcpy(&d, p, sizeof(d));
		spans[i].start = d.start;
		spans[i].end = d.end;
		if (!row_in(&d.row, &spans[i].rule))
			goto out;
	}
	for (size_t i = 0; i < h.nfdes; i++)
		if (!rows_cover(&fdes[i], spans, h.nspans))
			goto out;
	for (size_t i = 0; i < h.nalone; i++, p += sizeof(struct disk_alone)) {
		struct disk_alone d;

		memcpy(&d, p, sizeof(d));
		if (!d.addr || !row_in(&d.row, &alone[i]))
			goto out;
		alone[i].addr = d.addr;
	}
	/* All checked: r's rows are these from now on. */
	free(r->fdes);
	free(r->spans);
	free(r->alone);
	free(r->slots);
	r->slots = NULL;
	r->n = r->cap = 0;
	r->fdes = fdes;
	r->nfdes = r->fdes_cap = h.nfdes;
	r->spans = spans;
	r->nspans = r->spans_cap = h.nspans;
	r->alone = alone;
	r->nalone = r->alone_cap = h.nalone;
	fdes = NULL;
	spans = NULL;
	alone = NULL;
	r->indexed = true;
	memcpy(r->build_id, id, id_len);
	r->build_id_len = id_len;
	/* Sized once: grown by doubling, its copies were a tenth of a short replay. */
	unwind_rows_reserve(r, r->nalone);
	for (size_t i = 0; i < r->nalone; i++)
		unwind_rows_keep(r, &r->alone[i]);
	ok = true;
out:
	free(fdes);
	free(spans);
	free(alone);
	r->cached = ok ? ROWS_CACHE_READ : ROWS_CACHE_REFUSED;
	r->dirty = 0;
	return ok;
}

void unwind_rows_cache_load(struct unwind_rows *r)
{
	char name[160];
	int dir = cache_dir_open(false);
	const unsigned char *map;
	size_t size;

	if (dir < 0)
		return;
	cache_file_name(name, sizeof(name), "rows-", r->build_id, r->build_id_len);
	map = cache_file_map(dir, name, CACHE_MAX, &size);
	close(dir);
	if (!map)
		return;
	/* Checked whole and copied: the file is never looked at again. */
	if (!unwind_rows_from_bytes(r, r->build_id, r->build_id_len, map, size))
		r->cached = ROWS_CACHE_REFUSED;
	munmap((void *)(uintptr_t)map, size);
}

void unwind_rows_cache_save(struct unwind_rows *r)
{
	char name[160];
	struct cache_out o;
	int dir;

	if (!r->build_id_len || !r->indexed)
		return;
	dir = cache_dir_open(true);
	if (dir < 0)
		return;
	cache_file_name(name, sizeof(name), "rows-", r->build_id, r->build_id_len);
	if (sizeof(struct disk_head) + r->nfdes * sizeof(struct disk_fde) +
	    r->nspans * sizeof(struct disk_span) + r->nalone * sizeof(struct disk_alone) <=
	    CACHE_MAX && cache_out_begin(&o, dir, name)) {
		rows_put(r, &o);
		(void)cache_out_end(&o, dir, name);
	}
	close(dir);
	r->dirty = 0;
}
