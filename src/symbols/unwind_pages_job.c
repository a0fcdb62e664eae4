/*
 * unwind_pages_job.c - files' pages compiled on a thread of their own:
 * libLLVM's million rows take libdw about 400 ms, which the model's
 * thread cannot spend between samples.  One worker, files in the order
 * they were asked for, each read through its own descriptor and rows
 * (libdw's handles are not shared between threads), or their copy in
 * the cache by build-id, and given on the worker too: giving libLLVM's
 * to the kernel faults in 4 MB, which the model's thread cannot spend
 * in a session's first second either.
 */
#include "symbols/unwind_pages_job.h"
#include "symbols/unwind_pages.h"
#include "util.h"

#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <libelf.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct pages_job {
	struct pages_job *next;
	int fd;
	uint32_t file;
	void *owner;
	bool compile;		/* the cache had none: made after every copy is given */
	struct unwind_pages *ready;	/* made by the caller (pages_jobs_give), its own */
};

struct pages_jobs {
	pthread_mutex_t lock;
	pthread_cond_t changed;
	pthread_t worker;
	bool started;
	atomic_bool quit;	/* also ends a compile under way */
	struct pages_job *todo, *todo_tail;
	pages_give_fn give;
	pages_settle_fn settle;
	void *arg;
};

/* The file's build-id in id (its length; 0: none). */
static size_t build_id_of(int fd, unsigned char *id, size_t max)
{
	Elf *elf = elf_version(EV_CURRENT) != EV_NONE ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	const void *bits;
	ssize_t n = elf ? dwelf_elf_gnu_build_id(elf, &bits) : -1;
	size_t len = n > 0 && (size_t)n <= max ? (size_t)n : 0;

	if (len)
		memcpy(id, bits, len);
	if (elf)
		elf_end(elf);
	return len;
}

/*
 * The worker's niceness for what it does next.  A copy read from the
 * cache and given to the kernel is a few milliseconds of CPU that spare
 * every later sample of the file its copy: at nice 10 beside a busy
 * compile it waited 100 ms for them, and a thousand samples more went
 * out with copies.  A compile (libLLVM's, half a second) goes behind the
 * sampler and the model, whose first second it would otherwise take.
 * Coming back from 10 needs the right to; without it the worker stays
 * behind.
 */
static void worker_nice(int nice)
{
	st_thread_nice(0, nice);
}

struct unwind_pages *unwind_pages_cached(int fd)
{
	unsigned char id[64];
	size_t id_len = build_id_of(fd, id, sizeof(id));

	return id_len ? unwind_pages_cache_load(id, id_len) : NULL;
}

/* fd's pages compiled (and the cache's copy made); NULL if stopped. */
static struct unwind_pages *pages_compiled(int fd, const atomic_bool *stop)
{
	unsigned char id[64];
	size_t id_len = build_id_of(fd, id, sizeof(id));
	struct unwind_pages *p;
	struct unwind_rows *r;

	worker_nice(10);
	r = unwind_rows_open(fd);
	/* Its rows made whole for the pages are not the session's: never saved. */
	unwind_rows_unsaved(r);
	p = unwind_pages_make(r, stop);
	unwind_rows_free(r);
	if (p && id_len)
		unwind_pages_cache_save(p, id, id_len);
	return p;
}

/* job at the end of the list (the lock held). */
static void queue_locked(struct pages_jobs *j, struct pages_job *job)
{
	job->next = NULL;
	if (j->todo_tail)
		j->todo_tail->next = job;
	else
		j->todo = job;
	j->todo_tail = job;
	pthread_cond_signal(&j->changed);
}

static void queue(struct pages_jobs *j, struct pages_job *job)
{
	pthread_mutex_lock(&j->lock);
	queue_locked(j, job);
	pthread_mutex_unlock(&j->lock);
}

/* Whether what was given must be in use now: nothing queued but compiles. */
static bool settling(struct pages_jobs *j)
{
	bool idle;

	pthread_mutex_lock(&j->lock);
	idle = !j->todo || j->todo->compile;
	pthread_mutex_unlock(&j->lock);
	return idle;
}

static void *work(void *arg)
{
	struct pages_jobs *j = arg;

	for (;;) {
		struct pages_job *job;
		struct unwind_pages *pages;

		pthread_mutex_lock(&j->lock);
		while (!j->todo && !j->quit)
			pthread_cond_wait(&j->changed, &j->lock);
		if (j->quit) {
			pthread_mutex_unlock(&j->lock);
			return NULL;
		}
		job = j->todo;
		j->todo = job->next;
		if (!j->todo)
			j->todo_tail = NULL;
		pthread_mutex_unlock(&j->lock);

		/*
		 * A copy from the cache at once; a file without one waits
		 * behind the rest: a cold libc's compile would hold libLLVM's
		 * copy, asked for after it, for half a second.
		 */
		if (job->ready) {
			worker_nice(0);
			pages = job->ready;
		} else if (!job->compile) {
			worker_nice(0);
			pages = unwind_pages_cached(job->fd);
			if (!pages) {
				job->compile = true;
				queue(j, job);
				continue;
			}
		} else {
			pages = pages_compiled(job->fd, &j->quit);
		}
		if (pages && !j->give(j->arg, job->owner, job->file, pages) && !job->ready)
			unwind_pages_free(pages);
		if (job->fd >= 0)
			close(job->fd);
		free(job);
		if (j->settle && settling(j))
			j->settle(j->arg);
	}
}

struct pages_jobs *pages_jobs_create(pages_give_fn give, pages_settle_fn settle, void *arg)
{
	struct pages_jobs *j = st_xcalloc(1, sizeof(*j));

	j->give = give;
	j->settle = settle;
	j->arg = arg;
	pthread_mutex_init(&j->lock, NULL);
	pthread_cond_init(&j->changed, NULL);
	return j;
}

/* job queued, the worker started if it was not; false (job freed) if it cannot be. */
static bool start_job(struct pages_jobs *j, struct pages_job *job)
{
	pthread_mutex_lock(&j->lock);
	if (!j->started)
		j->started = pthread_create(&j->worker, NULL, work, j) == 0;
	if (!j->started) {
		pthread_mutex_unlock(&j->lock);
		if (job->fd >= 0)
			close(job->fd);
		free(job);
		return false;
	}
	queue_locked(j, job);
	pthread_mutex_unlock(&j->lock);
	return true;
}

void pages_jobs_add(struct pages_jobs *j, int fd, uint32_t file, void *owner)
{
	struct pages_job *job;
	int own = fd >= 0 ? fcntl(fd, F_DUPFD_CLOEXEC, 0) : -1;

	if (own < 0)
		return;
	job = st_xcalloc(1, sizeof(*job));
	job->fd = own;
	job->file = file;
	job->owner = owner;
	start_job(j, job);
}

bool pages_jobs_give(struct pages_jobs *j, struct unwind_pages *p, uint32_t file, void *owner)
{
	struct pages_job *job = st_xcalloc(1, sizeof(*job));

	job->fd = -1;
	job->file = file;
	job->owner = owner;
	job->ready = p;
	return start_job(j, job);
}

static void free_list(struct pages_job *job)
{
	while (job) {
		struct pages_job *next = job->next;

		if (job->fd >= 0)
			close(job->fd);
		free(job);
		job = next;
	}
}

void pages_jobs_destroy(struct pages_jobs *j)
{
	if (!j)
		return;
	pthread_mutex_lock(&j->lock);
	j->quit = true;
	pthread_cond_signal(&j->changed);
	pthread_mutex_unlock(&j->lock);
	/* A compile under way stops at its next row (libLLVM's took 4 s under ASan). */
	if (j->started)
		pthread_join(j->worker, NULL);
	free_list(j->todo);
	pthread_mutex_destroy(&j->lock);
	pthread_cond_destroy(&j->changed);
	free(j);
}
