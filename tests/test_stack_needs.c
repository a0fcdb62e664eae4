/*
 * test_stack_needs.c - a thread's stack top as its walks teach it: kept
 * when higher, read back in 64-byte units rounded up, forgotten on
 * demand; another thread in the same slot takes it (a whole copy for
 * the first, never its top for the second); tids out of range ignored.
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
	return check_done("test_stack_needs");
}
