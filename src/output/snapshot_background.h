/*
 * snapshot_background.h - a snapshot written while the session goes on.
 *
 * Written on the UI's thread, a snapshot of a 60 s compile froze the
 * screen for 6.3 s, and one of 3 minutes with CallerChaining for 20 s,
 * the sampler dropping what the rings could not hold meanwhile.  Here a
 * copy of the process (background_copy.h: its memory as it was at the
 * key) writes the file and says how it went; the session keeps sampling
 * and the UI keeps answering.
 * Meanwhile the session holds its records aside (session_hold) and the
 * UI's tables wait: the session's writes into memory the copy shares
 * would each copy a page first.  One at a time.
 */
#ifndef SHIMTOP_SNAPSHOT_BACKGROUND_H
#define SHIMTOP_SNAPSHOT_BACKGROUND_H

#include <stdbool.h>
#include <stddef.h>

struct session;

struct snapshot_result {
	int rc;			/* 0, or -errno where it failed */
	char path[4096];
	char msg[512];		/* as snapshot_save's */
};

/*
 * Begins writing a snapshot of s to path (NULL: a name of the time).
 * 0 and msg "writing snapshot PATH"; -EBUSY and msg naming the one being
 * written; another -errno and msg why (nothing was begun).
 */
int snapshot_begin(struct session *s, const char *path, char *msg, size_t len);
/* Whether one is being written; msg says which and for how long. */
bool snapshot_writing(char *msg, size_t len);
/* Once the one being written has ended: true and how (false before, or with none). */
bool snapshot_ended(struct snapshot_result *r);
/* Waits for the one being written, if any (the session's end); as snapshot_ended. */
bool snapshot_wait(struct snapshot_result *r);

#endif
