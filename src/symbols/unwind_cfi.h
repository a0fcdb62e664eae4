/*
 * unwind_cfi.h - libdw's view of a file's .eh_frame, found through the
 * section's binary search table (.eh_frame_hdr) whatever the order the
 * linker wrote them in, and renewed to keep its look-ups cheap.
 */
#ifndef SHIMTOP_UNWIND_CFI_H
#define SHIMTOP_UNWIND_CFI_H

#include <elfutils/libdw.h>
#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>

struct unwind_cfi {
	Dwarf_CFI *cfi;		/* NULL: the file has none libdw reads */
	Elf *elf;		/* what cfi reads: the file's handle, or view's */
	Elf *view;		/* the file seen without its sections, or NULL */
	void *map;		/* view's bytes: the file mapped privately */
	size_t map_len;
	bool searched;		/* libdw finds FDEs by the search table */
};

/* elf's (the file fd's) CFI into c; c->cfi NULL if it has none. */
void unwind_cfi_open(struct unwind_cfi *c, int fd, Elf *elf);
/*
 * c's handle made afresh: libdw keeps every FDE it has looked at in a
 * tree it searches on each look-up, and a walk over a whole file grows
 * it to all of them.
 */
void unwind_cfi_renew(struct unwind_cfi *c);
void unwind_cfi_close(struct unwind_cfi *c);

#endif
