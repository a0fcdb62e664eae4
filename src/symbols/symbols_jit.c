/* symbols_jit.c - JIT symbols from /tmp/perf-PID.map ("START SIZE name"). */
#include "symbols/symbols_internal.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void jit_map_init(struct jit_map *j, pid_t pid, uid_t owner)
{
	memset(j, 0, sizeof(*j));
	snprintf(j->path, sizeof(j->path), "/tmp/perf-%d.map", (int)pid);
	j->pid = pid;
	j->owner = owner;
}

void jit_map_parse(struct range_table *t, const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);
		char line[1024];
		uint64_t start, size;
		int name_at = 0;

		if (n >= sizeof(line))
			n = sizeof(line) - 1;	/* a name that long is cut */
		memcpy(line, p, n);
		line[n] = '\0';
		p = nl ? nl + 1 : end;
		if (sscanf(line, "%" SCNx64 " %" SCNx64 " %n", &start, &size,
			   &name_at) < 2 || !name_at || !line[name_at] ||
		    start + size < start)
			continue;
		range_table_add(t, start, start + size, line + name_at, NULL);
	}
	range_table_finish(t);
}

int jit_map_refresh(struct jit_map *j, uint64_t now)
{
	struct stat st;
	char *text;
	ssize_t got;
	int fd;

	if (j->checked_ns && now - j->checked_ns < 1000000000u)
		return j->table.n ? 0 : -1;
	j->checked_ns = now;
	fd = st_open_untrusted(-1, j->path, 1);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0 || (st.st_uid != j->owner && st.st_uid != 0) ||
	    st.st_size > (off_t)JIT_MAP_MAX) {
		close(fd);
		return -EPERM;
	}
	if (st.st_mtime == j->mtime && st.st_size == j->size) {
		close(fd);
		return j->table.n ? 0 : -1;
	}
	text = st_xmalloc((size_t)st.st_size + 1);
	got = read(fd, text, (size_t)st.st_size);
	close(fd);
	range_table_clear(&j->table);
	if (got > 0)
		jit_map_parse(&j->table, text, (size_t)got);
	free(text);
	j->mtime = st.st_mtime;
	j->size = st.st_size;
	j->loads++;
	return j->table.n ? 0 : -1;
}
