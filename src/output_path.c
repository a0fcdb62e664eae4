/* output_path.c - walking to where a file is written, trusting only the caller and root. */
#include "output_path.h"
#include "text_safe.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LINK_HOPS 40	/* as the kernel's ELOOP */
/* What a refusal on the way says to do. */
#define ON_THE_WAY "; they could put a link in the file's place (write it elsewhere, " \
	"or --follow-symlinks to trust the path)"

static _Thread_local char refusal[512];

const char *output_path_refusal(void)
{
	return refusal;
}

void output_path_refuse(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(refusal, sizeof(refusal), fmt, ap);
	va_end(ap);
	st_text_safe(refusal);	/* the names on the way are other users' */
}

/* An id sudo left for root (SUDO_UID, SUDO_GID), or -1. */
static long sudo_id(const char *name)
{
	const char *v = geteuid() == 0 && getuid() == 0 ? secure_getenv(name) : NULL;
	char *end;
	long id;

	if (!v || !*v)
		return -1;
	errno = 0;
	id = strtol(v, &end, 10);
	return errno || *end || id < 0 ? -1 : id;
}

bool output_uid_trusted(uid_t uid)
{
	long sudo = sudo_id("SUDO_UID");

	return uid == 0 || uid == geteuid() || (sudo >= 0 && uid == (uid_t)sudo);
}

static bool gid_trusted(gid_t gid)
{
	long sudo = sudo_id("SUDO_GID");

	return gid == 0 || gid == getegid() || (sudo >= 0 && gid == (gid_t)sudo);
}

const char *output_user_name(uid_t uid, char *buf, size_t len)
{
	struct passwd pw, *found = NULL;
	char tmp[1024];

	if (getpwuid_r(uid, &pw, tmp, sizeof(tmp), &found) == 0 && found)
		snprintf(buf, len, "user %s (uid %u)", found->pw_name, (unsigned)uid);
	else
		snprintf(buf, len, "uid %u", (unsigned)uid);
	return buf;
}

static const char *group_name(gid_t gid, char *buf, size_t len)
{
	struct group gr, *found = NULL;
	char tmp[4096];

	if (getgrgid_r(gid, &gr, tmp, sizeof(tmp), &found) == 0 && found)
		snprintf(buf, len, "group %s (gid %u)", found->gr_name, (unsigned)gid);
	else
		snprintf(buf, len, "gid %u", (unsigned)gid);
	return buf;
}

/* Whether another user could change what dir (named path) holds; the refusal says who. */
static bool dir_untrusted(int dir, const char *path)
{
	struct stat st;
	char who[128];

	if (fstat(dir, &st) < 0) {
		output_path_refuse("%s cannot be examined: %s", path, strerror(errno));
		return true;
	}
	if (!output_uid_trusted(st.st_uid)) {
		output_path_refuse("%s is a directory %s owns" ON_THE_WAY, path,
				   output_user_name(st.st_uid, who, sizeof(who)));
		return true;
	}
	if (st.st_mode & S_ISVTX)
		return false;	/* others may add names, never move ours */
	if (st.st_mode & S_IWOTH) {
		output_path_refuse("%s is a directory anyone can write, not sticky as /tmp is"
				   ON_THE_WAY, path);
		return true;
	}
	if ((st.st_mode & S_IWGRP) && !gid_trusted(st.st_gid)) {
		output_path_refuse("%s is a directory %s can write" ON_THE_WAY, path,
				   group_name(st.st_gid, who, sizeof(who)));
		return true;
	}
	return false;
}

/* at joined with name, for messages: "/a" "b" is "/a/b", "." "b" is "b". */
static char *joined(const char *at, const char *name)
{
	size_t n = strlen(at);
	char *s;

	if (!strcmp(at, "."))
		return st_xstrdup(name);
	s = st_xmalloc(n + strlen(name) + 2);
	sprintf(s, "%s%s%s", at, n && at[n - 1] == '/' ? "" : "/", name);
	return s;
}

/* The walk's state: the directory reached, its name, and the path left to walk. */
struct walk {
	int dir;
	char *at;
	char *rest;
	bool follow;
};

/* Starts (again) at / for an absolute path, at the working directory else. */
static int walk_start(struct walk *w, bool absolute)
{
	char cwd[PATH_MAX];

	if (w->dir >= 0)
		close(w->dir);
	free(w->at);
	/* Named by its path where it has one, for the messages. */
	w->at = st_xstrdup(absolute ? "/" : getcwd(cwd, sizeof(cwd)) ? cwd : ".");
	w->dir = open(absolute ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (w->dir < 0)
		return -errno;
	return !w->follow && dir_untrusted(w->dir, w->at) ? ST_OUTPUT_UNTRUSTED : 0;
}

/* The link name in w->dir: the walk goes on through its target, then after (what followed it). */
static int walk_link(struct walk *w, const char *name, const char *after)
{
	char to[PATH_MAX], *rest;
	ssize_t n = readlinkat(w->dir, name, to, sizeof(to) - 1);

	if (n < 0)
		return -errno;
	if (n == 0)
		return -ENOENT;
	to[n] = '\0';
	rest = st_xmalloc((size_t)n + (after ? strlen(after) : 0) + 2);
	sprintf(rest, "%s%s%s", to, after ? "/" : "", after ? after : "");
	free(w->rest);
	w->rest = rest;
	return to[0] == '/' ? walk_start(w, true) : 0;
}

/* Into the directory name of w->dir, judged. */
static int walk_into(struct walk *w, const char *name)
{
	int dir = openat(w->dir, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	char *at;

	if (dir < 0)
		return -errno;	/* ELOOP: a link since its lstat */
	at = joined(w->at, name);
	free(w->at);
	w->at = at;
	close(w->dir);
	w->dir = dir;
	return !w->follow && dir_untrusted(dir, at) ? ST_OUTPUT_UNTRUSTED : 0;
}

int output_place_find(struct output_place *p, const char *path, bool follow)
{
	struct walk w = { .dir = -1, .follow = follow };
	char who[128];
	int hops = 0, rc;

	memset(p, 0, sizeof(*p));
	p->dir = -1;
	refusal[0] = '\0';
	if (!path[0])
		return -ENOENT;
	w.rest = st_xstrdup(path);
	rc = walk_start(&w, path[0] == '/');
	for (char *at = w.rest; !rc;) {
		char *name, *next;
		struct stat st;
		bool last;

		while (*at == '/')
			at++;
		name = at;
		next = strchr(name, '/');
		if (next)
			*next++ = '\0';
		last = !next || !next[strspn(next, "/")];
		/* The last is a file's name: "dir/", "." and ".." name directories. */
		if (last && (next || !name[0] || !strcmp(name, ".") || !strcmp(name, ".."))) {
			rc = -EISDIR;
			break;
		}
		if (!last && (!name[0] || !strcmp(name, "."))) {
			at = next;
			continue;
		}
		if (fstatat(w.dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			rc = -errno;
			if (rc == -ENOENT && last) {	/* to be made */
				rc = 0;
				st.st_mode = 0;
			}
			if (rc)
				break;
		}
		if (S_ISLNK(st.st_mode)) {
			if (last && !follow) {
				rc = -ELOOP;
			} else if (!follow && !output_uid_trusted(st.st_uid)) {
				char *link = joined(w.at, name);

				output_path_refuse("%s is a symbolic link %s owns" ON_THE_WAY, link,
						   output_user_name(st.st_uid, who, sizeof(who)));
				free(link);
				rc = ST_OUTPUT_UNTRUSTED;
			} else if (++hops > LINK_HOPS) {
				rc = -ELOOP;
			} else {
				rc = walk_link(&w, name, last ? NULL : next);
				at = w.rest;
			}
			continue;
		}
		if (last) {
			p->dir = w.dir;
			p->name = st_xstrdup(name);
			w.dir = -1;
			break;
		}
		rc = walk_into(&w, name);
		at = next;
	}
	if (w.dir >= 0)
		close(w.dir);
	free(w.at);
	free(w.rest);
	return rc;
}

void output_place_free(struct output_place *p)
{
	if (p->dir >= 0)
		close(p->dir);
	free(p->name);
	p->dir = -1;
	p->name = NULL;
}
