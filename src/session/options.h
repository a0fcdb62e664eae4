/*
 * options.h - what the user asked for on the command line.
 */
#ifndef SHIMTOP_OPTIONS_H
#define SHIMTOP_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "model/sort.h"
#include "ring/record.h"	/* ST_MAX_SIGNALS */
#include "sampler/target.h"		/* ST_MAX_TARGETS */

enum st_format {
	ST_FORMAT_TEXT,
	ST_FORMAT_JSON,
	ST_FORMAT_FOLDED,	/* the call tree as folded stacks (FlameGraph's) */
};

/* --export: another tool's format, written instead of the report. */
enum st_export {
	ST_EXPORT_NONE,
	ST_EXPORT_FOLDED,	/* FlameGraph's folded stacks */
	ST_EXPORT_SPEEDSCOPE,	/* speedscope's JSON, a sampled profile */
	ST_EXPORT_PPROF,	/* pprof's gzip-compressed protobuf */
	ST_EXPORT_CSV,		/* the symbol table */
	ST_EXPORT_CSV_TAGS,	/* the observer's tag table */
	ST_EXPORT_CSV_TIMELINE,	/* samples per 100 ms */
	ST_EXPORT_COUNT
};

/* The format's name as --export spells it. */
const char *st_export_name(enum st_export how);

/* What is sampled. */
enum st_target_kind {
	ST_TARGET_SYSTEM,		/* -a, -C, or nothing given: every process */
	ST_TARGET_PIDS,			/* -p PID[,PID...] */
	ST_TARGET_TIDS,			/* -t TID[,TID...] */
	ST_TARGET_USER,			/* -u USER: that user's processes */
	ST_TARGET_COMMAND,		/* -- COMMAND */
	ST_TARGET_DEMO,			/* --demo */
	ST_TARGET_REPLAY,		/* -i / --replay FILE */
};


#define ST_OBSERVER_PERIOD_MAX	100000000000ull	/* cycles: --observer-period's bound */
#define ST_OBSERVER_PERIOD	2000	/* cycles: >90% DTE acceptance (SHIM, ISCA 2015, Fig. 4c) */

struct st_options {
	enum st_target_kind target;
	pid_t pid;			/* the first of -p; 0 if not given */
	pid_t pids[ST_MAX_TARGETS];	/* -p, or -t's thread ids */
	size_t npids;
	const char *user;		/* -u as given */
	uid_t uid;			/* -u resolved */
	const char *cpus;		/* -C as given; NULL: every online CPU */
	char **command;			/* after --; NULL if none */
	bool batch_given;		/* -b itself (--serve and --export imply batch) */
	bool printed_only;		/* --help, --version, --list-events: done */
	bool check;			/* --check: run the checks (front/check.c), nothing else */
	const char *events;		/* -e, perf's syntax; NULL: default */
	uint64_t freq;			/* -F, Hz; 0 if not given */
	uint64_t period;		/* -c; 0 if not given */
	bool randomize;			/* vary the period as DCPI does */
	bool callchain;			/* the kernel's frame-pointer chains */
	bool call_graph_given;		/* -g, --call-graph or --no-callchain: else auto */
	/*
	 * --call-graph dwarf or callerchain: bytes of user stack copied with
	 * each sample (and the user registers), unwound by shimtop; 0: none.
	 */
	unsigned stack_copy;
	bool stack_copy_grows;		/* no SIZE given: copies grow where walks run off them */
	bool callerchain;		/* the call tree rebuilt from stack depth */
	unsigned chain_window;		/* callerchain: the bytes of it CallerChaining sees */
	bool unwind_broken;		/* auto: the copy unwound where the chain stops early */
	bool batch;
	double duration;		/* seconds; 0: until the target exits */
	double delay;			/* -d: batch print interval, UI refresh */
	bool delay_set;			/* -d was given */
	unsigned iterations;		/* -n: batch reports before stopping, 0 = no limit */
	enum st_format format;
	int rows;			/* -E: rows to print, 0 = all */
	bool per_thread;		/* -H: the per-thread table too */
	bool per_process;		/* -P: the per-process table too */
	bool per_module;		/* --modules: the per-module table too */
	struct st_sort sort;
	const char *record_path;
	const char *replay_path;
	const char *target_output;	/* --target-output: a launched command's; "-" the terminal */
	enum st_export export_format;	/* --export, with -i */
	const char *export_path;	/* -o with --export; NULL: stdout */
	const char *diff_path;		/* --diff: the recording -i is compared with */
	const char *snapshot_path;	/* --snapshot-on-exit */
	double history;			/* --history: seconds of samples kept */
#define ST_HISTORY_SECONDS 600
	unsigned memory_mb;		/* --memory: resident MiB at most */
#define ST_MEMORY_MB 512
#define ST_MEMORY_MIN_MB 32
	bool ranged;			/* --range given */
	double range_from, range_to;	/* seconds from the first sample */
	bool realtime;			/* replay at recorded speed */
	const char *symfs;		/* --symfs: where a recording's files are */
	const char *kallsyms;		/* --kallsyms: a recording's kernel functions */
	const char *serve_address;	/* --serve ADDR:PORT: headless, answering HTTP */
	/*
	 * The first option given that chooses how samples are taken (-e,
	 * -F, -c, --call-graph dwarf or none, --no-randomize):
	 * a recording (-i) was sampled already, so it is refused there.
	 */
	const char *sampling_given;
	const char *serve_token_path;	/* --serve-token: a file holding the bearer token */
	unsigned serve_top;		/* --serve-top: per-symbol metrics of the N heaviest */
#define ST_SERVE_TOP_MAX 50
	const char *theme;

	/* --ibs: AMD IBS samples instead of perf events. */
	enum { ST_IBS_NONE, ST_IBS_OP, ST_IBS_FETCH } ibs;
	bool ibs_l3miss;		/* --ibs-l3miss */
	unsigned ibs_ldlat;		/* --ibs-ldlat CYCLES; 0: none */
	bool ibs_aggregate;		/* --ibs-aggregate: counts in shimtop's module */
	bool off_cpu;			/* --off-cpu: sched_switch's samples, weighed by time off */
	const char *ibs_dump_path;	/* --ibs-dump FILE: decode a recording's IBS samples */

	/* The SHIM observer (--observe). */
	bool observe;			/* --observe, or implied by its options */
	int observer_cpu;		/* --observer-cpu; -1: choose */
	bool pin_target;
	uint64_t observer_period;	/* TSC cycles between samples; 0: no pause */
	double dte_tolerance;		/* |CPC - 1| accepted */
	const char *signals[ST_MAX_SIGNALS];	/* --signal NAME[:tag] */
	size_t nsignals;
};

/* The --sort names of a key ("self", "ipc", ...). */
const char *sort_key_name(enum st_sort_key k);

/*
 * Fills *o from argv.  Returns 0, or -EINVAL after a one-line usage
 * error.  After --help or --version, o->printed_only is set: nothing runs.
 */
int st_options_parse(struct st_options *o, int argc, char **argv);

#endif
