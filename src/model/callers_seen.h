/*
 * callers_seen.h - the call tree's node for a frame-pointer chain's
 * callers, found by the chain's raw addresses.  Most samples come from
 * a place whose callers were seen a moment ago (a clang++ compile: 78%
 * of its samples at 10 kHz); with this, such a sample costs one probe
 * and one child in the tree, not a symbol lookup and a tree probe per
 * frame.  Bounded; an entry holds only for the address space generation
 * it was made in (symbolizer_generation), so a new mapping, exec or JIT
 * map makes it a miss.
 */
#ifndef SHIMTOP_CALLERS_SEEN_H
#define SHIMTOP_CALLERS_SEEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Two entries of 32 bytes a bucket, one cache line: 32,768 chains in
 * 1 MiB.  A clang++ compile's frame-pointer walks through code built
 * without them give about 20,000 distinct callers' chains; 4,096 direct
 * slots held 54% of its samples' chains, this 90%.
 */
#define CALLERS_SEEN_BUCKETS	16384u
#define CALLERS_SEEN_WAYS	2u
/* Longer than the kernel's 127 frames: not kept. */
#define CALLERS_SEEN_MAX	4096u

/*
 * An entry is known by a 64-bit hash of its generation, its length, its
 * truncation and every address, seeded per table: addresses are not
 * kept.  Two chains share a hash by chance one time in 2^64; a target
 * cannot aim at another's chain without the seed, and forged frame
 * pointers misplace only their own samples anyway.
 */
struct callers_seen_entry {
	uint64_t hash;		/* 0: empty */
	uint64_t gen;
	uint32_t node;		/* the callers' node in the tree */
	uint32_t root;		/* the outermost caller's symbol */
	uint32_t frames;	/* callers in the tree's path */
	uint32_t unknown;	/* of them, unknown */
};

struct callers_seen {
	struct callers_seen_entry *slots;	/* allocated at the first put */
	uint64_t seed;
	uint64_t hits, misses;
};

/* The entry for callers ips[0..n-1] (innermost first) in generation gen, or NULL. */
const struct callers_seen_entry *callers_seen_find(struct callers_seen *c, uint64_t gen,
						   const uint64_t *ips, size_t n, bool truncated);
/*
 * Keeps e (gen and the tree's figures; its hash computed here) for
 * ips[0..n-1]; the bucket's older entry goes when both are taken.
 */
void callers_seen_put(struct callers_seen *c, const uint64_t *ips, size_t n, bool truncated,
		      const struct callers_seen_entry *e);
/* A find to come: its bucket fetched into the CPU's cache now. */
void callers_seen_prefetch(const struct callers_seen *c, uint64_t gen, const uint64_t *ips,
			   size_t n, bool truncated);
void callers_seen_free(struct callers_seen *c);

#endif
