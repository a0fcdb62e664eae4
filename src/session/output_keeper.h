/*
 * output_keeper.h - a launched command's output kept in a file, its last
 * megabytes only.
 *
 * Under the UI a command's output goes to a file in $TMPDIR; written
 * there directly, `sh -c 'while :; do echo noise; done'` grew it by 13
 * MB in 10 s, without end.  The command writes to a pipe instead, and a
 * thread copies what comes to the file; past twice the bytes to keep, the
 * file keeps its last ones (from a line's start) and goes on from there.
 */
#ifndef SHIMTOP_OUTPUT_KEEPER_H
#define SHIMTOP_OUTPUT_KEEPER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct output_keeper;

/*
 * Keeps what is written to output_keeper_fd in file (a descriptor open
 * for writing and reading at its start, taken over), at most 2 * keep
 * bytes of it.  NULL after a one-line error (file still the caller's).
 */
struct output_keeper *output_keeper_start(int file, size_t keep);
/* The pipe's end a command writes to (the keeper's own copy: dup it). */
int output_keeper_fd(const struct output_keeper *k);
/* Closes the keeper's copy of the writing end (the command has its own). */
void output_keeper_launched(struct output_keeper *k);

struct output_kept {
	uint64_t written;	/* bytes the command wrote */
	uint64_t kept;		/* bytes the file holds */
	bool cut;		/* its start went to keep the file bounded */
};
void output_keeper_read(struct output_keeper *k, struct output_kept *out);
/*
 * Copies what the pipe already holds, then stops (a command's children
 * may hold the pipe open past its end), and frees k.
 */
void output_keeper_stop(struct output_keeper *k);

#endif
