/*
 * symbols_kernel.c - kernel symbols from /proc/kallsyms, and the sorted
 * range tables that kernel and JIT symbols share.
 */
#include "symbols/symbols_internal.h"
#include "util.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void range_table_finish(struct range_table *t)
{
	if (!t->n)
		return;		/* v is NULL: qsort must not see it */
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
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	return addr < t->v[lo - 1].end ? &t->v[lo - 1] : NULL;
}

void range_table_clear(struct range_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].name);
		free(t->v[i].module);
	}
	free(t->v);
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
	char *end, *p;

	*addr = strtoull(line, &end, 16);
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

void kernel_symbols_load(struct range_table *t)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512];
	bool all_zero = true;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char type, *name, *module;
		uint64_t addr;

		if (!kallsyms_line(line, &addr, &type, &name, &module))
			continue;
		if (addr)
			all_zero = false;
		/* Only text symbols: data symbols would split functions. */
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		range_table_add(t, addr, 0, name, module && *module ? module : NULL);
	}
	fclose(f);
	/* kptr_restrict hides addresses as zeros: useless, drop them. */
	if (all_zero)
		range_table_clear(t);
	range_table_finish(t);
}
