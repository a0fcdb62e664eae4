/*
 * batch.c - the batch front (see batch.h): run.c's loop, with the -d
 * reports between and the report or export at the end.
 */
#include "front/batch.h"
#include "front/run.h"
#include "model/model.h"
#include "session/options.h"
#include "output/export.h"
#include "output/report.h"
#include "session/session.h"
#include "symbols/symbols.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <time.h>

struct batch {
	struct session *s;
	double next_print;
	bool periodic;
	unsigned printed;
	bool lost;		/* standard output refused a report: said once */
	bool started;		/* the session did: a report of it follows */
};

static int batch_begin(void *arg)
{
	((struct batch *)arg)->started = true;
	return 0;
}

static bool batch_pump_now(void *arg)
{
	(void)arg;
	return true;
}

/* -d's reports; then the pause, unless a replay the model has not caught up with. */
static bool batch_turn(void *arg)
{
	/*
	 * A pass at least this often: the ring's bell ends the wait sooner.
	 * The history's memory and the walker's counts are read once a
	 * second: a pass every 0.2 s woke five times a second for nothing.
	 */
	const double longest = 0.5;
	struct batch *b = arg;
	const struct st_options *o = session_options(b->s);
	double now, wait = longest;

	if (b->periodic && session_elapsed(b->s) >= b->next_print) {
		/* -n N: the Nth report is the final one, after the stop. */
		if (o->iterations && ++b->printed == o->iterations)
			return false;
		if (report_write_stdout(b->s, o->format == ST_FORMAT_TEXT) < 0) {
			b->lost = true;
			return false;
		}
		b->next_print += o->delay;
	}
	if (session_finished(b->s))
		return false;
	if (session_behind(b->s))
		return true;
	/* Not past the next report or --duration's end. */
	now = session_elapsed(b->s);
	if (b->periodic && b->next_print - now < wait)
		wait = b->next_print - now;
	if (o->duration && o->duration - now < wait)
		wait = o->duration - now;
	session_wait(b->s, wait > 0 ? (uint64_t)(wait * 1e9) : 0);
	return true;
}

/* --range after the run: its samples, or why there are none. */
static int select_range(struct session *s)
{
	const struct st_options *o = session_options(s);
	const struct history *h = &session_whole(s)->history;
	double kept;
	char to[32] = "";

	if (!o->ranged || session_select_range(s, o->range_from, o->range_to) >= 0)
		return 0;
	kept = h->complete_from > session_whole(s)->first_time
		? (double)(h->complete_from - session_whole(s)->first_time) / 1e9 : 0;
	if (o->range_to < 1e9)
		snprintf(to, sizeof(to), "%g", o->range_to);
	if (h->dropped && o->range_to <= kept)
		st_error("--range %g:%s is older than the history keeps: it reaches back "
			 "to %.1f s (raise --memory or --history to keep more)",
			 o->range_from, to, kept);
	else
		st_error("--range %g:%s holds no samples: the recording's span from "
			 "its first sample is 0-%.3f s", o->range_from, to, session_span(s));
	return -ENODATA;
}

/*
 * Broken chains said where a script reads: the text report has its
 * chains: line; JSON, folded stacks and exports hear the warning on
 * stderr (not the line's news of chains unwound: nothing is wrong).
 */
static void say_chains(struct session *s)
{
	const struct st_options *o = session_options(s);
	char line[512];

	if ((o->format != ST_FORMAT_TEXT || o->export_format) && !session_whole(s)->callerchain_mode &&
	    model_chains_broken(session_whole(s), line, sizeof(line)))
		st_warn("chains: %s", line);
}

int batch_run(struct session *s)
{
	const struct st_options *o = session_options(s);
	struct batch b = { s, o->delay, o->delay_set || o->iterations, 0, false, false };
	const struct run_front front = { batch_begin, batch_pump_now, batch_turn, run_say_stderr, NULL,
					 &b, NULL };
	char cut[400];
	int status = run_session(s, &front), rc;

	if (!b.started)
		return status;
	while (symbols_debuginfod_notice(cut, sizeof(cut)))
		st_warn("%s", cut);
	rc = select_range(s);
	if (rc < 0)
		return rc;
	if (session_cut_short(s, cut, sizeof(cut))) {
		/* A part is no export: the file keeps what it held, the caller hears why. */
		if (o->export_format) {
			st_error("%s: nothing exported%s%s%s", cut, o->export_path ? " (" : "",
				 o->export_path ? o->export_path : "",
				 o->export_path ? " left as it was)" : "");
			return -EINTR;
		}
		/* No report at all (standard output refused it, said once): nothing to qualify. */
		if (b.lost || report_write_stdout(s, false) < 0)
			return -EIO;
		st_error("%s: the report covers that part only", cut);
		return -EINTR;
	}
	if (o->export_format)
		rc = export_session(s, o->export_format, o->export_path);
	else
		rc = b.lost ? -EIO : report_write_stdout(s, false);
	if (rc < 0)
		return rc;
	say_chains(s);
	if (session_target_output_on_stderr(s))
		st_note("the command's output went to standard error: standard output is the "
			"report's (--target-output FILE, or - to share it)");
	if (session_info(s)->failed) {
		st_error("%s; the table covers the records before it",
			 session_info(s)->finish_reason);
		return -EIO;
	}
	if (session_observer_info(s)->failed) {
		st_error("%s; the observer's figures cover the samples before it",
			 session_observer_info(s)->finish_reason);
		return -EIO;
	}
	if (session_has_target(s) && session_info(s)->finished)
		st_warn("%s; the table covers the time until then", session_status(s));
	return status;
}
