/*
 * callerchain.h - calling context trees rebuilt from stack depth alone:
 * CallerChaining (Inoue and Nakatani, OOPSLA 2009, §6).
 *
 * A frame is keyed by (function, depth), its depth the bytes from the
 * thread's stack base down to its CFA, which on x86-64 is constant for
 * the whole of one activation.  Observed caller/callee quadruples
 * {callee, callee depth, caller, caller depth} chain into a tree: a
 * callee hangs under every node of its caller's (function, depth), and
 * samples, each only (function, depth), map onto the nodes that match.
 * Where several nodes match (two callers with equal frame sizes; the
 * same functions in different orders: the paper's Fig. 7) the sample is
 * shared among them by edge hotness, as gprof shares, and counted as
 * ambiguous rather than guessed.  A sample whose depth matches no node
 * is fitted to a node of its function whose caller's or callee's depth
 * it has (§6.2), else counted as unresolved.
 *
 * On x86-64 a sample's few innermost callers come with it: its small
 * stack copy unwinds them exactly.  Those levels are taken as they are,
 * and the tree answers only for what lies beyond the copy, mapped from
 * the outermost frame the copy reached.
 *
 * Where a sample also has its full chain (an unwound stack, a
 * frame-pointer chain), the rebuilt context is checked against it, level
 * by level: the method's measured accuracy.
 */
#ifndef SHIMTOP_CALLERCHAIN_H
#define SHIMTOP_CALLERCHAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/cct.h"

#define CC_LEVELS	5u		/* callers compared with a reference chain */
#define CC_MAX_PAIRS	(1u << 17)	/* distinct (function, depth) */
#define CC_MAX_EDGES	(1u << 18)	/* distinct quadruples */
#define CC_MAX_NODES	(1u << 18)	/* nodes of the rebuilt tree */
#define CC_PATH		8u		/* a sample's own frames kept, leaf first */
#define CC_NONE		UINT32_MAX	/* "no caller": past a chain's root */

struct cc_sample_entry;
struct cc_edge_entry;

/* A frame as CallerChaining knows it. */
struct cc_frame {
	uint32_t sym, depth;
};

/* What a session fed in; bounded, and what did not fit is counted. */
struct callerchain {
	struct cc_sample_entry *samples_by_path;	/* (own frames, reference) -> samples */
	struct cc_edge_entry *edges;	/* quadruple -> observations */
	size_t npaths, nedges;
	uint64_t samples;		/* with a depth */
	uint64_t no_depth;		/* without: no stack base, or no CFA */
	uint64_t quadruples;		/* observed */
	uint64_t backward;		/* quadruples whose callee was not deeper: dropped */
	uint64_t dropped;		/* past a bound */
	uint64_t checked;		/* samples with a reference chain */
};

/* The rebuilt tree and the paper's Table 1 figures, with the agreement. */
struct cc_node {
	uint32_t sym, depth;
	uint32_t parent;		/* the root's is itself */
	uint32_t level;			/* the root 0 */
	double share;			/* of its pair's samples that are its (pi) */
	double self;			/* samples mapped here (shared: fractional) */
	bool ambiguous;			/* its pair has callers at one depth */
};

struct cc_result {
	struct cc_node *nodes;		/* nodes[0] is a synthetic root */
	size_t n, cap;
	bool capped;			/* CC_MAX_NODES reached: a part is missing */
	size_t ambiguous_nodes;
	size_t functions;
	uint64_t samples;
	double unique[CC_LEVELS + 1];	/* samples whose callers are one for k levels */
	double fitted, unresolved;
	/* Against reference chains: samples compared at level k, and matched. */
	double compared[CC_LEVELS + 1], agreed[CC_LEVELS + 1];
	double compared_clear[CC_LEVELS + 1], agreed_clear[CC_LEVELS + 1];
};

void callerchain_init(struct callerchain *c);
void callerchain_free(struct callerchain *c);
void callerchain_clear(struct callerchain *c);

/* callee at callee_depth was called by caller at caller_depth. */
void callerchain_add_call(struct callerchain *c, uint32_t callee, uint32_t callee_depth,
			  uint32_t caller, uint32_t caller_depth, uint64_t count);
/*
 * A sample: path[0] its function and depth, path[1..npath-1] the callers
 * its own stack copy gave (the paper's samples have none: npath 1), the
 * outermost of them the anchor mapped onto the tree;
 * reference[0..nreference-1] its full chain's callers, innermost first
 * (0: none to check against).
 */
void callerchain_add_sample(struct callerchain *c, const struct cc_frame *path, size_t npath,
			    const uint32_t *reference, size_t nreference, uint64_t count);

/*
 * Snapshots (the chaining section, snapshot.h): what was fed in, and
 * read back into an empty c with every symbol id put through map
 * (UINT32_MAX: no such symbol, refused).  0, or -EINVAL with the problem
 * in err.
 */
struct packed_out;
typedef uint32_t (*cc_symbol_map)(uint32_t id, void *arg);
void callerchain_save(const struct callerchain *c, struct packed_out *o);
int callerchain_load(struct callerchain *c, const uint8_t *p, size_t len, cc_symbol_map map,
		     void *arg, char *err, size_t errlen);

/* Chains, maps and checks: into r (callerchain_result_free it). */
void callerchain_build(const struct callerchain *c, struct cc_result *r);
void callerchain_result_free(struct cc_result *r);
/*
 * r's tree as a calling context tree of samples, root first: every
 * sample kept (the shares' fractions carried, the remainder to the
 * largest); a path whose outermost function is not in starts (sorted
 * ids: main, a process's or thread's start) goes under the tree's one
 * marker of missing callers (CCT_SYM_TRUNCATED: "[callers not seen]"),
 * as do samples the tree could not place, with their own frames.  With
 * marks, (*marks)[node] (one for each of to's nodes) is set where an
 * ambiguous node went (allocated: free it).
 */
void callerchain_to_cct(const struct cc_result *r, struct cct *to, uint8_t **marks,
			const uint32_t *starts, size_t nstarts);

#endif
