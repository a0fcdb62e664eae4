/*
 * symbols_code.c - what the drill-down annotates: a symbol's machine
 * code, copied once out of the section of its ELF file that holds it,
 * and the source line of each of its addresses from the DWARF line table.
 * The file is the target's: every size it states is checked against the
 * section libelf read, and the copy is bounded.
 */
#include "symbols/symbols.h"
#include "symbols/symbols_internal.h"
#include "util.h"

#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

/* The contents of the allocated section holding module address `at`. */
static Elf_Data *section_at(Elf *elf, uint64_t bias, uint64_t at, uint64_t *base)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
		    sh.sh_type == SHT_NOBITS || at < sh.sh_addr + bias ||
		    at - (sh.sh_addr + bias) >= sh.sh_size)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size == 0)
			return NULL;
		*base = sh.sh_addr + bias;
		return d;
	}
	return NULL;
}

int symbolizer_code(struct symbolizer *s, uint32_t id, struct symbol_code *out)
{
	uint64_t start, end, base, skip, len;
	struct elf_file *f = symbolizer_code_of(s, id, &start, &end);
	GElf_Addr bias = 0;
	Elf *elf;
	Elf_Data *d;

	memset(out, 0, sizeof(*out));
	if (symbolizer_standin_code(s, id, out))
		return 0;
	if (!f || !f->mod || end <= start)
		return -ENOENT;
	elf = dwfl_module_getelf(f->mod, &bias);
	if (!elf || !(d = section_at(elf, bias, start, &base)))
		return -ENODATA;
	skip = start - base;
	if (skip >= d->d_size)
		return -ENODATA;	/* the section's data is shorter than it says */
	len = end - start;
	if (len > d->d_size - skip || len > SYMBOL_CODE_MAX) {
		len = d->d_size - skip < SYMBOL_CODE_MAX ? d->d_size - skip : SYMBOL_CODE_MAX;
		out->truncated = true;
	}
	out->start = start;
	out->len = (size_t)len;
	out->bytes = st_xmalloc(out->len);
	memcpy(out->bytes, (const uint8_t *)d->d_buf + skip, out->len);
	return 0;
}

void symbol_code_free(struct symbol_code *c)
{
	free(c->bytes);
	memset(c, 0, sizeof(*c));
}

bool symbolizer_source_line(struct symbolizer *s, uint32_t id, uint32_t offset,
			    const char **file, int *line)
{
	uint64_t start, end;
	struct elf_file *f = symbolizer_code_of(s, id, &start, &end);
	Dwfl_Line *l;
	const char *name;
	int n = 0;

	if (!f || !f->mod || end <= start || offset >= end - start)
		return false;
	l = dwfl_module_getsrc(f->mod, start + offset);
	if (!l || !(name = dwfl_lineinfo(l, NULL, &n, NULL, NULL, NULL)) || n <= 0)
		return false;
	*file = name;
	*line = n;
	return true;
}

const char *symbolizer_name_in_file(struct symbolizer *s, uint32_t id, uint64_t at,
				    uint64_t *offset)
{
	uint64_t start, end;
	struct elf_file *f = symbolizer_code_of(s, id, &start, &end);
	const struct elf_symbol *e;
	char *name;

	if (!f || !f->mod || !(e = elf_file_symbol(f, at)))
		return NULL;
	*offset = at - e->start;
	name = elf_symbol_name(f, e);
	snprintf(f->name, sizeof(f->name), "%s", name);
	free(name);
	return f->name;
}
