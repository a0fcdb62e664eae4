/*
 * unwind_files.h - for the tests of a file's rows: the path of a file
 * this process has loaded (libc, ld.so), and whether two rows give the
 * same rule.
 */
#ifndef SHIMTOP_TESTS_UNWIND_FILES_H
#define SHIMTOP_TESTS_UNWIND_FILES_H

#include "symbols/unwind_rows.h"

#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

struct wanted {
	const char *part;	/* in its path */
	char path[4096];	/* found, or empty */
};

/* dl_iterate_phdr's callback: the first loaded file whose path holds w->part. */
static inline int find_file(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct wanted *w = arg;

	(void)size;
	if (strstr(info->dlpi_name, w->part)) {
		snprintf(w->path, sizeof(w->path), "%s", info->dlpi_name);
		return 1;
	}
	return 0;
}

static inline bool same_rule(const struct unwind_row *a, const struct unwind_row *b)
{
	return a->kind == b->kind && a->cfa_off == b->cfa_off && a->ra_off == b->ra_off &&
	       a->rbp_off == b->rbp_off && a->plt_at == b->plt_at && a->rbp_lost == b->rbp_lost &&
	       a->rbx_off == b->rbx_off && a->rbx_lost == b->rbx_lost;
}

#endif
