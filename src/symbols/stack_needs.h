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
 */
#ifndef SHIMTOP_STACK_NEEDS_H
#define SHIMTOP_STACK_NEEDS_H

#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#define STACK_NEEDS_SLOTS	4096u

struct stack_needs {
	_Atomic uint64_t slot[STACK_NEEDS_SLOTS];
};

/* tid's walks read up to (not including) top: kept if higher than known. */
void stack_needs_learn(struct stack_needs *n, pid_t tid, uint64_t top);
/* tid's top, 0 if not known; the walk that taught it may be cut off later. */
uint64_t stack_needs_top(const struct stack_needs *n, pid_t tid);
/* tid's copies were cut short of a walk's need: whole copies again. */
void stack_needs_forget(struct stack_needs *n, pid_t tid);

#endif
