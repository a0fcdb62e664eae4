/*
 * test_symbols_cache.c - a file's symbol table kept on disk
 * (symbols_table_cache.c): a real library's table read back is the
 * table built, entry by entry; the opening that builds it and the next
 * both read it where it is mapped (file pages, not the session's
 * memory), the second without building; a copy cut short, another file's, one read
 * another way, out of order, or with a name out of bounds is refused
 * and leaves the table as it was.
 */
#include "check.h"
#include "symbols/symbols_internal.h"
#include "util.h"

#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];
static char *debuginfo_path;
static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

/* A library with more functions than a table is kept for. */
static const char *big_library(void)
{
	static const char *paths[] = { "/lib/x86_64-linux-gnu/libc.so.6",
				       "/usr/lib/x86_64-linux-gnu/libc.so.6",
				       "/lib/x86_64-linux-gnu/libdw.so.1" };

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if (access(paths[i], R_OK) == 0)
			return paths[i];
	return NULL;
}

#define HEAD	120u
#define ENTRY	32u

static uint64_t u64_at(const unsigned char *p, size_t at)
{
	uint64_t v;

	memcpy(&v, p + at, sizeof(v));
	return v;
}

static bool same_name(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* How many of a's entries differ from b's (b shorter counts the rest). */
static size_t differ(const struct symbol_table *a, const struct symbol_table *b)
{
	size_t n = a->n > b->n ? a->n - b->n : b->n - a->n;

	for (size_t i = 0; i < a->n && i < b->n; i++) {
		const struct elf_symbol *x = &a->v[i], *y = &b->v[i];

		n += x->start != y->start || x->end != y->end || x->from_cfi != y->from_cfi ||
		     x->named_by != y->named_by ||
		     !same_name(symbol_table_text(a, x->raw), symbol_table_text(b, y->raw)) ||
		     !same_name(symbol_table_text(a, x->aliases), symbol_table_text(b, y->aliases));
	}
	return n;
}

/* Whether t's entries and names lie in a cache file's mapping, copied nowhere. */
static bool in_mapping(const struct symbol_table *t)
{
	const char *from = t->block, *to = from + t->block_map;

	return t->block_map && (const char *)t->v >= from && (const char *)(t->v + t->n) <= to &&
	       t->names >= from && t->names + t->names_len <= to;
}

static struct elf_file *open_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct elf_file *f;

	CHECK(fd >= 0);
	f = elf_file_open(fd, path, &callbacks);
	close(fd);
	return f;
}

static void refused(const char *what, const unsigned char *id, size_t id_len,
		    const struct symbol_table_key *key, const unsigned char *buf, size_t len)
{
	struct symbol_table t = { 0 };

	if (symbol_table_from_bytes(&t, id, id_len, key, buf, len, 0)) {
		fprintf(stderr, "a copy %s was taken\n", what);
		CHECK(false);
		free(t.pages);	/* buf stays the caller's */
		return;
	}
	CHECK(t.n == 0 && t.v == NULL);
}

static void check_library(const char *path)
{
	struct elf_file *first, *second;
	struct symbol_table back = { 0 }, built = { 0 };
	struct symbol_table_key key;
	unsigned char *bytes, *buf, *bad, id[SYMBOL_TABLE_ID_MAX];
	uint64_t start;
	uint32_t off;
	const void *idp;
	char name[256];
	struct stat st;
	GElf_Addr bias = 0;
	Elf *elf;
	ssize_t id_len;
	size_t len;
	int symbols;

	/* The first opening builds the table, keeps it, and reads it where it is kept. */
	first = open_file(path);
	CHECK(first->mod != NULL);
	if (!first->mod)
		return;
	(void)elf_file_symbol(first, 0);
	printf("%s: %zu entries built\n", path, first->table.n);
	CHECK(first->table.n >= SYMBOL_TABLE_CACHED_FROM);
	CHECK(in_mapping(&first->table));
	elf = dwfl_module_getelf(first->mod, &bias);
	id_len = dwelf_elf_gnu_build_id(elf, &idp);
	CHECK(id_len > 0 && (size_t)id_len <= sizeof(id));
	if (id_len <= 0 || (size_t)id_len > sizeof(id))
		return;
	memcpy(id, idp, (size_t)id_len);
	snprintf(name, sizeof(name), "%s/syms-", dir);
	for (ssize_t i = 0; i < id_len; i++)
		snprintf(name + strlen(name), sizeof(name) - strlen(name), "%02x", id[i]);
	CHECK(stat(name, &st) == 0 && (st.st_mode & 0777) == 0600);

	/* What is kept is the table built, entry by entry. */
	symbols = dwfl_module_getsymtab(first->mod);
	key = (struct symbol_table_key){ .bias = bias, .symbols = symbols,
					 .named_by = first->debug_named_by ? first->debug_named_by
									   : NAMED_BY_MINIDEBUGINFO };
	symbol_table_build(&built, first->mod, elf, bias, (uint8_t)key.named_by);
	printf("%s: %zu entries kept, %zu differ from a table built\n", path, first->table.n,
	       differ(&built, &first->table));
	CHECK(differ(&built, &first->table) == 0);
	CHECK(built.npages == first->table.npages);
	symbol_table_clear(&built);

	/* The second opening reads it, the same, without building. */
	second = open_file(path);
	(void)elf_file_symbol(second, 0);
	CHECK(in_mapping(&second->table));
	CHECK(differ(&first->table, &second->table) == 0);
	CHECK(second->table.npages == first->table.npages);

	/* Hostile copies, beside the good one. */
	len = symbol_table_to_bytes(&first->table, id, (size_t)id_len, &key, &bytes);
	CHECK(len > 0);
	buf = st_xmalloc(len);
	memcpy(buf, bytes, len);
	CHECK(symbol_table_from_bytes(&back, id, (size_t)id_len, &key, buf, len, 0));
	CHECK(differ(&first->table, &back) == 0);
	symbol_table_clear(&back);	/* frees buf, which it owned */
	/* The header (120 bytes, its names' length last), 32 bytes an entry, the names. */
	CHECK(len == HEAD + first->table.n * ENTRY + u64_at(bytes, HEAD - 8));
	bad = st_xmalloc(len + 1);
	refused("cut short", id, (size_t)id_len, &key, bytes, len - 1);
	memcpy(bad, bytes, len);
	bad[len] = 0;
	refused("longer", id, (size_t)id_len, &key, bad, len + 1);
	id[0] ^= 1;
	refused("of another file", id, (size_t)id_len, &key, bytes, len);
	id[0] ^= 1;
	key.symbols++;
	refused("read with another symbol table", id, (size_t)id_len, &key, bytes, len);
	key.symbols--;
	/* Out of order: the second entry starts before the first. */
	memcpy(bad, bytes, len);
	start = u64_at(bytes, HEAD);
	start = start ? start - 1 : 0;
	memcpy(bad + HEAD + ENTRY, &start, 8);
	refused("out of order", id, (size_t)id_len, &key, bad, len);
	/* A name past the end of the names. */
	memcpy(bad, bytes, len);
	off = (uint32_t)u64_at(bytes, HEAD - 8);
	memcpy(bad + HEAD + 16, &off, 4);
	refused("with a name out of bounds", id, (size_t)id_len, &key, bad, len);
	/* The last name not ended. */
	memcpy(bad, bytes, len);
	bad[len - 1] = 'x';
	refused("with a name not ended", id, (size_t)id_len, &key, bad, len);
	/* A name from no source there is. */
	memcpy(bad, bytes, len);
	bad[HEAD + 25] = 200;
	refused("named by nothing known", id, (size_t)id_len, &key, bad, len);
	/* The same buffer, the good bytes again: taken (what refused them was the change). */
	memcpy(bad, bytes, len);
	CHECK(symbol_table_from_bytes(&back, id, (size_t)id_len, &key, bad, len, 0));
	symbol_table_clear(&back);
	free(bytes);
	elf_file_close(second);
	elf_file_close(first);
}

int main(void)
{
	const char *path = big_library();

	snprintf(dir, sizeof(dir), "/tmp/shimtop-scache.XXXXXX");
	if (!mkdtemp(dir))
		return 99;
	setenv("SHIMTOP_CACHE_DIR", dir, 1);
	if (!path) {
		fprintf(stderr, "no libc.so.6 to read\n");
		return 77;
	}
	check_library(path);
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", dir);
	}
	return check_done("test_symbols_cache");
}
