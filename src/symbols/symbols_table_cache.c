/*
 * symbols_table_cache.c - a file's symbol table kept on disk by its
 * build-id, so the next session on the same programs builds no table:
 * libLLVM's (250,000 entries from its symbols, PLT and .eh_frame) took
 * a tenth of shimtop's CPU on a six-second compile, every session.
 *
 * The copy is "syms-" and the build-id in hex, in shimtop's cache
 * directory (cache_dir.c), written once a big table is built.  It holds
 * what the table was built from besides the file (the load bias, how
 * many symbols the symbol table had, how a debug file was found), so a
 * debug file installed since makes it another table's copy.
 *
 * The cache is shimtop's own, but a file there is still bytes from
 * disk: it is checked whole before any of it is used (its key is this
 * file's, its counts add up to its size, every entry is in address
 * order and every name in bounds and ended), and refused otherwise.
 * Host byte order: a copy is read on the machine that wrote it.
 */
#include "symbols/symbols_internal.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SYMS_MAGIC	"SHIMSYMS"
#define SYMS_VERSION	1u	/* bumped when symbol_table_build's tables change */
#define SYMS_CACHE_MAX	(512ull << 20)
#define SYMS_MAX	(1ull << 26)
#define NO_NAME		UINT32_MAX

struct disk_head {
	char magic[8];
	uint32_t version, id_len;
	unsigned char id[SYMBOL_TABLE_ID_MAX];
	struct symbol_table_key key;
	uint64_t n, names_len;
};

struct disk_symbol {
	uint64_t start, end;
	uint32_t raw, aliases;		/* offsets in the names, or NO_NAME (.eh_frame's, no aliases) */
	uint8_t from_cfi, named_by;
	uint8_t pad[6];
};

/* name (or none) into the names at *at: its offset. */
static uint32_t put_name(unsigned char *names, size_t *at, const char *name)
{
	size_t len = name ? strlen(name) + 1 : 0;
	uint32_t off = (uint32_t)*at;

	if (!name)
		return NO_NAME;
	memcpy(names + *at, name, len);
	*at += len;
	return off;
}

size_t symbol_table_to_bytes(const struct symbol_table *t, const unsigned char *id,
			     size_t id_len, const struct symbol_table_key *key,
			     unsigned char **out)
{
	struct disk_head h = { .version = SYMS_VERSION, .id_len = (uint32_t)id_len,
			       .key = *key, .n = t->n };
	size_t names = 0, len, at = 0;
	unsigned char *p, *blob;

	*out = NULL;
	if (!id_len || id_len > SYMBOL_TABLE_ID_MAX || t->n > SYMS_MAX)
		return 0;
	for (size_t i = 0; i < t->n; i++)
		names += (t->v[i].raw ? strlen(t->v[i].raw) + 1 : 0) +
			 (t->v[i].aliases ? strlen(t->v[i].aliases) + 1 : 0);
	if (names >= UINT32_MAX)
		return 0;
	h.names_len = names;
	memcpy(h.magic, SYMS_MAGIC, sizeof(h.magic));
	memcpy(h.id, id, id_len);
	len = sizeof(h) + t->n * sizeof(struct disk_symbol) + names;
	*out = p = st_xcalloc(1, len);
	memcpy(p, &h, sizeof(h));
	p += sizeof(h);
	blob = p + t->n * sizeof(struct disk_symbol);
	for (size_t i = 0; i < t->n; i++, p += sizeof(struct disk_symbol)) {
		const struct elf_symbol *e = &t->v[i];
		struct disk_symbol d = { .start = e->start, .end = e->end,
					 .from_cfi = e->from_cfi, .named_by = e->named_by };

		d.raw = put_name(blob, &at, e->raw);
		d.aliases = put_name(blob, &at, e->aliases);
		memcpy(p, &d, sizeof(d));
	}
	return len;
}

bool symbol_table_from_bytes(struct symbol_table *t, const unsigned char *id, size_t id_len,
			     const struct symbol_table_key *key, const unsigned char *buf,
			     size_t len, size_t buf_map)
{
	const unsigned char *p = buf;
	struct elf_symbol *v;
	struct disk_head h;
	char *names;

	if (len < sizeof(h))
		return false;
	memcpy(&h, p, sizeof(h));
	p += sizeof(h);
	/* Another file's copy, another format's, or this file's read another way. */
	if (memcmp(h.magic, SYMS_MAGIC, sizeof(h.magic)) || h.version != SYMS_VERSION ||
	    h.id_len != id_len || id_len > SYMBOL_TABLE_ID_MAX || memcmp(h.id, id, id_len) ||
	    memcmp(&h.key, key, sizeof(*key)))
		return false;
	if (h.n > SYMS_MAX || h.names_len >= UINT32_MAX ||
	    len - sizeof(h) != h.n * sizeof(struct disk_symbol) + h.names_len)
		return false;
	names = (char *)(uintptr_t)buf + sizeof(h) + h.n * sizeof(struct disk_symbol);
	/* Every offset below the end and the last byte a NUL: every name is ended. */
	if (h.names_len && names[h.names_len - 1] != '\0')
		return false;
	v = st_xcalloc(h.n ? h.n : 1, sizeof(*v));
	for (size_t i = 0; i < h.n; i++, p += sizeof(struct disk_symbol)) {
		struct disk_symbol d;

		memcpy(&d, p, sizeof(d));
		if (d.end < d.start || (i && d.start < v[i - 1].start) ||
		    (d.raw != NO_NAME && d.raw >= h.names_len) ||
		    (d.aliases != NO_NAME && d.aliases >= h.names_len) || d.from_cfi > 1 ||
		    d.named_by > NAMED_BY_KERNEL) {
			for (size_t j = 0; j < i; j++)
				free(v[j].aliases);
			free(v);
			return false;
		}
		v[i] = (struct elf_symbol){ .start = d.start, .end = d.end,
					    .raw = d.raw != NO_NAME ? names + d.raw : NULL,
					    .from_cfi = d.from_cfi, .named_by = d.named_by };
		/* Few (libLLVM: a few thousand): each its own, as a built table's are. */
		if (d.aliases != NO_NAME)
			v[i].aliases = st_xstrdup(names + d.aliases);
	}
	/* All checked: t's entries are these, their names in buf, which t now owns. */
	symbol_table_clear(t);
	t->v = v;
	t->n = h.n;
	t->raw_names = (char *)(uintptr_t)buf;
	t->raw_names_map = buf_map;
	symbol_table_make_pages(t);
	return true;
}

bool symbol_table_cache_load(struct symbol_table *t, const unsigned char *id, size_t id_len,
			     const struct symbol_table_key *key)
{
	char name[160];
	const unsigned char *map;
	size_t size;
	int dir;

	if (!id_len || id_len > SYMBOL_TABLE_ID_MAX)
		return false;
	dir = cache_dir_open(false);
	if (dir < 0)
		return false;
	cache_file_name(name, sizeof(name), "syms-", id, id_len);
	map = cache_file_map(dir, name, SYMS_CACHE_MAX, &size);
	close(dir);
	if (!map)
		return false;
	/* Checked whole; the names are read where they are mapped. */
	if (symbol_table_from_bytes(t, id, id_len, key, map, size, size))
		return true;
	munmap((void *)(uintptr_t)map, size);
	return false;
}

void symbol_table_cache_save(const struct symbol_table *t, const unsigned char *id,
			     size_t id_len, const struct symbol_table_key *key)
{
	char name[160];
	unsigned char *buf;
	size_t len;
	int dir;

	/* A small table costs less to build than a file in the cache. */
	if (t->n < SYMBOL_TABLE_CACHED_FROM || !id_len)
		return;
	/* No cache directory (SHIMTOP_CACHE_DIR empty): no copy made at all. */
	dir = cache_dir_open(true);
	if (dir < 0)
		return;
	len = symbol_table_to_bytes(t, id, id_len, key, &buf);
	cache_file_name(name, sizeof(name), "syms-", id, id_len);
	if (len && len <= SYMS_CACHE_MAX)
		(void)cache_file_replace(dir, name, buf, len);
	close(dir);
	free(buf);
}
