/*
 * cct.h - the calling context tree: every sample's call path, root
 * first, merged where paths share a prefix (Ammons, Ball and Larus'
 * CCT).  A node is a function in one context, keyed by (parent,
 * function); it keeps the samples that ended in it (self) and that
 * passed through it (total), counted and weighted by their periods.
 * A sample adds to its own node only: the totals are summed from the
 * selves when read (cct_settle), so a sample costs the same however
 * deep its path.
 * Bounded: paths deeper than CCT_MAX_DEPTH keep their innermost frames
 * under a "[truncated chain]" node (as do chains the kernel cut short),
 * and past CCT_MAX_NODES a sample stops at the deepest node it already
 * has, counted as capped, so the tree never silently loses a sample.
 */
#ifndef SHIMTOP_CCT_H
#define SHIMTOP_CCT_H

#include "index.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CCT_MAX_DEPTH		512u
#define CCT_MAX_NODES		(1u << 19)	/* 524,288 x 56 bytes = 29 MB, and the index */

#define CCT_ROOT		0u
/* Function ids beyond the symbolizer's: the synthetic nodes. */
#define CCT_SYM_ROOT		UINT32_MAX
#define CCT_SYM_TRUNCATED	(UINT32_MAX - 1)
/* A link, not a node: callers on chains that broke before a start (cct_links_trusting). */
#define CCT_SYM_BROKEN		(UINT32_MAX - 2)

struct cct_node {
	uint32_t parent;		/* the root's is itself; below its children */
	uint32_t sym;			/* st_symbol.id, or CCT_SYM_* */
	uint32_t child, sibling;	/* first child, next sibling; 0: none */
	uint32_t depth;			/* the root 0, its children 1 */
	uint32_t pad;
	uint64_t self, self_weight;	/* samples that ended here */
	/* Through it: good after cct_settle. */
	uint64_t total, total_weight;
};

/*
 * A node's counters (a PMU's cycles and instructions), beside the nodes:
 * without a PMU no sample has them, and in the node they were a third
 * of a compile's tree, zeroed pages a fresh VM pays for (issue 76).
 */
struct cct_counts {
	uint64_t self_cycles, self_instructions;	/* of the samples that ended here */
	uint64_t cycles, instructions;			/* through it, after cct_settle */
};

struct cct {
	struct cct_node *nodes;		/* nodes[0] is the root */
	size_t n, cap;
	struct cct_counts *counts;	/* nodes' counters, CCT_MAX_NODES; NULL: none yet */
	struct st_index children;	/* (parent, sym) -> node (the root is no one's child) */
	uint64_t samples;		/* every sample added */
	uint64_t truncated;		/* of them, under "[truncated chain]" */
	uint64_t capped;		/* of them, stopped short at cct_max_nodes */
	uint64_t max_depth;		/* the deepest path seen, frames */
	uint64_t steps;			/* child lookups made: the work samples cost (bench) */
	bool unsettled;			/* selves added since the totals were summed */
	bool mapped;			/* nodes: all CCT_MAX_NODES reserved (mapped.h) */
	bool large;			/* cct_expect_large: huge pages from the first node */
	/* Its shares by weight, not by count: a tree of waits (ns), whose counts say little. */
	bool weighed;
	uint32_t max_nodes;		/* 0: CCT_MAX_NODES (cct_bound) */
};

/* Nodes the tree makes at most. */
static inline uint32_t cct_max_nodes(const struct cct *t)
{
	return t->max_nodes ? t->max_nodes : CCT_MAX_NODES;
}

/* At most bytes of nodes and index (--memory), 1,024 nodes at least, CCT_MAX_NODES at most. */
void cct_bound(struct cct *t, size_t bytes);

/* What a node's share is of: its total samples, or its total weight in a weighed tree. */
static inline uint64_t cct_amount(const struct cct *t, const struct cct_node *n)
{
	return t->weighed ? n->total_weight : n->total;
}

/* ... and the whole's (the root's): 0 for an empty tree. */
static inline uint64_t cct_whole(const struct cct *t)
{
	return t->weighed ? (t->nodes ? t->nodes[0].total_weight : 0) : t->samples;
}

void cct_init(struct cct *t);
void cct_free(struct cct *t);
/*
 * A tree that grows past 2 MiB (a session's): its nodes on huge pages
 * from the first, before any is made.  Left small first, its first 2 MiB
 * were 512 faults of 10 us each on a VM's 4 KiB pages, a tenth of the
 * faults of a 5 s attach to a compile; kept through cct_free.
 */
void cct_expect_large(struct cct *t);
/* Forgets every path. */
void cct_clear(struct cct *t);
/*
 * Sums every node's totals (and cycles, instructions) from the selves
 * below it, if samples came since the last time: one pass over the
 * nodes, children after their parent.  Before reading totals.
 */
void cct_settle(struct cct *t);
/* Every count to zero, the nodes kept (z): node numbers stay valid. */
void cct_zero(struct cct *t);
/*
 * node's path, root first (the root left out), into frames (room for
 * CCT_MAX_DEPTH + 1): how many.
 */
size_t cct_path(const struct cct *t, uint32_t node, uint32_t *frames);

/*
 * One sample whose path is frames[0..n-1], outermost first, the sampled
 * function last; truncated: its outer frames are missing.  Returns its
 * node.
 */
uint32_t cct_add(struct cct *t, const uint32_t *frames, size_t n, bool truncated,
		 uint64_t weight);
/*
 * Samples that ended in node had these cycles and instructions: counted
 * in it, and settled into every node above, so a node's IPC is that of
 * the samples through it.
 */
void cct_add_counters(struct cct *t, uint32_t node, uint64_t cycles, uint64_t instructions);
/* node's counters, NULL where no sample of the tree had any. */
const struct cct_counts *cct_counts_of(const struct cct *t, uint32_t node);
/* The same for count samples of one path, weight their sum. */
uint32_t cct_add_samples(struct cct *t, const uint32_t *frames, size_t n, bool truncated,
			 uint64_t count, uint64_t weight);
/*
 * ... along the path to node of another tree (a part of it: a range's,
 * an event's), "[truncated chain]" kept as the mark it is there.
 */
uint32_t cct_add_path_of(struct cct *t, const struct cct *from, uint32_t node, uint64_t count,
			 uint64_t weight);
/*
 * parent's child for sym, made if new (0: the tree is full).  For a
 * caller that keeps the path it built (a thread's last chain).
 */
uint32_t cct_child(struct cct *t, uint32_t parent, uint32_t sym);
/*
 * One sample whose callers' path ends in parent (a node an earlier
 * cct_add returned the child of), sym its sampled function, n frames in
 * all: the same counts as cct_add of the whole path.
 */
uint32_t cct_add_under(struct cct *t, uint32_t parent, uint32_t sym, size_t n, bool truncated,
		       uint64_t weight);

/*
 * n samples (weight w, counters cycles and instructions) that ended in
 * node end in sym beside it instead (under the same parent): a late
 * name for them.  Returns the node they went to; node itself when it
 * holds fewer or the tree is full.
 */
uint32_t cct_rename(struct cct *t, uint32_t node, uint32_t sym, uint64_t n, uint64_t w,
		    uint64_t cycles, uint64_t instructions);

/*
 * The bottom-up tree of from into to (made here; cct_free it): at the
 * top each function where samples ended, under it its callers, theirs
 * under them, so a node's total is the samples of its top function
 * reached through that chain of callers.  "[truncated chain]" is the
 * outermost caller of a cut chain.
 */
void cct_invert(const struct cct *from, struct cct *to);

/*
 * The transforms users know from the Firefox Profiler, applied to every
 * sample's path: focus on a function (only paths through it, starting
 * at it), merge functions away (their samples go to their callers), and
 * collapse direct recursion (f f f is f).
 */
#define CCT_MERGE_MAX	8u
struct cct_transform {
	bool focus;
	uint32_t focus_sym;
	uint32_t merged[CCT_MERGE_MAX];
	unsigned nmerged;
	bool collapse_recursion;
};

static inline bool cct_transform_any(const struct cct_transform *x)
{
	return x->focus || x->nmerged || x->collapse_recursion;
}

/* from's paths through x into to (made here; cct_free it). */
void cct_transform(const struct cct *from, const struct cct_transform *x, struct cct *to);

static inline const struct cct_node *cct_node(const struct cct *t, uint32_t i)
{
	return &t->nodes[i];
}

/* The child of parent for function sym, or 0 if it has none. */
uint32_t cct_find(const struct cct *t, uint32_t parent, uint32_t sym);

/*
 * node's children that have samples, hottest first (ties by node
 * number, so the order is stable across refreshes), into *kids
 * (allocated; free it): how many.
 */
size_t cct_children_hottest(const struct cct *t, uint32_t node, uint32_t **kids);

/* A caller or callee of a function, with the samples along that edge. */
struct cct_link {
	uint32_t sym;		/* CCT_SYM_ROOT: called from nowhere known */
	uint64_t samples;
};

/*
 * Who calls sym and whom it calls, over all its contexts (perf report's
 * caller/callee view): each caller with the samples that reached sym
 * from it, each callee with the samples sym passed to it; hottest
 * first, allocated (free them).  A sample counts once for each link
 * however often recursion repeats it on its stack, as perf's children
 * do, so no share passes 100%.  Returns the samples through sym, a
 * recursive call counted once.
 */
uint64_t cct_links(const struct cct *t, uint32_t sym, struct cct_link **callers,
		   size_t *ncallers, struct cct_link **callees, size_t *ncallees);

/*
 * Each function's weight through it (its samples and its callees'), into
 * by_sym[0..nsym-1] (zeroed here; functions beyond nsym left out): a
 * sample counts once however often recursion repeats the function on its
 * path, as perf's children do.  Needs no cct_settle: O(nodes).
 */
void cct_through_by_symbol(const struct cct *t, uint64_t *by_sym, size_t nsym);

/*
 * The same, where trusted says whether the path down to a node of sym
 * holds callers: one that does not (a frame-pointer chain through code
 * without them ends in garbage) gives sym one caller, CCT_SYM_BROKEN,
 * with its samples, for its frames above sym are not known to be callers.
 */
typedef bool (*cct_top_trusted)(const struct cct *t, uint32_t node, void *arg);
uint64_t cct_links_trusting(const struct cct *t, uint32_t sym, cct_top_trusted trusted,
			    void *arg, struct cct_link **callers, size_t *ncallers,
			    struct cct_link **callees, size_t *ncallees);

/* Bytes the tree holds. */
size_t cct_bytes(const struct cct *t);

#endif
