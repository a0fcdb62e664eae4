/*
 * test_unwind_rows.c - the rows a file's functions are made into agree
 * with libdw's rule for each address alone: in this machine's libc (its
 * epilogues restore remembered states, where libdw's row starts are
 * wrong) and in this test's own binary, at every address of each
 * function's first 64 bytes and every 7th after; ld.so's lazy-binding
 * trampoline has rows with its CFA in rbx; and an address no FDE
 * covers, and a file that is no ELF, have no row.
 */
#include "check.h"
#include "symbols/unwind_rows.h"

#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct walk {
	struct unwind_rows *r;
	unsigned long checked, differ, applied, by_rbx;
};

static bool same_rule(const struct unwind_row *a, const struct unwind_row *b)
{
	return a->kind == b->kind && a->cfa_off == b->cfa_off && a->ra_off == b->ra_off &&
	       a->rbp_off == b->rbp_off && a->plt_at == b->plt_at && a->rbp_lost == b->rbp_lost &&
	       a->rbx_off == b->rbx_off && a->rbx_lost == b->rbx_lost;
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

struct wanted {
	const char *part;
	char path[4096];
};

static int find_file(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct wanted *w = arg;

	(void)size;
	if (strstr(info->dlpi_name, w->part)) {
		snprintf(w->path, sizeof(w->path), "%s", info->dlpi_name);
		return 1;
	}
	return 0;
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
	if (libc.path[0])
		check_file(libc.path);
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
