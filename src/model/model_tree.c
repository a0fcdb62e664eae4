/*
 * model_tree.c - samples' call chains into the calling context tree:
 * each frame symbolized (a caller's return address less one, so a call
 * that ends its function is not taken for the next one), root first.
 */
#include "model/model_internal.h"
#include "symbols/symbols.h"

/* x86-64: the kernel's half of the address space (chains lose perf's markers). */
#define KERNEL_START	0xffff800000000000ull

const char *model_frame_name(const struct model *m, uint32_t sym)
{
	return sym == CCT_SYM_TRUNCATED ? "[truncated chain]"
	       : symbolizer_symbol(m->symbols, sym)->name;
}

void model_take_chain(struct model *m, const struct st_sample *s,
		      const struct st_symbol *leaf)
{
	uint32_t frames[ST_CHAIN_MAX + 1];
	const uint64_t *chain = st_sample_chain(s);
	size_t n = s->nchain, first = 0, k = 0;

	/* The chain starts at the sampled address itself, as perf gives it. */
	if (n && chain[0] == s->ip)
		first = 1;
	for (size_t i = n; i-- > first;) {
		uint64_t ip = chain[i];
		bool kernel = ip >= KERNEL_START;

		const struct st_symbol *sym = symbolizer_lookup(m->symbols, (pid_t)s->pid,
								ip ? ip - 1 : 0, kernel);

		frames[k++] = sym->id;
		m->tree_unknown += sym->unknown;
	}
	m->tree_frames += k;
	frames[k++] = leaf->id;
	cct_add(&m->tree, frames, k, (s->flags & ST_SAMPLE_CHAIN_TRUNC) != 0,
		s->period ? s->period : 1);
}
