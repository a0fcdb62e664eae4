/* snapshot_background.c - a snapshot written by a copy of the process (see snapshot_background.h). */
#include "output/snapshot_background.h"
#include "output/snapshot_write.h"
#include "session/session.h"
#include "symbols/symbols.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* A writer stuck past this (a lock some thread held at the fork) ends. */
#define WRITER_SECONDS	600

static struct {
	pid_t pid;		/* 0: none being written */
	struct session *s;	/* held while it is (session_hold) */
	int fd;			/* the writer's answer: its status, then its message */
	uint64_t began;
	size_t got;
	char answer[sizeof(int) + 512];
	char path[4096];
} job;

/* In the copy: the file, the answer, the end; never the terminal, never atexit. */
static void write_in_copy(struct session *s, const char *path, int answer)
{
	char msg[512];
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC), rc;

	/* Its warnings would be drawn over the UI's screen. */
	if (null >= 0)
		(void)dup2(null, STDERR_FILENO);
	/* ^C is the session's to end: the snapshot begun is finished. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGUSR1, SIG_IGN);
	signal(SIGALRM, SIG_DFL);
	alarm(WRITER_SECONDS);
	rc = snapshot_save(s, path, msg, sizeof(msg));
	if (write(answer, &rc, sizeof(rc)) == sizeof(rc) &&
	    write(answer, msg, strlen(msg)) < 0)
		_exit(1);
	_exit(0);
}

int snapshot_begin(struct session *s, const char *path, char *msg, size_t len)
{
	char name[64];
	int fds[2], e;
	pid_t pid;

	if (job.pid) {
		snprintf(msg, len, "snapshot %s is being written (%.0f s): one at a time",
			 job.path, (double)(st_now_ns() - job.began) / 1e9);
		return -EBUSY;
	}
	if (!path) {
		snapshot_default_name(name, sizeof(name));
		path = name;
	}
	if (pipe2(fds, O_CLOEXEC) < 0)
		goto fail;
	/* The copy has none of the other threads: what they build is taken first. */
	symbolizer_settle(session_symbols(s));
	pid = fork();
	if (pid < 0) {
		e = errno;
		close(fds[0]);
		close(fds[1]);
		errno = e;
		goto fail;
	}
	if (pid == 0) {
		close(fds[0]);
		write_in_copy(s, path, fds[1]);
	}
	close(fds[1]);
	(void)fcntl(fds[0], F_SETFL, O_NONBLOCK);
	/* The session's writes into memory the copy shares wait for it. */
	session_hold(s, true);
	job.s = s;
	job.pid = pid;
	job.fd = fds[0];
	job.began = st_now_ns();
	job.got = 0;
	snprintf(job.path, sizeof(job.path), "%s", path);
	snprintf(msg, len, "writing snapshot %s", path);
	return 0;
fail:
	e = errno;
	snprintf(msg, len, "cannot write snapshot %s: %s", path, strerror(e));
	return -e;
}

bool snapshot_writing(char *msg, size_t len)
{
	if (!job.pid)
		return false;
	snprintf(msg, len, "writing snapshot %s (%.0f s)%s", job.path,
		 (double)(st_now_ns() - job.began) / 1e9,
		 job.s && session_holding(job.s) ? "; tables as at the key until it is written" : "");
	return true;
}

/* The writer's answer read; at its end (or, waiting, once it comes) the job's result. */
static bool collect(bool wait, struct snapshot_result *r)
{
	int status = 0;

	if (!job.pid)
		return false;
	for (;;) {
		ssize_t n = read(job.fd, job.answer + job.got, sizeof(job.answer) - 1 - job.got);

		if (n > 0) {
			job.got += (size_t)n;
			continue;
		}
		if (n == 0 || (errno != EINTR && errno != EAGAIN))
			break;
		if (errno == EAGAIN) {
			if (!wait)
				return false;
			(void)poll(&(struct pollfd){ job.fd, POLLIN, 0 }, 1, -1);
		}
	}
	while (waitpid(job.pid, &status, 0) < 0 && errno == EINTR)
		;
	close(job.fd);
	snprintf(r->path, sizeof(r->path), "%s", job.path);
	if (job.got > sizeof(int)) {
		size_t n = job.got - sizeof(int);

		memcpy(&r->rc, job.answer, sizeof(int));
		n = n < sizeof(r->msg) ? n : sizeof(r->msg) - 1;
		memcpy(r->msg, job.answer + sizeof(int), n);
		r->msg[n] = '\0';
	} else {
		r->rc = -EIO;
		snprintf(r->msg, sizeof(r->msg), "cannot write snapshot %.300s: its writer ended %s%s",
			 job.path, WIFSIGNALED(status) ? "by SIG" : "without a word",
			 WIFSIGNALED(status) && sigabbrev_np(WTERMSIG(status))
			 ? sigabbrev_np(WTERMSIG(status)) : "");
	}
	session_hold(job.s, false);
	job.pid = 0;
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
