/* stack_needs.c - each thread's stack top as its walks need it (see stack_needs.h). */
#include "symbols/stack_needs.h"

#define TID_SHIFT	41u	/* above it the tid (22 bits: pid_max's), below the top / 64 */
#define TOP_MASK	((1ull << TID_SHIFT) - 1)

static _Atomic uint64_t *slot_of(const struct stack_needs *n, pid_t tid)
{
	return (_Atomic uint64_t *)&n->slot[((uint32_t)tid * 2654435761u) % STACK_NEEDS_SLOTS];
}

void stack_needs_learn(struct stack_needs *n, pid_t tid, uint64_t top)
{
	_Atomic uint64_t *s = slot_of(n, tid);
	uint64_t units = (top + 63) >> 6, was;

	if (tid <= 0 || (uint64_t)tid >= 1ull << (64 - TID_SHIFT) || units > TOP_MASK)
		return;
	was = atomic_load_explicit(s, memory_order_relaxed);
	if (was >> TID_SHIFT == (uint64_t)tid && (was & TOP_MASK) >= units)
		return;
	atomic_store_explicit(s, (uint64_t)tid << TID_SHIFT | units, memory_order_relaxed);
}

uint64_t stack_needs_top(const struct stack_needs *n, pid_t tid)
{
	uint64_t v = atomic_load_explicit(slot_of(n, tid), memory_order_relaxed);

	return tid > 0 && v >> TID_SHIFT == (uint64_t)tid ? (v & TOP_MASK) << 6 : 0;
}

void stack_needs_forget(struct stack_needs *n, pid_t tid)
{
	_Atomic uint64_t *s = slot_of(n, tid);

	if (atomic_load_explicit(s, memory_order_relaxed) >> TID_SHIFT == (uint64_t)tid)
		atomic_store_explicit(s, 0, memory_order_relaxed);
}

void stack_needs_walked(struct stack_needs *n, bool cut, uint32_t size)
{
	uint32_t want;

	n->walks++;
	if (cut) {
		n->cut++;
		if (size > n->cut_size)
			n->cut_size = size;
	}
	/*
	 * A window's quarter cut already decides it: said at once, the copies
	 * of a program that starts deep (sqlite3's recursive query) grow
	 * before its first samples are past.
	 */
	if (n->walks < STACK_NEEDS_WINDOW && 4 * n->cut < STACK_NEEDS_WINDOW)
		return;
	if (n->grow_max && 4 * n->cut >= n->walks) {
		/* Whole pages: a copy cut to a thread's need is not the copy's size. */
		want = (2 * n->cut_size + 4095) & ~4095u;
		if (want > n->grow_max)
			want = n->grow_max;
		if (want > atomic_load_explicit(&n->want_copy, memory_order_relaxed))
			atomic_store_explicit(&n->want_copy, want, memory_order_relaxed);
	}
	n->walks = n->cut = n->cut_size = 0;
}

uint32_t stack_needs_copy_wanted(const struct stack_needs *n)
{
	return atomic_load_explicit(&n->want_copy, memory_order_relaxed);
}

void stack_needs_copy_is(struct stack_needs *n, uint32_t bytes, bool held)
{
	uint32_t none = 0;

	atomic_compare_exchange_strong(&n->copy_first, &none, bytes);
	atomic_store_explicit(&n->copy_now, bytes, memory_order_relaxed);
	if (held)
		atomic_store_explicit(&n->copy_held, true, memory_order_relaxed);
}
