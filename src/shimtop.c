/*
 * shimtop.c - entry point: parse the command line, open a session, hand
 * it to the batch report or the UI.
 */
#include "options.h"
#include "output/report.h"
#include "session.h"
#include "ui/ui.h"
#include "util.h"

#include <signal.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct st_options opt;
	struct session s;
	int status = st_options_parse(&opt, argc, argv);

	if (status >= 0)
		return status;
	if (!opt.batch && ui_prepare(opt.theme) < 0)
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
	status = session_open(&s, &opt);
	if (status >= 0)
		return status;
	status = opt.batch ? report_run_batch(&s) : ui_run(&s);
	session_close(&s);
	return status;
}
