/* util.c - clocks, messages and checked allocation. */
#include "util.h"
#include "text_safe.h"
#include "mapped.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int st_thread_start(pthread_t *t, void *(*fn)(void *), void *arg,
		    const char *what)
{
	int rc = pthread_create(t, NULL, fn, arg);
	char name[16];

	if (rc != 0) {
		st_error("cannot start the %s thread: %s", what, strerror(rc));
		return -rc;
	}
	/* Named as top -H and perf show threads: the comm's 15 characters. */
	snprintf(name, sizeof(name), "%s", what);
	(void)pthread_setname_np(*t, name);
	return 0;
}

bool st_thread_for_life(void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	pthread_t t;
	bool started;

	if (pthread_attr_init(&attr))
		return false;
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	started = pthread_create(&t, &attr, fn, arg) == 0;
	pthread_attr_destroy(&attr);
	return started;
}

int st_exit_status(int err)
{
	if (err == 0)
		return ST_EXIT_OK;
	return err == -EINVAL ? ST_EXIT_USAGE : ST_EXIT_FAIL;
}

uint64_t st_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t st_seed(uint64_t salt)
{
	uint64_t seed;

	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != sizeof(seed))
		seed = st_now_ns() ^ salt;
	return seed;
}

/*
 * One line on stderr.  Messages echo names from the target's files and
 * from the command line, which may hold bytes a terminal acts on
 * (escape sequences, a title set, the screen cleared): those become '?'.
 */
__attribute__((format(printf, 2, 0)))
static void vmessage(const char *kind, const char *fmt, va_list ap)
{
	char line[4096];

	vsnprintf(line, sizeof(line), fmt, ap);
	st_text_safe(line);
	fprintf(stderr, "shimtop: %s%s\n", kind ? kind : "", line);
}

void st_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(NULL, fmt, ap);
	va_end(ap);
}

void st_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(NULL, fmt, ap);
	va_end(ap);
}

void st_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("warning: ", fmt, ap);
	va_end(ap);
}

void *st_xcheck(void *p)
{
	if (!p) {
		st_error("out of memory");
		exit(ST_EXIT_FAIL);
	}
	return p;
}

void *st_xmalloc(size_t n)
{
	return st_xcheck(malloc(n ? n : 1));
}

void *st_xcalloc(size_t n, size_t size)
{
	return st_xcheck(calloc(n ? n : 1, size ? size : 1));
}

void *st_xrealloc(void *p, size_t n)
{
	return st_xcheck(realloc(p, n ? n : 1));
}

/*
 * A large array or ring faulted in 2 MiB at a time where the kernel's
 * huge pages are on request (Debian's default): in a VM each 4 KiB
 * fault costs microseconds, and a compile's call tree and sample ring
 * took a sixth of shimtop's CPU in them.  Only the whole huge pages
 * inside [p, p + len) are asked for; a refusal changes nothing.
 */
void st_hint_huge(void *p, size_t len)
{
	const uintptr_t huge = 2u << 20;
	uintptr_t from = ((uintptr_t)p + huge - 1) & ~(huge - 1);
	uintptr_t to = ((uintptr_t)p + len) & ~(huge - 1);

	if (len >= 2 * huge && to > from && st_map_huge_ok())
		(void)madvise((void *)from, to - from, MADV_HUGEPAGE);
}

/*
 * A hash table's slots are touched all over at once: a 2 MiB one took
 * 512 page faults in a session's first second, a tenth of all of a 4 s
 * attach to a compile (the VM's fault is most of a fault's cost).  In
 * a huge page it takes one.
 */
#define TABLE_HUGE	((size_t)2 << 20)
#define TABLE_MAPPED	((size_t)128 << 10)	/* from here mapped: zero until touched */
/*
 * From here a huge page: one fault and 0.3 ms of zeroing for 2 MiB on
 * this kind of VM, where 512 KiB in 4 KiB pages took 128 faults, 1.3 ms.
 */
#define TABLE_HUGE_FROM	((size_t)256 << 10)

/* A table's bytes as allocated: cache lines, then pages, then whole huge pages. */
static size_t table_bytes(size_t n, size_t size)
{
	size_t bytes, unit;

	if (size && n > SIZE_MAX / size - TABLE_HUGE)
		st_xcheck(NULL);	/* no such table fits: out of memory */
	bytes = n * size;
	unit = bytes < TABLE_MAPPED ? 64 : bytes < TABLE_HUGE_FROM ? (size_t)getpagesize() : TABLE_HUGE;
	return bytes ? (bytes + unit - 1) & ~(unit - 1) : 64;
}

void *st_table_alloc(size_t n, size_t size)
{
	size_t bytes = table_bytes(n, size), room = bytes < TABLE_HUGE_FROM ? 0 : TABLE_HUGE;
	uintptr_t at, from;
	char *p;

	if (bytes < TABLE_MAPPED)
		return memset(st_xcheck(aligned_alloc(64, bytes)), 0, bytes);
	/* Mapped fresh, a huge table with a huge page's room to align it. */
	p = mmap(NULL, bytes + room, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		st_xcheck(NULL);
	if (!room)
		return p;
	from = (uintptr_t)p;
	at = (from + TABLE_HUGE - 1) & ~(TABLE_HUGE - 1);
	if (at > from)
		munmap(p, at - from);
	munmap((char *)at + bytes, from + TABLE_HUGE - at);
	if (st_map_huge_ok())
		(void)madvise((void *)at, bytes, MADV_HUGEPAGE);
	return (void *)at;
}

void st_table_free(void *p, size_t n, size_t size)
{
	size_t bytes;

	if (!p)
		return;
	bytes = table_bytes(n, size);
	if (bytes < TABLE_MAPPED)
		free(p);
	else
		munmap(p, bytes);
}

void st_thread_nice(pid_t tid, int nice)
{
	(void)setpriority(PRIO_PROCESS, (id_t)(tid ? tid : (pid_t)syscall(SYS_gettid)), nice);
}

static void grow(void *pp, size_t *cap, size_t need, size_t size, bool zero)
{
	size_t n = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return;
	while (n < need)
		n *= 2;
	if (n > SIZE_MAX / size)
		st_xcheck(NULL);		/* no such array fits: out of memory */
	memcpy(&p, pp, sizeof(p));
	p = st_xrealloc(p, n * size);
	/* Each doubling past 4 MiB: realloc may have moved it to a new mapping. */
	if (n * size >= (4u << 20))
		st_hint_huge(p, n * size);
	if (zero)
		memset((char *)p + *cap * size, 0, (n - *cap) * size);
	memcpy(pp, &p, sizeof(p));
	*cap = n;
}

void st_grow(void *pp, size_t *cap, size_t need, size_t size)
{
	grow(pp, cap, need, size, true);
}

/* Zeroing the doubled room touched pages never used: libLLVM's tables, 12 MB. */
void st_grow_bare(void *pp, size_t *cap, size_t need, size_t size)
{
	grow(pp, cap, need, size, false);
}

char *st_xstrdup(const char *s)
{
	return st_xcheck(strdup(s));
}

bool st_config_path(const char *name, char *buf, size_t len)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");

	if (xdg && *xdg)
		snprintf(buf, len, "%s/shimtop/%s", xdg, name);
	else if (home && *home)
		snprintf(buf, len, "%s/.config/shimtop/%s", home, name);
	else
		return false;
	return true;
}

char *st_read_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 4096, n = 0;
	char *buf;

	if (fd < 0)
		return NULL;
	buf = st_xmalloc(cap);
	for (;;) {
		ssize_t got;

		if (cap - n < 2)
			buf = st_xrealloc(buf, cap *= 2);
		got = read(fd, buf + n, cap - n - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int saved = errno;

			free(buf);
			close(fd);
			errno = saved;
			return NULL;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

const char *st_basename(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

size_t st_own_resident_bytes(void)
{
	char buf[128];
	unsigned long size, resident, shared;
	int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if (sscanf(buf, "%lu %lu %lu", &size, &resident, &shared) != 3)
		return 0;
	return (size_t)(resident > shared ? resident - shared : 0) * (size_t)sysconf(_SC_PAGESIZE);
}

long long st_proc_stat_field(int pid, int n)
{
	char path[64], buf[1024], *p;
	FILE *f;
	int field = 2;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	/* comm may hold spaces and parentheses: count fields after the last ')'. */
	p = p ? strrchr(buf, ')') : NULL;
	if (!p || n < 3)
		return -1;
	for (p++; *p && field < n; p++)
		if (*p == ' ')
			field++;
	return field == n && *p ? strtoll(p, NULL, 10) : -1;
}

int st_open_untrusted(int root, const char *path, int nofollow)
{
	int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
	struct stat st;
	int fd;

	if (root >= 0) {
		struct open_how how = {
			.flags = (uint64_t)flags,
			.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
		};

		fd = (int)syscall(SYS_openat2, root, path, &how, sizeof(how));
		if (fd < 0 && errno == ENOSYS) {
			/*
			 * Before Linux 5.6: through the root's descriptor, the
			 * last component not followed.  An absolute symbolic
			 * link earlier in the path still resolves on the host.
			 */
			char via[4096];

			snprintf(via, sizeof(via), "/proc/self/fd/%d/%s", root,
				 path[0] == '/' ? path + 1 : path);
			fd = open(via, flags | O_NOFOLLOW);
		}
	} else {
		fd = open(path, flags | (nofollow ? O_NOFOLLOW : 0));
	}
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

void st_reverse_u32(uint32_t *v, size_t n)
{
	for (size_t a = 0, z = n ? n - 1 : 0; a < z; a++, z--) {
		uint32_t t = v[a];

		v[a] = v[z];
		v[z] = t;
	}
}

int st_refuse(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int st_write_all(int fd, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n) {
		ssize_t w = write(fd, b, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

void st_sort_order(const uint64_t *keys, size_t n, uint32_t *order)
{
	uint64_t differ = 0;
	uint32_t *tmp, *from = order, *to;

	for (size_t i = 0; i < n; i++) {
		order[i] = (uint32_t)i;
		differ |= keys[i] ^ keys[0];
	}
	if (n < 2 || !differ)
		return;
	tmp = st_xmalloc(n * sizeof(*tmp));
	to = tmp;
	/* Least significant byte first, skipping bytes no two keys differ in. */
	for (unsigned shift = 0; shift < 64; shift += 8) {
		size_t count[257] = { 0 };
		uint32_t *swap;

		if (!((differ >> shift) & 0xff))
			continue;
		for (size_t i = 0; i < n; i++)
			count[((keys[from[i]] >> shift) & 0xff) + 1]++;
		for (size_t b = 1; b < 257; b++)
			count[b] += count[b - 1];
		for (size_t i = 0; i < n; i++)
			to[count[(keys[from[i]] >> shift) & 0xff]++] = from[i];
		swap = from;
		from = to;
		to = swap;
	}
	if (from != order)
		memcpy(order, from, n * sizeof(*order));
	free(tmp);
}

void st_permute(void *base, size_t n, size_t size, uint32_t *order)
{
	unsigned char *b = base, small[64], *tmp = size <= sizeof(small) ? small : st_xmalloc(size);

	/* In place, cycle by cycle (no second array of libLLVM's size); order[j] = j marks done. */
	for (size_t i = 0; i < n; i++) {
		size_t j = i;

		if (order[i] == i)
			continue;
		memcpy(tmp, b + i * size, size);
		for (;;) {
			size_t k = order[j];

			order[j] = (uint32_t)j;
			if (k == i) {
				memcpy(b + j * size, tmp, size);
				break;
			}
			memcpy(b + j * size, b + k * size, size);
			j = k;
		}
	}
	if (tmp != small)
		free(tmp);
}

