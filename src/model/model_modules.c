/*
 * model_modules.c - the per-module table (perf report's --sort dso): each
 * file's samples, share and symbols, summed from the symbol rows.
 */
#include "model/model.h"
#include "symbols/symbols.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

struct module_acc {
	UT_hash_handle hh;
	struct model_module_row row;
	uint64_t named[NAMED_BY_KERNEL + 1];	/* samples by what named their symbol */
};

static int heavier_module(const void *pa, const void *pb)
{
	const struct model_module_row *a = pa, *b = pb;

	if (a->share != b->share)
		return a->share > b->share ? -1 : 1;
	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	return strcmp(a->module, b->module);
}

size_t model_module_rows(const struct model *m, struct model_module_row **rows)
{
	struct module_acc *mods = NULL, *a, *tmp;
	struct model_row *syms;
	size_t nsyms = model_rows(m, ST_SORT_SELF, false, &syms), n = 0;

	for (size_t i = 0; i < nsyms; i++) {
		const struct model_row *r = &syms[i];
		const char *module = r->sym->module ? r->sym->module : "[unknown]";

		HASH_FIND(hh, mods, module, strlen(module), a);
		if (!a) {
			a = st_xcalloc(1, sizeof(*a));
			a->row.module = module;
			HASH_ADD_KEYPTR(hh, mods, module, strlen(module), a);
		}
		a->row.samples += r->samples;
		a->row.weight += r->weight;
		a->row.share += r->self;
		a->row.symbols++;
		a->row.unnamed += r->sym->unknown || r->sym->named_by == NAMED_BY_EH_FRAME;
		/* What named most of its samples (the first to lead, on a tie). */
		if (r->sym->named_by <= NAMED_BY_KERNEL &&
		    (a->named[r->sym->named_by] += r->samples) > a->named[a->row.named_by])
			a->row.named_by = r->sym->named_by;
	}
	*rows = st_xcalloc(HASH_COUNT(mods) + 1, sizeof(**rows));
	HASH_ITER(hh, mods, a, tmp) {
		(*rows)[n++] = a->row;
		HASH_DEL(mods, a);
		free(a);
	}
	model_rows_free(syms);
	qsort(*rows, n, sizeof(**rows), heavier_module);
	return n;
}
