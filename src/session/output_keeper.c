/* output_keeper.c - a command's output, its last megabytes (see output_keeper.h). */
#include "session/output_keeper.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#define CHUNK		(64u << 10)
#define LINE_LOOK	4096u	/* a cut starts at the first line within this */

struct output_keeper {
	pthread_t thread;
	int file, pipe_r, pipe_w, stop_fd;
	size_t keep;
	uint64_t size;		/* the file's, the thread's own */
	pthread_mutex_t lock;
	struct output_kept kept;
	char buf[CHUNK];
};

/* The file's last keep bytes, from a line's start, moved to its start. */
static uint64_t cut(struct output_keeper *k)
{
	uint64_t from = k->size - k->keep, to = 0;
	ssize_t n = pread(k->file, k->buf, LINE_LOOK, (off_t)from);
	const char *nl = n > 0 ? memchr(k->buf, '\n', (size_t)n) : NULL;

	if (nl)
		from += (uint64_t)(nl - k->buf) + 1;
	/* From beyond keep bytes in to the start: the copy never reads what it wrote. */
	while (from < k->size) {
		size_t want = k->size - from < CHUNK ? (size_t)(k->size - from) : CHUNK;

		n = pread(k->file, k->buf, want, (off_t)from);
		if (n <= 0 || pwrite(k->file, k->buf, (size_t)n, (off_t)to) != n)
			break;
		from += (uint64_t)n;
		to += (uint64_t)n;
	}
	if (ftruncate(k->file, (off_t)to) < 0)
		return k->size;	/* kept whole: better than lost */
	return to;
}

/* What the pipe gave, into the file; false at its end or an error. */
static bool copy_some(struct output_keeper *k)
{
	ssize_t n = read(k->pipe_r, k->buf, sizeof(k->buf));
	bool was_cut = false;

	if (n <= 0)
		return n < 0 && errno == EINTR;
	/* A full disk loses the output, never the session: counted as written. */
	if (pwrite(k->file, k->buf, (size_t)n, (off_t)k->size) == n)
		k->size += (uint64_t)n;
	if (k->size >= 2 * (uint64_t)k->keep) {
		k->size = cut(k);
		was_cut = true;
	}
	pthread_mutex_lock(&k->lock);
	k->kept.written += (uint64_t)n;
	k->kept.cut |= was_cut;
	k->kept.kept = k->size;
	pthread_mutex_unlock(&k->lock);
	return true;
}

static void *keep_main(void *arg)
{
	struct output_keeper *k = arg;
	struct pollfd p[2] = { { k->pipe_r, POLLIN, 0 }, { k->stop_fd, POLLIN, 0 } };

	for (;;) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents)
			break;
		if (p[0].revents && !copy_some(k))
			return NULL;
	}
	/* Stopped: what is already in the pipe (a pipe's worth), then no more. */
	if (fcntl(k->pipe_r, F_SETFL, O_NONBLOCK) == 0)
		for (int i = 0; i < 64 && copy_some(k); i++)
			;
	return NULL;
}

struct output_keeper *output_keeper_start(int file, size_t keep)
{
	struct output_keeper *k = st_xcalloc(1, sizeof(*k));
	int fds[2] = { -1, -1 }, e;

	k->file = file;
	k->keep = keep < LINE_LOOK * 2 ? LINE_LOOK * 2 : keep;
	k->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (k->stop_fd < 0 || pipe2(fds, O_CLOEXEC) < 0)
		goto fail;
	k->pipe_r = fds[0];
	k->pipe_w = fds[1];
	pthread_mutex_init(&k->lock, NULL);
	e = pthread_create(&k->thread, NULL, keep_main, k);
	if (e) {
		errno = e;
		pthread_mutex_destroy(&k->lock);
		goto fail;
	}
	return k;
fail:
	e = errno;
	st_error("cannot keep the command's output: %s", strerror(e));
	if (k->stop_fd >= 0)
		close(k->stop_fd);
	if (fds[0] >= 0) {
		close(fds[0]);
		close(fds[1]);
	}
	free(k);
	errno = e;
	return NULL;
}

int output_keeper_fd(const struct output_keeper *k)
{
	return k->pipe_w;
}

void output_keeper_launched(struct output_keeper *k)
{
	if (k->pipe_w >= 0)
		close(k->pipe_w);
	k->pipe_w = -1;
}

void output_keeper_read(struct output_keeper *k, struct output_kept *out)
{
	pthread_mutex_lock(&k->lock);
	*out = k->kept;
	pthread_mutex_unlock(&k->lock);
}

void output_keeper_stop(struct output_keeper *k)
{
	const uint64_t one = 1;

	if (!k)
		return;
	output_keeper_launched(k);
	if (write(k->stop_fd, &one, sizeof(one)) != sizeof(one)) {
		/* An eventfd takes 2^64 - 2: never full. */
	}
	pthread_join(k->thread, NULL);
	pthread_mutex_destroy(&k->lock);
	close(k->pipe_r);
	close(k->stop_fd);
	close(k->file);
	free(k);
}
