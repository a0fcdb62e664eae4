/*
 * model_diff.h - two profiles compared (--diff): per symbol and per
 * calling context, each side's share and IPC and the change, largest
 * change first; where a side recorded waits (--off-cpu), their time under
 * each function and its change too.  The sides come from different runs, so symbols and
 * paths are matched by name (module and function), not by id.
 */
#ifndef SHIMTOP_MODEL_DIFF_H
#define SHIMTOP_MODEL_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct model;

/*
 * Side 0 is the profile shown (-i A), side 1 the one it is compared with
 * (--diff B).  A row's and a path's sides come first in each, so what
 * prints a side prints both (output/tables.c).
 */
struct diff_sides {
	bool present[2];
	uint64_t samples[2];		/* a row's; a path's: that ended on it */
	double share[2];		/* % of the side's samples' weight; NAN: absent */
	double delta;			/* share[1] - share[0], percentage points */
};

struct diff_row {
	struct diff_sides sides;
	const char *module, *name;	/* the model's strings, of the side that has it */
	double ipc[2];			/* NAN: no counters */
	/* --off-cpu: seconds waits spent under it, B - A; NAN: the side recorded none */
	double offcpu[2], offcpu_change;
	uint32_t sym_a;			/* A's symbol (st_symbol.id) where present[0] */
};

struct diff_path {
	struct diff_sides sides;
	char *path;			/* "main;run;leaf", as folded stacks */
};

struct model_diff {
	struct diff_row *rows;
	size_t nrows;
	struct diff_path *paths;
	size_t npaths;
	uint64_t samples[2];
};

/* a against b into d, rows and paths by |delta|, largest first. */
void model_diff(const struct model *a, const struct model *b, struct model_diff *d);
void model_diff_free(struct model_diff *d);

#endif
