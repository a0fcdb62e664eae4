/*
 * serve_http.h - the HTTP side of --serve (libmicrohttpd on threads of
 * its own): a request that needs the session becomes a job, its
 * connection suspended until the main loop answers it.
 */
#ifndef SHIMTOP_SERVE_HTTP_H
#define SHIMTOP_SERVE_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "output/export.h"
#include "serve/serve.h"

struct serve_job {
	struct serve_job *next;		/* in the queue, then the main loop's list */
	enum serve_route route;		/* SERVE_METRICS, SERVE_PROFILE or SERVE_WAITS */
	unsigned seconds;
	/* The main loop's: a profile's window and when it ends. */
	struct pprof_window window;
	uint64_t due_ns;
	/* The answer, then the HTTP side's. */
	unsigned status;
	const char *type;
	char *body;
	size_t len;
	void *connection;
	int fd;				/* the client's socket (a duplicate): its hang-up */
};

#define SERVE_IDLE_SECONDS	10	/* a client silent this long is let go */
#define SERVE_REQUEST_SECONDS	5	/* a whole request line and headers, however sent */
#define SERVE_REQUEST_BYTES	16384	/* a request's line and headers at most */

struct serve_http;

/* Listens on addr; NULL with why in err. */
struct serve_http *serve_http_start(const struct sockaddr *addr, socklen_t len,
				    const char *token, char *err, size_t errlen);
/* The port it listens on (the one the kernel chose for port 0). */
unsigned serve_http_port(struct serve_http *h);
/* The next job a request posted, or NULL. */
struct serve_job *serve_http_take(struct serve_http *h);
/* Answers a job (body: allocated, taken); the HTTP side sends and frees it. */
void serve_http_answer(struct serve_http *h, struct serve_job *j, unsigned status,
		       const char *type, char *body, size_t len);
/*
 * The main loop's look at the connections: those whose request has not
 * all come within SERVE_REQUEST_SECONDS of its start are cut.
 */
void serve_http_tick(struct serve_http *h);
/* Whether the client of a job waiting for its answer has gone (hung up). */
bool serve_http_gone(const struct serve_job *j);
/* Requests answered and refused, connections open, slots and cuts so far (for /metrics). */
void serve_http_counts(struct serve_http *h, struct serve_stats *st);
void serve_http_stop(struct serve_http *h);

#endif
