/*
 * elf_read_all.h - an ELF file read as shimtop reads a target's: through
 * a process's map (two mappings, the second past the file's end),
 * libdwfl and the loadable segments, at addresses across the mapping and
 * at its edges; each symbol found annotated as the drill-down would (its
 * code decoded, its source lines read from the DWARF line table); and a
 * stack (the given bytes) unwound from pcs across the mapping by the
 * file's CFI, rows and libdwfl both (SHIMTOP_UNWIND_CHECK's walk).  For
 * fuzz_elf and tests/read_elf, which must read the same way.
 */
#ifndef SHIMTOP_TESTS_ELF_READ_ALL_H
#define SHIMTOP_TESTS_ELF_READ_ALL_H

#include "model/annotate.h"
#include "symbols/symbols.h"
#include "symbols/unwind.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Reads path (len bytes) so; returns the symbols found and, in *lines, their source lines. */
static inline uint32_t elf_read_all(const char *path, uint64_t len, const uint8_t *stack,
				    size_t stack_len, size_t *lines)
{
	enum { COPY = 512 };
	struct symbolizer *s = symbolizer_create(false);
	uint64_t base = 0x555555554000ull;
	struct st_stack *k = calloc(1, sizeof(*k) + COPY);
	struct unwound_frame frames[16];
	struct unwinder *u;
	enum unwind_end end;
	uint32_t found;

	len = len > 4096 ? len : 4096;
	symbolizer_add_map(s, 1, base, len, 0, path);
	symbolizer_add_map(s, 1, base + len, 4096, len, path);
	for (uint64_t off = 0; off < len + 4096; off += 61)
		symbolizer_lookup(s, 1, base + off, false);
	symbolizer_lookup(s, 1, base + len + 4095, false);
	u = unwinder_create(s);
	unwinder_check(u, true);
	memcpy(k->bytes, stack, stack_len < COPY ? stack_len : COPY);
	k->size = COPY;
	k->sp = 0x7ffe0000;
	k->bp = k->sp + 64;
	for (uint64_t off = 0; off < len; off += 257) {
		k->ip = base + off;
		unwinder_walk(u, 1, 1, 0, k, frames, 16, &end);
	}
	unwinder_destroy(u);
	free(k);
	*lines = 0;
	found = symbolizer_count(s);
	for (uint32_t id = 0; id < found && id < 64; id++) {
		struct annotation a;

		annotation_load(&a, s, id);
		for (size_t i = 0; i < a.ninsn; i++)
			*lines += a.insn[i].line != 0;
		annotation_free(&a);
	}
	symbolizer_destroy(s);
	return found;
}

#endif
