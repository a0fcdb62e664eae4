/*
 * unwind.h - call chains from a sample's copy of its user stack
 * (--call-graph dwarf and callerchain), unwound with libdwfl over the
 * CFI of the process's ELF files, as perf report does.
 *
 * The copy is the target's, so every read is checked against it: an
 * address outside the copy ends the chain (counted as cut), it is never
 * read from anywhere else.
 */
#ifndef SHIMTOP_UNWIND_H
#define SHIMTOP_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ring/record.h"

struct symbolizer;
struct unwinder;

/* One frame: pc is the sampled address (frame 0) or a return address. */
struct unwound_frame {
	uint64_t pc;
	uint64_t sp;	/* its stack pointer: for frame i > 0, frame i-1's CFA */
};

enum unwind_end {
	UNWIND_COMPLETE,	/* the outermost frame was reached */
	UNWIND_CUT,		/* the stack copy ended first */
	UNWIND_LOST,		/* no CFI or no module for a frame's address */
};

struct unwinder *unwinder_create(struct symbolizer *s);
void unwinder_destroy(struct unwinder *u);
/* pid is gone (or exec'd): its modules are let go. */
void unwinder_forget(struct unwinder *u, pid_t pid);

/*
 * pid's maps taught, and its files' pages asked for, before any walk of
 * it (a sample waiting for its symbols): nothing without a teacher.
 */
void unwinder_prepare(struct unwinder *u, pid_t pid, uint64_t time);

/*
 * The frames of thread tid of pid from k (at most max), innermost first;
 * frames[0] is k's ip.  *end says why the walk stopped.  time: the
 * sample's, for the teacher (below).
 */
size_t unwinder_walk(struct unwinder *u, pid_t pid, pid_t tid, uint64_t time,
		     const struct st_stack *k, struct unwound_frame *frames, size_t max,
		     enum unwind_end *end);

/* Why a walk stopped. */
enum unwind_stop {
	STOP_OUTERMOST,		/* a frame with no caller (_start, a thread's start) */
	STOP_COPY_END,		/* the caller's return address is past the stack copy */
	STOP_MAX_FRAMES,	/* as many frames as asked for */
	STOP_BY_LIBDWFL,	/* a frame no row expressed: libdwfl walked it all */
	STOP_RBP_ZERO,		/* a frame without CFI and a zero rbp: the ABI's outermost */
	STOP_NO_RULE,		/* no caller to be found: no CFI and no rbp, a CFA in another
			   register, or a frame below its callee (garbage) */
	STOP_KINDS
};

/* Why a walk was handed to libdwfl: the frame the rows could not take. */
enum unwind_fallback {
	FALLBACK_RULE,		/* a rule no row expresses (an expression, a signal frame) */
	FALLBACK_RBP,		/* CFA from an rbp an earlier frame left unknown */
	FALLBACK_KINDS
};

/* How walks went: by the rows or by libdwfl, how they ended, checks. */
struct unwind_stats {
	uint64_t by_rows, by_dwfl;
	uint64_t fallbacks[FALLBACK_KINDS];	/* by enum unwind_fallback */
	uint64_t stops[STOP_KINDS];	/* by enum unwind_stop */
	uint64_t check_same, check_differ;
	uint64_t check_unable;		/* checks libdwfl could not walk (no module to start from) */
	uint64_t rows_files[3];		/* files' rows opened, by enum unwind_rows_cached */
	uint64_t frames_by_pages;	/* frames whose row came from their file's pages */
	uint64_t check_rows_ns, check_dwfl_ns;	/* the checked walks' time, each way */
};
const struct unwind_stats *unwinder_stats(const struct unwinder *u);
/* Why the last walk stopped. */
enum unwind_stop unwinder_last_stop(const struct unwinder *u);
/* on: each walk by rows is walked by libdwfl too and compared (check_*). */
void unwinder_check(struct unwinder *u, bool on);

/* Where walks teach each thread's stack top, for the sampler to cut copies to (or NULL). */
struct stack_needs;
void unwinder_set_needs(struct unwinder *u, struct stack_needs *n);

/*
 * Where walks teach another walker (the kernel's, sampler/kernel_walk.c)
 * what they used: a process's code mappings (each file by a number of
 * the unwinder's), and the row of each frame's file address, with
 * whether the 64-byte block around it has that row throughout.  Called
 * for walks by rows only; a walk at time is of a sample at that time.
 */
#define UNWIND_TEACH_BLOCK	64	/* the block a row is taught for, where it holds throughout */
#define UNWIND_TEACH_SMALL	16	/* and the smaller, where rows change within 64 bytes */
#define UNWIND_TEACH_KNOWN	4096	/* a file's rows known at its first lesson, taught at most */
struct unwind_row;
struct unwind_map {
	uint64_t start, end, vaddr;
	uint32_t file;
};
/* A row the other walker asked for: the file (by its number) and address. */
struct unwind_need {
	uint32_t file;
	uint64_t addr;
};
struct unwind_pages;
struct unwind_teacher {
	void (*maps)(void *arg, pid_t pid, uint64_t time, uint64_t gen,
		     const struct unwind_map *m, size_t n);
	/* block: 0, the address alone; else addr starts a block of that many bytes. */
	void (*row)(void *arg, uint32_t file, uint64_t addr, unsigned block,
		    const struct unwind_row *row);
	void (*forget)(void *arg, pid_t pid);
	/* Rows asked for since the last call (at most max): each is taught if it can be. */
	size_t (*needs)(void *arg, struct unwind_need *out, size_t max);
	/* A walk's lessons are over: what the teacher gathered goes out. */
	void (*flush)(void *arg);
	/*
	 * file's whole CFI, compiled (unwind_pages.h): the teacher copies what
	 * it keeps; true when it has them all (no row of the file is taught
	 * then).  Called on a worker thread, not the walks'.
	 */
	bool (*pages)(void *arg, uint32_t file, const struct unwind_pages *p);
	/*
	 * The pages taken so far must be in use now (NULL: each is at once);
	 * on the same worker thread, after one or more of pages.
	 */
	void (*pages_settle)(void *arg);
	void *arg;
};
void unwinder_set_teacher(struct unwinder *u, const struct unwind_teacher *t);

#endif
