/*
 * symbols_cfi.c - functions no symbol names, found by their unwind
 * information.  Debian ships its libraries with .dynsym only: their
 * static functions have no name, and every address in them used to fall
 * into one [unknown] row per module.  Every .eh_frame FDE describes one
 * function's code, so each FDE no symbol covers becomes a function of
 * its own, named MODULE+0xSTART (its module address), with its bounds
 * for the disassembly.  libdw walks the section (dwarf_next_cfi: lengths,
 * CIEs, augmentation); this file decodes only the two encoded numbers of
 * each FDE, in the encodings x86-64 toolchains write.  The unwinder's
 * rows (unwind_rows.c) take the same FDEs' bounds.
 */
#include "symbols/symbols_internal.h"
#include "util.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CFI_MAX_CIES	256u	/* a file has a handful */

struct cie_encoding {
	Dwarf_Off offset;
	int enc;		/* the FDEs' pointer encoding (DW_EH_PE_*), -1: unknown */
	bool augmented;		/* 'z': each FDE's instructions follow its augmentation data */
};

/* Bytes an encoded value of this format takes; 0: one not decoded here. */
static size_t encoded_size(int enc)
{
	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		return 8;
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		return 4;
	case DW_EH_PE_udata2:
	case DW_EH_PE_sdata2:
		return 2;
	default:
		return 0;
	}
}

static uint64_t decode(const uint8_t *p, int enc)
{
	int32_t s4;
	int16_t s2;
	uint32_t u4;
	uint16_t u2;
	uint64_t u8;

	switch (enc & 0x0f) {
	case DW_EH_PE_sdata4:
		memcpy(&s4, p, 4);
		return (uint64_t)(int64_t)s4;
	case DW_EH_PE_udata4:
		memcpy(&u4, p, 4);
		return u4;
	case DW_EH_PE_sdata2:
		memcpy(&s2, p, 2);
		return (uint64_t)(int64_t)s2;
	case DW_EH_PE_udata2:
		memcpy(&u2, p, 2);
		return u2;
	default:
		memcpy(&u8, p, 8);
		return u8;
	}
}

/* The FDE pointer encoding a CIE's augmentation gives ('R'), or -1. */
static int fde_encoding(const Dwarf_CIE *c)
{
	const uint8_t *d = c->augmentation_data, *end;
	const char *a = c->augmentation;

	if (!a || a[0] != 'z' || !d)
		return a && !a[0] ? DW_EH_PE_absptr : -1;
	end = d + c->augmentation_data_size;
	for (a++; *a; a++) {
		if (d >= end && *a != 'S')
			return -1;
		switch (*a) {
		case 'R':
			return *d;
		case 'L':
			d++;
			break;
		case 'P': {
			size_t n = encoded_size(*d);

			if (!n || (size_t)(end - d) < 1 + n)
				return -1;
			d += 1 + n;
			break;
		}
		case 'S':
			break;
		default:
			return -1;
		}
	}
	return DW_EH_PE_absptr;
}

/*
 * The instructions of an FDE whose numbers end at p, before end: past its
 * augmentation data where the CIE says it has some (a ULEB128 length).
 */
static struct cfi_program program_of(const struct cie_encoding *cie, const uint8_t *p,
				     const uint8_t *end)
{
	struct cfi_program prog = { cie->offset, NULL, 0 };
	uint64_t skip = 0;
	unsigned shift = 0;

	if (cie->augmented) {
		uint8_t b;

		do {
			if (p >= end || shift > 63)
				return prog;
			b = *p++;
			skip |= (uint64_t)(b & 0x7f) << shift;
			shift += 7;
		} while (b & 0x80);
		if (skip > (uint64_t)(end - p))
			return prog;
		p += skip;
	}
	prog.insns = p;
	prog.len = (size_t)(end - p);
	return prog;
}

static Elf_Scn *eh_frame(Elf *elf, GElf_Shdr *sh)
{
	size_t strndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &strndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, sh) || sh->sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(elf, strndx, sh->sh_name);
		if (name && !strcmp(name, ".eh_frame"))
			return scn;
	}
	return NULL;
}

void cfi_each_fde(Elf *elf, cfi_fde_fn fn, void *arg)
{
	struct cie_encoding cies[CFI_MAX_CIES];
	const struct cie_encoding *cie;
	struct cfi_program prog;
	size_t ncies = 0;
	const unsigned char *ident;
	Dwarf_Off off = 0, next;
	Dwarf_CFI_Entry e;
	Elf_Data *data;
	GElf_Shdr sh;
	Elf_Scn *scn;
	int rc;

	ident = elf ? (const unsigned char *)elf_getident(elf, NULL) : NULL;
	scn = ident ? eh_frame(elf, &sh) : NULL;
	data = scn ? elf_getdata(scn, NULL) : NULL;
	if (!data || !data->d_buf)
		return;
	while ((rc = dwarf_next_cfi(ident, data, true, off, &next, &e)) != 1) {
		const uint8_t *base = data->d_buf, *p;
		uint64_t start, range;
		int enc = -1;
		size_t size;

		if (rc < 0) {
			/* Skippable when next moved on; otherwise the rest is unreadable. */
			if (next == (Dwarf_Off)-1 || next <= off)
				break;
			off = next;
			continue;
		}
		if (dwarf_cfi_cie_p(&e)) {
			if (ncies < CFI_MAX_CIES)
				cies[ncies++] = (struct cie_encoding){
					off, fde_encoding(&e.cie),
					e.cie.augmentation && e.cie.augmentation[0] == 'z' };
			off = next;
			continue;
		}
		off = next;
		cie = NULL;
		for (size_t i = 0; i < ncies; i++)
			if (cies[i].offset == e.fde.CIE_pointer)
				cie = &cies[i];
		if (!cie)
			continue;
		enc = cie->enc;
		size = enc < 0 || (enc & 0x70) > DW_EH_PE_pcrel ? 0 : encoded_size(enc);
		p = e.fde.start;
		/* Both numbers inside the entry (and so the section). */
		if (!size || p < base || e.fde.end > base + data->d_size ||
		    (size_t)(e.fde.end - p) < 2 * size)
			continue;
		start = decode(p, enc);
		if ((enc & 0x70) == DW_EH_PE_pcrel)
			start += sh.sh_addr + (uint64_t)(p - base);
		range = decode(p + size, enc & 0x0f);
		if (!range || range > (1u << 30) || start + range < start)
			continue;
		prog = program_of(cie, p + 2 * size, e.fde.end);
		fn(start, start + range, &prog, arg);
	}
}

struct functions_walk {
	uint64_t bias;
	const struct symbol_table *named;
	struct elf_symbol *out;
	size_t n, cap, cursor;
};

static void add_function(uint64_t start, uint64_t end, const struct cfi_program *prog, void *arg)
{
	struct functions_walk *w = arg;

	(void)prog;
	start += w->bias;
	end += w->bias;
	if (symbol_table_find_next(w->named, start, &w->cursor))
		return;		/* a symbol names it */
	ST_GROW_BARE(w->out, w->cap, w->n + 1);
	/*
	 * Named when asked (elf_symbol_name): libLLVM has 100,000 such.  No
	 * name of the table's: offset 0 would be its first symbol's.
	 */
	w->out[w->n++] = (struct elf_symbol){ .start = start, .end = end, .from_cfi = true,
					      .raw = SYMBOL_NO_NAME, .aliases = SYMBOL_NO_NAME,
					      .named_by = NAMED_BY_EH_FRAME };
}

size_t cfi_functions(Elf *elf, uint64_t bias, const struct symbol_table *named,
		     struct elf_symbol **out)
{
	struct functions_walk w = { .bias = bias, .named = named };

	cfi_each_fde(elf, add_function, &w);
	*out = w.out;
	return w.n;
}
