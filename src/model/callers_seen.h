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
 * Two entries of 32 bytes a bucket, one cache line: 65,536 chains in
 * 2 MiB.  A clang++ compile's frame-pointer walks through code built
 * without them give about 20,000 distinct callers' chains; 4,096 direct
 * slots held 54% of its samples' chains, this 97%.  Of two entries the
 * one cheaper to make again goes (callers_seen_put).
 */
#define CALLERS_SEEN_BUCKETS	32768u
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
	uint16_t frames;	/* callers in the tree's path (at most CALLERS_SEEN_MAX) */
	uint16_t unknown;	/* of them, unknown */
	uint16_t credit;	/* what keeps it in its bucket (callers_seen_put) */
};

struct callers_seen {
	struct callers_seen_entry *slots;	/* allocated at the first put */
	unsigned bucket_bits;	/* log2 of its buckets; 0: CALLERS_SEEN_BUCKETS (callers_seen_bound) */
	uint64_t seed;		/* random at the first put, unless set before */
	uint64_t hits, misses;
};

/* At most bytes of buckets (--memory), before the first key: 4,096 buckets at least. */
void callers_seen_bound(struct callers_seen *c, size_t bytes);

/*
 * The key of callers ips[0..n-1] (innermost first) in generation gen,
 * truncated: their outer frames are missing; 0 for a chain not kept
 * (none, or longer than CALLERS_SEEN_MAX).  The first key allocates the
 * table and draws its seed.  A key is the whole chain's hash, so a
 * sample's is made once (model.c keeps the look-ahead's) and used for
 * its prefetch, find and put.
 */
uint64_t callers_seen_key(struct callers_seen *c, uint64_t gen, const uint64_t *ips, size_t n,
			  bool truncated);
/* The entry for key in generation gen, or NULL. */
const struct callers_seen_entry *callers_seen_find(struct callers_seen *c, uint64_t key,
						   uint64_t gen);
/*
 * Keeps e (gen and the tree's figures) for key.  In a full bucket an
 * entry holds by its credit, its frames when put: each chain that finds
 * no room takes its own frames off both entries' credit, and takes the
 * place of one whose credit is no more than its frames.  A frame
 * pointer's walk through data, 126 frames to look up and probe again
 * when it misses, outlives 63 chains of two; an entry no longer asked
 * for (another generation) goes in time.
 */
void callers_seen_put(struct callers_seen *c, uint64_t key, const struct callers_seen_entry *e);
/* A find of key to come: its bucket fetched into the CPU's cache now. */
void callers_seen_prefetch(const struct callers_seen *c, uint64_t key);
void callers_seen_free(struct callers_seen *c);

#endif
