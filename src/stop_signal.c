/* stop_signal.c - SIGINT and SIGTERM as a request to stop. */
#include "stop_signal.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t received;

static void on_stop(int sig)
{
	received = sig;
}

void stop_signal_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int stop_signal_received(void)
{
	return received;
}
