/*
 * shimtop.c - entry point: parse the command line, open a session, hand
 * it to the batch report or the UI.
 */
#include "options.h"
#include "output/report.h"
#include "session.h"
#include "stop_signal.h"
#include "ui/ui.h"
#include "util.h"

#include <signal.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct st_options opt;
	struct session s;
	int rc = st_options_parse(&opt, argc, argv);

	if (rc < 0 || opt.printed_only)
		return st_exit_status(rc);
	if (!opt.batch && ui_prepare(&opt) < 0)
		return ST_EXIT_USAGE;
	/* Refuse before launching anything: a UI needs a terminal. */
	if (!opt.batch && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
		st_error("standard %s is not a terminal; use --batch (with "
			 "--duration S) for scripts and pipes",
			 isatty(STDIN_FILENO) ? "output" : "input");
		return ST_EXIT_USAGE;
	}
	/* A launched target that dies must not kill us with SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	target_raise_fd_limit();
	rc = session_open(&s, &opt);
	if (rc < 0)
		return st_exit_status(rc);
	rc = opt.batch ? report_run_batch(&s) : ui_run(&s);
	session_close(&s);
	/* The UI stopped by Ctrl-C: the shell's convention, 128 + SIGINT. */
	if (rc == 0 && !opt.batch && stop_signal_received() == SIGINT)
		return ST_EXIT_SIGINT;
	return st_exit_status(rc);
}
