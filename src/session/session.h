/*
 * session.h - one profiling session: target, source, ring, symbols,
 * model and the optional recorder, wired together.  The batch report and
 * the UI both drive a session the same way: pump, then read the model.
 */
#ifndef SHIMTOP_SESSION_H
#define SHIMTOP_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "model/model.h"
#include "session/snapshot.h"
#include "session/options.h"
#include "sampler/source.h"
#include "sampler/target.h"

struct ring;
struct record_writer;
struct symbolizer;

struct stack_needs;
struct kernel_walk;

/*
 * The session is the session layer's own (session_state.h): the fronts
 * read it through the functions below and session_tables, so each reads
 * the same thing the same way (a selected range honoured or not, on
 * purpose).
 */
struct session;

/*
 * Sets everything up (attach or launch, open events, open files) without
 * starting to sample.  Returns 0, or -errno after a one-line error
 * (-EINVAL: the options ask for something impossible); nothing is left
 * running on failure.
 */
int session_open(struct session **out, const struct st_options *o);

/* Starts the source (and lets a launched target exec).  0 or -errno. */
int session_start(struct session *s);

/*
 * Moves what the ring holds into the model, for up to 50 ms.  Returns
 * records taken; s->behind says it stopped with records waiting (a
 * replay faster than the model): pump again before sleeping.
 */
size_t session_pump(struct session *s);

/*
 * While on (a snapshot's copy of the process writes): the rings are
 * drained as ever but their records held aside, taken into the model
 * once it is off, the held first (record_queue.h says why).  Off when
 * the session stops, or when the held records fill their room (an
 * eighth of --memory, else 256 MB).
 */
void session_hold(struct session *s, bool on);
bool session_holding(const struct session *s);
/*
 * The UI's pumps (on): at most UI_PUMP_NS each, and a sample whose
 * file's symbol table is not built yet waits in the ring while a worker
 * builds it (s->waiting), so no one record keeps keys waiting.  Off (the
 * default, and from session_stop on): each pump takes what it finds.
 */
#define UI_PUMP_NS	(15u * 1000 * 1000)
void session_set_interactive(struct session *s, bool on);

/*
 * Starts a session and takes everything until its source ends (a
 * replay read to its end), then stops it.  0 or -errno.
 */
int session_read_all(struct session *s);

/* Records the ring had to drop because the model fell behind. */
uint64_t session_dropped(const struct session *s);

/* Observer batches its ring dropped. */
uint64_t session_observer_dropped(const struct session *s);

/*
 * The figures every output shows, defined once: the UI header, the text
 * report and the JSON report all read them from here.
 */
struct session_metrics {
	double elapsed;			/* seconds of sampling */
	uint64_t samples;
	double rate;			/* samples/s over the last second */
	uint64_t lost;			/* samples the kernel dropped */
	uint64_t dropped;		/* records shimtop's ring dropped */
	size_t threads_live;		/* not exited */
	size_t threads_seen;		/* since the start */
	uint64_t unknown;		/* samples no symbol explains */
	double unknown_pct;
	bool observing;			/* observer samples arrived */
	double observer_rate;		/* observer samples/s */
	double dte_accepted_pct;	/* of the samples DTE judged */
};

void session_metrics(const struct session *s, struct session_metrics *out);

/* ---- What a front reads of the session besides its tables ---- */
const struct st_options *session_options(const struct session *s);
/* The sampling source's state (refreshed by session_pump), and the observer's. */
const struct st_source_info *session_info(const struct session *s);
const struct st_source_info *session_observer_info(const struct session *s);
bool session_has_observer(const struct session *s);
bool session_has_source(const struct session *s);	/* false: the observer alone */
/* The selected time range (session_select_range), seconds from the first sample. */
bool session_ranged(const struct session *s);
double session_range_from(const struct session *s);
double session_range_to(const struct session *s);
bool session_range_complete(const struct session *s);	/* the history held all of it */
/* Whether sampling finished, and why (for the UI and stderr). */
bool session_finished(const struct session *s);
const char *session_status(const struct session *s);
/* The last pump left records waiting; ... at a sample whose symbols are being read. */
bool session_behind(const struct session *s);
/*
 * Between passes: until an eighth of the sample ring waits, max_ns pass
 * or a signal comes (a replay, or with the observer: 10 ms at most).
 */
void session_wait(struct session *s, uint64_t max_ns);
/* The same, ended too when fd (a terminal's keys) has something to read. */
void session_wait_for(struct session *s, uint64_t max_ns, int fd);
bool session_waiting(const struct session *s);
/* What -i opened: a snapshot (its label, meta and records), perf record's file. */
bool session_is_snapshot(const struct session *s);
const struct snapshot_opened *session_snapshot(const struct session *s);
bool session_is_perf_data(const struct session *s);
/* The target: attached or launched (not a replay), its pid and command. */
bool session_has_target(const struct session *s);
pid_t session_pid(const struct session *s);
const char *session_comm(const struct session *s);
/* Where a launched command's output goes (--target-output), or NULL: the terminal. */
const char *session_target_output(const struct session *s);
/*
 * Whether a batch session sent it to standard error, standard output being
 * the report's: said after the report, where a bad option's error stays
 * one line.
 */
bool session_target_output_on_stderr(const struct session *s);
/* How much of it the file made for it under the UI holds; false for any other. */
struct output_kept;
bool session_target_output_kept(const struct session *s, struct output_kept *out);
struct symbolizer *session_symbols(const struct session *s);
/* The rows' sort and split (-s, or per process for a system-wide replay). */
const struct st_sort *session_sort(const struct session *s);
/* --diff: the recording compared with (NULL: none), set once by main. */
const struct session *session_diff_with(const struct session *s);
void session_set_diff_with(struct session *s, const struct session *with);

/*
 * How the fronts read the model, never through s->model: the tables
 * shown (the selected range's, else the session's), and the whole
 * session's, for what a range does not hold (the observer, IBS pages,
 * the history and the timeline's span, how chains were walked).
 */
const struct model *session_tables(const struct session *s);
const struct model *session_whole(const struct session *s);
/* Forgets the totals (perf top's z); symbols and threads stay known. */
void session_zero(struct session *s);
/* Names JIT code from the maps written since the last look (before a snapshot). */
void session_name_jit(struct session *s);
/*
 * Feeds CallerChaining's rebuilt tree from now on where the session did
 * not (frame-pointer chains were whole): true when it starts now.
 */
bool session_want_chaining(struct session *s);
/*
 * The call trees' totals summed from the samples taken since the last
 * time (cct_settle): before a view or report reads them.
 */
void session_settle(struct session *s);

/*
 * Selects the samples taken from `from` to `to` seconds after the first
 * one: the tables show them alone until session_clear_range.  Returns 0,
 * or -ENODATA when the range holds no sample (nothing is selected then).
 */
int session_select_range(struct session *s, double from, double to);
void session_clear_range(struct session *s);
/* The selected range as record times [*from, *to) (ns); the whole of time without one. */
void session_range_ns(const struct session *s, uint64_t *from, uint64_t *to);
/* ... what the tables count of the history: the range, or since x or z zeroed them. */
void session_counted_ns(const struct session *s, uint64_t *from, uint64_t *to);

/*
 * The UI's [ and ]: halves (step -1) or doubles (step 1) the sampling
 * source's period (for a frequency: doubles or halves it), or with step 0
 * toggles its randomization.  Writes what happened, or why not, to msg.
 * Returns 0 or -errno.
 */
int session_change_period(struct session *s, int step, char *msg, size_t len);
/*
 * Frame-pointer chains to --call-graph auto while sampling (the UI's U):
 * samples carry a stack copy from now on, unwound by DWARF where their
 * chain stops early.  Writes what happened, or why not, to msg; 0 or
 * -errno.
 */
#define SESSION_AUTO_STACK	8192u	/* --call-graph auto's default copy */
int session_unwind_broken_chains(struct session *s, char *msg, size_t len);
/* The UI's W: off-CPU samples (--off-cpu) from now on.  0, or -errno with msg saying why not. */
int session_sample_waits(struct session *s, char *msg, size_t len);
/*
 * The observer's period halved (step < 0) or doubled, through its
 * throttle; the message says what it is now.  -ENOTSUP without one.
 */
int session_change_observer_period(struct session *s, int step, char *msg, size_t len);

/* The seconds from the first sample to the latest. */
double session_span(const struct session *s);

/*
 * The header's period: as asked, with the rate it allows a busy thread;
 * "NOT APPLIED" with the period samples still carry when, a second after
 * a change, they disagree with it.
 */
void session_period_text(const struct session *s, char *buf, size_t len);
/* ... its value alone ("250000 ns +/-3%", "4000 Hz"), for a narrow header. */
void session_period_brief(const struct session *s, char *buf, size_t len);

/*
 * Whether the history gave up samples to its byte bound or --memory, and
 * then a line saying so (the report's, the UI header's).
 */
bool session_history_note(const struct session *s, char *buf, size_t len);
/* Whether functions were named by their module alone (--memory's room for names), and a line. */
bool session_names_note(const struct session *s, char *buf, size_t len);

/* Changes the observer's period (TSC cycles, 0: no pause) while running. */
void session_set_observer_period(struct session *s, uint64_t cycles);

/*
 * With events sampled each on its own (-e a,b): the tables' shares
 * (SELF%, the thread and process tables) become event e's; the others
 * keep a column each.
 */
void session_show_event(struct session *s, int e);

/* "pid 1234 (make)", "system-wide", "user alice: 5 processes", ... */
void session_target_name(const struct session *s, char *buf, size_t len);

/* Seconds of sampling so far (or until it finished). */
double session_elapsed(const struct session *s);
/* What the header calls elapsed: a live session's time, a recording's span of samples. */
double session_shown_elapsed(const struct session *s);

/*
 * Stops sampling, takes the last records, ends a launched target, closes
 * the record file; the model stays readable.  Returns -EIO if the
 * record file lost data.
 */
int session_stop(struct session *s);

/*
 * After session_stop: whether a recording (-i) was stopped (a signal)
 * before its end, so the tables hold only its first part; why in buf
 * ("stopped by SIGTERM at 5.0 s of the recording, before its end").
 */
bool session_cut_short(const struct session *s, char *buf, size_t len);

/* Stops if still running and frees everything, s too (NULL: nothing). */
void session_close(struct session *s);

#endif
