/*
 * serve_http.c - libmicrohttpd carries --serve's requests: one polling
 * thread, bounded connections (in all and per address), request size,
 * idle time and a deadline for the whole request.  A request is decided
 * at once (serve_request.c); one that needs the session is queued as a
 * job and its connection suspended, so no HTTP thread ever reads the
 * model and a slow client holds nothing but its socket.
 */
#include "serve/serve_http.h"
#include "serve/serve_admit.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct serve_http {
	struct MHD_Daemon *daemon;
	char token[257];
	pthread_mutex_t lock;
	struct serve_job *queue, **tail;	/* posted, not taken */
	unsigned open_jobs;			/* taken or queued, not yet freed */
	uint64_t answered, refused;
	struct serve_admit admit;		/* open connections */
};

static const char index_page[] =
	"<!DOCTYPE html>\n<html><head><title>shimtop</title></head><body>\n"
	"<h1>shimtop " PACKAGE_VERSION "</h1>\n<ul>\n"
	"<li><a href=\"/metrics\">/metrics</a>: Prometheus text exposition</li>\n"
	"<li><a href=\"/debug/pprof/profile?seconds=10\">/debug/pprof/profile?seconds=N</a>: "
	"a pprof profile (gzip protobuf) of the next N seconds, 1 to 300 (default 30)</li>\n"
	"<li><a href=\"/debug/pprof/offcpu?seconds=10\">/debug/pprof/offcpu?seconds=N</a>: "
	"where threads waited off the CPU in the next N seconds (--off-cpu)</li>\n"
	"<li><a href=\"/healthz\">/healthz</a>: ok while sampling</li>\n"
	"</ul>\n</body></html>\n";

static enum MHD_Result send_text(struct serve_http *h, struct MHD_Connection *c,
				 unsigned status, const char *type, char *body, size_t len)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body,
								 MHD_RESPMEM_MUST_FREE);
	enum MHD_Result rc;

	if (!r) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	if (status == 401)
		MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer");
	if (status == 405)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	rc = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	pthread_mutex_lock(&h->lock);
	if (status < 400)
		h->answered++;
	else
		h->refused++;
	pthread_mutex_unlock(&h->lock);
	return rc;
}

static void post(struct serve_http *h, struct serve_job *j)
{
	pthread_mutex_lock(&h->lock);
	*h->tail = j;
	h->tail = &j->next;
	h->open_jobs++;
	pthread_mutex_unlock(&h->lock);
}

/* The connection's own record (set when it was accepted), or NULL. */
static struct serve_conn *conn_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *i =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return i ? i->socket_context : NULL;
}

/* Its request is whole (or another is awaited from now); under the lock. */
static void conn_heard(struct serve_http *h, struct MHD_Connection *c, bool heard)
{
	struct serve_conn *k = conn_of(c);

	pthread_mutex_lock(&h->lock);
	if (k) {
		k->heard = heard;
		k->since = st_now_ns();
	}
	pthread_mutex_unlock(&h->lock);
}

static void on_connection(void *cls, struct MHD_Connection *c, void **context,
			  enum MHD_ConnectionNotificationCode what)
{
	struct serve_http *h = cls;
	struct serve_conn *k = *context;

	if (what == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *fd =
			MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);

		k = st_xcalloc(1, sizeof(*k));
		k->fd = fd ? fcntl(fd->connect_fd, F_DUPFD_CLOEXEC, 0) : -1;
		k->peer_len = sizeof(k->peer);
		if (k->fd < 0 || getpeername(k->fd, (struct sockaddr *)&k->peer, &k->peer_len) < 0)
			k->peer_len = 0;
		k->since = st_now_ns();
		*context = k;
		pthread_mutex_lock(&h->lock);
		serve_admit_add(&h->admit, k);
		pthread_mutex_unlock(&h->lock);
		return;
	}
	if (!k)
		return;
	pthread_mutex_lock(&h->lock);
	serve_admit_remove(&h->admit, k);
	pthread_mutex_unlock(&h->lock);
	if (k->fd >= 0)
		close(k->fd);
	free(k);
	*context = NULL;
}

/* Every header line of the request, in order, for serve_decide. */
struct header_lines {
	const char **names, **values;
	size_t n, cap;
};

static enum MHD_Result add_header(void *cls, enum MHD_ValueKind kind, const char *name,
				  const char *value)
{
	struct header_lines *l = cls;

	(void)kind;
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		l->names = st_xrealloc(l->names, l->cap * sizeof(*l->names));
		l->values = st_xrealloc(l->values, l->cap * sizeof(*l->values));
	}
	l->names[l->n] = name;
	l->values[l->n++] = value;
	return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **state)
{
	struct serve_http *h = cls;
	struct serve_job *j = *state;
	struct header_lines lines = { 0 };
	char *user, *password = NULL;
	struct serve_answer a;

	(void)version;
	(void)upload;
	if (j) {
		/* Resumed: the main loop answered.  A body was refused before. */
		char *body = j->body;

		*upload_size = 0;
		j->body = NULL;
		return send_text(h, c, j->status, j->type, body, j->len);
	}
	conn_heard(h, c, true);
	MHD_get_connection_values(c, MHD_HEADER_KIND, add_header, &lines);
	user = MHD_basic_auth_get_username_password(c, &password);
	serve_decide(&(struct serve_request){
			.method = method,
			.path = url,
			.seconds = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "seconds"),
			.names = lines.names,
			.values = lines.values,
			.nheaders = lines.n,
			.basic_password = password,
		     }, h->token[0] ? h->token : NULL, &a);
	if (password) {
		explicit_bzero(password, strlen(password));
		MHD_free(password);
	}
	if (user)
		MHD_free(user);
	free(lines.names);
	free(lines.values);
	switch (a.route) {
	case SERVE_REFUSED:
		return send_text(h, c, a.status, "text/plain; charset=utf-8", st_xstrdup(a.why),
				 strlen(a.why));
	case SERVE_INDEX:
		return send_text(h, c, 200, "text/html; charset=utf-8", st_xstrdup(index_page),
				 sizeof(index_page) - 1);
	case SERVE_HEALTH:
		return send_text(h, c, 200, "text/plain; charset=utf-8", st_xstrdup("ok\n"), 3);
	case SERVE_METRICS:
	case SERVE_PROFILE:
	case SERVE_WAITS:
		break;
	}
	j = st_xcalloc(1, sizeof(*j));
	j->route = a.route;
	j->seconds = a.seconds;
	j->connection = c;
	j->fd = conn_of(c) ? conn_of(c)->fd : -1;
	*state = j;
	MHD_suspend_connection(c);
	post(h, j);
	return MHD_YES;
}

/* A request's end (answered, or its client gone): its job goes; the next is awaited. */
static void on_completed(void *cls, struct MHD_Connection *c, void **state,
			 enum MHD_RequestTerminationCode why)
{
	struct serve_http *h = cls;
	struct serve_job *j = *state;

	(void)why;
	conn_heard(h, c, false);
	if (!j)
		return;
	free(j->body);
	free(j);
	*state = NULL;
	pthread_mutex_lock(&h->lock);
	h->open_jobs--;
	pthread_mutex_unlock(&h->lock);
}

/* URLs as sent: no page here has an escape, so none is undone (%00 ends nothing). */
static size_t keep_escapes(void *cls, struct MHD_Connection *c, char *uri)
{
	(void)cls;
	(void)c;
	return strlen(uri);
}

/* addr as text: "127.0.0.1:9464", "[::1]:9464". */
static void address_text(const struct sockaddr *addr, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN] = "?";
	unsigned port = 0;

	if (addr->sa_family == AF_INET) {
		inet_ntop(AF_INET, &((const struct sockaddr_in *)addr)->sin_addr, host, sizeof(host));
		port = ntohs(((const struct sockaddr_in *)addr)->sin_port);
	} else if (addr->sa_family == AF_INET6) {
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)addr)->sin6_addr, host,
			  sizeof(host));
		port = ntohs(((const struct sockaddr_in6 *)addr)->sin6_port);
	}
	snprintf(buf, len, addr->sa_family == AF_INET6 ? "[%s]:%u" : "%s:%u", host, port);
}

/* A socket listening on addr (bound here: its failure has its reason); -errno. */
static int listen_on(const struct sockaddr *addr, socklen_t len, unsigned slots)
{
	int one = 1, fd = socket(addr->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (addr->sa_family == AF_INET6)
		(void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	/*
	 * A backlog of the slots: a burst waits there to be judged, and all
	 * of it taken at once stays within libmicrohttpd's limit (below).
	 */
	if (bind(fd, addr, len) < 0 || listen(fd, (int)slots) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

struct serve_http *serve_http_start(const struct sockaddr *addr, socklen_t len,
				    const char *token, char *err, size_t errlen)
{
	struct serve_http *h;
	char where[INET6_ADDRSTRLEN + 16];
	unsigned slots = serve_admit_slots();
	int fd = listen_on(addr, len, slots);

	if (fd < 0) {
		address_text(addr, where, sizeof(where));
		snprintf(err, errlen, "--serve cannot listen on %s: %s (choose another %s)", where,
			 strerror(-fd), fd == -EADDRINUSE ? "port" : "address or port");
		return NULL;
	}
	h = st_xcalloc(1, sizeof(*h));
	pthread_mutex_init(&h->lock, NULL);
	h->tail = &h->queue;
	serve_admit_init(&h->admit, slots);
	if (token)
		snprintf(h->token, sizeof(h->token), "%s", token);
	h->daemon = MHD_start_daemon(
		MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_ALLOW_SUSPEND_RESUME |
		MHD_USE_ITC | (addr->sa_family == AF_INET6 ? MHD_USE_IPv6 : 0),
		0, NULL, NULL, on_request, h,
		MHD_OPTION_LISTEN_SOCKET, fd,
		/*
		 * Past it libmicrohttpd closes a newcomer unjudged, so room for
		 * the slots, those cut and not yet closed, and a whole backlog.
		 */
		MHD_OPTION_CONNECTION_LIMIT, SERVE_LIMIT_FACTOR * slots,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)SERVE_IDLE_SECONDS,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)SERVE_REQUEST_BYTES,
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
		MHD_OPTION_NOTIFY_CONNECTION, on_connection, h,
		MHD_OPTION_UNESCAPE_CALLBACK, keep_escapes, NULL,
		MHD_OPTION_STRICT_FOR_CLIENT, 1,
		MHD_OPTION_END);
	if (!h->daemon) {
		address_text(addr, where, sizeof(where));
		snprintf(err, errlen, "--serve cannot serve on %s: libmicrohttpd would not start "
			 "(out of threads or memory?)", where);
		close(fd);
		serve_admit_free(&h->admit);
		pthread_mutex_destroy(&h->lock);
		free(h);
		return NULL;
	}
	return h;
}

unsigned serve_http_port(struct serve_http *h)
{
	const union MHD_DaemonInfo *i = MHD_get_daemon_info(h->daemon, MHD_DAEMON_INFO_BIND_PORT);

	return i ? i->port : 0;
}

struct serve_job *serve_http_take(struct serve_http *h)
{
	struct serve_job *j;

	pthread_mutex_lock(&h->lock);
	j = h->queue;
	if (j) {
		h->queue = j->next;
		if (!h->queue)
			h->tail = &h->queue;
		j->next = NULL;
	}
	pthread_mutex_unlock(&h->lock);
	return j;
}

void serve_http_answer(struct serve_http *h, struct serve_job *j, unsigned status,
		       const char *type, char *body, size_t len)
{
	(void)h;
	j->status = status;
	j->type = type;
	j->body = body;
	j->len = len;
	/* From here the job is the HTTP thread's: never touched again here. */
	MHD_resume_connection(j->connection);
}

void serve_http_tick(struct serve_http *h)
{
	uint64_t now = st_now_ns();

	pthread_mutex_lock(&h->lock);
	serve_admit_expire(&h->admit, now, (uint64_t)SERVE_REQUEST_SECONDS * 1000000000u);
	pthread_mutex_unlock(&h->lock);
}

bool serve_http_gone(const struct serve_job *j)
{
	struct pollfd p = { .fd = j->fd, .events = POLLRDHUP };

	/* The connection waits suspended: only its socket can say the client left. */
	return j->fd >= 0 && poll(&p, 1, 0) == 1 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

void serve_http_counts(struct serve_http *h, struct serve_stats *st)
{
	pthread_mutex_lock(&h->lock);
	st->answered = h->answered;
	st->refused = h->refused;
	st->connections = h->admit.live;
	st->slots = h->admit.slots;
	st->connections_cut = h->admit.cut_total;
	pthread_mutex_unlock(&h->lock);
}

void serve_http_stop(struct serve_http *h)
{
	static const struct timespec tick = { 0, 10 * 1000 * 1000 };
	MHD_socket listening;

	if (!h)
		return;
	/* No new connections; what is queued, now or by an open one, gets a 503. */
	listening = MHD_quiesce_daemon(h->daemon);
	for (int i = 0; i < 100; i++) {
		struct serve_job *j;
		unsigned open;

		while ((j = serve_http_take(h)))
			serve_http_answer(h, j, 503, "text/plain; charset=utf-8",
					  st_xstrdup("shimtop is stopping\n"), 20);
		pthread_mutex_lock(&h->lock);
		open = h->open_jobs;
		pthread_mutex_unlock(&h->lock);
		if (!open)
			break;
		nanosleep(&tick, NULL);
	}
	MHD_stop_daemon(h->daemon);
	if (listening != MHD_INVALID_SOCKET)
		close(listening);
	serve_admit_free(&h->admit);
	pthread_mutex_destroy(&h->lock);
	free(h);
}
