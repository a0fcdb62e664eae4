/* report_tree.c - the call tree as folded stacks and as JSON (see report.h). */
#include "model/cct.h"
#include "output/report.h"
#include "model/model.h"
#include "util.h"

#include <json-c/json.h>
#include <stdlib.h>

/* A frame's name, with what would break the format (';', controls) replaced. */
static void put_name(const struct model *m, uint32_t sym, FILE *out)
{
	const char *name = model_frame_name(m, sym);

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

struct json_object *report_tree_json(const struct model *m)
{
	const struct cct *t = &m->tree;
	struct json_object *o = json_object_new_object(), *nodes = json_object_new_array();

	report_add_u64(o, "samples", t->samples);
	report_add_u64(o, "truncated", t->truncated);
	report_add_u64(o, "capped", t->capped);
	report_add_u64(o, "max_depth", t->max_depth);
	report_add_u64(o, "caller_frames", m->tree_frames);
	report_add_u64(o, "unknown_frames", m->tree_unknown);
	/* Node 0 is the root: every other names its parent (0 at the top). */
	for (size_t i = 1; i < t->n; i++) {
		const struct cct_node *n = cct_node(t, (uint32_t)i);
		struct json_object *j = json_object_new_object();

		report_add_u64(j, "id", i);
		report_add_u64(j, "parent", n->parent);
		json_object_object_add(j, "name", json_object_new_string(model_frame_name(m, n->sym)));
		report_add_u64(j, "self", n->self);
		report_add_u64(j, "total", n->total);
		json_object_array_add(nodes, j);
	}
	json_object_object_add(o, "nodes", nodes);
	return o;
}
