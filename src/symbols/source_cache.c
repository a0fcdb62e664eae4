/*
 * source_cache.c - source files' lines for the drill-down.  The file
 * names come from the target's DWARF, so a file is opened as untrusted
 * (a regular file only, never blocking), read once up to
 * SOURCE_FILE_MAX bytes, and a file that cannot be read is remembered
 * as such rather than tried on every frame.
 */
#include "symbols/symbols.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct source_file {
	char *path;
	char *text;		/* NULL: unreadable */
	size_t len;
	size_t *line_at;	/* offsets of lines 1..nlines */
	size_t nlines;
};

static void load(struct source_file *f)
{
	int fd = st_open_untrusted(-1, f->path, 0);
	size_t cap = 0;
	ssize_t n;

	if (fd < 0)
		return;
	do {
		if (f->len == cap) {
			if (cap >= SOURCE_FILE_MAX)
				break;
			cap = cap ? cap * 2 : 65536;
			f->text = st_xrealloc(f->text, cap + 1);
		}
		n = read(fd, f->text + f->len, cap - f->len);
		if (n > 0)
			f->len += (size_t)n;
	} while (n > 0);
	close(fd);
	if (!f->text)
		f->text = st_xmalloc(1);
	f->text[f->len] = '\0';
	f->line_at = st_xmalloc(sizeof(*f->line_at));
	f->line_at[f->nlines++] = 0;
	for (size_t i = 0; i < f->len; i++)
		if (f->text[i] == '\n' && i + 1 < f->len) {
			if (!(f->nlines & (f->nlines - 1)))
				f->line_at = st_xrealloc(f->line_at, 2 * f->nlines *
							 sizeof(*f->line_at));
			f->line_at[f->nlines++] = i + 1;
		}
}

const char *source_cache_line(struct source_cache *c, const char *path, int line,
			      size_t *len)
{
	struct source_file *f = NULL;
	const char *at, *nl;

	for (size_t i = 0; i < c->n && !f; i++)
		if (!strcmp(c->files[i].path, path))
			f = &c->files[i];
	if (!f) {
		if (c->n == SOURCE_FILES_MAX)
			return NULL;
		f = &c->files[c->n++];
		memset(f, 0, sizeof(*f));
		f->path = st_xstrdup(path);
		load(f);
	}
	if (!f->text || line < 1 || (size_t)line > f->nlines)
		return NULL;
	at = f->text + f->line_at[line - 1];
	nl = memchr(at, '\n', f->len - f->line_at[line - 1]);
	*len = nl ? (size_t)(nl - at) : f->len - f->line_at[line - 1];
	return at;
}

void source_cache_init(struct source_cache *c)
{
	c->files = st_xcalloc(SOURCE_FILES_MAX, sizeof(*c->files));
	c->n = 0;
}

void source_cache_free(struct source_cache *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->files[i].path);
		free(c->files[i].text);
		free(c->files[i].line_at);
	}
	free(c->files);
	memset(c, 0, sizeof(*c));
}
