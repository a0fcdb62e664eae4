/*
 * stop_signal.c - SIGINT, SIGTERM and SIGHUP as a request to stop; SIGUSR1
 * for a snapshot.  SIGHUP is a closed terminal or ssh session: what was
 * collected is still reported and saved, as for SIGTERM.
 */
#include "stop_signal.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t received, snapshot_asked;

static void on_stop(int sig)
{
	received = sig;
}

static void on_snapshot(int sig)
{
	(void)sig;
	snapshot_asked = 1;
}

void stop_signal_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_snapshot;
	sigaction(SIGUSR1, &sa, NULL);
}

int stop_signal_received(void)
{
	return received;
}

bool stop_signal_snapshot_asked(void)
{
	bool asked = snapshot_asked;

	snapshot_asked = 0;
	return asked;
}
