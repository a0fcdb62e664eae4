/*
 * util.h - small helpers shared by every subsystem: clocks, messages,
 * checked allocation.
 */
#ifndef SHIMTOP_UTIL_H
#define SHIMTOP_UTIL_H

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

/*
 * Functions that can fail print one line saying why and return 0 or a
 * negative errno; -EINVAL means the user's input (the command line, a
 * file it names) is wrong.  Only main turns these into exit statuses
 * (st_exit_status), documented in the README.
 */
#define ST_EXIT_OK	0
#define ST_EXIT_FAIL	1	/* the session could not start or went wrong */
#define ST_EXIT_USAGE	2	/* bad command line */
#define ST_EXIT_SIGINT	130	/* stopped by Ctrl-C: 128 + SIGINT */

/*
 * Every element of a uthash table (its handle named hh) deleted and
 * freed, head NULL after; where uthash.h is included.
 */
#define ST_HASH_FREE_ALL(head)						\
	do {								\
		__typeof__(head) st_el_, st_next_;			\
		HASH_ITER(hh, (head), st_el_, st_next_) {		\
			HASH_DEL((head), st_el_);			\
			free(st_el_);					\
		}							\
	} while (0)

/* x86-64: where the kernel's half of the address space begins. */
#define ST_KERNEL_START	0xffff800000000000ull

/* 0 -> 0, -EINVAL -> ST_EXIT_USAGE, any other failure -> ST_EXIT_FAIL. */
int st_exit_status(int err);

/* Starts a thread; 0, or -errno after "cannot start the WHAT thread". */
int st_thread_start(pthread_t *t, void *(*fn)(void *), void *arg,
		    const char *what);
/*
 * Starts a worker for the process's life, never joined (what it serves,
 * files and fetches, lives as long): true if it runs.  Silent: a caller
 * without it does the work itself.
 */
bool st_thread_for_life(void *(*fn)(void *), void *arg);

/* Now on CLOCK_MONOTONIC, the clock perf timestamps use, in ns. */
uint64_t st_now_ns(void);
/*
 * A hash table's seed: 64 random bits, else (no entropy yet) the clock
 * mixed with salt, which is unpredictable enough to another process.
 */
uint64_t st_seed(uint64_t salt);

/*
 * One-line error "shimtop: ..." on stderr, what a terminal would act on
 * made '?'; st_note is the same for news (a snapshot written, where
 * --serve listens).
 */
void st_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void st_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void st_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Allocation that cannot fail: out of memory ends the program. */
/* p, unless it is NULL: then "out of memory" and exit, as st_xmalloc. */
void *st_xcheck(void *p);
void *st_xmalloc(size_t n);
void *st_xcalloc(size_t n, size_t size);
void *st_xrealloc(void *p, size_t n);

/*
 * In v[0..n) (elements of size bytes, sorted by the uint64_t at offset
 * in each), the index of the first whose key is past key: the element
 * before it, if any, is the last starting at or before key.
 */
static inline size_t st_after(const void *v, size_t n, size_t size, size_t offset,
			      uint64_t key)
{
	const unsigned char *base = v;
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k;

		memcpy(&k, base + mid * size + offset, sizeof(k));
		if (k <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
char *st_xstrdup(const char *s);

/*
 * Thread tid's niceness (0: the calling thread), where allowed: a hint,
 * never an error (going back up from a higher value needs the right).
 */
void st_thread_nice(pid_t tid, int nice);

/* Asks for huge pages over a large block's interior (a hint, never an error). */
void st_hint_huge(void *p, size_t len);

/*
 * A zeroed table of n entries of size bytes, cache-line aligned, freed
 * by st_table_free with the same n and size; from 128 KiB mapped (its
 * pages zeroed as first touched), from 256 KiB a whole huge page or
 * more (2 MiB each) where the kernel gives them.
 */
void *st_table_alloc(size_t n, size_t size);
void st_table_free(void *p, size_t n, size_t size);

/*
 * The growable array: makes *pp (holding *cap elements of size bytes)
 * hold at least need, doubling from 16 and zeroing the new elements.
 * ST_GROW(p, cap, need) for a typed pointer p, a statement: the check
 * is inline, since the model grows its arrays on every sample and they
 * almost never need it.
 */
void st_grow(void *pp, size_t *cap, size_t need, size_t size);
/* The same, the new room left as it comes (every element is written before it is read). */
void st_grow_bare(void *pp, size_t *cap, size_t need, size_t size);
#define ST_GROW(p, cap, need) do {					\
	size_t st_grow_need_ = (need);					\
	if (st_grow_need_ > (cap))					\
		st_grow(&(p), &(cap), st_grow_need_, sizeof(*(p)));	\
} while (0)
#define ST_GROW_BARE(p, cap, need) do {					\
	size_t st_grow_need_ = (need);					\
	if (st_grow_need_ > (cap))					\
		st_grow_bare(&(p), &(cap), st_grow_need_, sizeof(*(p)));	\
} while (0)

/*
 * A parser's reason for refusing its input, into err (one line, the
 * caller adds what input it was): returns -EINVAL.
 */
int st_refuse(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Reverses n ids in place (paths leaf first to root first). */
void st_reverse_u32(uint32_t *v, size_t n);
/*
 * order[0..n-1]: the indices of keys in ascending order of key, equal
 * keys in index order (a radix sort: a symbol table's 100,000 addresses
 * in a few passes, where qsort's comparisons took a tenth of a session).
 */
void st_sort_order(const uint64_t *keys, size_t n, uint32_t *order);
/* base's n elements of size bytes put in order (st_sort_order's), in place; order is used up. */
void st_permute(void *base, size_t n, size_t size, uint32_t *order);

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

/* write(2) until all n bytes are written; 0 or -errno. */
int st_write_all(int fd, const void *p, size_t n);

/*
 * Field n (1-based, as in proc(5)) of /proc/PID/stat as a number, or -1:
 * 22 is the start time in clock ticks after boot, 39 the last CPU.
 */
long long st_proc_stat_field(int pid, int n);

/*
 * This process's own resident memory in bytes (/proc/self/statm: resident
 * less shared), or 0.  Not the pages of the files it maps (the binaries
 * it reads symbols from: 89 MB of them an hour into a busy host's
 * session), which are the page cache's, shared and given back on demand.
 */
size_t st_own_resident_bytes(void);

/*
 * Where shimtop keeps a file of its own: $XDG_CONFIG_HOME/shimtop/NAME,
 * else ~/.config/shimtop/NAME.  False when neither is set.
 */
bool st_config_path(const char *name, char *buf, size_t len);

#endif
