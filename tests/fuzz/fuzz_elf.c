/*
 * fuzz_elf.c - libFuzzer: an ELF file a target maps (its executable, a
 * library it wrote), symbolized as a replay would: through the module map,
 * libdwfl and the file's loadable segments, at addresses across the
 * mapping and at its edges.
 */
#include "fuzz.h"
#include "symbols/symbols.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct symbolizer *s;
	char path[64];
	uint64_t base = 0x555555554000ull, len = size > 4096 ? size : 4096;
	int fd = memfd_create("elf", MFD_CLOEXEC);

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	s = symbolizer_create(false);
	symbolizer_add_map(s, 1, base, len, 0, path);
	symbolizer_add_map(s, 1, base + len, 4096, len, path);
	for (uint64_t off = 0; off < len + 4096; off += 61)
		symbolizer_lookup(s, 1, base + off, false);
	symbolizer_lookup(s, 1, base + len + 4095, false);
	symbolizer_destroy(s);
	close(fd);
	return 0;
}
