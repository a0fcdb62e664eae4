/* output_file.c - the files shimtop writes: never through a planted link. */
#include "output_file.h"
#include "output_path.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
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

int st_output_descriptor(struct st_output *o, int fd)
{
	int copy = fcntl(fd, F_DUPFD_CLOEXEC, 3);

	memset(o, 0, sizeof(*o));
	o->place.dir = -1;
	o->unsynced = true;
	return copy < 0 ? -errno : open_sink(o, copy);
}

void st_output_follow_symlinks(bool follow)
{
	follow_symlinks = follow;
}

/*
 * The descriptor of standard output or error that path spells, or -1.
 * Only the spellings: a name that merely resolves to where the streams go
 * may be another user's link to root's log, and would hand them the
 * target's memory.
 */
static int standard_stream(const char *path)
{
	static const struct {
		const char *name;
		int fd;
	} names[] = {
		{ "-", STDOUT_FILENO },
		{ "/dev/stdout", STDOUT_FILENO },
		{ "/dev/stderr", STDERR_FILENO },
		{ "/proc/self/fd/1", STDOUT_FILENO },
		{ "/proc/self/fd/2", STDERR_FILENO },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(path, names[i].name) == 0)
			return names[i].fd;
	return -1;
}

static int borrow(struct st_output *o, int fd)
{
	o->f = fd == STDOUT_FILENO ? stdout : stderr;
	o->borrowed = true;
	return 0;
}

/*
 * Whether a FIFO or device (st) may be written: one another user owns may
 * be read by them (the rule of fs.protected_fifos=2, whatever it says).
 */
static int judge_in_place(const struct stat *st)
{
	char who[128];

	if (output_uid_trusted(st->st_uid))
		return 0;
	output_path_refuse("it is a %s %s owns, who may read what is written there "
			   "(give a path of your own)",
			   S_ISFIFO(st->st_mode) ? "FIFO" : "device",
			   output_user_name(st->st_uid, who, sizeof(who)));
	return ST_OUTPUT_UNTRUSTED;
}

/*
 * A FIFO or character device (as st says), written where it is.  A FIFO
 * no one reads is refused rather than waited on: a planted one would hang
 * shimtop.  What was judged is checked again on the descriptor, in case
 * the name changed.
 */
static int open_in_place(struct st_output *o, const struct stat *st)
{
	struct stat now;
	int fd, rc = judge_in_place(st);

	if (rc)
		return rc;
	fd = openat(o->place.dir, o->place.name,
		    O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno == ENXIO ? -EPIPE : -errno;
	if (fstat(fd, &now) < 0 || now.st_dev != st->st_dev || now.st_ino != st->st_ino ||
	    !(S_ISFIFO(now.st_mode) || S_ISCHR(now.st_mode))) {
		close(fd);
		return -ENOTSUP;
	}
	(void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return open_sink(o, fd);
}

/* A new file beside the name (NAME.XXXXXX), for a whole output: its descriptor or -errno. */
static int open_temporary(struct st_output *o, mode_t mode)
{
	static const char letters[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	const uint64_t nletters = sizeof(letters) - 1;
	size_t n = strlen(o->place.name);

	o->tmp = st_xmalloc(n + 8);
	for (uint64_t tries = 0; tries < 100; tries++) {
		uint64_t r = st_now_ns() ^ ((uint64_t)getpid() << 32) ^ tries * 7919u;
		int fd;

		(void)getrandom(&r, sizeof(r), GRND_NONBLOCK);	/* else the clock's */
		memcpy(o->tmp, o->place.name, n);
		o->tmp[n] = '.';
		for (size_t i = 0; i < 6; i++, r /= nletters)
			o->tmp[n + 1 + i] = letters[r % nletters];
		o->tmp[n + 7] = '\0';
		fd = openat(o->place.dir, o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    mode);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : -errno;
	}
	return -EEXIST;
}

static int begin(struct st_output *o, const char *path, unsigned flags, bool stream)
{
	mode_t mode = flags & ST_OUTPUT_PRIVATE ? 0600 : 0666;	/* less the umask */
	struct stat st;
	int fd, rc;

	memset(o, 0, sizeof(*o));
	o->place.dir = -1;
	fd = standard_stream(path);
	if (fd >= 0)
		return borrow(o, fd);
	rc = output_place_find(&o->place, path, follow_symlinks);
	if (!rc && fstatat(o->place.dir, o->place.name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		rc = errno == ENOENT ? 0 : -errno;
		st.st_mode = 0;
	}
	if (!rc && S_ISDIR(st.st_mode))
		rc = -EISDIR;
	else if (!rc && st.st_mode && !S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode) &&
		 !S_ISCHR(st.st_mode))
		rc = -ENOTSUP;
	if (!rc && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))) {
		rc = open_in_place(o, &st);
	} else if (!rc && stream) {
		/*
		 * Unlinked and made anew: the old name may be a hard link to
		 * another user's file.  O_EXCL fails on anything planted since.
		 */
		if (st.st_mode && unlinkat(o->place.dir, o->place.name, 0) < 0)
			rc = -errno;
		fd = rc ? -1 : openat(o->place.dir, o->place.name,
				      O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (!rc && fd < 0)
			rc = -errno;
		if (!rc)
			rc = open_sink(o, fd);
	} else if (!rc) {
		/* renameat() replaces the name, never what a link there points to. */
		fd = open_temporary(o, mode);
		rc = fd < 0 ? fd : open_sink(o, fd);
		if (rc && fd >= 0)
			unlinkat(o->place.dir, o->tmp, 0);
	}
	if (rc) {
		free(o->tmp);
		output_place_free(&o->place);
		memset(o, 0, sizeof(*o));
		o->place.dir = -1;
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

int st_output_fd(const struct st_output *o)
{
	return o->sink ? o->sink->fd : -1;
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
	if (!rc && k && !o->unsynced && fstat(k->fd, &st) == 0 && S_ISREG(st.st_mode) && fsync(k->fd) < 0)
		rc = -errno;
	if (!o->borrowed && fclose(o->f) && !rc)
		rc = errno ? -errno : -EIO;
	/* A writer that could say only "it failed": the descriptor's reason. */
	if (k && k->error && (!rc || rc == -EIO))
		rc = -k->error;
	if (o->tmp && !rc && renameat(o->place.dir, o->tmp, o->place.dir, o->place.name) < 0)
		rc = -errno;
	if (o->tmp && rc)
		unlinkat(o->place.dir, o->tmp, 0);
	free(k);
	free(o->tmp);
	output_place_free(&o->place);
	memset(o, 0, sizeof(*o));
	o->place.dir = -1;
	return rc;
}

int st_output_make_parents(const char *path, mode_t mode)
{
	char dir[PATH_MAX];

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	/*
	 * Each directory judged on the way before it is made: another user's
	 * link to /etc early in the path is refused before /etc/x/sub exists.
	 */
	for (char *p = dir + 1; *p; p++) {
		struct output_place place;
		int rc;

		if (*p != '/')
			continue;
		*p = '\0';
		rc = output_place_find(&place, dir, follow_symlinks);
		/* A link there is judged as a parent by the next step's walk. */
		if (!rc && mkdirat(place.dir, place.name, mode) < 0 && errno != EEXIST)
			rc = -errno;
		output_place_free(&place);
		if (rc && rc != -ELOOP)
			return rc;
		*p = '/';
	}
	return 0;
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
	case ST_OUTPUT_UNTRUSTED:
		if (output_path_refusal()[0])
			return output_path_refusal();
		return strerror(-rc);
	default:
		return strerror(-rc);
	}
}
