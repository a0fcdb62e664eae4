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
#define SYMS_VERSION	3u	/* bumped when symbol_table_build's tables change */
#define SYMS_CACHE_MAX	(512ull << 20)
#define SYMS_MAX	(1ull << 26)

struct disk_head {
	char magic[8];
	uint32_t version, id_len;
	unsigned char id[SYMBOL_TABLE_ID_MAX];
	struct symbol_table_key key;
	uint64_t n, names_len;
};

/* The entries follow the head as they are in memory, read where they lie. */
_Static_assert(sizeof(struct disk_head) % _Alignof(struct elf_symbol) == 0,
	       "entries aligned after the head");
_Static_assert(sizeof(struct elf_symbol) == 32, "entries as the format has them");

/* t's copy into o: the head, the entries as they are in memory (padding zeroed), the names. */
static bool symbol_table_put(const struct symbol_table *t, const unsigned char *id,
			     size_t id_len, const struct symbol_table_key *key,
			     struct cache_out *o)
{
	struct disk_head h = { .version = SYMS_VERSION, .id_len = (uint32_t)id_len,
			       .key = *key, .n = t->n, .names_len = t->names_len };
	struct elf_symbol chunk[256];

	if (!id_len || id_len > SYMBOL_TABLE_ID_MAX || t->n > SYMS_MAX ||
	    t->names_len >= UINT32_MAX)
		return false;
	memcpy(h.magic, SYMS_MAGIC, sizeof(h.magic));
	memcpy(h.id, id, id_len);
	cache_out_put(o, &h, sizeof(h));
	for (size_t i = 0; i < t->n; i += 256) {
		size_t k = t->n - i < 256 ? t->n - i : 256;

		memcpy(chunk, t->v + i, k * sizeof(*chunk));
		for (size_t j = 0; j < k; j++)
			memset(chunk[j].pad, 0, sizeof(chunk[j].pad));
		cache_out_put(o, chunk, k * sizeof(*chunk));
	}
	cache_out_put(o, t->names, t->names_len);
	return true;
}

size_t symbol_table_to_bytes(const struct symbol_table *t, const unsigned char *id,
			     size_t id_len, const struct symbol_table_key *key,
			     unsigned char **out)
{
	struct cache_out o;

	cache_out_memory(&o);
	if (!symbol_table_put(t, id, id_len, key, &o))
		o.failed = true;
	return cache_out_bytes(&o, out);
}

/* Whether name (an offset in names, names_len long, whose last byte is a NUL) is one or none. */
static bool name_sound(uint32_t name, uint64_t names_len)
{
	return name == SYMBOL_NO_NAME || name < names_len;
}

bool symbol_table_from_bytes(struct symbol_table *t, const unsigned char *id, size_t id_len,
			     const struct symbol_table_key *key, const unsigned char *buf,
			     size_t len, size_t buf_map)
{
	const struct elf_symbol *v = (const void *)(buf + sizeof(struct disk_head));
	struct disk_head h;
	char *names;

	if (len < sizeof(h) || (uintptr_t)buf % _Alignof(struct elf_symbol))
		return false;
	memcpy(&h, buf, sizeof(h));
	/* Another file's copy, another format's, or this file's read another way. */
	if (memcmp(h.magic, SYMS_MAGIC, sizeof(h.magic)) || h.version != SYMS_VERSION ||
	    h.id_len != id_len || id_len > SYMBOL_TABLE_ID_MAX || memcmp(h.id, id, id_len) ||
	    memcmp(&h.key, key, sizeof(*key)))
		return false;
	if (h.n > SYMS_MAX || h.names_len >= UINT32_MAX ||
	    len - sizeof(h) != h.n * sizeof(struct elf_symbol) + h.names_len)
		return false;
	names = (char *)(uintptr_t)buf + sizeof(h) + h.n * sizeof(struct elf_symbol);
	/* Every offset below the end and the last byte a NUL: every name is ended. */
	if (h.names_len && names[h.names_len - 1] != '\0')
		return false;
	/*
	 * Checked whole here, then read where they lie, never copied: the
	 * file is shimtop's own (cache_dir.c), replaced by rename, never
	 * written in place.
	 */
	for (size_t i = 0; i < h.n; i++) {
		const struct elf_symbol *e = &v[i];

		if (e->end < e->start || (i && e->start < v[i - 1].start) ||
		    !name_sound(e->raw, h.names_len) || !name_sound(e->aliases, h.names_len) ||
		    e->from_cfi > 1 || e->named_by > NAMED_BY_KERNEL)
			return false;
	}
	/* All checked: t's entries and names are buf's, which t now owns. */
	symbol_table_clear(t);
	t->v = (struct elf_symbol *)(uintptr_t)v;
	t->n = h.n;
	t->names = names;
	t->names_len = h.names_len;
	t->block = (void *)(uintptr_t)buf;
	t->block_map = buf_map;
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
	/* Checked whole; the entries and names are read where they are mapped. */
	if (symbol_table_from_bytes(t, id, id_len, key, map, size, size))
		return true;
	munmap((void *)(uintptr_t)map, size);
	return false;
}

bool symbol_table_cache_save(const struct symbol_table *t, const unsigned char *id,
			     size_t id_len, const struct symbol_table_key *key)
{
	char name[160];
	struct cache_out o;
	bool saved = false;
	int dir;

	/* A small table costs less to build than a file in the cache. */
	if (t->n < SYMBOL_TABLE_CACHED_FROM || !id_len)
		return false;
	/* No cache directory (SHIMTOP_CACHE_DIR empty): no copy made at all. */
	dir = cache_dir_open(true);
	if (dir < 0)
		return false;
	cache_file_name(name, sizeof(name), "syms-", id, id_len);
	if (sizeof(struct disk_head) + t->n * sizeof(struct elf_symbol) + t->names_len <=
	    SYMS_CACHE_MAX && cache_out_begin(&o, dir, name)) {
		if (!symbol_table_put(t, id, id_len, key, &o))
			o.failed = true;
		saved = cache_out_end(&o, dir, name);
	}
	close(dir);
	return saved;
}
