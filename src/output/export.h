/*
 * export.h - what a session holds, in the formats other tools read:
 * FlameGraph's folded stacks, speedscope's JSON, pprof's protobuf (the
 * way shimtop's profiles reach go tool pprof, Parca and Pyroscope), and
 * CSV tables for spreadsheets.  Each writes the tables the session shows
 * (a --range's when one is selected).
 */
#ifndef SHIMTOP_EXPORT_H
#define SHIMTOP_EXPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "session/options.h"

struct session;

/*
 * Writes the session in format how to path (through a temporary name
 * and a rename, so a failure never leaves part of a file), or to stdout
 * when path is NULL.  Returns 0, or -errno after a one-line error.
 */
int export_session(struct session *s, enum st_export how, const char *path);

/* The formats, each to an open stream: 0 or -errno (the stream failed). */
int export_speedscope(struct session *s, FILE *out);
int export_pprof(struct session *s, FILE *out);
int export_csv_symbols(struct session *s, FILE *out);
int export_csv_tags(struct session *s, FILE *out);
int export_csv_timeline(struct session *s, FILE *out);

/*
 * A window of the profile (--serve's next N seconds): the call tree's
 * counts at its start, taken by pprof_window_begin; export_pprof_window
 * writes what came since (w NULL: everything, as export_pprof).
 */
struct pprof_window {
	uint64_t *self, *weight;	/* per tree node */
	size_t n;
	int64_t start_unix_ns;		/* wall clock, pprof's time_nanos */
	uint64_t start_ns;		/* st_now_ns(): its duration */
	uint64_t from_time;		/* samples' time: after the newest at its start */
	/* Of a session with waits (--off-cpu): its events all, those on the CPU, or its waits. */
	enum pprof_part { PPROF_ALL, PPROF_ON_CPU, PPROF_WAITS } part;
};
void pprof_window_begin(const struct session *s, struct pprof_window *w);
void pprof_window_free(struct pprof_window *w);
int export_pprof_window(struct session *s, const struct pprof_window *w, FILE *out);

/* A CSV field: quoted (RFC 4180) when it holds a comma, a quote or a line break. */
void export_csv_field(FILE *out, const char *s);

#endif
