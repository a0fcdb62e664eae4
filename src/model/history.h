/*
 * history.h - every perf sample the model took, kept compactly in time
 * chunks, so that any time range can be aggregated again (the timeline's
 * selection, --range).  Bounded by age and by HISTORY_MAX_BYTES: chunks
 * whose newest sample is older than the bound are dropped whole, oldest
 * first when the bytes run out, and the history says from when
 * it is complete, so a range reaching further back is never silently short.
 */
#ifndef SHIMTOP_HISTORY_H
#define SHIMTOP_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * One sample: 48 bytes.  Counters only where the model used them for
 * IPC; node is where it ended in the session's calling context tree, so
 * a time range's tree is made again from its samples.
 */
struct history_entry {
	int32_t dt;		/* ns from its chunk's base time */
	uint32_t pid, tid;
	uint32_t sym;		/* st_symbol.id */
	uint64_t weight;	/* the sample's period */
	uint32_t cycles, instructions;
	uint16_t flags;		/* HISTORY_* below */
	uint8_t event;		/* -e a,b: which event took it */
	uint8_t cpumode;
	uint32_t offset;	/* bytes into the symbol (SYMBOL_NO_OFFSET) */
	uint32_t node;		/* the model's tree node */
};

#define HISTORY_COUNTERS	0x1u	/* cycles and instructions are usable */
#define HISTORY_MULTIPLEXED	0x2u
#define HISTORY_EVENT		0x4u	/* event is set (-e a,b) */
#define HISTORY_JIT		0x8u	/* anonymous code not named yet: offset is its
					 * place in the model's JIT list (model_jit.c) */
/* A wait (--off-cpu): its weight the ns off the CPU, these bits why (enum st_offcpu_reason). */
#define HISTORY_WAIT_SHIFT	4u
#define HISTORY_WAIT_MASK	0x70u
#define HISTORY_WAIT_GOES_ON	0x80u	/* a piece of a wait not ended yet (ST_SAMPLE_WAIT_GOES_ON) */

/*
 * 786 kB a chunk at most: at 10 kHz its 1.6 s stay within dt's reach
 * (2.1 s).  A slower stream ends its chunks at that reach, so a chunk is
 * sized by what the one before it held (with a quarter more room), down
 * to a page: at 1 kHz each full-size chunk held an eighth of its entries,
 * and the history grew 0.37 MB a second whatever the rate.  Mapped with
 * its pages already in (MAP_POPULATE): faulted in one by one they cost a
 * VM half of reopening a long snapshot (0.70 s against 0.14 s for 256 MiB
 * here).
 */
#define HISTORY_CHUNK_ENTRIES	16384u
/*
 * However young, no more than this is kept (5.6 million samples: the
 * default 600 s at 11 kHz); a faster stream keeps a shorter time, and
 * complete_from says from when.
 */
#define HISTORY_MAX_BYTES	(256u << 20)

struct history_chunk {
	struct history_chunk *next;	/* newer */
	uint64_t base, min_time, max_time;
	uint32_t n, cap;		/* entries held, and room for */
	size_t bytes;			/* mapped */
	struct history_entry e[];
};
/* The most bytes a chunk maps: HISTORY_CHUNK_ENTRIES entries. */
#define HISTORY_CHUNK_BYTES	(sizeof(struct history_chunk) + \
				 HISTORY_CHUNK_ENTRIES * sizeof(struct history_entry))

/*
 * What the timeline needs of each HISTORY_SPAN_NS of record time (100 ms,
 * at its multiples: the timeline's steps from 100 ms up, 100 ms times a
 * power of two, are whole numbers of spans), kept as samples arrive: the
 * timeline adds spans instead of walking samples.  A span the history no
 * longer holds whole (before complete_from) is not used.
 */
#define HISTORY_SPAN_NS		100000000ull

struct history_span_thread {
	uint32_t tid;
	uint32_t samples;
};

struct history_span {
	uint64_t start;
	uint64_t samples, weight;
	uint64_t cycles, instructions;	/* of the samples whose counters count */
	struct history_span_thread *threads;	/* by tid */
	uint32_t nthreads, threads_cap;
};

struct history {
	struct history_chunk *oldest, *newest;
	struct history_span *spans;	/* by start, from span_head */
	size_t span_head, nspans, spans_cap;
	size_t span_bytes;		/* the spans' arrays, within max_bytes too */
	uint64_t keep_ns;		/* the bound; 0 keeps everything */
	size_t max_bytes;		/* HISTORY_MAX_BYTES unless a test asks less */
	/*
	 * --memory: the whole process's resident bytes at most (0: no
	 * bound).  At each new chunk the history takes what the rest of the
	 * process leaves under it, so the oldest samples go first.
	 */
	size_t rss_cap;
	uint64_t dropped_for_bytes;	/* of dropped: for max_bytes, not age */
	bool rss_capped;		/* max_bytes was lowered for rss_cap */
	size_t rest_most;		/* the most the rest of the process held at a fit */
	size_t rest_last;		/* what it held at the last */
	size_t rest_rise;		/* its largest rise between two fits lately: kept free */
	uint64_t complete_from;		/* no sample before this was dropped */
	uint64_t dropped;		/* samples dropped with their chunks */
	uint64_t entries;		/* held now */
	size_t chunks;
	size_t chunk_bytes;		/* the chunks' mapped bytes */
};

/* keep_ns 0: unbounded. */
void history_init(struct history *h, uint64_t keep_ns);
void history_free(struct history *h);

/*
 * Under rss_cap, the history fitted to what the rest of the process
 * holds now (new chunks are fitted as they come): once a second.
 */
void history_fit(struct history *h);

/* Appends one sample at `time`; drops chunks that aged out of the bound,
 * and the oldest past max_bytes or what rss_cap leaves. */
void history_add(struct history *h, uint64_t time, const struct history_entry *e);

/* The spans from `from` on (sorted by start); *n of them. */
const struct history_span *history_spans(const struct history *h, uint64_t from,
					 size_t *n);

/* Bytes the history holds: the chunks as mapped and the spans' arrays. */
size_t history_bytes(const struct history *h);

typedef void (*history_fn)(uint64_t time, const struct history_entry *e, void *arg);

/* Calls fn on every sample held, which may change what it says (a late name). */
void history_edit(struct history *h, void (*fn)(struct history_entry *e, void *arg), void *arg);

/* Calls fn for every sample with from <= time < to, oldest chunk first. */
void history_each(const struct history *h, uint64_t from, uint64_t to,
		  history_fn fn, void *arg);

/*
 * The earliest sample time in [from, to) (0 if none): whole chunks by
 * their bounds, only the two ends walked.
 */
uint64_t history_first_time(const struct history *h, uint64_t from, uint64_t to);
/* Whether the history holds every sample from `from` on (none dropped since). */
bool history_holds_from(const struct history *h, uint64_t from);
/*
 * The samples in [from, to) of each tree node (below nodes) by event
 * (below nevents, -e a,b): an array, freed by the caller, of a count and
 * a weight (the periods' sum) at [(node * nevents + event) * 2].
 */
uint64_t *history_node_events(const struct history *h, uint64_t from, uint64_t to,
			      uint32_t nodes, size_t nevents);
/*
 * Cuts [from, to) into `parts` consecutive time windows, bounds[0] = from
 * .. bounds[parts] = to, each over about as many of its chunks, so the
 * windows can be walked side by side (each sample is in one window).
 */
void history_split(const struct history *h, uint64_t from, uint64_t to,
		   unsigned parts, uint64_t *bounds);
/* Chunks holding samples that may fall in [from, to). */
size_t history_chunks_in(const struct history *h, uint64_t from, uint64_t to);
/*
 * Where a walk of the whole history stopped: history_each_new calls fn
 * for every sample added since (all of them from a zeroed cursor), in
 * the order they were added.  Valid while no chunk is dropped (dropped
 * unchanged); after that, start again from a zeroed cursor.
 */
struct history_cursor {
	const struct history_chunk *chunk;	/* the last chunk walked */
	uint32_t n;				/* its samples walked */
};

void history_each_new(const struct history *h, struct history_cursor *c,
		      history_fn fn, void *arg);

#endif
