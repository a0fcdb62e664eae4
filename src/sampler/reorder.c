/* reorder.c - per-CPU perf records back in time order (see reorder.h). */
#include "sampler/reorder.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

void reorder_add(struct reorder *r, const void *rec, size_t len, uint64_t time)
{
	void *copy = st_xmalloc(len);

	memcpy(copy, rec, len);
	ST_GROW(r->v, r->cap, r->n + 1);
	r->v[r->n++] = (struct reorder_item){ time, r->seq++, copy, len };
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

	if (!r->n)
		return;
	qsort(r->v, r->n, sizeof(*r->v), by_time);
	while (done < r->n && r->v[done].time < before) {
		emit(arg, r->v[done].rec, r->v[done].len);
		free(r->v[done].rec);
		done++;
	}
	memmove(r->v, r->v + done, (r->n - done) * sizeof(*r->v));
	r->n -= done;
}

void reorder_free(struct reorder *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->v[i].rec);
	free(r->v);
	memset(r, 0, sizeof(*r));
}
