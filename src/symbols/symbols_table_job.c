/*
 * symbols_table_job.c - a file's symbol table built on a thread, for the
 * UI: libLLVM's takes about 100 ms (95,000 functions), one sample's work
 * that would keep keys waiting.  The UI's pump leaves a sample whose
 * file is being read where it is and comes back to it (symbolizer_ready).
 *
 * The worker reads the file through a descriptor and a libdwfl session
 * of its own (libdwfl's handles are not shared between threads) and the
 * file's owner takes the finished table when it next asks.  One worker,
 * in the order files were asked for: the UI's first sample decides.
 */
#include "symbols/symbols_internal.h"
#include "util.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct table_job {
	struct table_job *next;
	int fd;				/* the worker's own copy */
	char *path;
	const Dwfl_Callbacks *callbacks;
	struct elf_file *read;		/* the worker's reading, once done */
	bool done;
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct table_job *head, *tail;
	bool started;
} jobs = { .lock = PTHREAD_MUTEX_INITIALIZER, .changed = PTHREAD_COND_INITIALIZER };

static void *work(void *arg)
{
	(void)arg;
	for (;;) {
		struct table_job *job;
		struct elf_file *read;

		pthread_mutex_lock(&jobs.lock);
		while (!jobs.head)
			pthread_cond_wait(&jobs.changed, &jobs.lock);
		job = jobs.head;
		jobs.head = job->next;
		if (!jobs.head)
			jobs.tail = NULL;
		pthread_mutex_unlock(&jobs.lock);

		read = elf_file_open(job->fd, job->path, job->callbacks);
		elf_file_symbol(read, 0);	/* builds the table */

		pthread_mutex_lock(&jobs.lock);
		job->read = read;
		job->done = true;
		pthread_cond_broadcast(&jobs.changed);
		pthread_mutex_unlock(&jobs.lock);
	}
	return NULL;
}

void elf_file_build_async(struct elf_file *f, const Dwfl_Callbacks *callbacks)
{
	struct table_job *job;
	int fd;

	if (f->table_built || f->job || !f->mod || f->fd < 0)
		return;
	fd = fcntl(f->fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return;		/* built when asked, as without a worker */
	job = st_xcalloc(1, sizeof(*job));
	job->fd = fd;
	job->path = st_xstrdup(f->path);
	job->callbacks = callbacks;
	pthread_mutex_lock(&jobs.lock);
	if (!jobs.started) {
		jobs.started = st_thread_for_life(work, NULL);
		if (!jobs.started) {
			pthread_mutex_unlock(&jobs.lock);
			close(fd);
			free(job->path);
			free(job);
			return;
		}
	}
	if (jobs.tail)
		jobs.tail->next = job;
	else
		jobs.head = job;
	jobs.tail = job;
	pthread_cond_broadcast(&jobs.changed);
	pthread_mutex_unlock(&jobs.lock);
	f->job = job;
}

/* The worker's table becomes f's, with what its debug file search found. */
static void take_table(struct elf_file *f)
{
	struct table_job *job = f->job;
	struct elf_file *read = job->read;

	symbol_table_clear(&f->table);
	f->table = read->table;
	memset(&read->table, 0, sizeof(read->table));
	f->table_built = true;
	if (!f->debug_named_by)
		f->debug_named_by = read->debug_named_by;
	if (read->debuginfod_pending) {
		f->debuginfod_pending = true;
		memcpy(f->build_id, read->build_id, sizeof(f->build_id));
		f->build_id_len = read->build_id_len;
	}
	elf_file_close(read);
	free(job->path);
	free(job);
	f->job = NULL;
}

bool elf_file_table_ready(struct elf_file *f)
{
	bool done;

	if (!f->job)
		return true;
	pthread_mutex_lock(&jobs.lock);
	done = f->job->done;
	pthread_mutex_unlock(&jobs.lock);
	if (done)
		take_table(f);
	return done;
}

void elf_file_settle(struct elf_file *f)
{
	if (!f->job)
		return;
	pthread_mutex_lock(&jobs.lock);
	while (!f->job->done)
		pthread_cond_wait(&jobs.changed, &jobs.lock);
	pthread_mutex_unlock(&jobs.lock);
	take_table(f);
}
