/* background_copy.c - work done by a copy of the process (see background_copy.h). */
#include "output/background_copy.h"
#include "session/session.h"
#include "symbols/symbols.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* A copy stuck past this (a lock some thread held at the fork) ends. */
#define COPY_SECONDS	600

/* Copies alive that hold the session's records: it holds while any does. */
static unsigned holding;

/*
 * The copy lets go of the sockets it was born with: a connection the
 * server closes meanwhile would stay open in it, its client waiting for
 * an end, and a listening socket would outlive a server that stopped.
 */
static void close_sockets(int keep)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	struct stat st;

	if (!d)
		return;
	while ((e = readdir(d))) {
		int fd = atoi(e->d_name);

		if (fd > STDERR_FILENO && fd != keep && fd != dirfd(d) && !fstat(fd, &st) &&
		    S_ISSOCK(st.st_mode))
			close(fd);
	}
	closedir(d);
}

/* In the copy: the work, the answer, the end; never the terminal, never atexit. */
static void work_in_copy(struct session *s, background_work work, void *arg, int answer)
{
	char msg[512] = "";
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC), rc;

	/* Its warnings would be drawn over the UI's screen. */
	if (null >= 0)
		(void)dup2(null, STDERR_FILENO);
	close_sockets(answer);
	/* ^C is the session's to end: the work begun is finished. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGUSR1, SIG_IGN);
	signal(SIGALRM, SIG_DFL);
	alarm(COPY_SECONDS);
	rc = work(s, arg, msg, sizeof(msg));
	if (write(answer, &rc, sizeof(rc)) == sizeof(rc) &&
	    write(answer, msg, strlen(msg)) < 0)
		_exit(1);
	_exit(0);
}

int background_copy_begin(struct background_copy *c, struct session *s, bool hold,
			  background_work work, void *arg)
{
	int fds[2], e;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	/* The copy has none of the other threads: what they build is taken first. */
	symbolizer_settle(session_symbols(s));
	pid = fork();
	if (pid < 0) {
		e = errno;
		close(fds[0]);
		close(fds[1]);
		return -e;
	}
	if (pid == 0) {
		close(fds[0]);
		work_in_copy(s, work, arg, fds[1]);
	}
	close(fds[1]);
	(void)fcntl(fds[0], F_SETFL, O_NONBLOCK);
	memset(c, 0, sizeof(*c));
	c->pid = pid;
	c->fd = fds[0];
	c->s = s;
	c->hold = hold;
	c->began = st_now_ns();
	if (hold && holding++ == 0)
		session_hold(s, true);
	return 0;
}

bool background_copy_end(struct background_copy *c, bool wait, int *rc, char *msg, size_t len)
{
	int status = 0;

	if (!c->pid)
		return false;
	for (;;) {
		ssize_t n = read(c->fd, c->answer + c->got, sizeof(c->answer) - 1 - c->got);

		if (n > 0) {
			c->got += (size_t)n;
			continue;
		}
		if (n == 0 || (errno != EINTR && errno != EAGAIN))
			break;
		if (errno == EAGAIN) {
			if (!wait)
				return false;
			(void)poll(&(struct pollfd){ c->fd, POLLIN, 0 }, 1, -1);
		}
	}
	while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR)
		;
	close(c->fd);
	c->answered = c->got >= sizeof(int);
	if (c->answered) {
		size_t n = c->got - sizeof(int);

		memcpy(rc, c->answer, sizeof(int));
		n = n < len ? n : len - 1;
		memcpy(msg, c->answer + sizeof(int), n);
		msg[n] = '\0';
	} else {
		*rc = -EIO;
		snprintf(msg, len, "ended %s%s",
			 WIFSIGNALED(status) ? "by SIG" : "without a word",
			 WIFSIGNALED(status) && sigabbrev_np(WTERMSIG(status))
			 ? sigabbrev_np(WTERMSIG(status)) : "");
	}
	if (c->hold && --holding == 0)
		session_hold(c->s, false);
	c->pid = 0;
	return true;
}
