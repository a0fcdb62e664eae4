/*
 * symbols_file.c - one ELF file's symbols, shared by every process that
 * maps it: one libdwfl module placed at the file's own addresses, and its
 * loadable segments, to turn a file offset into such an address.
 */
#include "symbols/elf_inflation.h"
#include "symbols/symbols_internal.h"
#include "symbols/unwind_pages.h"
#include "symbols/unwind_rows.h"
#include "util.h"

#include <errno.h>
#include <elfutils/libdwelf.h>
#include <gelf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * Whether the debug file in fd is the one for build ID id (n bytes):
 * libdwfl takes what this callback gives, and a file of another build
 * (a server's mistake, or its lie) would name the code wrongly.  A file
 * found by debuglink may lack a build ID when its binary has none.
 */
bool elf_fd_has_build_id(int fd, const unsigned char *id, int n)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	const void *bits = NULL;
	ssize_t len = elf ? dwelf_elf_gnu_build_id(elf, &bits) : -1;
	bool same = elf && elf_kind(elf) == ELF_K_ELF &&
		    (n <= 0 ? len <= 0 : len == n && !memcmp(bits, id, (size_t)n));

	if (elf)
		elf_end(elf);
	return same;
}

/*
 * Separate debug information, from this machine's /usr/lib/debug: by
 * build ID, else by the file's debuglink name (a bare name; the ELF file
 * is the target's, so no path it names is followed), always through
 * st_open_untrusted; else from debuginfod when DEBUGINFOD_URLS is set.
 * libdwfl's standard search would also open names beside the mapped
 * file, which the target may have made FIFOs.
 */
int elf_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
		       Dwarf_Addr base, const char *file_name,
		       const char *debuglink, GElf_Word crc, char **found)
{
	const unsigned char *id;
	GElf_Addr at;
	char path[4096];
	int n = dwfl_module_build_id(mod, &id, &at), fd = -1;
	struct elf_file *f = userdata ? *userdata : NULL;

	(void)modname;
	(void)base;
	(void)crc;
	if (n > 1 && n <= 64) {
		int len = snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%02x/", id[0]);

		for (int i = 1; i < n; i++)
			len += snprintf(path + len, sizeof(path) - (size_t)len, "%02x", id[i]);
		snprintf(path + len, sizeof(path) - (size_t)len, ".debug");
		fd = st_open_untrusted(-1, path, 0);
	}
	if (fd < 0 && debuglink && debuglink[0] && !strchr(debuglink, '/') &&
	    file_name && file_name[0] == '/') {
		const char *slash = strrchr(file_name, '/');

		snprintf(path, sizeof(path), "/usr/lib/debug%.*s/%s",
			 (int)(slash - file_name), file_name, debuglink);
		fd = st_open_untrusted(-1, path, 0);
	}
	if (fd >= 0 && !elf_fd_has_build_id(fd, id, n)) {
		close(fd);
		fd = -1;
	}
	if (fd >= 0)
		fd = elf_inflation_guard(fd, path);
	if (fd >= 0) {
		*found = st_xstrdup(path);
		if (f)
			f->debug_named_by = NAMED_BY_DEBUG_FILE;
		return fd;
	}
	if (n > 1 && n <= DEBUGINFOD_ID_MAX && debuginfod_enabled()) {
		bool pending;

		fd = debuginfod_debug_file(id, n, f ? st_basename(f->path) : modname,
					   &pending, found);
		if (fd >= 0 && !elf_fd_has_build_id(fd, id, n)) {
			close(fd);
			fd = -1;
		}
		if (fd >= 0)
			fd = elf_inflation_guard(fd, *found);
		if (fd < 0) {
			free(*found);
			*found = NULL;
		}
		if (f && fd >= 0)
			f->debug_named_by = NAMED_BY_DEBUGINFOD;
		if (f && pending) {
			f->debuginfod_pending = true;
			memcpy(f->build_id, id, (size_t)n);
			f->build_id_len = n;
		}
	}
	return fd;
}

/* elf_find_debuginfo's userdata: where it says how it found the debug file. */
static void module_owned_by(struct elf_file *f)
{
	void **userdata = NULL;

	dwfl_module_info(f->mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	if (userdata)
		*userdata = f;
}

struct elf_file *elf_file_open(int fd, const char *path,
			       const Dwfl_Callbacks *callbacks)
{
	struct elf_file *f = st_xcalloc(1, sizeof(*f));
	GElf_Addr bias = 0;
	Elf *elf;
	size_t n = 0;

	f->path = st_xstrdup(path);
	if (fd < 0) {
		f->fd = -1;
		return f;	/* unreadable: every address unknown */
	}
	/* The same file for a process's unwinder (symbols_unwind.c), however
	 * its path changes later. */
	f->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	f->dwfl = dwfl_begin(callbacks);
	if (!f->dwfl) {
		close(fd);
		return f;
	}
	/*
	 * ET_DYN at base 0 with add_p_vaddr: the module's addresses are the
	 * file's own p_vaddr, as for ET_EXEC.  libdwfl takes the descriptor.
	 */
	dwfl_report_begin(f->dwfl);
	f->mod = dwfl_report_elf(f->dwfl, st_basename(path), path, fd, 0, true);
	dwfl_report_end(f->dwfl, NULL, NULL);
	if (!f->mod)
		return f;	/* not ELF, or malformed: every address unknown */
	module_owned_by(f);
	elf = dwfl_module_getelf(f->mod, &bias);
	f->bias = bias;
	if (!elf || elf_getphdrnum(elf, &n) != 0) {
		f->mod = NULL;
		return f;
	}
	f->loads = st_xcalloc(n ? n : 1, sizeof(*f->loads));
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		f->loads[f->nloads++] = (struct elf_load){ ph.p_offset,
			ph.p_memsz > ph.p_filesz ? ph.p_memsz : ph.p_filesz, ph.p_vaddr };
	}
	return f;
}

int elf_file_vaddr(const struct elf_file *f, uint64_t offset, uint64_t *vaddr)
{
	/* A mapping starts at a page: match the segment holding the offset. */
	for (size_t i = 0; i < f->nloads; i++) {
		const struct elf_load *l = &f->loads[i];

		if (offset >= l->offset && offset - l->offset < l->size) {
			*vaddr = offset - l->offset + l->vaddr + f->bias;
			return 0;
		}
	}
	return -ENOENT;	/* no segment holds it */
}

const struct elf_symbol *elf_file_symbol(struct elf_file *f, uint64_t vaddr)
{
	if (!f->mod)
		return NULL;
	elf_file_settle(f);
	if (!f->table_built) {
		GElf_Addr bias = 0;
		Elf *elf = dwfl_module_getelf(f->mod, &bias);

		/*
		 * Symbols from elsewhere than elf are the debug file's, or
		 * MiniDebugInfo's: the symbol table's first reading looks for
		 * the debug file (elf_find_debuginfo says how it found it).
		 */
		int symbols = dwfl_module_getsymtab(f->mod);
		uint8_t elsewhere = f->debug_named_by ? f->debug_named_by : NAMED_BY_MINIDEBUGINFO;
		struct symbol_table_key key = { .bias = bias, .symbols = symbols,
						.named_by = elsewhere };
		const void *id = NULL;
		ssize_t id_len = elf ? dwelf_elf_gnu_build_id(elf, &id) : -1;

		/*
		 * Built once per build-id and what it was read with; then read
		 * back, this time too: the copy's pages are the file's, so a
		 * compile's cc1 costs no session memory once it is written.
		 */
		if (id_len <= 0 || (size_t)id_len > SYMBOL_TABLE_ID_MAX)
			id_len = 0;
		if (!id_len || !symbol_table_cache_load(&f->table, id, (size_t)id_len, &key)) {
			symbol_table_build(&f->table, f->mod, elf, bias, elsewhere);
			if (symbol_table_cache_save(&f->table, id, (size_t)id_len, &key))
				(void)symbol_table_cache_load(&f->table, id, (size_t)id_len, &key);
		}
		f->table_built = true;
	}
	return symbol_table_find(&f->table, vaddr);
}

char *elf_symbol_name(const struct elf_file *f, const struct elf_symbol *e)
{
	const char *raw = symbol_table_text(&f->table, e->raw);
	char name[320];

	if (raw && !e->from_cfi)
		return symbol_demangle(raw, false);
	snprintf(name, sizeof(name), "%s+0x%llx", st_basename(f->path),
		 (unsigned long long)(e->start - f->bias));
	return st_xstrdup(name);
}

void elf_file_reload(struct elf_file *f, const Dwfl_Callbacks *callbacks)
{
	int fd = f->fd >= 0 ? fcntl(f->fd, F_DUPFD_CLOEXEC, 0) : -1;
	struct unwind_rows *rows = f->rows;	/* the same file's CFI: kept */
	struct elf_file *fresh;

	elf_file_settle(f);
	if (fd < 0)
		return;
	fresh = elf_file_open(fd, f->path, callbacks);
	/* Keep f where it is (symbols point at it): its insides change. */
	if (f->dwfl)
		dwfl_end(f->dwfl);
	close(f->fd);
	symbol_table_clear(&f->table);
	free(f->loads);
	free(f->path);
	*f = *fresh;
	f->rows = rows;
	if (f->mod)
		module_owned_by(f);
	free(fresh);
}

/*
 * No process maps f any more: what it holds goes (its descriptor,
 * libdwfl's module, symbols, CFI), the struct stays where it is, for
 * interned symbols point at it, with every address unknown until
 * elf_file_take_back.  Under churn each fresh copy of a library is a
 * file, and a file held its tables for the rest of the session.
 */
void elf_file_let_go(struct elf_file *f)
{
	elf_file_settle(f);
	if (f->dwfl)
		dwfl_end(f->dwfl);
	f->dwfl = NULL;
	f->mod = NULL;
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	unwind_rows_free(f->rows);
	f->rows = NULL;
	/* The pages' worker may still give or store a file's pages: they are the same file's. */
	if (!atomic_load(&f->pages_giving))
		unwind_pages_free(atomic_exchange(&f->pages, NULL));
	symbol_table_clear(&f->table);
	f->table_built = false;
	free(f->loads);
	f->loads = NULL;
	f->nloads = 0;
	f->let_go = true;
}

void elf_file_take_back(struct elf_file *f, int fd, const Dwfl_Callbacks *callbacks)
{
	struct elf_file *fresh = elf_file_open(fd, f->path, callbacks);

	f->dwfl = fresh->dwfl;
	f->mod = fresh->mod;
	f->bias = fresh->bias;
	f->loads = fresh->loads;
	f->nloads = fresh->nloads;
	f->fd = fresh->fd;
	f->let_go = false;
	if (f->mod)
		module_owned_by(f);
	free(fresh->path);
	free(fresh);
}

void elf_file_close(struct elf_file *f)
{
	if (!f)
		return;
	elf_file_settle(f);
	if (f->dwfl)
		dwfl_end(f->dwfl);
	if (f->fd >= 0)
		close(f->fd);
	unwind_rows_free(f->rows);
	unwind_pages_free(atomic_load(&f->pages));
	symbol_table_clear(&f->table);
	free(f->loads);
	free(f->path);
	free(f);
}
