/*
 * paths_seen.h - the call tree's node for every path of raw addresses
 * from a chain's outermost caller inwards, found by the path's hash.
 * A thread's chains share their outer frames with chains taken moments
 * before, not only with its last one: on a clang++ compile at 10 kHz a
 * sample's callers part from the thread's last chain 25 frames from the
 * leaf, and 19 of those 25 paths were seen before.  Found here by a
 * binary search over the chain's depth (a path is kept only with every
 * shorter one, so "seen" holds up to some depth and not past it), such
 * a sample costs a few probes, not a symbol lookup and a tree probe per
 * frame.
 *
 * An entry holds for the address space generation it was made in
 * (symbolizer_generation, part of the hash).  Bounded: when full, the
 * table is emptied whole before a chain is taken, so a path is never
 * kept without its shorter ones.
 */
#ifndef SHIMTOP_PATHS_SEEN_H
#define SHIMTOP_PATHS_SEEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * 16 Ki slots of 16 bytes at first, doubled at 5/8 full up to 1 Mi
 * slots (16 MiB), then emptied at 5/8 full (655,360 paths): a server's
 * or a waiting program's few paths touch 256 KiB, not 16 MiB of pages
 * the kernel must clear.
 */
#define PATHS_SEEN_FIRST	(1u << 14)
#define PATHS_SEEN_SLOTS	(1u << 20)
#define PATHS_SEEN_FULL		(PATHS_SEEN_SLOTS / 8u * 5u)
/* An entry counts a path's unknown frames in 8 bits: callers keep paths no deeper. */
#define PATHS_SEEN_MAX_DEPTH	255u

/*
 * A path known by a 64-bit hash of its generation, its truncation and
 * every address from the outermost, seeded per table: two paths share
 * one by chance one time in 2^64, and a target cannot aim at another's
 * path without the seed.
 */
struct paths_seen_entry {
	uint64_t hash;			/* 0: empty */
	uint32_t node : 24;		/* the path's node in the tree (CCT_MAX_NODES fits) */
	uint32_t unknown : 8;		/* unknown frames on the path */
	uint32_t root;			/* the outermost caller's symbol */
};

struct paths_seen {
	struct paths_seen_entry *slots;	/* allocated at the first path */
	size_t cap;			/* slots: a power of two */
	size_t used;
	uint64_t seed;			/* random at the first path, unless set before */
	uint64_t emptied;		/* times emptied (tests) */
	size_t max_cap;			/* slots at most (0: PATHS_SEEN_SLOTS), paths_seen_bound */
};

/* At most bytes of slots (--memory), a power of two from PATHS_SEEN_FIRST to the most. */
void paths_seen_bound(struct paths_seen *p, size_t bytes);

/*
 * The hash of the path one address longer than the one hashed h: h is
 * paths_seen_start's for the empty path.
 */
uint64_t paths_seen_step(uint64_t h, uint64_t ip);
/*
 * The empty path's hash in generation gen, truncated (its outer frames
 * missing); allocates the table and draws the seed at its first call.
 */
uint64_t paths_seen_start(struct paths_seen *p, uint64_t gen, bool truncated);
/*
 * Room for n more paths, made by growing the table or, at its largest,
 * emptying it if there is not: before a chain's paths are found and
 * kept, never between.
 */
void paths_seen_reserve(struct paths_seen *p, size_t n);
/*
 * The deepest of the paths hashed hashes[0..n-1] (hashes[i]: the first
 * i + 1 addresses) that is kept: its depth (0: none, the empty path) and
 * its entry in *e.  hint: a depth likely kept, probed first (0: none).
 */
size_t paths_seen_deepest(struct paths_seen *p, const uint64_t *hashes, size_t n, size_t hint,
			  struct paths_seen_entry *e);
/* Keeps the path hashed hash (its entry's hash is set from it). */
void paths_seen_put(struct paths_seen *p, uint64_t hash, struct paths_seen_entry e);
void paths_seen_free(struct paths_seen *p);

#endif
