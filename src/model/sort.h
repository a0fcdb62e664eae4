/*
 * sort.h - how the model's rows are ordered and split: the keys perf's
 * and top's users sort by, and rows per process or command.
 */
#ifndef SHIMTOP_SORT_H
#define SHIMTOP_SORT_H

#include <stdbool.h>

enum st_sort_key {
	ST_SORT_SELF,		/* samples, the default */
	ST_SORT_IPC,
	ST_SORT_MODULE,
	ST_SORT_SYMBOL,
	ST_SORT_PROCESS,	/* command, then pid: rows split by process */
	ST_SORT_OFFCPU,		/* --off-cpu: time waits spent under it */
	ST_SORT_TOTAL,		/* samples through it, callees' too (perf's children) */
	ST_SORT_WALL,		/* --off-cpu: on the CPU and waiting under it */
	ST_SORT_COUNT
};

/*
 * -s: a comma list; the first key orders, the rest break ties.  A list
 * that starts with one of perf's names (dso, sym, pid, comm) gets
 * overhead in front, as perf orders.
 */
#define ST_MAX_SORT_KEYS 5	/* four given, and overhead first for perf's */

/* How rows are split beside the symbol: perf's -s comm and -s pid. */
enum st_split {
	ST_SPLIT_NONE,			/* a row per symbol */
	ST_SPLIT_PID,			/* per process and symbol (-s pid; several processes) */
	ST_SPLIT_COMM,			/* per command and symbol (-s comm): processes merged */
};

struct st_sort {
	enum st_sort_key key[ST_MAX_SORT_KEYS];
	int nkeys;			/* at least 1 */
	enum st_split split;
	bool given;			/* by -s (else the default) */
};

#endif
