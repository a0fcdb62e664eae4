/*
 * symbols_kernel_cache.c - the kernel's functions saved once a boot.
 *
 * /proc/kallsyms costs the kernel 75 ms of formatting on every read
 * (122,000 lines here), more than a whole session's sampling at 1 kHz.
 * Its functions change only when modules do, so the first session of a
 * boot saves them and the next ones read the copy, in shimtop's cache
 * directory (cache_dir.c), in a form read where it lies.  The key, in the
 * file's name and its head: the boot's id and a hash of each module's
 * name, size and address.  Code the kernel makes at run time (BPF
 * programs, ftrace and kprobe trampolines) is never saved; an address the
 * copy cannot be sure of makes the caller read /proc/kallsyms itself
 * (kernel_cache_unsure).
 *
 * Nothing here follows a link or writes through one: the directory is
 * opened once (O_NOFOLLOW) and checked, every file is opened relative to
 * it, and a new copy is written to a fresh name (O_EXCL) and renamed.
 */
#include "symbols/symbols_internal.h"
#include "util.h"

#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define CACHE_MAX	(64u << 20)
/* The format's version in its magic: an older copy is read again from the kernel. */
#define MAGIC		"shimtop ksyms 2\n"

static uint64_t fnv1a(uint64_t h, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 0x100000001b3ull;
	return h;
}

bool kernel_cache_key(char *key, size_t len)
{
	char boot[64], *mods, *line, *next;
	size_t n = 0, mlen = 0;
	uint64_t h = 0xcbf29ce484222325ull;
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	ssize_t got = fd >= 0 ? read(fd, boot, sizeof(boot) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (got <= 0)
		return false;
	boot[got] = '\0';
	for (char *p = boot; *p; p++)
		if ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') || *p == '-')
			boot[n++] = *p;
	boot[n] = '\0';
	if (n < 16)
		return false;
	/* Name, size and address of each module: not its use count, which moves. */
	mods = st_read_file("/proc/modules", &mlen);
	for (line = mods; line && line < mods + mlen; line = next) {
		char *nl = memchr(line, '\n', (size_t)(mods + mlen - line)), *f[6];
		unsigned k = 0;

		next = nl ? nl + 1 : mods + mlen;
		if (nl)
			*nl = '\0';
		for (char *save = NULL, *t = strtok_r(line, " ", &save); t && k < 6;
		     t = strtok_r(NULL, " ", &save))
			f[k++] = t;
		for (unsigned i = 0; i < k; i++)
			if (i == 0 || i == 1 || i == 5)
				h = fnv1a(h, f[i], strlen(f[i]) + 1);
	}
	free(mods);
	return snprintf(key, len, "%s-%016" PRIx64, boot, h) < (int)len;
}

static void file_name(char *name, size_t len, const char *key)
{
	snprintf(name, len, "kallsyms-%s", key);
}

/*
 * The copy as it lies on disk, read where it lies (mapped): a head, the
 * functions' starts with their names' and modules' offsets, sorted, then
 * the names.  Parsing kallsyms' text again was a fifth of a short
 * session's CPU (60,000 lines, 5 MB copied and split).
 */
struct disk_head {
	char magic[16];
	char key[128];		/* this boot's: a copy renamed by hand is not this boot's */
	uint64_t n;		/* functions */
	uint64_t strings;	/* bytes of names, the last a NUL */
};

struct kernel_disk_entry {
	uint64_t start;
	uint32_t name, module;	/* offsets in the names; module NO_MODULE: the kernel's own */
};

#define NO_MODULE	UINT32_MAX
#define ENTRIES_MAX	(4u << 20)

bool kernel_cache_from_bytes(struct range_table *t, const char *key, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	const struct kernel_disk_entry *e;
	const char *names;
	struct disk_head h;
	uint64_t last = 0;

	if (len < sizeof(h))
		return false;
	memcpy(&h, p, sizeof(h));
	if (memcmp(h.magic, MAGIC, sizeof(h.magic)) || strnlen(h.key, sizeof(h.key)) == sizeof(h.key) ||
	    strcmp(h.key, key) || !h.n || h.n > ENTRIES_MAX || !h.strings ||
	    h.strings > UINT32_MAX || len - sizeof(h) != h.n * sizeof(*e) + h.strings)
		return false;
	/* The entries lie 8-aligned after the head: read in place. */
	_Static_assert(sizeof(struct disk_head) % 8 == 0, "entries aligned");
	if ((uintptr_t)buf % 8)
		return false;
	e = (const struct kernel_disk_entry *)(const void *)(p + sizeof(h));
	/* Every offset inside the names, the names end in a NUL, starts sorted: checked once. */
	names = (const char *)(p + sizeof(h) + h.n * sizeof(*e));
	if (names[h.strings - 1])
		return false;
	for (size_t i = 0; i < h.n; i++) {
		if (e[i].name >= h.strings || (e[i].module != NO_MODULE && e[i].module >= h.strings) ||
		    e[i].start < last)
			return false;
		last = e[i].start;
	}
	range_table_clear(t);
	/* Read only, as mapped: no copy of the 120,000 entries (4 MB). */
	t->disk = e;
	t->names = names;
	t->names_len = h.strings;
	t->n = h.n;
	for (size_t i = 0; i < t->n && e[i].module == NO_MODULE; i++)
		t->static_end = e[i].start;
	t->cached = true;
	return true;
}

void kernel_cache_entry(const struct range_table *t, size_t i, struct range_entry *out)
{
	const struct kernel_disk_entry *d = &t->disk[i];

	/* Sizes are not saved: a function ends where the next begins, as parsed. */
	*out = (struct range_entry){
		.start = d->start,
		.end = i + 1 < t->n ? t->disk[i + 1].start :
		       d->start > UINT64_MAX - 4096 ? UINT64_MAX : d->start + 4096,
		.name = (char *)(uintptr_t)(t->names + d->name),
		.module = d->module == NO_MODULE ? NULL : (char *)(uintptr_t)(t->names + d->module),
	};
}

const struct range_entry *kernel_cache_find(const struct range_table *t, uint64_t addr)
{
	struct range_table *w = (struct range_table *)(uintptr_t)t;	/* found is scratch */
	size_t lo = st_after(t->disk, t->n, sizeof(*t->disk),
			     offsetof(struct kernel_disk_entry, start), addr);

	if (lo == 0)
		return NULL;
	kernel_cache_entry(t, lo - 1, &w->found);
	if (addr >= w->found.end)
		return NULL;
	w->found_at = lo - 1;
	return &w->found;
}

bool kernel_cache_read(const char *key, struct range_table *t)
{
	char name[160];
	int dir = cache_dir_open(false);
	const void *map;
	size_t size;

	if (dir < 0)
		return false;
	file_name(name, sizeof(name), key);
	map = cache_file_map(dir, name, CACHE_MAX, &size);
	close(dir);
	if (!map)
		return false;
	if (!kernel_cache_from_bytes(t, key, map, size)) {
		munmap((void *)(uintptr_t)map, size);
		return false;
	}
	t->text = (char *)(uintptr_t)map;
	t->text_size = size;
	return true;
}

/* Made at run time, and gone or moved by the next session: never saved. */
bool kernel_made_at_run_time(const char *module)
{
	return module && (!strcmp(module, "bpf") || !strncmp(module, "__builtin__", 11));
}

/* One copy is kept: earlier boots' go once this one's is written. */
static void forget_other_boots(int dir, const char *keep)
{
	int fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL)
		if (!strncmp(de->d_name, "kallsyms-", 9) && strcmp(de->d_name, keep) != 0)
			(void)unlinkat(dir, de->d_name, 0);
	closedir(d);
}

void kernel_cache_write(const char *key, const struct range_table *t)
{
	struct disk_head h = { .n = 0 };
	struct kernel_disk_entry *e = st_xcalloc(t->n + 1, sizeof(*e));
	char *names = NULL, name[160];
	size_t used = 0, cap = 0;
	uint32_t module = NO_MODULE;
	const char *last = NULL;
	int dir;

	if (strlen(key) >= sizeof(h.key)) {
		free(e);
		return;
	}
	for (size_t i = 0; i < t->n; i++) {
		const struct range_entry *r = &t->v[i];
		size_t nlen = strlen(r->name) + 1, mlen = r->module ? strlen(r->module) + 1 : 0;

		if (kernel_made_at_run_time(r->module))
			continue;
		ST_GROW_BARE(names, cap, used + nlen + mlen);
		/* A module's functions are together: its name once for them. */
		if (!r->module) {
			module = NO_MODULE;
		} else if (!last || strcmp(last, r->module)) {
			module = (uint32_t)used;
			memcpy(names + used, r->module, mlen);
			used += mlen;
		}
		last = r->module;
		e[h.n] = (struct kernel_disk_entry){ r->start, (uint32_t)used, module };
		memcpy(names + used, r->name, nlen);
		used += nlen;
		h.n++;
	}
	dir = h.n && used < UINT32_MAX ? cache_dir_open(true) : -1;
	if (dir >= 0) {
		struct cache_out o;

		memcpy(h.magic, MAGIC, sizeof(h.magic));
		snprintf(h.key, sizeof(h.key), "%s", key);
		h.strings = used;
		file_name(name, sizeof(name), key);
		if (cache_out_begin(&o, dir, name)) {
			cache_out_put(&o, &h, sizeof(h));
			cache_out_put(&o, e, h.n * sizeof(*e));
			cache_out_put(&o, names, used);
			if (cache_out_end(&o, dir, name))
				forget_other_boots(dir, name);
		}
		close(dir);
	}
	free(names);
	free(e);
}

/*
 * Where the kernel puts code it makes at run time: x86-64's module space,
 * below the fixmap.  Above it, a chain's address is no code (a user frame
 * pointer's -4097, say) and needs no second read.
 */
#ifdef __x86_64__
#define DYNAMIC_END	0xffffffffff000000ull
#else
#define DYNAMIC_END	UINT64_MAX
#endif

bool kernel_cache_unsure(const struct range_table *t, const struct range_entry *e, uint64_t addr)
{
	struct range_entry next;
	size_t at;

	/* Below the kernel's last function every answer is static. */
	if (!t->n || addr < t->static_end || addr >= DYNAMIC_END)
		return false;
	if (!e)
		return true;
	at = t->disk ? t->found_at : (size_t)(e - t->v);
	/* The last function of the kernel or of a module: what follows it was not saved. */
	if (at + 1 >= t->n)
		return true;
	range_table_entry(t, at + 1, &next);
	if (!e->module || !next.module)
		return e->module != next.module;
	return strcmp(e->module, next.module) != 0;
}
