/*
 * symbols_kernel.c - kernel symbols from /proc/kallsyms, and the sorted
 * range tables that kernel and JIT symbols share.
 */
#include "symbols/symbols_internal.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void range_table_add(struct range_table *t, uint64_t start, uint64_t end,
		     const char *name, const char *module)
{
	ST_GROW(t->v, t->cap, t->n + 1);
	t->v[t->n++] = (struct range_entry){
		.start = start, .end = end, .name = st_xstrdup(name),
		.module = module ? st_xstrdup(module) : NULL,
	};
}

static int by_start(const void *a, const void *b)
{
	const struct range_entry *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static bool sorted_by_start(const struct range_table *t)
{
	for (size_t i = 1; i < t->n; i++)
		if (t->v[i].start < t->v[i - 1].start)
			return false;
	return true;
}

void range_table_finish(struct range_table *t)
{
	if (!t->n)
		return;		/* v is NULL: qsort must not see it */
	/* kallsyms comes sorted but for its modules: a sort only where needed. */
	if (!sorted_by_start(t))
		qsort(t->v, t->n, sizeof(*t->v), by_start);
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].end <= t->v[i].start)
			t->v[i].end = i + 1 < t->n ? t->v[i + 1].start :
				      t->v[i].start > UINT64_MAX - 4096 ? UINT64_MAX :
				      t->v[i].start + 4096;
}

const struct range_entry *range_table_find(const struct range_table *t,
					   uint64_t addr)
{
	size_t lo;

	if (t->disk)
		return kernel_cache_find(t, addr);
	lo = st_after(t->v, t->n, sizeof(*t->v), offsetof(struct range_entry, start), addr);
	if (lo == 0)
		return NULL;
	return addr < t->v[lo - 1].end ? &t->v[lo - 1] : NULL;
}

void range_table_entry(const struct range_table *t, size_t i, struct range_entry *out)
{
	if (t->disk)
		kernel_cache_entry(t, i, out);
	else
		*out = t->v[i];
}

void range_table_clear(struct range_table *t)
{
	for (size_t i = 0; t->v && i < t->n && !t->text && !t->borrowed; i++) {
		free(t->v[i].name);
		free(t->v[i].module);
	}
	free(t->v);
	if (t->text)
		munmap(t->text, t->text_size);
	memset(t, 0, sizeof(*t));
}

/*
 * One line of /proc/kallsyms, "ADDR TYPE NAME[\t[MODULE]]": false when
 * it is not such a line.  By hand: sscanf took most of the read's
 * user time over the kernel's 150,000 lines.
 */
static bool kallsyms_line(char *line, uint64_t *addr, char *type, char **name,
			  char **module)
{
	char *end = line, *p;

	/* The address's hex digits by hand: strtoull's locale work was 1.5% of a session. */
	*addr = 0;
	for (; end - line < 16; end++) {
		unsigned d = *end >= '0' && *end <= '9' ? (unsigned)(*end - '0')
			   : (*end | 0x20) >= 'a' && (*end | 0x20) <= 'f' ? (unsigned)((*end | 0x20) - 'a' + 10)
			   : 16;

		if (d == 16)
			break;
		*addr = *addr << 4 | d;
	}
	if (end == line || end[0] != ' ' || !end[1] || end[2] != ' ')
		return false;
	*type = end[1];
	*name = p = end + 3;
	p += strcspn(p, " \t\n");
	*module = NULL;
	if (*p == '\t' || *p == ' ') {
		char *open = strchr(p, '[');
		char *close = open ? strchr(open, ']') : NULL;

		if (close) {
			*close = '\0';
			*module = open + 1;
		}
	}
	*p = '\0';
	return **name != '\0';
}

/*
 * The whole of /proc/kallsyms, NUL-terminated, in a mapping of *size
 * bytes (KALLSYMS_MAX where it can; pages are only used as the text
 * fills them: no copy as a growing buffer would make), or NULL.
 */
#define KALLSYMS_MAX	(256u << 20)
static char *read_kallsyms(size_t *len, size_t *size)
{
	int fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	char *text = MAP_FAILED;

	if (fd < 0)
		return NULL;
	/* Where overcommit is strict, a smaller reservation. */
	static const size_t sizes[] = { KALLSYMS_MAX, 64u << 20, 16u << 20 };

	for (size_t i = 0; text == MAP_FAILED && i < sizeof sizes / sizeof sizes[0]; i++) {
		*size = sizes[i];
		text = mmap(NULL, *size, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	}
	if (text == MAP_FAILED) {
		close(fd);
		return NULL;
	}
	*len = kallsyms_read_fd(fd, text, *size);
	return text;
}

size_t kallsyms_read_fd(int fd, char *text, size_t size)
{
	size_t n = 0;

	while (n < size - 1) {
		/* Large reads: the kernel formats the same lines, in fewer calls. */
		size_t want = size - 1 - n < (256u << 10) ? size - 1 - n : 256u << 10;
		ssize_t got = read(fd, text + n, want);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	text[n] = '\0';
	return n;
}

void kernel_symbols_parse(struct range_table *t, char *text, size_t len)
{
	bool all_zero = true;
	char *line, *next;

	/* The names stay in the text, kept with the table: no copy per symbol. */
	for (line = text; line < text + len; line = next) {
		char type, *name, *module, *nl = memchr(line, '\n', (size_t)(text + len - line));
		uint64_t addr;

		next = nl ? nl + 1 : text + len;
		if (nl)
			*nl = '\0';
		if (!kallsyms_line(line, &addr, &type, &name, &module))
			continue;
		if (addr)
			all_zero = false;
		/* Only text symbols: data symbols would split functions. */
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		ST_GROW_BARE(t->v, t->cap, t->n + 1);
		t->v[t->n++] = (struct range_entry){
			.start = addr, .name = name, .module = module && *module ? module : NULL,
		};
	}
	/* kptr_restrict hides addresses as zeros: useless, drop them. */
	if (all_zero) {
		free(t->v);
		t->v = NULL;
		t->n = t->cap = 0;
	}
	range_table_finish(t);
	/* The kernel's own functions come first, modules' after them. */
	for (size_t i = 0; i < t->n && !t->v[i].module; i++)
		t->static_end = t->v[i].start;
}

/*
 * Code the kernel made at run time (ftrace and kprobe trampolines, BPF
 * programs), read from /proc/kallsyms a piece at a time into t: the
 * saved copy keeps naming the rest.  Reading the whole list again kept
 * its 5 MB text and a 4 MB table beside the copy for the session.
 */
void kernel_symbols_made_at_run_time(struct range_table *t)
{
	enum { PIECE = 256u << 10 };
	int fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	char *buf;
	size_t held = 0;

	range_table_clear(t);
	if (fd < 0)
		return;
	buf = st_xmalloc(PIECE + 1);
	for (;;) {
		ssize_t got = read(fd, buf + held, PIECE - held);
		char *line = buf, *nl;

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		held += (size_t)got;
		buf[held] = '\0';
		while ((nl = memchr(line, '\n', (size_t)(buf + held - line))) != NULL) {
			char type, *name, *module;
			uint64_t addr;

			*nl = '\0';
			if (kallsyms_line(line, &addr, &type, &name, &module) && addr &&
			    (type == 't' || type == 'T') && kernel_made_at_run_time(module))
				range_table_add(t, addr, 0, name, module);
			line = nl + 1;
		}
		/* A line longer than a piece is no line of kallsyms: dropped. */
		held = line == buf ? 0 : (size_t)(buf + held - line);
		memmove(buf, line, held);
	}
	close(fd);
	free(buf);
	range_table_finish(t);
}

void kernel_symbols_load(struct range_table *t, bool fresh)
{
	char key[128], *text;
	bool keyed = kernel_cache_key(key, sizeof(key));
	size_t len, size;

	range_table_clear(t);
	if (keyed && !fresh && kernel_cache_read(key, t))
		return;
	text = read_kallsyms(&len, &size);
	if (!text)
		return;
	kernel_symbols_parse(t, text, len);
	t->text = text;
	t->text_size = size;
	/* A fresh read of what the copy holds would write the same file again. */
	if (keyed && t->n && !fresh)
		kernel_cache_write(key, t);
}
