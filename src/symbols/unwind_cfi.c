/*
 * unwind_cfi.c - libdw's CFI handle on a file, with its search table.
 * libdw (0.188, Debian 12) takes .eh_frame_hdr's table from the section
 * headers only when .eh_frame_hdr comes first, as GNU ld writes them;
 * lld writes it after .eh_frame (Debian's libLLVM and libclang-cpp), and
 * libdw then finds an FDE by reading the section from its start,
 * keeping every FDE on the way: libLLVM's first look-up took 17-40 ms,
 * and a fresh handle was of no use.  Through the program header
 * (PT_GNU_EH_FRAME) libdw finds the table in either order, and it takes
 * that way for a file with no section headers: such a file is made by
 * mapping this one privately and clearing the ELF header's section
 * fields in the copy (one page copied, the file untouched).
 */
#include "symbols/unwind_cfi.h"

#include <gelf.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

enum table_order { NO_TABLE, TABLE_FIRST, TABLE_AFTER };

/* Where .eh_frame_hdr lies beside .eh_frame among the sections. */
static enum table_order table_order(Elf *elf)
{
	size_t strndx;
	Elf_Scn *scn = NULL;
	bool frames = false;

	if (elf_getshdrstrndx(elf, &strndx) != 0)
		return NO_TABLE;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(elf, strndx, sh.sh_name);
		if (!name)
			continue;
		if (!strcmp(name, ".eh_frame_hdr"))
			return frames ? TABLE_AFTER : TABLE_FIRST;
		if (!strcmp(name, ".eh_frame"))
			frames = true;
	}
	return NO_TABLE;
}

static bool has_frame_header(Elf *elf)
{
	size_t n;

	if (elf_getphdrnum(elf, &n) != 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_GNU_EH_FRAME)
			return true;
	}
	return false;
}

/* The file fd seen without its section headers, into c (false: not made). */
static bool view_without_sections(struct unwind_cfi *c, int fd)
{
	struct stat st;
	Elf64_Ehdr *eh;
	void *map;

	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size < sizeof(Elf64_Ehdr))
		return false;
	map = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		return false;
	eh = map;
	/* Only a 64-bit file is changed here: its header's layout is the one written. */
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64) {
		munmap(map, (size_t)st.st_size);
		return false;
	}
	eh->e_shoff = 0;
	eh->e_shnum = 0;
	eh->e_shstrndx = SHN_UNDEF;
	c->view = elf_memory(map, (size_t)st.st_size);
	if (!c->view) {
		munmap(map, (size_t)st.st_size);
		return false;
	}
	c->map = map;
	c->map_len = (size_t)st.st_size;
	return true;
}

void unwind_cfi_open(struct unwind_cfi *c, int fd, Elf *elf)
{
	enum table_order order;

	memset(c, 0, sizeof(*c));
	c->elf = elf;
	if (!elf)
		return;
	order = table_order(elf);
	if (order == TABLE_AFTER && fd >= 0 && has_frame_header(elf) &&
	    view_without_sections(c, fd))
		c->elf = c->view;
	c->cfi = dwarf_getcfi_elf(c->elf);
	if (!c->cfi && c->view) {
		/* The header libdw refused: the sections' way, slow but read. */
		elf_end(c->view);
		munmap(c->map, c->map_len);
		c->view = NULL;
		c->map = NULL;
		c->elf = elf;
		c->cfi = dwarf_getcfi_elf(elf);
	}
	c->searched = c->cfi && (c->view || order == TABLE_FIRST);
}

void unwind_cfi_renew(struct unwind_cfi *c)
{
	/* Without the table a fresh handle would read the section from its start again. */
	if (!c->searched)
		return;
	dwarf_cfi_end(c->cfi);
	c->cfi = dwarf_getcfi_elf(c->elf);
	c->searched = c->cfi != NULL;
}

void unwind_cfi_close(struct unwind_cfi *c)
{
	if (c->cfi)
		dwarf_cfi_end(c->cfi);
	if (c->view)
		elf_end(c->view);
	if (c->map)
		munmap(c->map, c->map_len);
	memset(c, 0, sizeof(*c));
}
