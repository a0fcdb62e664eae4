/*
 * symbols_kernel_cache.c - the kernel's functions saved once a boot.
 *
 * /proc/kallsyms costs the kernel 75 ms of formatting on every read
 * (122,000 lines here), more than a whole session's sampling at 1 kHz.
 * Its functions change only when modules do, so the first session of a
 * boot saves them and the next ones read the copy, in shimtop's cache
 * directory (cache_dir.c).  The key, in the file's name and its first line: the
 * boot's id and a hash of each module's name, size and address.  Code
 * the kernel makes at run time (BPF programs, ftrace and kprobe
 * trampolines) is never saved; an address the copy cannot be sure of
 * makes the caller read /proc/kallsyms itself (kernel_cache_unsure).
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
#define MAGIC		"shimtop kallsyms "

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

char *kernel_cache_read(const char *key, size_t *len, size_t *size)
{
	char name[160], head[160];
	int dir = cache_dir_open(false), fd;
	uint64_t bytes;
	char *text;
	size_t n;

	if (dir < 0)
		return NULL;
	file_name(name, sizeof(name), key);
	fd = cache_file_open(dir, name, CACHE_MAX, &bytes);
	close(dir);
	if (fd < 0)
		return NULL;
	*size = (size_t)bytes + 1;
	text = mmap(NULL, *size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (text == MAP_FAILED) {
		close(fd);
		return NULL;
	}
	*len = n = kallsyms_read_fd(fd, text, *size);
	/* The key inside too: a copy renamed by hand is not this boot's. */
	snprintf(head, sizeof(head), MAGIC "%s\n", key);
	if (n < strlen(head) || memcmp(text, head, strlen(head)) != 0) {
		munmap(text, *size);
		return NULL;
	}
	memset(text, ' ', strlen(head) - 1);	/* the parser skips the line */
	return text;
}

/* Made at run time, and gone or moved by the next session: never saved. */
static bool made_at_run_time(const char *module)
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
	char name[160], tmp[192];
	int dir = cache_dir_open(true), fd;
	FILE *f;
	bool ok;

	if (dir < 0)
		return;
	file_name(name, sizeof(name), key);
	snprintf(tmp, sizeof(tmp), ".%s.%d", name, (int)getpid());
	(void)unlinkat(dir, tmp, 0);
	fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		close(dir);
		return;
	}
	fprintf(f, MAGIC "%s\n", key);
	for (size_t i = 0; i < t->n; i++) {
		const struct range_entry *e = &t->v[i];

		if (made_at_run_time(e->module))
			continue;
		if (e->module)
			fprintf(f, "%016" PRIx64 " t %s\t[%s]\n", e->start, e->name, e->module);
		else
			fprintf(f, "%016" PRIx64 " t %s\n", e->start, e->name);
	}
	ok = fflush(f) == 0 && !ferror(f);
	ok = fclose(f) == 0 && ok;
	/* rename() replaces the name, never what a link planted there points to. */
	if (!ok || renameat(dir, tmp, dir, name) < 0)
		(void)unlinkat(dir, tmp, 0);
	else
		forget_other_boots(dir, name);
	close(dir);
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
	const struct range_entry *next;

	/* Below the kernel's last function every answer is static. */
	if (!t->n || addr < t->static_end || addr >= DYNAMIC_END)
		return false;
	if (!e)
		return true;
	/* The last function of the kernel or of a module: what follows it was not saved. */
	next = e + 1 < t->v + t->n ? e + 1 : NULL;
	if (!next)
		return true;
	if (!e->module || !next->module)
		return e->module != next->module;
	return strcmp(e->module, next->module) != 0;
}
