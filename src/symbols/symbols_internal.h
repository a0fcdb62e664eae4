/*
 * symbols_internal.h - sorted address-range tables shared by the kernel
 * (kallsyms) and JIT (perf map) symbol sources.
 */
#ifndef SHIMTOP_SYMBOLS_INTERNAL_H
#define SHIMTOP_SYMBOLS_INTERNAL_H

#include "symbols/symbols.h"

#include <elfutils/libdwfl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

struct range_entry {
	uint64_t start;
	uint64_t end;		/* exclusive */
	char *name;
	char *module;		/* NULL: the table's default module */
};

struct kernel_disk_entry;

struct range_table {
	struct range_entry *v;
	size_t n, cap;
	char *text;		/* non-NULL: every name points into it (kallsyms) */
	size_t text_size;	/* text's mapping */
	bool borrowed;		/* the names point into memory another owns */
	bool cached;		/* kallsyms: from this boot's saved copy */
	uint64_t static_end;	/* kallsyms: where the kernel's last function starts */
	/*
	 * kallsyms' saved copy, read where it lies (v NULL): its n entries
	 * and names in the mapping.  range_table_find's answer is made in
	 * found, good until the next find.
	 */
	const struct kernel_disk_entry *disk;
	const char *names;
	size_t names_len;
	struct range_entry found;
	size_t found_at;
};

void range_table_add(struct range_table *t, uint64_t start, uint64_t end,
		     const char *name, const char *module);
/* Sorts; entries without a size end where the next begins. */
void range_table_finish(struct range_table *t);
const struct range_entry *range_table_find(const struct range_table *t,
					   uint64_t addr);
void range_table_clear(struct range_table *t);
/* Entry i (< t->n) of either kind of table into *out. */
void range_table_entry(const struct range_table *t, size_t i, struct range_entry *out);

/*
 * The kernel's functions: this boot's saved copy where there is one
 * (t->cached), else /proc/kallsyms, saved; an empty table when
 * unreadable or hidden (all zero).  fresh: /proc/kallsyms in any case.
 */
void kernel_symbols_load(struct range_table *t, bool fresh);
/* kallsyms' functions in modules made at run time (kernel_made_at_run_time) into t. */
void kernel_symbols_made_at_run_time(struct range_table *t);
/* bpf, __builtin__ftrace and the like: code the kernel made, never saved. */
bool kernel_made_at_run_time(const char *module);
/* Reads fd (closed after) into text, at most size - 1 bytes, NUL after them: how many. */
size_t kallsyms_read_fd(int fd, char *text, size_t size);
/* kallsyms' text (len bytes, NUL after them, any content), parsed in place. */
void kernel_symbols_parse(struct range_table *t, char *text, size_t len);

/*
 * cache_dir.c: the cache directory, opened and checked (ours, nobody else
 * may write), or -1; a file in it, checked the same (size at most max), or
 * -1.  A file is written under a fresh name and renamed (cache_out).
 */
int cache_dir_open(bool create);
int cache_file_open(int dir, const char *name, uint64_t max, uint64_t *size);
/*
 * A cache file's bytes made in parts: kept whole in memory (the copy's
 * bytes, for a test or a fuzzer), or written to the file through a small
 * buffer, so that no whole copy of a 5 MB table is ever fresh memory
 * (each 4 KiB page of it a fault: on a VM, a tenth of a cold session).
 */
struct cache_out {
	int fd;			/* -1: kept in buf whole */
	bool failed;
	unsigned char *buf;
	size_t used, cap;	/* in buf */
	size_t len;		/* put in all */
	char tmp[192];		/* the file's temporary name, renamed at the end */
};
void cache_out_memory(struct cache_out *o);
/* dir's file name begun (a fresh name beside it); false if it cannot be. */
bool cache_out_begin(struct cache_out *o, int dir, const char *name);
void cache_out_put(struct cache_out *o, const void *p, size_t n);
void cache_out_zeros(struct cache_out *o, size_t n);
/* In memory: the bytes (*out, the caller's) and their count, 0 if failed. */
size_t cache_out_bytes(struct cache_out *o, unsigned char **out);
/* To a file: put in place of name if all was written, else removed; whether it was. */
bool cache_out_end(struct cache_out *o, int dir, const char *name);
/* PREFIX and id (id_len bytes) in hex into name: a copy's name, by the file's build-id. */
void cache_file_name(char *name, size_t len, const char *prefix, const unsigned char *id,
		     size_t id_len);
/* The same file mapped read-only (*size its length, munmap when done), or NULL. */
const void *cache_file_map(int dir, const char *name, uint64_t max, size_t *size);

/* symbols_kernel_cache.c: the copy saved once a boot. */
bool kernel_cache_key(char *key, size_t len);
/* This boot's copy (key) into t, read where it lies (mapped, t->cached): false if none. */
bool kernel_cache_read(const char *key, struct range_table *t);
/* A copy's bytes, checked, into t: names point into buf, which the caller keeps. */
bool kernel_cache_from_bytes(struct range_table *t, const char *key, const void *buf, size_t len);
void kernel_cache_write(const char *key, const struct range_table *t);
/* range_table_find and range_table_entry of a copy read where it lies (t->disk). */
const struct range_entry *kernel_cache_find(const struct range_table *t, uint64_t addr);
void kernel_cache_entry(const struct range_table *t, size_t i, struct range_entry *out);
/* Whether a saved copy's answer e for addr may be wrong (read afresh). */
bool kernel_cache_unsure(const struct range_table *t, const struct range_entry *e,
			 uint64_t addr);

/*
 * The kernel's BPF programs' JIT images, from the bpf system call (root's,
 * or CAP_SYS_ADMIN's; none otherwise), named as /proc/kallsyms names them.
 */
void bpf_symbols_load(struct range_table *t);

/*
 * /tmp/perf-PID.map, reloaded when it changes.  The target writes it, so
 * it is read only if it is a regular file (no FIFO, no symbolic link)
 * owned by the target's user or root, and at most JIT_MAP_MAX bytes.
 */
#define JIT_MAP_MAX	(64u << 20)
struct jit_map {
	struct range_table table;
	pid_t pid;
	char path[64];
	uid_t owner;		/* the target's user */
	time_t mtime;
	off_t size;
	uint64_t checked_ns;
	unsigned loads;		/* times (re)loaded: cached answers expire */
};
void jit_map_init(struct jit_map *j, pid_t pid, uid_t owner);
/*
 * Reloads if the file changed, at most once a second of now
 * (CLOCK_MONOTONIC ns); 0 if present.
 */
int jit_map_refresh(struct jit_map *j, uint64_t now);
/* Parses a map's text (len bytes, any content) into the table. */
void jit_map_parse(struct range_table *t, const char *text, size_t len);

#define SYMBOL_NO_NAME	UINT32_MAX

/*
 * One function of an ELF file, named as perf names it.  No pointers: a
 * table read from the cache is these where the file is mapped (file
 * pages, not the session's memory).
 */
struct elf_symbol {
	uint64_t start, end;	/* module addresses, end exclusive */
	uint32_t raw;		/* its name as in the symbol table, in the table's names */
	uint32_t aliases;	/* other names at start, ", "-separated, there; or SYMBOL_NO_NAME */
	uint8_t from_cfi;	/* no symbol: bounds from .eh_frame (symbols_cfi.c) */
	uint8_t named_by;	/* enum st_named_by */
	uint8_t pad[6];
};

/* A file's functions sorted by address, one entry per address. */
struct symbol_table {
	struct elf_symbol *v;
	size_t n;
	char *names;		/* every entry's raw name and aliases, NUL-ended */
	size_t names_len;
	/*
	 * Read from the cache: v and names lie in this one block, a
	 * mapping block_map long (munmap), or malloc's if 0; NULL: v and
	 * names are each their own allocation (a table built).
	 */
	void *block;
	size_t block_map;
	/*
	 * Big tables: pages[p] is the first entry starting at or past
	 * v[0].start + (p << page_shift), so a search looks between two
	 * of them, not over libLLVM's 250,000 (NULL: a plain search).
	 */
	uint32_t *pages;
	size_t npages;
	unsigned page_shift;
};

/* One of t's names (an entry's raw or aliases), or NULL for SYMBOL_NO_NAME. */
static inline const char *symbol_table_text(const struct symbol_table *t, uint32_t off)
{
	return off == SYMBOL_NO_NAME ? NULL : t->names + off;
}

/* A function symbol before aliases are merged. */
struct symbol_candidate {
	uint64_t start, size;
	const char *raw;
	bool typed, weak, global;
	uint8_t named_by;	/* enum st_named_by */
};

/*
 * Whether a names an address better than b, by perf's rule: a symbol
 * with a size, a typed one over an untyped one, non-weak over weak, a
 * default or no symbol version over an old one (name@VERSION),
 * global over local, fewer leading underscores, then the longer name.
 */
bool symbol_preferred(const struct symbol_candidate *a,
		      const struct symbol_candidate *b);
/*
 * Functions from mod's symbol table, and PLT stubs from elf (the file's
 * own) when given; symbols from another ELF (its debug file or
 * MiniDebugInfo) are named_by elsewhere_by.
 */
void symbol_table_build(struct symbol_table *t, Dwfl_Module *mod, Elf *elf,
			uint64_t bias, uint8_t elsewhere_by);
/*
 * The functions .eh_frame describes that no entry of named covers, as
 * nameless entries (from_cfi; symbols_cfi.c); their count, *out
 * allocated (NULL when none).
 */
size_t cfi_functions(Elf *elf, uint64_t bias, const struct symbol_table *named,
		     struct elf_symbol **out);
/* fn(start, end, arg) for each FDE of elf's .eh_frame, file addresses, end exclusive. */
/* An FDE's program: its CIE and its own instructions, where they lie in the section. */
struct cfi_program {
	uint64_t cie;		/* the CIE's offset in the section */
	const uint8_t *insns;	/* NULL where not read */
	size_t len;
};
typedef void (*cfi_fde_fn)(uint64_t start, uint64_t end, const struct cfi_program *prog,
			   void *arg);
void cfi_each_fde(Elf *elf, cfi_fde_fn fn, void *arg);
const struct elf_symbol *symbol_table_find(const struct symbol_table *t, uint64_t addr);
/* The same, for addresses mostly in order: *cursor (0 at first) carries where the last was. */
const struct elf_symbol *symbol_table_find_next(const struct symbol_table *t, uint64_t addr,
					  size_t *cursor);
/* The pages of a big sorted table (symbol_table_build's last step). */
void symbol_table_make_pages(struct symbol_table *t);
void symbol_table_clear(struct symbol_table *t);

/*
 * A symbol table's copy on disk (symbols_table_cache.c), by the file's
 * build-id and what else the table was built from.
 */
#define SYMBOL_TABLE_ID_MAX	64u
#define SYMBOL_TABLE_CACHED_FROM	2048u	/* entries: smaller tables are built each time */
struct symbol_table_key {
	uint64_t bias;
	int64_t symbols;	/* the module's symbol table's count (a debug file's, if found) */
	uint32_t named_by;	/* how its debug file was found */
	uint32_t pad;
};
bool symbol_table_cache_load(struct symbol_table *t, const unsigned char *id, size_t id_len,
			     const struct symbol_table_key *key);
/* Whether a copy of t was written. */
bool symbol_table_cache_save(const struct symbol_table *t, const unsigned char *id,
			     size_t id_len, const struct symbol_table_key *key);
/* t as bytes (*out allocated): their length, 0 if it has no copy. */
size_t symbol_table_to_bytes(const struct symbol_table *t, const unsigned char *id,
			     size_t id_len, const struct symbol_table_key *key,
			     unsigned char **out);
/*
 * The table in buf (len bytes), checked whole, into t: false, t
 * untouched, if it is not this file's under key or not sound.  On true
 * t owns buf, its entries and names in it: buf_map non-zero, a mapping
 * that long (munmap), else free()'s.  buf is 8-byte aligned.
 */
bool symbol_table_from_bytes(struct symbol_table *t, const unsigned char *id, size_t id_len,
			     const struct symbol_table_key *key, const unsigned char *buf,
			     size_t len, size_t buf_map);

struct unwind_rows;

/*
 * One ELF file's symbols, shared by every process that maps it (one
 * libdwfl module at the file's own addresses).
 */
struct unwind_pages;
struct elf_load {
	uint64_t offset, size, vaddr;	/* a PT_LOAD segment */
};
struct elf_file {
	char *path;
	Dwfl *dwfl;
	Dwfl_Module *mod;		/* NULL: not ELF or unreadable */
	uint64_t bias;
	struct elf_load *loads;
	size_t nloads;
	struct symbol_table table;	/* built on the first lookup */
	bool table_built;
	struct table_job *job;		/* its table being built by the worker */
	int fd;				/* a copy of the descriptor, for unwinders */
	struct unwind_rows *rows;	/* its CFI as the unwinder applies it, made on first use */
	uint32_t taught_as;		/* its number in the unwinder's lessons (0: none yet) */
	bool taught_known;		/* what its rows knew at its first lesson was taught */
	bool pages_asked;		/* its whole CFI is being compiled for the teacher */
	/*
	 * Its whole CFI as pages, for walks here: read from the cache when
	 * asked for, or compiled on the pages' worker, and given to the
	 * teacher there; pages_refused: it could not take them, and walks go
	 * by rows again (which teach it row by row).  While pages_giving the
	 * worker still reads them: not freed.
	 */
	_Atomic(struct unwind_pages *) pages;
	atomic_bool pages_refused, pages_giving;
	char name[320];			/* symbolizer_name_in_file's last answer */
	uint8_t debug_named_by;		/* how its debug file was found, if one was */
	bool debuginfod_pending;	/* a fetch of its debug file is under way */
	unsigned char build_id[64];	/* as the file says (debuginfod_pending) */
	int build_id_len;
	uint32_t mapped_at;		/* the symbolizer's last sweep that found it mapped */
	uint32_t looked_at;		/* the last sweep a look-up used its table */
	bool let_go;			/* elf_file_let_go: nothing held until taken back */
};
/* libdwfl's find_debuginfo callback: this machine's /usr/lib/debug only. */
int elf_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
		       Dwarf_Addr base, const char *file_name,
		       const char *debuglink, GElf_Word crc, char **found);
/*
 * Reads the file again with the debug file debuginfod fetched for it
 * (after debuginfod_finished moved on): same struct, new names.
 */
void elf_file_reload(struct elf_file *f, const Dwfl_Callbacks *callbacks);

/* symbols_debuginfod.c: whether DEBUGINFOD_URLS names a server. */
#define DEBUGINFOD_ID_MAX	64
bool debuginfod_enabled(void);
/*
 * The debug file for build ID id (len bytes), opened, and its path
 * (allocated) in *path; -1 when there is none, or none yet: *pending
 * when a fetch is queued or under way (and the session does not wait).
 */
int debuginfod_debug_file(const unsigned char *id, int len, const char *module,
			  bool *pending, char **path);
bool debuginfod_pending(const unsigned char *id, int len);
/* How many fetches have finished, found or not: files to read again. */
unsigned debuginfod_finished(void);

/* Takes fd (an opened regular file); never NULL. */
struct elf_file *elf_file_open(int fd, const char *path,
			       const Dwfl_Callbacks *callbacks);
/* The module address for a file offset; -ENOENT outside every segment. */
int elf_file_vaddr(const struct elf_file *f, uint64_t offset, uint64_t *vaddr);
/* The function at a module address, or NULL. */
const struct elf_symbol *elf_file_symbol(struct elf_file *f, uint64_t vaddr);
/*
 * Its name, allocated (free it): the symbol's demangled, or for a
 * function only .eh_frame bounds MODULE+0xSTART (its module address).
 * Asked once a function (the symbolizer interns it): libLLVM has
 * 45,000 names, a session samples a few thousand.
 */
char *elf_symbol_name(const struct elf_file *f, const struct elf_symbol *e);
void elf_file_close(struct elf_file *f);

/* f's pages for a walk here: NULL before they come, or when the teacher refused them. */
static inline const struct unwind_pages *elf_file_walk_pages(struct elf_file *f)
{
	if (atomic_load_explicit(&f->pages_refused, memory_order_acquire))
		return NULL;
	return atomic_load_explicit(&f->pages, memory_order_acquire);
}
/* What f holds goes; the struct stays, every address unknown. */
void elf_file_let_go(struct elf_file *f);
/* A let-go file read again from fd (the same file: its identity matched). */
void elf_file_take_back(struct elf_file *f, int fd, const Dwfl_Callbacks *callbacks);

/*
 * symbols_table_job.c: f's table built by a worker thread (a file not
 * built yet, and not being built); elf_file_table_ready says whether it
 * is done, and takes it.  elf_file_symbol, reload and close wait for it
 * (elf_file_settle).
 */
void elf_file_build_async(struct elf_file *f, const Dwfl_Callbacks *callbacks);
bool elf_file_table_ready(struct elf_file *f);
void elf_file_settle(struct elf_file *f);

/*
 * Reports pid's ELF files to dwfl at the process's addresses (an
 * unwinder's modules).  Returns the map generation they reflect (it
 * changes when the process maps or unmaps code), 0 if pid is unknown.
 */
struct symbolizer;
uint64_t symbolizer_report_modules(struct symbolizer *s, pid_t pid, Dwfl *dwfl);

/*
 * pid's mappings of ELF files, sorted, in *out (allocated): a file
 * address is pc - start + vaddr.  *gen: the map generation they reflect.
 */
struct code_map {
	uint64_t start, end, vaddr;
	struct elf_file *file;
};
size_t symbolizer_code_maps(struct symbolizer *s, pid_t pid, struct code_map **out,
			    uint64_t *gen);

/* The file symbol id was found in and its module addresses, or NULL. */
struct elf_file *symbolizer_code_of(const struct symbolizer *s, uint32_t id,
				    uint64_t *start, uint64_t *end);

/*
 * The files a recording names (symbols_recorded.c): by the build-ids it
 * lists, under --symfs, or from perf's build-id cache.
 */
#define RECORDED_IDS_MAX	65536u
struct recorded_id;
struct recorded_module;
struct recorded_files {
	struct recorded_id *ids;	/* by path */
	size_t nids;
	char *symfs;
	unsigned char kernel_id[20];	/* [kernel.kallsyms]'s or vmlinux's, if listed */
	size_t kernel_id_len;
	bool perf_data;			/* a perf.data's: its kernel is checked */
	char osrelease[128];		/* its kernel's uname -r, if it says */
	char *kallsyms;			/* --kallsyms FILE */
	struct recorded_module *modules;	/* modules' build-ids, by name */
	size_t nmodules, modules_cap;
	bool kernel_foreign;		/* its kernel is not this one: unnamed */
};
/* kernel: perf's cpumode says the kernel's (vmlinux, [kernel.kallsyms], a module). */
void recorded_files_expect(struct recorded_files *r, const char *path,
			   const unsigned char *id, size_t len, bool kernel);
/* A perf.data's kernel release (NULL: it names none): its kernel is checked. */
void recorded_files_expect_kernel(struct recorded_files *r, const char *osrelease);
void recorded_files_set_kallsyms(struct recorded_files *r, const char *path);
/* Whether module (kallsyms' name) was recorded as another build than this machine's. */
bool recorded_module_foreign(struct recorded_files *r, const char *module);
void recorded_files_set_symfs(struct recorded_files *r, const char *dir);
bool recorded_files_active(const struct recorded_files *r);
/* The file for path as the recording knew it: a descriptor, or -1 (said once why). */
int recorded_file_open(struct recorded_files *r, const char *path);
/*
 * Once t holds this machine's kernel functions: --kallsyms FILE's in
 * their place; else, for a perf.data whose kernel is not this one (its
 * build-id, else its release), perf record's saved copy of that kernel's
 * kallsyms (perf's build-id cache), or empty: its kernel addresses
 * unnamed, said once why and what to give.  A file that names no kernel
 * keeps this one's, as perf report does.
 */
void recorded_kernel_symbols(struct recorded_files *r, struct range_table *t);
void recorded_files_free(struct recorded_files *r);

/* Whether the ELF file in fd has build-id id (n bytes; n <= 0: has none). */
bool elf_fd_has_build_id(int fd, const unsigned char *id, int n);

#endif
