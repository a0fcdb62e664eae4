/*
 * read_elf.c - reads an ELF file as shimtop reads a target's
 * (tests/elf_read_all.h) and says what it found and what that cost:
 * "symbols N lines N peak_kb N" (VmHWM, the most resident memory).
 */
#include "elf_read_all.h"
#include "util.h"

#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>

int main(int argc, char **argv)
{
	struct stat st;
	size_t lines = 0, n = 0;
	char *status, *hwm;
	uint32_t symbols;

	char *path = argc == 2 ? realpath(argv[1], NULL) : NULL;

	/* A map names files by absolute path. */
	if (!path || stat(path, &st) < 0) {
		fprintf(stderr, "usage: read_elf FILE (an ELF file to read)\n");
		return 2;
	}
	symbols = elf_read_all(path, (uint64_t)st.st_size, (const uint8_t *)"", 0, &lines);
	status = st_read_file("/proc/self/status", &n);
	hwm = status ? strstr(status, "VmHWM:") : NULL;
	printf("symbols %u lines %zu peak_kb %ld\n", symbols, lines,
	       hwm ? strtol(hwm + 6, NULL, 10) : -1L);
	free(status);
	free(path);
	return 0;
}
