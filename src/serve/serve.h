/*
 * serve.h - shimtop --serve: headless sampling that answers the fleet's
 * scrapers over HTTP (libmicrohttpd): Prometheus's /metrics, pprof's
 * /debug/pprof/profile?seconds=N (and /debug/pprof/offcpu for where
 * threads waited, as Go serves blocking apart), /healthz and an index.  Requests are
 * decided here (serve_request.c), answered from the session by the main
 * loop (serve.c) and carried by the HTTP glue (serve_http.c); a client,
 * slow or hostile, never touches the model nor blocks sampling.
 */
#ifndef SHIMTOP_SERVE_H
#define SHIMTOP_SERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct session;

/* Samples and answers until Ctrl-C, SIGTERM or --duration; 0 or -errno. */
int serve_run(struct session *s);

/*
 * [ADDRESS:]PORT ("9464", ":9464", "0.0.0.0:9464", "[::1]:9464",
 * "localhost:9464") as a socket address; no address: 127.0.0.1.  0, or
 * -EINVAL (not ADDRESS:PORT) or -EADDRNOTAVAIL (no such address here)
 * with why in err.
 */
int serve_parse_address(const char *text, struct sockaddr_storage *out, socklen_t *len,
			char *err, size_t errlen);

/* Whether a parsed address is a loopback one (no token needed to be safe). */
bool serve_address_is_loopback(const struct sockaddr_storage *a);

/*
 * The bearer token from --serve-token's file: its first line, 16 to 256
 * printable characters, the file readable by its owner only, who is the
 * caller or root.  0, or -ENOENT (no such file) or -EACCES with why in err.
 */
int serve_read_token(const char *path, char *token, size_t len, char *err, size_t errlen);

/*
 * The token --serve asks for: from the file given (NULL: shimtop's own,
 * ~/.config/shimtop/serve-token), made there first if it is missing
 * (*made), random and 0600.  The file's path into path.  0 or -errno
 * with why in err.
 */
int serve_load_token(const char *given, char *path, size_t path_len, char *token, size_t len,
		     bool *made, char *err, size_t errlen);

enum serve_route {
	SERVE_REFUSED,		/* answered with the status and why */
	SERVE_INDEX,
	SERVE_HEALTH,
	SERVE_METRICS,
	SERVE_PROFILE,		/* pprof of the next N seconds: on-CPU */
	SERVE_WAITS,		/* ... of where threads waited (--off-cpu) */
};

/*
 * What a request carries that decides its answer (NULL: absent).  The
 * path and query are as sent, never unescaped: no page here has an
 * escape in its name, and "/metrics%00.html" is no /metrics.
 */
struct serve_request {
	const char *method;
	const char *path;		/* without the query */
	const char *seconds;		/* the query's seconds= */
	/* Every header line, in order: its name (as sent) and value. */
	const char *const *names;
	const char *const *values;
	size_t nheaders;
	/* Basic credentials' password, as libmicrohttpd decoded them, or NULL. */
	const char *basic_password;
};
struct serve_answer {
	enum serve_route route;
	unsigned status;		/* 200, or the 4xx refusing it */
	unsigned seconds;		/* a profile's window */
	const char *why;		/* a refusal's body */
};

#define SERVE_SECONDS_DEFAULT	30	/* as Go's net/http/pprof */
#define SERVE_SECONDS_MAX	300

/*
 * Decides a request: every route but /healthz needs the token, as
 * "Authorization: Bearer TOKEN" (any case of the scheme) or as Basic
 * credentials' password (a URL's user:TOKEN@, for go tool pprof); token
 * NULL only in tests of the rest.
 */
void serve_decide(const struct serve_request *rq, const char *token, struct serve_answer *a);



/* What the HTTP side counted, for /metrics. */
struct serve_stats {
	uint64_t answered, refused;	/* requests */
	unsigned connections, slots;	/* open now, and at most */
	uint64_t connections_cut;	/* by the server, to make room or past their deadline */
	unsigned profiles_running;	/* windows open now */
};

/*
 * The Prometheus text exposition (format 0.0.4) of the session: counts,
 * rates, per-process IPC of the heaviest processes, the observer's DTE
 * and CPC, the gauges, and with top > 0 the top heaviest symbols.  Every
 * label value comes from the target: made safe and escaped.  Allocated;
 * *len its bytes.
 */
char *serve_metrics_text(const struct session *s, unsigned top, const struct serve_stats *st,
			 size_t *len);
#define SERVE_PROCESSES_MAX 10	/* per-process series, heaviest first */

#endif
