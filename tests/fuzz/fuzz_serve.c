/*
 * fuzz_serve.c - libFuzzer: what any client may send --serve.  The input
 * is split at newlines into a request's fields and header lines for
 * serve_decide (a route is answered 200, a refusal is a 4xx with a
 * reason, a profile's window is 1-300 s, a route with figures needs the
 * token sent once), then sent whole, as raw bytes, to an in-process server
 * (libmicrohttpd and shimtop's handler, a thread answering its jobs),
 * a header block's end after it: whatever comes back is an HTTP reply or
 * nothing.
 */
#include "fuzz.h"
#include "serve/serve.h"
#include "serve/serve_http.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static const char token[] = "fuzz-token-0123456789";

/* Whether value is Bearer credentials of the token (the scheme in any case, then spaces). */
static bool bearer_of(const char *value)
{
	if (strncasecmp(value, "bearer ", 7))
		return false;
	value += 7;
	while (*value == ' ')
		value++;
	return !strcmp(value, token);
}

/*
 * The input, split at newlines: method, path, seconds, Basic credentials'
 * password, then header lines "name:value".
 */
static void check_decision(const uint8_t *data, size_t size)
{
	char *copy = malloc(size + 1), *field[4] = { NULL }, *at = copy;
	const char *names[64], *values[64];
	size_t n = 0, auth = 0;
	bool token_sent = false;
	struct serve_answer a;

	memcpy(copy, data, size);
	copy[size] = '\0';
	for (int i = 0; i < 4 && at; i++) {
		field[i] = at;
		at = strchr(at, '\n');
		if (at)
			*at++ = '\0';
	}
	while (at && n < 64) {
		char *line = at, *colon;

		at = strchr(at, '\n');
		if (at)
			*at++ = '\0';
		colon = strchr(line, ':');
		names[n] = line;
		values[n] = colon ? colon + 1 : NULL;
		if (colon)
			*colon = '\0';
		if (!strcasecmp(names[n], "Authorization")) {
			auth++;
			token_sent = values[n] && (bearer_of(values[n]) ||
				     (!strncasecmp(values[n], "Basic ", 6) && field[3] &&
				      !strcmp(field[3], token)));
		}
		n++;
	}
	for (int with_token = 0; with_token < 2; with_token++) {
		serve_decide(&(struct serve_request){ .method = field[0], .path = field[1],
						      .seconds = field[2], .names = names,
						      .values = values, .nheaders = n,
						      .basic_password = field[3] },
			     with_token ? token : NULL, &a);
		if (a.route == SERVE_REFUSED) {
			if (a.status < 400 || a.status > 499 || !a.why || !a.why[0])
				abort();
		} else if (a.status != 200) {
			abort();
		}
		if ((a.route == SERVE_PROFILE || a.route == SERVE_WAITS) &&
		    (a.seconds < 1 || a.seconds > SERVE_SECONDS_MAX))
			abort();
		/* A route with figures only with the token, sent once. */
		if (with_token && a.route != SERVE_REFUSED && a.route != SERVE_HEALTH &&
		    (auth != 1 || !token_sent))
			abort();
	}
	free(copy);
}

/* The main loop's part: every job answered at once. */
static void *answer_jobs(void *arg)
{
	struct serve_http *h = arg;
	const struct timespec tick = { 0, 1000000 };

	for (;;) {
		struct serve_job *j = serve_http_take(h);

		if (j)
			serve_http_answer(h, j, 200, "text/plain", strdup("x\n"), 2);
		else
			nanosleep(&tick, NULL);
	}
	return NULL;
}

static unsigned server_port(void)
{
	static unsigned port;
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct serve_http *h;
	pthread_t t;
	char err[256];

	if (port)
		return port;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	h = serve_http_start((struct sockaddr *)&a, sizeof(a), token, err, sizeof(err));
	if (!h)
		abort();
	port = serve_http_port(h);
	pthread_create(&t, NULL, answer_jobs, h);
	return port;
}

static void check_server(const uint8_t *data, size_t size)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(server_port()) };
	struct timeval limit = { 0, 500000 };
	char reply[8];
	ssize_t n;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		abort();
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit));
	if (size)
		(void)!send(fd, data, size, MSG_NOSIGNAL);
	/* The end of a header block: the server judges now, not at its idle limit. */
	(void)!send(fd, "\r\n\r\n", 4, MSG_NOSIGNAL);
	shutdown(fd, SHUT_WR);
	n = recv(fd, reply, sizeof(reply), MSG_WAITALL);
	/* An HTTP reply, or the connection closed (or left waiting for more). */
	if (n > 0 && (size_t)n >= 5 && memcmp(reply, "HTTP/", 5))
		abort();
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_decision(data, size);
	check_server(data, size);
	return 0;
}
