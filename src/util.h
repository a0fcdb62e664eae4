/*
 * util.h - small helpers shared by every subsystem: clocks, messages,
 * checked allocation.
 */
#ifndef SHIMTOP_UTIL_H
#define SHIMTOP_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* Exit statuses, documented in the README. */
#define ST_EXIT_OK	0
#define ST_EXIT_FAIL	1	/* the session could not start or went wrong */
#define ST_EXIT_USAGE	2	/* bad command line */

/* Now on CLOCK_MONOTONIC, the clock perf timestamps use, in ns. */
uint64_t st_now_ns(void);

/* One-line error "shimtop: ..." on stderr. */
void st_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void st_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Allocation that cannot fail: out of memory ends the program. */
void *st_xmalloc(size_t n);
void *st_xcalloc(size_t n, size_t size);
void *st_xrealloc(void *p, size_t n);
char *st_xstrdup(const char *s);

/* Reads a whole small file (under /proc) into a NUL-terminated buffer. */
char *st_read_file(const char *path, size_t *len);

/* The file name part of a path. */
const char *st_basename(const char *path);

/*
 * Opens a file the target may control, read-only: never a FIFO or a
 * device (O_NONBLOCK, then only a regular file is kept), never blocking.
 * With root >= 0 (an O_PATH directory, e.g. /proc/PID/root) the whole
 * path resolves inside it as the target sees it: absolute symbolic links
 * and ".." stay in that root (openat2 RESOLVE_IN_ROOT).  With root < 0
 * the path is this machine's (replay); nofollow refuses a symbolic link
 * as the last component.  Returns a descriptor, or -errno (-EINVAL: not
 * a regular file).
 */
int st_open_untrusted(int root, const char *path, int nofollow);

/*
 * Field n (1-based, as in proc(5)) of /proc/PID/stat as a number, or -1:
 * 22 is the start time in clock ticks after boot, 39 the last CPU.
 */
long long st_proc_stat_field(int pid, int n);

#endif
