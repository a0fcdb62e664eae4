/*
 * symbols_recorded.c - the files a recording names, found as perf report
 * finds them: a perf.data lists the build-id of each file its samples
 * hit, so the file at that path here is used only when it is that build;
 * else perf's build-id cache ($PERF_BUILDID_DIR, ~/.debug), where perf
 * record copies each file it saw; with --symfs DIR, the path under DIR
 * in place of this machine's.  A file found nowhere leaves its functions
 * [unknown] in its module, and one line says which build-id was missing.
 *
 * Every path opened here comes from the recording (hostile): each is
 * opened by st_open_untrusted (a regular file, never blocking) and read
 * only after its build-id is checked.
 */
#include "symbols/symbols_internal.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uthash.h>

struct recorded_id {
	UT_hash_handle hh;
	unsigned char id[20];
	int len;
	bool warned;
	char path[];
};

void recorded_files_expect(struct recorded_files *r, const char *path,
			   const unsigned char *id, size_t len)
{
	struct recorded_id *e;

	/* The kernel and the vDSO are named otherwise; relative paths are nobody's file. */
	if (path[0] != '/' || !len || len > sizeof(e->id) || r->nids >= RECORDED_IDS_MAX)
		return;
	HASH_FIND_STR(r->ids, path, e);
	if (e)
		return;		/* the first entry stands: one build a path */
	e = st_xcalloc(1, sizeof(*e) + strlen(path) + 1);
	memcpy(e->id, id, len);
	e->len = (int)len;
	strcpy(e->path, path);
	HASH_ADD_STR(r->ids, path, e);
	r->nids++;
}

void recorded_files_set_symfs(struct recorded_files *r, const char *dir)
{
	free(r->symfs);
	r->symfs = dir && dir[0] ? st_xstrdup(dir) : NULL;
}

bool recorded_files_active(const struct recorded_files *r)
{
	return r->ids || r->symfs;
}

/* perf's build-id cache: $PERF_BUILDID_DIR, else ~/.debug. */
static void cache_dir(char *out, size_t room)
{
	const char *env = getenv("PERF_BUILDID_DIR"), *home = getenv("HOME");

	if (env && env[0])
		snprintf(out, room, "%s", env);
	else if (home && home[0] == '/')
		snprintf(out, room, "%s/.debug", home);
	else
		out[0] = '\0';
}

static void hex_of(const unsigned char *id, int len, char *out)
{
	for (int i = 0; i < len; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * len] = '\0';
}

/* fd if the file at path is a regular file of the wanted build (or any, without one); else -1. */
static int open_checked(const char *path, const struct recorded_id *e)
{
	int fd = st_open_untrusted(-1, path, 0);

	if (fd < 0)
		return -1;
	if (e && !elf_fd_has_build_id(fd, e->id, e->len)) {
		close(fd);
		return -1;
	}
	return fd;
}

int recorded_file_open(struct recorded_files *r, const char *path)
{
	struct recorded_id *e;
	char at[4096], dir[2048], hex[41];
	bool here;
	int fd = -1;

	HASH_FIND_STR(r->ids, path, e);
	if (r->symfs) {
		snprintf(at, sizeof(at), "%s/%s", r->symfs, path[0] == '/' ? path + 1 : path);
		if ((fd = open_checked(at, e)) >= 0)
			return fd;
	}
	/* This machine's file: under --symfs only when its build-id proves it the same. */
	if (!r->symfs || e) {
		if ((fd = open_checked(path, e)) >= 0 || !e)
			return fd;
	}
	if (!e)
		return -1;
	/* Another build at the path, or none: perf record's copy, by its build-id. */
	hex_of(e->id, e->len, hex);
	cache_dir(dir, sizeof(dir));
	if (dir[0]) {
		/* perf 4.x and later: .build-id/ab/cdef.../elf; before: the link itself. */
		snprintf(at, sizeof(at), "%s/.build-id/%.2s/%s/elf", dir, hex, hex + 2);
		if ((fd = open_checked(at, e)) >= 0)
			return fd;
		snprintf(at, sizeof(at), "%s/.build-id/%.2s/%s", dir, hex, hex + 2);
		if ((fd = open_checked(at, e)) >= 0)
			return fd;
	}
	if (!e->warned) {
		e->warned = true;
		here = access(path, F_OK) == 0;
		st_warn("%s with build-id %s is %s%s, nor in %s/.build-id: its functions are "
			"[unknown]; give --symfs DIR holding a copy", path, hex,
			here ? "another build here" : "not here", r->symfs ? " or under --symfs" : "",
			dir[0] ? dir : "~/.debug");
	}
	return -1;
}

void recorded_files_free(struct recorded_files *r)
{
	struct recorded_id *e, *tmp;

	HASH_ITER(hh, r->ids, e, tmp) {
		HASH_DEL(r->ids, e);
		free(e);
	}
	free(r->symfs);
	memset(r, 0, sizeof(*r));
}
