/*
 * check.h - the assertions the C unit tests share.  Each failed check
 * prints where and why; the test exits non-zero if any failed, so
 * automake's harness reports it.  Exit 77 means skipped.
 */
#ifndef SHIMTOP_TESTS_CHECK_H
#define SHIMTOP_TESTS_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static int check_failures;
static int check_count;

#define CHECK(cond) do {						\
	check_count++;							\
	if (!(cond)) {							\
		check_failures++;					\
		fprintf(stderr, "%s:%d: check failed: %s\n",		\
			__FILE__, __LINE__, #cond);			\
	}								\
} while (0)

#define CHECK_EQ_U64(a, b) do {						\
	uint64_t check_a_ = (a), check_b_ = (b);			\
	check_count++;							\
	if (check_a_ != check_b_) {					\
		check_failures++;					\
		fprintf(stderr, "%s:%d: %s == %" PRIu64 ", expected %"	\
			PRIu64 "\n", __FILE__, __LINE__, #a,		\
			check_a_, check_b_);				\
	}								\
} while (0)

static inline int check_done(const char *name)
{
	printf("%s: %d checks, %d failed\n", name, check_count,
	       check_failures);
	return check_failures ? 1 : 0;
}

#endif
