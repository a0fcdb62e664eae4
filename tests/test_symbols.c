/*
 * test_symbols.c - the symbolizer on this very process: its own
 * functions by name through libdwfl, a shared library's, the cache, an
 * address nothing explains, a JIT map, kernel symbols when readable, and
 * a forked child's copy of the map, exec; and perf's naming: the alias
 * rule, demangling, PLT stubs (checked against objdump's labels);
 * functions only .eh_frame knows carry no name of the table's.
 */
#include "check.h"
#include "symbols/symbols.h"
#include "symbols/symbols_internal.h"
#include "symbols/unwind_pages.h"
#include "symbols/unwind_rows.h"
#include "util.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <inttypes.h>
#include <link.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

__attribute__((noinline)) int known_function_alpha(int x);
__attribute__((noinline)) int known_function_alpha(int x)
{
	return x * 3 + 1;
}

static void check_alias_rule(void)
{
	struct symbol_candidate sized = { 0x10, 8, "b", true, false, true, NAMED_BY_SYMTAB };
	struct symbol_candidate sizeless = { 0x10, 0, "a", true, false, true, NAMED_BY_SYMTAB };
	struct symbol_candidate untyped = { 0x10, 8, "a", false, false, true, NAMED_BY_SYMTAB };
	struct symbol_candidate weak = { 0x10, 8, "a", true, true, true, NAMED_BY_SYMTAB };
	struct symbol_candidate local = { 0x10, 8, "a", true, false, false, NAMED_BY_SYMTAB };
	struct symbol_candidate under = { 0x10, 8, "__libc_malloc", true, false, true, NAMED_BY_SYMTAB };
	struct symbol_candidate plain = { 0x10, 8, "malloc", true, false, true, NAMED_BY_SYMTAB };
	struct symbol_candidate longer = { 0x10, 8, "mallocx", true, false, true, NAMED_BY_SYMTAB };

	CHECK(symbol_preferred(&sized, &sizeless) && !symbol_preferred(&sizeless, &sized));
	CHECK(symbol_preferred(&sized, &untyped) && !symbol_preferred(&untyped, &sized));
	CHECK(symbol_preferred(&sized, &weak) && !symbol_preferred(&weak, &sized));
	CHECK(symbol_preferred(&sized, &local) && !symbol_preferred(&local, &sized));
	CHECK(symbol_preferred(&plain, &under) && !symbol_preferred(&under, &plain));
	CHECK(symbol_preferred(&longer, &plain) && !symbol_preferred(&plain, &longer));
	/* glibc's free: free@@GLIBC_2.2.5, not its old alias cfree@GLIBC_2.2.5. */
	{
		struct symbol_candidate current = { 0x10, 8, "free@@GLIBC_2.2.5", true, false, true, NAMED_BY_SYMTAB };
		struct symbol_candidate old = { 0x10, 8, "cfree@GLIBC_2.2.5", true, false, true, NAMED_BY_SYMTAB };
		struct symbol_candidate bare = { 0x10, 8, "free", true, false, true, NAMED_BY_SYMTAB };

		CHECK(symbol_preferred(&current, &old) && !symbol_preferred(&old, &current));
		CHECK(symbol_preferred(&bare, &old) && !symbol_preferred(&old, &bare));
	}
	/* The order of the rules: a size outweighs everything after it. */
	CHECK(symbol_preferred(&(struct symbol_candidate){ 0x10, 8, "__x", false, true, false, NAMED_BY_SYMTAB },
			       &(struct symbol_candidate){ 0x10, 0, "x", true, false, true, NAMED_BY_SYMTAB }));
}

/*
 * A lookup from a cursor (the .eh_frame pass's) answers as a search,
 * addresses in order, backwards, far ahead, and in gaps and nested
 * symbols.
 */
static void check_find_next(void)
{
	struct elf_symbol v[64];
	struct symbol_table t = { .v = v, .n = 0 };
	size_t cursor = 0, wrong = 0;
	uint64_t x = 88172645463325252ull;

	memset(v, 0, sizeof(v));
	for (size_t i = 0; i < 64; i++, t.n++) {
		v[i].start = 0x1000 + i * 0x40;
		v[i].end = v[i].start + (i % 3 ? 0x30 : 0x80);	/* gaps, and overlaps */
	}
	for (uint64_t a = 0xf00; a < 0x2100; a += 7)
		wrong += symbol_table_find_next(&t, a, &cursor) != symbol_table_find(&t, a);
	for (int i = 0; i < 2000; i++) {
		uint64_t a;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		a = 0xf00 + x % 0x1300;
		wrong += symbol_table_find_next(&t, a, &cursor) != symbol_table_find(&t, a);
	}
	CHECK(wrong == 0);
	/* A big table's pages (symbol_table_build makes them): the answers a search gives. */
	{
		enum { BIG = 20000 };
		struct elf_symbol *w = calloc(BIG, sizeof(*w));
		struct symbol_table big = { .v = w, .n = BIG };
		size_t c = 0;

		for (size_t i = 0; w && i < BIG; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			/* Clusters and gaps: steps of 1 to 64 bytes, now and then 1 MB. */
			w[i].start = (i ? w[i - 1].start : 0x400000) + 1 + x % 64 + (x % 97 ? 0 : 1u << 20);
			w[i].end = w[i].start + 1 + (x >> 8) % 48;
		}
		symbol_table_make_pages(&big);
		CHECK(big.pages != NULL);
		wrong = 0;
		for (int i = 0; w && i < 100000; i++) {
			uint64_t a;

			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			a = 0x3ff000 + x % (w[BIG - 1].start - 0x3ff000 + 0x2000);
			c = 0;
			wrong += symbol_table_find(&big, a) != symbol_table_find_next(&big, a, &c);
		}
		CHECK(wrong == 0);
		free(big.pages);
		free(w);
	}
	cursor = 1000;	/* past the table: a search */
	CHECK(symbol_table_find_next(&t, 0x1005, &cursor) == &v[0]);
}

/* st_sort_order (the symbol table's sort): ascending, ties in index order, as a stable sort. */
static void check_sort_order(void)
{
	enum { N = 3000 };
	static uint64_t keys[N];
	static uint32_t order[N];
	uint64_t x = 0x9e3779b97f4a7c15ull;
	size_t bad = 0;

	for (size_t i = 0; i < N; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		/* Few distinct low parts, high bits in some: ties and every byte used. */
		keys[i] = (x % 97) | (i % 3 ? (x & 0xff00000000000000ull) : 0) | ((x >> 20) % 5) << 24;
	}
	st_sort_order(keys, N, order);
	for (size_t i = 1; i < N; i++)
		bad += keys[order[i - 1]] > keys[order[i]] ||
		       (keys[order[i - 1]] == keys[order[i]] && order[i - 1] > order[i]);
	CHECK(bad == 0);
	{
		bool seen[N] = { false };
		size_t distinct = 0;

		for (size_t i = 0; i < N; i++)
			if (order[i] < N && !seen[order[i]])
				seen[order[i]] = true, distinct++;
		CHECK(distinct == N);	/* a permutation */
	}
	/* st_permute puts elements small and large in that order, in place. */
	{
		static struct { uint64_t key; uint32_t index; char pad[84]; } big[N];
		static uint64_t small_v[N];

		for (size_t i = 0; i < N; i++) {
			big[i].key = small_v[i] = keys[i];
			big[i].index = (uint32_t)i;
		}
		st_sort_order(keys, N, order);
		st_permute(small_v, N, sizeof(small_v[0]), order);
		st_sort_order(keys, N, order);
		st_permute(big, N, sizeof(big[0]), order);
		bad = 0;
		for (size_t i = 1; i < N; i++)
			bad += small_v[i - 1] > small_v[i] || big[i - 1].key > big[i].key ||
			       big[i].key != keys[big[i].index] ||
			       (big[i - 1].key == big[i].key && big[i - 1].index > big[i].index);
		CHECK(bad == 0);
	}
	for (size_t i = 0; i < 4; i++)
		keys[i] = 7;
	st_sort_order(keys, 4, order);
	CHECK(order[0] == 0 && order[1] == 1 && order[2] == 2 && order[3] == 3);
	st_sort_order(keys, 0, order);
}

static void check_demangle(void)
{
	static const char *const cases[][2] = {
		{ "_ZN4llvm10FoldingSetINS_4TypeEE4findEPv", "llvm::FoldingSet<llvm::Type>::find" },
		{ "_Z3fooi@@VERS_1", "foo@@VERS_1" },
		{ "_ZN4core3fmt5write17h0123456789abcdefE", "core::fmt::write" },
		{ "_RNvCs15kBYyAo9fc_7mycrate7example", "mycrate::example" },
		{ "memcpy@GLIBC_2.2.5", "memcpy@GLIBC_2.2.5" },
		{ "_Z", "_Z" },		/* not a valid mangling: kept */
	};
	char *full = symbol_demangle("_ZN4llvm3Foo3barEi", true);

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *d = symbol_demangle(cases[i][0], false);

		if (strcmp(d, cases[i][1]))
			printf("demangle %s: got %s, want %s\n", cases[i][0], d, cases[i][1]);
		CHECK(!strcmp(d, cases[i][1]));
		free(d);
	}
	CHECK(!strcmp(full, "llvm::Foo::bar(int)"));
	free(full);
}

static int main_base(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(uint64_t *)arg = info->dlpi_addr;
	return 1;		/* the first is the program */
}

/* Every "ADDR <name@plt>:" label objdump prints names the same stub. */
static void check_plt(struct symbolizer *s)
{
	char cmd[128], line[512];
	uint64_t base = 0;
	int seen = 0;
	FILE *p;

	dl_iterate_phdr(main_base, &base);
	snprintf(cmd, sizeof(cmd), "objdump -d /proc/%d/exe 2>/dev/null", (int)getpid());
	p = popen(cmd, "r");
	CHECK(p != NULL);
	while (p && fgets(line, sizeof(line), p)) {
		uint64_t addr;
		char name[256];
		const struct st_symbol *sym;

		/* "f@plt-0x10" is the PLT's header, which no symbol names. */
		if (sscanf(line, "%" SCNx64 " <%255[^>]>:", &addr, name) != 2 ||
		    !strstr(name, "@plt") || strpbrk(name, "+-"))
			continue;
		sym = symbolizer_lookup(s, getpid(), base + addr + 4, false);
		if (strcmp(sym->name, name))
			printf("PLT stub at %#" PRIx64 ": got %s, objdump says %s\n",
			       addr, sym->name, name);
		CHECK(!strcmp(sym->name, name));
		seen++;
	}
	if (p)
		pclose(p);
	printf("%d PLT stubs named as objdump names them\n", seen);
	CHECK(seen >= 3);
}

static void add_map(uint64_t start, uint64_t len, uint64_t pgoff,
		    const char *path, void *arg)
{
	symbolizer_add_map(arg, getpid(), start, len, pgoff, path);
}

/* Polls symbolizer_ready until it says yes; false after 20 s. */
static bool ready_soon(struct symbolizer *s, uint64_t ip, bool kernel)
{
	for (int i = 0; i < 20000; i++) {
		if (symbolizer_ready(s, getpid(), ip, kernel))
			return true;
		usleep(1000);
	}
	return false;
}

struct libm_text {
	struct symbolizer *s;
	uint64_t start, len, pgoff;
	char path[256];
};

static void add_map_find_cos(uint64_t start, uint64_t len, uint64_t pgoff,
			     const char *path, void *arg)
{
	struct libm_text *t = arg;
	uint64_t cos_at = (uint64_t)(uintptr_t)&cos;

	symbolizer_add_map(t->s, getpid(), start, len, pgoff, path);
	if (start <= cos_at && cos_at < start + len) {
		t->start = start, t->len = len, t->pgoff = pgoff;
		snprintf(t->path, sizeof(t->path), "%s", path);
	}
}

/*
 * A page mapped over part of libm's code (MAP_FIXED, as a JIT or a hot
 * patch does) takes that page only: cos is still cos on either side of
 * it, an address left of it is still libm's, and the page is [anon].
 */
static void check_split(void)
{
	const uint64_t page = 4096, cos_at = (uint64_t)(uintptr_t)&cos;

	for (int side = -1; side <= 1; side += 2) {
		struct libm_text t = { .s = symbolizer_create(true) };
		const struct st_symbol *sym;
		uint64_t over;

		CHECK(symbols_read_proc_maps(getpid(), add_map_find_cos, &t) == 0);
		CHECK(t.len > 3 * page);
		over = (cos_at & ~(page - 1)) + (uint64_t)(side * (int64_t)page);
		if (over <= t.start || over + page >= t.start + t.len) {
			printf("cos too near an end of libm's text: split not checked\n");
			symbolizer_destroy(t.s);
			return;
		}
		symbolizer_add_map(t.s, getpid(), over, page, 0, "//anon");
		sym = symbolizer_lookup(t.s, getpid(), cos_at, false);
		CHECK(strstr(sym->name, "cos") && strstr(sym->module, "libm"));
		sym = symbolizer_lookup(t.s, getpid(), over + 16, false);
		CHECK(!strstr(sym->module, "libm"));
		sym = symbolizer_lookup(t.s, getpid(), t.start + 16, false);
		CHECK(strstr(sym->module, "libm") != NULL);
		sym = symbolizer_lookup(t.s, getpid(), t.start + t.len - 16, false);
		CHECK(strstr(sym->module, "libm") != NULL);
		/* The same page again changes nothing; libm's whole map back mends it. */
		symbolizer_add_map(t.s, getpid(), over, page, 0, "//anon");
		symbolizer_add_map(t.s, getpid(), t.start, t.len, t.pgoff, t.path);
		sym = symbolizer_lookup(t.s, getpid(), over + 16, false);
		CHECK(strstr(sym->module, "libm") != NULL);
		sym = symbolizer_lookup(t.s, getpid(), cos_at, false);
		CHECK(strstr(sym->name, "cos") && strstr(sym->module, "libm"));
		symbolizer_destroy(t.s);
	}
	printf("a page mapped over libm's code leaves the rest of libm named\n");
}

/*
 * The UI's way: tables built by the worker name every address as a
 * table built in place does; a lookup while a build is under way (async
 * turned off: the session's stop) waits for it, and so does destroying
 * the symbolizer.
 */
static void check_async(const struct st_symbol *own)
{
	uint64_t fn = (uint64_t)(uintptr_t)&known_function_alpha;
	uint64_t in_libm = (uint64_t)(uintptr_t)&cos;
	struct symbolizer *sync = symbolizer_create(true);
	struct symbolizer *s = symbolizer_create(true);
	const struct st_symbol *want, *got;

	CHECK(symbols_read_proc_maps(getpid(), add_map, sync) == 0);
	CHECK(symbols_read_proc_maps(getpid(), add_map, s) == 0);
	/* Without async every address is ready: lookups build what they need. */
	CHECK(symbolizer_ready(sync, getpid(), in_libm, false));
	symbolizer_set_async(s, true);
	CHECK(ready_soon(s, fn + 4, false));
	got = symbolizer_lookup(s, getpid(), fn + 4, false);
	CHECK(!strcmp(got->name, own->name) && !strcmp(got->module, own->module));
	CHECK(ready_soon(s, in_libm, false));
	want = symbolizer_lookup(sync, getpid(), in_libm, false);
	got = symbolizer_lookup(s, getpid(), in_libm, false);
	CHECK(!strcmp(got->name, want->name) && !strcmp(got->module, want->module));
	CHECK(got->named_by == want->named_by);
	/* An address looked up once is ready at once (the cache). */
	CHECK(symbolizer_ready(s, getpid(), in_libm, false));
	CHECK(ready_soon(s, 0xffffffff81000000ull, true));
	symbolizer_destroy(s);

	/* A build asked for, then a lookup with async off: it waits for the worker. */
	s = symbolizer_create(true);
	CHECK(symbols_read_proc_maps(getpid(), add_map, s) == 0);
	symbolizer_set_async(s, true);
	(void)symbolizer_ready(s, getpid(), in_libm, false);
	symbolizer_set_async(s, false);
	got = symbolizer_lookup(s, getpid(), in_libm, false);
	CHECK(!strcmp(got->name, want->name) && !got->unknown);
	symbolizer_destroy(s);

	/* A process's every file, for stack copies: once all are in, each address is ready. */
	s = symbolizer_create(true);
	CHECK(symbols_read_proc_maps(getpid(), add_map, s) == 0);
	symbolizer_set_async(s, true);
	for (int i = 0; i < 20000 && !symbolizer_ready_process(s, getpid()); i++)
		usleep(1000);
	CHECK(symbolizer_ready_process(s, getpid()));
	CHECK(symbolizer_ready(s, getpid(), in_libm, false));
	CHECK(symbolizer_ready(s, getpid(), fn + 4, false));
	symbolizer_destroy(s);

	/* Destroyed with a build under way: it waits, and frees the worker's table. */
	s = symbolizer_create(true);
	CHECK(symbols_read_proc_maps(getpid(), add_map, s) == 0);
	symbolizer_set_async(s, true);
	(void)symbolizer_ready(s, getpid(), in_libm, false);
	symbolizer_destroy(s);
	symbolizer_destroy(sync);
	printf("tables built by the worker name as tables built in place\n");
}

/*
 * A file's unwind rows (made here as the unwinder's first use makes
 * them) go short of memory once the kernel has its pages, at the next
 * sweep, however recently it was looked up; never without the need.
 */
static void check_rows_drop(struct symbolizer *s, const struct st_symbol *sym, pid_t pid,
			    uint64_t at)
{
	uint64_t start, end;
	struct elf_file *f = symbolizer_code_of(s, sym->id, &start, &end);
	struct symbolizer_stats st;
	struct unwind_rows *whole;

	CHECK(f != NULL);
	if (!f)
		return;
	CHECK(f->fd >= 0 && !f->rows);
	f->rows = unwind_rows_open(f->fd);
	CHECK(f->rows != NULL);
	CHECK(symbolizer_let_go(s, false) == 0 && f->rows);	/* not short of memory */
	CHECK(symbolizer_let_go(s, true) == 0 && f->rows);	/* looked up, no pages */
	whole = unwind_rows_open(f->fd);
	atomic_store(&f->pages, unwind_pages_make(whole, NULL));
	unwind_rows_free(whole);
	CHECK(atomic_load(&f->pages) != NULL);
	(void)symbolizer_lookup(s, pid, at, false);
	CHECK(symbolizer_let_go(s, true) == 0 && !f->rows);
	symbolizer_stats(s, &st);
	CHECK_EQ_U64(st.rows_dropped, 1);
	CHECK(symbolizer_lookup(s, pid, at, false) == sym);
}

/*
 * A file no process maps is let go (at once when short of memory, else
 * after 30 sweeps unmapped) and read again, the same names, when a
 * process maps it again; never while one maps it.
 */
static void check_let_go(void)
{
	struct libm_text t = { .s = symbolizer_create(false) };
	const pid_t first = 900001, second = 900002, third = 900003;
	const uint64_t cos_at = (uint64_t)(uintptr_t)&cos;
	struct symbolizer_stats st;
	const struct st_symbol *sym;
	size_t n, sweeps = 0;

	CHECK(symbols_read_proc_maps(getpid(), add_map_find_cos, &t) == 0);
	symbolizer_exit(t.s, getpid());
	symbolizer_forget(t.s, getpid());
	symbolizer_add_map(t.s, first, t.start, t.len, t.pgoff, t.path);
	sym = symbolizer_lookup(t.s, first, cos_at, false);
	CHECK(strstr(sym->name, "cos") && strstr(sym->module, "libm"));
	CHECK(symbolizer_let_go(t.s, true) == 0);	/* first maps it */
	symbolizer_exit(t.s, first);
	CHECK(symbolizer_let_go(t.s, true) == 0);	/* exited, not yet forgotten */
	symbolizer_forget(t.s, first);
	CHECK(symbolizer_let_go(t.s, true) == 1);
	symbolizer_stats(t.s, &st);
	CHECK_EQ_U64(st.files, 1);
	CHECK_EQ_U64(st.files_let_go, 1);

	symbolizer_add_map(t.s, second, t.start, t.len, t.pgoff, t.path);
	CHECK(symbolizer_lookup(t.s, second, cos_at, false) == sym);
	symbolizer_stats(t.s, &st);
	CHECK_EQ_U64(st.files, 1);
	CHECK_EQ_U64(st.files_let_go, 0);
	/* Another address of it, not looked up before: read from the file taken back. */
	CHECK(strstr(symbolizer_lookup(t.s, second, (uint64_t)(uintptr_t)&sin, false)->name, "sin"));
	/*
	 * Short of memory, a mapped file's table no look-up used for ten
	 * sweeps is dropped, and built again, the same names, when asked.
	 */
	for (int i = 0; i < 9; i++)
		CHECK(symbolizer_let_go(t.s, true) == 0);
	CHECK(symbolizer_let_go(t.s, true) == 1);
	symbolizer_stats(t.s, &st);
	CHECK_EQ_U64(st.tables_dropped, 1);
	CHECK_EQ_U64(st.files_let_go, 0);
	CHECK(strstr(symbolizer_lookup(t.s, second, (uint64_t)(uintptr_t)&tan, false)->name, "tan"));
	CHECK(symbolizer_lookup(t.s, second, cos_at + 1, false) == sym);
	CHECK(symbolizer_let_go(t.s, true) == 0);
	check_rows_drop(t.s, sym, second, cos_at);
	/* Without --memory's need, a mapped file's table stays. */
	for (int i = 0; i < 20; i++)
		CHECK(symbolizer_let_go(t.s, false) == 0);

	symbolizer_add_map(t.s, third, t.start, t.len, t.pgoff, t.path);
	symbolizer_exit(t.s, second);
	symbolizer_forget(t.s, second);
	symbolizer_exit(t.s, third);
	symbolizer_forget(t.s, third);
	do
		n = symbolizer_let_go(t.s, false);
	while (!n && ++sweeps < 100);
	printf("a file unmapped: let go after %zu sweeps\n", sweeps + 1);
	CHECK(n == 1 && sweeps + 1 == 30);
	symbolizer_destroy(t.s);
}

/*
 * Past the room for names (--memory), a function first seen then counts
 * as its module's SYMBOL_PAST_MEMORY, a known name still answers, and
 * nothing goes to the unknown.
 */
static void check_names_bound(void)
{
	struct symbolizer *s = symbolizer_create(true);
	uint64_t fn = (uint64_t)(uintptr_t)&known_function_alpha;
	const struct st_symbol *a, *c, *again;
	struct symbolizer_stats st;

	symbolizer_bound_names(s, 1);
	CHECK(symbols_read_proc_maps(getpid(), add_map, s) == 0);
	a = symbolizer_lookup(s, getpid(), fn + 4, false);
	CHECK(!strcmp(a->name, "known_function_alpha"));
	c = symbolizer_lookup(s, getpid(), (uint64_t)(uintptr_t)&check_names_bound + 4, false);
	CHECK(!strcmp(c->name, SYMBOL_PAST_MEMORY) && !strcmp(c->module, "test_symbols"));
	CHECK(!c->unknown);
	again = symbolizer_lookup(s, getpid(), fn + 1, false);
	CHECK(again == a);
	symbolizer_stats(s, &st);
	CHECK_EQ_U64(st.names_folded, 1);
	symbolizer_destroy(s);
}

/*
 * Functions only .eh_frame knows (Debian's libc is stripped of .symtab)
 * carry no name of the table's: offset 0 would have been its first
 * symbol's, taken as their raw name and aliases (and read past a table
 * of no names, as fuzz_elf found).
 */
static void check_cfi_functions_unnamed(void)
{
	struct symbol_table none = { 0 };
	struct elf_symbol *out = NULL;
	Elf *elf;
	size_t n, named = 0;
	int fd = open("/lib/x86_64-linux-gnu/libc.so.6", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	CHECK(fd >= 0 && elf_version(EV_CURRENT) != EV_NONE);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	CHECK(elf != NULL);
	n = cfi_functions(elf, 0, &none, &out);
	for (size_t i = 0; i < n; i++)
		named += out[i].raw != SYMBOL_NO_NAME || out[i].aliases != SYMBOL_NO_NAME ||
			 !out[i].from_cfi;
	printf("%zu functions from .eh_frame alone, %zu with a name of the table's\n", n, named);
	CHECK(n > 100);
	CHECK_EQ_U64(named, 0);
	free(out);
	elf_end(elf);
	close(fd);
}

int main(void)
{
	struct symbolizer *s = symbolizer_create(true);
	struct symbolizer_stats st;

	check_alias_rule();
	check_demangle();
	check_find_next();
	check_sort_order();
	check_split();
	check_let_go();
	check_names_bound();
	check_cfi_functions_unnamed();
	const struct st_symbol *a, *b, *libc, *u, *j;
	uint64_t fn = (uint64_t)(uintptr_t)&known_function_alpha;
	void *anon = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char jit[64];
	FILE *f;

	CHECK(symbols_read_proc_maps(getpid(), add_map, s) == 0);
	a = symbolizer_lookup(s, getpid(), fn + 4, false);
	CHECK(!strcmp(a->name, "known_function_alpha"));
	CHECK(!strcmp(a->module, "test_symbols"));
	CHECK(!a->unknown);
	b = symbolizer_lookup(s, getpid(), fn + 4, false);
	CHECK(a == b);
	symbolizer_stats(s, &st);
	CHECK_EQ_U64(st.lookups, 2);
	CHECK_EQ_U64(st.cache_hits, 1);
	/* Another address of the function: a cache miss, the same symbol. */
	b = symbolizer_lookup(s, getpid(), fn + 1, false);
	CHECK(a == b);

	libc = symbolizer_lookup(s, getpid(), (uint64_t)(uintptr_t)&cos, false);
	CHECK(strstr(libc->module, "libm") != NULL);
	CHECK(strstr(libc->name, "cos") != NULL);

	/*
	 * glibc's malloc has aliases; perf's rule picks "malloc".  libc's own
	 * (an ASan build's &malloc is its interceptor).
	 */
	{
		void *h = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);

		CHECK(h != NULL);
		libc = symbolizer_lookup(s, getpid(), h ? (uint64_t)(uintptr_t)dlsym(h, "malloc") : 0,
					 false);
		if (h)
			dlclose(h);
	}
	printf("malloc: %s (aliases: %s)\n", libc->name, libc->aliases ? libc->aliases : "none");
	CHECK(!strncmp(libc->name, "malloc", 6));
	CHECK(libc->aliases && strstr(libc->aliases, "__libc_malloc"));
	/* The chosen name is not among its own aliases, and none comes twice. */
	if (libc->aliases) {
		char list[1024], *save = NULL, *seen[64];
		size_t nseen = 0;

		snprintf(list, sizeof(list), "%s", libc->aliases);
		for (char *alias = strtok_r(list, ", ", &save); alias && nseen < 64;
		     alias = strtok_r(NULL, ", ", &save)) {
			CHECK(strcmp(alias, libc->name) != 0);
			for (size_t k = 0; k < nseen; k++)
				CHECK(strcmp(alias, seen[k]) != 0);
			seen[nseen++] = alias;
		}
	}
	check_plt(s);

	/* A JIT map names code in anonymous memory. */
	snprintf(jit, sizeof(jit), "/tmp/perf-%d.map", (int)getpid());
	f = fopen(jit, "w");
	fprintf(f, "%lx 100 jitted_loop\n", (unsigned long)(uintptr_t)anon + 4096);
	fclose(f);
	j = symbolizer_lookup(s, getpid(), (uint64_t)(uintptr_t)anon + 4096 + 8, false);
	CHECK(!strcmp(j->name, "jitted_loop") && !strcmp(j->module, "[jit]"));
	/*
	 * Code the JIT emits later: unknown until the map lists it, named once
	 * the map is read again (at most once a second), and a cached answer
	 * does not hide it.
	 */
	u = symbolizer_lookup(s, getpid(), (uint64_t)(uintptr_t)anon + 2048 + 8, false);
	CHECK(u->unknown && !strcmp(u->module, "[anon]"));
	f = fopen(jit, "w");
	fprintf(f, "%lx 100 jitted_loop\n%lx 40 jitted_later\n",
		(unsigned long)(uintptr_t)anon + 4096, (unsigned long)(uintptr_t)anon + 2048);
	fclose(f);
	usleep(1100000);
	j = symbolizer_lookup(s, getpid(), (uint64_t)(uintptr_t)anon + 2048 + 8, false);
	CHECK(!strcmp(j->name, "jitted_later") && !strcmp(j->module, "[jit]"));
	/*
	 * With the time given once a pump (symbolizer_set_time), the map is
	 * read again by that time, not the clock: a change 0.5 s later is
	 * not seen, 1.1 s later it is.
	 */
	{
		uint64_t t0 = 5000000000ull;

		symbolizer_set_time(s, t0);
		j = symbolizer_lookup(s, getpid(), (uint64_t)(uintptr_t)anon + 2048 + 8, false);
		CHECK(!strcmp(j->name, "jitted_later"));
		f = fopen(jit, "w");
		fprintf(f, "%lx 100 jitted_loop\n%lx 40 jitted_later\n%lx 40 jitted_third\n",
			(unsigned long)(uintptr_t)anon + 4096, (unsigned long)(uintptr_t)anon + 2048,
			(unsigned long)(uintptr_t)anon + 1024);
		fclose(f);
		symbolizer_set_time(s, t0 + 500000000ull);
		u = symbolizer_lookup(s, getpid(), (uint64_t)(uintptr_t)anon + 1024 + 8, false);
		CHECK(u->unknown);
		/* Unknown anonymous code is cached then: the pump reads the map, not a lookup. */
		{
			struct symbolizer_stats before, after;

			symbolizer_stats(s, &before);
			u = symbolizer_lookup(s, getpid(), (uint64_t)(uintptr_t)anon + 1024 + 8, false);
			symbolizer_stats(s, &after);
			CHECK(u->unknown && after.cache_hits == before.cache_hits + 1);
		}
		symbolizer_set_time(s, t0 + 1100000000ull);
		j = symbolizer_lookup(s, getpid(), (uint64_t)(uintptr_t)anon + 1024 + 8, false);
		CHECK(!strcmp(j->name, "jitted_third"));
		symbolizer_set_time(s, 0);
	}
	unlink(jit);
	/* Anonymous memory the JIT map does not cover stays [unknown]. */
	u = symbolizer_lookup(s, getpid(), (uint64_t)(uintptr_t)anon + 16, false);
	CHECK(u->unknown && !strcmp(u->name, "[unknown]"));

	/* A forked child starts with the parent's map. */
	symbolizer_fork(s, getpid(), 999999);
	b = symbolizer_lookup(s, 999999, fn + 4, false);
	CHECK(b == a);
	/* The child exec'd: the parent's image is not its own any more. */
	symbolizer_exec(s, 999999);
	b = symbolizer_lookup(s, 999999, fn + 4, false);
	CHECK(b->unknown);
	b = symbolizer_lookup(s, getpid(), fn + 4, false);
	CHECK(b == a);
	/*
	 * Exec'd again and forked before any new mapping: the child has no
	 * maps, nor an array for them (the fuzzer's input: a lookup then
	 * sorted a NULL array, UB).
	 */
	symbolizer_exec(s, 999999);
	symbolizer_fork(s, 999999, 999998);
	b = symbolizer_lookup(s, 999998, fn + 4, false);
	CHECK(b->unknown);

	/* Kernel addresses: named when /proc/kallsyms shows them. */
	{
		FILE *k = fopen("/proc/kallsyms", "r");
		unsigned long addr = 0;
		char type, name[256] = "";

		while (k && fscanf(k, "%lx %c %255s%*[^\n]", &addr, &type, name) == 3)
			if ((type == 'T' || type == 't') && addr)
				break;
		if (k)
			fclose(k);
		if (addr) {
			const struct st_symbol *ks = symbolizer_lookup(s, getpid(), addr, true);

			CHECK(!strcmp(ks->module, "[kernel]"));
			CHECK(!ks->unknown);
		} else {
			printf("kernel symbols hidden (kptr_restrict): not checked\n");
		}
	}
	check_async(a);
	CHECK(symbolizer_symbol(s, a->id) == a);
	CHECK(symbolizer_symbol(s, 1000000) == NULL);
	printf("%s(%d) resolved\n", a->name, known_function_alpha(1));
	symbolizer_destroy(s);
	return check_done("test_symbols");
}
