/* reorder.c - per-CPU perf records back in time order (see reorder.h). */
#include "sampler/reorder.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

void reorder_add(struct reorder *r, const void *rec, size_t len, uint64_t time)
{
	ST_GROW_BARE(r->bytes, r->bytes_cap, r->used + len);
	memcpy(r->bytes + r->used, rec, len);
	ST_GROW(r->v, r->cap, r->n + 1);
	r->v[r->n++] = (struct reorder_item){ time, r->seq++, r->used, len };
	r->used += len;
}

void *reorder_reserve(struct reorder *r, size_t max)
{
	r->used = (r->used + 7) & ~(size_t)7;
	ST_GROW_BARE(r->bytes, r->bytes_cap, r->used + max);
	return r->bytes + r->used;
}

void reorder_commit(struct reorder *r, size_t len, uint64_t time)
{
	ST_GROW(r->v, r->cap, r->n + 1);
	r->v[r->n++] = (struct reorder_item){ time, r->seq++, r->used, len };
	r->used += len;
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
	size_t done = 0, kept = 0;
	unsigned char *swap;
	size_t swap_cap;

	if (!r->n)
		return;
	/* One ring's records come in order: most passes need no sort. */
	for (size_t i = 1; i < r->n; i++)
		if (by_time(&r->v[i - 1], &r->v[i]) > 0) {
			qsort(r->v, r->n, sizeof(*r->v), by_time);
			break;
		}
	while (done < r->n && r->v[done].time < before) {
		emit(arg, r->bytes + r->v[done].off, r->v[done].len);
		done++;
	}
	/* What is held (about one pass) moves to the spare buffer, which becomes the buffer. */
	for (size_t i = done; i < r->n; i++) {
		struct reorder_item it = r->v[i];

		ST_GROW_BARE(r->spare, r->spare_cap, kept + it.len);
		memcpy(r->spare + kept, r->bytes + it.off, it.len);
		it.off = kept;
		kept += it.len;
		r->v[i - done] = it;
	}
	swap = r->bytes;
	swap_cap = r->bytes_cap;
	r->bytes = r->spare;
	r->bytes_cap = r->spare_cap;
	r->spare = swap;
	r->spare_cap = swap_cap;
	r->used = kept;
	r->n -= done;
}

void reorder_free(struct reorder *r)
{
	free(r->v);
	free(r->bytes);
	free(r->spare);
	memset(r, 0, sizeof(*r));
}
