/*
 * symbols.c - the symbolizer: module map, libdwfl, interning, and the
 * address cache that makes a repeated address cost one hash probe.
 */
#include "symbols.h"
#include "symbols_internal.h"
#include "util.h"

#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CACHE_SLOTS	(1u << 16)
#define CACHE_PROBES	8
#define INTERN_START	1024u
#define KERNEL_SPACE	0xffff800000000000ull

struct map {
	uint64_t start, end, pgoff;
	char *path;
};

struct cache_slot {
	uint64_t ip;
	const struct st_symbol *sym;
};

/* One process's address space: its modules, JIT map and address cache. */
struct space {
	pid_t pid;
	char root[64];
	Dwfl *dwfl;
	struct map *maps;
	size_t nmaps, maps_cap;
	bool dirty;
	struct jit_map jit;
	struct cache_slot *cache;
};

struct symbolizer {
	bool live;
	Dwfl_Callbacks callbacks;
	struct space **spaces;
	size_t nspaces;
	struct space *last;	/* samples come in runs of one process */

	struct range_table kernel;
	bool kernel_loaded;

	/* Interned symbols: id-indexed array plus an open-addressed index. */
	struct st_symbol **syms;
	size_t nsyms, syms_cap;
	uint32_t *index;	/* id + 1, 0 = empty */
	size_t index_cap;

	struct symbolizer_stats stats;
};

static uint64_t hash_bytes(const char *a, const char *b)
{
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */

	for (; *a; a++)
		h = (h ^ (unsigned char)*a) * 1099511628211ull;
	h = (h ^ 0xff) * 1099511628211ull;
	for (; *b; b++)
		h = (h ^ (unsigned char)*b) * 1099511628211ull;
	return h;
}

static void index_insert(struct symbolizer *s, const struct st_symbol *sym)
{
	size_t mask = s->index_cap - 1;
	size_t i = hash_bytes(sym->module, sym->name) & mask;

	while (s->index[i])
		i = (i + 1) & mask;
	s->index[i] = sym->id + 1;
}

static void index_grow(struct symbolizer *s)
{
	free(s->index);
	s->index_cap = s->index_cap ? s->index_cap * 2 : INTERN_START;
	s->index = st_xcalloc(s->index_cap, sizeof(*s->index));
	for (size_t i = 0; i < s->nsyms; i++)
		index_insert(s, s->syms[i]);
}

static const struct st_symbol *intern(struct symbolizer *s, const char *module,
				      const char *name, bool unknown)
{
	size_t mask, i;
	struct st_symbol *sym;
	char *mem;
	size_t ml = strlen(module) + 1, nl = strlen(name) + 1;

	if ((s->nsyms + 1) * 2 > s->index_cap)
		index_grow(s);
	mask = s->index_cap - 1;
	for (i = hash_bytes(module, name) & mask; s->index[i]; i = (i + 1) & mask) {
		const struct st_symbol *c = s->syms[s->index[i] - 1];

		if (!strcmp(c->name, name) && !strcmp(c->module, module))
			return c;
	}
	/* One allocation holds the symbol and both strings. */
	mem = st_xmalloc(sizeof(*sym) + ml + nl);
	sym = (struct st_symbol *)(void *)mem;
	memcpy(mem + sizeof(*sym), module, ml);
	memcpy(mem + sizeof(*sym) + ml, name, nl);
	sym->module = mem + sizeof(*sym);
	sym->name = mem + sizeof(*sym) + ml;
	sym->unknown = unknown;
	sym->id = (uint32_t)s->nsyms;
	if (s->nsyms == s->syms_cap) {
		s->syms_cap = s->syms_cap ? s->syms_cap * 2 : 256;
		s->syms = st_xrealloc(s->syms, s->syms_cap * sizeof(*s->syms));
	}
	s->syms[s->nsyms++] = sym;
	s->index[i] = sym->id + 1;
	return sym;
}

/* Dwfl find_elf: open the module under the target's root first. */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *name,
		    Dwarf_Addr base, char **file_name, Elf **elfp)
{
	const struct space *s = *userdata;
	char path[4096];
	int fd = -1;

	(void)mod;
	(void)base;
	(void)elfp;
	if (name[0] != '/')
		return -1;
	if (s && s->root[0]) {
		snprintf(path, sizeof(path), "%s%s", s->root, name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0) {
		snprintf(path, sizeof(path), "%s", name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (fd >= 0)
		*file_name = st_xstrdup(path);
	return fd;
}

struct symbolizer *symbolizer_create(bool live)
{
	struct symbolizer *s = st_xcalloc(1, sizeof(*s));

	s->live = live;
	s->callbacks.find_elf = find_elf;
	s->callbacks.find_debuginfo = dwfl_standard_find_debuginfo;
	s->callbacks.section_address = dwfl_offline_section_address;
	index_grow(s);
	return s;
}

static void space_free(struct space *sp)
{
	if (sp->dwfl)
		dwfl_end(sp->dwfl);
	for (size_t i = 0; i < sp->nmaps; i++)
		free(sp->maps[i].path);
	free(sp->maps);
	range_table_clear(&sp->jit.table);
	free(sp->cache);
	free(sp);
}

void symbolizer_destroy(struct symbolizer *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nspaces; i++)
		space_free(s->spaces[i]);
	free(s->spaces);
	range_table_clear(&s->kernel);
	for (size_t i = 0; i < s->nsyms; i++)
		free(s->syms[i]);
	free(s->syms);
	free(s->index);
	free(s);
}

static struct space *space_of(struct symbolizer *s, pid_t pid)
{
	struct space *sp;

	if (s->last && s->last->pid == pid)
		return s->last;
	for (size_t i = 0; i < s->nspaces; i++)
		if (s->spaces[i]->pid == pid)
			return s->last = s->spaces[i];
	sp = st_xcalloc(1, sizeof(*sp));
	sp->pid = pid;
	if (s->live)
		snprintf(sp->root, sizeof(sp->root), "/proc/%d/root", (int)pid);
	sp->dwfl = dwfl_begin(&s->callbacks);
	sp->cache = st_xcalloc(CACHE_SLOTS, sizeof(*sp->cache));
	jit_map_init(&sp->jit, pid);
	s->spaces = st_xrealloc(s->spaces, (s->nspaces + 1) * sizeof(*s->spaces));
	s->spaces[s->nspaces++] = sp;
	return s->last = sp;
}

static void space_add_map(struct space *s, uint64_t start, uint64_t len,
			  uint64_t pgoff, const char *path)
{
	uint64_t end = start + len;
	size_t i, j;

	/* A new mapping replaces whatever it overlaps (munmap + mmap). */
	for (i = 0, j = 0; i < s->nmaps; i++) {
		struct map *m = &s->maps[i];

		if (m->start < end && start < m->end) {
			if (m->start == start && m->end == end &&
			    m->pgoff == pgoff && !strcmp(m->path, path))
				return;		/* already known */
			free(m->path);
			continue;
		}
		s->maps[j++] = *m;
	}
	s->nmaps = j;
	if (s->nmaps == s->maps_cap) {
		s->maps_cap = s->maps_cap ? s->maps_cap * 2 : 64;
		s->maps = st_xrealloc(s->maps, s->maps_cap * sizeof(*s->maps));
	}
	s->maps[s->nmaps++] = (struct map){ start, end, pgoff, st_xstrdup(path) };
	s->dirty = true;
}

void symbolizer_add_map(struct symbolizer *s, pid_t pid, uint64_t start,
			uint64_t len, uint64_t pgoff, const char *path)
{
	space_add_map(space_of(s, pid), start, len, pgoff, path);
}

void symbolizer_fork(struct symbolizer *s, pid_t parent, pid_t child)
{
	struct space *p = space_of(s, parent), *c;

	if (parent == child)
		return;
	c = space_of(s, child);
	for (size_t i = 0; i < p->nmaps; i++)
		space_add_map(c, p->maps[i].start, p->maps[i].end - p->maps[i].start,
			      p->maps[i].pgoff, p->maps[i].path);
}

static int map_by_path(const void *a, const void *b)
{
	const struct map *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	return c ? c : (x->start < y->start ? -1 : x->start > y->start);
}

/*
 * Reports every file to libdwfl once, spanning its mappings.  The module
 * starts at start - pgoff of its lowest mapping: with that, libdwfl's bias
 * is right even when only the executable segment was seen (MMAP2).
 */
static void rebuild(struct symbolizer *owner, struct space *s)
{
	size_t i = 0;

	qsort(s->maps, s->nmaps, sizeof(*s->maps), map_by_path);
	dwfl_report_begin(s->dwfl);
	while (i < s->nmaps) {
		const char *path = s->maps[i].path;
		uint64_t low = s->maps[i].start - s->maps[i].pgoff;
		uint64_t high = s->maps[i].end;
		Dwfl_Module *mod;
		void **slot;

		for (i++; i < s->nmaps && !strcmp(s->maps[i].path, path); i++)
			if (s->maps[i].end > high)
				high = s->maps[i].end;
		if (path[0] != '/')
			continue;	/* [vdso], anonymous: no file to read */
		mod = dwfl_report_module(s->dwfl, path, low, high);
		if (mod && dwfl_module_info(mod, &slot, NULL, NULL, NULL, NULL,
					    NULL, NULL))
			*slot = s;
	}
	dwfl_report_end(s->dwfl, NULL, NULL);
	memset(s->cache, 0, CACHE_SLOTS * sizeof(*s->cache));
	s->dirty = false;
	owner->stats.rebuilds++;
}

static const struct map *find_map(const struct space *s, uint64_t ip)
{
	for (size_t i = 0; i < s->nmaps; i++)
		if (s->maps[i].start <= ip && ip < s->maps[i].end)
			return &s->maps[i];
	return NULL;
}

static const struct st_symbol *resolve_kernel(struct symbolizer *s, uint64_t ip)
{
	const struct range_entry *e;

	if (!s->kernel_loaded) {
		kernel_symbols_load(&s->kernel);
		s->kernel_loaded = true;
	}
	e = range_table_find(&s->kernel, ip);
	if (!e)
		return intern(s, "[kernel]", "[unknown]", true);
	if (e->module) {
		char mod[160];

		snprintf(mod, sizeof(mod), "[%s]", e->module);
		return intern(s, mod, e->name, false);
	}
	return intern(s, "[kernel]", e->name, false);
}

static const struct st_symbol *resolve_user(struct symbolizer *s,
					   struct space *sp, uint64_t ip)
{
	Dwfl_Module *mod = dwfl_addrmodule(sp->dwfl, ip);
	const struct map *m;
	const struct range_entry *e;

	if (mod) {
		const char *modname = dwfl_module_info(mod, NULL, NULL, NULL,
						       NULL, NULL, NULL, NULL);
		const char *name = dwfl_module_addrname(mod, ip);

		modname = st_basename(modname ? modname : "?");
		if (name)
			return intern(s, modname, name, false);
		return intern(s, modname, "[unknown]", true);
	}
	m = find_map(sp, ip);
	if (m && m->path[0] == '[')
		return intern(s, m->path, "[unknown]", true);
	if (jit_map_refresh(&sp->jit) == 0 &&
	    (e = range_table_find(&sp->jit.table, ip)))
		return intern(s, "[jit]", e->name, false);
	return intern(s, m ? st_basename(m->path) : "[anon]", "[unknown]", true);
}

const struct st_symbol *symbolizer_lookup(struct symbolizer *s, pid_t pid,
					  uint64_t ip, bool kernel)
{
	size_t home = (size_t)((ip * 0x9e3779b97f4a7c15ull) >> 48) & (CACHE_SLOTS - 1);
	struct space *sp = space_of(s, pid);
	const struct st_symbol *sym;

	s->stats.lookups++;
	if (sp->dirty)
		rebuild(s, sp);
	for (size_t p = 0; p < CACHE_PROBES; p++) {
		struct cache_slot *c = &sp->cache[(home + p) & (CACHE_SLOTS - 1)];

		if (c->sym && c->ip == ip) {
			s->stats.cache_hits++;
			if (c->sym->unknown)
				s->stats.unknown++;
			return c->sym;
		}
		if (!c->sym) {
			home = (home + p) & (CACHE_SLOTS - 1);
			break;
		}
	}
	sym = kernel || ip >= KERNEL_SPACE ? resolve_kernel(s, ip)
					   : resolve_user(s, sp, ip);
	/* Full probe window: overwrite the home slot; it is only a cache. */
	sp->cache[home] = (struct cache_slot){ ip, sym };
	if (sym->unknown)
		s->stats.unknown++;
	return sym;
}

size_t symbolizer_count(const struct symbolizer *s)
{
	return s->nsyms;
}

const struct st_symbol *symbolizer_symbol(const struct symbolizer *s,
					  uint32_t id)
{
	return id < s->nsyms ? s->syms[id] : NULL;
}

void symbolizer_stats(const struct symbolizer *s, struct symbolizer_stats *out)
{
	*out = s->stats;
}

int symbols_read_proc_maps(pid_t pid, map_fn fn, void *arg)
{
	char path[64], line[4096];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		uint64_t start, end, pgoff;
		char perms[8];
		int name_at = 0;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %n",
			   &start, &end, perms, &pgoff, &name_at) < 4 || !name_at)
			continue;
		line[strcspn(line, "\n")] = '\0';
		/* File-backed mappings of every permission: libdwfl needs the
		 * lowest one of each file to place it. */
		if (line[name_at] != '/' && perms[2] != 'x')
			continue;
		fn(start, end - start, pgoff, line + name_at, arg);
	}
	fclose(f);
	return 0;
}
