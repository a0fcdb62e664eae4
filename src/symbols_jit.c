/* symbols_jit.c - JIT symbols from /tmp/perf-PID.map ("START SIZE name"). */
#include "symbols_internal.h"
#include "util.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

void jit_map_init(struct jit_map *j, pid_t pid)
{
	memset(j, 0, sizeof(*j));
	snprintf(j->path, sizeof(j->path), "/tmp/perf-%d.map", (int)pid);
}

int jit_map_refresh(struct jit_map *j)
{
	uint64_t now = st_now_ns();
	struct stat st;
	char line[1024];
	FILE *f;

	if (j->checked_ns && now - j->checked_ns < 1000000000u)
		return j->table.n ? 0 : -1;
	j->checked_ns = now;
	if (stat(j->path, &st) < 0)
		return -1;
	if (st.st_mtime == j->mtime && st.st_size == j->size)
		return 0;
	f = fopen(j->path, "re");
	if (!f)
		return -1;
	range_table_clear(&j->table);
	while (fgets(line, sizeof(line), f)) {
		uint64_t start, size;
		int name_at = 0;

		if (sscanf(line, "%" SCNx64 " %" SCNx64 " %n", &start, &size,
			   &name_at) < 2 || !name_at)
			continue;
		line[strcspn(line, "\n")] = '\0';
		range_table_add(&j->table, start, start + size, line + name_at, NULL);
	}
	fclose(f);
	range_table_finish(&j->table);
	j->mtime = st.st_mtime;
	j->size = st.st_size;
	return 0;
}
