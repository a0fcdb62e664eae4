/*
 * serve.c - shimtop --serve's main loop: samples as batch does, and
 * answers the jobs the HTTP side posts.  /metrics is rendered at once; a
 * profile of the next N seconds notes the call tree's counts now and is
 * written when its window ends, by a copy of the process of its own:
 * written here, /metrics (and the rings' drain) waited 160 ms for one of
 * a 2-minute compile's tree, and a replay's 520,000 nodes take half a
 * second.
 * Only this thread reads the model.
 */
#include "front/run.h"
#include "output/background_copy.h"
#include "output/export.h"
#include "serve/serve.h"
#include "serve/serve_http.h"
#include "session/session.h"
#include "util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SERVE_PROFILES_MAX 4	/* windows open at once; more get 429 */

/* A window's profile being written by a copy of the process, into memfd. */
struct profile_copy {
	struct background_copy copy;
	struct serve_job *job;		/* NULL: the slot is free */
	int memfd;
};

struct serve_loop {
	struct session *s;
	struct serve_http *http;
	struct serve_job *profiles;	/* windows open, in no order */
	unsigned nprofiles;		/* open or being written */
	/* Side by side: a window never waits for another's copy. */
	struct profile_copy writing[SERVE_PROFILES_MAX];
	/* Where it listens, said once the session has started. */
	struct sockaddr_storage addr;
	const char *token_path;
	bool token_made, started;
};

static const char text_type[] = "text/plain; charset=utf-8";

static void answer_text(struct serve_loop *l, struct serve_job *j, unsigned status,
			const char *text)
{
	serve_http_answer(l->http, j, status, text_type, st_xstrdup(text), strlen(text));
}

static void answer_metrics(struct serve_loop *l, struct serve_job *j)
{
	struct serve_stats st = { .profiles_running = l->nprofiles };
	size_t len;
	char *text;

	serve_http_counts(l->http, &st);
	text = serve_metrics_text(l->s, session_options(l->s)->serve_top, &st, &len);
	serve_http_answer(l->http, j, 200, "text/plain; version=0.0.4; charset=utf-8", text, len);
}

/* The profile written here: at the stop, or when no copy could be made. */
static void answer_profile(struct serve_loop *l, struct serve_job *j)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	int rc = out ? export_pprof_window(l->s, &j->window, out) : -ENOMEM;

	if (out && fclose(out) && !rc)
		rc = -ENOMEM;
	pprof_window_free(&j->window);
	if (rc < 0) {
		free(buf);
		answer_text(l, j, 500, "the profile could not be written\n");
		return;
	}
	serve_http_answer(l->http, j, 200, "application/octet-stream", buf, len);
}

/* In the copy: the window's profile into the memfd. */
static int profile_in_copy(struct session *s, void *arg, char *msg, size_t len)
{
	struct profile_copy *w = arg;
	int fd = dup(w->memfd), rc;
	FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;

	(void)msg;
	(void)len;
	if (!out) {
		if (fd >= 0)
			close(fd);
		return -ENOMEM;
	}
	rc = export_pprof_window(s, &w->job->window, out);
	if (fclose(out) && !rc)
		rc = -EIO;
	return rc;
}

/* j's profile begun by a copy in a free slot; written here if none can be. */
static void profile_begin(struct serve_loop *l, struct serve_job *j)
{
	struct profile_copy *w = NULL;

	for (size_t i = 0; i < SERVE_PROFILES_MAX && !w; i++)
		if (!l->writing[i].job)
			w = &l->writing[i];
	if (w) {
		w->memfd = memfd_create("shimtop-profile", MFD_CLOEXEC);
		w->job = j;
		if (w->memfd >= 0 &&
		    background_copy_begin(&w->copy, l->s, false, profile_in_copy, w) == 0)
			return;
		if (w->memfd >= 0)
			close(w->memfd);
		w->job = NULL;
	}
	l->nprofiles--;
	answer_profile(l, j);
}

/*
 * The copies' profiles that are written (wait: waits for each), read back
 * and sent.  The window is freed before the answer: once answered the
 * job is the HTTP side's, which frees it when the answer is sent.
 */
static void profiles_collect(struct serve_loop *l, bool wait)
{
	for (size_t i = 0; i < SERVE_PROFILES_MAX; i++) {
		struct profile_copy *w = &l->writing[i];
		struct serve_job *j = w->job;
		char msg[512], *buf = NULL;
		struct stat st;
		int rc;

		if (!j || !background_copy_end(&w->copy, wait, &rc, msg, sizeof(msg)))
			continue;
		w->job = NULL;
		l->nprofiles--;
		pprof_window_free(&j->window);
		if (!rc && !fstat(w->memfd, &st) && (buf = malloc((size_t)st.st_size + 1)) &&
		    pread(w->memfd, buf, (size_t)st.st_size, 0) == st.st_size) {
			serve_http_answer(l->http, j, 200, "application/octet-stream", buf,
					  (size_t)st.st_size);
		} else {
			free(buf);
			answer_text(l, j, 500, "the profile could not be written\n");
		}
		close(w->memfd);
	}
}

/* The jobs posted since the last tick: metrics now, profiles from now. */
static void take_jobs(struct serve_loop *l)
{
	struct serve_job *j;

	while ((j = serve_http_take(l->http))) {
		if (j->route == SERVE_METRICS) {
			answer_metrics(l, j);
		} else if (l->nprofiles >= SERVE_PROFILES_MAX) {
			answer_text(l, j, 429, "too many profiles at once (4): try again when "
				    "one ends\n");
		} else if (j->route == SERVE_WAITS && session_whole(l->s)->offcpu_event < 0) {
			answer_text(l, j, 404, "this session samples no waits: start shimtop "
				    "--serve with --off-cpu\n");
		} else {
			pprof_window_begin(l->s, &j->window);
			/* As Go's /debug/pprof: on-CPU and blocking apart. */
			j->window.part = j->route == SERVE_WAITS ? PPROF_WAITS : PPROF_ON_CPU;
			j->due_ns = st_now_ns() + (uint64_t)j->seconds * 1000000000u;
			j->next = l->profiles;
			l->profiles = j;
			l->nprofiles++;
		}
	}
}

/*
 * Profiles whose window has ended, each by a copy of its own (all of
 * them here when stopping: what they have), and those whose client hung
 * up: its window is free at once.
 */
static void end_profiles(struct serve_loop *l, bool all)
{
	uint64_t now = st_now_ns();

	profiles_collect(l, all);
	for (struct serve_job **p = &l->profiles; *p;) {
		struct serve_job *j = *p;
		bool gone = serve_http_gone(j);

		if (!all && !gone && now < j->due_ns) {
			p = &j->next;
			continue;
		}
		*p = j->next;
		if (gone) {
			l->nprofiles--;
			pprof_window_free(&j->window);
			answer_text(l, j, 503, "the client left\n");	/* to no one */
		} else if (all) {
			l->nprofiles--;
			answer_profile(l, j);
		} else {
			profile_begin(l, j);
		}
	}
}

/* Where it listens (the port chosen for 0 too), and the token's file. */
static void say_where(const struct sockaddr_storage *a, unsigned port, const char *token_path,
		      bool made, bool waits)
{
	char host[INET6_ADDRSTRLEN] = "?";

	if (a->ss_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)a)->sin_addr, host, sizeof(host));
	else if (a->ss_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)a)->sin6_addr, host,
			  sizeof(host));
	st_note("serving http://%s%s%s:%u/ (/metrics, "
		"/debug/pprof/profile?seconds=N%s) to clients with the token in %s%s",
		a->ss_family == AF_INET6 ? "[" : "", host, a->ss_family == AF_INET6 ? "]" : "",
		port, waits ? ", /debug/pprof/offcpu?seconds=N" : "", token_path,
		made ? " (made now)" : "");
}

static int serve_begin(void *arg)
{
	struct serve_loop *l = arg;

	l->started = true;
	say_where(&l->addr, serve_http_port(l->http), l->token_path, l->token_made,
		  session_whole(l->s)->offcpu_event >= 0);
	return 0;
}

/* A target that ended leaves its figures served; sampling is over. */
static bool serve_pump_now(void *arg)
{
	return !session_finished(((struct serve_loop *)arg)->s);
}

static bool serve_turn(void *arg)
{
	static const struct timespec tick = { 0, 20 * 1000 * 1000 };
	struct serve_loop *l = arg;

	serve_http_tick(l->http);
	take_jobs(l);
	end_profiles(l, false);
	if (!session_behind(l->s))
		nanosleep(&tick, NULL);
	return true;
}

/* Open windows get what they have; queued requests a 503. */
static void serve_end(void *arg)
{
	struct serve_loop *l = arg;

	take_jobs(l);
	end_profiles(l, true);
	serve_http_stop(l->http);
	l->http = NULL;
}

int serve_run(struct session *s)
{
	const struct st_options *o = session_options(s);
	struct serve_loop l = { .s = s };
	const struct run_front front = { serve_begin, serve_pump_now, serve_turn, run_say_stderr,
					 serve_end, &l, NULL };
	socklen_t addr_len;
	char token[257] = "", token_path[4096] = "", err[512];
	int status, rc;

	rc = serve_parse_address(o->serve_address, &l.addr, &addr_len, err, sizeof(err));
	/*
	 * A token always: loopback is no boundary between local users, and
	 * what is served is what perf_event_paranoid may refuse them.
	 */
	if (!rc)
		rc = serve_load_token(o->serve_token_path, token_path, sizeof(token_path), token,
				      sizeof(token), &l.token_made, err, sizeof(err));
	if (rc < 0) {
		st_error("%s", err);
		return rc;
	}
	l.token_path = token_path;
	/* Refused before anything is launched: the address is taken, or not ours. */
	l.http = serve_http_start((const struct sockaddr *)&l.addr, addr_len, token, err,
				  sizeof(err));
	memset(token, 0, sizeof(token));
	if (!l.http) {
		st_error("%s", err);
		return -EADDRINUSE;
	}
	status = run_session(s, &front);
	if (!l.started)
		serve_http_stop(l.http);
	return status;
}
