/* report_folded.c - the call tree as folded stacks (see report.h). */
#include "model/cct.h"
#include "output/report.h"
#include "model/model.h"
#include "symbols/symbols.h"
#include "util.h"

#include <stdlib.h>

/* A frame's name, with what would break the format (';', controls) replaced. */
static void put_name(const struct model *m, uint32_t sym, FILE *out)
{
	const char *name = sym == CCT_SYM_TRUNCATED ? "[truncated chain]"
			   : symbolizer_symbol(m->symbols, sym)->name;

	for (const char *p = name; *p; p++)
		fputc(*p == ';' || (unsigned char)*p < ' ' ? '?' : *p, out);
}

void report_folded(const struct model *m, FILE *out)
{
	const struct cct *t = &m->tree;
	uint32_t *path;
	size_t depth = 0;
	uint32_t at;

	if (!t->nodes)
		return;
	path = st_xcalloc(CCT_MAX_DEPTH + 2, sizeof(*path));
	/* Depth first through child and sibling links; path[] the nodes from the root's child. */
	at = t->nodes[CCT_ROOT].child;
	while (at) {
		const struct cct_node *n = cct_node(t, at);

		path[depth++] = at;
		if (n->self) {
			for (size_t i = 0; i < depth; i++) {
				if (i)
					fputc(';', out);
				put_name(m, cct_node(t, path[i])->sym, out);
			}
			fprintf(out, " %llu\n", (unsigned long long)n->self);
		}
		if (n->child) {
			at = n->child;
			continue;
		}
		/* Up until a node has a next sibling. */
		while (depth && !cct_node(t, path[depth - 1])->sibling)
			depth--;
		if (!depth)
			break;
		at = cct_node(t, path[--depth])->sibling;
	}
	free(path);
}
