/* output_file.c - the files shimtop writes: never through a planted link. */
#include "output_file.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool follow_symlinks;

/*
 * The stream over a descriptor keeps the first write's errno: stdio says
 * only that a write failed, and "No space left on device" is the news.
 */
struct output_sink {
	int fd;
	int error;
};

static ssize_t sink_write(void *cookie, const char *p, size_t n)
{
	struct output_sink *k = cookie;
	int rc = st_write_all(k->fd, p, n);

	if (rc) {
		if (!k->error)
			k->error = -rc;
		errno = -rc;
		/*
		 * 0, never -1: fopencookie(3) wants no negative value, and
		 * glibc's buffered fwrite counts a -1 as one byte more to write
		 * and then copies past its caller's buffer.
		 */
		return 0;
	}
	return (ssize_t)n;
}

static int sink_close(void *cookie)
{
	struct output_sink *k = cookie;

	return close(k->fd);
}

/* o->f over fd (closed with it); 0 or -errno, fd closed on failure. */
static int open_sink(struct st_output *o, int fd)
{
	cookie_io_functions_t io = { NULL, sink_write, NULL, sink_close };

	o->sink = st_xcalloc(1, sizeof(*o->sink));
	o->sink->fd = fd;
	o->f = fopencookie(o->sink, "w", io);
	if (o->f)
		return 0;
	close(fd);
	free(o->sink);
	o->sink = NULL;
	return -ENOMEM;
}

void st_output_follow_symlinks(bool follow)
{
	follow_symlinks = follow;
}

static mode_t new_file_mode(unsigned flags)
{
	mode_t mask = umask(0);

	umask(mask);
	return (flags & ST_OUTPUT_PRIVATE ? 0600 : 0666) & ~mask;
}

/* The descriptor of standard output or error that path names, or -1. */
static int standard_stream(const char *path)
{
	struct stat st, fd_st;

	if (strcmp(path, "-") == 0)
		return STDOUT_FILENO;
	if (stat(path, &st) < 0)
		return -1;
	for (int fd = STDOUT_FILENO; fd <= STDERR_FILENO; fd++)
		if (fstat(fd, &fd_st) == 0 && fd_st.st_dev == st.st_dev &&
		    fd_st.st_ino == st.st_ino)
			return fd;
	return -1;
}

static int borrow(struct st_output *o, int fd)
{
	o->f = fd == STDOUT_FILENO ? stdout : stderr;
	o->borrowed = true;
	return 0;
}

/*
 * A FIFO or character device, written where it is.  A FIFO no one reads
 * is refused rather than waited on: a planted one would hang shimtop.
 * The type is checked again on the descriptor, in case the name changed.
 */
static int open_in_place(struct st_output *o)
{
	struct stat st;
	int fd = open(o->path, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return errno == ENXIO ? -EPIPE : -errno;
	if (fstat(fd, &st) < 0 || !(S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))) {
		close(fd);
		return -ENOTSUP;
	}
	(void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return open_sink(o, fd);
}

/*
 * What path is: 0 with *mode its lstat mode (0: missing).  A symbolic link
 * followed replaces o->path with where it points, even a missing file.
 */
static int inspect(struct st_output *o, mode_t *mode)
{
	struct stat st;

	*mode = 0;
	for (int hops = 0;; hops++) {
		char to[PATH_MAX], *next, *slash;
		ssize_t n;

		if (lstat(o->path, &st) < 0)
			return errno == ENOENT ? 0 : -errno;
		if (!S_ISLNK(st.st_mode))
			break;
		if (!follow_symlinks || hops == 40)
			return -ELOOP;
		n = readlink(o->path, to, sizeof(to) - 1);
		if (n < 0)
			return -errno;
		to[n] = '\0';
		slash = strrchr(o->path, '/');
		if (to[0] == '/' || !slash) {
			next = st_xstrdup(to);
		} else {
			next = st_xmalloc((size_t)(slash - o->path) + 2 + (size_t)n);
			sprintf(next, "%.*s/%s", (int)(slash - o->path), o->path, to);
		}
		free(o->path);
		o->path = next;
	}
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode) && !S_ISCHR(st.st_mode))
		return -ENOTSUP;
	*mode = st.st_mode;
	return 0;
}

static int begin(struct st_output *o, const char *path, unsigned flags, bool stream)
{
	mode_t mode;
	int fd, rc;

	memset(o, 0, sizeof(*o));
	fd = standard_stream(path);
	if (fd >= 0)
		return borrow(o, fd);
	o->path = st_xstrdup(path);
	rc = inspect(o, &mode);
	if (!rc && (S_ISFIFO(mode) || S_ISCHR(mode)))
		rc = open_in_place(o);
	else if (!rc && stream) {
		/*
		 * Unlinked and made anew: the old name may be a hard link to
		 * another user's file.  O_EXCL fails on anything planted since.
		 */
		if (mode && unlink(o->path) < 0)
			rc = -errno;
		fd = rc ? -1 : open(o->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
				    flags & ST_OUTPUT_PRIVATE ? 0600 : 0666);
		if (!rc && fd < 0)
			rc = -errno;
		if (!rc)
			rc = open_sink(o, fd);
	} else if (!rc) {
		/* rename() replaces the name, never what a link there points to. */
		o->tmp = st_xmalloc(strlen(o->path) + 8);
		sprintf(o->tmp, "%s.XXXXXX", o->path);
		fd = mkostemp(o->tmp, O_CLOEXEC);
		if (fd < 0 || fchmod(fd, new_file_mode(flags)) < 0) {
			rc = -errno;
			if (fd >= 0)
				close(fd);
		} else {
			rc = open_sink(o, fd);
		}
		if (rc && fd >= 0)
			unlink(o->tmp);
	}
	if (rc) {
		free(o->tmp);
		free(o->path);
		memset(o, 0, sizeof(*o));
	}
	return rc;
}

int st_output_replace(struct st_output *o, const char *path, unsigned flags)
{
	return begin(o, path, flags, false);
}

int st_output_stream(struct st_output *o, const char *path, unsigned flags)
{
	return begin(o, path, flags, true);
}

int st_output_write(FILE *f, const void *p, size_t n)
{
	errno = 0;
	if (!n || fwrite(p, n, 1, f) == 1)
		return 0;
	return errno ? -errno : -EIO;
}

int st_output_finish(struct st_output *o, int rc)
{
	struct output_sink *k = o->sink;
	struct stat st;

	if (!o->f)
		return rc ? rc : -EBADF;
	errno = 0;
	if (!rc && fflush(o->f))
		rc = errno ? -errno : -EIO;
	if (!rc && ferror(o->f))
		rc = -EIO;
	/* Only a file is synced: fsync of a pipe or terminal fails. */
	if (!rc && k && fstat(k->fd, &st) == 0 && S_ISREG(st.st_mode) && fsync(k->fd) < 0)
		rc = -errno;
	if (!o->borrowed && fclose(o->f) && !rc)
		rc = errno ? -errno : -EIO;
	/* A writer that could say only "it failed": the descriptor's reason. */
	if (k && k->error && (!rc || rc == -EIO))
		rc = -k->error;
	if (o->tmp && !rc && rename(o->tmp, o->path) < 0)
		rc = -errno;
	if (o->tmp && rc)
		unlink(o->tmp);
	free(k);
	free(o->tmp);
	free(o->path);
	memset(o, 0, sizeof(*o));
	return rc;
}

const char *st_output_strerror(int rc)
{
	switch (rc) {
	case -ELOOP:
		return "it is a symbolic link, which shimtop does not write through "
		       "(give the file it points to, or --follow-symlinks)";
	case -ENOTSUP:
		return "it is not a regular file, FIFO or character device";
	case -EPIPE:
		return "it is a FIFO no process reads";
	default:
		return strerror(-rc);
	}
}
