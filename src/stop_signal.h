/*
 * stop_signal.h - Ctrl-C (SIGINT) and SIGTERM end a session the way `q`
 * does: the front end notices, stops sampling, ends a launched target,
 * completes a --record file and restores the terminal.
 */
#ifndef SHIMTOP_STOP_SIGNAL_H
#define SHIMTOP_STOP_SIGNAL_H

#include <stdbool.h>

/*
 * Catches SIGINT and SIGTERM from now on.  Installed before ncurses
 * starts, so ncurses leaves them to us.  Blocking calls return EINTR
 * (no SA_RESTART), so a front end waiting for a key wakes at once.
 */
void stop_signal_install(void);

/* The signal that asked to stop (SIGINT or SIGTERM), or 0. */
int stop_signal_received(void);

/*
 * SIGUSR1 asks for a snapshot (caught from stop_signal_install on):
 * whether one came since the last call.
 */
bool stop_signal_snapshot_asked(void);

#endif
