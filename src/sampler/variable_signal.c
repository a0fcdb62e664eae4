/* variable_signal.c - finding a global variable of another process. */
#include "sampler/variable_signal.h"
#include "symbols/symbols.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int variable_signal_parse(const char *spec, struct variable_signal *v,
			  char *err, size_t errlen)
{
	const char *colon = strchr(spec, ':');
	size_t len = colon ? (size_t)(colon - spec) : strlen(spec);

	memset(v, 0, sizeof(*v));
	if (colon && strcmp(colon, ":tag") && strcmp(colon, ":counter")) {
		snprintf(err, errlen, "--signal %s: the kind after ':' must be "
			 "'tag' or 'counter'", spec);
		return -EINVAL;
	}
	if (len == 0 || len >= sizeof(v->name)) {
		snprintf(err, errlen, "--signal '%s': give the name of a global "
			 "variable (at most %zu characters)", spec,
			 sizeof(v->name) - 1);
		return -EINVAL;
	}
	memcpy(v->name, spec, len);
	v->is_tag = colon && !strcmp(colon, ":tag");
	return 0;
}

/* The first mapping of each file: where its lowest offset landed (path whole). */
struct file_map {
	char path[PATH_MAX];
	uint64_t start, pgoff;
};

struct map_list {
	struct file_map map[128];
	size_t n;
};

static void collect(uint64_t start, uint64_t len, uint64_t pgoff,
		    const char *path, void *arg)
{
	struct map_list *l = arg;

	(void)len;
	if (path[0] != '/')
		return;
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->map[i].path, path))
			return;
	if (l->n < sizeof(l->map) / sizeof(l->map[0])) {
		snprintf(l->map[l->n].path, sizeof(l->map[0].path), "%s", path);
		l->map[l->n].start = start;
		l->map[l->n].pgoff = pgoff;
		l->n++;
	}
}

enum lookup { NOT_FOUND, FOUND, REFUSED };

/* Looks name up in one symbol table section. */
static enum lookup find_in(Elf *e, Elf_Scn *scn, const char *name,
			   GElf_Sym *out)
{
	GElf_Shdr sh;
	Elf_Data *d;

	if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize)
		return NOT_FOUND;
	d = elf_getdata(scn, NULL);
	if (!d)
		return NOT_FOUND;
	for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
		GElf_Sym sym;
		const char *n;

		if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF)
			continue;
		n = elf_strptr(e, sh.sh_link, sym.st_name);
		if (n && !strcmp(n, name)) {
			*out = sym;
			return FOUND;
		}
	}
	return NOT_FOUND;
}

/* The load bias of a file whose lowest mapping is m. */
static bool load_bias(Elf *e, const struct file_map *m, uint64_t *bias)
{
	GElf_Ehdr eh;
	size_t n;

	if (!gelf_getehdr(e, &eh))
		return false;
	if (eh.e_type == ET_EXEC) {
		*bias = 0;
		return true;
	}
	if (elf_getphdrnum(e, &n) < 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if ((ph.p_offset & ~(page - 1)) != m->pgoff)
			continue;
		/* start = bias + page_down(p_vaddr), pgoff = page_down(p_offset). */
		*bias = m->start - m->pgoff - ph.p_vaddr + ph.p_offset;
		return true;
	}
	return false;
}

static enum lookup search_file(pid_t pid, const struct file_map *m,
			       struct variable_signal *v, char *err,
			       size_t errlen)
{
	char path[PATH_MAX + 32];
	enum lookup r = NOT_FOUND;
	Elf_Scn *scn = NULL;
	GElf_Sym sym = { 0 };
	uint64_t bias;
	Elf *e;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/root%s", (int)pid, m->path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fd = open(m->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NOT_FOUND;
	e = elf_begin(fd, ELF_C_READ, NULL);
	/* .symtab first (it has static variables too), then .dynsym. */
	for (int pass = 0; e && pass < 2 && r == NOT_FOUND; pass++) {
		scn = NULL;
		while ((scn = elf_nextscn(e, scn)) && r == NOT_FOUND) {
			GElf_Shdr sh;

			if (gelf_getshdr(scn, &sh) &&
			    sh.sh_type == (pass ? SHT_DYNSYM : SHT_SYMTAB))
				r = find_in(e, scn, v->name, &sym);
		}
	}
	if (r == FOUND) {
		int type = GELF_ST_TYPE(sym.st_info);

		if (type == STT_TLS) {
			snprintf(err, errlen, "--signal %s: a thread-local variable "
				 "has one copy per thread and no fixed address; "
				 "publish it with <shimtop/signals.h> instead", v->name);
			r = REFUSED;
		} else if (type != STT_OBJECT && type != STT_COMMON) {
			snprintf(err, errlen, "--signal %s: %s defines it as a %s, "
				 "not a data object; name a global variable", v->name,
				 m->path, type == STT_FUNC ? "function" : "non-data symbol");
			r = REFUSED;
		} else if (sym.st_size == 0 || sym.st_size > 8 ||
			   (sym.st_size & (sym.st_size - 1))) {
			snprintf(err, errlen, "--signal %s: it is %llu bytes; shimtop "
				 "reads variables of 1, 2, 4 or 8 bytes (a counter or "
				 "a tag), not arrays or structures", v->name,
				 (unsigned long long)sym.st_size);
			r = REFUSED;
		} else if (!load_bias(e, m, &bias)) {
			snprintf(err, errlen, "--signal %s: cannot tell where %s is "
				 "loaded in process %d", v->name, m->path, (int)pid);
			r = REFUSED;
		} else {
			v->address = sym.st_value + bias;
			v->size = sym.st_size;
			snprintf(v->module, sizeof(v->module), "%s", m->path);
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return r;
}

int variable_signal_resolve(pid_t pid, struct variable_signal *v, char *err,
			    size_t errlen)
{
	struct map_list *maps = calloc(1, sizeof(*maps));
	int rc = -ENOENT;

	if (!maps) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	elf_version(EV_CURRENT);
	if (symbols_read_proc_maps(pid, collect, maps) < 0) {
		snprintf(err, errlen, "--signal %s: cannot read /proc/%d/maps: is "
			 "the process gone, or not yours?", v->name, (int)pid);
		rc = -ESRCH;
		goto out;
	}
	for (size_t i = 0; i < maps->n; i++) {
		enum lookup r = search_file(pid, &maps->map[i], v, err, errlen);

		if (r == FOUND)
			rc = 0;
		if (r != NOT_FOUND)
			goto out;
	}
	snprintf(err, errlen, "--signal %s: no such symbol in the executable or "
		 "libraries of process %d (a stripped binary keeps only exported "
		 "variables)", v->name, (int)pid);
out:
	free(maps);
	return rc;
}
