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

struct signal_segment {
	const struct shimtop_signals *sig;	/* read-only mapping */
	pid_t pid;
};

/*
 * Maps the segment of pid.  Returns 0, or -1 with a one-line message
 * (naming the problem and what to do) in err.
 */
int signal_segment_attach(struct signal_segment *seg, pid_t pid, char *err,
			  size_t errlen);
void signal_segment_detach(struct signal_segment *seg);

#endif
