/*
 * test_unwind_pages.c - a file's whole CFI compiled into pages gives,
 * at every address of each function's first 64 bytes and every 7th
 * after, libdw's rule for that address alone: in this machine's libc
 * (long functions among them, whose rows are made only here, and half
 * its FDEs sharing a program with another, made once), ld.so and this
 * test's own binary.  Equal rules share an index (a file's
 * distinct rules are few against its rows), each page starts with an
 * entry at its first byte and its entries ascend, and an address past
 * every function has no row or no page.  The pages' copy for the cache
 * reads back to the same row at every address; a copy cut short, of
 * another file, with pages out of order, an entry past the rows, a page
 * not starting at its first byte, or a row of an unknown kind is refused.
 */
#include "check.h"
#include "unwind_files.h"
#include "symbols/unwind_pages.h"
#include "symbols/unwind_pages_job.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct walk {
	struct unwind_rows *r;
	const struct unwind_pages *p;
	unsigned long checked, differ, left_out, long_checked;
	uint64_t last_end;
};

static void check_function(uint64_t start, uint64_t end, void *arg)
{
	struct walk *w = arg;

	for (uint64_t a = start; a < end; a += a - start < 64 ? 1 : 7) {
		const struct unwind_row *row = unwind_pages_find(w->p, a);
		struct unwind_row alone = unwind_rows_alone(w->r, a);

		if (!row) {
			w->left_out += alone.kind != ROW_NONE;
			continue;
		}
		w->checked++;
		w->long_checked += end - start > 4096;
		if (!same_rule(row, &alone) && w->differ++ < 5)
			fprintf(stderr, "%#llx: pages' kind %d cfa %d ra %d rbp %d, alone kind %d "
				"cfa %d ra %d rbp %d\n", (unsigned long long)a, row->kind,
				row->cfa_off, row->ra_off, row->rbp_off, alone.kind, alone.cfa_off,
				alone.ra_off, alone.rbp_off);
	}
	if (end > w->last_end)
		w->last_end = end;
}

static void check_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct walk w = { 0 };
	struct unwind_pages *p;
	const struct unwind_row *past;
	bool ordered = true;

	CHECK(fd >= 0);
	w.r = unwind_rows_open(fd);
	close(fd);
	p = unwind_pages_make(w.r, NULL);
	w.p = p;
	for (size_t i = 0; i < p->npages; i++) {
		const struct unwind_page *pg = &p->pages[i];

		const uint32_t *e = p->entries + pg->first;

		ordered &= pg->n >= 1 && pg->first + pg->n <= p->nentries && !UNWIND_ENTRY_OFF(e[0]);
		ordered &= !i || (p->pages[i - 1].page < pg->page &&
				  p->pages[i - 1].first + p->pages[i - 1].n == pg->first);
		for (uint32_t k = 0; k < pg->n; k++)
			ordered &= UNWIND_ENTRY_ROW(e[k]) < p->nrows &&
				   (!k || (UNWIND_ENTRY_OFF(e[k - 1]) < UNWIND_ENTRY_OFF(e[k]) &&
					   UNWIND_ENTRY_ROW(e[k - 1]) != UNWIND_ENTRY_ROW(e[k])));
	}
	CHECK(ordered);
	unwind_rows_each_function(w.r, check_function, &w);
	printf("%s: %zu pages, %zu entries, %zu distinct rules; %lu addresses (%lu in long "
	       "functions), %lu differ, %lu in no page\n", path, p->npages, p->nentries,
	       p->nrows, w.checked, w.long_checked, w.differ, w.left_out);
	CHECK(p->npages > 0);
	CHECK(w.checked > 1000);
	CHECK(w.differ == 0);
	CHECK(w.left_out == 0);
	CHECK(p->nrows < 2048);
	CHECK(p->rows[UNWIND_PAGE_NONE].kind == ROW_NONE);
	/* Past the last function: no row, or no page. */
	past = unwind_pages_find(p, w.last_end + 1);
	CHECK(!past || past->kind == ROW_NONE);
	CHECK(!unwind_pages_find(p, w.last_end + (1u << 24)));
	unwind_pages_free(p);
	unwind_rows_free(w.r);
}

/* Offsets in a copy (unwind_pages_cache.c's layout). */
#define HEAD		104u
#define ROW_BYTES	16u

static void check_refused(const char *what, const unsigned char *id, size_t id_len,
			  const unsigned char *buf, size_t len)
{
	struct unwind_pages *p = unwind_pages_from_bytes(id, id_len, buf, len);

	if (p)
		fprintf(stderr, "a copy %s was taken\n", what);
	CHECK(p == NULL);
	unwind_pages_free(p);
}

static void check_cache(const char *path)
{
	static const unsigned char id[20] = { 0x1d, 0x2e };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct unwind_rows *r;
	struct unwind_pages *p, *back;
	unsigned char *buf, *bad;
	size_t len, pages_at, entries_at;
	unsigned long differ = 0, checked = 0;
	uint32_t e;

	CHECK(fd >= 0);
	r = unwind_rows_open(fd);
	close(fd);
	p = unwind_pages_make(r, NULL);
	len = unwind_pages_to_bytes(p, id, sizeof(id), &buf);
	CHECK(len > HEAD);
	back = unwind_pages_from_bytes(id, sizeof(id), buf, len);
	CHECK(back != NULL);
	if (back) {
		for (size_t i = 0; i < p->npages; i++)
			for (uint64_t a = p->pages[i].page << UNWIND_PAGE_SHIFT;
			     a < (p->pages[i].page + 1) << UNWIND_PAGE_SHIFT; a += 3) {
				const struct unwind_row *x = unwind_pages_find(p, a);
				const struct unwind_row *y = unwind_pages_find(back, a);

				checked++;
				differ += !x || !y || !same_rule(x, y);
			}
		CHECK(back->npages == p->npages && back->nentries == p->nentries);
	}
	printf("%s: %lu addresses read back from the pages' copy, %lu differ\n", path, checked,
	       differ);
	CHECK(checked > 1000 && differ == 0);
	unwind_pages_free(back);
	pages_at = (HEAD + p->nrows * ROW_BYTES + 15) & ~(size_t)15;
	entries_at = pages_at + p->npages * sizeof(struct unwind_page);
	CHECK(p->npages > 2);
	bad = malloc(len);
	if (!bad)
		abort();
	check_refused("cut short", id, sizeof(id), buf, len - 1);
	check_refused("of another file", (const unsigned char *)"another build-id....", sizeof(id),
		      buf, len);
	memcpy(bad, buf, len);
	memcpy(bad + pages_at, buf + pages_at + 16, 8);	/* the first page's number, the second's */
	check_refused("with pages out of order", id, sizeof(id), bad, len);
	memcpy(bad, buf, len);
	e = UNWIND_ENTRY(0, p->nrows);
	memcpy(bad + entries_at, &e, 4);
	check_refused("with an entry past the rows", id, sizeof(id), bad, len);
	memcpy(bad, buf, len);
	e = UNWIND_ENTRY(1, 0);
	memcpy(bad + entries_at, &e, 4);
	check_refused("with a page not starting at its first byte", id, sizeof(id), bad, len);
	memcpy(bad, buf, len);
	bad[HEAD + ROW_BYTES + 10] = 0xee;
	check_refused("with a row of an unknown kind", id, sizeof(id), bad, len);
	free(bad);
	free(buf);
	unwind_pages_free(p);
	unwind_rows_free(r);
}

/* The order the worker gave files in. */
struct given {
	atomic_uint n;
	uint32_t file[4];
};

static bool note_given(void *arg, void *owner, uint32_t file, struct unwind_pages *p)
{
	struct given *g = arg;
	unsigned i = atomic_load(&g->n);

	if (i < 4 && p && p->npages && owner == g)
		g->file[i] = file;
	atomic_store(&g->n, i + 1);
	return false;
}

static bool given_within(struct given *g, unsigned n, int seconds)
{
	const struct timespec tick = { 0, 10 * 1000 * 1000 };

	for (int i = 0; i < seconds * 100 && atomic_load(&g->n) < n; i++)
		nanosleep(&tick, NULL);
	return atomic_load(&g->n) >= n;
}

/*
 * The worker gives a file whose copy the cache has before compiling one
 * asked for earlier: a cold file must not hold a hot one's copy back.
 */
static void check_cached_first(const char *cached, const char *cold)
{
	char dir[] = "/tmp/test_unwind_pages.XXXXXX";
	struct given first = { 0 }, order = { 0 };
	struct pages_jobs *j;
	int a = open(cached, O_RDONLY | O_CLOEXEC), b = open(cold, O_RDONLY | O_CLOEXEC);
	char cmd[64];

	CHECK(a >= 0 && b >= 0 && mkdtemp(dir) != NULL);
	setenv("SHIMTOP_CACHE_DIR", dir, 1);
	/* A first session: compiled, its copy saved. */
	j = pages_jobs_create(note_given, NULL, &first);
	pages_jobs_add(j, a, 7, &first);
	CHECK(given_within(&first, 1, 60) && first.file[0] == 7);
	pages_jobs_destroy(j);
	/* The next: the cold file asked for first, given second. */
	j = pages_jobs_create(note_given, NULL, &order);
	pages_jobs_add(j, b, 1, &order);
	pages_jobs_add(j, a, 2, &order);
	CHECK(given_within(&order, 2, 60));
	printf("given in the order %u, %u (the cached file is 2)\n", order.file[0], order.file[1]);
	CHECK(order.file[0] == 2 && order.file[1] == 1);
	pages_jobs_destroy(j);
	close(a);
	close(b);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
	unsetenv("SHIMTOP_CACHE_DIR");
}

int main(int argc, char **argv)
{
	struct wanted libc = { "/libc.so", "" }, ldso = { "/ld-linux", "" };

	(void)argc;
	/* Rows from the files, never a copy: the FDEs' programs (shared rows) are read. */
	setenv("SHIMTOP_CACHE_DIR", "", 1);
	dl_iterate_phdr(find_file, &libc);
	dl_iterate_phdr(find_file, &ldso);
	CHECK(libc.path[0] != '\0');
	CHECK(ldso.path[0] != '\0');
	if (libc.path[0]) {
		check_file(libc.path);
		check_cache(libc.path);
	}
	if (ldso.path[0])
		check_file(ldso.path);
	check_file(argv[0]);
	if (libc.path[0] && ldso.path[0])
		check_cached_first(libc.path, ldso.path);
	return check_done("test_unwind_pages");
}
