/*
 * snapshot.h - what a snapshot holds, and reading one back.
 *
 * A snapshot (s, SIGUSR1, --snapshot-on-exit) is a snapshot_file.h
 * container with these sections:
 *   label    one line of text: when it was taken, on which host
 *   meta     JSON: host, kernel, CPU, PMU, start and snapshot times,
 *            target, options, the history's bound (snapshot_write.c)
 *   symbols  every symbol the session named, in id order (below)
 *   records  a record file (record_file.h) of the samples the history
 *            held, each at its symbol's stand-in address with its call
 *            path as a chain, plus the threads' names, exits and losses
 *   report   the JSON report as batch printed it at that moment
 *   observer the SHIM observer's statistics, histograms and timeline
 *            (obs_model_save.c), when it ran
 *   chaining CallerChaining's input (callerchain.c), when samples had
 *            stack depths: u8 1 if the rebuilt tree was the one shown,
 *            then callerchain_save's bytes, symbols as in "symbols"
 *   ibs      IBS's per-symbol figures, pages and steps (ibs_model_save.c),
 *            when IBS samples arrived (the records do not hold registers)
 *   code     the hottest functions' machine code (from version 4; below)
 * Opening one (-i) replays its records through the same model with the
 * symbols standing in for the files, so every view and a time range work
 * as they did live, on any machine.
 *
 * symbols: u32 count; per symbol u8 unknown, u8 has_aliases, u16 0, then
 * u32 lengths of module, name, raw name and aliases, then those bytes
 * (no NULs in them).
 * code: u32 count; per function u32 symbol id, u32 length (1 to
 * SYMBOL_CODE_MAX), u64 its address in its file, u8 truncated, three
 * zero bytes, then its bytes.  Version 4's records put a sample at its
 * offset into its stand-in (symbols.h).
 */
#ifndef SHIMTOP_SNAPSHOT_H
#define SHIMTOP_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ring/snapshot_file.h"

struct symbolizer;

#define SNAPSHOT_LABEL_MAX 160u

struct snapshot_opened {
	struct snapshot_section records;	/* a recording to replay, still compressed */
	char label[SNAPSHOT_LABEL_MAX];	/* "taken ... on HOST" */
	char *meta;			/* the meta JSON, NUL-terminated, or NULL */
	char *report;			/* the report JSON, or NULL */
	char skipped[128];		/* sections this shimtop does not know */
	size_t nsymbols;
	struct snapshot_bytes {
		uint8_t *data;
		size_t size;
	} observer, chaining, ibs;	/* the sections, if the snapshot has them */
};

/*
 * Opens the snapshot at path: its symbols become sy's stand-ins and its
 * records a recording to replay (snapshot_records).  0, or -errno after
 * a one-line error.
 */
int snapshot_open(const char *path, struct symbolizer *sy, struct snapshot_opened *out);
void snapshot_opened_close(struct snapshot_opened *o);

/* The records as a stream to replay (decompressed as read), or NULL. */
FILE *snapshot_records(const struct snapshot_opened *o);

/*
 * The observer's statistics and CallerChaining's input, if the snapshot
 * has them, into m (model_init'ed, its options set), symbols through
 * sy's stand-ins.  0, or -EINVAL after a one-line error naming path.
 */
struct model;
int snapshot_load_model(const struct snapshot_opened *o, struct model *m,
			const struct symbolizer *sy, const char *path);

/*
 * The symbols section's bytes checked and handed to fn in order; 0, or
 * -EINVAL with the problem in err.  (snapshot_open's parser, for fuzzing.)
 */
/*
 * The code section's bytes checked against nsymbols and its length and
 * handed to fn one function at a time; 0, or -EINVAL with the problem in
 * err.  (snapshot_open's parser, for fuzzing.)
 */
typedef void (*snapshot_code_fn)(uint32_t id, uint64_t start, const uint8_t *bytes, size_t len,
				 bool truncated, void *arg);
int snapshot_parse_code(const uint8_t *p, size_t len, size_t nsymbols, snapshot_code_fn fn,
			void *arg, char *err, size_t errlen);

typedef void (*snapshot_symbol_fn)(const char *module, const char *name, const char *raw,
				   const char *aliases, int unknown, int named_by, void *arg);
int snapshot_parse_symbols(const uint8_t *p, size_t len, snapshot_symbol_fn fn, void *arg,
			   char *err, size_t errlen);

/* Whether the file at path starts as a snapshot. */
int snapshot_is(const char *path);

#endif
