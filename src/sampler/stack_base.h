/*
 * stack_base.h - where each thread's stack begins, for stack depths.
 *
 * CallerChaining (Inoue and Nakatani, OOPSLA 2009, §6) keys a frame by
 * its depth below the stack's base.  The base of a thread's stack is the
 * top of the mapping that holds its stack pointer: read once from
 * /proc/PID/maps when a stack pointer falls outside every stack seen, and
 * kept, so the sampler reads the file once per thread, not per sample.
 */
#ifndef SHIMTOP_STACK_BASE_H
#define SHIMTOP_STACK_BASE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define STACK_BASES_MAX	4096u	/* stacks remembered; then the oldest go */

struct stack_range {
	pid_t pid;
	uint64_t start, end;
};

struct stack_bases {
	struct stack_range *v;
	size_t n, next;			/* next: the slot to reuse when full */
	pid_t failed_pid;		/* the last miss, not re-read ... */
	uint64_t failed_ns;		/* ... within STACK_RETRY_NS */
	uint64_t reads;			/* /proc/PID/maps reads, for tests */
};

void stack_bases_init(struct stack_bases *b);
void stack_bases_free(struct stack_bases *b);
/* The base of pid's stack holding sp, or 0 if no mapping holds it. */
uint64_t stack_base_of(struct stack_bases *b, pid_t pid, uint64_t sp, uint64_t now_ns);
/* pid exec'd (or exited): its old stacks are gone. */
void stack_bases_forget(struct stack_bases *b, pid_t pid);

#endif
