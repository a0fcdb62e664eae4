/* snapshot_background.c - a snapshot written by a copy of the process (see snapshot_background.h). */
#include "output/snapshot_background.h"
#include "output/background_copy.h"
#include "output/snapshot_write.h"
#include "session/session.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static struct {
	struct background_copy copy;
	char path[4096];
} job;

static int save_in_copy(struct session *s, void *arg, char *msg, size_t len)
{
	return snapshot_save(s, arg, msg, len);
}

int snapshot_begin(struct session *s, const char *path, char *msg, size_t len)
{
	char name[64];
	int rc;

	if (job.copy.pid) {
		snprintf(msg, len, "snapshot %s is being written (%.0f s): one at a time",
			 job.path, (double)(st_now_ns() - job.copy.began) / 1e9);
		return -EBUSY;
	}
	if (!path) {
		snapshot_default_name(name, sizeof(name));
		path = name;
	}
	snprintf(job.path, sizeof(job.path), "%s", path);
	rc = background_copy_begin(&job.copy, s, true, save_in_copy, job.path);
	if (rc < 0)
		snprintf(msg, len, "cannot write snapshot %s: %s", path, strerror(-rc));
	else
		snprintf(msg, len, "writing snapshot %s", path);
	return rc;
}

bool snapshot_writing(char *msg, size_t len)
{
	if (!job.copy.pid)
		return false;
	snprintf(msg, len, "writing snapshot %s (%.0f s)%s", job.path,
		 (double)(st_now_ns() - job.copy.began) / 1e9,
		 session_holding(job.copy.s) ? "; tables as at the key until it is written" : "");
	return true;
}

static bool collect(bool wait, struct snapshot_result *r)
{
	char why[64];

	if (!background_copy_end(&job.copy, wait, &r->rc, r->msg, sizeof(r->msg)))
		return false;
	snprintf(r->path, sizeof(r->path), "%s", job.path);
	if (!job.copy.answered) {
		snprintf(why, sizeof(why), "%.40s", r->msg);
		snprintf(r->msg, sizeof(r->msg), "cannot write snapshot %.300s: its writer %.40s",
			 job.path, why);
	}
	return true;
}

bool snapshot_ended(struct snapshot_result *r)
{
	return collect(false, r);
}

bool snapshot_wait(struct snapshot_result *r)
{
	return collect(true, r);
}
