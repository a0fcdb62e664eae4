/*
 * check.h - shimtop --check: each sampling path run on this machine on
 * the demo's workload and held against a figure measured another way,
 * as perf test checks perf where it runs.  Hardware paths the machine
 * lacks are skipped with what is missing and what would enable it.
 */
#ifndef SHIMTOP_CHECK_H
#define SHIMTOP_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct st_options;

enum check_result { CHECK_PASS, CHECK_SKIP, CHECK_FAIL };

struct check_row {
	const char *name;		/* "sampling, cpu-clock" */
	enum check_result result;
	char detail[320];		/* the two figures, or why it was skipped */
};

/*
 * The verdicts, from figures alone (the tests give them made-up ones):
 * samples of a clock event at hz over the workload's own CPU seconds,
 * within 15% of what they should be;
 */
enum check_result check_sampling(double samples, double cpu_seconds, double hz, char *detail,
				 size_t len);
/* share (0..1) of samples whose path reaches main, at least 90%; */
enum check_result check_chains(double share, const char *how, char *detail, size_t len);
/* how many of the workload's n own functions lead the table (each >= 5%): all of them. */
enum check_result check_symbols(int found, int n, const char *missing, char *detail,
				size_t len);

/*
 * IPC from shimtop's counter group (instructions over cycles of the
 * samples whose group was scheduled throughout; multiplexed of samples
 * were not) against the workload's own count (own_running: the share of
 * its time its group ran), within 2%.  own_ipc <= 0: it counted nothing.
 */
enum check_result check_ipc(double ipc, double multiplexed, double own_ipc, double own_running,
			    char *detail, size_t len);

/*
 * IBS op samples of a load loop over [lo, hi): counted by check_ibs_count
 * from each decoded sample (user space alone), judged by check_ibs_loads:
 * at least 20 loads with a data address, 80% of them in the array, and
 * at least 90% of the data-cache misses with a latency above 0.
 */
struct ibs_sample;
struct check_ibs_loads {
	uint64_t ops, loads, addressed, in_array, misses, with_latency;
	uint64_t latency_sum;
	uint32_t caps;			/* the samples' capabilities (the last one's) */
	unsigned family;		/* the sampled CPU's, where the record says */
};
void check_ibs_count(const struct ibs_sample *s, uint64_t lo, uint64_t hi,
		     struct check_ibs_loads *n);
enum check_result check_ibs_loads(const struct check_ibs_loads *n, char *detail, size_t len);
/* A recording's user-space IBS op samples counted into n: false, with why, if unread. */
bool check_ibs_recording(const char *path, uint64_t lo, uint64_t hi, struct check_ibs_loads *n,
			 char *why, size_t len);

/*
 * The observer: its fastest period (TSC cycles, the median) within 1.3x
 * of the floor measured beside it (two rdtscp around one load of a line
 * another core writes); DTE on a counter stepped at most once per d TSC
 * cycles, sampled every p: of the rates DTE accepted (the observer
 * JSON's first counter's histogram), at most 2 or 2 in 100,000 over the
 * physical bound (1/d + 4/p per cycle), from at least 1,000, and no
 * period under p; rdpmc: the target's instructions the observer counted
 * within 10% of the workload's own count.
 */
struct json_object;
enum check_result check_observer_period(double fastest, double floor, char *detail, size_t len);
enum check_result check_dte(struct json_object *observer, double d, double p, char *detail,
			    size_t len);
enum check_result check_rdpmc(double counted, double own, char *detail, size_t len);

/* A kernel module's vermagic's kernel release (its first word) in out: false if none. */
bool check_module_vermagic(const char *path, char *out, size_t len);

/* Runs every check, prints the table (or JSON with --format json): 0, or 1 if any failed. */
int check_run(const struct st_options *o, const char *self);

#endif
