/*
 * stack_needs.h - how far up each thread's stack its samples' copies
 * need to reach: the unwinder (on the model's thread) learns, from each
 * walk that reached the outermost frame, the highest stack address it
 * read; the sampler (on its own thread) cuts each copy it passes on to
 * that, so the ring, the queue and a recording carry what the unwinder
 * reads and not the environment and auxiliary vector above a main
 * thread's first frame, or a thread's descriptor above its first.
 *
 * A fixed table by thread id, one 64-bit word a slot (the tid and the
 * address in 64-byte units, so a reader never sees one thread's tid with
 * another's address), relaxed atomics: a slot another thread took costs
 * a whole copy, never a wrong cut.
 *
 * The other way, the copy's size: where a quarter of a window of walks
 * ran off their copies' end (sqlite3's interpreter, a compiler's deep
 * recursion), the unwinder asks for copies twice the size, up to
 * grow_max (0: the size was given, it stays); the sampler opens its
 * events again at that size unless the copies would then move more
 * than STACK_COPY_BUDGET bytes a second, and says which size it uses.
 */
#ifndef SHIMTOP_STACK_NEEDS_H
#define SHIMTOP_STACK_NEEDS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define STACK_NEEDS_SLOTS	4096u
#define STACK_NEEDS_WINDOW	128u	/* walks judged together */
#define STACK_COPY_GROW_MAX	(32u * 1024u)	/* what copies grow to by themselves */
#define STACK_COPY_BUDGET	(100ull << 20)	/* bytes a second copies may grow to */

struct stack_needs {
	_Atomic uint64_t slot[STACK_NEEDS_SLOTS];
	uint32_t grow_max;		/* set before sampling starts */
	_Atomic uint32_t want_copy;	/* bytes a copy should hold; 0: as opened */
	_Atomic uint32_t copy_first, copy_now;	/* the sampler's sizes: at first, now */
	_Atomic bool copy_held;		/* a larger copy was asked for and cost too much */
	uint32_t walks, cut, cut_size;	/* the window so far (the unwinder's alone) */
};

/* tid's walks read up to (not including) top: kept if higher than known. */
void stack_needs_learn(struct stack_needs *n, pid_t tid, uint64_t top);
/* tid's top, 0 if not known; the walk that taught it may be cut off later. */
uint64_t stack_needs_top(const struct stack_needs *n, pid_t tid);
/* tid's copies were cut short of a walk's need: whole copies again. */
void stack_needs_forget(struct stack_needs *n, pid_t tid);

/* A walk ended (cut: at its copy's end, a copy of size bytes). */
void stack_needs_walked(struct stack_needs *n, bool cut, uint32_t size);
/* The copy size asked for, 0 if none: the sampler's to act on. */
uint32_t stack_needs_copy_wanted(const struct stack_needs *n);
/* The sampler's copies are now bytes long (held: a larger one cost too much). */
void stack_needs_copy_is(struct stack_needs *n, uint32_t bytes, bool held);

#endif
