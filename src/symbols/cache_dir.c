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

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
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

bool cache_file_replace(int dir, const char *name, const void *buf, size_t len)
{
	char tmp[320];
	const unsigned char *p = buf;
	int fd;
	bool ok = true;

	snprintf(tmp, sizeof(tmp), ".%s.%d", name, (int)getpid());
	(void)unlinkat(dir, tmp, 0);
	fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return false;
	while (ok && len) {
		ssize_t n = write(fd, p, len);

		ok = n > 0;
		if (ok) {
			p += n;
			len -= (size_t)n;
		}
	}
	ok = close(fd) == 0 && ok;
	/* rename() replaces the name, never what a link planted there points to. */
	if (!ok || renameat(dir, tmp, dir, name) < 0) {
		(void)unlinkat(dir, tmp, 0);
		return false;
	}
	return true;
}
