/*
 * options.h - what the user asked for on the command line.
 */
#ifndef SHIMTOP_OPTIONS_H
#define SHIMTOP_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

enum st_format {
	ST_FORMAT_TEXT,
	ST_FORMAT_JSON,
};

enum st_sort_key {
	ST_SORT_SELF,		/* samples, the default */
	ST_SORT_IPC,
	ST_SORT_MODULE,
	ST_SORT_SYMBOL,
	ST_SORT_COUNT
};

#define ST_MAX_SIGNALS		5	/* four counters and a tag */
#define ST_OBSERVER_PERIOD	2000	/* cycles: >90% DTE acceptance (SHIM, ISCA 2015, Fig. 4c) */

struct st_options {
	pid_t pid;			/* -p; 0 if not given */
	char **command;			/* after --; NULL if none */
	bool printed_only;		/* --help, --version: done */
	bool demo;			/* neither: launch shimtop-demo */
	const char *events;		/* -e, comma separated; NULL: default */
	uint64_t freq;			/* -F, Hz; 0 if not given */
	uint64_t period;		/* -c; 0 if not given */
	bool randomize;			/* vary the period as DCPI does */
	bool callchain;
	bool batch;
	double duration;		/* seconds; 0: until the target exits */
	double delay;			/* -d: batch print interval, UI refresh */
	bool delay_set;			/* -d was given */
	enum st_format format;
	int rows;			/* batch: rows to print, 0 = all */
	bool per_thread;		/* -H: the per-thread table too */
	enum st_sort_key sort;
	const char *record_path;
	const char *replay_path;
	bool realtime;			/* replay at recorded speed */
	const char *theme;

	/* The SHIM observer (--observe). */
	bool observe;			/* --observe, or implied by its options */
	int observer_cpu;		/* --observer-cpu; -1: choose */
	bool pin_target;
	uint64_t observer_period;	/* TSC cycles between samples; 0: no pause */
	double dte_tolerance;		/* |CPC - 1| accepted */
	const char *signals[ST_MAX_SIGNALS];	/* --signal NAME[:tag] */
	size_t nsignals;
};

/*
 * Fills *o from argv.  Returns 0, or -EINVAL after a one-line usage
 * error.  After --help or --version, o->printed_only is set: nothing runs.
 */
int st_options_parse(struct st_options *o, int argc, char **argv);

#endif
