/*
 * test_stack_needs.c - a thread's stack top as its walks teach it: kept
 * when higher, read back in 64-byte units rounded up, forgotten on
 * demand; another thread in the same slot takes it (a whole copy for
 * the first, never its top for the second); tids out of range ignored.
 * The copy's size: asked to double where a quarter of a window's walks
 * ran off their copies, in whole pages, never past grow_max, never
 * smaller, never when grow_max is 0 (a size given).
 */
#include "check.h"
#include "symbols/stack_needs.h"

#include <stdlib.h>

int main(void)
{
	struct stack_needs *n = calloc(1, sizeof(*n));
	pid_t other = 0;

	CHECK(stack_needs_top(n, 42) == 0);
	stack_needs_learn(n, 42, 0x7ffd12345678);
	CHECK_EQ_U64(stack_needs_top(n, 42), 0x7ffd12345680);
	stack_needs_learn(n, 42, 0x7ffd12340000);		/* lower: kept as was */
	CHECK_EQ_U64(stack_needs_top(n, 42), 0x7ffd12345680);
	stack_needs_learn(n, 42, 0x7ffd12346000);
	CHECK_EQ_U64(stack_needs_top(n, 42), 0x7ffd12346000);
	CHECK(stack_needs_top(n, 43) == 0);
	/* A tid in the same slot: it takes the slot; 42 is unknown again. */
	for (pid_t t = 43; t < 1 << 20 && !other; t++) {
		stack_needs_learn(n, t, 0x1000);
		if (!stack_needs_top(n, 42))
			other = t;
		else
			stack_needs_forget(n, t);
	}
	CHECK(other != 0);
	CHECK_EQ_U64(stack_needs_top(n, other), 0x1000);
	stack_needs_forget(n, 42);				/* not its slot now */
	CHECK_EQ_U64(stack_needs_top(n, other), 0x1000);
	stack_needs_forget(n, other);
	CHECK(stack_needs_top(n, other) == 0);
	/* Out of range: no tid 0 or negative, none past 22 bits, no address past 47. */
	stack_needs_learn(n, 0, 0x1000);
	stack_needs_learn(n, -5, 0x1000);
	stack_needs_learn(n, 1 << 23, 0x1000);
	stack_needs_learn(n, 7, 1ull << 50);
	CHECK(stack_needs_top(n, 0) == 0 && stack_needs_top(n, -5) == 0);
	CHECK(stack_needs_top(n, 1 << 23) == 0 && stack_needs_top(n, 7) == 0);
	free(n);

	n = calloc(1, sizeof(*n));
	n->grow_max = 32768;
	/* A fifth of a window cut: nothing asked. */
	for (unsigned i = 0; i < STACK_NEEDS_WINDOW; i++)
		stack_needs_walked(n, i % 5 == 0, 8192);
	CHECK(stack_needs_copy_wanted(n) == 0);
	/* A quarter: twice the largest cut copy. */
	for (unsigned i = 0; i < STACK_NEEDS_WINDOW; i++)
		stack_needs_walked(n, i % 4 == 0, i ? 8192 : 6000);
	CHECK_EQ_U64(stack_needs_copy_wanted(n), 16384);
	/* Copies cut to a thread's need ask less: what was asked stays. */
	for (unsigned i = 0; i < STACK_NEEDS_WINDOW; i++)
		stack_needs_walked(n, true, 3000);
	CHECK_EQ_U64(stack_needs_copy_wanted(n), 16384);
	/* Whole pages, and never past grow_max. */
	for (unsigned i = 0; i < STACK_NEEDS_WINDOW; i++)
		stack_needs_walked(n, true, 10000);
	CHECK_EQ_U64(stack_needs_copy_wanted(n), 20480);
	for (unsigned i = 0; i < STACK_NEEDS_WINDOW; i++)
		stack_needs_walked(n, true, 30000);
	CHECK_EQ_U64(stack_needs_copy_wanted(n), 32768);
	free(n);
	/* The sampler's sizes: the first kept, the present one, held once said. */
	n = calloc(1, sizeof(*n));
	stack_needs_copy_is(n, 8192, false);
	stack_needs_copy_is(n, 16384, false);
	CHECK(atomic_load(&n->copy_first) == 8192 && atomic_load(&n->copy_now) == 16384);
	CHECK(!atomic_load(&n->copy_held));
	stack_needs_copy_is(n, 16384, true);
	stack_needs_copy_is(n, 16384, false);
	CHECK(atomic_load(&n->copy_held));
	free(n);
	/* A size given: no growth however many walks are cut. */
	n = calloc(1, sizeof(*n));
	for (unsigned i = 0; i < 4 * STACK_NEEDS_WINDOW; i++)
		stack_needs_walked(n, true, 8192);
	CHECK(stack_needs_copy_wanted(n) == 0);
	free(n);
	return check_done("test_stack_needs");
}
