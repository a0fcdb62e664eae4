/*
 * snapshot.c - reading a snapshot back (snapshot.h): the container
 * checked, the symbols section parsed field by field against its length,
 * the records handed to the replay as a stream, decompressed as they are
 * read (the record reader checks them as it checks any recording).
 */
#include "session/snapshot.h"
#include "ring/snapshot_file.h"
#include "symbols/symbols.h"
#include "model/model.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SYMBOL_HEAD	20u	/* flags and four lengths */

int snapshot_parse_symbols(const uint8_t *p, size_t len, snapshot_symbol_fn fn, void *arg,
			   char *err, size_t errlen)
{
	const uint8_t *end = p + len;
	uint32_t count;

	if (len < 4)
		return st_refuse(err, errlen, "its symbols section is cut short");
	memcpy(&count, p, 4);
	p += 4;
	if (count > (len - 4) / SYMBOL_HEAD)
		return st_refuse(err, errlen, "its symbols section claims %u symbols in %zu bytes",
			   count, len);
	for (uint32_t i = 0; i < count; i++) {
		uint32_t lens[4];
		char *s[4];
		size_t total = 0;

		if ((size_t)(end - p) < SYMBOL_HEAD)
			return st_refuse(err, errlen, "symbol %u of %u is cut short", i + 1, count);
		/* p[2]: what named it (enum st_named_by); 0 in files before it. */
		if (p[0] > 1 || p[1] > 1 || p[2] > NAMED_BY_KERNEL || p[3])
			return st_refuse(err, errlen, "symbol %u has bad flags", i + 1);
		memcpy(lens, p + 4, sizeof(lens));
		for (int k = 0; k < 4; k++) {
			if (lens[k] > (size_t)(end - p) - SYMBOL_HEAD - total)
				return st_refuse(err, errlen, "symbol %u's strings run past the section",
					   i + 1);
			total += lens[k];
		}
		if (!lens[0] || !lens[1])
			return st_refuse(err, errlen, "symbol %u has no module or no name", i + 1);
		if (memchr(p + SYMBOL_HEAD, 0, total))
			return st_refuse(err, errlen, "symbol %u's strings hold a NUL byte", i + 1);
		{
			const uint8_t *at = p + SYMBOL_HEAD;

			for (int k = 0; k < 4; k++) {
				s[k] = st_xcalloc(1, lens[k] + 1);
				memcpy(s[k], at, lens[k]);
				at += lens[k];
			}
		}
		fn(s[0], s[1], lens[2] ? s[2] : s[1], p[1] ? s[3] : NULL, p[0], p[2], arg);
		for (int k = 0; k < 4; k++)
			free(s[k]);
		p += SYMBOL_HEAD + total;
	}
	if (p != end)
		return st_refuse(err, errlen, "%zu bytes follow its last symbol", (size_t)(end - p));
	return 0;
}

#define CODE_HEAD	20u	/* id, length, address, flags */

int snapshot_parse_code(const uint8_t *p, size_t len, size_t nsymbols, snapshot_code_fn fn,
			void *arg, char *err, size_t errlen)
{
	const uint8_t *end = p + len;
	uint32_t count;

	if (len < 4)
		return st_refuse(err, errlen, "its code section is cut short");
	memcpy(&count, p, 4);
	p += 4;
	if (count > (len - 4) / CODE_HEAD)
		return st_refuse(err, errlen, "its code section claims %u functions in %zu bytes",
				 count, len);
	for (uint32_t i = 0; i < count; i++) {
		uint32_t id, n;
		uint64_t start;

		if ((size_t)(end - p) < CODE_HEAD)
			return st_refuse(err, errlen, "function %u's code is cut short", i + 1);
		memcpy(&id, p, 4);
		memcpy(&n, p + 4, 4);
		memcpy(&start, p + 8, 8);
		if (id >= nsymbols)
			return st_refuse(err, errlen, "function %u's code is of symbol %u, past the "
					 "%zu symbols", i + 1, id, nsymbols);
		if (p[16] > 1 || p[17] || p[18] || p[19])
			return st_refuse(err, errlen, "function %u's code has bad flags", i + 1);
		if (!n || n > SYMBOL_CODE_MAX || n > (size_t)(end - p) - CODE_HEAD ||
		    start > UINT64_MAX - n)
			return st_refuse(err, errlen, "function %u's code has a bad length (%u)",
					 i + 1, n);
		fn(id, start, p + CODE_HEAD, n, p[16] != 0, arg);
		p += CODE_HEAD + n;
	}
	if (p != end)
		return st_refuse(err, errlen, "%zu bytes follow its last function's code",
				 (size_t)(end - p));
	return 0;
}

static void add_standin_code(uint32_t id, uint64_t start, const uint8_t *bytes, size_t len,
			     bool truncated, void *arg)
{
	/* The n-th stand-in is the n-th symbol of the section: id is its place. */
	symbolizer_add_standin_code(arg, id, start, bytes, len, truncated);
}

static void add_standin(const char *module, const char *name, const char *raw,
			const char *aliases, int unknown, int named_by, void *arg)
{
	symbolizer_add_standin(arg, module, name, raw, aliases, unknown != 0,
			       (enum st_named_by)named_by);
}

/* A section's text as a C string (it may hold anything: NULs end it). */
static char *text_of(const struct snapshot_section *s)
{
	char *t;

	if (!s)
		return NULL;
	t = st_xcalloc(1, s->size + 1);
	memcpy(t, s->data, s->size);
	return t;
}

/* A section's bytes, taken from f (no copy), or none. */
static struct snapshot_bytes take(struct snapshot_file *f, const char *name)
{
	struct snapshot_bytes b = { NULL, 0 };

	for (size_t i = 0; i < f->nsections; i++)
		if (!strcmp(f->sections[i].name, name)) {
			b.data = f->sections[i].data;
			b.size = f->sections[i].size;
			f->sections[i].data = NULL;
			f->sections[i].size = 0;
		}
	return b;
}

static const char *const known[] = {
	"label", "meta", "symbols", "records", "report", "observer", "chaining", "ibs",
	"code",
};

static void note_skipped(const struct snapshot_file *f, struct snapshot_opened *out)
{
	for (size_t i = 0; i < f->nsections; i++) {
		bool is_known = false;

		for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++)
			is_known |= !strcmp(f->sections[i].name, known[k]);
		if (!is_known)
			snprintf(out->skipped + strlen(out->skipped),
				 sizeof(out->skipped) - strlen(out->skipped), "%s%s",
				 out->skipped[0] ? ", " : "", f->sections[i].name);
	}
}

int snapshot_open(const char *path, struct symbolizer *sy, struct snapshot_opened *out)
{
	struct snapshot_file f;
	const struct snapshot_section *sym, *rec, *label, *code;
	char err[256];
	int rc;

	memset(out, 0, sizeof(*out));
	rc = snapshot_file_read(path, "records", &f);
	if (rc < 0)
		return rc;
	sym = snapshot_file_section(&f, "symbols");
	rec = snapshot_file_section(&f, "records");
	if (!sym || !rec) {
		st_error("snapshot '%s' has no %s section: the file is corrupt", path,
			 sym ? "records" : "symbols");
		snapshot_file_free(&f);
		return -EINVAL;
	}
	rc = snapshot_parse_symbols(sym->data, sym->size, add_standin, sy, err, sizeof(err));
	if (rc < 0) {
		st_error("snapshot '%s': %s: the file is corrupt", path, err);
		snapshot_file_free(&f);
		return rc;
	}
	out->nsymbols = symbolizer_count(sy);
	/* Version 4 keeps a sample's offset in its stand-in, and the code it fell in. */
	symbolizer_standin_stride(sy, f.version >= 4 ? SYMBOL_STANDIN_STRIDE
						     : SYMBOL_STANDIN_STRIDE_V3);
	code = snapshot_file_section(&f, "code");
	if (code && snapshot_parse_code(code->data, code->size, out->nsymbols, add_standin_code,
					sy, err, sizeof(err)) < 0) {
		st_error("snapshot '%s': %s: the file is corrupt", path, err);
		snapshot_file_free(&f);
		return -EINVAL;
	}
	out->records = *rec;
	f.sections[rec - f.sections].data = NULL;
	label = snapshot_file_section(&f, "label");
	if (label) {
		char *t = text_of(label);

		/* Shown in the header: printable characters only. */
		for (char *c = t; *c; c++)
			if ((unsigned char)*c < ' ' || *c == 0x7f)
				*c = '?';
		snprintf(out->label, sizeof(out->label), "%s", t);
		free(t);
	}
	out->observer = take(&f, "observer");
	out->chaining = take(&f, "chaining");
	out->ibs = take(&f, "ibs");
	out->meta = text_of(snapshot_file_section(&f, "meta"));
	out->report = text_of(snapshot_file_section(&f, "report"));
	note_skipped(&f, out);
	snapshot_file_free(&f);
	return 0;
}

void snapshot_opened_close(struct snapshot_opened *o)
{
	free(o->records.data);
	memset(&o->records, 0, sizeof(o->records));
	free(o->meta);
	free(o->report);
	free(o->observer.data);
	free(o->chaining.data);
	free(o->ibs.data);
	o->meta = o->report = NULL;
	memset(&o->observer, 0, sizeof(o->observer));
	memset(&o->chaining, 0, sizeof(o->chaining));
	memset(&o->ibs, 0, sizeof(o->ibs));
}

FILE *snapshot_records(const struct snapshot_opened *o)
{
	/* An empty section has no header to read: NULL, said by the caller. */
	return o->records.data ? snapshot_section_open(&o->records) : NULL;
}

static uint32_t standin_id(uint32_t id, void *arg)
{
	return symbolizer_standin_id(arg, id);
}

int snapshot_load_model(const struct snapshot_opened *o, struct model *m,
			const struct symbolizer *sy, const char *path)
{
	char err[256];
	int rc = 0;

	if (o->observer.data)
		rc = obs_model_load(&m->obs, o->observer.data, o->observer.size, err,
				    sizeof(err));
	if (!rc && o->chaining.data) {
		if (!o->chaining.size)
			rc = st_refuse(err, sizeof(err), "the chaining section is empty");
		else
			rc = callerchain_load(&m->chaining, o->chaining.data + 1,
					      o->chaining.size - 1, standin_id, (void *)sy,
					      err, sizeof(err));
		m->callerchain_mode = o->chaining.size && o->chaining.data[0] == 1;
	}
	if (!rc && o->ibs.data)
		rc = ibs_model_load(&m->ibs, o->ibs.data, o->ibs.size, standin_id, (void *)sy,
				    err, sizeof(err));
	if (rc)
		st_error("snapshot '%s': %s: the file is corrupt", path, err);
	return rc;
}

int snapshot_is(const char *path)
{
	char magic[8];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, magic, sizeof(magic));
	close(fd);
	return n == (ssize_t)sizeof(magic) && snapshot_file_magic(magic, sizeof(magic));
}
