/* reorder.c - per-CPU perf records back in time order (see reorder.h). */
#include "sampler/reorder.h"
#include "mapped.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define REORDER_KEPT	(1u << 20)	/* a buffer's bytes kept whatever a pass used */
#define ITEMS_KEPT	16384u		/* records' places kept whatever a pass held */
/*
 * A buffer's address space, reserved once (no memory until touched) on
 * huge pages: grown by realloc, each pass's megabytes came in fresh 4 KiB
 * pages, a quarter of the faults of a 5 s attach to a compile at 4 kHz
 * (10 us each on a VM), and again after each give-back.
 */
#define REORDER_SPAN	((size_t)1 << 30)
#define REORDER_FIRST	((size_t)64 << 10)
/*
 * Passes in a row a buffer stays under a quarter of its room (or the
 * session idle) before its memory goes: given back each time, the 16 KiB
 * copies of a 10 kHz start had every 2 MiB page zeroed again a pass later
 * (the sampler's thread a third of a CPU for 50 ms, and samples dropped).
 */
#define LOW_PASSES	16u
#define QUIET_PASSES	4u

/* Room for need bytes in buffer c: its reservation's, else the heap's. */
static void grow_bytes(struct reorder *r, unsigned c, size_t need)
{
	size_t n = r->bytes_cap[c] ? r->bytes_cap[c] : REORDER_FIRST;

	if (!r->bytes[c] && !r->heap[c]) {
		r->bytes[c] = st_map_zeroed(REORDER_SPAN, false);
		r->heap[c] = !r->bytes[c];	/* no address space (ulimit -v): the heap */
		st_map_not_inherited(r->bytes[c], REORDER_SPAN);
	}
	if (r->heap[c]) {
		ST_GROW_BARE(r->bytes[c], r->bytes_cap[c], need);
		return;
	}
	if (need <= r->bytes_cap[c])
		return;
	while (n < need)
		n *= 2;
	if (n > REORDER_SPAN)
		st_xcheck(NULL);	/* a gigabyte held in one pass: out of memory */
	r->bytes_cap[c] = n;
}

/* Buffer b's memory given back, empty; its reservation kept for the next burst. */
static void give_back(struct reorder *r, unsigned b)
{
	if (r->heap[b]) {
		free(r->bytes[b]);
		r->bytes[b] = NULL;
	} else if (r->bytes[b]) {
		(void)madvise(r->bytes[b], r->bytes_cap[b], MADV_DONTNEED);
	}
	r->bytes_cap[b] = 0;
}

/* Room for len more bytes in the buffer records go to, 8-aligned. */
static unsigned char *room(struct reorder *r, size_t len)
{
	unsigned c = r->cur;

	r->used[c] = (r->used[c] + 7) & ~(size_t)7;
	grow_bytes(r, c, r->used[c] + len);
	return r->bytes[c] + r->used[c];
}

void *reorder_reserve(struct reorder *r, size_t max)
{
	return room(r, max);
}

void reorder_commit(struct reorder *r, size_t len, uint64_t time)
{
	ST_GROW(r->v, r->cap, r->n + 1);
	r->v[r->n++] = (struct reorder_item){ time, r->seq++, r->used[r->cur], len, r->cur };
	r->used[r->cur] += len;
}

void reorder_add(struct reorder *r, const void *rec, size_t len, uint64_t time)
{
	memcpy(room(r, len), rec, len);
	reorder_commit(r, len, time);
}

static int by_time(const void *pa, const void *pb)
{
	const struct reorder_item *a = pa, *b = pb;

	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

void reorder_flush(struct reorder *r, uint64_t before, reorder_emit_fn emit, void *arg)
{
	size_t done = 0;
	unsigned old = !r->cur;

	/*
	 * Nothing held: a burst's room goes now.  Passes with no records
	 * return here, and a machine gone quiet after a burst kept its 4 MB
	 * (heaptrack under --memory 40, a quiet moment after a test run).
	 */
	if (!r->n) {
		for (unsigned b = 0; b < 2; b++) {
			if (r->bytes_cap[b] > REORDER_KEPT && ++r->low[b] >= QUIET_PASSES) {
				give_back(r, b);
				r->low[b] = 0;
			}
			r->used[b] = 0;
		}
		if (r->cap > ITEMS_KEPT) {
			free(r->v);
			r->v = NULL;
			r->cap = 0;
		}
		return;
	}
	/* One ring's records come in order: most passes need no sort. */
	for (size_t i = 1; i < r->n; i++)
		if (by_time(&r->v[i - 1], &r->v[i]) > 0) {
			qsort(r->v, r->n, sizeof(*r->v), by_time);
			break;
		}
	while (done < r->n && r->v[done].time < before) {
		emit(arg, r->bytes[r->v[done].buf] + r->v[done].off, r->v[done].len);
		done++;
	}
	/* What is held stays where it is, but for the older buffer's, moved to the newer. */
	for (size_t i = done; i < r->n; i++) {
		struct reorder_item it = r->v[i];

		if (it.buf == old) {
			memcpy(room(r, it.len), r->bytes[old] + it.off, it.len);
			it.off = r->used[r->cur];
			it.buf = r->cur;
			r->used[r->cur] += it.len;
		}
		r->v[i - done] = it;
	}
	r->n -= done;
	/*
	 * The older buffer is empty: the next records go there.  One that a
	 * burst grew and this pass used a quarter of goes, and grows again
	 * when needed: a second's burst kept 8 MB resident for the session.
	 */
	if (r->bytes_cap[old] > REORDER_KEPT && r->used[old] < r->bytes_cap[old] / 4) {
		if (++r->low[old] >= LOW_PASSES) {
			give_back(r, old);
			r->low[old] = 0;
		}
	} else {
		r->low[old] = 0;
	}
	r->used[old] = 0;
	r->cur = old;
}

size_t reorder_bytes(const struct reorder *r)
{
	return r->used[0] + r->used[1];
}

void reorder_free(struct reorder *r)
{
	free(r->v);
	for (unsigned b = 0; b < 2; b++) {
		if (r->heap[b])
			free(r->bytes[b]);
		else
			st_unmap(r->bytes[b], REORDER_SPAN);
	}
	memset(r, 0, sizeof(*r));
}
