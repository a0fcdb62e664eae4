/* record_queue.c - records kept aside in order (see record_queue.h). */
#include "ring/record_queue.h"
#include "mapped.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#define SLOT_HDR	8u
/* Memory past this kept after the queue empties is given back. */
#define QUEUE_KEPT	((size_t)1 << 20)

static size_t slot_bytes(size_t len)
{
	return SLOT_HDR + ((len + 7) & ~(size_t)7);
}

void record_queue_init(struct record_queue *q, size_t limit)
{
	memset(q, 0, sizeof(*q));
	q->limit = limit;
}

bool record_queue_add(struct record_queue *q, const void *rec, size_t len)
{
	size_t need = slot_bytes(len);
	uint64_t len64 = len;

	if (len > q->limit || need > q->limit - q->used)
		return false;
	if (!q->buf) {
		/* Address space only, until records come: a mapping the copy leaves out. */
		q->buf = st_map_zeroed(q->limit, false);
		if (!q->buf)
			return false;
		st_map_not_inherited(q->buf, q->limit);
	}
	memcpy(q->buf + q->used, &len64, sizeof(len64));
	memcpy(q->buf + q->used + SLOT_HDR, rec, len);
	q->used += need;
	return true;
}

const void *record_queue_peek(const struct record_queue *q, size_t *len)
{
	uint64_t len64;

	if (q->next >= q->used)
		return NULL;
	memcpy(&len64, q->buf + q->next, sizeof(len64));
	*len = (size_t)len64;
	return q->buf + q->next + SLOT_HDR;
}

void record_queue_release(struct record_queue *q)
{
	size_t len;

	if (!record_queue_peek(q, &len))
		return;
	q->next += slot_bytes(len);
	if (q->next < q->used)
		return;
	if (q->used > QUEUE_KEPT)
		(void)madvise(q->buf + QUEUE_KEPT, (q->used - QUEUE_KEPT + 4095) & ~(size_t)4095,
			      MADV_DONTNEED);
	q->used = q->next = 0;
}

bool record_queue_pending(const struct record_queue *q)
{
	return q->next < q->used;
}

void record_queue_free(struct record_queue *q)
{
	st_unmap(q->buf, q->limit);
	memset(q, 0, sizeof(*q));
}
