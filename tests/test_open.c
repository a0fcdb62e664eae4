/*
 * test_open.c - opening files a target names (st_open_untrusted): inside
 * a root, an absolute symbolic link resolves in that root, never on the
 * host, and ".." cannot climb out of it; a FIFO or a directory is refused
 * without blocking; a symbolic link as the last component is refused
 * when asked (replay of JIT maps).
 */
#include "check.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

static void put(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* The first line of what fd reads, or "" */
static const char *first_line(int fd)
{
	static char buf[64];
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	if (fd >= 0)
		close(fd);
	return buf;
}

int main(void)
{
	char path[256];
	int root, fd;

	snprintf(dir, sizeof(dir), "/tmp/shimtop-open.XXXXXX");
	if (!mkdtemp(dir))
		return 77;
	snprintf(path, sizeof(path), "%s/inner", dir);
	mkdir(path, 0700);
	put("inner/lib.so", "inside\n");
	snprintf(path, sizeof(path), "%s/sub", dir);
	CHECK(symlink("/inner", path) == 0);		/* absolute, in the root */
	snprintf(path, sizeof(path), "%s/esc", dir);
	CHECK(symlink("/etc", path) == 0);		/* the host's, if followed */
	snprintf(path, sizeof(path), "%s/fifo", dir);
	CHECK(mkfifo(path, 0600) == 0);
	root = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	CHECK(root >= 0);

	/* /sub/lib.so is <root>/inner/lib.so, whatever the host has. */
	fd = st_open_untrusted(root, "/sub/lib.so", 0);
	CHECK(!strcmp(first_line(fd), "inside"));
	/* /esc/hostname would be the host's /etc/hostname: not in the root. */
	CHECK(access("/etc/hostname", R_OK) != 0 ||
	      st_open_untrusted(root, "/esc/hostname", 0) == -ENOENT);
	CHECK(st_open_untrusted(root, "/../../../../etc/hostname", 0) < 0);
	CHECK(st_open_untrusted(root, "/inner/../../etc/passwd", 0) < 0);
	/* Never a FIFO (it would block) or a directory. */
	CHECK(st_open_untrusted(root, "/fifo", 0) == -EINVAL);
	CHECK(st_open_untrusted(root, "/inner", 0) == -EINVAL);
	snprintf(path, sizeof(path), "%s/fifo", dir);
	CHECK(st_open_untrusted(-1, path, 0) == -EINVAL);
	/* This machine's paths (replay): a final symbolic link on request. */
	snprintf(path, sizeof(path), "%s/sub/lib.so", dir);
	CHECK(st_open_untrusted(-1, path, 0) == -ENOENT);	/* /inner on the host */
	put("real", "real\n");
	snprintf(path, sizeof(path), "%s/link", dir);
	{
		char target[256];

		snprintf(target, sizeof(target), "%s/real", dir);
		CHECK(symlink(target, path) == 0);
	}
	fd = st_open_untrusted(-1, path, 0);
	CHECK(!strcmp(first_line(fd), "real"));
	CHECK(st_open_untrusted(-1, path, 1) == -ELOOP);
	close(root);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	CHECK(system(path) == 0);
	return check_done("test_open");
}
