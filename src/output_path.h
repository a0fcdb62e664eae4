/*
 * output_path.h - where a file shimtop writes goes, found as a program
 * run by root must find it: every directory on the way is opened with
 * openat(O_NOFOLLOW | O_DIRECTORY) from the last, and the file is then
 * made, renamed and removed in the last one by descriptor, so nothing
 * another user changes after the walk redirects it.
 *
 * On the way, a symbolic link another user owns is refused (only the
 * caller and root are trusted: the rule of fs.protected_symlinks,
 * whatever the sysctl says), as is a directory another user can write
 * unless it is sticky and theirs is only the group or world bit (/tmp):
 * such a user could put a link in the file's place or move the directory
 * (the rules sudoedit follows).  Symbolic links the caller or root owns
 * are followed, but for the last component, which is never written
 * through.  --follow-symlinks trusts the whole path: links anywhere are
 * followed and directories not judged.
 *
 * The caller is the effective user; run as root through sudo, also the
 * user sudo names (SUDO_UID, SUDO_GID), whose own directories are theirs
 * to write in.
 */
#ifndef SHIMTOP_OUTPUT_PATH_H
#define SHIMTOP_OUTPUT_PATH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * The error of a refusal for another user's sake (a link, a directory or
 * a file of theirs on the way); output_path_refusal says which.
 */
#define ST_OUTPUT_UNTRUSTED (-EPERM)

struct output_place {
	int dir;	/* the directory, an O_PATH descriptor */
	char *name;	/* the file's name in it: no link (maybe missing) */
};

/*
 * The place of path.  0, or -errno: -ELOOP when its last component is a
 * symbolic link (without follow), ST_OUTPUT_UNTRUSTED with the reason in
 * output_path_refusal().
 */
int output_place_find(struct output_place *p, const char *path, bool follow);
void output_place_free(struct output_place *p);

/* Whether a file uid owns may be trusted: the caller's or root's. */
bool output_uid_trusted(uid_t uid);

/* The last refusal's reason ("/home/m is a directory user m (uid 1001) can write"). */
const char *output_path_refusal(void);
/* Sets it (a file's own refusal: a FIFO of another user's). */
void output_path_refuse(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "user NAME (uid N)", or "uid N" with no name, into buf. */
const char *output_user_name(uid_t uid, char *buf, size_t len);

#endif
