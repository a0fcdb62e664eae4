/*
 * fuzz_elf.c - libFuzzer: an ELF file a target maps (its executable, a
 * library it wrote), read as tests/elf_read_all.h says (symbols, code,
 * source lines, unwinding), the input's first bytes as the stack.  Its
 * corpus holds decompression bombs (tests/elf_bomb.py): under libFuzzer's
 * malloc limit, one inflated to the size it declares is a crash.
 */
#include "fuzz.h"
#include "../elf_read_all.h"

#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	size_t lines;
	int fd = memfd_create("elf", MFD_CLOEXEC);

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	elf_read_all(path, size, data, size, &lines);
	close(fd);
	return 0;
}
