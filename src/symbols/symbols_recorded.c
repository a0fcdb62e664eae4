/*
 * symbols_recorded.c - the files a recording names, found as perf report
 * finds them: a perf.data lists the build-id of each file its samples
 * hit, so the file at that path here is used only when it is that build;
 * else perf's build-id cache ($PERF_BUILDID_DIR, ~/.debug), where perf
 * record copies each file it saw; with --symfs DIR, the path under DIR
 * in place of this machine's.  A file found nowhere leaves its functions
 * [unknown] in its module, and one line says which build-id was missing.
 *
 * Every path opened here comes from the recording (hostile): each is
 * opened by st_open_untrusted (a regular file, never blocking) and read
 * only after its build-id is checked.
 */
#include "symbols/symbols_internal.h"
#include "util.h"

#include <elf.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <uthash.h>

struct recorded_id {
	UT_hash_handle hh;
	unsigned char id[20];
	int len;
	bool warned;
	char path[];
};

#define RECORDED_MODULES_MAX	4096u

struct recorded_module {
	char name[64];			/* as kallsyms names it: '-' made '_' */
	unsigned char id[20];
	size_t len;
	bool checked, foreign;
};

/* "/lib/modules/6.1.0/kernel/fs/ext4/ext4.ko.xz" -> "ext4"; false if no module's file. */
static bool module_name(const char *path, char *out, size_t room)
{
	const char *base = strrchr(path, '/'), *ko;
	size_t n;

	base = base ? base + 1 : path;
	ko = strstr(base, ".ko");
	if (!ko || (ko[3] && ko[3] != '.') || ko == base || (n = (size_t)(ko - base)) >= room)
		return false;
	for (size_t i = 0; i < n; i++)
		out[i] = base[i] == '-' ? '_' : base[i];
	out[n] = '\0';
	return true;
}

static void expect_kernel_file(struct recorded_files *r, const char *path,
			       const unsigned char *id, size_t len)
{
	const char *base = strrchr(path, '/');
	struct recorded_module *m;
	char name[64];

	base = base ? base + 1 : path;
	/* perf names the kernel [kernel.kallsyms], or the vmlinux it read. */
	if (!strcmp(path, "[kernel.kallsyms]") || !strncmp(base, "vmlinux", 7)) {
		if (!r->kernel_id_len) {
			memcpy(r->kernel_id, id, len);
			r->kernel_id_len = len;
		}
		return;
	}
	if (!module_name(path, name, sizeof(name)) || r->nmodules >= RECORDED_MODULES_MAX)
		return;
	for (size_t i = 0; i < r->nmodules; i++)
		if (!strcmp(r->modules[i].name, name))
			return;
	ST_GROW_BARE(r->modules, r->modules_cap, r->nmodules + 1);
	m = &r->modules[r->nmodules++];
	memset(m, 0, sizeof(*m));
	strcpy(m->name, name);
	memcpy(m->id, id, len);
	m->len = len;
}

void recorded_files_expect(struct recorded_files *r, const char *path,
			   const unsigned char *id, size_t len, bool kernel)
{
	struct recorded_id *e;

	if (!len || len > sizeof(r->kernel_id))
		return;
	if (kernel || !strcmp(path, "[kernel.kallsyms]")) {
		expect_kernel_file(r, path, id, len);
		return;
	}
	/* The vDSO is named otherwise; relative paths are nobody's file. */
	if (path[0] != '/' || !len || len > sizeof(e->id) || r->nids >= RECORDED_IDS_MAX)
		return;
	HASH_FIND_STR(r->ids, path, e);
	if (e)
		return;		/* the first entry stands: one build a path */
	e = st_xcalloc(1, sizeof(*e) + strlen(path) + 1);
	memcpy(e->id, id, len);
	e->len = (int)len;
	strcpy(e->path, path);
	HASH_ADD_STR(r->ids, path, e);
	r->nids++;
}

void recorded_files_expect_kernel(struct recorded_files *r, const char *osrelease)
{
	r->perf_data = true;
	snprintf(r->osrelease, sizeof(r->osrelease), "%s", osrelease ? osrelease : "");
}

void recorded_files_set_kallsyms(struct recorded_files *r, const char *path)
{
	free(r->kallsyms);
	r->kallsyms = path && path[0] ? st_xstrdup(path) : NULL;
}

void recorded_files_set_symfs(struct recorded_files *r, const char *dir)
{
	free(r->symfs);
	r->symfs = dir && dir[0] ? st_xstrdup(dir) : NULL;
}

bool recorded_files_active(const struct recorded_files *r)
{
	return r->ids || r->symfs;
}

/* perf's build-id cache: $PERF_BUILDID_DIR, else ~/.debug. */
static void cache_dir(char *out, size_t room)
{
	const char *env = getenv("PERF_BUILDID_DIR"), *home = getenv("HOME");

	if (env && env[0])
		snprintf(out, room, "%s", env);
	else if (home && home[0] == '/')
		snprintf(out, room, "%s/.debug", home);
	else
		out[0] = '\0';
}

static void hex_of(const unsigned char *id, int len, char *out)
{
	for (int i = 0; i < len; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * len] = '\0';
}

/* fd if the file at path is a regular file of the wanted build (or any, without one); else -1. */
static int open_checked(const char *path, const struct recorded_id *e)
{
	int fd = st_open_untrusted(-1, path, 0);

	if (fd < 0)
		return -1;
	if (e && !elf_fd_has_build_id(fd, e->id, e->len)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* path as it lies under --symfs into out; false without --symfs or room. */
static bool under_symfs(const struct recorded_files *r, const char *path, char *out, size_t room)
{
	return r->symfs && snprintf(out, room, "%s/%s", r->symfs,
				    path[0] == '/' ? path + 1 : path) < (int)room;
}

int recorded_file_open(struct recorded_files *r, const char *path)
{
	struct recorded_id *e;
	char at[4096], dir[2048], hex[41];
	bool here;
	int fd = -1;

	HASH_FIND_STR(r->ids, path, e);
	if (under_symfs(r, path, at, sizeof(at)) && (fd = open_checked(at, e)) >= 0)
		return fd;
	/* This machine's file: under --symfs only when its build-id proves it the same. */
	if (!r->symfs || e) {
		if ((fd = open_checked(path, e)) >= 0 || !e)
			return fd;
	}
	if (!e)
		return -1;
	/* Another build at the path, or none: perf record's copy, by its build-id. */
	hex_of(e->id, e->len, hex);
	cache_dir(dir, sizeof(dir));
	if (dir[0]) {
		/* perf 4.x and later: .build-id/ab/cdef.../elf; before: the link itself. */
		snprintf(at, sizeof(at), "%s/.build-id/%.2s/%s/elf", dir, hex, hex + 2);
		if ((fd = open_checked(at, e)) >= 0)
			return fd;
		snprintf(at, sizeof(at), "%s/.build-id/%.2s/%s", dir, hex, hex + 2);
		if ((fd = open_checked(at, e)) >= 0)
			return fd;
	}
	if (!e->warned) {
		e->warned = true;
		here = access(path, F_OK) == 0;
		st_warn("%s with build-id %s is %s%s, nor in %s/.build-id: its functions are "
			"[unknown]; give --symfs DIR holding a copy", path, hex,
			here ? "another build here" : "not here", r->symfs ? " or under --symfs" : "",
			dir[0] ? dir : "~/.debug");
	}
	return -1;
}

/*
 * A running kernel's or module's build-id from its notes in /sys (the
 * kernel's own ELF notes, not the target's): its length, or 0.  Read
 * here, as perf does: libelf's gelf_getnote takes only a section's data
 * of an open Elf, and these bytes are no file.
 */
static size_t running_id(const char *path, unsigned char *id, size_t room)
{
	size_t len = 0, at = 0, got = 0;
	unsigned char *notes = (unsigned char *)st_read_file(path, &len);

	while (notes && len - at >= sizeof(Elf64_Nhdr)) {
		Elf64_Nhdr nh;
		size_t name, desc;

		memcpy(&nh, notes + at, sizeof(nh));
		name = ((size_t)nh.n_namesz + 3) & ~(size_t)3;
		desc = ((size_t)nh.n_descsz + 3) & ~(size_t)3;
		if (name > len - at - sizeof(nh) || desc > len - at - sizeof(nh) - name)
			break;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == sizeof("GNU") &&
		    !memcmp(notes + at + sizeof(nh), "GNU", sizeof("GNU")) && nh.n_descsz <= room) {
			memcpy(id, notes + at + sizeof(nh) + name, nh.n_descsz);
			got = nh.n_descsz;
			break;
		}
		at += sizeof(nh) + name + desc;
	}
	free(notes);
	return got;
}

#define SAVED_KALLSYMS_MAX	(256u << 20)

/* perf record's copy of the recorded kernel's /proc/kallsyms into t; false if none. */
static bool saved_kallsyms(const char *path, struct range_table *t)
{
	int fd = st_open_untrusted(-1, path, 0);
	struct stat st;
	size_t size, len;
	char *text;

	if (fd < 0)
		return false;
	if (fstat(fd, &st) < 0 || st.st_size <= 0 || (uint64_t)st.st_size >= SAVED_KALLSYMS_MAX) {
		close(fd);
		return false;
	}
	size = (size_t)st.st_size + 1;
	text = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (text == MAP_FAILED) {
		close(fd);
		return false;
	}
	len = kallsyms_read_fd(fd, text, size);
	range_table_clear(t);
	kernel_symbols_parse(t, text, len);
	t->text = text;
	t->text_size = size;
	return t->n > 0;
}

/* --kallsyms FILE into t: false (said why) if it holds no function. */
static bool given_kallsyms(const char *path, struct range_table *t)
{
	if (saved_kallsyms(path, t))
		return true;
	range_table_clear(t);
	st_warn("--kallsyms '%s' holds no kernel function (not readable, or not /proc/kallsyms' "
		"text with addresses): kernel addresses are left unnamed; give a copy of "
		"/proc/kallsyms read as root on the machine that recorded", path);
	return false;
}

#define VMLINUX_FUNCTIONS_MAX	(4u << 20)

/*
 * The functions of a vmlinux (an ELF of the kernel with its symbols: a
 * -dbg package's, perf buildid-cache's copy) whose build-id is the
 * recorded kernel's, into t; false if the file is not that, or names
 * none.  The bytes are read by libelf, every name by elf_strptr's bounds.
 */
static bool vmlinux_symbols(const struct recorded_files *r, const char *path, struct range_table *t)
{
	int fd = st_open_untrusted(-1, path, 0);
	Elf_Scn *scn = NULL;
	Elf *elf;

	if (fd < 0)
		return false;
	if (!elf_fd_has_build_id(fd, r->kernel_id, (int)r->kernel_id_len) ||
	    !(elf = elf_begin(fd, ELF_C_READ_MMAP, NULL))) {
		close(fd);
		return false;
	}
	range_table_clear(t);
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize && i < INT32_MAX &&
		     t->n < VMLINUX_FUNCTIONS_MAX; i++) {
			const char *name;
			GElf_Sym sym;

			if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    sym.st_shndx == SHN_UNDEF || !sym.st_value ||
			    sym.st_size > UINT64_MAX - sym.st_value)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (name && name[0])
				range_table_add(t, sym.st_value, sym.st_value + sym.st_size, name, NULL);
		}
	}
	elf_end(elf);
	close(fd);
	range_table_finish(t);
	if (t->n)
		t->static_end = t->v[t->n - 1].start;
	return t->n > 0;
}

/*
 * A vmlinux of the recorded kernel where perf looks for one: its build-id
 * in perf's cache and the debug files' tree, then by the recorded release
 * under /boot, /usr/lib/debug and the kernel's build tree; each under
 * --symfs first.  true with its functions in t.
 */
static bool recorded_vmlinux(const struct recorded_files *r, const char *hex, const char *dir,
			     struct range_table *t)
{
	const char *rel = r->osrelease[0] ? r->osrelease : NULL;
	char at[4096], cand[6][1024];
	size_t n = 0;

	if (dir[0] && snprintf(cand[n], sizeof(cand[0]), "%s/.build-id/%.2s/%s/elf", dir, hex,
			       hex + 2) < (int)sizeof(cand[0]))
		n++;
	snprintf(cand[n++], sizeof(cand[0]), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
	if (rel) {
		snprintf(cand[n++], sizeof(cand[0]), "/boot/vmlinux-%s", rel);
		snprintf(cand[n++], sizeof(cand[0]), "/usr/lib/debug/boot/vmlinux-%s", rel);
		snprintf(cand[n++], sizeof(cand[0]), "/usr/lib/debug/lib/modules/%s/vmlinux", rel);
		snprintf(cand[n++], sizeof(cand[0]), "/lib/modules/%s/build/vmlinux", rel);
	}
	for (size_t i = 0; i < n; i++) {
		if (cand[i][0] == '/' && under_symfs(r, cand[i], at, sizeof(at)) &&
		    vmlinux_symbols(r, at, t))
			return true;
		if (vmlinux_symbols(r, cand[i], t))
			return true;
	}
	return false;
}

/* The recorded kernel's build-id as hex, or its release, for the lines below. */
static void recorded_kernel_words(const struct recorded_files *r, char *out, size_t room)
{
	char hex[2 * sizeof(r->kernel_id) + 1];

	if (r->kernel_id_len) {
		hex_of(r->kernel_id, (int)r->kernel_id_len, hex);
		snprintf(out, room, "build-id %s", hex);
	} else {
		snprintf(out, room, "release %s", r->osrelease);
	}
}

void recorded_kernel_symbols(struct recorded_files *r, struct range_table *t)
{
	unsigned char here[sizeof(r->kernel_id)];
	char hex[2 * sizeof(r->kernel_id) + 1], dir[2048], path[4096], words[160];
	struct utsname u;
	size_t n;

	if (r->kallsyms) {
		given_kallsyms(r->kallsyms, t);
		return;
	}
	if (!r->perf_data)
		return;		/* shimtop's own recordings: this machine's, as recorded */
	if (r->kernel_id_len) {
		n = running_id("/sys/kernel/notes", here, sizeof(here));
		if (n == r->kernel_id_len && !memcmp(here, r->kernel_id, n))
			return;
		hex_of(r->kernel_id, (int)r->kernel_id_len, hex);
		cache_dir(dir, sizeof(dir));
		snprintf(path, sizeof(path), "%s/[kernel.kallsyms]/%s/kallsyms", dir, hex);
		if (dir[0] && saved_kallsyms(path, t))
			return;
		if (recorded_vmlinux(r, hex, dir, t))
			return;
		snprintf(path, sizeof(path), "%s/[kernel.kallsyms]/%s/kallsyms",
			 dir[0] ? dir : "~/.debug", hex);
	} else if (r->osrelease[0]) {
		/* No build-id to go by: the release, as perf report goes by it. */
		if (uname(&u) == 0 && !strcmp(u.release, r->osrelease))
			return;
	} else {
		/* A file that names no kernel (perf 2.6's, an old pipe): this one's, as perf. */
		return;
	}
	range_table_clear(t);
	r->kernel_foreign = true;
	recorded_kernel_words(r, words, sizeof(words));
	st_warn("the recorded kernel (%s) is not this one: its addresses are left unnamed; "
		"give --kallsyms FILE (/proc/kallsyms of the machine that recorded)%s%s%s",
		words, r->kernel_id_len ? " or put perf's saved copy at " : "",
		r->kernel_id_len ? path : "",
		r->kernel_id_len ? ", or its vmlinux (with symbols) under --symfs DIR" : "");
}

bool recorded_module_foreign(struct recorded_files *r, const char *module)
{
	unsigned char here[20];
	char path[160];

	if (!r->perf_data || r->kallsyms || r->kernel_foreign)
		return false;	/* --kallsyms' names stand; a foreign kernel has none */
	for (size_t i = 0; i < r->nmodules; i++) {
		struct recorded_module *m = &r->modules[i];

		if (strcmp(m->name, module))
			continue;
		if (!m->checked) {
			size_t n;

			snprintf(path, sizeof(path), "/sys/module/%s/notes/.note.gnu.build-id", m->name);
			n = running_id(path, here, sizeof(here));
			m->checked = true;
			m->foreign = n != m->len || memcmp(here, m->id, n);
			if (m->foreign)
				st_warn("module %s of the recording is another build than this "
					"machine's, or not loaded here: its functions are left unnamed; "
					"give --kallsyms FILE of the machine that recorded", m->name);
		}
		return m->foreign;
	}
	return false;
}

void recorded_files_free(struct recorded_files *r)
{
	struct recorded_id *e, *tmp;

	HASH_ITER(hh, r->ids, e, tmp) {
		HASH_DEL(r->ids, e);
		free(e);
	}
	free(r->symfs);
	free(r->kallsyms);
	free(r->modules);
	memset(r, 0, sizeof(*r));
}
