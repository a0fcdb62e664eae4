/*
 * symbols_table.c - one ELF file's functions as a sorted array, built
 * once on the file's first lookup: a new address then costs a binary
 * search whatever the file's size (libdwfl's dwfl_module_addrname scans
 * the symbol table on every call; libLLVM has 45,000 dynamic symbols).
 *
 * Names are chosen and written as perf does, so shares compare: among
 * aliases at one address, perf's rule picks the name; C++ and Rust names
 * are demangled without parameters; PLT stubs are named "sym@plt".
 */
#include "symbols/symbols.h"
#include "symbols/symbols_internal.h"
#include "util.h"

#include <gelf.h>
#include <libiberty/demangle.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define PLT_ENTRY	16u	/* x86-64 PLT and .plt.sec stubs */
#define LAST_SYMBOL_SPAN 4096u	/* a sizeless last symbol covers a page */

static size_t leading_underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* perf's order of preference (symbols_internal.h). */
static bool compat_version(const char *raw)
{
	const char *at = strchr(raw, '@');

	return at && at[1] != '@';
}

bool symbol_preferred(const struct symbol_candidate *a,
		      const struct symbol_candidate *b)
{
	size_t ua, ub, la, lb;

	if (!a->size != !b->size)
		return a->size != 0;
	if (a->typed != b->typed)
		return a->typed;
	if (a->weak != b->weak)
		return !a->weak;
	/* name@VERSION (one @) is an old binary's alias: cfree@GLIBC_2.2.5 for free. */
	if (compat_version(a->raw) != compat_version(b->raw))
		return !compat_version(a->raw);
	if (a->global != b->global)
		return a->global;
	ua = leading_underscores(a->raw);
	ub = leading_underscores(b->raw);
	if (ua != ub)
		return ua < ub;
	la = strlen(a->raw);
	lb = strlen(b->raw);
	if (la != lb)
		return la > lb;
	return strcmp(a->raw, b->raw) < 0;	/* any fixed order */
}

char *symbol_demangle(const char *raw, bool params)
{
	const char *at = strchr(raw, '@');
	size_t len = at ? (size_t)(at - raw) : strlen(raw);
	char *bare = st_xmalloc(len + 1), *d, *out;
	int options = DMGL_AUTO | (params ? DMGL_PARAMS | DMGL_ANSI : 0);

	/* Versioned names (memcpy@@GLIBC_2.14): demangle the name, keep the version. */
	memcpy(bare, raw, len);
	bare[len] = '\0';
	d = (bare[0] == '_' && (bare[1] == 'Z' || bare[1] == 'R')) ?
	    cplus_demangle(bare, options) : NULL;
	free(bare);
	if (!d)
		return st_xstrdup(raw);
	out = st_xmalloc(strlen(d) + strlen(raw) - len + 1);
	strcpy(out, d);
	strcat(out, raw + len);
	free(d);
	return out;
}

static bool section_is_code(Elf *elf, size_t shndx)
{
	Elf_Scn *scn = elf_getscn(elf, shndx);
	GElf_Shdr sh;

	return scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR);
}

/*
 * The symbol table's functions (and untyped labels in code).  A symbol
 * from another ELF than the file's own came from its debug file, or
 * from its MiniDebugInfo when it has none: elsewhere_by says which.
 */
static void collect_symbols(Dwfl_Module *mod, Elf *own, uint8_t elsewhere_by,
			    struct symbol_candidate **v, size_t *n, size_t *cap)
{
	int count = dwfl_module_getsymtab(mod);

	for (int i = 1; i < count; i++) {
		GElf_Sym sym;
		GElf_Addr addr, bias;
		GElf_Word shndx;
		Elf *elf;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &addr,
							   &shndx, &elf, &bias);
		int type = GELF_ST_TYPE(sym.st_info), bind = GELF_ST_BIND(sym.st_info);

		if (!name || !name[0] || name[0] == '$' || !addr ||
		    shndx == SHN_UNDEF || shndx == SHN_ABS)
			continue;
		if (type != STT_FUNC && type != STT_GNU_IFUNC &&
		    !(type == STT_NOTYPE && section_is_code(elf, shndx)))
			continue;
		ST_GROW_BARE(*v, *cap, *n + 1);
		(*v)[(*n)++] = (struct symbol_candidate){
			.start = addr, .size = sym.st_size, .raw = name,
			.typed = type != STT_NOTYPE, .weak = bind == STB_WEAK,
			.global = bind == STB_GLOBAL || bind == STB_GNU_UNIQUE,
			.named_by = elf == own ? NAMED_BY_SYMTAB : elsewhere_by,
		};
	}
}

static Elf_Scn *section_named(Elf *elf, size_t strndx, const char *want,
			      GElf_Shdr *sh)
{
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		const char *name;

		if (!gelf_getshdr(scn, sh))
			continue;
		name = elf_strptr(elf, strndx, sh->sh_name);
		if (name && !strcmp(name, want))
			return scn;
	}
	return NULL;
}

/* Names made here ("sym@plt"), freed once the table has copied them. */
struct made_names {
	char **v;
	size_t n, cap;
};

static void add_stub(struct symbol_candidate **v, size_t *n, size_t *cap,
		     struct made_names *made, const char *name, uint64_t start,
		     uint64_t size)
{
	char *full = st_xmalloc(strlen(name) + sizeof("@plt"));

	strcpy(full, name);
	strcat(full, "@plt");
	ST_GROW(made->v, made->cap, made->n + 1);
	made->v[made->n++] = full;
	ST_GROW(*v, *cap, *n + 1);
	(*v)[(*n)++] = (struct symbol_candidate){
		.start = start, .size = size, .raw = full, .typed = true, .global = true,
		.named_by = NAMED_BY_SYMTAB,
	};
}

/* The name of the dynamic symbol relocation r refers to, or NULL. */
static const char *reloc_name(Elf *elf, Elf_Data *syms, size_t strtab,
			      const GElf_Rela *r)
{
	GElf_Sym sym;
	const char *name;

	if (!GELF_R_SYM(r->r_info) || !gelf_getsym(syms, (int)GELF_R_SYM(r->r_info), &sym))
		return NULL;
	name = elf_strptr(elf, strtab, sym.st_name);
	return name && name[0] ? name : NULL;
}

/*
 * The GOT slot a .plt.got stub jumps through: the stub is "jmp
 * *disp32(%rip)" (ff 25), after an endbr64 and a bnd prefix when the
 * binary has IBT or MPX.  0 when the bytes are not such a stub.
 */
static uint64_t stub_slot(const unsigned char *code, size_t len, uint64_t addr)
{
	for (size_t i = 0; i + 6 <= len && i <= 5; i++) {
		if (code[i] == 0xff && code[i + 1] == 0x25) {
			int32_t disp;

			memcpy(&disp, code + i + 2, sizeof(disp));
			return addr + i + 6 + (uint64_t)(int64_t)disp;
		}
	}
	return 0;
}

/*
 * .plt.got: stubs for functions whose address the program also takes,
 * bound through a GLOB_DAT slot in .rela.dyn instead of .rela.plt.
 */
static void collect_plt_got(Elf *elf, size_t strndx, uint64_t bias,
			    struct symbol_candidate **v, size_t *n, size_t *cap,
			    struct made_names *made)
{
	GElf_Shdr got_sh, rela_sh, dynsym_sh;
	Elf_Scn *got_scn = section_named(elf, strndx, ".plt.got", &got_sh);
	Elf_Scn *rela_scn = section_named(elf, strndx, ".rela.dyn", &rela_sh);
	Elf_Scn *dynsym_scn;
	Elf_Data *code, *rela, *syms;
	uint64_t *slots;
	size_t step, nstubs;

	if (!got_scn || !rela_scn || got_sh.sh_type != SHT_PROGBITS ||
	    rela_sh.sh_type != SHT_RELA || !rela_sh.sh_entsize ||
	    !(dynsym_scn = elf_getscn(elf, rela_sh.sh_link)) ||
	    !gelf_getshdr(dynsym_scn, &dynsym_sh) ||
	    !(code = elf_getdata(got_scn, NULL)) || !(rela = elf_getdata(rela_scn, NULL)) ||
	    !(syms = elf_getdata(dynsym_scn, NULL)))
		return;
	step = got_sh.sh_entsize == 8 || got_sh.sh_entsize == 16 ? got_sh.sh_entsize : 8;
	nstubs = code->d_size / step;
	slots = st_xcalloc(nstubs ? nstubs : 1, sizeof(*slots));
	for (size_t k = 0; k < nstubs; k++)
		slots[k] = stub_slot((const unsigned char *)code->d_buf + k * step,
				     step, got_sh.sh_addr + k * step);
	/* One pass over .rela.dyn (libLLVM's has 100,000 entries). */
	for (size_t i = 0; i < rela_sh.sh_size / rela_sh.sh_entsize; i++) {
		GElf_Rela r;
		const char *name;

		if (!gelf_getrela(rela, (int)i, &r) ||
		    GELF_R_TYPE(r.r_info) != R_X86_64_GLOB_DAT ||
		    !(name = reloc_name(elf, syms, dynsym_sh.sh_link, &r)))
			continue;
		for (size_t k = 0; k < nstubs; k++)
			if (slots[k] == r.r_offset)
				add_stub(v, n, cap, made, name,
					 got_sh.sh_addr + k * step + bias, step);
	}
	free(slots);
}

/*
 * PLT stubs (x86-64), named "sym@plt" as perf and objdump name them: one
 * per .rela.plt entry in order, in .plt.sec when the binary has one
 * (IBT), else in .plt after its 16-byte header; and .plt.got's.
 */
static void collect_plt(Elf *elf, uint64_t bias, struct symbol_candidate **v,
			size_t *n, size_t *cap, struct made_names *made)
{
	GElf_Ehdr eh;
	GElf_Shdr rela_sh, plt_sh, dynsym_sh;
	Elf_Scn *rela_scn, *dynsym_scn;
	Elf_Data *rela, *syms;
	size_t strndx, first, count;

	if (!gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64 ||
	    elf_getshdrstrndx(elf, &strndx) != 0)
		return;
	collect_plt_got(elf, strndx, bias, v, n, cap, made);
	rela_scn = section_named(elf, strndx, ".rela.plt", &rela_sh);
	if (!rela_scn || rela_sh.sh_type != SHT_RELA || !rela_sh.sh_entsize)
		return;
	if (section_named(elf, strndx, ".plt.sec", &plt_sh))
		first = 0;
	else if (section_named(elf, strndx, ".plt", &plt_sh))
		first = 1;
	else
		return;
	dynsym_scn = elf_getscn(elf, rela_sh.sh_link);
	if (!dynsym_scn || !gelf_getshdr(dynsym_scn, &dynsym_sh) ||
	    !(rela = elf_getdata(rela_scn, NULL)) || !(syms = elf_getdata(dynsym_scn, NULL)))
		return;
	count = rela_sh.sh_size / rela_sh.sh_entsize;
	for (size_t i = 0; i < count && (first + i + 1) * PLT_ENTRY <= plt_sh.sh_size; i++) {
		GElf_Rela r;
		const char *name;

		if (gelf_getrela(rela, (int)i, &r) &&
		    (name = reloc_name(elf, syms, dynsym_sh.sh_link, &r)))
			add_stub(v, n, cap, made, name,
				 plt_sh.sh_addr + (first + i) * PLT_ENTRY + bias, PLT_ENTRY);
	}
}

/* Both kinds of entry sorted begin with their address. */
_Static_assert(offsetof(struct symbol_candidate, start) == 0, "start first");
_Static_assert(offsetof(struct elf_symbol, start) == 0, "start first");

/* The order of v's n elements of size bytes by the address each starts with, stably (free it). */
static uint32_t *order_by_address(const void *v, size_t n, size_t size)
{
	uint64_t *keys = st_xmalloc(n * sizeof(*keys));
	uint32_t *order = st_xmalloc(n * sizeof(*order));

	for (size_t i = 0; i < n; i++)
		memcpy(&keys[i], (const unsigned char *)v + i * size, sizeof(keys[i]));
	st_sort_order(keys, n, order);
	free(keys);
	return order;
}

/* v's n elements of size bytes by the address at the start of each, stably. */
static void sort_by_address(void *v, size_t n, size_t size)
{
	uint32_t *order = order_by_address(v, n, size);

	st_permute(v, n, size, order);
	free(order);
}

/* Whether v[i]'s name is the chosen one's or an earlier one's in [from, i). */
static bool name_seen(const struct symbol_candidate *v, size_t from, size_t i,
		      size_t chosen)
{
	if (!strcmp(v[i].raw, v[chosen].raw))
		return true;
	for (size_t k = from; k < i; k++)
		if (!strcmp(v[i].raw, v[k].raw))
			return true;
	return false;
}

/*
 * "a, b, c": the other names at one address (a name can come twice, from
 * .symtab and MiniDebugInfo); NULL when there are none.
 */
static char *aliases_of(const struct symbol_candidate *v, size_t from, size_t to,
			size_t chosen)
{
	size_t len = 0;
	char *out;

	for (size_t i = from; i < to; i++)
		if (!name_seen(v, from, i, chosen))
			len += strlen(v[i].raw) + 2;
	if (!len)
		return NULL;
	out = st_xmalloc(len + 1);
	out[0] = '\0';
	for (size_t i = from; i < to; i++) {
		if (name_seen(v, from, i, chosen))
			continue;
		if (out[0])
			strcat(out, ", ");
		strcat(out, v[i].raw);
	}
	return out;
}

/*
 * name appended to t's names, which grow as needed (*cap long): its
 * offset, or SYMBOL_NO_NAME past 4 GB of names (the entry is then
 * named by its address, as .eh_frame's are).
 */
static uint32_t names_put(struct symbol_table *t, size_t *cap, const char *name)
{
	size_t len = strlen(name) + 1;
	size_t at = t->names_len;

	if (len >= UINT32_MAX - at)
		return SYMBOL_NO_NAME;
	if (at + len > *cap) {
		*cap = at + len > 2 * *cap ? at + len : 2 * *cap;
		t->names = st_xrealloc(t->names, *cap);
	}
	memcpy(t->names + at, name, len);
	t->names_len += len;
	return (uint32_t)at;
}

/* One entry per address, named by the preferred alias; ends filled in. */
static void merge_aliases(struct symbol_table *t, struct symbol_candidate *v, size_t n)
{
	size_t cap = 0;

	if (n)		/* v is NULL for a file with no functions */
		sort_by_address(v, n, sizeof(*v));
	t->v = st_xcalloc(n ? n : 1, sizeof(*t->v));
	/* The names in one block, not a malloc each (libLLVM: 100,000 of them). */
	t->names = NULL;
	t->names_len = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i + 1, best = i;
		struct elf_symbol *e = &t->v[t->n++];
		char *aliases;

		/* Most addresses have one name: nothing to choose, no aliases. */
		while (j < n && v[j].start == v[i].start) {
			if (symbol_preferred(&v[j], &v[best]))
				best = j;
			j++;
		}
		e->start = v[best].start;
		e->end = !v[best].size ? 0 :
			 v[best].start + v[best].size < v[best].start ? UINT64_MAX :
			 v[best].start + v[best].size;
		e->raw = names_put(t, &cap, v[best].raw);
		aliases = j > i + 1 ? aliases_of(v, i, j, best) : NULL;
		e->aliases = aliases ? names_put(t, &cap, aliases) : SYMBOL_NO_NAME;
		free(aliases);
		e->named_by = v[best].named_by;
		i = j;
	}
	if (!t->names)
		t->names = st_xcalloc(1, 1);
	/* Sizeless symbols end where the next begins, as perf fixes them up. */
	for (size_t i = 0; i < t->n; i++)
		if (!t->v[i].end)
			t->v[i].end = i + 1 < t->n ? t->v[i + 1].start :
				      t->v[i].start > UINT64_MAX - LAST_SYMBOL_SPAN ? UINT64_MAX :
				      t->v[i].start + LAST_SYMBOL_SPAN;
}

static bool sorted_by_start(const struct elf_symbol *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (v[i].start < v[i - 1].start)
			return false;
	return true;
}

/*
 * t's functions and more (n of them) as one sorted table, by a merge:
 * .eh_frame lists most binaries' functions in address order already,
 * and sorting libLLVM's 145,000 together cost a fifth of a clang++
 * session's first pass.
 */
static void merge_functions(struct symbol_table *t, const struct elf_symbol *more, size_t n)
{
	size_t i = t->n, j = n, k = t->n + n;
	/* Out of order (libLLVM: 592 places in 61,000): merged through their order, not moved. */
	uint32_t *order = sorted_by_start(more, n) ? NULL : order_by_address(more, n, sizeof(*more));

	/* In place from the end (no second table of libLLVM's size); ties keep t's first. */
	t->v = st_xrealloc(t->v, k * sizeof(*t->v));
	while (j > 0) {
		const struct elf_symbol *m = &more[order ? order[j - 1] : j - 1];

		if (i > 0 && t->v[i - 1].start > m->start) {
			t->v[--k] = t->v[--i];
		} else {
			t->v[--k] = *m;
			j--;
		}
	}
	t->n += n;
	free(order);
}

/* The pages of a table of more than PAGED_FROM entries: about one entry a page. */
#define PAGED_FROM	4096u
void symbol_table_make_pages(struct symbol_table *t)
{
	uint64_t base, span;
	size_t at = 0;

	if (t->n < PAGED_FROM || t->n > UINT32_MAX)
		return;
	base = t->v[0].start;
	span = t->v[t->n - 1].start - base;
	t->page_shift = 4;
	while (t->page_shift < 63 && (span >> t->page_shift) > t->n)
		t->page_shift++;
	t->npages = (size_t)(span >> t->page_shift) + 2;
	t->pages = st_xmalloc(t->npages * sizeof(*t->pages));
	for (size_t p = 0; p < t->npages; p++) {
		uint64_t off = (uint64_t)p << t->page_shift;
		uint64_t from = off > UINT64_MAX - base ? UINT64_MAX : base + off;

		while (at < t->n && t->v[at].start < from)
			at++;
		t->pages[p] = (uint32_t)at;
	}
}

/*
 * What this makes is kept on disk (symbols_table_cache.c): a change to
 * which entries a file's table holds, or how they are named, bumps
 * SYMS_VERSION there, or sessions go on reading the old tables.
 */
void symbol_table_build(struct symbol_table *t, Dwfl_Module *mod, Elf *elf,
			uint64_t bias, uint8_t elsewhere_by)
{
	struct symbol_candidate *v = NULL;
	struct elf_symbol *cfi;
	size_t n = 0, cap = 0, ncfi;
	struct made_names made = { NULL, 0, 0 };

	collect_symbols(mod, elf, elsewhere_by, &v, &n, &cap);
	if (elf)
		collect_plt(elf, bias, &v, &n, &cap, &made);
	merge_aliases(t, v, n);
	/* Stripped code: the functions no symbol names, by their unwind entries. */
	ncfi = cfi_functions(elf, bias, t, &cfi);
	if (ncfi)
		merge_functions(t, cfi, ncfi);
	free(cfi);
	symbol_table_make_pages(t);
	for (size_t i = 0; i < made.n; i++)
		free(made.v[i]);
	free(made.v);
	free(v);
}

/* The first entry at or after lo that starts past addr (every one before lo starts at or before it). */
static size_t first_after_in(const struct symbol_table *t, uint64_t addr, size_t lo, size_t hi)
{
	return lo + st_after(t->v + lo, hi - lo, sizeof(*t->v), offsetof(struct elf_symbol, start),
			     addr);
}

/* The symbol covering addr, entries before lo starting below it. */
static const struct elf_symbol *covering(const struct symbol_table *t, uint64_t addr, size_t lo)
{
	/* A sized symbol inside a bigger one (a nested label) ends first. */
	for (size_t i = lo; i > 0 && lo - i < 4; i--)
		if (addr < t->v[i - 1].end)
			return &t->v[i - 1];
	return NULL;
}

static size_t first_after(const struct symbol_table *t, uint64_t addr, size_t lo)
{
	return first_after_in(t, addr, lo, t->n);
}

const struct elf_symbol *symbol_table_find(const struct symbol_table *t, uint64_t addr)
{
	if (t->pages && addr >= t->v[0].start) {
		size_t p = (size_t)((addr - t->v[0].start) >> t->page_shift);

		/* Every entry before pages[p] starts at or below addr, every one from pages[p + 1] past it. */
		if (p + 1 < t->npages)
			return covering(t, addr,
					first_after_in(t, addr, t->pages[p], t->pages[p + 1]));
	}
	return covering(t, addr, first_after(t, addr, 0));
}

const struct elf_symbol *symbol_table_find_next(const struct symbol_table *t, uint64_t addr,
					  size_t *cursor)
{
	size_t lo = *cursor <= t->n && *cursor && t->v[*cursor - 1].start <= addr ? *cursor : 0;

	/* Addresses in order (.eh_frame's): a step or two from the last, not a search. */
	for (size_t k = 0; lo && k < 4 && lo < t->n && t->v[lo].start <= addr; k++)
		lo++;
	if (!lo || (lo < t->n && t->v[lo].start <= addr))
		lo = first_after(t, addr, lo);
	*cursor = lo;
	return covering(t, addr, lo);
}

void symbol_table_clear(struct symbol_table *t)
{
	if (t->block_map) {
		munmap(t->block, t->block_map);
	} else if (t->block) {
		free(t->block);
	} else {
		free(t->names);
		free(t->v);
	}
	free(t->pages);
	memset(t, 0, sizeof(*t));
}
