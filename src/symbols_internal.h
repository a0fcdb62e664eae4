/*
 * symbols_internal.h - sorted address-range tables shared by the kernel
 * (kallsyms) and JIT (perf map) symbol sources.
 */
#ifndef SHIMTOP_SYMBOLS_INTERNAL_H
#define SHIMTOP_SYMBOLS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

struct range_entry {
	uint64_t start;
	uint64_t end;		/* exclusive */
	char *name;
	char *module;		/* NULL: the table's default module */
};

struct range_table {
	struct range_entry *v;
	size_t n, cap;
};

void range_table_add(struct range_table *t, uint64_t start, uint64_t end,
		     const char *name, const char *module);
/* Sorts; entries without a size end where the next begins. */
void range_table_finish(struct range_table *t);
const struct range_entry *range_table_find(const struct range_table *t,
					   uint64_t addr);
void range_table_clear(struct range_table *t);

/* /proc/kallsyms; an empty table when unreadable or hidden (all zero). */
void kernel_symbols_load(struct range_table *t);

/* /tmp/perf-PID.map, reloaded when it changes. */
struct jit_map {
	struct range_table table;
	char path[64];
	time_t mtime;
	off_t size;
	uint64_t checked_ns;
};
void jit_map_init(struct jit_map *j, pid_t pid);
/* Reloads if the file changed (at most once a second); 0 if present. */
int jit_map_refresh(struct jit_map *j);

#endif
