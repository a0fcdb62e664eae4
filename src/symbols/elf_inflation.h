/*
 * elf_inflation.h - an ELF file's compressed sections, measured before
 * libelf, libdw or libdwfl inflate them.
 *
 * libelf inflates a SHF_COMPRESSED or .zdebug section to the size its
 * header declares, libdwfl a .gnu_debugdata (MiniDebugInfo) xz stream to
 * whatever it holds: one 469 KB section in another user's binary grew
 * root's shimtop to 3 GB over 45 s.  A section that would inflate past
 * its cap (64 times its size, 1 MB at least, 256 MB at most) loses its
 * name in a copy of the file, which those libraries then read instead:
 * they find sections by name, so they pass it by, and the file keeps
 * its other names.  MiniDebugInfo is inflated here, to its cap and for
 * at most two seconds, and the ELF file inside judged the same way.
 *
 * A file that a user other than root owns or can write is always read
 * from a copy (they could change it between the measuring and the
 * reading): what was measured is what is read.
 */
#ifndef SHIMTOP_ELF_INFLATION_H
#define SHIMTOP_ELF_INFLATION_H

#include <stddef.h>
#include <stdint.h>

enum {
	ELF_INFLATION_RATIO = 64,
	ELF_INFLATION_FLOOR = 1 << 20,
	ELF_INFLATION_MAX = 256 << 20,
	/* A file copied to be read safely: past this, none of its names. */
	ELF_COPY_MAX = 1 << 30,
};

/* The most a section of packed bytes may inflate to. */
uint64_t elf_inflation_cap(uint64_t packed);

/*
 * The descriptor fd's file (named path, for the message) is to be read
 * through: fd itself, or a copy in memory as said above, fd closed.
 * Each refused section is said once, as a warning naming the file.
 * -1 when the file must be copied and cannot be (too large, no memory).
 */
int elf_inflation_guard(int fd, const char *path);

#endif
