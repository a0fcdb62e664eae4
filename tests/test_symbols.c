/*
 * test_symbols.c - the symbolizer on this very process: its own
 * functions by name through libdwfl, a shared library's, the cache, an
 * address nothing explains, a JIT map, kernel symbols when readable, and
 * a forked child's copy of the map.
 */
#include "check.h"
#include "symbols/symbols.h"

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

static void add_map(uint64_t start, uint64_t len, uint64_t pgoff,
		    const char *path, void *arg)
{
	symbolizer_add_map(arg, getpid(), start, len, pgoff, path);
}

int main(void)
{
	struct symbolizer *s = symbolizer_create(true);
	struct symbolizer_stats st;
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

	libc = symbolizer_lookup(s, getpid(), (uint64_t)(uintptr_t)&cos, false);
	CHECK(strstr(libc->module, "libm") != NULL);
	CHECK(strstr(libc->name, "cos") != NULL);

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
	unlink(jit);
	/* Anonymous memory the JIT map does not cover stays [unknown]. */
	u = symbolizer_lookup(s, getpid(), (uint64_t)(uintptr_t)anon + 16, false);
	CHECK(u->unknown && !strcmp(u->name, "[unknown]"));

	/* A forked child starts with the parent's map. */
	symbolizer_fork(s, getpid(), 999999);
	b = symbolizer_lookup(s, 999999, fn + 4, false);
	CHECK(b == a);

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
	CHECK(symbolizer_symbol(s, a->id) == a);
	CHECK(symbolizer_symbol(s, 1000000) == NULL);
	printf("%s(%d) resolved\n", a->name, known_function_alpha(1));
	symbolizer_destroy(s);
	return check_done("test_symbols");
}
