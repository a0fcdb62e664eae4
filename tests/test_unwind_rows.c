/*
 * test_unwind_rows.c - the rows a file's functions are made into agree
 * with libdw's rule for each address alone: in this machine's libc (its
 * epilogues restore remembered states, where libdw's row starts are
 * wrong) and in this test's own binary, at every address of each
 * function's first 64 bytes and every 7th after; ld.so's lazy-binding
 * trampoline has rows with its CFA in rbx; and an address no FDE
 * covers, and a file that is no ELF, have no row.  libc with its
 * .eh_frame_hdr listed after .eh_frame, as lld lists them, has the same
 * rows, found through the search table.  The rows' copy for
 * the cache reads back to the same rows, and a copy cut short, of
 * another file, with a rule the walk does not know, with functions out
 * of order or with a gap in a function's rows is refused.
 */
#include "check.h"
#include "unwind_files.h"
#include "symbols/unwind_rows_internal.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct walk {
	struct unwind_rows *r;
	unsigned long checked, differ, applied, by_rbx;
};

/* Rows read back from a copy (no ELF behind them) against the rows they were copied from. */
struct compare {
	struct unwind_rows *from, *back;
	unsigned long checked, differ;
};

static void compare_function(uint64_t start, uint64_t end, void *arg)
{
	struct compare *c = arg;

	for (uint64_t a = start; a < end; a += a - start < 64 ? 1 : 7) {
		c->checked++;
		if (!same_rule(unwind_rows_find(c->from, a), unwind_rows_find(c->back, a)))
			c->differ++;
	}
}

static void check_function(uint64_t start, uint64_t end, void *arg)
{
	struct walk *w = arg;

	for (uint64_t a = start; a < end; a += a - start < 64 ? 1 : 7) {
		const struct unwind_row *row = unwind_rows_find(w->r, a);
		struct unwind_row alone = unwind_rows_alone(w->r, a);

		w->checked++;
		w->applied += row->kind <= ROW_PLT;
		w->by_rbx += row->kind == ROW_CFA_RBX;
		if (!same_rule(row, &alone)) {
			if (w->differ++ < 5)
				fprintf(stderr, "%#llx: row kind %d cfa %d ra %d rbp %d, alone kind %d "
					"cfa %d ra %d rbp %d\n", (unsigned long long)a, row->kind,
					row->cfa_off, row->ra_off, row->rbp_off, alone.kind,
					alone.cfa_off, alone.ra_off, alone.rbp_off);
		}
	}
}

/* Its rows' count with the CFA in rbx. */
static unsigned long check_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct walk w = { 0 };

	CHECK(fd >= 0);
	w.r = unwind_rows_open(fd);
	close(fd);
	unwind_rows_each_function(w.r, check_function, &w);
	printf("%s: %lu addresses, %lu by rows the walk applies, %lu differ\n", path, w.checked,
	       w.applied, w.differ);
	CHECK(w.checked > 1000);
	CHECK(w.applied > w.checked / 2);
	CHECK(w.differ == 0);
	unwind_rows_free(w.r);
	return w.by_rbx;
}

/* Section i's name in the 64-bit image buf (len bytes), or "". */
static const char *section_name(const unsigned char *buf, size_t len, const Elf64_Shdr *sh,
				const Elf64_Ehdr *eh, size_t i)
{
	const Elf64_Shdr *names = &sh[eh->e_shstrndx];

	if (names->sh_offset >= len || sh[i].sh_name >= names->sh_size ||
	    names->sh_offset + names->sh_size > len)
		return "";
	return (const char *)buf + names->sh_offset + sh[i].sh_name;
}

/*
 * path as lld writes a file, .eh_frame_hdr's section header after
 * .eh_frame's (the two headers swapped in a copy): the rows read through
 * the search table (unwind_cfi.c's way round libdw's miss of it) are the
 * rows of the file as GNU ld wrote it.
 */
static void check_table_after_frames(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), copy = memfd_create("swapped", MFD_CLOEXEC);
	struct compare cmp = { 0 };
	unsigned char *buf;
	Elf64_Ehdr *eh;
	Elf64_Shdr *sh, tmp;
	size_t hdr = 0, frames = 0;
	struct stat st;

	CHECK(fd >= 0 && copy >= 0 && fstat(fd, &st) == 0);
	buf = malloc((size_t)st.st_size);
	CHECK(buf && read(fd, buf, (size_t)st.st_size) == st.st_size);
	eh = (Elf64_Ehdr *)buf;
	CHECK(eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(*sh) <= (uint64_t)st.st_size);
	sh = (Elf64_Shdr *)(buf + eh->e_shoff);
	for (size_t i = 1; i < eh->e_shnum; i++) {
		if (!strcmp(section_name(buf, (size_t)st.st_size, sh, eh, i), ".eh_frame_hdr"))
			hdr = i;
		if (!strcmp(section_name(buf, (size_t)st.st_size, sh, eh, i), ".eh_frame"))
			frames = i;
	}
	CHECK(hdr && frames && hdr < frames && eh->e_shstrndx != hdr && eh->e_shstrndx != frames);
	tmp = sh[hdr];
	sh[hdr] = sh[frames];
	sh[frames] = tmp;
	CHECK(write(copy, buf, (size_t)st.st_size) == st.st_size);
	cmp.from = unwind_rows_open(fd);
	cmp.back = unwind_rows_open(copy);
	CHECK(!cmp.from->cfi.view && cmp.from->cfi.searched);
	CHECK(cmp.back->cfi.view != NULL && cmp.back->cfi.searched);
	unwind_rows_each_function(cmp.from, compare_function, &cmp);
	printf("%s with .eh_frame_hdr after .eh_frame: %lu addresses, %lu differ\n", path,
	       cmp.checked, cmp.differ);
	CHECK(cmp.checked > 1000 && cmp.differ == 0);
	unwind_rows_free(cmp.from);
	unwind_rows_free(cmp.back);
	free(buf);
	close(copy);
	close(fd);
}

static const unsigned char *at(const unsigned char *buf, size_t off)
{
	return buf + off;
}

/* Offsets in a copy (unwind_rows_cache.c's layout): counts, then FDEs, spans, rows alone. */
#define HEAD		104u
#define FDE_SIZE	24u
#define SPAN_SIZE	32u

static uint64_t u64_at(const unsigned char *buf, size_t off)
{
	uint64_t v;

	memcpy(&v, at(buf, off), sizeof(v));
	return v;
}

/* A corruption of copy buf (len bytes) refused, its target left as it was. */
static void check_refused(const char *what, const unsigned char *id, size_t id_len,
			  const unsigned char *buf, size_t len)
{
	struct unwind_rows *r = unwind_rows_open(-1);

	if (unwind_rows_from_bytes(r, id, id_len, buf, len))
		fprintf(stderr, "a copy %s was taken\n", what);
	CHECK(unwind_rows_cached(r) == ROWS_CACHE_REFUSED);
	CHECK(unwind_rows_find(r, 0x1000)->kind == ROW_NONE);
	unwind_rows_free(r);
}

static void check_cache(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct walk w = { 0 };
	struct unwind_rows *back;
	struct compare cmp;
	unsigned char *buf, *bad, id[64];
	uint64_t nfdes, nspans;
	size_t len, id_len;
	uint32_t n;

	CHECK(fd >= 0);
	w.r = unwind_rows_open(fd);
	close(fd);
	unwind_rows_each_function(w.r, check_function, &w);
	len = unwind_rows_to_bytes(w.r, &buf);
	memcpy(&n, buf + 12, sizeof(n));
	id_len = n;
	CHECK(id_len > 0 && id_len <= sizeof(id));
	memcpy(id, buf + 16, id_len);
	nfdes = u64_at(buf, 80);
	nspans = u64_at(buf, 88);
	CHECK(nfdes > 100 && nspans > 100 && len > HEAD + nfdes * FDE_SIZE);
	/* Read back: the same rule at every address asked before, with no libdw behind it. */
	back = unwind_rows_open(-1);
	CHECK(unwind_rows_from_bytes(back, id, id_len, buf, len));
	CHECK(unwind_rows_cached(back) == ROWS_CACHE_READ);
	cmp = (struct compare){ w.r, back, 0, 0 };
	unwind_rows_each_function(w.r, compare_function, &cmp);
	printf("%s: %lu addresses read back from the cache's copy, %lu differ\n", path,
	       cmp.checked, cmp.differ);
	CHECK(cmp.checked == w.checked && cmp.differ == 0);
	unwind_rows_free(back);
	bad = malloc(len);
	CHECK(bad != NULL);
	check_refused("cut short", id, id_len, buf, len - 1);
	id[0] ^= 1;
	check_refused("of another file", id, id_len, buf, len);
	id[0] ^= 1;
	/* The first made function's first row: a rule no walk knows, then a gap. */
	for (uint64_t i = 0; i < nfdes; i++) {
		uint32_t fat, fn;

		memcpy(&fat, buf + HEAD + i * FDE_SIZE + 16, 4);
		memcpy(&fn, buf + HEAD + i * FDE_SIZE + 20, 4);
		if (fn == UINT32_MAX || fn < 2)
			continue;
		memcpy(bad, buf, len);
		bad[HEAD + nfdes * FDE_SIZE + fat * SPAN_SIZE + 16 + 10] = 0xee;
		check_refused("with an unknown rule", id, id_len, bad, len);
		memcpy(bad, buf, len);
		bad[HEAD + nfdes * FDE_SIZE + fat * SPAN_SIZE + 8] ^= 1;	/* its end moved */
		check_refused("with a gap in a function's rows", id, id_len, bad, len);
		break;
	}
	/* Two functions out of order. */
	memcpy(bad, buf, len);
	memcpy(bad + HEAD, buf + HEAD + FDE_SIZE, FDE_SIZE);
	memcpy(bad + HEAD + FDE_SIZE, buf + HEAD, FDE_SIZE);
	check_refused("with functions out of order", id, id_len, bad, len);
	free(bad);
	free(buf);
	unwind_rows_free(w.r);
}

int main(int argc, char **argv)
{
	struct wanted libc = { "/libc.so", "" }, ldso = { "/ld-linux", "" };
	struct unwind_rows *r;
	int fd;

	(void)argc;
	dl_iterate_phdr(find_file, &libc);
	dl_iterate_phdr(find_file, &ldso);
	CHECK(libc.path[0] != '\0');
	CHECK(ldso.path[0] != '\0');
	if (libc.path[0]) {
		check_file(libc.path);
		check_cache(libc.path);
		check_table_after_frames(libc.path);
	}
	/* _dl_runtime_resolve_*: push rbx, mov rsp to rbx, CFA from rbx. */
	if (ldso.path[0])
		CHECK(check_file(ldso.path) > 0);
	check_file(argv[0]);
	/* No FDE at address 0 of the binary, nor anywhere in a file that is no ELF. */
	fd = open(argv[0], O_RDONLY | O_CLOEXEC);
	r = unwind_rows_open(fd);
	CHECK(unwind_rows_find(r, 0)->kind == ROW_NONE);
	unwind_rows_free(r);
	close(fd);
	fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	r = unwind_rows_open(fd);
	CHECK(unwind_rows_find(r, 0x1000)->kind == ROW_NONE);
	unwind_rows_free(r);
	close(fd);
	return check_done("test_unwind_rows");
}
