/*
 * background_copy.h - work done by a copy of the process while the
 * session goes on.
 *
 * A snapshot or a profile of a long session takes seconds to write; on
 * the session's own thread the rings fill meanwhile and the UI freezes.
 * A copy (fork: the memory as it was, shared until either side writes)
 * does the work and answers its status and one line through a pipe.
 * With hold, the session holds its records aside while the copy lives
 * (session_hold): each of its writes into memory the copy shares would
 * copy a page first.
 */
#ifndef SHIMTOP_BACKGROUND_COPY_H
#define SHIMTOP_BACKGROUND_COPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct session;

/* What the copy does: a status (0 or -errno) and a line in msg. */
typedef int (*background_work)(struct session *s, void *arg, char *msg, size_t len);

struct background_copy {
	pid_t pid;		/* 0: none */
	int fd;			/* the copy's answer: its status, then its line */
	bool hold;
	bool answered;		/* at its end: whether it said how it went */
	struct session *s;
	uint64_t began;
	size_t got;
	char answer[sizeof(int) + 512];
};

/* Starts a copy of the process running work(s, arg); 0, or -errno (nothing started). */
int background_copy_begin(struct background_copy *c, struct session *s, bool hold,
			  background_work work, void *arg);
/*
 * Once the copy has ended (wait: waits for it): true, *rc and msg as
 * work gave them, or (not answered) -EIO and msg how it ended, "ended
 * by SIGKILL"; false while it works, or with none.
 */
bool background_copy_end(struct background_copy *c, bool wait, int *rc, char *msg, size_t len);

#endif
