/*
 * serve_request.c - what an HTTP request to --serve gets: its route, or
 * the 4xx that refuses it and why.  The bytes come from any client:
 * libmicrohttpd has split them; this judges the fields, strictly where
 * HTTP says a server must (RFC 9110, 9112), nothing more.
 */
#include "serve/serve.h"

#include <stdbool.h>
#include <string.h>
#include <strings.h>

/* Equal strings, in a time that does not depend on where they differ. */
static bool same_secret(const char *given, const char *token)
{
	size_t a = strlen(given), b = strlen(token);
	unsigned char diff = a != b;

	for (size_t i = 0; i < a; i++)
		diff |= (unsigned char)(given[i] ^ token[i % (b ? b : 1)]);
	return !diff;
}

/* The value of the header named name (any case), or NULL; *count how many there are. */
static const char *header(const struct serve_request *rq, const char *name, unsigned *count)
{
	const char *first = NULL;

	*count = 0;
	for (size_t i = 0; i < rq->nheaders; i++)
		if (rq->names[i] && !strcasecmp(rq->names[i], name)) {
			if (!first)
				first = rq->values[i] ? rq->values[i] : "";
			++*count;
		}
	return first;
}

/* Bearer credentials (RFC 6750: the scheme in any case, then spaces, then the token). */
static bool bearer(const char *value, const char *token)
{
	if (!value || strncasecmp(value, "Bearer", 6) || value[6] != ' ')
		return false;
	value += 6;
	while (*value == ' ')
		value++;
	return same_secret(value, token);
}

static bool authorized(const struct serve_request *rq, const char *token)
{
	unsigned n;
	const char *value = header(rq, "Authorization", &n);

	if (!token)
		return true;
	if (n != 1)
		return false;
	if (rq->basic_password && !strncasecmp(value, "Basic ", 6))
		return same_secret(rq->basic_password, token);
	return bearer(value, token);
}

/* 1 to SERVE_SECONDS_MAX in decimal digits; 0 otherwise. */
static unsigned parse_seconds(const char *text)
{
	unsigned v = 0;

	if (!text)
		return SERVE_SECONDS_DEFAULT;
	if (!*text || strlen(text) > 3)
		return 0;
	for (const char *p = text; *p; p++) {
		if (*p < '0' || *p > '9')
			return 0;
		v = v * 10 + (unsigned)(*p - '0');
	}
	return v <= SERVE_SECONDS_MAX ? v : 0;
}

static void refuse(struct serve_answer *a, unsigned status, const char *why)
{
	a->route = SERVE_REFUSED;
	a->status = status;
	a->why = why;
}

/* The refusal the header lines earn, or NULL. */
static const char *malformed(const struct serve_request *rq, unsigned *status)
{
	const char *length = NULL;

	*status = 400;
	for (size_t i = 0; i < rq->nheaders; i++) {
		const char *name = rq->names[i] ? rq->names[i] : "";
		const char *value = rq->values[i] ? rq->values[i] : "";

		/* RFC 9112 5.1: no whitespace between a field name and its colon. */
		if (!name[0] || name[strcspn(name, " \t")])
			return "a header's name is empty or holds a space (none may come "
			       "before its colon)\n";
		if (strcasecmp(name, "Content-Length"))
			continue;
		/* RFC 9112 6.3: differing lengths are an error, not a choice. */
		if (length && strcmp(length, value))
			return "two Content-Length headers disagree\n";
		length = value;
	}
	return NULL;
}

/* The refusal a request earns before its path is looked at, or NULL. */
static const char *refusal(const struct serve_request *rq, const char *token, bool open,
			   unsigned *status)
{
	const char *why;
	unsigned n;
	const char *length = header(rq, "Content-Length", &n);

	if (!rq->method || (strcmp(rq->method, "GET") && strcmp(rq->method, "HEAD"))) {
		*status = 405;
		return "only GET and HEAD are answered\n";
	}
	if ((why = malformed(rq, status)))
		return why;
	if ((length && strcmp(length, "0")) || header(rq, "Transfer-Encoding", &n)) {
		*status = 413;
		return "a request here carries no body\n";
	}
	if (!open && !authorized(rq, token)) {
		*status = 401;
		return "this server needs its token: 'Authorization: Bearer TOKEN', or a URL's "
		       "user:TOKEN@ (shimtop --serve-token names the file that holds it)\n";
	}
	return NULL;
}

void serve_decide(const struct serve_request *rq, const char *token, struct serve_answer *a)
{
	const char *path = rq->path ? rq->path : "";
	unsigned status = 200;
	/* Whether it runs says nothing of what it samples: no token asked. */
	const char *why = refusal(rq, token, !strcmp(path, "/healthz"), &status);

	memset(a, 0, sizeof(*a));
	if (why)
		refuse(a, status, why);
	else if (!strcmp(path, "/"))
		a->route = SERVE_INDEX;
	else if (!strcmp(path, "/healthz"))
		a->route = SERVE_HEALTH;
	else if (!strcmp(path, "/metrics"))
		a->route = SERVE_METRICS;
	else if (strcmp(path, "/debug/pprof/profile") && strcmp(path, "/debug/pprof/offcpu"))
		refuse(a, 404, "no such page: / lists what is served\n");
	else if (!(a->seconds = parse_seconds(rq->seconds)))
		refuse(a, 400, "seconds must be a whole number from 1 to 300\n");
	else
		a->route = strcmp(path, "/debug/pprof/offcpu") ? SERVE_PROFILE : SERVE_WAITS;
	if (a->route != SERVE_REFUSED)
		a->status = 200;
}
