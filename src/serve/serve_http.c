/*
 * serve_http.c - libmicrohttpd carries --serve's requests: one polling
 * thread, bounded connections, request size and idle time.  A request
 * is decided at once (serve_request.c); one that needs the session is
 * queued as a job and its connection suspended, so no HTTP thread ever
 * reads the model and a slow client holds nothing but its socket.
 */
#include "serve/serve_http.h"
#include "util.h"

#include <microhttpd.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct serve_http {
	struct MHD_Daemon *daemon;
	char token[257];
	pthread_mutex_t lock;
	struct serve_job *queue, **tail;	/* posted, not taken */
	unsigned open_jobs;			/* taken or queued, not yet freed */
	uint64_t answered, refused;
};

static const char index_page[] =
	"<!DOCTYPE html>\n<html><head><title>shimtop</title></head><body>\n"
	"<h1>shimtop " PACKAGE_VERSION "</h1>\n<ul>\n"
	"<li><a href=\"/metrics\">/metrics</a>: Prometheus text exposition</li>\n"
	"<li><a href=\"/debug/pprof/profile?seconds=10\">/debug/pprof/profile?seconds=N</a>: "
	"a pprof profile (gzip protobuf) of the next N seconds, 1 to 300 (default 30)</li>\n"
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

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **state)
{
	struct serve_http *h = cls;
	struct serve_job *j = *state;
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
	serve_decide(&(struct serve_request){
			.method = method,
			.path = url,
			.seconds = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "seconds"),
			.authorization = MHD_lookup_connection_value(
				c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION),
			.content_length = MHD_lookup_connection_value(
				c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH),
			.transfer_encoding = MHD_lookup_connection_value(
				c, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING),
		     }, h->token[0] ? h->token : NULL, &a);
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
		break;
	}
	j = st_xcalloc(1, sizeof(*j));
	j->route = a.route;
	j->seconds = a.seconds;
	j->connection = c;
	*state = j;
	MHD_suspend_connection(c);
	post(h, j);
	return MHD_YES;
}

/* A request's end (answered, or its client gone): its job goes. */
static void on_completed(void *cls, struct MHD_Connection *c, void **state,
			 enum MHD_RequestTerminationCode why)
{
	struct serve_http *h = cls;
	struct serve_job *j = *state;

	(void)c;
	(void)why;
	if (!j)
		return;
	free(j->body);
	free(j);
	*state = NULL;
	pthread_mutex_lock(&h->lock);
	h->open_jobs--;
	pthread_mutex_unlock(&h->lock);
}

struct serve_http *serve_http_start(const struct sockaddr *addr, socklen_t len,
				    const char *token, char *err, size_t errlen)
{
	struct serve_http *h = st_xcalloc(1, sizeof(*h));

	(void)len;
	pthread_mutex_init(&h->lock, NULL);
	h->tail = &h->queue;
	if (token)
		snprintf(h->token, sizeof(h->token), "%s", token);
	h->daemon = MHD_start_daemon(
		MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_ALLOW_SUSPEND_RESUME |
		MHD_USE_ITC | (addr->sa_family == AF_INET6 ? MHD_USE_IPv6 : 0),
		0, NULL, NULL, on_request, h,
		MHD_OPTION_SOCK_ADDR, addr,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned)SERVE_CONNECTIONS,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)SERVE_CONNECTIONS_PER_IP,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)SERVE_IDLE_SECONDS,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)SERVE_REQUEST_BYTES,
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
		MHD_OPTION_END);
	if (!h->daemon) {
		snprintf(err, errlen, "--serve cannot listen there (in use, or not this machine's "
			 "address?): choose another address or port");
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

void serve_http_counts(struct serve_http *h, uint64_t *answered, uint64_t *refused)
{
	pthread_mutex_lock(&h->lock);
	*answered = h->answered;
	*refused = h->refused;
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
	pthread_mutex_destroy(&h->lock);
	free(h);
}
