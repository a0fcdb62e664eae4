/*
 * snapshot_write.h - writing a session's snapshot (the format is in
 * snapshot.h; s in the UI, SIGUSR1, --snapshot-on-exit).
 */
#ifndef SHIMTOP_SNAPSHOT_WRITE_H
#define SHIMTOP_SNAPSHOT_WRITE_H

#include <stddef.h>
#include <stdint.h>

struct session;

/*
 * Writes what the session holds to path, through a temporary file and a
 * rename.  Returns 0 and the file's size in *bytes, or -errno (nothing
 * printed: the UI says it in its status line, batch on stderr).
 */
int snapshot_write(struct session *s, const char *path, uint64_t *bytes);

/*
 * snapshot_write to path (NULL: snapshot_default_name), with one line
 * for the status line or stderr in msg: where it went and its size, or
 * why not.  Returns 0 or -errno.
 */
int snapshot_save(struct session *s, const char *path, char *msg, size_t len);

/*
 * --snapshot-on-exit: the snapshot saved and said on stderr (an error if
 * it could not be).  0, or -errno; nothing to do without the option.
 */
int snapshot_on_exit(struct session *s);

/*
 * shimtop-YYYYmmdd-HHMMSS.snap, local time, for s and SIGUSR1; a name
 * taken already (two in one second) gets -2, -3 ... before .snap.
 */
void snapshot_default_name(char *buf, size_t len);

#endif
