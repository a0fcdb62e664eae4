/*
 * symbols_debuginfod.c - separate debug files fetched by build ID from
 * the servers DEBUGINFOD_URLS names, through libdebuginfod (its cache
 * and its timeouts: DEBUGINFOD_CACHE_PATH, DEBUGINFOD_TIMEOUT).
 *
 * One thread fetches, in the order files asked, so live sampling never
 * waits on the network: a file whose fetch is under way keeps the names
 * it has (.dynsym, .eh_frame) and gets the debug file's once it is here
 * (debuginfod_finished moves on).  A batch replay waits instead.
 *
 * A server is another machine's word: a download stops past
 * DEBUGINFOD_MAXSIZE bytes (default 2 GiB) or DEBUGINFOD_MAXTIME seconds
 * (default 600), and when shimtop exits (libdebuginfod then removes its
 * temporary file); a file that is not the build's debug file is removed
 * from the cache, so a right server is asked next time, and said once.
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
#include <sys/stat.h>
#include <unistd.h>

enum fetch_state { FETCH_QUEUED, FETCH_RUNNING, FETCH_DONE, FETCH_FAILED };

#define MAXSIZE_DEFAULT	(2ll << 30)
#define MAXTIME_DEFAULT	600

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
	uint64_t began;			/* ... since (st_now_ns) */
	long long maxsize;		/* bytes a download may bring */
	uint64_t maxtime;		/* ns it may take */
	bool stopping;			/* shimtop exits: the download stops */
	const char *cut;		/* why progress() stopped the running fetch, or NULL */
	unsigned fetched, failed;
	atomic_uint finished;
	/* Files servers sent that are not the build's: said once each. */
	char notice[8][320];
	unsigned notices, noticed;
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

/* A download's news; non-zero stops it (too big, too long, shimtop exiting). */
static int progress(debuginfod_client *c, long got, long total)
{
	int stop;

	(void)c;
	pthread_mutex_lock(&fetches.lock);
	fetches.got = got;
	fetches.total = total;
	stop = fetches.stopping || got > fetches.maxsize || total > fetches.maxsize ||
	       st_now_ns() - fetches.began > fetches.maxtime;
	/* libdebuginfod answers a stopped download as "not found": the reason is kept here. */
	if (stop && !fetches.cut)
		fetches.cut = fetches.stopping ? "shimtop ended"
			      : got > fetches.maxsize || total > fetches.maxsize
			      ? "past DEBUGINFOD_MAXSIZE" : "past DEBUGINFOD_MAXTIME";
	pthread_mutex_unlock(&fetches.lock);
	return stop;
}

/* A limit from the environment (a positive number), else its default. */
static long long env_limit(const char *name, long long def)
{
	const char *v = getenv(name);
	char *end;
	long long n;

	if (!v || !*v)
		return def;
	errno = 0;
	n = strtoll(v, &end, 10);
	return errno || *end || n <= 0 ? def : n;
}

/* At exit: the download under way stops (its temporary file goes), within a second. */
static void stop_fetching(void)
{
	struct timespec limit;

	clock_gettime(CLOCK_REALTIME, &limit);
	limit.tv_sec += 2;
	pthread_mutex_lock(&fetches.lock);
	fetches.stopping = true;
	for (;;) {
		bool running = false;

		for (size_t i = 0; i < fetches.n; i++)
			running |= fetches.v[i].state == FETCH_RUNNING;
		if (!running || pthread_cond_timedwait(&fetches.changed, &fetches.lock, &limit))
			break;
	}
	pthread_mutex_unlock(&fetches.lock);
}

/*
 * A download that failed (past DEBUGINFOD_MAXSIZE or _MAXTIME, a server
 * that never answered, or shimtop ending) is no answer: libdebuginfod
 * remembers it as a miss (an empty file where the debug file would be)
 * for cache_miss_s, and the next session would not ask, naming the
 * code by address for ten minutes.  Only a server's "not found" is a
 * miss.  The cache's place is documented (debuginfod_find_debuginfo(3));
 * the name within, not: a future one is left alone (the miss then stays
 * remembered).
 */
static void forget_miss(const unsigned char *id, int len)
{
	const char *dir = getenv("DEBUGINFOD_CACHE_PATH"), *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	char path[4096], legacy[4096];
	struct stat st;
	int at;

	if (dir && *dir)
		at = snprintf(path, sizeof(path), "%s/", dir);
	else if (home && *home &&
		 (snprintf(legacy, sizeof(legacy), "%s/.debuginfod_client_cache", home),
		  stat(legacy, &st) == 0 && S_ISDIR(st.st_mode)))
		at = snprintf(path, sizeof(path), "%s/", legacy);
	else if (xdg && *xdg)
		at = snprintf(path, sizeof(path), "%s/debuginfod_client/", xdg);
	else if (home && *home)
		at = snprintf(path, sizeof(path), "%s/.cache/debuginfod_client/", home);
	else
		return;
	for (int i = 0; i < len && at > 0 && (size_t)at + 3 < sizeof(path); i++)
		at += snprintf(path + at, sizeof(path) - (size_t)at, "%02x", id[i]);
	if (at <= 0 || (size_t)at + 16 > sizeof(path))
		return;
	snprintf(path + at, sizeof(path) - (size_t)at, "/debuginfo");
	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0)
		(void)unlink(path);
}

/* "build-id 1234abcd..." of id, for a notice. */
static void id_text(const unsigned char *id, int len, char *buf, size_t n)
{
	size_t at = (size_t)snprintf(buf, n, "build-id ");

	for (int i = 0; i < len && at + 3 < n; i++)
		at += (size_t)snprintf(buf + at, n - at, "%02x", id[i]);
}

/*
 * What a server sent for f is no debug file of its build: removed from
 * libdebuginfod's cache (it would be given again, without asking), said.
 */
static void reject(struct fetch *f, const char *path)
{
	char id[2 * DEBUGINFOD_ID_MAX + 16];

	(void)unlink(path);
	id_text(f->id, f->len, id, sizeof(id));
	if (fetches.notices < sizeof(fetches.notice) / sizeof(fetches.notice[0]))
		snprintf(fetches.notice[fetches.notices++], sizeof(fetches.notice[0]),
			 "debuginfod: what a server sent for %.60s (%s) is not its debug file: "
			 "rejected", f->module, id);
}

/* A download that failed, said: the code stays named by address this time. */
static void said_failed(const struct fetch *f, const char *why)
{
	char id[2 * DEBUGINFOD_ID_MAX + 16];

	id_text(f->id, f->len, id, sizeof(id));
	if (fetches.notices < sizeof(fetches.notice) / sizeof(fetches.notice[0]))
		snprintf(fetches.notice[fetches.notices++], sizeof(fetches.notice[0]),
			 "debuginfod: fetching the debug file of %.60s (%.60s) failed: %.60s; "
			 "not remembered as a miss, the next run asks again", f->module, id, why);
}

bool symbols_debuginfod_notice(char *buf, size_t len)
{
	bool any;

	pthread_mutex_lock(&fetches.lock);
	any = fetches.noticed < fetches.notices;
	if (any)
		snprintf(buf, len, "%s", fetches.notice[fetches.noticed++]);
	pthread_mutex_unlock(&fetches.lock);
	return any;
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
	void *h;

	/*
	 * The limits are kept here, in progress(), which sees a declared size
	 * before the body: told to libdebuginfod by setting DEBUGINFOD_MAXSIZE,
	 * it would leak 8 KiB a query (a dprintf to no descriptor, elfutils
	 * 0.188).
	 */
	pthread_mutex_lock(&fetches.lock);
	fetches.maxsize = env_limit(DEBUGINFOD_MAXSIZE_ENV_VAR, MAXSIZE_DEFAULT);
	fetches.maxtime = (uint64_t)env_limit(DEBUGINFOD_MAXTIME_ENV_VAR, MAXTIME_DEFAULT) *
			  1000000000u;
	pthread_mutex_unlock(&fetches.lock);
	h = dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_LOCAL);
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

		bool theirs = true, stopping;

		while (fetches.next == fetches.n)
			pthread_cond_wait(&fetches.changed, &fetches.lock);
		at = fetches.next++;
		f = &fetches.v[at];
		f->state = FETCH_RUNNING;
		fetches.got = fetches.total = 0;
		fetches.cut = NULL;
		fetches.began = st_now_ns();
		memcpy(id, f->id, sizeof(id));
		len = f->len;
		stopping = fetches.stopping;
		pthread_mutex_unlock(&fetches.lock);
		if (client && !stopping)
			fd = lib.find_debuginfo(client, id, len, &path);
		if (fd >= 0) {
			theirs = elf_fd_has_build_id(fd, id, len);
			close(fd);	/* opened again, checked, by whoever asks */
		}
		pthread_mutex_lock(&fetches.lock);
		f = &fetches.v[at];	/* v may have moved meanwhile */
		/* Only a server's "not found" is a miss; what stopped the download is not. */
		if (fd < 0 && client && !stopping &&
		    (fetches.stopping || fetches.cut || fd != -ENOENT)) {
			forget_miss(id, len);
			if (!fetches.stopping)
				said_failed(f, fetches.cut ? fetches.cut : strerror(-fd));
		}
		if (fd >= 0 && path && !theirs) {
			reject(f, path);
			fd = -EBADMSG;
		}
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
			/* Never joined: a download is stopped at exit, waited for 2 s at most. */
			fetches.started = st_thread_for_life(fetcher, NULL);
			if (fetches.started)
				atexit(stop_fetching);
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
