/* cct.c - the calling context tree (see cct.h). */
#include "model/cct.h"
#include "mapped.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

#define CCT_MAPPED_BYTES	((size_t)CCT_MAX_NODES * sizeof(struct cct_node))
#define CCT_COUNTS_BYTES	((size_t)CCT_MAX_NODES * sizeof(struct cct_counts))

static void make_root(struct cct *t)
{
	/* Reserved whole: the nodes never move nor are copied as the tree grows. */
	t->nodes = st_map_zeroed(CCT_MAPPED_BYTES, !t->large);
	t->mapped = t->nodes != NULL;
	t->cap = t->mapped ? CCT_MAX_NODES : 64;
	if (!t->mapped)
		t->nodes = st_xcalloc(t->cap, sizeof(*t->nodes));
	t->n = 1;
	t->nodes[CCT_ROOT].sym = CCT_SYM_ROOT;
}

void cct_init(struct cct *t)
{
	memset(t, 0, sizeof(*t));
}

void cct_expect_large(struct cct *t)
{
	t->large = true;
}

void cct_free(struct cct *t)
{
	uint32_t most = t->max_nodes;
	bool large = t->large;

	if (t->mapped)
		st_unmap(t->nodes, CCT_MAPPED_BYTES);
	else
		free(t->nodes);
	st_unmap(t->counts, CCT_COUNTS_BYTES);
	st_index_free(&t->children);
	memset(t, 0, sizeof(*t));
	t->max_nodes = most;	/* a bound, not a path: kept */
	t->large = large;
}

void cct_clear(struct cct *t)
{
	cct_free(t);
}

void cct_bound(struct cct *t, size_t bytes)
{
	size_t n = bytes / (sizeof(struct cct_node) + 2 * sizeof(struct st_index_slot));

	t->max_nodes = (uint32_t)(n < 1024 ? 1024 : n < CCT_MAX_NODES ? n : CCT_MAX_NODES);
}

void cct_zero(struct cct *t)
{
	for (size_t i = 0; i < t->n; i++) {
		struct cct_node *n = &t->nodes[i];

		n->self = n->self_weight = n->total = n->total_weight = 0;
	}
	if (t->counts)
		memset(t->counts, 0, t->n * sizeof(*t->counts));
	t->samples = t->truncated = t->capped = t->max_depth = t->steps = 0;
	t->unsettled = false;
}

/* The counters through each node, summed from the selves as the totals are. */
static void settle_counts(struct cct *t)
{
	if (!t->counts)
		return;
	for (size_t i = 0; i < t->n; i++) {
		t->counts[i].cycles = t->counts[i].self_cycles;
		t->counts[i].instructions = t->counts[i].self_instructions;
	}
	for (size_t i = t->n; i-- > 1;) {
		const struct cct_counts *c = &t->counts[i];
		struct cct_counts *p = &t->counts[t->nodes[i].parent];

		p->cycles += c->cycles;
		p->instructions += c->instructions;
	}
}

void cct_settle(struct cct *t)
{
	if (!t->unsettled)
		return;
	for (size_t i = 0; i < t->n; i++) {
		struct cct_node *n = &t->nodes[i];

		n->total = n->self;
		n->total_weight = n->self_weight;
	}
	/* A node is made after its parent (child_of): the deepest are summed first. */
	for (size_t i = t->n; i-- > 1;) {
		const struct cct_node *n = &t->nodes[i];
		struct cct_node *p = &t->nodes[n->parent];

		p->total += n->total;
		p->total_weight += n->total_weight;
	}
	settle_counts(t);
	t->unsettled = false;
}

uint32_t cct_find(const struct cct *t, uint32_t parent, uint32_t sym)
{
	struct st_index_probe p;

	for (uint32_t v = st_index_first(&t->children, st_index_hash(parent, sym), &p); v;
	     v = st_index_next(&t->children, &p))
		if (t->nodes[v].parent == parent && t->nodes[v].sym == sym)
			return v;
	return 0;
}

/* parent's child for sym, made if new; 0 when the tree is full. */
static uint32_t child_of(struct cct *t, uint32_t parent, uint32_t sym)
{
	struct cct_node *c;
	uint32_t at = t->nodes[parent].child;

	t->steps++;
	/* The newest child first: a path's only child, and a chain's run of one frame. */
	if (at && t->nodes[at].sym == sym)
		return at;
	at = cct_find(t, parent, sym);

	if (at || t->n >= cct_max_nodes(t))
		return at;
	st_index_add(&t->children, st_index_hash(parent, sym), (uint32_t)t->n);
	/* Bare: each node is cleared as it is made, not half the array at each doubling. */
	ST_GROW_BARE(t->nodes, t->cap, t->n + 1);
	c = &t->nodes[t->n];
	memset(c, 0, sizeof(*c));
	c->parent = parent;
	c->sym = sym;
	c->depth = t->nodes[parent].depth + 1;
	c->sibling = t->nodes[parent].child;
	t->nodes[parent].child = (uint32_t)t->n;
	return (uint32_t)t->n++;
}

uint32_t cct_child(struct cct *t, uint32_t parent, uint32_t sym)
{
	if (!t->nodes)
		make_root(t);
	return child_of(t, parent, sym);
}

uint32_t cct_add(struct cct *t, const uint32_t *frames, size_t n, bool truncated,
		 uint64_t weight)
{
	return cct_add_samples(t, frames, n, truncated, 1, weight);
}

uint32_t cct_add_under(struct cct *t, uint32_t parent, uint32_t sym, size_t n, bool truncated,
		       uint64_t weight)
{
	uint32_t at = child_of(t, parent, sym);

	t->samples++;
	t->truncated += truncated;
	if (!at) {
		at = parent;	/* past CCT_MAX_NODES: the deepest node there is */
		t->capped++;
	}
	if (n > t->max_depth)
		t->max_depth = n;
	t->nodes[at].self++;
	t->nodes[at].self_weight += weight;
	t->unsettled = true;
	return at;
}

uint32_t cct_rename(struct cct *t, uint32_t node, uint32_t sym, uint64_t n, uint64_t w,
		    uint64_t cycles, uint64_t instructions)
{
	struct cct_node *from, *to;
	uint32_t at;

	if (node == CCT_ROOT || node >= t->n || t->nodes[node].self < n ||
	    t->nodes[node].self_weight < w)
		return node;
	at = child_of(t, t->nodes[node].parent, sym);	/* may move the nodes */
	if (!at || at == node)
		return node;
	from = &t->nodes[node];
	to = &t->nodes[at];
	from->self -= n;
	from->self_weight -= w;
	to->self += n;
	to->self_weight += w;
	t->unsettled = true;
	if (t->counts) {
		struct cct_counts *cf = &t->counts[node], *ct = &t->counts[at];

		cycles = cycles < cf->self_cycles ? cycles : cf->self_cycles;
		instructions = instructions < cf->self_instructions ? instructions
								    : cf->self_instructions;
		cf->self_cycles -= cycles;
		cf->self_instructions -= instructions;
		ct->self_cycles += cycles;
		ct->self_instructions += instructions;
	}
	return at;
}

void cct_add_counters(struct cct *t, uint32_t node, uint64_t cycles, uint64_t instructions)
{
	if (!t->nodes || node >= t->n || (!cycles && !instructions))
		return;
	/* Reserved whole at the first, as the nodes are: touched as nodes get counters. */
	if (!t->counts)
		t->counts = st_xcheck(st_map_zeroed(CCT_COUNTS_BYTES, true));
	t->counts[node].self_cycles += cycles;
	t->counts[node].self_instructions += instructions;
	t->unsettled = true;
}

const struct cct_counts *cct_counts_of(const struct cct *t, uint32_t node)
{
	return t->counts && node < t->n ? &t->counts[node] : NULL;
}

uint32_t cct_add_samples(struct cct *t, const uint32_t *frames, size_t n, bool truncated,
			 uint64_t count, uint64_t weight)
{
	uint32_t at = CCT_ROOT;
	bool capped = false;

	if (!t->nodes)
		make_root(t);
	/* Too deep: the innermost frames, under the marker. */
	if (n > CCT_MAX_DEPTH) {
		frames += n - CCT_MAX_DEPTH;
		n = CCT_MAX_DEPTH;
		truncated = true;
	}
	t->samples += count;
	if (truncated) {
		uint32_t next = child_of(t, at, CCT_SYM_TRUNCATED);

		t->truncated += count;
		if (next)
			at = next;
		else
			capped = true;
	}
	for (size_t i = 0; i < n && !capped; i++) {
		uint32_t next = child_of(t, at, frames[i]);

		if (!next) {
			capped = true;
			break;
		}
		at = next;
	}
	t->capped += capped ? count : 0;
	if (n > t->max_depth)
		t->max_depth = n;
	t->nodes[at].self += count;
	t->nodes[at].self_weight += weight;
	t->unsettled = true;
	return at;
}

/* node's functions, itself first and up to the root's child, at most max: how many. */
static size_t path_up(const struct cct *t, uint32_t node, uint32_t *path, size_t max)
{
	size_t k = 0;

	for (uint32_t at = node; at != CCT_ROOT && k < max; at = t->nodes[at].parent)
		path[k++] = t->nodes[at].sym;
	return k;
}

/* A derived tree's sample of count samples along path, with from's node i's own counters. */
static void add_derived(struct cct *to, const uint32_t *path, size_t k,
			const struct cct *from, uint32_t i)
{
	const struct cct_node *n = &from->nodes[i];
	const struct cct_counts *c = cct_counts_of(from, i);
	uint32_t at = cct_add_samples(to, path, k, false, n->self, n->self_weight);

	if (c)
		cct_add_counters(to, at, c->self_cycles, c->self_instructions);
}

void cct_invert(const struct cct *from, struct cct *to)
{
	uint32_t path[CCT_MAX_DEPTH];

	cct_init(to);
	for (size_t i = 1; i < from->n; i++) {
		const struct cct_node *n = &from->nodes[i];
		size_t k;

		if (!n->self)
			continue;
		/* Leaf first: the bottom-up tree's root-first order (callers past 512 left off). */
		k = path_up(from, (uint32_t)i, path, CCT_MAX_DEPTH);
		add_derived(to, path, k, from, (uint32_t)i);
	}
	/* Cut and capped samples were counted when they came in; capped here too. */
	to->weighed = from->weighed;
	to->truncated = from->truncated;
	to->capped += from->capped;
	cct_settle(to);
}

static bool merged(const struct cct_transform *x, uint32_t sym)
{
	for (unsigned i = 0; i < x->nmerged; i++)
		if (x->merged[i] == sym)
			return true;
	return false;
}

size_t cct_path(const struct cct *t, uint32_t node, uint32_t *frames)
{
	size_t k = path_up(t, node, frames, CCT_MAX_DEPTH + 1);

	st_reverse_u32(frames, k);
	return k;
}

uint32_t cct_add_path_of(struct cct *t, const struct cct *from, uint32_t node, uint64_t count,
			 uint64_t weight)
{
	uint32_t path[CCT_MAX_DEPTH + 1];
	size_t k = cct_path(from, node, path);
	bool cut = k && path[0] == CCT_SYM_TRUNCATED;

	return cct_add_samples(t, path + cut, k - cut, cut, count, weight);
}

void cct_transform(const struct cct *from, const struct cct_transform *x, struct cct *to)
{
	uint32_t path[CCT_MAX_DEPTH + 1];

	cct_init(to);
	to->weighed = from->weighed;
	for (size_t i = 1; i < from->n; i++) {
		const struct cct_node *n = &from->nodes[i];
		size_t k, out = 0, start = 0;

		if (!n->self)
			continue;
		/* Root first; then focus, merge and collapse in place. */
		k = cct_path(from, (uint32_t)i, path);
		if (x->focus) {
			while (start < k && path[start] != x->focus_sym)
				start++;
			if (start == k)
				continue;	/* not through it: out of the focused tree */
		}
		for (size_t j = start; j < k; j++) {
			if (merged(x, path[j]))
				continue;
			if (x->collapse_recursion && out && path[out - 1] == path[j])
				continue;
			path[out++] = path[j];
		}
		add_derived(to, path, out, from, (uint32_t)i);
	}
	to->truncated = from->truncated;
	to->capped += from->capped;
	cct_settle(to);
}

static int hotter_node(const void *a, const void *b, void *tree)
{
	const struct cct *t = tree;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;

	uint64_t x = cct_amount(t, &t->nodes[i]), y = cct_amount(t, &t->nodes[j]);

	if (x != y)
		return x < y ? 1 : -1;
	return (i > j) - (i < j);
}

size_t cct_children_hottest(const struct cct *t, uint32_t node, uint32_t **kids)
{
	size_t n = 0, cap = 0;

	*kids = NULL;
	if (!t->nodes || node >= t->n)
		return 0;
	/* Zeroed (z) paths keep their nodes, without samples: left out. */
	for (uint32_t k = t->nodes[node].child; k; k = t->nodes[k].sibling) {
		if (!t->nodes[k].total)
			continue;
		ST_GROW(*kids, cap, n + 1);
		(*kids)[n++] = k;
	}
	if (n > 1)
		qsort_r(*kids, n, sizeof(**kids), hotter_node, (void *)t);
	return n;
}

static int by_sym(const void *a, const void *b)
{
	const struct cct_link *x = a, *y = b;

	return (x->sym > y->sym) - (x->sym < y->sym);
}

static int hotter_link(const void *a, const void *b)
{
	const struct cct_link *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return by_sym(a, b);
}

/* Sums the links of one function, then sorts them hottest first: how many. */
static size_t merge_links(struct cct_link *v, size_t n)
{
	size_t k = 0;

	if (!v)
		return 0;
	qsort(v, n, sizeof(*v), by_sym);
	for (size_t i = 0; i < n; i++) {
		if (k && v[k - 1].sym == v[i].sym)
			v[k - 1].samples += v[i].samples;
		else
			v[k++] = v[i];
	}
	qsort(v, k, sizeof(*v), hotter_link);
	return k;
}

/*
 * Whether the path from the root down to node at already calls callee from
 * caller: a recursion's deeper call of the same pair, whose samples the
 * outer one counted (a sample counts once per link, as perf's children).
 */
static bool called_above(const struct cct *t, uint32_t at, uint32_t caller, uint32_t callee)
{
	for (; at != CCT_ROOT; at = t->nodes[at].parent) {
		uint32_t up = t->nodes[at].parent;

		if (t->nodes[at].sym == callee && up != CCT_ROOT && t->nodes[up].sym == caller)
			return true;
	}
	return false;
}

uint64_t cct_links(const struct cct *t, uint32_t sym, struct cct_link **callers,
		   size_t *ncallers, struct cct_link **callees, size_t *ncallees)
{
	return cct_links_trusting(t, sym, NULL, NULL, callers, ncallers, callees, ncallees);
}

uint64_t cct_links_trusting(const struct cct *t, uint32_t sym, cct_top_trusted trusted,
			    void *arg, struct cct_link **callers, size_t *ncallers,
			    struct cct_link **callees, size_t *ncallees)
{
	size_t ncap = 0, ecap = 0;
	uint64_t through = 0;

	*callers = *callees = NULL;
	*ncallers = *ncallees = 0;
	for (size_t i = 1; i < t->n; i++) {
		const struct cct_node *n = &t->nodes[i];
		bool outer = true;

		if (n->sym != sym || !n->total)
			continue;
		/* Through sym once: its outermost nodes' totals. */
		for (uint32_t at = n->parent; at != CCT_ROOT && outer; at = t->nodes[at].parent)
			outer = t->nodes[at].sym != sym;
		if (outer)
			through += n->total;
		if (trusted && n->parent != CCT_ROOT && !trusted(t, (uint32_t)i, arg)) {
			/* Its callers are a broken chain's: one marked link, a sample once. */
			if (outer) {
				ST_GROW(*callers, ncap, *ncallers + 1);
				(*callers)[(*ncallers)++] = (struct cct_link){ CCT_SYM_BROKEN, n->total };
			}
		} else if (n->parent == CCT_ROOT ||
			   !called_above(t, n->parent, t->nodes[n->parent].sym, sym)) {
			ST_GROW(*callers, ncap, *ncallers + 1);
			(*callers)[(*ncallers)++] = (struct cct_link){
				n->parent == CCT_ROOT ? CCT_SYM_ROOT : t->nodes[n->parent].sym,
				n->total };
		}
		for (uint32_t k = n->child; k; k = t->nodes[k].sibling) {
			if (!t->nodes[k].total || called_above(t, i, sym, t->nodes[k].sym))
				continue;
			ST_GROW(*callees, ecap, *ncallees + 1);
			(*callees)[(*ncallees)++] = (struct cct_link){ t->nodes[k].sym,
								       t->nodes[k].total };
		}
	}
	*ncallers = merge_links(*callers, *ncallers);
	*ncallees = merge_links(*callees, *ncallees);
	return through;
}

void cct_through_by_symbol(const struct cct *t, uint64_t *by_sym, size_t nsym)
{
	uint64_t *through;
	uint32_t *on_path;
	uint32_t at;

	memset(by_sym, 0, nsym * sizeof(*by_sym));
	if (t->n < 2)
		return;
	/*
	 * Fresh mappings, not the heap: while a snapshot's copy of the
	 * process shares the heap, each page of a reused block was copied
	 * before the refresh wrote it (a refresh of a compile's tree took
	 * 172 ms where it took 30).
	 */
	through = st_table_alloc(t->n, sizeof(*through));
	on_path = st_table_alloc(nsym ? nsym : 1, sizeof(*on_path));
	for (size_t i = 0; i < t->n; i++)
		through[i] = t->nodes[i].self_weight;
	/* A node is made after its parent: the deepest are summed first. */
	for (size_t i = t->n; i-- > 1;)
		through[t->nodes[i].parent] += through[i];
	/*
	 * Depth first by the child and sibling links, counting the functions
	 * on the path: a node whose function is not above it adds its whole.
	 */
	at = t->nodes[CCT_ROOT].child;
	while (at) {
		const struct cct_node *n = &t->nodes[at];

		if (n->sym < nsym && on_path[n->sym]++ == 0)
			by_sym[n->sym] += through[at];
		if (n->child) {
			at = n->child;
			continue;
		}
		/* Leave it, and every parent whose last child it was. */
		for (;;) {
			n = &t->nodes[at];
			if (n->sym < nsym)
				on_path[n->sym]--;
			if (n->sibling) {
				at = n->sibling;
				break;
			}
			at = n->parent;
			if (at == CCT_ROOT) {
				at = 0;
				break;
			}
		}
	}
	st_table_free(on_path, nsym ? nsym : 1, sizeof(*on_path));
	st_table_free(through, t->n, sizeof(*through));
}

size_t cct_bytes(const struct cct *t)
{
	return t->cap * sizeof(*t->nodes) + t->children.cap * sizeof(*t->children.slots) +
	       (t->counts ? t->cap * sizeof(*t->counts) : 0);
}
