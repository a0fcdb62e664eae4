/*
 * callerchain.c - CallerChaining: quadruples chained into a tree by
 * depth, samples mapped onto it, the result checked against full chains.
 */
#include "model/callerchain.h"
#include "ring/packed.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <uthash.h>

#define PAIR(sym, depth)	((uint64_t)(sym) << 32 | (uint32_t)(depth))
#define PAIR_SYM(k)		((uint32_t)((k) >> 32))
#define PAIR_DEPTH(k)		((uint32_t)(k))

struct cc_edge_key {
	uint64_t caller, callee;
};

struct cc_edge_entry {
	UT_hash_handle hh;
	struct cc_edge_key key;
	uint64_t count;
};

struct cc_sample_key {
	uint64_t path[CC_PATH];		/* PAIR()s, leaf first */
	uint32_t npath;
	uint32_t reference[CC_LEVELS];
	uint32_t nreference;
};

struct cc_sample_entry {
	UT_hash_handle hh;
	struct cc_sample_key key;
	uint64_t count;
};

void callerchain_init(struct callerchain *c)
{
	memset(c, 0, sizeof(*c));
}

void callerchain_clear(struct callerchain *c)
{
	ST_HASH_FREE_ALL(c->samples_by_path);
	ST_HASH_FREE_ALL(c->edges);
	callerchain_init(c);
}

void callerchain_free(struct callerchain *c)
{
	callerchain_clear(c);
}

void callerchain_add_call(struct callerchain *c, uint32_t callee, uint32_t callee_depth,
			  uint32_t caller, uint32_t caller_depth, uint64_t count)
{
	struct cc_edge_key key = { PAIR(caller, caller_depth), PAIR(callee, callee_depth) };
	struct cc_edge_entry *e;

	c->quadruples += count;
	/* The stack grows down: a callee's frame lies below its caller's. */
	if (callee_depth <= caller_depth) {
		c->backward += count;
		return;
	}
	HASH_FIND(hh, c->edges, &key, sizeof(key), e);
	if (!e) {
		if (c->nedges >= CC_MAX_EDGES) {
			c->dropped += count;
			return;
		}
		e = st_xcalloc(1, sizeof(*e));
		e->key = key;
		HASH_ADD(hh, c->edges, key, sizeof(e->key), e);
		c->nedges++;
	}
	e->count += count;
}

void callerchain_add_sample(struct callerchain *c, const struct cc_frame *path, size_t npath,
			    const uint32_t *reference, size_t nreference, uint64_t count)
{
	struct cc_sample_key key;
	struct cc_sample_entry *e;

	if (!npath)
		return;
	memset(&key, 0, sizeof(key));
	key.npath = (uint32_t)(npath < CC_PATH ? npath : CC_PATH);
	for (uint32_t i = 0; i < key.npath; i++)
		key.path[i] = PAIR(path[i].sym, path[i].depth);
	key.nreference = (uint32_t)(nreference < CC_LEVELS ? nreference : CC_LEVELS);
	for (uint32_t i = 0; i < CC_LEVELS; i++)
		key.reference[i] = i < key.nreference ? reference[i] : CC_NONE;
	HASH_FIND(hh, c->samples_by_path, &key, sizeof(key), e);
	if (!e) {
		if (c->npaths >= CC_MAX_PAIRS) {
			c->dropped += count;
			return;
		}
		e = st_xcalloc(1, sizeof(*e));
		e->key = key;
		HASH_ADD(hh, c->samples_by_path, key, sizeof(e->key), e);
		c->npaths++;
	}
	e->count += count;
	c->samples += count;
	if (key.nreference)
		c->checked += count;
}

/*
 * The chaining section: u32 version (1); u64 samples, no_depth,
 * quadruples, backward, dropped, checked; u32 edges, each u32 caller,
 * caller depth, callee, callee depth and u64 count; u32 paths, each
 * u32 frames (1 to CC_PATH) and as many u32 symbol and depth, u32
 * reference callers (to CC_LEVELS) and as many symbols, u64 count.
 */
#define CC_SAVE_VERSION 1u

void callerchain_save(const struct callerchain *c, struct packed_out *o)
{
	const struct cc_edge_entry *e;
	const struct cc_sample_entry *s;

	packed_u32(o, CC_SAVE_VERSION);
	packed_u64(o, c->samples);
	packed_u64(o, c->no_depth);
	packed_u64(o, c->quadruples);
	packed_u64(o, c->backward);
	packed_u64(o, c->dropped);
	packed_u64(o, c->checked);
	packed_u32(o, (uint32_t)c->nedges);
	for (e = c->edges; e; e = e->hh.next) {
		packed_u32(o, PAIR_SYM(e->key.caller));
		packed_u32(o, PAIR_DEPTH(e->key.caller));
		packed_u32(o, PAIR_SYM(e->key.callee));
		packed_u32(o, PAIR_DEPTH(e->key.callee));
		packed_u64(o, e->count);
	}
	packed_u32(o, (uint32_t)c->npaths);
	for (s = c->samples_by_path; s; s = s->hh.next) {
		packed_u32(o, s->key.npath);
		for (uint32_t i = 0; i < s->key.npath; i++) {
			packed_u32(o, PAIR_SYM(s->key.path[i]));
			packed_u32(o, PAIR_DEPTH(s->key.path[i]));
		}
		packed_u32(o, s->key.nreference);
		for (uint32_t i = 0; i < s->key.nreference; i++)
			packed_u32(o, s->key.reference[i]);
		packed_u64(o, s->count);
	}
}

static uint32_t mapped(struct packed_in *in, cc_symbol_map map, void *arg)
{
	uint32_t id = packed_get_u32(in);

	return id == CC_NONE ? CC_NONE : map(id, arg);
}

int callerchain_load(struct callerchain *c, const uint8_t *p, size_t len, cc_symbol_map map,
		     void *arg, char *err, size_t errlen)
{
	struct packed_in in = { p, len, 0, false };
	uint64_t totals[6];
	uint32_t n;

	if (packed_get_u32(&in) != CC_SAVE_VERSION || in.bad)
		return st_refuse(err, errlen, "the chaining section is of another version");
	for (int i = 0; i < 6; i++)
		totals[i] = packed_get_u64(&in);
	n = packed_get_u32(&in);
	if (in.bad || n > CC_MAX_EDGES)
		return st_refuse(err, errlen, "the chaining section holds %u calls, more than %u",
				 n, CC_MAX_EDGES);
	for (uint32_t k = 0; k < n; k++) {
		uint32_t caller = mapped(&in, map, arg), caller_depth = packed_get_u32(&in);
		uint32_t callee = mapped(&in, map, arg), callee_depth = packed_get_u32(&in);
		uint64_t count = packed_get_u64(&in);

		if (in.bad || caller == CC_NONE || callee == CC_NONE)
			return st_refuse(err, errlen, "call %u of the chaining section names no "
					 "symbol of the snapshot, or is cut short", k);
		callerchain_add_call(c, callee, callee_depth, caller, caller_depth, count);
	}
	n = packed_get_u32(&in);
	if (in.bad || n > CC_MAX_PAIRS)
		return st_refuse(err, errlen, "the chaining section holds %u paths, more than %u",
				 n, CC_MAX_PAIRS);
	for (uint32_t k = 0; k < n; k++) {
		struct cc_frame path[CC_PATH];
		uint32_t reference[CC_LEVELS], npath = packed_get_u32(&in), nreference;
		uint64_t count;

		if (in.bad || !npath || npath > CC_PATH)
			return st_refuse(err, errlen, "path %u of the chaining section has %u "
					 "frames, not 1 to %u", k, npath, CC_PATH);
		for (uint32_t i = 0; i < npath; i++) {
			path[i].sym = mapped(&in, map, arg);
			path[i].depth = packed_get_u32(&in);
			if (path[i].sym == CC_NONE)
				in.bad = true;
		}
		nreference = packed_get_u32(&in);
		if (in.bad || nreference > CC_LEVELS)
			return st_refuse(err, errlen, "path %u of the chaining section is "
					 "malformed", k);
		for (uint32_t i = 0; i < nreference; i++)
			reference[i] = mapped(&in, map, arg);
		count = packed_get_u64(&in);
		if (in.bad)
			return st_refuse(err, errlen, "the chaining section is cut short");
		callerchain_add_sample(c, path, npath, reference, nreference, count);
	}
	if (packed_left(&in))
		return st_refuse(err, errlen, "%zu bytes follow the chaining section's end",
				 packed_left(&in));
	c->samples = totals[0];
	c->no_depth = totals[1];
	c->quadruples = totals[2];
	c->backward = totals[3];
	c->dropped = totals[4];
	c->checked = totals[5];
	return 0;
}

/* The build's view of the pairs: an index each, and edges in and out. */
struct pair_slot {
	UT_hash_handle hh;
	uint64_t key;
	uint32_t index;
};

struct build {
	struct pair_slot *slots, *by_key;
	size_t npairs;
	uint32_t *out_start, *out_edge;		/* edges by caller: CSR */
	uint32_t *node_start, *node_list;	/* nodes by pair: CSR */
	uint32_t *child, *sibling;		/* each node's callees */
	uint64_t *by_sym;			/* sym << 32 | node, sorted */
	uint64_t *in_weight;			/* observations into a pair */
	uint32_t *in_callers;			/* distinct callers of a pair */
	bool *has_in;
	struct cc_edge_entry **edge_v;
	size_t nedges;
};

static uint32_t slot_of(struct build *b, uint64_t key, bool add)
{
	struct pair_slot *s;

	HASH_FIND(hh, b->by_key, &key, sizeof(key), s);
	if (s)
		return s->index;
	if (!add)
		return UINT32_MAX;
	s = &b->slots[b->npairs];
	s->key = key;
	s->index = (uint32_t)b->npairs++;
	HASH_ADD(hh, b->by_key, key, sizeof(s->key), s);
	return s->index;
}

static void build_graph(const struct callerchain *c, struct build *b)
{
	size_t cap = CC_PATH * c->npaths + 2 * c->nedges + 1, i = 0;
	const struct cc_sample_entry *p;
	struct cc_edge_entry *e;

	b->slots = st_xcalloc(cap, sizeof(*b->slots));
	for (p = c->samples_by_path; p; p = p->hh.next)
		for (uint32_t k = 0; k < p->key.npath; k++)
			slot_of(b, p->key.path[k], true);
	b->edge_v = st_xcalloc(c->nedges + 1, sizeof(*b->edge_v));
	for (e = c->edges; e; e = e->hh.next) {
		slot_of(b, e->key.caller, true);
		slot_of(b, e->key.callee, true);
		b->edge_v[b->nedges++] = e;
	}
	b->in_weight = st_xcalloc(b->npairs + 1, sizeof(*b->in_weight));
	b->in_callers = st_xcalloc(b->npairs + 1, sizeof(*b->in_callers));
	b->has_in = st_xcalloc(b->npairs + 1, sizeof(*b->has_in));
	b->out_start = st_xcalloc(b->npairs + 1, sizeof(*b->out_start));
	b->out_edge = st_xcalloc(b->nedges + 1, sizeof(*b->out_edge));
	for (i = 0; i < b->nedges; i++) {
		uint32_t from = slot_of(b, b->edge_v[i]->key.caller, false);
		uint32_t to = slot_of(b, b->edge_v[i]->key.callee, false);

		b->out_start[from + 1]++;
		b->in_weight[to] += b->edge_v[i]->count;
		b->in_callers[to]++;
		b->has_in[to] = true;
	}
	for (i = 0; i < b->npairs; i++)
		b->out_start[i + 1] += b->out_start[i];
	{
		uint32_t *fill = st_xcalloc(b->npairs + 1, sizeof(*fill));

		for (i = 0; i < b->nedges; i++) {
			uint32_t from = slot_of(b, b->edge_v[i]->key.caller, false);

			b->out_edge[b->out_start[from] + fill[from]++] = (uint32_t)i;
		}
		free(fill);
	}
}

static void build_free(struct build *b)
{
	HASH_CLEAR(hh, b->by_key);
	free(b->slots);
	free(b->edge_v);
	free(b->in_weight);
	free(b->in_callers);
	free(b->has_in);
	free(b->out_start);
	free(b->out_edge);
	free(b->node_start);
	free(b->node_list);
	free(b->child);
	free(b->sibling);
	free(b->by_sym);
}

static uint32_t add_node(struct cc_result *r, size_t *cap, uint64_t key, uint32_t parent,
			 double share, bool ambiguous)
{
	struct cc_node *n;

	if (r->n >= CC_MAX_NODES) {
		r->capped = true;
		return UINT32_MAX;
	}
	ST_GROW(r->nodes, *cap, r->n + 1);
	n = &r->nodes[r->n];
	memset(n, 0, sizeof(*n));
	n->sym = PAIR_SYM(key);
	n->depth = PAIR_DEPTH(key);
	n->parent = parent;
	n->level = parent == UINT32_MAX ? 0 : r->nodes[parent].level + 1;
	n->share = share;
	n->ambiguous = ambiguous;
	return (uint32_t)r->n++;
}

/*
 * Every root pair (calls, but no caller observed) and, under each node, a node per
 * observed callee of its pair: depths grow strictly along edges, so the
 * walk ends; an explicit stack keeps deep recursion off the C stack.
 */
static void chain(const struct build *b, struct cc_result *r)
{
	size_t *cap = &r->cap, scap = 0, sn = 0;
	uint32_t *stack = NULL;

	add_node(r, cap, PAIR(CCT_SYM_ROOT, 0), UINT32_MAX, 1.0, false);
	r->nodes[0].parent = 0;
	for (size_t i = 0; i < b->npairs; i++) {
		uint32_t n;

		/* A pair seen only in samples is fitted, or unresolved. */
		if (b->has_in[i] || b->out_start[i] == b->out_start[i + 1])
			continue;
		n = add_node(r, cap, b->slots[i].key, 0, 1.0, false);
		if (n == UINT32_MAX)
			break;
		ST_GROW(stack, scap, sn + 1);
		stack[sn++] = n;
		while (sn) {
			uint32_t at = stack[--sn];
			uint32_t from = slot_of((struct build *)b, PAIR(r->nodes[at].sym,
							  r->nodes[at].depth), false);

			for (uint32_t k = b->out_start[from]; k < b->out_start[from + 1]; k++) {
				const struct cc_edge_entry *e = b->edge_v[b->out_edge[k]];
				uint32_t to = slot_of((struct build *)b, e->key.callee, false);
				double share = r->nodes[at].share * (double)e->count /
					(double)b->in_weight[to];
				uint32_t child = add_node(r, cap, e->key.callee, at, share,
							  b->in_callers[to] > 1);

				if (child == UINT32_MAX)
					break;
				ST_GROW(stack, scap, sn + 1);
				stack[sn++] = child;
			}
		}
	}
	free(stack);
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void index_nodes(struct build *b, const struct cc_result *r)
{
	uint32_t *fill;

	b->node_start = st_xcalloc(b->npairs + 1, sizeof(*b->node_start));
	b->node_list = st_xcalloc(r->n + 1, sizeof(*b->node_list));
	for (size_t i = 1; i < r->n; i++)
		b->node_start[slot_of(b, PAIR(r->nodes[i].sym, r->nodes[i].depth), false) + 1]++;
	for (size_t i = 0; i < b->npairs; i++)
		b->node_start[i + 1] += b->node_start[i];
	fill = st_xcalloc(b->npairs + 1, sizeof(*fill));
	for (size_t i = 1; i < r->n; i++) {
		uint32_t s = slot_of(b, PAIR(r->nodes[i].sym, r->nodes[i].depth), false);

		b->node_list[b->node_start[s] + fill[s]++] = (uint32_t)i;
	}
	free(fill);
	b->child = st_xcalloc(r->n + 1, sizeof(*b->child));
	b->sibling = st_xcalloc(r->n + 1, sizeof(*b->sibling));
	b->by_sym = st_xcalloc(r->n + 1, sizeof(*b->by_sym));
	for (size_t i = r->n; i-- > 1;) {
		uint32_t parent = r->nodes[i].parent;

		b->sibling[i] = b->child[parent];
		b->child[parent] = (uint32_t)i;
	}
	for (size_t i = 1; i < r->n; i++)
		b->by_sym[i - 1] = (uint64_t)r->nodes[i].sym << 32 | i;
	if (r->n > 1)
		qsort(b->by_sym, r->n - 1, sizeof(*b->by_sym), compare_u64);
}

/* A node's k-th caller's function, CC_NONE past the root. */
static uint32_t caller_at(const struct cc_result *r, uint32_t n, unsigned k)
{
	for (unsigned i = 0; i < k; i++) {
		n = r->nodes[n].parent;
		if (n == 0)
			return CC_NONE;
	}
	return r->nodes[n].sym;
}

#define MAX_CANDIDATES	64u

/*
 * The nodes a sample at key maps to, with their shares summing to 1: its
 * pair's nodes, else (fitted) its function's nodes whose caller or a
 * callee has its depth.  Returns how many; *fitted says which way.
 */
static size_t candidates(const struct build *b, const struct cc_result *r, uint64_t key,
			 uint32_t *out, double *share, bool *fitted)
{
	uint32_t s = slot_of((struct build *)b, key, false), sym = PAIR_SYM(key);
	uint32_t depth = PAIR_DEPTH(key);
	size_t n = 0;
	double sum = 0;

	*fitted = false;
	if (s != UINT32_MAX)
		for (uint32_t i = b->node_start[s]; i < b->node_start[s + 1] &&
		     n < MAX_CANDIDATES; i++)
			out[n++] = b->node_list[i];
	if (!n && r->n > 1) {
		/* The first node of sym in by_sym, then each one of them. */
		size_t lo = 0, hi = r->n - 1;

		*fitted = true;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if ((uint32_t)(b->by_sym[mid] >> 32) < sym)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < r->n - 1 && (uint32_t)(b->by_sym[lo] >> 32) == sym &&
		     n < MAX_CANDIDATES; lo++) {
			uint32_t i = (uint32_t)b->by_sym[lo];
			bool fits = r->nodes[i].parent && r->nodes[r->nodes[i].parent].depth == depth;

			for (uint32_t k = b->child[i]; k && !fits; k = b->sibling[k])
				fits = r->nodes[k].depth == depth;
			if (fits)
				out[n++] = i;
		}
	}
	for (size_t i = 0; i < n; i++)
		sum += r->nodes[out[i]].share;
	for (size_t i = 0; i < n; i++)
		share[i] = sum > 0 ? r->nodes[out[i]].share / sum : 1.0 / (double)n;
	return n;
}

/* How many levels of callers all of cand know and agree on (CC_LEVELS at most). */
static unsigned agreed_levels(const struct cc_result *r, const uint32_t *cand, size_t n)
{
	unsigned k;

	for (k = 1; k <= CC_LEVELS; k++) {
		uint32_t first = caller_at(r, cand[0], k);

		for (size_t i = 1; i < n; i++)
			if (caller_at(r, cand[i], k) != first)
				return k - 1;
		if (first == CC_NONE)
			return k - 1;	/* no caller known: not identified */
	}
	return CC_LEVELS;
}

/* From node at, down the sample's own frames path[j-1..0]: where it ends. */
static uint32_t descend(const struct build *b, const struct cc_result *r, uint32_t at,
			const uint64_t *path, uint32_t j, bool *whole)
{
	*whole = true;
	while (j--) {
		uint32_t k;

		for (k = b->child[at]; k; k = b->sibling[k])
			if (PAIR(r->nodes[k].sym, r->nodes[k].depth) == path[j])
				break;
		if (!k) {
			*whole = false;
			return at;
		}
		at = k;
	}
	return at;
}

/*
 * The k-th caller of a sample anchored at its own frame j, placed at node
 * c: its own copy's where it reaches, the tree's above.
 */
static uint32_t sample_caller(const struct cc_result *r, const struct cc_sample_key *key,
			      uint32_t j, uint32_t c, unsigned k)
{
	return k < key->npath ? PAIR_SYM(key->path[k]) : caller_at(r, c, k - j);
}

/*
 * A sample the tree has no node for keeps its own frames, outermost
 * first, as a path of nodes from the root with all of its count (no
 * start leads there: it goes under the marker of unseen callers).  Made
 * once every sample is mapped: candidates() indexes the nodes before.
 */
static void place_unseen(struct cc_result *r, const struct cc_sample_key *key, uint64_t count)
{
	uint32_t at = 0;

	for (uint32_t j = key->npath; j-- > 0;) {
		uint32_t n = add_node(r, &r->cap, key->path[j], at, 1.0, false);

		if (n == UINT32_MAX)
			return;
		at = n;
	}
	if (at)
		r->nodes[at].self += (double)count;
}

/* Returns false when the tree had no place for it. */
static bool map_sample(const struct build *b, struct cc_result *r,
		       const struct cc_sample_entry *e)
{
	const struct cc_sample_key *key = &e->key;
	uint32_t cand[MAX_CANDIDATES], j = key->npath;
	double share[MAX_CANDIDATES], count = (double)e->count;
	bool fitted = false, clear;
	size_t n = 0;
	unsigned levels;

	r->samples += e->count;
	/* The outermost own frame the tree knows anchors the sample. */
	while (j-- > 0 && !(n = candidates(b, r, key->path[j], cand, share, &fitted)))
		;
	if (!n) {
		/* Not in the tree (or past its cap): its own copy's callers still count. */
		unsigned own = key->npath - 1;

		r->unresolved += count;
		for (unsigned k = 1; k <= own && k <= CC_LEVELS; k++)
			r->unique[k] += count;
		for (unsigned k = 1; k <= key->nreference; k++) {
			bool same = k <= own;

			for (unsigned l = 1; l <= k && same; l++)
				same = PAIR_SYM(key->path[l]) == key->reference[l - 1];
			r->compared[k] += count;
			r->agreed[k] += same ? count : 0;
		}
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		bool whole;
		uint32_t at = descend(b, r, cand[i], key->path, j, &whole);

		r->nodes[at].self += count * share[i];
		fitted |= !whole;
	}
	if (fitted)
		r->fitted += count;
	levels = agreed_levels(r, cand, n);
	levels = levels >= CC_LEVELS || j + levels >= CC_LEVELS ? CC_LEVELS : j + levels;
	if (levels < key->npath - 1)
		levels = key->npath - 1 < CC_LEVELS ? key->npath - 1 : CC_LEVELS;
	for (unsigned k = 1; k <= levels; k++)
		r->unique[k] += count;
	clear = n == 1 && !r->nodes[cand[0]].ambiguous;
	for (unsigned k = 1; k <= key->nreference; k++) {
		double agree = 0;

		for (size_t i = 0; i < n; i++) {
			bool same = true;

			for (unsigned l = 1; l <= k && same; l++)
				same = sample_caller(r, key, j, cand[i], l) == key->reference[l - 1];
			agree += same ? share[i] : 0;
		}
		r->compared[k] += count;
		r->agreed[k] += count * agree;
		if (clear) {
			r->compared_clear[k] += count;
			r->agreed_clear[k] += count * agree;
		}
	}
	return true;
}

void callerchain_build(const struct callerchain *c, struct cc_result *r)
{
	struct build b;
	const struct cc_sample_entry *e, **unplaced = NULL;
	size_t nunplaced = 0, unplaced_cap = 0;

	memset(r, 0, sizeof(*r));
	memset(&b, 0, sizeof(b));
	build_graph(c, &b);
	chain(&b, r);
	index_nodes(&b, r);
	for (size_t i = 1; i < r->n; i++)
		r->ambiguous_nodes += r->nodes[i].ambiguous;
	/* Functions: distinct syms among the nodes, which by_sym sorts. */
	for (size_t i = 0; i + 1 < r->n; i++)
		r->functions += i == 0 || b.by_sym[i] >> 32 != b.by_sym[i - 1] >> 32;
	for (e = c->samples_by_path; e; e = e->hh.next)
		if (!map_sample(&b, r, e)) {
			ST_GROW(unplaced, unplaced_cap, nunplaced + 1);
			unplaced[nunplaced++] = e;
		}
	build_free(&b);
	for (size_t i = 0; i < nunplaced; i++)
		place_unseen(r, &unplaced[i]->key, unplaced[i]->count);
	free(unplaced);
}

void callerchain_result_free(struct cc_result *r)
{
	free(r->nodes);
	memset(r, 0, sizeof(*r));
}

/* Node i's share of the samples, whole: the fractions carried over to the largest. */
struct whole_count {
	uint32_t node;
	uint64_t count;
	double rest;
};

static int larger_rest(const void *pa, const void *pb)
{
	const struct whole_count *a = pa, *b = pb;

	if (a->rest != b->rest)
		return a->rest > b->rest ? -1 : 1;
	return (a->node > b->node) - (a->node < b->node);
}

/* Every node's samples as whole numbers that sum to the round total (largest remainder). */
static struct whole_count *whole_counts(const struct cc_result *r, size_t *n)
{
	struct whole_count *v = st_xcalloc(r->n ? r->n : 1, sizeof(*v));
	double sum = 0;
	uint64_t floors = 0, total;
	size_t k = 0;

	for (size_t i = 1; i < r->n; i++) {
		double self = r->nodes[i].self > 0 ? r->nodes[i].self : 0;

		if (self <= 0)
			continue;
		v[k] = (struct whole_count){ (uint32_t)i, (uint64_t)self, 0 };
		v[k].rest = self - (double)v[k].count;
		floors += v[k].count;
		sum += self;
		k++;
	}
	total = (uint64_t)(sum + 0.5);
	qsort(v, k, sizeof(*v), larger_rest);
	for (size_t i = 0; i < k && floors < total; i++, floors++)
		v[i].count++;
	*n = k;
	return v;
}

static bool is_listed(const uint32_t *ids, size_t n, uint32_t id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && ids[lo] == id;
}

void callerchain_to_cct(const struct cc_result *r, struct cct *to, uint8_t **marks,
			const uint32_t *starts, size_t nstarts)
{
	uint32_t frames[CCT_MAX_DEPTH];
	size_t marks_cap = 0, nc;
	struct whole_count *counts = whole_counts(r, &nc);

	if (marks)
		*marks = NULL;
	for (size_t w = 0; w < nc; w++) {
		uint32_t i = counts[w].node;
		uint64_t count = counts[w].count;
		size_t n = 0;
		uint32_t leaf;
		bool unseen;

		if (!count)
			continue;
		for (uint32_t at = i; at && n < CCT_MAX_DEPTH; at = r->nodes[at].parent)
			frames[n++] = r->nodes[at].sym;
		st_reverse_u32(frames, n);
		/* Callers the tree never saw above its outermost frame: under the marker. */
		unseen = !is_listed(starts, nstarts, frames[0]);
		leaf = cct_add_samples(to, frames, n, unseen, count, count);
		if (!marks || cct_node(to, leaf)->depth != n + unseen)
			continue;	/* the tree is full: not where the path ends */
		/* The two paths side by side, up to the root: mark the ambiguous. */
		for (uint32_t at = i, c = leaf; at && c; at = r->nodes[at].parent,
		     c = cct_node(to, c)->parent) {
			size_t had = marks_cap;

			if (!r->nodes[at].ambiguous)
				continue;
			ST_GROW(*marks, marks_cap, (size_t)c + 1);
			memset(*marks + had, 0, marks_cap - had);
			(*marks)[c] = 1;
		}
	}
	free(counts);
	cct_settle(to);
	/* A mark for every node of to, so readers index by node alone. */
	if (marks) {
		size_t had = marks_cap;

		ST_GROW(*marks, marks_cap, to->n + 1);
		memset(*marks + had, 0, marks_cap - had);
	}
}
