/*
 * annotate.h - one symbol taken apart for the drill-down, as perf
 * annotate and DCPI's dcpicalc do: its instructions (Capstone) with the
 * samples that fell on each, the source line of each (DWARF), its hottest
 * source lines, and how its samples split over threads.  The code is
 * decoded once (annotation_load); the samples are counted again over any
 * time range of the history (annotation_count).
 */
#ifndef SHIMTOP_ANNOTATE_H
#define SHIMTOP_ANNOTATE_H

#include "model/histogram.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct model;
struct symbolizer;
struct annotation_tally;

struct annotated_insn {
	uint64_t offset;	/* bytes from the symbol's start (64 bits: st_after's key) */
	uint16_t size;
	uint64_t samples;
	const char *file;	/* its source line, or NULL */
	int line;
	char text[144];		/* mnemonic and operands, AT&T as perf shows */
	uint64_t target;	/* a direct call's or jump's, in the file; 0: none */
	char target_name[96];	/* the function it lands in, if the file names it */
};

struct annotated_line {
	const char *file;
	int line;
	uint64_t samples;
};

struct annotated_thread {
	uint32_t tid;
	uint64_t samples;
};

#define ANNOTATE_LINES_MAX	512u	/* distinct hot source lines kept */
#define ANNOTATE_COLUMNS	100u	/* the symbol's timeline row */

struct annotation {
	uint32_t sym;
	uint64_t start;			/* the symbol's address in its file */
	int code;			/* symbolizer_code: 0, -ENOENT, -ENODATA; -ENOSYS: no disassembler */
	bool truncated;			/* only the first SYMBOL_CODE_MAX bytes */
	struct annotated_insn *insn;	/* by offset */
	size_t ninsn;

	/* annotation_count's, for the range it was given: */
	uint64_t samples;		/* the symbol's samples */
	uint64_t placed;		/* of those, on a decoded instruction */
	struct annotated_line *lines;	/* by samples, most first */
	size_t nlines;
	struct annotated_thread *threads;	/* by samples, most first */
	size_t nthreads;
	/*
	 * Its timeline row: the range (or what the history holds) cut into
	 * ncols columns of step ns from col_from, with the symbol's samples
	 * and every symbol's (of the same event) in each.
	 */
	uint64_t col_from, col_step;
	size_t ncols;
	uint64_t col_samples[ANNOTATE_COLUMNS], col_all[ANNOTATE_COLUMNS];
	struct histogram ipc;		/* of its samples that carry counts, 0-4 */
	struct annotation_tally *tally;	/* what was counted (annotate.c) */
};

/* Why code is not disassembled here (a->code -ENOSYS): one line. */
const char *annotation_no_disassembler(void);
/* Decodes symbol sym's code, if a file holds it (a->code says). */
void annotation_load(struct annotation *a, struct symbolizer *s, uint32_t sym);

/*
 * Counts the symbol's samples in the history over [from, to) (record
 * time, ns; 0 and UINT64_MAX: all of it), of the event the tables show:
 * per instruction, line, thread and column, and their IPC.  Over the
 * whole session (0, UINT64_MAX) counted again, only the samples added
 * since are walked, unless the history dropped some; its columns are then
 * whole 100 ms spans (fewer than ANNOTATE_COLUMNS under 10 s).  The same
 * range of an unchanged history is not counted again.  An
 * annotation counts one model's history only.
 */
void annotation_count(struct annotation *a, const struct model *m,
		      uint64_t from, uint64_t to);

/* The instruction holding offset, or NULL. */
const struct annotated_insn *annotation_insn_at(const struct annotation *a,
						uint32_t offset);

void annotation_free(struct annotation *a);

#endif
