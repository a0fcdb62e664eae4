/*
 * run.c - the one run loop (see run.h).  Three fronts wrote their own and
 * drifted: the UI ignored --duration.
 */
#include "front/run.h"
#include "session/session.h"
#include "output/snapshot_background.h"
#include "output/snapshot_write.h"
#include "stop_signal.h"
#include "symbols/symbols.h"
#include "util.h"

#include <errno.h>

void run_say_stderr(void *arg, bool warning, const char *msg)
{
	(void)arg;
	if (warning)
		st_warn("%s", msg);
	else
		st_note("%s", msg);
}

/* A snapshot's end: the front's own way (the UI asks for another path), else said. */
static void said_done(const struct run_front *f, const struct snapshot_result *r)
{
	if (f->snapshot_done)
		f->snapshot_done(f->arg, r);
	else
		f->say(f->arg, r->rc < 0, r->msg);
}

int run_session(struct session *s, const struct run_front *f)
{
	struct snapshot_result done;
	bool again = false;	/* a signal came while one was written */
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
		/*
		 * In the background: the session keeps sampling while it is
		 * written.  One at a time: a signal during one is the next.
		 */
		if (snapshot_ended(&done))
			said_done(f, &done);
		if (stop_signal_snapshot_asked() || again) {
			int asked = snapshot_begin(s, NULL, msg, sizeof(msg));

			again = asked == -EBUSY;
			if (asked < 0 && !again)
				f->say(f->arg, true, msg);
		}
		if (session_options(s)->duration
		    && session_elapsed(s) >= session_options(s)->duration)
			break;
		if (!f->turn(f->arg))
			break;
	}
	if (rc >= 0 && f->end)
		f->end(f->arg);
	/* One being written is finished before the end: the screen is gone, stderr says it. */
	for (;;) {
		if (snapshot_wait(&done))
			run_say_stderr(NULL, done.rc < 0, done.msg);
		if (!again)
			break;
		again = false;
		if (snapshot_begin(s, NULL, msg, sizeof(msg)) < 0) {
			run_say_stderr(NULL, true, msg);
			break;
		}
	}
	status = session_stop(s);
	if (rc < 0)
		return rc;
	/* Not written: said; the front's report still comes, the status says so. */
	rc = snapshot_on_exit(s);
	return status < 0 ? status : rc < 0 ? rc : 0;
}
