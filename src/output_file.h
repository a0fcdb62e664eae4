/*
 * output_file.h - the files shimtop writes, as a program run by root must
 * write them.
 *
 * shimtop often runs as root in directories other users can write.  A name
 * there may be a planted symbolic link (to /etc/shadow, to a device) or a
 * hard link to someone's file, so nothing here writes through a link or
 * truncates a file in place:
 *  - a missing name or a regular file gets a new file (a whole output under
 *    a temporary name renamed over it once complete; a stream unlinks the
 *    old name and creates the new one exclusively);
 *  - a FIFO or a character device (/dev/null, a terminal) the caller or
 *    root owns is written in place, as are "-" (standard output) and the
 *    standard streams' own names (/dev/stdout, /dev/stderr,
 *    /proc/self/fd/1 and 2), never another name that leads to where they
 *    go; another user's FIFO or device is refused (they may be reading);
 *  - a symbolic link is refused unless --follow-symlinks, and then what it
 *    points to is treated as above; directories, sockets and block devices
 *    are refused;
 *  - the directories on the way are walked and judged as output_path.h
 *    says: nothing another user planted or can move redirects the file.
 * Files that hold the target's memory or profile (records, snapshots,
 * exports) are 0600, as perf writes perf.data; others (settings, the
 * launched command's output) get 0666 less the umask.
 */
#ifndef SHIMTOP_OUTPUT_FILE_H
#define SHIMTOP_OUTPUT_FILE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "output_path.h"

enum {
	ST_OUTPUT_PRIVATE = 1,	/* the target's memory or profile: 0600 */
};

struct output_sink;

struct st_output {
	FILE *f;
	struct output_sink *sink;	/* the descriptor under f and its first error */
	struct output_place place;	/* its directory and name there */
	char *tmp;		/* in that directory, renamed over the name at the end; NULL: in place */
	bool borrowed;		/* standard output or error: flushed, not closed */
	bool unsynced;		/* a descriptor lent: written, never synced */
};

/* --follow-symlinks: write where a symbolic link points (off by default). */
void st_output_follow_symlinks(bool follow);

/* A whole output (snapshot, export, settings): 0 or -errno. */
int st_output_replace(struct st_output *o, const char *path, unsigned flags);

/* A stream written as it comes (a record file): 0 or -errno. */
int st_output_stream(struct st_output *o, const char *path, unsigned flags);
/*
 * A stream over a copy of fd that keeps the first write's errno, written
 * through at each buffer's fill: a report of megabytes never held whole.
 * 0 or -errno.
 */
int st_output_descriptor(struct st_output *o, int fd);
/* The descriptor under an open output (another process writes there: a launched command's). */
int st_output_fd(const struct st_output *o);

/*
 * Flushes, syncs a regular file and renames it into place if rc is 0 and
 * every write went; otherwise removes a temporary file.  Returns the first
 * error (a stream's own errno where a write failed, e.g. -ENOSPC).
 */
int st_output_finish(struct st_output *o, int rc);

/*
 * fwrite that keeps the reason: 0, or -errno of the failed write (-EIO if
 * the C library gave none).
 */
int st_output_write(FILE *f, const void *p, size_t n);

/*
 * mkdir -p of the directories path's file is in (new ones mode), each judged
 * as output_path.h says before the next is made; 0 or -errno.
 */
int st_output_make_parents(const char *path, mode_t mode);

/* What a refusal means, in words for "cannot write PATH: %s". */
const char *st_output_strerror(int rc);

#endif
