/*
 * fuzz_elf.c - libFuzzer: an ELF file a target maps (its executable, a
 * library it wrote), symbolized as a replay would: through the module map,
 * libdwfl and the file's loadable segments, at addresses across the
 * mapping and at its edges; then every symbol found annotated as the
 * drill-down would: its code copied from its section, decoded, and its
 * addresses' source lines read from the DWARF line table; and a stack
 * (the input's first bytes) unwound from pcs across the mapping by the
 * file's CFI, rows and libdwfl both (SHIMTOP_UNWIND_CHECK's walk).
 */
#include "fuzz.h"
#include "model/annotate.h"
#include "symbols/symbols.h"
#include "symbols/unwind.h"

#include <stdio.h>
#include <stdlib.h>
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
	{
		enum { COPY = 512 };
		struct st_stack *k = calloc(1, sizeof(*k) + COPY);
		struct unwound_frame frames[16];
		struct unwinder *u = unwinder_create(s);
		enum unwind_end end;

		unwinder_check(u, true);
		memcpy(k->bytes, data, size < COPY ? size : COPY);
		k->size = COPY;
		k->sp = 0x7ffe0000;
		k->bp = k->sp + 64;
		for (uint64_t off = 0; off < len; off += 257) {
			k->ip = base + off;
			unwinder_walk(u, 1, 1, 0, k, frames, 16, &end);
		}
		unwinder_destroy(u);
		free(k);
	}
	for (uint32_t id = 0; id < symbolizer_count(s) && id < 64; id++) {
		struct annotation a;

		annotation_load(&a, s, id);
		annotation_free(&a);
	}
	symbolizer_destroy(s);
	close(fd);
	return 0;
}
