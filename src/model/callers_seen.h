/*
 * callers_seen.h - the call tree's node for a frame-pointer chain's
 * callers, found by the chain's raw addresses.  Most samples come from
 * a place whose callers were seen a moment ago (a clang++ compile: 78%
 * of its samples at 10 kHz); with this, such a sample costs one probe
 * and one child in the tree, not a symbol lookup and a tree probe per
 * frame.  Direct-mapped and bounded; an entry holds only for the
 * address space generation it was made in (symbolizer_generation), so
 * a new mapping, exec or JIT map makes it a miss.
 */
#ifndef SHIMTOP_CALLERS_SEEN_H
#define SHIMTOP_CALLERS_SEEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CALLERS_SEEN_SLOTS	4096u
/*
 * An entry keeps a chain's first 8 addresses and the 64-bit hash of all
 * of them: two chains of the same length and first 8 share the hash by
 * chance one time in 2^64 (a target that forged its frame pointers to
 * collide would misplace only its own samples, which forged frame
 * pointers do anyway).  Kept whole, an entry was 424 bytes: a hit read
 * seven cache lines.  Longer than the kernel's 127 frames: not kept.
 */
#define CALLERS_SEEN_IPS	8u
#define CALLERS_SEEN_MAX	4096u

struct callers_seen_entry {
	uint64_t hash, gen;
	uint32_t node;		/* the callers' node in the tree; 0: empty */
	uint32_t root;		/* the outermost caller's symbol */
	uint32_t frames;	/* callers in the tree's path */
	uint32_t unknown;	/* of them, unknown */
	uint32_t nips;		/* the chain's length; the first CALLERS_SEEN_IPS kept */
	bool truncated;
	uint64_t ips[CALLERS_SEEN_IPS];
};

struct callers_seen {
	struct callers_seen_entry *slots;	/* allocated at the first put */
	uint64_t hits, misses;
};

/* The entry for callers ips[0..n-1] (innermost first) in generation gen, or NULL. */
const struct callers_seen_entry *callers_seen_find(struct callers_seen *c, uint64_t gen,
						   const uint64_t *ips, size_t n, bool truncated);
/* Keeps e (its hash computed here) in its slot, replacing what was there. */
void callers_seen_put(struct callers_seen *c, const uint64_t *ips, size_t n,
		      const struct callers_seen_entry *e);
void callers_seen_free(struct callers_seen *c);

#endif
