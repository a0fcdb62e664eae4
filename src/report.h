/*
 * report.h - batch mode: the per-symbol table printed as text or JSON,
 * once at the end or every -d seconds.
 */
#ifndef SHIMTOP_REPORT_H
#define SHIMTOP_REPORT_H

#include <stdio.h>

struct session;

/* Prints one report of the session's model to out. */
void report_print(struct session *s, FILE *out);

/*
 * Runs a batch session to its end (duration, target exit, SIGINT or
 * SIGTERM) and prints.  Returns the exit status.
 */
int report_run_batch(struct session *s);

#endif
