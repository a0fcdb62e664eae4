/*
 * symbols.h - addresses to function names: libdwfl for executables and
 * shared libraries (opened through /proc/PID/root, so containers work),
 * /proc/kallsyms for the kernel, /tmp/perf-PID.map for JIT code.  Every
 * answer is an interned symbol with a stable pointer; an address nothing
 * explains is an "[unknown]" symbol of its module, never dropped.
 */
#ifndef SHIMTOP_SYMBOLS_H
#define SHIMTOP_SYMBOLS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* What gave a symbol its name (the drill-down and the NAMED BY column say). */
enum st_named_by {
	NAMED_BY_NONE,		/* [unknown], a snapshot's stand-in */
	NAMED_BY_SYMTAB,	/* the file's own symbol table (.symtab, .dynsym, PLT) */
	NAMED_BY_DEBUG_FILE,	/* a separate debug file in /usr/lib/debug */
	NAMED_BY_DEBUGINFOD,	/* a debug file a debuginfod server sent */
	NAMED_BY_MINIDEBUGINFO,	/* the file's .gnu_debugdata (MiniDebugInfo) */
	NAMED_BY_EH_FRAME,	/* no name: a function's bounds from .eh_frame */
	NAMED_BY_JIT,		/* /tmp/perf-PID.map */
	NAMED_BY_KERNEL,	/* /proc/kallsyms */
};
/* A word for it ("symtab", "debuginfod", ".eh_frame"), and a sentence. */
const char *st_named_by_word(enum st_named_by by);
const char *st_named_by_text(enum st_named_by by);

struct st_symbol {
	uint32_t id;		/* dense, from 0: index for per-symbol arrays */
	bool unknown;		/* no symbol explains the address */
	uint8_t named_by;	/* enum st_named_by, as first named */
	const char *name;	/* demangled, as perf shows it */
	const char *module;	/* file name, "[kernel]", "[jit]", "[anon]" */
	const char *raw;	/* as the symbol table spells it (mangled) */
	const char *aliases;	/* other names of the address, or NULL */
};

struct symbolizer_stats {
	uint64_t lookups;
	uint64_t cache_hits;
	uint64_t unknown;
	uint64_t spaces;	/* processes known now */
	uint64_t files;		/* ELF files opened (shared by processes) */
	uint64_t files_let_go;	/* of those, let go: no process maps them (symbolizer_let_go) */
	uint64_t tables_dropped;	/* mapped files' tables dropped, idle under --memory */
	uint64_t rows_dropped;		/* and their unwind rows, idle or in the kernel's pages */
	uint64_t names_folded;		/* functions named by their module alone (bound_names) */
};

struct symbolizer;

/*
 * live: open binaries through /proc/PID/root (a process in a container
 * sees its own files); otherwise (replay) by their paths on this machine.
 */
struct symbolizer *symbolizer_create(bool live);
void symbolizer_destroy(struct symbolizer *s);

/* An executable mapping appeared in pid (at attach, or an MMAP2 record). */
void symbolizer_add_map(struct symbolizer *s, pid_t pid, uint64_t start,
			uint64_t len, uint64_t pgoff, const char *path);

/* A process forked: the child starts with a copy of the parent's map. */
void symbolizer_fork(struct symbolizer *s, pid_t parent, pid_t child);

/* A process exec'd: its mappings are replaced by the new image's. */
void symbolizer_exec(struct symbolizer *s, pid_t pid);

/*
 * A process exited: its map is kept until symbolizer_forget (samples
 * drained after its exit record still resolve), and dropped at once if
 * its id comes round in a fork.
 */
void symbolizer_exit(struct symbolizer *s, pid_t pid);
/* Frees an exited process's state; nothing if it is alive again. */
void symbolizer_forget(struct symbolizer *s, pid_t pid);
/*
 * A sweep, once a second: the ELF files and paths no known process has
 * mapped for 30 sweeps (at once when short_of_memory) are let go, their
 * symbols and CFI freed; a file mapped again is read again.  When
 * short_of_memory, a mapped file's symbol table no look-up used for 10
 * sweeps is dropped too, built again when asked.  Returns how many files
 * went or dropped their tables.
 */
size_t symbolizer_let_go(struct symbolizer *s, bool short_of_memory);
/* The address cache in at most bytes (--memory), before the first look-up. */
void symbolizer_bound(struct symbolizer *s, size_t bytes);
/*
 * Names in at most about bytes, with their rows (--memory): a function
 * first seen past it is counted as its module's SYMBOL_PAST_MEMORY,
 * never dropped (symbolizer_stats' names_folded counts them).
 */
#define SYMBOL_PAST_MEMORY "[functions past --memory]"
void symbolizer_bound_names(struct symbolizer *s, size_t bytes);
size_t symbolizer_names_most(const struct symbolizer *s);
/* Whether pid has a map (from attach, MMAP or FORK records). */
bool symbolizer_knows(struct symbolizer *s, pid_t pid);

/* The symbol for ip in pid; kernel: the sample was in kernel mode. */
const struct st_symbol *symbolizer_lookup(struct symbolizer *s, pid_t pid,
					  uint64_t ip, bool kernel);

/*
 * Snapshots: a symbol per stand-in address, given in the order of their
 * ids (the n-th at SYMBOL_STANDIN_BASE + n * SYMBOL_STANDIN_STRIDE), so a
 * snapshot's samples resolve to the names they had without the files.
 * A sample's offset into its function is its address's into the stand-in
 * (the stand-in's last byte: none); snapshots of version 3 and before
 * put their stand-ins 16 bytes apart, offsets left out.
 * Once one is added, every lookup goes through them; other addresses
 * are unknown.
 */
#define SYMBOL_STANDIN_BASE	0x100000000000ull
#define SYMBOL_STANDIN_STRIDE	(1u << 20)	/* SYMBOL_CODE_MAX: an offset fits */
#define SYMBOL_STANDIN_STRIDE_V3	16u
void symbolizer_add_standin(struct symbolizer *s, const char *module, const char *name,
			    const char *raw, const char *aliases, bool unknown,
			    enum st_named_by by);
/* The layout a snapshot's stand-ins have (SYMBOL_STANDIN_STRIDE unless said). */
void symbolizer_standin_stride(struct symbolizer *s, uint32_t stride);

/* The id the n-th stand-in has here, or UINT32_MAX past the last. */
uint32_t symbolizer_standin_id(const struct symbolizer *s, uint32_t n);
/*
 * The id of "[other functions]": where the model counts samples whose
 * own row a bound left out (exited processes' rows past --memory's).
 */
uint32_t symbolizer_other_id(struct symbolizer *s);

/* Where a sample at offset into stand-in n is (SYMBOL_NO_OFFSET: none known). */
static inline uint64_t symbol_standin_address_at(uint32_t n, uint32_t offset)
{
	return SYMBOL_STANDIN_BASE + (uint64_t)n * SYMBOL_STANDIN_STRIDE +
	       (offset < SYMBOL_STANDIN_STRIDE - 1 ? offset : SYMBOL_STANDIN_STRIDE - 1);
}

static inline uint64_t symbol_standin_address(uint32_t n)
{
	return SYMBOL_STANDIN_BASE + (uint64_t)n * SYMBOL_STANDIN_STRIDE;
}

/* An address's place in its symbol: bytes from the symbol's start. */
#define SYMBOL_NO_OFFSET	UINT32_MAX	/* the address has none */

/* symbolizer_lookup, and how far into the symbol ip lies. */
const struct st_symbol *symbolizer_lookup_at(struct symbolizer *s, pid_t pid,
					     uint64_t ip, bool kernel,
					     uint32_t *offset);
/*
 * symbolizer_lookup_at's symbol as its id (st_symbol.id, for
 * symbolizer_symbol) and whether it is unknown, from the cache without
 * reading the symbol: a large program's symbols are spread over memory,
 * and a sample needs only these.
 */
uint32_t symbolizer_lookup_id(struct symbolizer *s, pid_t pid, uint64_t ip, bool kernel,
			      uint32_t *offset, bool *unknown);

/*
 * The time (CLOCK_MONOTONIC ns) lookups take as now, for a JIT map's
 * freshness (reloaded at most once a second): a session sets it once a
 * pump, so a lookup reads no clock, and the JIT maps of processes with
 * anonymous code are read again here when they changed, so unknown
 * anonymous addresses can be cached too.  0 (the start): each lookup of
 * such an address reads the clock and the map.
 */
void symbolizer_set_time(struct symbolizer *s, uint64_t now_ns);
/*
 * Waits for every table and the kernel's functions being read on other
 * threads: after it, a copy of the process (fork) looks names up alone.
 */
void symbolizer_settle(struct symbolizer *s);

/*
 * A lookup of ip to come: its cache slot is fetched into the CPU's
 * cache now, so the lookup does not wait for memory (a large program's
 * addresses outgrow the CPU's caches).  Changes nothing.
 */
void symbolizer_prefetch(struct symbolizer *s, pid_t pid, uint64_t ip, bool kernel);

/*
 * What the answers for pid's addresses depend on, as one number: it
 * moves on when the process maps or unmaps code, a JIT map or a debug
 * file arrives; 0 if pid is unknown.  A caller may keep what it made
 * of answers while it stays; answers for unknown anonymous code change
 * without it until symbolizer_set_time (symbolizer_keeps_unknown).
 */
uint64_t symbolizer_generation(struct symbolizer *s, pid_t pid);
bool symbolizer_keeps_unknown(const struct symbolizer *s);

/*
 * The kernel's functions read on a thread from now, behind the sampler
 * (nice 10), for a live session whose samples will meet them: read at
 * the first kernel sample instead, they held the model up for 110 ms of
 * a compile's first second.  The first sample that needs them calls the
 * thread forward.
 */
void symbolizer_prefetch_kernel(struct symbolizer *s);

/*
 * A recording's files (replay only): the build-id (len bytes, at most
 * 20) the file at path had when recorded, so that another build there
 * is not used; and --symfs DIR, where the recorded paths are looked for
 * in place of this machine's.  Either makes a file be looked for as
 * perf report does (symbols_recorded.c).
 */
void symbolizer_expect_build_id(struct symbolizer *s, const char *path,
				 const unsigned char *id, size_t len, bool kernel);
/*
 * A perf.data's kernel, by its release (NULL: it names none): its kernel
 * addresses are named only from the kernel that recorded (this one, by
 * build-id or else release; perf's saved kallsyms; --kallsyms).
 */
void symbolizer_expect_kernel(struct symbolizer *s, const char *osrelease);
/* --kallsyms FILE: a recording's kernel functions from FILE (/proc/kallsyms' text). */
void symbolizer_set_kallsyms(struct symbolizer *s, const char *path);
void symbolizer_set_symfs(struct symbolizer *s, const char *dir);

/*
 * Late JIT maps: a JVM writes /tmp/perf-PID.map mid-run (jcmd PID
 * Compiler.perfmap) or at its exit, after its samples were taken, and
 * perf report names them from the map as it is then.  Whether ip is
 * anonymous code of pid (in a mapping no readable file holds: what such
 * a map names); the map's name for it now, or NULL (the map is read
 * again when it changed, at most once a second unless
 * symbolizer_jit_recheck; a forgotten
 * process's map is still found); how many times any map was read
 * changed, so a caller knows when to ask again.
 */
bool symbolizer_code_anonymous(struct symbolizer *s, pid_t pid, uint64_t ip);
const struct st_symbol *symbolizer_jit_name(struct symbolizer *s, pid_t pid, uint64_t ip,
					    uint32_t *offset);
void symbolizer_jit_recheck(struct symbolizer *s);
/* Whether pid has a JIT map naming anything (read again as symbolizer_jit_name does). */
bool symbolizer_jit_mapped(struct symbolizer *s, pid_t pid);
unsigned symbolizer_jit_loads(const struct symbolizer *s);

/*
 * The UI's way (async): a file's symbol table is built by a worker
 * thread, and symbolizer_ready says false while the file ip falls in is
 * being read (and starts that reading), so a caller that must answer
 * keys can come back to the sample instead of waiting.  Without async
 * (the default) every lookup builds what it needs itself; turning async
 * off makes lookups wait for the worker.
 */
void symbolizer_set_async(struct symbolizer *s, bool async);
bool symbolizer_ready(struct symbolizer *s, pid_t pid, uint64_t ip, bool kernel);
/*
 * Whether every file pid maps has its table (and starts the rest): a
 * stack copy unwound here can lead into any of them.  Checked once a
 * map generation.
 */
bool symbolizer_ready_process(struct symbolizer *s, pid_t pid);

/*
 * A symbol's machine code, copied out of its ELF file for annotation;
 * the file is the target's, so the copy is bounded by its section and by
 * SYMBOL_CODE_MAX.
 */
#define SYMBOL_CODE_MAX		(1u << 20)
struct symbol_code {
	uint64_t start;		/* the first byte's address in its file */
	uint8_t *bytes;
	size_t len;
	bool truncated;		/* the symbol runs past its section or the bound */
};

/*
 * 0, or -ENOENT: no file holds the symbol's code (kernel, JIT, unknown
 * symbols, or one never sampled in a file); -ENODATA: the file has no
 * bytes there (a section without contents).  Free with symbol_code_free.
 */
int symbolizer_code(struct symbolizer *s, uint32_t id, struct symbol_code *out);
/*
 * A snapshot's: stand-in n's code as it was read when the snapshot was
 * taken (copied; symbolizer_code answers with it).  And the copy out, if
 * id has one.
 */
void symbolizer_add_standin_code(struct symbolizer *s, uint32_t n, uint64_t start,
				 const uint8_t *bytes, size_t len, bool truncated);
bool symbolizer_standin_code(const struct symbolizer *s, uint32_t id, struct symbol_code *out);
void symbol_code_free(struct symbol_code *c);

/*
 * The source file and line of the byte at offset into symbol id, from
 * its file's DWARF line table (its own or /usr/lib/debug's); false when
 * it has none.  *file stays valid while the symbolizer lives.
 */
bool symbolizer_source_line(struct symbolizer *s, uint32_t id, uint32_t offset,
			    const char **file, int *line);

/*
 * The function at address `at` of the file holding symbol id's code (a
 * call or jump target in it) and *offset into it; NULL if none.  The name
 * stays valid while the symbolizer lives.
 */
const char *symbolizer_name_in_file(struct symbolizer *s, uint32_t id, uint64_t at,
				    uint64_t *offset);

/*
 * Source files' lines, for the drill-down: each file read once (at most
 * SOURCE_FILE_MAX bytes, a regular file only: its name is the target's
 * DWARF's), SOURCE_FILES_MAX files at most.
 */
#define SOURCE_FILE_MAX		(8u << 20)
#define SOURCE_FILES_MAX	16u
struct source_file;
struct source_cache {
	struct source_file *files;
	size_t n;
};
void source_cache_init(struct source_cache *c);
/* Line `line` (from 1) of path, *len bytes without its newline; or NULL. */
const char *source_cache_line(struct source_cache *c, const char *path, int line,
			      size_t *len);
void source_cache_free(struct source_cache *c);

/*
 * raw demangled (C++, Rust; libiberty), its @VERSION kept, with the
 * parameter list when params; a copy of raw if it is not mangled.
 * Allocated: free it.
 */
char *symbol_demangle(const char *raw, bool params);

size_t symbolizer_count(const struct symbolizer *s);

/*
 * debuginfod (symbols_debuginfod.c): with DEBUGINFOD_URLS set, a file
 * with no local debug file has its own fetched by build ID.  wait: a
 * lookup waits for the fetch (a batch replay, whose report comes once);
 * otherwise the fetch runs on a thread of its own and the file's names
 * change when it is done (live sampling, the UI).
 */
void symbols_debuginfod_wait(bool wait);
/* What is being fetched, for the status line ("" when nothing is). */
void symbols_debuginfod_status(char *buf, size_t len);
/*
 * The next line to say about debuginfod (a file a server sent that is
 * not its build's, rejected), each once; false when there is none.
 */
bool symbols_debuginfod_notice(char *buf, size_t len);

/* Each ELF file opened so far, with its GNU build-id in hex ("" if none): how many. */
typedef void (*symbolizer_file_fn)(const char *path, const char *build_id, void *arg);
size_t symbolizer_each_file(const struct symbolizer *s, symbolizer_file_fn fn, void *arg);
const struct st_symbol *symbolizer_symbol(const struct symbolizer *s,
					  uint32_t id);
void symbolizer_stats(const struct symbolizer *s, struct symbolizer_stats *out);

/*
 * The executable mappings in /proc/PID/maps, for the attach-time module
 * map.  Calls fn for each; returns -errno if the file cannot be read.
 */
typedef void (*map_fn)(uint64_t start, uint64_t len, uint64_t pgoff,
		       const char *path, void *arg);
int symbols_read_proc_maps(pid_t pid, map_fn fn, void *arg);
/* The mapping of pid's that holds addr (any kind: a thread's stack); -errno. */
int symbols_mapping_of(pid_t pid, uint64_t addr, uint64_t *start, uint64_t *end);

#endif
