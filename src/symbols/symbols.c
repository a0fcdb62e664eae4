/*
 * symbols.c - the symbolizer: interning, per-process module maps, and the
 * address cache that makes a repeated address cost one hash probe.
 *
 * What a process costs is its list of mappings and nothing else: ELF
 * files are opened once, inside the root the process sees, and their
 * symbols shared by every process that maps them (symbols_file.c); the
 * cache is one table for all processes, keyed by a generation that
 * changes whenever a process's map does.  A forking target's children
 * are forgotten once they exit (symbolizer_forget).
 */
#include "symbols/elf_inflation.h"
#include "symbols/symbols.h"
#include "symbols/symbols_internal.h"
#include "symbols/unwind_rows.h"
#include "index.h"
#include "text_safe.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <uthash.h>

#define CACHE_SLOTS	(1u << 16)	/* at most (symbolizer_bound) */
#define JIT_RETIRED	1024u
#define JIT_CHECKS_PER_CALL 64	/* JIT maps looked at each symbolizer_set_time */
#define CACHE_PROBES	8
#define UNMAPPED_SWEEPS	30	/* a file no process maps is let go after as many sweeps */
#define IDLE_SWEEPS	10	/* short of memory: a table no look-up used is dropped after */
#define MAX_ROOTS	64	/* distinct container roots opened */
/*
 * What a new name costs beside its own bytes: the model's row of it
 * (struct model_sym, 96), the id's pointer, its function-cache entry
 * and a share of the rows of the processes that ran it.
 */
#define NAME_ROWS_BYTES	192u

/* A directory processes see as "/", opened once (O_PATH). */
struct root {
	UT_hash_handle hh;
	struct root_id {
		dev_t dev;
		ino_t ino;
	} id;
	int fd;			/* -1: this machine's paths (replay) */
};

/* Interned path strings: maps point at one copy each. */
struct path {
	UT_hash_handle hh;
	uint32_t mapped_at;		/* the last sweep that found a map of it */
	char name[];
};

/* What (root, path) opened to; file NULL if it could not be. */
struct resolved {
	UT_hash_handle hh;
	struct resolved_key {
		const struct root *root;
		const char *path;
	} key;
	struct elf_file *file;
};

/* ELF files by identity: one per (device, inode), however reached. */
struct file_entry {
	UT_hash_handle hh;
	struct root_id id;
	struct elf_file *file;
};

struct map {
	uint64_t start, end, pgoff;
	const char *path;		/* interned */
	struct elf_file *file;		/* once resolved */
	bool resolved;
};

/* One process: its mappings, JIT map and where it finds its files. */
struct space {
	UT_hash_handle hh;
	pid_t pid;
	uint64_t gen;			/* cache key; new on every map change */
	struct root *root;
	struct map *maps;
	size_t nmaps, maps_cap;
	bool sorted, exited;
	struct jit_map *jit;		/* made on first use */
	unsigned jit_loads;		/* jit->loads when gen was taken */
	bool jit_listed;		/* in symbolizer's jit_pids */
	uint64_t tables_gen;		/* gen when every file's table was ready */
};

/*
 * One allocation holds an interned symbol and its strings; the key is
 * "module\0name\0raw", the bytes the three strings occupy together (two
 * C++ overloads share a name, as in perf, but are two rows).
 */
struct interned {
	UT_hash_handle hh;
	struct st_symbol sym;
	struct elf_file *file;		/* where its code is, if in a file */
	uint64_t start, end;		/* its module addresses there */
	char strings[];
};

/* The answer by id: a sample never reads the symbol itself (symbolizer_lookup_id). */
struct cache_slot {
	uint64_t ip;
	uint64_t gen;			/* 0: empty; KERNEL_GEN: kernel */
	uint32_t id;			/* st_symbol.id */
	uint32_t offset;		/* ip's bytes from the symbol's start */
	bool unknown;
};

#define KERNEL_GEN	1u

struct symbolizer {
	bool live;
	Dwfl_Callbacks callbacks;
	struct space *spaces;
	struct space *last;	/* samples come in runs of one process */
	size_t nspaces;
	uint64_t next_gen;

	struct root *roots, *host_root;
	size_t nroots;
	struct path *paths;
	struct resolved *resolved;
	struct file_entry *files;
	size_t nfiles;
	uint32_t sweeps;		/* symbolizer_let_go's calls */
	size_t files_let_go;		/* files holding nothing now */
	uint64_t tables_dropped;	/* tables of mapped files dropped, idle, short of memory */
	uint64_t rows_dropped;		/* their unwind rows dropped, the same way */

	struct range_table kernel;
	bool kernel_loaded;
	/* The BPF programs, listed when kallsyms' saved copy is past its knowledge. */
	struct range_table bpf;
	uint64_t bpf_listed_ns;
	/* The other code the kernel made (trampolines), listed the same way. */
	struct range_table made;
	uint64_t made_listed_ns;
	/*
	 * /proc/kallsyms takes the kernel 100-200 ms to list: the UI has it
	 * read by a thread (kernel_ready), so the first kernel sample does
	 * not stall it; joined there.
	 */
	pthread_t kernel_reader;
	bool kernel_reading;
	_Atomic bool kernel_behind;	/* read ahead at nice 10 (symbolizer_prefetch_kernel) */
	_Atomic pid_t kernel_reader_tid;	/* its thread, to call it forward */
	bool async;			/* symbolizer_set_async */
	uint64_t now_ns;		/* symbolizer_set_time; 0: read the clock */
	unsigned jit_loads;		/* JIT maps read changed, all processes */
	pid_t *jit_pids;		/* the processes with a JIT map, checked in turn */
	size_t njit_pids, jit_pids_cap, jit_next;
	/*
	 * Forgotten processes' JIT maps (their tables emptied), the oldest
	 * replaced past JIT_RETIRED: a map written at exit names samples
	 * taken before.
	 */
	struct jit_map *retired[JIT_RETIRED];
	size_t nretired;

	/* Interned symbols: by id, and by (module, name) in a uthash. */
	struct st_symbol **syms;
	size_t nsyms, syms_cap;
	struct interned *index;
	size_t names_bytes;		/* they and their rows elsewhere (NAME_ROWS_BYTES) */
	size_t names_most;		/* 0: unbounded (symbolizer_bound_names) */

	struct elf_file *vdso;		/* this kernel's, read from our own */
	bool vdso_tried;

	struct cache_slot *cache;
	size_t cache_slots;		/* a power of two, CACHE_SLOTS at most */
	/*
	 * (function, module) -> interned symbol: a new address in a function
	 * seen before costs a probe, not its names' interning.  Functions are
	 * elf_symbols, freed only when a file is read again (which empties
	 * these).  module is an interned path's basename.
	 */
	struct function_key {
		const struct elf_symbol *e;
		const char *module;
		const struct st_symbol *sym;
	} *functions;
	size_t nfunctions, functions_cap;
	struct st_index by_function;	/* -> functions' entry + 1 */
	struct symbolizer_stats stats;
	unsigned debuginfod_seen;	/* debuginfod_finished() when last looked */

	/* A snapshot's: every address resolves through these, by stand-in address. */
	const struct st_symbol **standins;
	size_t nstandins, standins_cap;
	uint32_t standin_stride;	/* its layout's (symbolizer_standin_stride) */
	struct standin_code {		/* by stand-in: the code it held, if any */
		uint64_t start;
		uint8_t *bytes;
		size_t len;
		bool truncated;
	} *standin_code;
	size_t standin_code_cap;

	struct recorded_files recorded;	/* a perf.data's build-ids, --symfs */
};

static const struct st_symbol *intern_full(struct symbolizer *s,
					   const char *module, const char *name,
					   const char *raw, const char *aliases,
					   bool unknown)
{
	size_t ml = strlen(module) + 1, nl = strlen(name) + 1, rl = strlen(raw) + 1;
	size_t al = aliases ? strlen(aliases) + 1 : 0, kl = ml + nl + rl;
	char small[512], *key = kl <= sizeof(small) ? small : st_xmalloc(kl);
	struct interned *in;

	/*
	 * The target names these (its ELF files, its JIT map): what reaches a
	 * terminal is made safe once, here (text_safe.h).  Only shorter.
	 */
	memcpy(key, module, ml);
	ml = strlen(st_text_safe(key)) + 1;
	memcpy(key + ml, name, nl);
	nl = strlen(st_text_safe(key + ml)) + 1;
	memcpy(key + ml + nl, raw, rl);
	rl = strlen(st_text_safe(key + ml + nl)) + 1;
	kl = ml + nl + rl;
	HASH_FIND(hh, s->index, key, kl, in);
	if (!in && !unknown && s->names_most && s->names_bytes >= s->names_most &&
	    strcmp(name, SYMBOL_PAST_MEMORY)) {
		/* Past the room for names: counted as the module's, never dropped. */
		s->stats.names_folded++;
		if (key != small)
			free(key);
		return intern_full(s, module, SYMBOL_PAST_MEMORY, SYMBOL_PAST_MEMORY, NULL, false);
	}
	if (!in) {
		s->names_bytes += sizeof(*in) + kl + al + NAME_ROWS_BYTES;
		in = st_xmalloc(sizeof(*in) + kl + al);
		memcpy(in->strings, key, kl);
		if (al) {
			memcpy(in->strings + kl, aliases, al);
			st_text_safe(in->strings + kl);
		}
		in->sym.module = in->strings;
		in->sym.name = in->strings + ml;
		in->sym.raw = in->strings + ml + nl;
		in->sym.aliases = al ? in->strings + kl : NULL;
		in->sym.unknown = unknown;
		in->sym.named_by = NAMED_BY_NONE;
		in->sym.id = (uint32_t)s->nsyms;
		in->file = NULL;
		in->start = in->end = 0;
		HASH_ADD_KEYPTR(hh, s->index, in->strings, kl, in);
		ST_GROW(s->syms, s->syms_cap, s->nsyms + 1);
		s->syms[s->nsyms++] = &in->sym;
	}
	if (key != small)
		free(key);
	return &in->sym;
}

static struct interned *interned_of(const struct st_symbol *sym)
{
	return (struct interned *)((char *)(uintptr_t)sym - offsetof(struct interned, sym));
}

/* sym, saying what named it if nothing has yet (the first source counts). */
static const struct st_symbol *named(const struct st_symbol *sym, enum st_named_by by)
{
	struct interned *in = interned_of(sym);

	if (in->sym.named_by == NAMED_BY_NONE)
		in->sym.named_by = (uint8_t)by;
	return sym;
}

/* The bytes from start to ip, or SYMBOL_NO_OFFSET when out of reach. */
static uint32_t offset_in(uint64_t start, uint64_t ip)
{
	return ip >= start && ip - start < SYMBOL_NO_OFFSET ? (uint32_t)(ip - start)
							   : SYMBOL_NO_OFFSET;
}

static const struct st_symbol *intern(struct symbolizer *s, const char *module,
				      const char *name, bool unknown)
{
	return intern_full(s, module, name, name, NULL, unknown);
}

static void *read_kernel_symbols(void *arg)
{
	struct symbolizer *s = arg;
	pid_t tid = (pid_t)syscall(SYS_gettid);

	/*
	 * Read ahead, it waits behind the sampler and the target: at nice 0
	 * beside the demo's threads on two CPUs it starved the sampler of
	 * the first second, when every sample carries its stack copy.
	 */
	if (atomic_load(&s->kernel_behind))
		st_thread_nice(tid, 10);
	/* Known only after: whoever calls it forward does so after it stepped back. */
	atomic_store(&s->kernel_reader_tid, tid);
	kernel_symbols_load(&s->kernel, false);
	return NULL;
}

/* A sample waits on the reader read ahead: at nice 0 from now where allowed (once). */
static void call_kernel_reader_forward(struct symbolizer *s)
{
	/* Not yet stepped back, it reads false and never does. */
	if (atomic_exchange(&s->kernel_behind, false)) {
		pid_t tid = atomic_load(&s->kernel_reader_tid);

		if (tid > 0)
			st_thread_nice(tid, 0);
	}
}

static void join_kernel_reader(struct symbolizer *s)
{
	call_kernel_reader_forward(s);
	pthread_join(s->kernel_reader, NULL);
	s->kernel_reading = false;
}

void symbolizer_settle(struct symbolizer *s)
{
	struct file_entry *f = NULL, *tmp = NULL;

	if (s->kernel_reading)
		join_kernel_reader(s);
	HASH_ITER(hh, s->files, f, tmp) {
		elf_file_settle(f->file);
	}
}

void symbolizer_prefetch_kernel(struct symbolizer *s)
{
	if (s->kernel_loaded || s->kernel_reading)
		return;
	atomic_store(&s->kernel_behind, true);
	s->kernel_reading = pthread_create(&s->kernel_reader, NULL, read_kernel_symbols, s) == 0;
}

struct symbolizer *symbolizer_create(bool live)
{
	struct symbolizer *s = st_xcalloc(1, sizeof(*s));

	/* libelf's own calls (build-id checks) before libdwfl has made any. */
	elf_version(EV_CURRENT);
	s->live = live;
	s->callbacks.find_elf = dwfl_build_id_find_elf;
	s->callbacks.find_debuginfo = elf_find_debuginfo;
	s->callbacks.section_address = dwfl_offline_section_address;
	s->host_root = st_xcalloc(1, sizeof(*s->host_root));
	s->host_root->fd = -1;
	s->next_gen = KERNEL_GEN + 1;
	s->cache_slots = CACHE_SLOTS;
	s->cache = st_table_alloc(CACHE_SLOTS, sizeof(*s->cache));
	return s;
}

static void space_free(struct space *sp)
{
	free(sp->maps);
	if (sp->jit) {
		range_table_clear(&sp->jit->table);
		free(sp->jit);
	}
	free(sp);
}

void symbolizer_destroy(struct symbolizer *s)
{
	struct space *sp, *sp_tmp;
	struct root *r, *r_tmp;
	struct path *p, *p_tmp;
	struct resolved *v, *v_tmp;
	struct file_entry *f, *f_tmp;

	if (!s)
		return;
	HASH_ITER(hh, s->spaces, sp, sp_tmp) {
		HASH_DEL(s->spaces, sp);
		space_free(sp);
	}
	free(s->jit_pids);
	for (size_t i = 0; i < s->nretired; i++) {
		range_table_clear(&s->retired[i]->table);
		free(s->retired[i]);
	}
	HASH_ITER(hh, s->roots, r, r_tmp) {
		HASH_DEL(s->roots, r);
		close(r->fd);
		free(r);
	}
	free(s->host_root);
	HASH_ITER(hh, s->resolved, v, v_tmp) {
		HASH_DEL(s->resolved, v);
		free(v);
	}
	HASH_ITER(hh, s->files, f, f_tmp) {
		HASH_DEL(s->files, f);
		elf_file_close(f->file);
		free(f);
	}
	HASH_ITER(hh, s->paths, p, p_tmp) {
		HASH_DEL(s->paths, p);
		free(p);
	}
	elf_file_close(s->vdso);
	if (s->kernel_reading)
		join_kernel_reader(s);
	range_table_clear(&s->kernel);
	range_table_clear(&s->bpf);
	range_table_clear(&s->made);
	{
		struct interned *in, *in_tmp;

		HASH_ITER(hh, s->index, in, in_tmp) {
			HASH_DEL(s->index, in);
			free(in);
		}
	}
	free(s->syms);
	free(s->standins);
	for (size_t i = 0; i < s->standin_code_cap; i++)
		free(s->standin_code[i].bytes);
	free(s->standin_code);
	st_table_free(s->cache, s->cache_slots, sizeof(*s->cache));
	st_index_free(&s->by_function);
	free(s->functions);
	recorded_files_free(&s->recorded);
	free(s);
}

static const char *intern_path(struct symbolizer *s, const char *name)
{
	struct path *p;
	size_t len = strlen(name);

	HASH_FIND(hh, s->paths, name, len, p);
	if (p)
		return p->name;
	p = st_xmalloc(sizeof(*p) + len + 1);
	memset(&p->hh, 0, sizeof(p->hh));
	p->mapped_at = s->sweeps;
	memcpy(p->name, name, len + 1);
	HASH_ADD_KEYPTR(hh, s->paths, p->name, len, p);
	return p->name;
}

/*
 * The root pid sees, opened once per distinct directory; NULL when it
 * cannot be opened (the process is gone).  Past MAX_ROOTS, and for
 * replay, paths are this machine's.
 */
static struct root *root_of_pid(struct symbolizer *s, pid_t pid)
{
	char path[64];
	struct stat st;
	struct root *r;
	int fd;

	if (!s->live)
		return s->host_root;
	snprintf(path, sizeof(path), "/proc/%d/root", (int)pid);
	fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return NULL;
	}
	HASH_FIND(hh, s->roots, &((struct root_id){ st.st_dev, st.st_ino }),
		  sizeof(struct root_id), r);
	if (r || s->nroots >= MAX_ROOTS) {
		close(fd);
		return r ? r : s->host_root;
	}
	r = st_xcalloc(1, sizeof(*r));
	r->id = (struct root_id){ st.st_dev, st.st_ino };
	r->fd = fd;
	HASH_ADD(hh, s->roots, id, sizeof(r->id), r);
	s->nroots++;
	return r;
}

static struct space *space_find(struct symbolizer *s, pid_t pid)
{
	struct space *sp;

	if (s->last && s->last->pid == pid)
		return s->last;
	HASH_FIND(hh, s->spaces, &pid, sizeof(pid), sp);
	if (sp)
		s->last = sp;
	return sp;
}

static struct space *space_new(struct symbolizer *s, pid_t pid, struct root *root)
{
	struct space *sp = st_xcalloc(1, sizeof(*sp));

	sp->pid = pid;
	sp->gen = s->next_gen++;
	sp->root = root;
	sp->sorted = true;
	HASH_ADD(hh, s->spaces, pid, sizeof(sp->pid), sp);
	s->nspaces++;
	return s->last = sp;
}

static struct space *space_of(struct symbolizer *s, pid_t pid)
{
	struct space *sp = space_find(s, pid);

	if (sp)
		return sp;
	/* A process already gone has no root to open: NULL, this machine's paths. */
	return space_new(s, pid, root_of_pid(s, pid));
}

/* A map change: cached answers for the old map no longer count. */
static void space_changed(struct symbolizer *s, struct space *sp)
{
	sp->gen = s->next_gen++;
	sp->sorted = false;
}

/*
 * A new mapping replaces what it overlaps (mmap MAP_FIXED unmaps that
 * much), and no more: an old mapping keeps its parts on either side, the
 * right-hand one's file offset moved past the cut, as the kernel splits
 * a vma and perf splits its maps.  A page mapped over a library's code
 * (a JIT, a hot patch) leaves the rest of the library named.
 */
static void space_add_map(struct symbolizer *s, struct space *sp,
			  const struct map *add)
{
	size_t i, n = sp->nmaps, pieces = 0;

	for (i = 0; i < n; i++) {
		const struct map *m = &sp->maps[i];

		if (m->start == add->start && m->end == add->end &&
		    m->pgoff == add->pgoff && m->path == add->path)
			return;		/* already known */
		pieces += m->start < add->start && add->end < m->end;
	}
	ST_GROW(sp->maps, sp->maps_cap, n + pieces + 1);
	for (i = 0; i < n; i++) {
		struct map *m = &sp->maps[i];

		if (!(m->start < add->end && add->start < m->end))
			continue;
		if (add->end < m->end) {	/* the part right of the new one */
			struct map right = *m;

			right.pgoff += add->end - m->start;
			right.start = add->end;
			if (m->start < add->start)
				sp->maps[sp->nmaps++] = right;
			else
				*m = right;
		}
		if (m->start < add->start)	/* the part left of it */
			m->end = m->end < add->start ? m->end : add->start;
		else if (m->start >= add->start && m->end <= add->end)
			m->end = m->start;	/* wholly covered: dropped below */
	}
	for (i = 0, n = 0; i < sp->nmaps; i++)
		if (sp->maps[i].start < sp->maps[i].end)
			sp->maps[n++] = sp->maps[i];
	sp->nmaps = n;
	sp->maps[sp->nmaps++] = *add;
	space_changed(s, sp);
}

void symbolizer_add_map(struct symbolizer *s, pid_t pid, uint64_t start,
			uint64_t len, uint64_t pgoff, const char *path)
{
	struct map m = { start, start + len, pgoff, intern_path(s, path), NULL, false };

	if (m.end < m.start)
		m.end = UINT64_MAX;
	space_add_map(s, space_of(s, pid), &m);
}

void symbolizer_fork(struct symbolizer *s, pid_t parent, pid_t child)
{
	struct space *p, *c;

	if (parent == child)
		return;
	p = space_of(s, parent);
	c = space_find(s, child);
	if (c) {
		/* The id came round: the old process's map is not this one's. */
		c->nmaps = 0;
		c->exited = false;
		c->root = p->root;
		space_changed(s, c);
	} else {
		c = space_new(s, child, p->root);
	}
	ST_GROW(c->maps, c->maps_cap, p->nmaps);
	if (p->nmaps)
		memcpy(c->maps, p->maps, p->nmaps * sizeof(*c->maps));
	c->nmaps = p->nmaps;
	c->sorted = p->sorted;
	/* symbolizer_fork may have looked the parent up last. */
	s->last = c;
}

void symbolizer_exec(struct symbolizer *s, pid_t pid)
{
	struct space *sp = space_find(s, pid);

	if (!sp)
		return;
	sp->nmaps = 0;
	if (sp->jit) {
		/* The new image's JIT (if any) writes a new map. */
		range_table_clear(&sp->jit->table);
		free(sp->jit);
		sp->jit = NULL;
	}
	space_changed(s, sp);
}

void symbolizer_exit(struct symbolizer *s, pid_t pid)
{
	struct space *sp = space_find(s, pid);

	if (sp)
		sp->exited = true;
}

/* Keeps a forgotten process's JIT map (not its table), the oldest one going past JIT_RETIRED. */
static void retire_jit(struct symbolizer *s, struct jit_map *j)
{
	range_table_clear(&j->table);
	j->mtime = 0;
	j->size = 0;
	j->checked_ns = 0;
	if (s->nretired == JIT_RETIRED) {
		free(s->retired[0]);
		memmove(s->retired, s->retired + 1, (JIT_RETIRED - 1) * sizeof(*s->retired));
		s->nretired--;
	}
	s->retired[s->nretired++] = j;
}

void symbolizer_forget(struct symbolizer *s, pid_t pid)
{
	struct space *sp = space_find(s, pid);

	if (!sp || !sp->exited)
		return;
	if (s->last == sp)
		s->last = NULL;
	HASH_DEL(s->spaces, sp);
	s->nspaces--;
	if (sp->jit) {
		retire_jit(s, sp->jit);
		sp->jit = NULL;
	}
	space_free(sp);
}

/* The functions' index emptied: its keys' files or paths were freed. */
static void forget_functions(struct symbolizer *s)
{
	st_index_free(&s->by_function);
	s->nfunctions = 0;
}

static struct path *path_of(const char *name)
{
	return (struct path *)(void *)(name - offsetof(struct path, name));
}

/* Whether a sweep let go of what was last mapped at sweep `at`. */
static bool stale(const struct symbolizer *s, uint32_t at, bool short_of_memory)
{
	return at != s->sweeps && (short_of_memory || s->sweeps - at >= UNMAPPED_SWEEPS);
}

size_t symbolizer_let_go(struct symbolizer *s, bool short_of_memory)
{
	struct space *sp = NULL, *sp_tmp = NULL;
	struct resolved *v = NULL, *v_tmp = NULL;
	struct file_entry *f = NULL, *f_tmp = NULL;
	struct path *p = NULL, *p_tmp = NULL;
	size_t n = 0, paths = 0;

	s->sweeps++;
	HASH_ITER(hh, s->spaces, sp, sp_tmp) {
		for (size_t i = 0; i < sp->nmaps; i++) {
			path_of(sp->maps[i].path)->mapped_at = s->sweeps;
			if (sp->maps[i].file)
				sp->maps[i].file->mapped_at = s->sweeps;
		}
	}
	HASH_ITER(hh, s->files, f, f_tmp) {
		bool idle;

		/* A table the worker still builds is waited for by nobody: let go later. */
		if (f->file->let_go || !elf_file_table_ready(f->file))
			continue;
		if (stale(s, f->file->mapped_at, short_of_memory)) {
			elf_file_let_go(f->file);
			s->files_let_go++;
			n++;
			continue;
		}
		idle = s->sweeps - f->file->looked_at >= IDLE_SWEEPS;
		/*
		 * Short of memory, a mapped file's unwind rows go once the
		 * kernel has its whole CFI (the walk reads its pages, never the
		 * rows again), or when it is idle: cc1's were 4.3 MB for each
		 * compile of a build.  Read again from the cache if asked.
		 */
		if (short_of_memory && f->file->rows &&
		    (elf_file_walk_pages(f->file) || idle)) {
			unwind_rows_free(f->file->rows);
			f->file->rows = NULL;
			s->rows_dropped++;
		}
		if (short_of_memory && f->file->table_built && idle) {
			/*
			 * Mapped, but no sample asked it for ten seconds (a
			 * daemon's libraries, a test suite's programs): its
			 * table goes, read again from the cache when asked.
			 */
			symbol_table_clear(&f->file->table);
			f->file->table_built = false;
			s->tables_dropped++;
			n++;
		}
	}
	/* Paths no map names, and what they opened to, are found again when mapped. */
	HASH_ITER(hh, s->resolved, v, v_tmp) {
		if ((v->file && v->file->let_go) ||
		    stale(s, path_of(v->key.path)->mapped_at, short_of_memory)) {
			HASH_DEL(s->resolved, v);
			free(v);
		}
	}
	HASH_ITER(hh, s->paths, p, p_tmp) {
		if (stale(s, p->mapped_at, short_of_memory)) {
			HASH_DEL(s->paths, p);
			free(p);
			paths++;
		}
	}
	if (n || paths) {
		/*
		 * The functions' keys are the let-go files' symbols and the
		 * paths' names: their addresses would name others.
		 */
		forget_functions(s);
	}
	return n;
}

bool symbolizer_knows(struct symbolizer *s, pid_t pid)
{
	/* A snapshot's stand-ins name every process's addresses. */
	return s->standins || space_find(s, pid) != NULL;
}

static int map_by_start(const void *a, const void *b)
{
	const struct map *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static struct map *find_map(struct space *sp, uint64_t ip)
{
	size_t lo = 0, hi = sp->nmaps;

	/* A space may hold no maps, nor an array for them (exec, then fork). */
	if (!sp->sorted && sp->nmaps) {
		qsort(sp->maps, sp->nmaps, sizeof(*sp->maps), map_by_start);
		sp->sorted = true;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sp->maps[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && ip < sp->maps[lo - 1].end ? &sp->maps[lo - 1] : NULL;
}

/* The ELF file one identity names, opened once. */
static struct elf_file *file_of(struct symbolizer *s, int fd, const char *path)
{
	struct file_entry *f;
	struct stat st;

	if (fstat(fd, &st) < 0) {
		close(fd);
		return NULL;
	}
	HASH_FIND(hh, s->files, &((struct root_id){ st.st_dev, st.st_ino }),
		  sizeof(struct root_id), f);
	if (f && f->file->let_go) {
		/* Let go while no process mapped it: the same file, read again. */
		elf_file_take_back(f->file, elf_inflation_guard(fd, path), &s->callbacks);
		f->file->mapped_at = s->sweeps;
		s->files_let_go--;
		return f->file;
	}
	if (f) {
		close(fd);
		return f->file;
	}
	f = st_xcalloc(1, sizeof(*f));
	f->id = (struct root_id){ st.st_dev, st.st_ino };
	/* What libelf and libdwfl read: nothing in it inflates past its cap. */
	fd = elf_inflation_guard(fd, path);
	f->file = elf_file_open(fd, path, &s->callbacks);
	f->file->mapped_at = s->sweeps;
	HASH_ADD(hh, s->files, id, sizeof(f->id), f);
	s->nfiles++;
	return f->file;
}

static bool is_deleted(const char *path)
{
	size_t len = strlen(path), tail = sizeof(" (deleted)") - 1;

	return len > tail && !strcmp(path + len - tail, " (deleted)");
}

/*
 * Opens a mapped file as its process sees it: inside its root, a regular
 * file only, never blocking (a FIFO named in a map or a record would
 * hang shimtop).  Without a root, this machine's path.
 */
static struct elf_file *resolve_file(struct symbolizer *s, struct space *sp,
				     struct map *m)
{
	struct resolved *v;
	struct resolved_key key;
	int fd;

	if (m->resolved)
		return m->file;
	if (s->live && is_deleted(m->path)) {
		/* Gone from its directory: the mapping still holds the file. */
		char path[96];

		snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
			 (int)sp->pid, m->start, m->end);
		fd = st_open_untrusted(-1, path, 0);
		m->file = fd >= 0 ? file_of(s, fd, m->path) : NULL;
		m->resolved = true;
		return m->file;
	}
	memset(&key, 0, sizeof(key));
	key.root = sp->root;
	key.path = m->path;
	HASH_FIND(hh, s->resolved, &key, sizeof(key), v);
	if (!v) {
		v = st_xcalloc(1, sizeof(*v));
		v->key = key;
		if (sp->root && sp->root->fd >= 0)
			fd = st_open_untrusted(sp->root->fd, m->path, 0);
		else if (!s->live && recorded_files_active(&s->recorded))
			fd = recorded_file_open(&s->recorded, m->path);
		else
			fd = st_open_untrusted(-1, m->path, 0);
		v->file = fd >= 0 ? file_of(s, fd, m->path) : NULL;
		HASH_ADD(hh, s->resolved, key, sizeof(v->key), v);
	}
	m->file = v->file;
	m->resolved = true;
	return m->file;
}

/*
 * The BPF program whose image holds ip, if any: the programs listed again
 * for an address none holds, at most once a second (they come and go).
 */
static const struct range_entry *bpf_program_at(struct symbolizer *s, uint64_t ip)
{
	const struct range_entry *b = range_table_find(&s->bpf, ip);
	uint64_t now = st_now_ns();

	if (!b && (!s->bpf_listed_ns || now - s->bpf_listed_ns >= 1000000000u)) {
		bpf_symbols_load(&s->bpf);
		s->bpf_listed_ns = now;
		b = range_table_find(&s->bpf, ip);
	}
	return b;
}

/*
 * The trampoline or other code the kernel made that holds ip, past the
 * saved copy's function e: listed again for an address none holds, at
 * most every ten seconds (each listing costs the kernel 75 ms).
 */
static const struct range_entry *made_code_at(struct symbolizer *s, uint64_t ip,
					      const struct range_entry *e)
{
	const struct range_entry *m = range_table_find(&s->made, ip);
	uint64_t now = st_now_ns();

	if ((!m || (e && m->start <= e->start)) &&
	    (!s->made_listed_ns || now - s->made_listed_ns >= 10000000000u)) {
		kernel_symbols_made_at_run_time(&s->made);
		s->made_listed_ns = now;
		m = range_table_find(&s->made, ip);
	}
	return m && (!e || m->start > e->start) ? m : NULL;
}

static const struct st_symbol *resolve_kernel(struct symbolizer *s, uint64_t ip,
					      uint32_t *offset)
{
	const struct range_entry *e;

	if (!s->kernel_loaded) {
		if (s->kernel_reading)
			join_kernel_reader(s);
		else
			kernel_symbols_load(&s->kernel, false);
		s->kernel_loaded = true;
		if (!s->live)
			recorded_kernel_symbols(&s->recorded, &s->kernel);
	}
	e = range_table_find(&s->kernel, ip);
	if (s->kernel.cached && kernel_cache_unsure(&s->kernel, e, ip)) {
		const struct range_entry *b = bpf_program_at(s, ip);

		if (b) {
			*offset = offset_in(b->start, ip);
			return named(intern(s, "[bpf]", b->name, false), NAMED_BY_KERNEL);
		}
		/* Past what the saved copy knows, and no BPF program's: what the kernel made since. */
		b = made_code_at(s, ip, e);
		if (b)
			e = b;
	}
	if (!e)
		return intern(s, "[kernel]", "[unknown]", true);
	*offset = offset_in(e->start, ip);
	if (e->module) {
		char mod[160];

		snprintf(mod, sizeof(mod), "[%s]", e->module);
		/* A recording's module of another build: not this one's names. */
		if (!s->live && recorded_module_foreign(&s->recorded, e->module))
			return intern(s, mod, "[unknown]", true);
		return named(intern(s, mod, e->name, false), NAMED_BY_KERNEL);
	}
	return named(intern(s, "[kernel]", e->name, false), NAMED_BY_KERNEL);
}

static uid_t owner_of(pid_t pid)
{
	char path[64];
	struct stat st;

	/* A process gone (a recording read back): the maps its reader's own, as perf report. */
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	return stat(path, &st) == 0 ? st.st_uid : getuid();
}

/* Code moves under a JIT: once its map is read again, what was cached expires. */
static void jit_moved_on(struct symbolizer *s, struct space *sp)
{
	if (sp->jit->loads != sp->jit_loads) {
		sp->jit_loads = sp->jit->loads;
		sp->gen = s->next_gen++;
		s->jit_loads++;
	}
}

static struct elf_file *vdso_file(struct symbolizer *s);

/*
 * pid's JIT map: its process's (sp, space_find's answer; made if none),
 * or a forgotten process's; NULL if neither.
 */
static struct jit_map *jit_of(struct symbolizer *s, struct space *sp, pid_t pid)
{
	if (sp) {
		if (!sp->jit) {
			sp->jit = st_xmalloc(sizeof(*sp->jit));
			jit_map_init(sp->jit, pid, owner_of(pid));
			if (!sp->jit_listed) {
				ST_GROW(s->jit_pids, s->jit_pids_cap, s->njit_pids + 1);
				s->jit_pids[s->njit_pids++] = pid;
				sp->jit_listed = true;
			}
		}
		return sp->jit;
	}
	for (size_t i = s->nretired; i-- > 0;) {
		struct jit_map *j = s->retired[i];

		if (j->pid != pid)
			continue;
		/* Last, where the next look starts: a pass asks for one process's in a run. */
		memmove(s->retired + i, s->retired + i + 1, (s->nretired - i - 1) * sizeof(*s->retired));
		s->retired[s->nretired - 1] = j;
		return j;
	}
	return NULL;
}

bool symbolizer_jit_mapped(struct symbolizer *s, pid_t pid)
{
	struct jit_map *j = jit_of(s, space_find(s, pid), pid);

	if (!j)
		return false;
	jit_map_refresh(j, s->now_ns ? s->now_ns : st_now_ns());
	return j->table.n > 0;
}

const struct st_symbol *symbolizer_jit_name(struct symbolizer *s, pid_t pid, uint64_t ip,
					    uint32_t *offset)
{
	struct space *sp = space_find(s, pid);
	struct jit_map *j = jit_of(s, sp, pid);
	const struct range_entry *e;
	unsigned loads;

	if (!j)
		return NULL;
	loads = j->loads;
	/* The clock as the pump last read it: one read a pass, not a lookup. */
	jit_map_refresh(j, s->now_ns ? s->now_ns : st_now_ns());
	if (sp)
		jit_moved_on(s, sp);
	else if (j->loads != loads)
		s->jit_loads++;
	if (!(e = range_table_find(&j->table, ip)))
		return NULL;
	*offset = offset_in(e->start, ip);
	return named(intern(s, "[jit]", e->name, false), NAMED_BY_JIT);
}

void symbolizer_jit_recheck(struct symbolizer *s)
{
	for (struct space *sp = s->spaces; sp; sp = sp->hh.next)
		if (sp->jit)
			sp->jit->checked_ns = 0;
	for (size_t i = 0; i < s->nretired; i++)
		s->retired[i]->checked_ns = 0;
}

unsigned symbolizer_jit_loads(const struct symbolizer *s)
{
	return s->jit_loads;
}

bool symbolizer_code_anonymous(struct symbolizer *s, pid_t pid, uint64_t ip)
{
	struct space *sp = space_find(s, pid);
	struct elf_file *f;
	struct map *m;

	/*
	 * Code in a mapping: as perf, a JIT's map names anonymous memory a
	 * mapping record announced, not addresses outside every mapping (a
	 * hostile recording's 100,000 processes would each keep some).
	 */
	if (s->standins || ip >= ST_KERNEL_START || !sp || !(m = find_map(sp, ip)))
		return false;
	if (m->path[0] == '[')
		return false;	/* [vdso], [stack]: named, or not code */
	/* A file's code, unless the file cannot be read ("//anon", a memfd). */
	return m->path[0] != '/' || !(f = resolve_file(s, sp, m)) || !f->mod;
}

uint64_t symbolizer_report_modules(struct symbolizer *s, pid_t pid, Dwfl *dwfl)
{
	const struct elf_file *done[256];
	struct code_map *maps;
	size_t ndone = 0, n;
	uint64_t gen;

	n = symbolizer_code_maps(s, pid, &maps, &gen);
	for (size_t i = 0; i < n; i++) {
		struct code_map *m = &maps[i];
		bool seen = false;
		int fd;

		for (size_t k = 0; k < ndone && !seen; k++)
			seen = done[k] == m->file;
		if (seen || ndone == sizeof(done) / sizeof(done[0]))
			continue;
		done[ndone++] = m->file;
		fd = fcntl(m->file->fd, F_DUPFD_CLOEXEC, 0);
		if (fd < 0)
			continue;
		/* libdwfl takes the descriptor, and the module's addresses are
		 * the process's: p_vaddr plus the mapping's bias. */
		if (!dwfl_report_elf(dwfl, st_basename(m->file->path), m->file->path, fd,
				     m->start - m->vaddr, true))
			close(fd);
	}
	free(maps);
	return gen;
}

size_t symbolizer_code_maps(struct symbolizer *s, pid_t pid, struct code_map **out, uint64_t *gen)
{
	struct space *sp = space_find(s, pid);
	size_t n = 0;

	*out = NULL;
	*gen = sp ? sp->gen : 0;
	if (!sp)
		return 0;
	find_map(sp, 0);	/* sorts */
	*out = st_xcalloc(sp->nmaps ? sp->nmaps : 1, sizeof(**out));
	for (size_t i = 0; i < sp->nmaps; i++) {
		struct map *m = &sp->maps[i];
		struct elf_file *f;
		uint64_t vaddr;

		if (!strcmp(m->path, "[vdso]"))
			f = vdso_file(s);
		else
			f = m->path[0] == '/' ? resolve_file(s, sp, m) : NULL;
		if (!f || !f->mod || f->fd < 0 || elf_file_vaddr(f, m->pgoff, &vaddr) < 0)
			continue;
		(*out)[n++] = (struct code_map){ m->start, m->end, vaddr, f };
	}
	return n;
}

uint64_t symbolizer_generation(struct symbolizer *s, pid_t pid)
{
	struct space *sp = space_find(s, pid);

	return sp ? sp->gen : 0;
}

void symbolizer_expect_build_id(struct symbolizer *s, const char *path,
				 const unsigned char *id, size_t len, bool kernel)
{
	recorded_files_expect(&s->recorded, path, id, len, kernel);
}

void symbolizer_expect_kernel(struct symbolizer *s, const char *osrelease)
{
	recorded_files_expect_kernel(&s->recorded, osrelease);
}

void symbolizer_set_kallsyms(struct symbolizer *s, const char *path)
{
	recorded_files_set_kallsyms(&s->recorded, path);
}

void symbolizer_set_symfs(struct symbolizer *s, const char *dir)
{
	recorded_files_set_symfs(&s->recorded, dir);
}

bool symbolizer_keeps_unknown(const struct symbolizer *s)
{
	return s->now_ns != 0;
}

/* symbols_read_proc_maps callback: where our own vDSO is. */
static void find_vdso(uint64_t start, uint64_t len, uint64_t pgoff,
		      const char *path, void *arg)
{
	uint64_t *range = arg;

	(void)pgoff;
	if (!strcmp(path, "[vdso]")) {
		range[0] = start;
		range[1] = len;
	}
}

/*
 * The vDSO: every process of one kernel maps the same image, so ours
 * (copied to a memory file for libdwfl) names theirs, as perf does.
 */
static struct elf_file *vdso_file(struct symbolizer *s)
{
	uint64_t range[2] = { 0, 0 };
	int fd;

	if (s->vdso_tried)
		return s->vdso;
	s->vdso_tried = true;
	if (symbols_read_proc_maps(getpid(), find_vdso, range) < 0 || !range[1])
		return NULL;
	fd = memfd_create("vdso", MFD_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (write(fd, (const void *)(uintptr_t)range[0], range[1]) != (ssize_t)range[1]) {
		close(fd);
		return NULL;
	}
	s->vdso = elf_file_open(fd, "[vdso]", &s->callbacks);
	return s->vdso;
}

/* e's symbol as module names it, interned once. */
static const struct st_symbol *function_symbol(struct symbolizer *s, struct elf_file *f,
					       const struct elf_symbol *e, const char *module)
{
	uint64_t h = st_index_hash((uintptr_t)e, (uintptr_t)module);
	struct st_index_probe p;
	const struct st_symbol *sym;
	const char *raw = symbol_table_text(&f->table, e->raw);
	char *name;

	for (uint32_t v = st_index_first(&s->by_function, h, &p); v;
	     v = st_index_next(&s->by_function, &p)) {
		const struct function_key *k = &s->functions[v - 1];

		if (k->e == e && k->module == module)
			return k->sym;
	}
	name = elf_symbol_name(f, e);
	sym = named(intern_full(s, module, name, raw ? raw : name,
				symbol_table_text(&f->table, e->aliases), false), e->named_by);
	free(name);
	ST_GROW(s->functions, s->functions_cap, s->nfunctions + 1);
	s->functions[s->nfunctions++] = (struct function_key){ e, module, sym };
	st_index_add(&s->by_function, h, (uint32_t)s->nfunctions);
	return sym;
}

/* The function of f at ip in mapping m, or the file's [unknown]. */
static const struct st_symbol *from_file(struct symbolizer *s, struct elf_file *f,
					 const char *module, const struct map *m,
					 uint64_t ip, uint32_t *offset)
{
	const struct elf_symbol *e;
	uint64_t vaddr;

	f->looked_at = s->sweeps;
	if (elf_file_vaddr(f, ip - m->start + m->pgoff, &vaddr) == 0 &&
	    (e = elf_file_symbol(f, vaddr))) {
		const struct st_symbol *sym = function_symbol(s, f, e, module);
		struct interned *in = interned_of(sym);

		/* The first file that names it is the one annotated (one held). */
		if (!in->file || in->file->let_go) {
			in->file = f;
			in->start = e->start;
			in->end = e->end;
		}
		if (in->file == f && in->start == e->start)
			*offset = offset_in(e->start, vaddr);
		return sym;
	}
	return intern(s, module, "[unknown]", true);
}

/* *anonymous: the answer came from outside any file (JIT or unknown). */
static const struct st_symbol *resolve_user(struct symbolizer *s,
					   struct space *sp, uint64_t ip,
					   bool *anonymous, uint32_t *offset)
{
	struct map *m = find_map(sp, ip);
	const struct st_symbol *jit;

	if (m && !strcmp(m->path, "[vdso]") && vdso_file(s))
		return from_file(s, s->vdso, "[vdso]", m, ip, offset);
	if (m && m->path[0] == '/') {
		struct elf_file *f = resolve_file(s, sp, m);

		if (f && f->mod)
			return from_file(s, f, st_basename(m->path), m, ip, offset);
	}
	if (m && m->path[0] == '[')
		return intern(s, m->path, "[unknown]", true);
	*anonymous = true;
	if ((jit = symbolizer_jit_name(s, sp->pid, ip, offset)))
		return jit;
	/* perf's name for anonymous memory ("//anon" in its MMAP records). */
	return intern(s, m && m->path[0] && strcmp(m->path, "//anon") ? st_basename(m->path)
		      : "[anon]", "[unknown]", true);
}

void symbolizer_add_standin(struct symbolizer *s, const char *module, const char *name,
			    const char *raw, const char *aliases, bool unknown,
			    enum st_named_by by)
{
	ST_GROW(s->standins, s->standins_cap, s->nstandins + 1);
	s->standins[s->nstandins++] = named(intern_full(s, module, name, raw ? raw : name,
							aliases, unknown), by);
}

uint32_t symbolizer_other_id(struct symbolizer *s)
{
	return intern(s, "[other]", "[other functions]", true)->id;
}

uint32_t symbolizer_standin_id(const struct symbolizer *s, uint32_t n)
{
	return n < s->nstandins ? s->standins[n]->id : UINT32_MAX;
}

void symbolizer_standin_stride(struct symbolizer *s, uint32_t stride)
{
	s->standin_stride = stride;
}

void symbolizer_add_standin_code(struct symbolizer *s, uint32_t n, uint64_t start,
				 const uint8_t *bytes, size_t len, bool truncated)
{
	struct standin_code *c;

	if (n >= s->standin_code_cap) {
		size_t was = s->standin_code_cap;

		ST_GROW(s->standin_code, s->standin_code_cap, (size_t)n + 1);
		memset(s->standin_code + was, 0, (s->standin_code_cap - was) * sizeof(*c));
	}
	c = &s->standin_code[n];
	free(c->bytes);
	c->start = start;
	c->len = len;
	c->truncated = truncated;
	c->bytes = st_xmalloc(len ? len : 1);
	memcpy(c->bytes, bytes, len);
}

bool symbolizer_standin_code(const struct symbolizer *s, uint32_t id, struct symbol_code *out)
{
	for (size_t n = 0; n < s->standin_code_cap && n < s->nstandins; n++) {
		const struct standin_code *c = &s->standin_code[n];

		if (c->bytes && s->standins[n]->id == id) {
			out->start = c->start;
			out->len = c->len;
			out->truncated = c->truncated;
			out->bytes = st_xmalloc(c->len ? c->len : 1);
			memcpy(out->bytes, c->bytes, c->len);
			return true;
		}
	}
	return false;
}

/*
 * A snapshot's lookup: its stand-ins, and nothing on this machine.
 * Stand-ins a symbol's code bound apart keep a sample's offset in it;
 * the last byte of each says it had none.
 */
static const struct st_symbol *standin_lookup(struct symbolizer *s, uint64_t ip,
					      uint32_t *offset)
{
	uint32_t stride = s->standin_stride ? s->standin_stride : SYMBOL_STANDIN_STRIDE;
	uint64_t slot = (ip - SYMBOL_STANDIN_BASE) / stride;
	uint64_t at = (ip - SYMBOL_STANDIN_BASE) % stride;
	const struct st_symbol *sym;

	*offset = stride > SYMBOL_STANDIN_STRIDE_V3 && at < stride - 1 ? (uint32_t)at
		  : SYMBOL_NO_OFFSET;
	s->stats.lookups++;
	sym = ip >= SYMBOL_STANDIN_BASE && slot < s->nstandins ? s->standins[slot]
	      : intern(s, "[snapshot]", "[unknown]", true);
	if (sym->unknown)
		s->stats.unknown++;
	return sym;
}

/*
 * debuginfod fetched (or failed to fetch) debug files: the files that
 * waited for one are read again and every cached answer expires, so the
 * next sample in them has the debug file's names.
 */
static void debug_files_arrived(struct symbolizer *s)
{
	struct file_entry *f = NULL, *ftmp = NULL;
	struct space *sp = NULL, *stmp = NULL;
	bool any = false;

	s->debuginfod_seen = debuginfod_finished();
	HASH_ITER(hh, s->files, f, ftmp) {
		if (f->file && f->file->debuginfod_pending &&
		    !debuginfod_pending(f->file->build_id, f->file->build_id_len)) {
			elf_file_reload(f->file, &s->callbacks);
			any = true;
			/* Its functions were freed: their entries would name new ones. */
			forget_functions(s);
		}
	}
	if (!any)
		return;
	HASH_ITER(hh, s->spaces, sp, stmp) {
		sp->gen = s->next_gen++;
	}
}

const struct st_symbol *symbolizer_lookup(struct symbolizer *s, pid_t pid,
					  uint64_t ip, bool kernel)
{
	uint32_t offset;

	return symbolizer_lookup_at(s, pid, ip, kernel, &offset);
}

/* ip's first slot in generation gen. */
static size_t cache_slot_of(const struct symbolizer *s, uint64_t ip, uint64_t gen)
{
	size_t h = (size_t)((ip * 0x9e3779b97f4a7c15ull) >> 48) & (s->cache_slots - 1);

	return (h ^ (size_t)(gen * 0x9e3779b1u)) & (s->cache_slots - 1);
}

void symbolizer_bound_names(struct symbolizer *s, size_t bytes)
{
	s->names_most = bytes;
}

size_t symbolizer_names_most(const struct symbolizer *s)
{
	return s->names_most;
}

void symbolizer_bound(struct symbolizer *s, size_t bytes)
{
	size_t slots = 1u << 12;

	while (slots < CACHE_SLOTS && 2 * slots * sizeof(*s->cache) <= bytes)
		slots *= 2;
	if (slots == s->cache_slots)
		return;
	/* Answers only: the smaller cache starts empty. */
	st_table_free(s->cache, s->cache_slots, sizeof(*s->cache));
	s->cache_slots = slots;
	s->cache = st_table_alloc(slots, sizeof(*s->cache));
}

/*
 * The cache's slot for ip in generation gen, or NULL; *home: where a new
 * answer goes (the first empty slot in the probe window, else home).
 */
static struct cache_slot *cache_find(struct symbolizer *s, uint64_t ip, uint64_t gen,
				     size_t *home)
{
	size_t h = cache_slot_of(s, ip, gen);

	*home = h;
	for (size_t p = 0; p < CACHE_PROBES; p++) {
		struct cache_slot *c = &s->cache[(h + p) & (s->cache_slots - 1)];

		if (c->gen == gen && c->ip == ip)
			return c;
		if (!c->gen) {
			*home = (h + p) & (s->cache_slots - 1);
			break;
		}
	}
	return NULL;
}

const struct st_symbol *symbolizer_lookup_at(struct symbolizer *s, pid_t pid,
					     uint64_t ip, bool kernel,
					     uint32_t *offset)
{
	bool unknown;
	/* First: a new symbol may move s->syms. */
	uint32_t id = symbolizer_lookup_id(s, pid, ip, kernel, offset, &unknown);

	return s->syms[id];
}

uint32_t symbolizer_lookup_id(struct symbolizer *s, pid_t pid, uint64_t ip, bool kernel,
			      uint32_t *offset, bool *unknown)
{
	bool in_kernel = kernel || ip >= ST_KERNEL_START;
	struct space *sp = in_kernel ? NULL : space_of(s, pid);
	uint64_t gen = in_kernel ? KERNEL_GEN : sp->gen;
	const struct st_symbol *sym;
	const struct cache_slot *c;
	bool anonymous = false;
	size_t home;

	if (s->standins) {
		sym = standin_lookup(s, ip, offset);
		*unknown = sym->unknown;
		return sym->id;
	}
	if (debuginfod_finished() != s->debuginfod_seen) {
		debug_files_arrived(s);
		gen = in_kernel ? KERNEL_GEN : sp->gen;
	}
	s->stats.lookups++;
	if ((c = cache_find(s, ip, gen, &home))) {
		*offset = c->offset;
		*unknown = c->unknown;
		s->stats.cache_hits++;
		s->stats.unknown += c->unknown;
		return c->id;
	}
	*offset = SYMBOL_NO_OFFSET;
	sym = in_kernel ? resolve_kernel(s, ip, offset)
			: resolve_user(s, sp, ip, &anonymous, offset);
	/*
	 * Full probe window: overwrite the home slot; it is only a cache.
	 * An unknown address outside files is kept only where the pump
	 * gives the time: then each pump reads changed JIT maps again
	 * (symbolizer_set_time), which moves sp->gen on, and a JIT's new
	 * code is looked up afresh.  Without it, a lookup of such an address
	 * is what reads the map.
	 */
	if (in_kernel || !anonymous || !sym->unknown || s->now_ns)
		s->cache[home] = (struct cache_slot){ ip, in_kernel ? gen : sp->gen, sym->id,
						      *offset, sym->unknown };
	if (sym->unknown)
		s->stats.unknown++;
	*unknown = sym->unknown;
	return sym->id;
}

void symbolizer_prefetch(struct symbolizer *s, pid_t pid, uint64_t ip, bool kernel)
{
	bool in_kernel = kernel || ip >= ST_KERNEL_START;
	const struct space *sp = in_kernel ? NULL : space_find(s, pid);

	if (!s->standins && (in_kernel || sp))
		__builtin_prefetch(&s->cache[cache_slot_of(s, ip, in_kernel ? KERNEL_GEN : sp->gen)]);
}

void symbolizer_set_time(struct symbolizer *s, uint64_t now_ns)
{
	s->now_ns = now_ns;
	/*
	 * The processes whose anonymous code was looked up: a JIT's map, if
	 * changed, a few a call in turn.  Every space at every pump, each map
	 * opened once a second, took a replay of 100,000 processes past two
	 * minutes of CPU.
	 */
	for (size_t k = 0; k < JIT_CHECKS_PER_CALL && s->njit_pids; k++) {
		struct space *sp;

		if (s->jit_next >= s->njit_pids)
			s->jit_next = 0;
		sp = space_find(s, s->jit_pids[s->jit_next]);
		if (!sp || !sp->jit) {	/* gone, or exec'd: its map went with it */
			if (sp)
				sp->jit_listed = false;
			s->jit_pids[s->jit_next] = s->jit_pids[--s->njit_pids];
			continue;
		}
		jit_map_refresh(sp->jit, now_ns);
		jit_moved_on(s, sp);
		s->jit_next++;
	}
}

void symbolizer_set_async(struct symbolizer *s, bool async)
{
	s->async = async;
}

/*
 * Whether /proc/kallsyms has been read: its reading starts on a thread
 * at the first kernel sample that asks (a session with none never pays
 * for it), and is joined once done.
 */
static bool kernel_ready(struct symbolizer *s)
{
	if (s->kernel_loaded)
		return true;
	if (!s->kernel_reading) {
		s->kernel_reading = pthread_create(&s->kernel_reader, NULL, read_kernel_symbols,
						   s) == 0;
		return !s->kernel_reading;	/* else read in place */
	}
	call_kernel_reader_forward(s);
	if (pthread_tryjoin_np(s->kernel_reader, NULL) != 0)
		return false;
	s->kernel_reading = false;
	s->kernel_loaded = true;
	return true;
}

/*
 * Whether the file m maps has its symbol table, or needs none; a table
 * not built is started on the worker.
 */
static bool map_table_ready(struct symbolizer *s, struct space *sp, struct map *m)
{
	struct elf_file *f;

	if (m->path[0] != '/' || !(f = resolve_file(s, sp, m)) || !f->mod || f->table_built)
		return true;
	elf_file_build_async(f, &s->callbacks);
	return elf_file_table_ready(f);
}

bool symbolizer_ready(struct symbolizer *s, pid_t pid, uint64_t ip, bool kernel)
{
	struct space *sp;
	struct map *m;
	size_t home;

	if (!s->async || s->standins)
		return true;
	if (kernel || ip >= ST_KERNEL_START)
		return kernel_ready(s);
	/* A process not known yet: the model holds its samples. */
	if (!(sp = space_find(s, pid)) || cache_find(s, ip, sp->gen, &home))
		return true;
	return !(m = find_map(sp, ip)) || map_table_ready(s, sp, m);
}

bool symbolizer_ready_process(struct symbolizer *s, pid_t pid)
{
	struct space *sp;
	bool ready = true;

	if (!s->async || s->standins || !(sp = space_find(s, pid)) || sp->tables_gen == sp->gen)
		return true;
	for (size_t i = 0; i < sp->nmaps; i++)
		ready = map_table_ready(s, sp, &sp->maps[i]) && ready;
	if (ready)
		sp->tables_gen = sp->gen;
	return ready;
}

struct elf_file *symbolizer_code_of(const struct symbolizer *s, uint32_t id,
				    uint64_t *start, uint64_t *end)
{
	const struct interned *in;

	if (id >= s->nsyms)
		return NULL;
	in = interned_of(s->syms[id]);
	*start = in->start;
	*end = in->end;
	return in->file;
}

size_t symbolizer_each_file(const struct symbolizer *s, symbolizer_file_fn fn, void *arg)
{
	size_t n = 0;

	for (const struct file_entry *f = s->files; f; f = f->hh.next) {
		const unsigned char *bits = NULL;
		GElf_Addr vaddr;
		char hex[2 * 64 + 1] = "";
		int len = f->file->mod ? dwfl_module_build_id(f->file->mod, &bits, &vaddr) : 0;

		for (int i = 0; bits && i < len && i < 64; i++)
			snprintf(hex + 2 * i, sizeof(hex) - 2 * (size_t)i, "%02x", bits[i]);
		fn(f->file->path, hex, arg);
		n++;
	}
	return n;
}

size_t symbolizer_count(const struct symbolizer *s)
{
	return s->nsyms;
}

const struct st_symbol *symbolizer_symbol(const struct symbolizer *s,
					  uint32_t id)
{
	return id < s->nsyms ? s->syms[id] : NULL;
}

void symbolizer_stats(const struct symbolizer *s, struct symbolizer_stats *out)
{
	*out = s->stats;
	out->spaces = s->nspaces;
	out->files = s->nfiles;
	out->files_let_go = s->files_let_go;
	out->tables_dropped = s->tables_dropped;
	out->rows_dropped = s->rows_dropped;
}

/* Every line of /proc/PID/maps, or (code_only) the ones symbols need. */
static int read_maps(pid_t pid, bool code_only, map_fn fn, void *arg)
{
	char path[64], line[4096];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		uint64_t start, end, pgoff;
		char perms[8];
		int name_at = 0;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %n",
			   &start, &end, perms, &pgoff, &name_at) < 4 || !name_at ||
		    end < start)
			continue;
		line[strcspn(line, "\n")] = '\0';
		/* File-backed mappings of every permission: libdwfl needs the
		 * lowest one of each file to place it. */
		if (code_only && line[name_at] != '/' && perms[2] != 'x')
			continue;
		fn(start, end - start, pgoff, line + name_at, arg);
	}
	fclose(f);
	return 0;
}

int symbols_read_proc_maps(pid_t pid, map_fn fn, void *arg)
{
	return read_maps(pid, true, fn, arg);
}

struct containing {
	uint64_t addr, start, end;
};

static void find_containing(uint64_t start, uint64_t len, uint64_t pgoff,
			    const char *path, void *arg)
{
	struct containing *c = arg;

	(void)pgoff;
	(void)path;
	if (c->addr >= start && c->addr - start < len) {
		c->start = start;
		c->end = start + len;
	}
}

int symbols_mapping_of(pid_t pid, uint64_t addr, uint64_t *start, uint64_t *end)
{
	struct containing c = { addr, 0, 0 };
	int rc = read_maps(pid, false, find_containing, &c);

	if (rc < 0)
		return rc;
	if (c.end <= c.start)
		return -ENOENT;
	*start = c.start;
	*end = c.end;
	return 0;
}

const char *st_named_by_word(enum st_named_by by)
{
	static const char *const words[] = {
		[NAMED_BY_NONE] = "-", [NAMED_BY_SYMTAB] = "symtab",
		[NAMED_BY_DEBUG_FILE] = "debug", [NAMED_BY_DEBUGINFOD] = "debuginfod",
		[NAMED_BY_MINIDEBUGINFO] = "minidebug", [NAMED_BY_EH_FRAME] = "eh_frame",
		[NAMED_BY_JIT] = "jit", [NAMED_BY_KERNEL] = "kallsyms",
	};

	return (unsigned)by < sizeof(words) / sizeof(words[0]) ? words[by] : "-";
}

const char *st_named_by_text(enum st_named_by by)
{
	switch (by) {
	case NAMED_BY_SYMTAB:
		return "the file's own symbol table";
	case NAMED_BY_DEBUG_FILE:
		return "its separate debug file in /usr/lib/debug";
	case NAMED_BY_DEBUGINFOD:
		return "a debug file from debuginfod (DEBUGINFOD_URLS)";
	case NAMED_BY_MINIDEBUGINFO:
		return "the file's MiniDebugInfo (.gnu_debugdata)";
	case NAMED_BY_EH_FRAME:
		return "no symbol: its bounds from .eh_frame (a debug file would name it)";
	case NAMED_BY_JIT:
		return "the JIT's /tmp/perf-PID.map";
	case NAMED_BY_KERNEL:
		return "/proc/kallsyms";
	case NAMED_BY_NONE:
	default:
		return "nothing";
	}
}
