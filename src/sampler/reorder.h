/*
 * reorder.h - records from several per-CPU perf rings put back in time
 * order, as perf's ordered events do.  A process's exec, mmap and
 * samples land in the buffers of whichever CPUs it ran on; read one
 * buffer after another, a sample of the new image could reach the model
 * before the mmap that explains it.
 *
 * Each drain pass adds what it read; a record stamped before the previous
 * pass began was written before this pass read its buffer, so everything
 * older than that is complete and goes out sorted.  Latency: one pass.
 */
#ifndef SHIMTOP_REORDER_H
#define SHIMTOP_REORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct reorder {
	struct reorder_item {
		uint64_t time, seq;	/* seq: arrival order among equal times */
		size_t off, len;	/* the copy: bytes[buf][off..off+len) */
		unsigned buf;
	} *v;
	size_t n, cap;
	uint64_t seq;
	/*
	 * Copies side by side, not a malloc each, in two buffers: records
	 * go to bytes[cur] until a flush, then to the other.  A pass's
	 * records are held one flush and out by the next, so the other has
	 * emptied by then; what it still holds is moved, not every record.
	 */
	unsigned char *bytes[2];
	size_t used[2], bytes_cap[2];	/* bytes_cap: room grown to, resident at most */
	bool heap[2];			/* no reservation: grown by realloc */
	unsigned low[2];		/* passes in a row it held under a quarter of its room */
	unsigned cur;
};

typedef void (*reorder_emit_fn)(void *arg, const void *rec, size_t len);

/* Keeps a copy of rec (time 0: no time, goes out with the next flush). */
void reorder_add(struct reorder *r, const void *rec, size_t len, uint64_t time);
/*
 * Room for a record of up to max bytes, 8-aligned, to be written in
 * place (no copy of an 8 KiB stack) and kept by reorder_commit; the
 * pointer holds until the next call on r.
 */
void *reorder_reserve(struct reorder *r, size_t max);
void reorder_commit(struct reorder *r, size_t len, uint64_t time);
/* Emits, in time order, every record older than `before` (UINT64_MAX: all). */
void reorder_flush(struct reorder *r, uint64_t before, reorder_emit_fn emit, void *arg);
/* The bytes the records held take. */
size_t reorder_bytes(const struct reorder *r);
void reorder_free(struct reorder *r);

#endif
