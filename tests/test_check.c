/*
 * test_check.c - shimtop --check's verdicts from made-up figures: a
 * sampling rate within 15% of what the workload's CPU time asks passes
 * and one outside fails with both figures; no CPU time fails; chains at
 * 90% pass and under fail; symbols pass only whole.
 */
#include "check.h"
#include "front/check.h"

#include <string.h>

static void sampling(void)
{
	char d[320];

	CHECK(check_sampling(4000, 1.0, 4000, d, sizeof(d)) == CHECK_PASS);
	CHECK(strstr(d, "4000 samples for 1.00 s") && strstr(d, "4000 expected"));
	CHECK(check_sampling(3401, 1.0, 4000, d, sizeof(d)) == CHECK_PASS);
	CHECK(check_sampling(3399, 1.0, 4000, d, sizeof(d)) == CHECK_FAIL);
	CHECK(strstr(d, "3399 samples") && strstr(d, "4000 expected"));
	CHECK(check_sampling(4601, 1.0, 4000, d, sizeof(d)) == CHECK_FAIL);
	/* A VM lending half a CPU: the workload's own time says so, and it passes. */
	CHECK(check_sampling(2010, 0.5, 4000, d, sizeof(d)) == CHECK_PASS);
	CHECK(check_sampling(100, 0, 4000, d, sizeof(d)) == CHECK_FAIL);
	CHECK(strstr(d, "no CPU time") != NULL);
}

static void chains(void)
{
	char d[320];

	CHECK(check_chains(0.9, "fp", d, sizeof(d)) == CHECK_PASS);
	CHECK(check_chains(0.899, "fp", d, sizeof(d)) == CHECK_FAIL);
	CHECK(strstr(d, "89.9% of samples' chains reach main (fp") != NULL);
}

static void symbols(void)
{
	char d[320];

	CHECK(check_symbols(4, 4, "", d, sizeof(d)) == CHECK_PASS);
	CHECK(check_symbols(3, 4, "recurse_tree", d, sizeof(d)) == CHECK_FAIL);
	CHECK(strstr(d, "3 of the workload's 4") && strstr(d, "missing: recurse_tree"));
}

int main(void)
{
	sampling();
	chains();
	symbols();
	return check_done("test_check");
}
