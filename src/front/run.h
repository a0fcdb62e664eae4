/*
 * run.h - a session run to its end, the same way in every front (the
 * batch report, the UI, the server): started, pumped, a snapshot written
 * on SIGUSR1, stopped at --duration or a stop signal, snapshot on exit.
 * The front says what it does each turn and how it shows a message.
 */
#ifndef SHIMTOP_RUN_H
#define SHIMTOP_RUN_H

#include <stdbool.h>

struct session;
struct snapshot_result;

struct run_front {
	/* Once the session has started (a terminal, a listener): < 0 ends the run. */
	int (*begin)(void *arg);
	/* Whether this turn pumps the session's records into its model. */
	bool (*pump_now)(void *arg);
	/* The front's turn (and its wait for the next): false ends the run. */
	bool (*turn)(void *arg);
	/* A message for the user: a warning (a debuginfod notice) or a note (a snapshot). */
	void (*say)(void *arg, bool warning, const char *msg);
	/* Before the session stops (may be NULL). */
	void (*end)(void *arg);
	void *arg;
	/* A snapshot written in the background has ended (NULL: say its message). */
	void (*snapshot_done)(void *arg, const struct snapshot_result *r);
};

/* A say for a front without a screen: the line on stderr (st_warn, st_note). */
void run_say_stderr(void *arg, bool warning, const char *msg);

/*
 * Runs s to its end: 0, or -errno from the start, the stop or the
 * snapshot on exit (whatever the front printed before).
 */
int run_session(struct session *s, const struct run_front *f);

#endif
