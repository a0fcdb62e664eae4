/*
 * fuzz_elf.c - libFuzzer: an ELF file a target maps (its executable, a
 * library it wrote), symbolized as a replay would: through the module map,
 * libdwfl and the file's loadable segments, at addresses across the
 * mapping and at its edges; then every symbol found annotated as the
 * drill-down would: its code copied from its section, decoded, and its
 * addresses' source lines read from the DWARF line table.
 */
#include "fuzz.h"
#include "model/annotate.h"
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
	for (uint32_t id = 0; id < symbolizer_count(s) && id < 64; id++) {
		struct annotation a;

		annotation_load(&a, s, id);
		annotation_free(&a);
	}
	symbolizer_destroy(s);
	close(fd);
	return 0;
}
