/* bench_model.c - the model benchmarks' shared set-up (see bench_model.h). */
#include "bench_model.h"
#include "model/model.h"
#include "ring/record.h"
#include "symbols/symbols.h"

#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct maps {
	struct model *m;
	uint64_t start, len;
};

static void take_map(uint64_t start, uint64_t len, uint64_t pgoff,
		     const char *path, void *arg)
{
	struct maps *mp = arg;
	_Alignas(8) unsigned char buf[4096];

	if (st_mmap_make(buf, sizeof(buf), (uint32_t)getpid(), 0, start, len,
			 pgoff, path))
		model_ingest(mp->m, buf);
	/* libc's largest mapping is its text. */
	if (strstr(path, "libc.so") && len > mp->len) {
		mp->start = start;
		mp->len = len;
	}
}

int bench_model_maps(struct model *m, uint64_t *libc_start, uint64_t *libc_len)
{
	struct maps mp = { m, 0, 0 };

	symbols_read_proc_maps(getpid(), take_map, &mp);
	*libc_start = mp.start;
	*libc_len = mp.len;
	return mp.len ? 0 : -1;
}

static int by_address(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

size_t bench_function_starts(const char *path, uint64_t base, uint64_t **out)
{
	int fd = open(path, O_RDONLY);
	Elf *elf = NULL;
	Elf_Scn *scn = NULL;
	size_t n = 0, cap = 0, kept = 0;
	uint64_t *v = NULL;

	elf_version(EV_CURRENT);
	if (fd >= 0)
		elf = elf_begin(fd, ELF_C_READ, NULL);
	while (elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB &&
						sh.sh_type != SHT_DYNSYM) ||
		    !sh.sh_entsize || !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;

			if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    !sym.st_size || !sym.st_value || sym.st_shndx == SHN_UNDEF)
				continue;
			if (n == cap) {
				cap = cap ? 2 * cap : 4096;
				v = realloc(v, cap * sizeof(*v));
				if (!v)
					abort();
			}
			v[n++] = base + sym.st_value;
		}
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	if (!n) {
		free(v);
		*out = NULL;
		return 0;
	}
	qsort(v, n, sizeof(*v), by_address);
	for (size_t i = 0; i < n; i++)
		if (!kept || v[i] != v[kept - 1])
			v[kept++] = v[i];
	*out = v;
	return kept;
}
