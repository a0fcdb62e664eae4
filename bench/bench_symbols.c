/*
 * bench_symbols.c - what symbolization costs on a large binary (default
 * libLLVM, 45,000 dynamic symbols): building the file's function table
 * (once, on its first lookup), a lookup of an address never seen before
 * (binary search and interning), and a repeated one (one cache probe).
 * For scale, the same new addresses through libdwfl's
 * dwfl_module_addrname, which shimtop used before (it scans the symbol
 * table per call).
 *
 * bench_symbols [FILE [NEW_ADDRESSES]]
 */
#include "symbols/symbols.h"
#include "util.h"

#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BASE		0x100000000ull
#define REPEATED	1000u		/* distinct addresses looked up again */
#define ROUNDS		1000u		/* times each is looked up again */
#define DWFL_LOOKUPS	2000u

/* The executable PT_LOAD segment's file range. */
static int text_range(const char *path, uint64_t *off, uint64_t *len)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	size_t n = 0;

	elf_version(EV_CURRENT);
	if (fd < 0 || !(elf = elf_begin(fd, ELF_C_READ, NULL)) || elf_getphdrnum(elf, &n))
		return -1;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
			*off = ph.p_offset;
			*len = ph.p_filesz;
		}
	}
	elf_end(elf);
	close(fd);
	return *len ? 0 : -1;
}

static uint64_t next_random(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

/* libdwfl's own lookup, as shimtop did it before, over the same addresses. */
static double dwfl_ns_per_lookup(const char *path, const uint64_t *offs, size_t n,
				 uint64_t text_off)
{
	static const Dwfl_Callbacks cb = {
		.find_elf = dwfl_build_id_find_elf,
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.section_address = dwfl_offline_section_address,
	};
	Dwfl *d = dwfl_begin(&cb);
	int fd = open(path, O_RDONLY);
	Dwfl_Module *mod;
	GElf_Addr bias = 0;
	Elf *elf;
	size_t nph = 0;
	uint64_t vaddr_of_text = 0, t0, named = 0;

	dwfl_report_begin(d);
	mod = dwfl_report_elf(d, "bench", path, fd, 0, true);
	dwfl_report_end(d, NULL, NULL);
	elf = mod ? dwfl_module_getelf(mod, &bias) : NULL;
	if (!elf || elf_getphdrnum(elf, &nph))
		return -1;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
			vaddr_of_text = ph.p_vaddr + bias;
	}
	dwfl_module_addrname(mod, vaddr_of_text);	/* its own first-use setup */
	t0 = st_now_ns();
	for (size_t i = 0; i < n; i++)
		named += dwfl_module_addrname(mod, vaddr_of_text + offs[i] - text_off) != NULL;
	t0 = st_now_ns() - t0;
	dwfl_end(d);
	printf("  (libdwfl named %llu of %zu)\n", (unsigned long long)named, n);
	return (double)t0 / (double)n;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1";
	size_t nnew = argc > 2 ? strtoul(argv[2], NULL, 10) : 200000;
	struct symbolizer *s = symbolizer_create(false);
	uint64_t text_off = 0, text_len = 0, seed = 88172645463325252ull, t0;
	uint64_t *offs = st_xmalloc(nnew * sizeof(*offs));
	struct symbolizer_stats st;
	struct stat sb;
	size_t unknown = 0;

	if (stat(path, &sb) || text_range(path, &text_off, &text_len)) {
		fprintf(stderr, "bench_symbols: cannot read %s; give an ELF file\n", path);
		return 1;
	}
	for (size_t i = 0; i < nnew; i++)
		offs[i] = text_off + next_random(&seed) % text_len;
	symbolizer_add_map(s, 1, BASE, (uint64_t)sb.st_size, 0, path);

	t0 = st_now_ns();
	symbolizer_lookup(s, 1, BASE + offs[0], false);
	printf("%s: %.1f MB\n", path, (double)sb.st_size / 1e6);
	printf("first lookup (opens the file, builds its function table): %.1f ms\n",
	       (double)(st_now_ns() - t0) / 1e6);

	t0 = st_now_ns();
	for (size_t i = 0; i < nnew; i++)
		unknown += symbolizer_lookup(s, 1, BASE + offs[i], false)->unknown;
	printf("new addresses: %zu in %.1f ms: %.0f ns each (%zu unknown: static "
	       "functions of a stripped file)\n", nnew, (double)(st_now_ns() - t0) / 1e6,
	       (double)(st_now_ns() - t0) / (double)nnew, unknown);

	for (size_t i = 0; i < REPEATED; i++)
		symbolizer_lookup(s, 1, BASE + offs[i], false);
	t0 = st_now_ns();
	for (size_t r = 0; r < ROUNDS; r++)
		for (size_t i = 0; i < REPEATED; i++)
			symbolizer_lookup(s, 1, BASE + offs[i], false);
	printf("repeated addresses: %u lookups: %.1f ns each\n", REPEATED * ROUNDS,
	       (double)(st_now_ns() - t0) / (double)(REPEATED * ROUNDS));
	symbolizer_stats(s, &st);
	printf("cache hits %llu of %llu lookups, %zu symbols interned\n",
	       (unsigned long long)st.cache_hits, (unsigned long long)st.lookups,
	       symbolizer_count(s));
	printf("libdwfl dwfl_module_addrname, %u new addresses: %.0f ns each\n",
	       DWFL_LOOKUPS, dwfl_ns_per_lookup(path, offs, nnew < DWFL_LOOKUPS ? nnew
					      : DWFL_LOOKUPS, text_off));
	symbolizer_destroy(s);
	free(offs);
	return 0;
}
