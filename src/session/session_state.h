/*
 * session_state.h - what a session holds, for the session layer (and
 * unit tests) alone; the fronts read it through session.h.
 */
#ifndef SHIMTOP_SESSION_STATE_H
#define SHIMTOP_SESSION_STATE_H

#include "session/session.h"
#include "ring/record_queue.h"

struct session {
	const struct st_options *opt;
	struct st_sort sort;	/* -s, or rows per process for a system-wide replay */
	struct st_target target;
	bool has_target;	/* false for replay */
	pid_t pid;
	char comm[64];
	char target_output[4096];	/* where a launched command writes; "": the terminal */
	struct output_keeper *keeper;	/* target_output's last megabytes (the UI's file) */
	bool target_output_made;	/* a file of ours in $TMPDIR: gone at the end if empty */
	bool target_output_stderr;	/* batch: the command's output sent to standard error */

	struct ring *ring;
	struct record_queue held;	/* session_hold's records, not yet taken */
	bool holding;			/* session_hold(s, true) */
	int bell;			/* live: an eventfd the ring writes once it fills (session_wait) */
	uint64_t pumped_at;		/* when session_pump last ran */
	double pump_rate;		/* records a second it found since the one before */
	uint64_t copied_then;		/* the source's stack_copied at that pump */
	double copy_rate;		/* bytes of stack copies a second since the one before */
	struct st_source *source;
	struct symbolizer *symbols;
	struct model model;
	struct record_writer *recorder;
	struct stack_needs *stack_needs;	/* live: what stack copies are cut to */
	struct kernel_walk *kernel_walk;	/* live, copies: stacks walked in the kernel */
	char kernel_walk_why[192];		/* why not, where it was wanted */
	uint64_t kernel_walk_read_at;		/* when its counts were last read */
	uint64_t swept_at;			/* when the symbolizer last let go of files */

	/* A time range selected (--range, the timeline): its own tables. */
	struct model range;
	bool ranged;
	double range_from, range_to;	/* seconds from the first sample */
	bool range_complete;		/* the history held all of it */

	struct st_source_info info;	/* refreshed by session_pump */

	/* The SHIM observer (--observe): its own source and ring. */
	struct ring *obs_ring;
	struct st_source *observer;
	struct st_source_info obs_info;

	uint64_t start_ns;
	uint64_t end_ns;		/* when it finished, 0 while running */
	uint64_t abandoned;		/* records left in the ring at the stop deadline */
	uint64_t obs_abandoned;		/* the same, of the observer's ring */
	bool finished;
	bool behind;			/* the last pump left records waiting */
	bool waits_asked;		/* W: off-CPU samples' event not yet counted */
	bool waiting;			/* ... at a sample whose symbols are being read */
	bool interactive;		/* session_set_interactive */
	bool front_reading;		/* session_pump has run: a replay's clock started */
	char status[320];		/* why it finished, for the UI and stderr */

	const struct session *diff_with;	/* --diff: the recording compared with */

	bool is_snapshot;		/* -i opened a snapshot, not a recording */
	double file_elapsed;		/* a snapshot's session's seconds, as it said, or 0 */
	bool is_perf_data;		/* -i opened perf record's file or stream */
	struct snapshot_opened snap;	/* its label, meta and records */
};

#endif
