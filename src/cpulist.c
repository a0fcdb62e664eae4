/* cpulist.c - the kernel's CPU lists ("0-3,8"), the one parser of them. */
#include "cpulist.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

int cpulist_parse(const char *s, cpu_set_t *set)
{
	int n = 0;

	CPU_ZERO(set);
	while (*s && *s != '\n') {
		char *end;
		long lo = strtol(s, &end, 10), hi = lo;

		if (end == s || lo < 0)
			return -EINVAL;
		s = end;
		if (*s == '-') {
			hi = strtol(s + 1, &end, 10);
			if (end == s + 1 || hi < lo)
				return -EINVAL;
			s = end;
		}
		if (hi >= CPU_SETSIZE)
			return -EINVAL;
		for (long c = lo; c <= hi; c++, n++)
			CPU_SET((int)c, set);
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -EINVAL;
	}
	return n;
}

int cpulist_read(const char *sysroot, const char *path, cpu_set_t *set)
{
	char file[512], line[4096];
	FILE *f;
	int n;

	snprintf(file, sizeof(file), "%s%s", sysroot, path);
	f = fopen(file, "r");
	if (!f)
		return -errno;
	n = fgets(line, sizeof(line), f) ? cpulist_parse(line, set) : -EINVAL;
	fclose(f);
	return n;
}
