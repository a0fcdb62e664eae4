/*
 * signal_segment.h - shimtop's side of <shimtop/signals.h>: finding a
 * process's signal segment from its PID, and refusing one that is
 * missing, owned by another user, writable by others, or of another
 * version.  The observer reads the mapped slots directly.
 */
#ifndef SHIMTOP_SIGNAL_SEGMENT_H
#define SHIMTOP_SIGNAL_SEGMENT_H

#include <stddef.h>
#include <sys/types.h>

#include <shimtop/signals.h>

#include <signal.h>
#include <stdbool.h>

/*
 * The target owns the mapping and may rewrite it at any time, so what
 * was validated at attach is used from the private copy in `header`:
 * the counter count above all, never read from the mapping again.  Only
 * the slots' values (tid, tag, depth, counters) and the names are read
 * afterwards, the names through a copy that is checked again.
 */
struct signal_segment {
	const struct shimtop_signals *sig;	/* read-only mapping */
	pid_t pid;
	struct shimtop_signals_header header;	/* validated copy */
	volatile sig_atomic_t truncated;	/* the target shrank it (SIGBUS) */
	char name[64];				/* "/shimtop-PID", for messages */
};

/*
 * Maps the segment of pid.  Returns 0, or -errno with a one-line
 * message (naming the problem and what to do) in err: -ENOENT when the
 * process publishes none (yet), -EPERM when it is refused, -EPROTO when
 * its layout is not this version's.
 */
int signal_segment_attach(struct signal_segment *seg, pid_t pid, char *err,
			  size_t errlen);
void signal_segment_detach(struct signal_segment *seg);

/*
 * Checks a copy of a segment's header: magic, version, sizes, counter
 * count; terminates its strings and clamps what the program may change
 * later (tag kind).  name is the segment's name for the message.
 * Returns 0, or -1 with a one-line message in err.
 */
int signal_header_check(struct shimtop_signals_header *h, const char *name,
			char *err, size_t errlen);

/*
 * Copies the names (tag, counters, tag values) and the tag kind again,
 * which a program may set after it created the segment.  The counter
 * count stays as validated.  True when something changed.
 */
bool signal_segment_refresh(struct signal_segment *seg);

#endif
