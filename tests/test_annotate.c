/*
 * test_annotate.c - the drill-down's annotation over this test's own
 * code: an address's offset into its symbol, the symbol's bytes copied
 * from the file (they equal what is mapped), Capstone's instructions of
 * a fixture whose instructions are known, the DWARF line of a C fixture,
 * and samples counted onto instructions, lines and threads from a
 * constructed history (range and -e a,b filters included), with its
 * timeline columns and IPC distribution.  Then the
 * source cache against files a target could name, and the library
 * opened on first use (lazy_lib.c, Capstone's way in): missing, or
 * lacking a function, it says which and what to install.
 */
#include "check.h"
#include "lazy_lib.h"
#include "model/annotate.h"
#include "model/model.h"
#include "symbols/symbols.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__x86_64__)
/* Four instructions whose bytes and AT&T text are known: 1 + 5 + 2 + 1. */
__asm__(".text\n"
	".globl annotate_fixture\n"
	".type annotate_fixture, @function\n"
	"annotate_fixture:\n"
	"\tnop\n"
	"\tmovl $42, %eax\n"
	"\taddl %edi, %eax\n"
	"\tret\n"
	".size annotate_fixture, .-annotate_fixture\n"
	".globl annotate_caller\n"
	".type annotate_caller, @function\n"
	"annotate_caller:\n"
	"\tcall annotate_fixture\n"
	"\tjmp annotate_fixture+1\n"
	".size annotate_caller, .-annotate_caller\n");
int annotate_fixture(int x);
void annotate_caller(void);
#endif

int annotate_c_fixture(volatile int *p);
static const int c_fixture_first = __LINE__ + 1;
__attribute__((noinline)) int annotate_c_fixture(volatile int *p)
{
	int sum = 0;

	for (int i = 0; i < *p; i++)
		sum += i * *p;
	return sum;
}
static const int c_fixture_last = __LINE__ - 1;

static void add_map(uint64_t start, uint64_t len, uint64_t pgoff,
		    const char *path, void *arg)
{
	symbolizer_add_map(arg, getpid(), start, len, pgoff, path);
}

static struct history_entry entry(uint32_t sym, uint32_t offset, uint32_t tid)
{
	struct history_entry e;

	memset(&e, 0, sizeof(e));
	e.pid = (uint32_t)getpid();
	e.tid = tid;
	e.sym = sym;
	e.offset = offset;
	e.weight = 1;
	return e;
}

#if defined(__x86_64__)
static void test_known_instructions(struct symbolizer *s)
{
	uint64_t ip = (uint64_t)(uintptr_t)&annotate_fixture;
	const struct st_symbol *sym;
	struct symbol_code code;
	struct annotation a;
	struct model m;
	struct history_entry e;
	uint32_t offset = 0;

	sym = symbolizer_lookup_at(s, getpid(), ip + 6, false, &offset);
	CHECK(!strcmp(sym->name, "annotate_fixture"));
	CHECK_EQ_U64(offset, 6);
	CHECK(symbolizer_code(s, sym->id, &code) == 0);
	CHECK_EQ_U64(code.len, 9);
	CHECK(!code.truncated);
	CHECK(code.bytes && !memcmp(code.bytes, (const void *)(uintptr_t)ip, 9));
	symbol_code_free(&code);

	annotation_load(&a, s, sym->id);
	CHECK(a.code == 0);
	CHECK_EQ_U64(a.ninsn, 4);
	if (a.ninsn == 4) {
		CHECK(!strncmp(a.insn[0].text, "nop", 3));
		CHECK(!strncmp(a.insn[1].text, "movl", 4) && strstr(a.insn[1].text, "$0x2a, %eax"));
		CHECK(!strncmp(a.insn[2].text, "addl", 4) && strstr(a.insn[2].text, "%edi, %eax"));
		CHECK(!strncmp(a.insn[3].text, "ret", 3));
		CHECK_EQ_U64(a.insn[1].offset, 1);
		CHECK_EQ_U64(a.insn[2].offset, 6);
		CHECK_EQ_U64(a.insn[3].size, 1);
	}
	CHECK(annotation_insn_at(&a, 7) == &a.insn[2]);	/* inside addl */
	CHECK(annotation_insn_at(&a, 9) == NULL);
	/* No call or jump: no target named. */
	CHECK(!strchr(a.insn[0].text, '<') && !strchr(a.insn[3].text, '<'));

	/* A call's and a jump's targets named as objdump does, offset included. */
	{
		const struct st_symbol *caller;
		struct annotation b;

		caller = symbolizer_lookup_at(s, getpid(), (uint64_t)(uintptr_t)&annotate_caller,
					      false, &offset);
		CHECK(caller && !strcmp(caller->name, "annotate_caller"));
		annotation_load(&b, s, caller ? caller->id : UINT32_MAX);
		CHECK_EQ_U64(b.ninsn, 2);
		if (b.ninsn == 2) {
			CHECK(!strncmp(b.insn[0].text, "call", 4) &&
			      strstr(b.insn[0].text, " <annotate_fixture>"));
			CHECK(!strncmp(b.insn[1].text, "jmp", 3) &&
			      strstr(b.insn[1].text, " <annotate_fixture+0x1>"));
		}
		annotation_free(&b);
	}

	/*
	 * A constructed history: 3 samples on movl (offsets 1 and 4), 3 on
	 * addl (6, 7), one with no offset, one of another symbol, one after
	 * the range; threads 10 and 11.
	 */
	model_init(&m, s);
	e = entry(sym->id, 1, 10);
	history_add(&m.history, 1000, &e);
	history_add(&m.history, 1001, &e);
	e = entry(sym->id, 4, 11);
	history_add(&m.history, 1002, &e);
	e = entry(sym->id, 6, 10);
	history_add(&m.history, 1003, &e);
	history_add(&m.history, 1004, &e);
	e = entry(sym->id, 7, 10);
	history_add(&m.history, 1005, &e);
	e = entry(sym->id, SYMBOL_NO_OFFSET, 10);
	history_add(&m.history, 1006, &e);
	e = entry(sym->id + 1, 1, 10);
	history_add(&m.history, 1007, &e);
	e = entry(sym->id, 0, 12);
	history_add(&m.history, 5000, &e);

	annotation_count(&a, &m, 0, 2000);
	CHECK_EQ_U64(a.samples, 7);
	CHECK_EQ_U64(a.placed, 6);
	if (a.ninsn == 4) {
		CHECK_EQ_U64(a.insn[0].samples, 0);
		CHECK_EQ_U64(a.insn[1].samples, 3);
		CHECK_EQ_U64(a.insn[2].samples, 3);
	}
	CHECK_EQ_U64(a.nthreads, 2);
	if (a.nthreads == 2) {
		CHECK_EQ_U64(a.threads[0].tid, 10);
		CHECK_EQ_U64(a.threads[0].samples, 6);
		CHECK_EQ_U64(a.threads[1].tid, 11);
	}
	/* The whole history: the late sample, on nop, joins; counts restart. */
	annotation_count(&a, &m, 0, UINT64_MAX);
	CHECK_EQ_U64(a.samples, 8);
	if (a.ninsn == 4) {
		CHECK_EQ_U64(a.insn[0].samples, 1);
		CHECK_EQ_U64(a.insn[1].samples, 3);
	}
	CHECK_EQ_U64(a.nthreads, 3);

	/* -e a,b: only the event the tables show. */
	m.nsampled = 2;
	m.shown_event = 1;
	e = entry(sym->id, 6, 10);
	e.flags = HISTORY_EVENT;
	e.event = 1;
	history_add(&m.history, 6000, &e);
	e.event = 0;
	history_add(&m.history, 6001, &e);
	annotation_count(&a, &m, 0, UINT64_MAX);
	CHECK_EQ_U64(a.samples, 1);
	if (a.ninsn == 4)
		CHECK_EQ_U64(a.insn[2].samples, 1);
	annotation_free(&a);
	model_free(&m);
}
#endif

/* What a count from nothing over the whole history gives, against a's. */
static void same_as_fresh(const struct annotation *a, const struct model *m)
{
	struct annotation b;

	memset(&b, 0, sizeof(b));
	b.sym = a->sym;
	annotation_count(&b, m, 0, UINT64_MAX);
	CHECK_EQ_U64(a->samples, b.samples);
	CHECK_EQ_U64(a->ncols, b.ncols);
	CHECK_EQ_U64(a->col_from, b.col_from);
	CHECK_EQ_U64(a->col_step, b.col_step);
	CHECK(!memcmp(a->col_samples, b.col_samples, sizeof(b.col_samples)));
	CHECK(!memcmp(a->col_all, b.col_all, sizeof(b.col_all)));
	CHECK_EQ_U64(a->ipc.n, b.ipc.n);
	CHECK(fabs(a->ipc.mean - b.ipc.mean) < 1e-9);
	CHECK_EQ_U64(a->nthreads, b.nthreads);
	for (size_t i = 0; i < a->nthreads && i < b.nthreads; i++)
		CHECK(a->threads[i].tid == b.threads[i].tid &&
		      a->threads[i].samples == b.threads[i].samples);
	annotation_free(&b);
}

/*
 * The timeline row and IPC: symbol 1 owns [1 s, 2 s) (IPC 2.0), symbol 2
 * [2 s, 3 s) (IPC 0.5) with two samples of symbol 1 in its middle (one
 * at IPC 1.0, one without counts); a sample per 10 ms.
 */
static void test_columns_and_ipc(void)
{
	struct annotation a;
	struct model m;

	memset(&a, 0, sizeof(a));
	model_init(&m, NULL);
	for (uint64_t t = 0; t < 200; t++) {
		struct history_entry e = entry(t < 100 ? 1 : 2, SYMBOL_NO_OFFSET, 7);

		e.flags = HISTORY_COUNTERS;
		e.cycles = 1000;
		e.instructions = t < 100 ? 2000 : 500;
		if (t == 150 || t == 151) {
			e.sym = 1;
			e.instructions = 1000;
			e.flags = t == 150 ? HISTORY_COUNTERS : 0;
		}
		history_add(&m.history, 1000000000ull + t * 10000000ull, &e);
	}
	a.sym = 1;
	annotation_count(&a, &m, 0, UINT64_MAX);
	CHECK_EQ_U64(a.samples, 102);
	/* The whole history, 1.0-2.99 s, in whole 100 ms spans: 20 columns. */
	CHECK_EQ_U64(a.col_from, 1000000000ull);
	CHECK_EQ_U64(a.ncols, 20);
	CHECK_EQ_U64(a.col_step, 100000000ull);
	CHECK_EQ_U64(a.col_samples[0], 10);
	CHECK_EQ_U64(a.col_all[0], 10);
	CHECK_EQ_U64(a.col_samples[12], 0);
	CHECK_EQ_U64(a.col_all[12], 10);
	{
		uint64_t mine = 0, all = 0;

		for (size_t c = 0; c < a.ncols; c++) {
			mine += a.col_samples[c];
			all += a.col_all[c];
		}
		CHECK_EQ_U64(mine, 102);
		CHECK_EQ_U64(all, 200);
	}
	/* The column of 2.5 s holds the two of symbol 1 among symbol 2's. */
	CHECK_EQ_U64(a.col_samples[15], 2);
	CHECK_EQ_U64(a.col_samples[14], 0);
	/* IPC: 100 at 2.0 and one at 1.0; the sample without counts is not one. */
	CHECK_EQ_U64(a.ipc.n, 101);
	CHECK(a.ipc.mean > 1.98 && a.ipc.mean < 1.991);
	CHECK(hist_quantile(&a.ipc, 0.5) > 1.99 && hist_quantile(&a.ipc, 0.5) <= 2.01);
	CHECK(a.ipc.min == 1.0 && a.ipc.max == 2.0);

	/*
	 * Counted again after more samples, the whole session adds only the
	 * new ones: the same as a count from nothing.  Then a dropped chunk
	 * starts it over, again the same as a fresh count.
	 */
	for (uint64_t t = 200; t < 1250; t++) {
		struct history_entry e = entry(t % 3 ? 1 : 3, SYMBOL_NO_OFFSET, 7 + t % 2);

		e.flags = HISTORY_COUNTERS;
		e.cycles = 1000;
		e.instructions = 1500;
		history_add(&m.history, 1000000000ull + t * 10000000ull, &e);
	}
	annotation_count(&a, &m, 0, UINT64_MAX);
	same_as_fresh(&a, &m);
	CHECK_EQ_U64(a.samples, 102 + 700);
	CHECK_EQ_U64(a.ncols, 63);		/* 125 spans, 2 a column */
	CHECK_EQ_U64(a.nthreads, 2);

	/* A range: [2.2 s, 2.8 s) in 6 ms columns; only the two mid samples. */
	annotation_count(&a, &m, 2200000000ull, 2800000000ull);
	CHECK_EQ_U64(a.samples, 2);
	CHECK_EQ_U64(a.col_from, 2200000000ull);
	CHECK_EQ_U64(a.col_step, 6000000ull);
	CHECK_EQ_U64(a.col_all[0], 1);
	CHECK_EQ_U64(a.col_samples[50], 1);
	CHECK_EQ_U64(a.col_samples[51], 1);
	CHECK_EQ_U64(a.ipc.n, 1);
	CHECK(a.ipc.mean == 1.0);

	/* Whole again after the range: counted from nothing; then a chunk dropped. */
	annotation_count(&a, &m, 0, UINT64_MAX);
	same_as_fresh(&a, &m);
	m.history.keep_ns = 1000000000ull;
	{
		struct history_entry e = entry(1, SYMBOL_NO_OFFSET, 9);

		history_add(&m.history, 20000000000ull, &e);
	}
	CHECK(m.history.dropped > 0);
	annotation_count(&a, &m, 0, UINT64_MAX);
	same_as_fresh(&a, &m);
	CHECK(a.samples > 0 && a.samples < 802);

	/* An empty history: no columns, nothing counted. */
	model_free(&m);
	model_init(&m, NULL);
	annotation_count(&a, &m, 0, UINT64_MAX);
	CHECK_EQ_U64(a.ncols, 0);
	CHECK_EQ_U64(a.ipc.n, 0);
	annotation_free(&a);
	model_free(&m);
}

static void test_source_lines(struct symbolizer *s)
{
	uint64_t ip = (uint64_t)(uintptr_t)&annotate_c_fixture;
	const struct st_symbol *sym;
	struct annotation a;
	uint32_t offset = 1;
	size_t lined = 0, in_range = 0;

	sym = symbolizer_lookup_at(s, getpid(), ip, false, &offset);
	CHECK(!strcmp(sym->name, "annotate_c_fixture"));
	CHECK_EQ_U64(offset, 0);
	annotation_load(&a, s, sym->id);
	CHECK(a.code == 0);
	CHECK(a.ninsn > 3);
	for (size_t i = 0; i < a.ninsn; i++) {
		const char *f = a.insn[i].file;

		if (!f)
			continue;
		lined++;
		if (strlen(f) >= 15 && !strcmp(f + strlen(f) - 15, "test_annotate.c") &&
		    a.insn[i].line >= c_fixture_first && a.insn[i].line <= c_fixture_last)
			in_range++;
	}
	/* Built with -g: every instruction has a line, within the function. */
	CHECK_EQ_U64(lined, a.ninsn);
	CHECK_EQ_U64(in_range, a.ninsn);
	annotation_free(&a);

	/* A kernel symbol: no file holds its code, and that is said. */
	sym = symbolizer_lookup_at(s, getpid(), 0xffffffff81000000ull, true, &offset);
	annotation_load(&a, s, sym->id);
	CHECK(a.code == -ENOENT);
	CHECK_EQ_U64(a.ninsn, 0);
	annotation_free(&a);
}

static void test_source_cache(void)
{
	char dir[] = "/tmp/shimtop-annotate-XXXXXX", path[128], fifo[128];
	struct source_cache c;
	const char *t;
	size_t len = 0;
	FILE *f;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/a.c", dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo.c", dir);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs("one\n\ttwo\nthree", f);	/* no newline at the end */
	fclose(f);
	CHECK(mkfifo(fifo, 0600) == 0);

	source_cache_init(&c);
	t = source_cache_line(&c, path, 2, &len);
	CHECK(t && len == 4 && !memcmp(t, "\ttwo", 4));
	t = source_cache_line(&c, path, 3, &len);
	CHECK(t && len == 5 && !memcmp(t, "three", 5));
	CHECK(source_cache_line(&c, path, 4, &len) == NULL);
	CHECK(source_cache_line(&c, path, 0, &len) == NULL);
	/* A FIFO named by the target's DWARF: refused, never waited on. */
	CHECK(source_cache_line(&c, fifo, 1, &len) == NULL);
	CHECK(source_cache_line(&c, "/nonexistent/x.c", 1, &len) == NULL);
	/* Read once: the file changing on disk changes nothing shown. */
	CHECK(truncate(path, 0) == 0);
	t = source_cache_line(&c, path, 1, &len);
	CHECK(t && len == 3 && !memcmp(t, "one", 3));
	source_cache_free(&c);
	unlink(fifo);
	unlink(path);
	rmdir(dir);
}

/* A library opened when first asked: answers once, names what is missing. */
static void test_lazy_lib(void)
{
	size_t (*length)(const char *s) = NULL;
	void (*nothing)(void) = NULL;
	const struct lazy_fn good[] = { { "strlen", (void **)&length } };
	const struct lazy_fn bad[] = { { "strlen", (void **)&length },
				       { "no_such_function_here", (void **)&nothing } };
	struct lazy_lib libc = { .soname = "libc.so.6", .package = "libc6", .fns = good, .n = 1 };
	struct lazy_lib lacking = { .soname = "libc.so.6", .package = "libc6", .fns = bad, .n = 2 };
	struct lazy_lib gone = { .soname = "libshimtop-none.so.9", .package = "nothing",
				 .fns = good, .n = 1 };

	CHECK(lazy_lib_ready(&libc) && length && length("four") == 4);
	CHECK(lazy_lib_ready(&libc) && libc.why[0] == '\0');
	CHECK(!lazy_lib_ready(&lacking));
	CHECK(strstr(lacking.why, "lacks no_such_function_here") && strstr(lacking.why, "libc6"));
	CHECK(!lazy_lib_ready(&gone) && !lazy_lib_ready(&gone));
	CHECK(strstr(gone.why, "libshimtop-none.so.9 could not be loaded: install nothing"));
	/* Capstone itself: opened by the annotation above, nothing to say. */
	CHECK(annotation_no_disassembler()[0] == '\0');
}

int main(void)
{
	struct symbolizer *s = symbolizer_create(true);
	volatile int n = 3;

	CHECK(annotate_c_fixture(&n) == 9);
	CHECK(symbols_read_proc_maps(getpid(), add_map, s) == 0);
#if defined(__x86_64__)
	CHECK(annotate_fixture(1) == 43);
	test_known_instructions(s);
#endif
	test_columns_and_ipc();
	test_source_lines(s);
	test_source_cache();
	test_lazy_lib();
	symbolizer_destroy(s);
	return check_done("test_annotate");
}
