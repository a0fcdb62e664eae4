/* report_tree.c - the call tree as folded stacks and as JSON (see report.h). */
#include "model/callerchain.h"
#include "model/cct.h"
#include "output/report.h"
#include "model/model.h"
#include "symbols/symbols.h"
#include "symbols/unwind.h"
#include "util.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

/*
 * A frame's name, with what would break the format (';', controls)
 * replaced; a frame no symbol names is its module in brackets
 * ([libc.so.6]), as stackcollapse-perf writes it.
 */
#define FOLDED_BREAKS ";\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f" \
	"\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f"

static void put_name(const struct model *m, uint32_t sym, FILE *out)
{
	const char *name = model_frame_name(m, sym);
	char module[256];

	if (sym != CCT_SYM_TRUNCATED && symbolizer_symbol(m->symbols, sym)->unknown) {
		const char *mod = symbolizer_symbol(m->symbols, sym)->module;

		if (mod[0] == '[')	/* [anon], [kernel] */
			snprintf(module, sizeof(module), "%s", mod);
		else
			snprintf(module, sizeof(module), "[%s]", st_basename(mod));
		name = module;
	}

	/* In runs: a compile's folded stacks are 68 MB, and a locked fputc each byte took 0.9 s. */
	while (*name) {
		size_t run = strcspn(name, FOLDED_BREAKS);

		fwrite(name, 1, run, out);
		name += run;
		if (*name) {
			putc_unlocked('?', out);
			name++;
		}
	}
}

/* self: each node's count (the shown event's), or NULL for the tree's own. */
static void folded(const struct model *m, const struct cct *t, const uint64_t *self, FILE *out)
{
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

		/* Waits alone: their microseconds, as offcputime -f writes them. */
		uint64_t count = self ? self[at] : m->offcpu_folded_us && !m->nsampled
				 ? n->self_weight / 1000 : n->self;

		path[depth++] = at;
		if (count) {
			for (size_t i = 0; i < depth; i++) {
				if (i)
					putc_unlocked(';', out);
				put_name(m, cct_node(t, path[i])->sym, out);
			}
			fprintf(out, " %llu\n", (unsigned long long)count);
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

/*
 * Events sampled each on its own (-e a,b) pool in the tree: the shown
 * event's samples by node come from the history, while it holds them all
 * (NULL: the tree's pooled counts).
 */
static uint64_t *shown_event_counts(const struct model *m)
{
	size_t ne = (size_t)m->nsampled;
	uint64_t *v, *self;

	if (m->nsampled < 2 || !history_holds_from(&m->history, m->first_time))
		return NULL;
	v = history_node_events(&m->history, 0, UINT64_MAX, m->tree.n, ne);
	self = st_xcalloc((size_t)m->tree.n + 1, sizeof(*self));
	/* Off-CPU samples: their waits in microseconds (offcputime -f's unit), not their count. */
	for (uint32_t i = 0; i < m->tree.n; i++)
		self[i] = m->shown_event == m->offcpu_event && m->offcpu_folded_us
			  ? v[((size_t)i * ne + (size_t)m->shown_event) * 2 + 1] / 1000
			  : v[((size_t)i * ne + (size_t)m->shown_event) * 2];
	free(v);
	return self;
}

void report_folded(const struct model *m, FILE *out)
{
	struct cc_result r;
	struct cct t;
	uint32_t *starts;
	size_t nstarts;

	if (!m->callerchain_mode) {
		uint64_t *self = shown_event_counts(m);

		folded(m, &m->tree, self, out);
		free(self);
		return;
	}
	/* The tree CallerChaining rebuilt from depths is the one asked for. */
	nstarts = model_start_symbols(m, &starts);
	callerchain_build(&m->chaining, &r);
	cct_init(&t);
	callerchain_to_cct(&r, &t, NULL, starts, nstarts);
	free(starts);
	folded(m, &t, NULL, out);
	cct_free(&t);
	callerchain_result_free(&r);
}

static double percent(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0.0;
}

/* What the rebuilt tree's agreement was measured against: the kind most samples had first. */
static const char *chaining_reference(const struct model *m, char *buf, size_t len)
{
	uint64_t fp = m->chaining_fp_reference, dw = m->chaining_dwarf_reference;

	if (!m->callerchain_mode)
		return "unwound chains";
	if (!dw)
		return "frame-pointer chains";
	if (!fp)
		return "DWARF-unwound chains";
	if (dw >= fp)
		snprintf(buf, len, "DWARF-unwound chains (frame-pointer chains where whole: %.1f%%)",
			 100.0 * (double)fp / (double)(fp + dw));
	else
		snprintf(buf, len, "frame-pointer chains (DWARF-unwound where they stop early: "
			 "%.1f%%)", 100.0 * (double)dw / (double)(fp + dw));
	return buf;
}

/*
 * The share of the rebuilt tree's samples whose path reaches main or a
 * start: the rest are under its one [callers not seen] node, their outer
 * callers past what any window saw (a deep program's top frames) or the
 * sample not placed at all.
 */
static double chaining_whole_pct(const struct model *m, const struct cc_result *r)
{
	uint32_t *starts, marker;
	size_t nstarts = model_start_symbols(m, &starts);
	struct cct t;
	double pct;

	cct_init(&t);
	callerchain_to_cct(r, &t, NULL, starts, nstarts);
	cct_settle(&t);
	marker = cct_find(&t, CCT_ROOT, CCT_SYM_TRUNCATED);
	pct = percent((double)(t.samples - (marker ? cct_node(&t, marker)->total : 0)),
		      (double)t.samples);
	cct_free(&t);
	free(starts);
	return pct;
}

bool report_callerchain_text(const struct model *m, char *buf, size_t len)
{
	struct cc_result r;
	char ref[128];

	if (!m->callerchain_mode || !m->chaining.samples)
		return false;
	callerchain_build(&m->chaining, &r);
	if (r.compared[1] > 0)
		snprintf(buf, len, "callerchain: the tree rebuilt from stack depth (%u-byte window): "
			 "its callers agree with %s one level up in %.1f%% of %.0f samples, three "
			 "levels up in %.1f%% of %.0f; %.1f%% of samples reach main or a start, the "
			 "rest are under [callers not seen] (%.0f not placed)",
			 m->chain_window, chaining_reference(m, ref, sizeof(ref)),
			 percent(r.agreed[1], r.compared[1]),
			 r.compared[1], percent(r.agreed[3], r.compared[3]), r.compared[3],
			 chaining_whole_pct(m, &r), r.unresolved);
	else
		snprintf(buf, len, "callerchain: the tree rebuilt from stack depth (%u-byte window): "
			 "no sample had a chain to check it against", m->chain_window);
	callerchain_result_free(&r);
	return true;
}

struct json_object *report_callerchain_json(const struct model *m)
{
	const struct callerchain *c = &m->chaining;
	struct json_object *o, *agreement, *unique;
	struct cc_result r;
	char ref[128];

	if (!c->samples && !c->no_depth)
		return NULL;
	o = json_object_new_object();
	agreement = json_object_new_array();
	unique = json_object_new_object();
	callerchain_build(c, &r);
	report_add_u64(o, "window", m->chain_window);
	json_object_object_add(o, "rebuilt_tree_shown", json_object_new_boolean(m->callerchain_mode));
	report_add_u64(o, "samples", c->samples);
	report_add_u64(o, "no_depth", c->no_depth);
	report_add_u64(o, "quadruples", c->quadruples);
	report_add_u64(o, "backward", c->backward);
	report_add_u64(o, "dropped", c->dropped);
	/* The paper's Table 1: nodes, of them with several callers at one depth. */
	report_add_u64(o, "nodes", r.n ? r.n - 1 : 0);
	json_object_object_add(o, "capped", json_object_new_boolean(r.capped));
	report_add_u64(o, "ambiguous_nodes", r.ambiguous_nodes);
	json_object_object_add(o, "ambiguous_pct",
			       json_object_new_double(percent((double)r.ambiguous_nodes,
							      r.n > 1 ? (double)(r.n - 1) : 0)));
	report_add_u64(o, "functions", r.functions);
	json_object_object_add(unique, "1", json_object_new_double(percent(r.unique[1],
									  (double)r.samples)));
	json_object_object_add(unique, "3", json_object_new_double(percent(r.unique[3],
									  (double)r.samples)));
	json_object_object_add(o, "unique_pct", unique);
	json_object_object_add(o, "fitted", json_object_new_double(r.fitted));
	json_object_object_add(o, "unresolved", json_object_new_double(r.unresolved));
	json_object_object_add(o, "reach_start_pct",
			       json_object_new_double(chaining_whole_pct(m, &r)));
	json_object_object_add(o, "reference",
			       json_object_new_string(chaining_reference(m, ref, sizeof(ref))));
	if (m->callerchain_mode) {
		struct json_object *by = json_object_new_object();

		report_add_u64(by, "frame_pointer", m->chaining_fp_reference);
		report_add_u64(by, "dwarf", m->chaining_dwarf_reference);
		json_object_object_add(o, "reference_samples", by);
	}
	report_add_u64(o, "checked", c->checked);
	for (unsigned k = 1; k <= CC_LEVELS; k++) {
		struct json_object *j = json_object_new_object();

		report_add_u64(j, "level", k);
		json_object_object_add(j, "compared", json_object_new_double(r.compared[k]));
		json_object_object_add(j, "agreed_pct",
				       json_object_new_double(percent(r.agreed[k], r.compared[k])));
		json_object_object_add(j, "unambiguous_compared",
				       json_object_new_double(r.compared_clear[k]));
		json_object_object_add(j, "unambiguous_agreed_pct",
				       json_object_new_double(percent(r.agreed_clear[k],
								      r.compared_clear[k])));
		json_object_array_add(agreement, j);
	}
	json_object_object_add(o, "agreement", agreement);
	callerchain_result_free(&r);
	return o;
}

struct json_object *report_tree_node_json(const struct model *m, size_t i)
{
	const struct cct_node *n = cct_node(&m->tree, (uint32_t)i);
	const struct cct_counts *k = cct_counts_of(&m->tree, (uint32_t)i);
	struct json_object *j = json_object_new_object();

	report_add_u64(j, "id", i);
	report_add_u64(j, "parent", n->parent);
	json_object_object_add(j, "name", json_object_new_string(model_frame_name(m, n->sym)));
	report_add_u64(j, "self", n->self);
	report_add_u64(j, "total", n->total);
	if (k && k->cycles && k->instructions)
		json_object_object_add(j, "ipc", json_object_new_double(
			(double)k->instructions / (double)k->cycles));
	return j;
}

struct json_object *report_tree_json(const struct model *m, struct json_object *nodes)
{
	const struct cct *t = &m->tree;
	struct json_object *o = json_object_new_object();

	report_add_u64(o, "samples", t->samples);
	report_add_u64(o, "truncated", t->truncated);
	report_add_u64(o, "capped", t->capped);
	report_add_u64(o, "max_depth", t->max_depth);
	report_add_u64(o, "caller_frames", m->tree_frames);
	report_add_u64(o, "unknown_frames", m->tree_unknown);
	report_add_u64(o, "unwound", m->unwound);
	report_add_u64(o, "unwind_cut", m->unwind_cut);
	report_add_u64(o, "unwind_lost", m->unwind_lost);
	report_add_u64(o, "unwind_by_rows", model_unwind_stats(m)->by_rows);
	report_add_u64(o, "unwind_by_libdwfl", model_unwind_stats(m)->by_dwfl);
	report_add_u64(o, "unwind_frames_by_pages", model_unwind_stats(m)->frames_by_pages);
	{
		/* Why walks stopped, by enum unwind_stop. */
		static const char *const why[STOP_KINDS] = {
			"outermost", "copy_end", "max_frames", "by_libdwfl", "rbp_zero",
			"no_rule",
		};
		struct json_object *stops = json_object_new_object();

		for (int i = 0; i < STOP_KINDS; i++)
			report_add_u64(stops, why[i], model_unwind_stats(m)->stops[i]);
		json_object_object_add(o, "unwind_stops", stops);
	}
	{
		/* Files whose rows were opened: fresh, from the cache, a copy refused. */
		struct json_object *files = json_object_new_object();
		const uint64_t *n = model_unwind_stats(m)->rows_files;

		report_add_u64(files, "made", n[0]);
		report_add_u64(files, "from_cache", n[1]);
		report_add_u64(files, "cache_refused", n[2]);
		json_object_object_add(o, "unwind_rows_files", files);
	}
	{
		/* Why walks were handed to libdwfl, by enum unwind_fallback. */
		static const char *const why[FALLBACK_KINDS] = {
			"rule", "rbp_unknown",
		};
		struct json_object *falls = json_object_new_object();

		for (int i = 0; i < FALLBACK_KINDS; i++)
			report_add_u64(falls, why[i], model_unwind_stats(m)->fallbacks[i]);
		json_object_object_add(o, "unwind_fallbacks", falls);
	}
	report_add_u64(o, "kernel_walked", m->kernel_walked);
	{
		/* What the kernel's walker did with samples, by enum kw_count. */
		static const char *const what[KW_COUNTS] = {
			"walked", "kernel_mode", "no_process", "no_mapping", "no_row", "hard_rule",
		};
		struct json_object *kw = json_object_new_object();

		for (int i = 0; i < KW_COUNTS; i++)
			report_add_u64(kw, what[i], m->kernel_walk_counts[i]);
		json_object_object_add(o, "kernel_walk", kw);
	}
	if (m->kernel_walk_off[0])
		json_object_object_add(o, "kernel_walk_off", json_object_new_string(m->kernel_walk_off));
	if (m->unwind_check) {
		report_add_u64(o, "kernel_check_same", m->kernel_check_same);
		report_add_u64(o, "kernel_check_differ", m->kernel_check_differ);
		report_add_u64(o, "kernel_check_unmatched", m->kernel_check_unmatched);
		report_add_u64(o, "unwind_check_same", model_unwind_stats(m)->check_same);
		report_add_u64(o, "unwind_check_differ", model_unwind_stats(m)->check_differ);
		report_add_u64(o, "unwind_check_unable", model_unwind_stats(m)->check_unable);
		report_add_u64(o, "unwind_check_rows_ns", model_unwind_stats(m)->check_rows_ns);
		report_add_u64(o, "unwind_check_libdwfl_ns", model_unwind_stats(m)->check_dwfl_ns);
	}
	/* Node 0 is the root: every other names its parent (0 at the top). */
	if (!nodes) {
		nodes = json_object_new_array();
		for (size_t i = 1; i < t->n; i++)
			json_object_array_add(nodes, report_tree_node_json(m, i));
	}
	json_object_object_add(o, "nodes", nodes);
	return o;
}
