/*
 * shimtop.c - entry point: parse the command line, open a session, hand
 * it to the batch report or the UI.
 */
#include "front/batch.h"
#include "front/check.h"
#include "session/options.h"
#include "output/ibs_dump.h"
#include "serve/serve.h"
#include "session/session.h"
#include "stop_signal.h"
#include "symbols/symbols.h"
#include "ui/theme.h"
#include "ui/ui.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <stdio.h>
#include <unistd.h>

/*
 * --diff B: B read to its end first, as the side -i A is compared with;
 * A then runs as any replay (batch or UI).
 */
static int open_compared(const struct st_options *opt, struct st_options *bopt,
			 struct session **out)
{
	struct session *b;
	char why[400];
	int rc;

	*bopt = *opt;
	bopt->replay_path = opt->diff_path;
	bopt->diff_path = NULL;
	bopt->ranged = false;
	bopt->realtime = false;
	bopt->batch = true;
	rc = session_open(&b, bopt);
	if (rc < 0)
		return rc;
	stop_signal_install();
	rc = session_read_all(b);
	if (!rc && session_cut_short(b, why, sizeof(why))) {
		st_error("%s (%s): nothing compared", why, opt->diff_path);
		rc = -EINTR;
	}
	if (rc < 0)
		session_close(b);
	else
		*out = b;
	return rc;
}

int main(int argc, char **argv)
{
	struct st_options opt, bopt;
	struct session *s, *b = NULL;
	int rc = st_options_parse(&opt, argc, argv);

	if (rc < 0 || opt.printed_only)
		return st_exit_status(rc);
	if (opt.check) {
		char self[PATH_MAX];
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

		if (n <= 0) {
			st_error("--check cannot find its own binary (/proc/self/exe): %s",
				 strerror(errno));
			return ST_EXIT_FAIL;
		}
		self[n] = '\0';
		return check_run(&opt, self);
	}
	if (opt.ibs_dump_path) {
		rc = ibs_dump_recording(opt.ibs_dump_path, stdout);
		if (!rc && (fflush(stdout) || ferror(stdout))) {
			st_error("cannot write the IBS dump to standard output: %s",
				 strerror(errno ? errno : EIO));
			rc = -EIO;
		}
		return st_exit_status(rc);
	}
	if (!opt.batch && ui_prepare(&opt) < 0)
		return ST_EXIT_USAGE;
	/* A theme does nothing in batch, but a wrong name is still a mistake to say. */
	if (opt.batch && opt.theme) {
		struct theme t;

		if (theme_load(&t, opt.theme) < 0)
			return ST_EXIT_USAGE;
	}
	/* Refuse before launching anything: a UI needs a terminal, /dev/tty at least. */
	if (!opt.batch && !ui_has_terminal()) {
		st_error("standard %s is not a terminal and there is no /dev/tty; use --batch "
			 "(with --duration S) for scripts and pipes",
			 isatty(STDIN_FILENO) ? "output" : "input");
		return ST_EXIT_USAGE;
	}
	/* A launched target that dies must not kill us with SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	target_raise_fd_limit();
	/*
	 * A replay's report comes once and loses nothing by waiting: it waits
	 * for debuginfod's names.  Live sampling does not (its rings would
	 * overflow), nor does the UI.
	 */
	symbols_debuginfod_wait(opt.batch && opt.replay_path);
	if (opt.diff_path) {
		rc = open_compared(&opt, &bopt, &b);
		if (rc < 0)
			return st_exit_status(rc);
	}
	rc = session_open(&s, &opt);
	if (rc < 0) {
		session_close(b);
		return st_exit_status(rc);
	}
	session_set_diff_with(s, b);
	rc = opt.serve_address ? serve_run(s) : opt.batch ? batch_run(s) : ui_run(s);
	session_close(s);
	session_close(b);
	/* The UI stopped by Ctrl-C: the shell's convention, 128 + SIGINT. */
	if (rc == 0 && !opt.batch && stop_signal_received() == SIGINT)
		return ST_EXIT_SIGINT;
	return st_exit_status(rc);
}
