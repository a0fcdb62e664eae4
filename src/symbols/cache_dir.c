/*
 * cache_dir.c - shimtop's cache directory: copies of what is costly to
 * make and the same from one session to the next (the kernel's
 * functions, a file's unwind rows).  A directory only its owner may
 * write (/var/cache/shimtop for root, the user's cache directory
 * otherwise; SHIMTOP_CACHE_DIR overrides, empty turns it off).
 *
 * Nothing here follows a link or writes through one: the directory is
 * opened once (O_NOFOLLOW) and checked, every file is opened relative to
 * it and checked, and a new copy is written to a fresh name (O_EXCL) and
 * renamed over the old.
 */
#include "symbols/symbols_internal.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int cache_dir_open(bool create)
{
	const char *env = getenv("SHIMTOP_CACHE_DIR"), *home = getenv("HOME");
	const char *xdg = getenv("XDG_CACHE_HOME");
	char path[4096];
	struct stat st;
	int fd;

	if (env)
		snprintf(path, sizeof(path), "%s", env);
	else if (geteuid() == 0)
		snprintf(path, sizeof(path), "/var/cache/shimtop");
	else if (xdg && xdg[0] == '/')
		snprintf(path, sizeof(path), "%s/shimtop", xdg);
	else if (home && home[0] == '/')
		snprintf(path, sizeof(path), "%s/.cache/shimtop", home);
	else
		return -1;
	if (!path[0])
		return -1;
	if (create)
		(void)mkdir(path, 0700);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 022)) {
		close(fd);
		return -1;
	}
	return fd;
}

int cache_file_open(int dir, const char *name, uint64_t max, uint64_t *size)
{
	int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return -1;
	/* Ours, a plain file nobody else may write, of a sane size. */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022) || st.st_size <= 0 || (uint64_t)st.st_size > max) {
		close(fd);
		return -1;
	}
	*size = (uint64_t)st.st_size;
	return fd;
}

void cache_file_name(char *name, size_t len, const char *prefix, const unsigned char *id,
		     size_t id_len)
{
	size_t n = (size_t)snprintf(name, len, "%s", prefix);

	for (size_t i = 0; i < id_len && n + 3 <= len; i++)
		n += (size_t)snprintf(name + n, len - n, "%02x", id[i]);
}

const void *cache_file_map(int dir, const char *name, uint64_t max, size_t *size)
{
	uint64_t bytes;
	int fd = cache_file_open(dir, name, max, &bytes);
	void *p;

	if (fd < 0)
		return NULL;
	/*
	 * The page cache's own pages, not a copy: a copy is fresh memory,
	 * whose first touch costs a fault a page.  A file here is only ever
	 * replaced by a rename (below), never written where it is, and only
	 * its owner could: what is mapped stays what was checked.
	 */
	p = mmap(NULL, (size_t)bytes, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return NULL;
	*size = (size_t)bytes;
	return p;
}

#define CACHE_OUT_BUF	(64u << 10)	/* a write's size to a file */

void cache_out_memory(struct cache_out *o)
{
	memset(o, 0, sizeof(*o));
	o->fd = -1;
}

bool cache_out_begin(struct cache_out *o, int dir, const char *name)
{
	memset(o, 0, sizeof(*o));
	snprintf(o->tmp, sizeof(o->tmp), ".%s.%d", name, (int)getpid());
	(void)unlinkat(dir, o->tmp, 0);
	o->fd = openat(dir, o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (o->fd < 0)
		return false;
	o->cap = CACHE_OUT_BUF;
	o->buf = st_xmalloc(o->cap);
	return true;
}

static void write_all(struct cache_out *o, const unsigned char *p, size_t n)
{
	while (!o->failed && n) {
		ssize_t w = write(o->fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		o->failed = w <= 0;
		if (w > 0) {
			p += w;
			n -= (size_t)w;
		}
	}
}

void cache_out_put(struct cache_out *o, const void *p, size_t n)
{
	if (o->failed || !n)
		return;
	o->len += n;
	if (o->fd < 0) {
		ST_GROW_BARE(o->buf, o->cap, o->used + n);
		memcpy(o->buf + o->used, p, n);
		o->used += n;
		return;
	}
	if (o->used + n > o->cap) {
		write_all(o, o->buf, o->used);
		o->used = 0;
	}
	if (n >= o->cap) {
		write_all(o, p, n);
		return;
	}
	memcpy(o->buf + o->used, p, n);
	o->used += n;
}

void cache_out_zeros(struct cache_out *o, size_t n)
{
	static const unsigned char zeros[256];

	for (size_t k; n; n -= k) {
		k = n < sizeof(zeros) ? n : sizeof(zeros);
		cache_out_put(o, zeros, k);
	}
}

size_t cache_out_bytes(struct cache_out *o, unsigned char **out)
{
	*out = o->failed ? NULL : o->buf;
	if (o->failed)
		free(o->buf);
	o->buf = NULL;
	return o->failed ? 0 : o->used;
}

bool cache_out_end(struct cache_out *o, int dir, const char *name)
{
	bool ok;

	write_all(o, o->buf, o->used);
	free(o->buf);
	o->buf = NULL;
	ok = !o->failed && o->len;
	ok = close(o->fd) == 0 && ok;
	o->fd = -1;
	/* rename() replaces the name, never what a link planted there points to. */
	if (!ok || renameat(dir, o->tmp, dir, name) < 0) {
		(void)unlinkat(dir, o->tmp, 0);
		return false;
	}
	return true;
}
