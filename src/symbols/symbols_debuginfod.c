/*
 * symbols_debuginfod.c - separate debug files fetched by build ID from
 * the servers DEBUGINFOD_URLS names, through libdebuginfod (its cache
 * and its timeouts: DEBUGINFOD_CACHE_PATH, DEBUGINFOD_TIMEOUT).
 *
 * One thread fetches, in the order files asked, so live sampling never
 * waits on the network: a file whose fetch is under way keeps the names
 * it has (.dynsym, .eh_frame) and gets the debug file's once it is here
 * (debuginfod_finished moves on).  A batch replay waits instead.
 */
#include "symbols/symbols.h"
#include "symbols/symbols_internal.h"
#include "text_safe.h"
#include "util.h"

#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum fetch_state { FETCH_QUEUED, FETCH_RUNNING, FETCH_DONE, FETCH_FAILED };

struct fetch {
	unsigned char id[DEBUGINFOD_ID_MAX];
	int len;
	char module[64];	/* for the status line */
	enum fetch_state state;
	char *path;		/* the debug file in libdebuginfod's cache */
	int error;		/* FETCH_FAILED: errno */
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct fetch *v;
	size_t n, cap;
	size_t next;			/* the first not yet taken */
	bool started, checked, enabled, wait;
	long got, total;		/* the running fetch's bytes */
	unsigned fetched, failed;
	atomic_uint finished;
} fetches = { .lock = PTHREAD_MUTEX_INITIALIZER, .changed = PTHREAD_COND_INITIALIZER };

bool debuginfod_enabled(void)
{
	bool on;

	pthread_mutex_lock(&fetches.lock);
	if (!fetches.checked) {
		const char *urls = getenv(DEBUGINFOD_URLS_ENV_VAR);

		fetches.checked = true;
		fetches.enabled = urls && urls[strspn(urls, " \t")];
	}
	on = fetches.enabled;
	pthread_mutex_unlock(&fetches.lock);
	return on;
}

void symbols_debuginfod_wait(bool wait)
{
	pthread_mutex_lock(&fetches.lock);
	fetches.wait = wait;
	pthread_mutex_unlock(&fetches.lock);
}

static int progress(debuginfod_client *c, long got, long total)
{
	(void)c;
	pthread_mutex_lock(&fetches.lock);
	fetches.got = got;
	fetches.total = total;
	pthread_mutex_unlock(&fetches.lock);
	return 0;
}

/*
 * libdebuginfod, loaded when a fetch is first asked for: linked, it
 * brings libcurl and some 28 libraries with it, whose loading every
 * session paid (shimtop --version: 12-16 ms of CPU linked, 6 ms not).
 */
static struct {
	debuginfod_client *(*begin)(void);
	void (*set_progressfn)(debuginfod_client *, debuginfod_progressfn_t);
	int (*find_debuginfo)(debuginfod_client *, const unsigned char *, int, char **);
} lib;

static debuginfod_client *client_begin(void)
{
	void *h = dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_LOCAL);

	if (!h)
		return NULL;
	*(void **)&lib.begin = dlsym(h, "debuginfod_begin");
	*(void **)&lib.set_progressfn = dlsym(h, "debuginfod_set_progressfn");
	*(void **)&lib.find_debuginfo = dlsym(h, "debuginfod_find_debuginfo");
	if (!lib.begin || !lib.set_progressfn || !lib.find_debuginfo)
		return NULL;
	return lib.begin();
}

/* The fetching thread: one request at a time, for the process's life. */
static void *fetcher(void *arg)
{
	debuginfod_client *client = client_begin();

	(void)arg;
	if (client)
		lib.set_progressfn(client, progress);
	pthread_mutex_lock(&fetches.lock);
	for (;;) {
		struct fetch *f;
		unsigned char id[DEBUGINFOD_ID_MAX];
		size_t at;
		int len, fd = -ENOSYS;
		char *path = NULL;

		while (fetches.next == fetches.n)
			pthread_cond_wait(&fetches.changed, &fetches.lock);
		at = fetches.next++;
		f = &fetches.v[at];
		f->state = FETCH_RUNNING;
		fetches.got = fetches.total = 0;
		memcpy(id, f->id, sizeof(id));
		len = f->len;
		pthread_mutex_unlock(&fetches.lock);
		if (client)
			fd = lib.find_debuginfo(client, id, len, &path);
		if (fd >= 0)
			close(fd);	/* opened again, checked, by whoever asks */
		pthread_mutex_lock(&fetches.lock);
		f = &fetches.v[at];	/* v may have moved meanwhile */
		if (fd >= 0 && path) {
			f->state = FETCH_DONE;
			f->path = path;
			fetches.fetched++;
		} else {
			free(path);
			f->state = FETCH_FAILED;
			f->error = fd < 0 ? -fd : ENOENT;
			fetches.failed++;
		}
		atomic_fetch_add(&fetches.finished, 1);
		pthread_cond_broadcast(&fetches.changed);
	}
	return NULL;
}

static struct fetch *fetch_find(const unsigned char *id, int len)
{
	for (size_t i = 0; i < fetches.n; i++)
		if (fetches.v[i].len == len && !memcmp(fetches.v[i].id, id, (size_t)len))
			return &fetches.v[i];
	return NULL;
}

int debuginfod_debug_file(const unsigned char *id, int len, const char *module,
			  bool *pending, char **path)
{
	struct fetch *f;
	int fd = -1;

	*pending = false;
	if (len < 2 || len > DEBUGINFOD_ID_MAX || !debuginfod_enabled())
		return -1;
	pthread_mutex_lock(&fetches.lock);
	f = fetch_find(id, len);
	if (!f) {
		if (!fetches.started) {
			pthread_t t;
			pthread_attr_t attr;

			pthread_attr_init(&attr);
			pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
			fetches.started = pthread_create(&t, &attr, fetcher, NULL) == 0;
			pthread_attr_destroy(&attr);
			if (!fetches.started) {
				pthread_mutex_unlock(&fetches.lock);
				return -1;
			}
		}
		ST_GROW(fetches.v, fetches.cap, fetches.n + 1);
		f = &fetches.v[fetches.n++];
		*f = (struct fetch){ .len = len, .state = FETCH_QUEUED };
		memcpy(f->id, id, (size_t)len);
		snprintf(f->module, sizeof(f->module), "%s", module ? module : "?");
		st_text_safe(f->module);
		pthread_cond_broadcast(&fetches.changed);
	}
	while (fetches.wait && (f->state == FETCH_QUEUED || f->state == FETCH_RUNNING)) {
		pthread_cond_wait(&fetches.changed, &fetches.lock);
		f = fetch_find(id, len);
	}
	if (f->state == FETCH_DONE) {
		/* The cache is a directory of files like any other: checked on open. */
		fd = st_open_untrusted(-1, f->path, 0);
		if (fd >= 0)
			*path = st_xstrdup(f->path);
	} else if (f->state != FETCH_FAILED) {
		*pending = true;
	}
	pthread_mutex_unlock(&fetches.lock);
	return fd;
}

bool debuginfod_pending(const unsigned char *id, int len)
{
	struct fetch *f;
	bool pending;

	pthread_mutex_lock(&fetches.lock);
	f = fetch_find(id, len);
	pending = f && (f->state == FETCH_QUEUED || f->state == FETCH_RUNNING);
	pthread_mutex_unlock(&fetches.lock);
	return pending;
}

unsigned debuginfod_finished(void)
{
	return atomic_load_explicit(&fetches.finished, memory_order_relaxed);
}

void symbols_debuginfod_status(char *buf, size_t len)
{
	size_t queued = 0;
	const struct fetch *running = NULL;

	buf[0] = '\0';
	pthread_mutex_lock(&fetches.lock);
	for (size_t i = 0; i < fetches.n; i++) {
		if (fetches.v[i].state == FETCH_QUEUED)
			queued++;
		else if (fetches.v[i].state == FETCH_RUNNING)
			running = &fetches.v[i];
	}
	if (running && fetches.total > 0)
		snprintf(buf, len, "debuginfod: fetching %s's debug file, %ld of %ld kB%s",
			 running->module, fetches.got >> 10, fetches.total >> 10,
			 queued ? ", more queued" : "");
	else if (running)
		snprintf(buf, len, "debuginfod: fetching %s's debug file%s",
			 running->module, queued ? ", more queued" : "");
	else if (queued)
		snprintf(buf, len, "debuginfod: %zu debug file%s queued", queued,
			 queued == 1 ? "" : "s");
	pthread_mutex_unlock(&fetches.lock);
}
