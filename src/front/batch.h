/*
 * batch.h - the batch front (-b): the session run to its end, the report
 * printed once at the end or every -d seconds, or exported.
 */
#ifndef SHIMTOP_BATCH_H
#define SHIMTOP_BATCH_H

struct session;

/*
 * Runs a batch session to its end (--duration, target exit, SIGINT or
 * SIGTERM) and prints.  Returns 0, or -errno after a one-line error
 * (the report of what was collected is printed first).
 */
int batch_run(struct session *s);

#endif
