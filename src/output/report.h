/*
 * report.h - the report: the per-symbol table and the rest, printed as
 * text, JSON or folded stacks (the batch front prints it, snapshots keep
 * its JSON).
 */
#ifndef SHIMTOP_REPORT_H
#define SHIMTOP_REPORT_H

#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>

/*
 * The JSON report's layout version ("schema").  2: "threads" became
 * {live, seen} and a source's "period" {value, unit, randomized}.
 */
#define REPORT_JSON_SCHEMA 2

struct session;
struct model;
struct json_object;
struct st_period;

/* o[key] = v, a JSON number. */
void report_add_u64(struct json_object *o, const char *key, uint64_t v);

/* {"value": 250000, "unit": "ns", "randomized": true} */
struct json_object *report_period_json(const struct st_period *p);

/* The JSON report, one line, whatever --format says (snapshots keep one). */
void report_print_json(struct session *s, FILE *out);

/* Prints one report of the session's model to out. */
void report_print(struct session *s, FILE *out);

/*
 * The session's calling context tree as folded stacks, FlameGraph's and
 * perf script's format: "root;...;leaf samples", one line a path that
 * samples ended in, root first.
 */
void report_folded(const struct model *m, FILE *out);
/*
 * The tree as JSON: its figures and "nodes", each node 1.. as
 * report_tree_node_json makes it; nodes given (not NULL) stands in for
 * the array (report.c writes it a node at a time).
 */
struct json_object *report_tree_json(const struct model *m, struct json_object *nodes);
struct json_object *report_tree_node_json(const struct model *m, size_t i);
/*
 * CallerChaining's figures (the paper's Table 1, and its agreement with
 * the reference chains per level), or NULL when no sample had a depth.
 */
struct json_object *report_callerchain_json(const struct model *m);
/* --call-graph callerchain: the text report's line on the rebuilt tree's agreement. */
bool report_callerchain_text(const struct model *m, char *buf, size_t len);

/*
 * One report, written whole to standard output (spaced: a blank line
 * after it): 0, or -errno after one line saying why it was lost (a full
 * disk, a closed pipe).
 */
int report_write_stdout(struct session *s, bool spaced);

/* "compute", "phase_compute" (an address tag), or the tag's number. */
void report_tag_name(const struct session *s, uint64_t tag, char *buf, size_t len);
/* A tag row's label: its name, or the overflow row's. */
struct obs_tag;
void report_tag_label(const struct session *s, const struct obs_tag *t, char *buf,
		      size_t len);

/*
 * --diff (report_diff.c): a's tables against b's, per symbol and per
 * calling context, largest change first; text, and the JSON "diff".
 */
void report_diff_text(struct session *a, const struct session *b, FILE *out);
struct json_object *report_diff_json(struct session *a, const struct session *b);

/* IBS's totals and hot data pages (report_ibs.c); nothing without IBS samples. */
struct ibs_stats;
struct ibs_page;
struct model;
void report_ibs_text(struct session *s, FILE *out);
struct json_object *report_ibs_json(struct session *s);
struct json_object *report_ibs_stats_json(const struct ibs_stats *t);
/* A page's symbols, heaviest first, "a, b, c". */
void report_ibs_page_symbols(const struct model *m, const struct ibs_page *p, char *buf,
			     size_t len);

/* The observer's statistics (report_observer.c); nothing without one. */
void report_observer_text(struct session *s, FILE *out);
struct json_object *report_observer_json(struct session *s);

/*
 * The per-thread table (report_threads.c): text for -H, and the JSON
 * "per_thread" array (each thread's top symbols; "share" of a top symbol
 * is of the thread's samples).
 */
void report_threads_text(struct session *s, FILE *out);
/* The per-process table: text for -P, the JSON "per_process" array. */
void report_processes_text(struct session *s, FILE *out);
/* ... and into rest, "processes": the lighter ones not listed and their samples. */
struct json_object *report_processes_json(struct session *s, struct json_object *rest);
/* The per-module table: text for --modules, the JSON "per_module" array. */
void report_modules_text(struct session *s, FILE *out);
struct json_object *report_modules_json(struct session *s);

/* How many of nthreads threads the table lists (the heaviest 256, or -n). */
size_t report_threads_listed(struct session *s, size_t nthreads);
/*
 * The "per_thread" array; into threads, "listed"; into rest ("not_listed"),
 * "threads": those not listed (forgotten ones too) and their samples.
 */
struct json_object *report_threads_json(struct session *s, struct json_object *threads,
					struct json_object *rest);

#endif
