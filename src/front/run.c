/*
 * run.c - the one run loop (see run.h).  Three fronts wrote their own and
 * drifted: the UI ignored --duration.
 */
#include "front/run.h"
#include "session/session.h"
#include "output/snapshot_write.h"
#include "stop_signal.h"
#include "symbols/symbols.h"
#include "util.h"

void run_say_stderr(void *arg, bool warning, const char *msg)
{
	(void)arg;
	if (warning)
		st_warn("%s", msg);
	else
		st_note("%s", msg);
}

int run_session(struct session *s, const struct run_front *f)
{
	char msg[512];
	int status, rc;

	stop_signal_install();
	status = session_start(s);
	if (status < 0)
		return status;
	rc = f->begin ? f->begin(f->arg) : 0;
	while (rc >= 0 && !stop_signal_received()) {
		if (f->pump_now(f->arg))
			session_pump(s);
		while (symbols_debuginfod_notice(msg, sizeof(msg)))
			f->say(f->arg, true, msg);
		if (stop_signal_snapshot_asked()) {
			snapshot_save(s, NULL, msg, sizeof(msg));
			f->say(f->arg, false, msg);
		}
		if (session_options(s)->duration
		    && session_elapsed(s) >= session_options(s)->duration)
			break;
		if (!f->turn(f->arg))
			break;
	}
	if (rc >= 0 && f->end)
		f->end(f->arg);
	status = session_stop(s);
	if (rc < 0)
		return rc;
	/* Not written: said; the front's report still comes, the status says so. */
	rc = snapshot_on_exit(s);
	return status < 0 ? status : rc < 0 ? rc : 0;
}
