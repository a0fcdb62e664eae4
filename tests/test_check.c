/*
 * test_check.c - shimtop --check's verdicts from made-up figures: a
 * sampling rate within 15% of what the workload's CPU time asks passes
 * and one outside fails with both figures; no CPU time fails; chains at
 * 90% pass and under fail; symbols pass only whole; IPC within 2% of
 * the workload's own count passes, saying what was multiplexed.
 */
#include "check.h"
#include "front/check.h"

#include <math.h>
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

/*
 * IPC: the figures a run gives (the model's sums over a group's samples,
 * test_model; the workload's own group read) against each other.
 */
static void ipc(void)
{
	char d[320];

	CHECK(check_ipc(1.25, 0, 1.25 * 1.019, 1.0, d, sizeof(d)) == CHECK_PASS);
	CHECK(strstr(d, "IPC 1.250 from shimtop's group against 1.274") &&
	      strstr(d, "1.9% apart") && strstr(d, "scheduled throughout"));
	CHECK(check_ipc(1.25, 0, 1.25 * 0.981, 1.0, d, sizeof(d)) == CHECK_PASS);
	CHECK(check_ipc(1.25, 0, 1.25 * 1.03, 1.0, d, sizeof(d)) == CHECK_FAIL);
	CHECK(strstr(d, "2.9% apart") != NULL);
	CHECK(check_ipc(1.25, 0, 1.25 * 0.97, 1.0, d, sizeof(d)) == CHECK_FAIL);
	/* Multiplexed on either side: said, and judged on what was scheduled. */
	CHECK(check_ipc(2.0, 0.25, 2.01, 0.8, d, sizeof(d)) == CHECK_PASS);
	CHECK(strstr(d, "multiplexed: 25.0% of samples") && strstr(d, "ran 80.0% of its time"));
	CHECK(check_ipc(2.0, 0, 2.0, 0.5, d, sizeof(d)) == CHECK_PASS);
	CHECK(strstr(d, "ran 50.0%") != NULL);
	/* Nothing to compare: fails, saying which side is missing. */
	CHECK(check_ipc(1.0, 0, 0, 0, d, sizeof(d)) == CHECK_FAIL);
	CHECK(strstr(d, "the workload counted no cycles") != NULL);
	CHECK(check_ipc(0, 1.0, 1.0, 1.0, d, sizeof(d)) == CHECK_FAIL);
	CHECK(strstr(d, "no sample carried usable counters (100.0% multiplexed)") != NULL);
	CHECK(check_ipc(NAN, 0, 1.0, 1.0, d, sizeof(d)) == CHECK_FAIL);
}

int main(void)
{
	sampling();
	chains();
	symbols();
	ipc();
	return check_done("test_check");
}
