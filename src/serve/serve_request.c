/*
 * serve_request.c - what an HTTP request to --serve gets: its route, or
 * the 4xx that refuses it and why.  The bytes come from any client:
 * libmicrohttpd has parsed them; this judges the fields, nothing more.
 */
#include "serve/serve.h"

#include <string.h>

/* Equal strings, in a time that does not depend on where they differ. */
static bool same_secret(const char *given, const char *token)
{
	size_t a = strlen(given), b = strlen(token);
	unsigned char diff = a != b;

	for (size_t i = 0; i < a; i++)
		diff |= (unsigned char)(given[i] ^ token[i % (b ? b : 1)]);
	return !diff;
}

static bool authorized(const char *header, const char *token)
{
	static const char scheme[] = "Bearer ";

	if (!token)
		return true;
	if (!header || strncmp(header, scheme, sizeof(scheme) - 1))
		return false;
	return same_secret(header + sizeof(scheme) - 1, token);
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

/* The refusal a request earns before its path is looked at, or NULL. */
static const char *refusal(const struct serve_request *rq, const char *token, unsigned *status)
{
	if (!rq->method || (strcmp(rq->method, "GET") && strcmp(rq->method, "HEAD"))) {
		*status = 405;
		return "only GET and HEAD are answered\n";
	}
	if ((rq->content_length && strcmp(rq->content_length, "0")) || rq->transfer_encoding) {
		*status = 413;
		return "a request here carries no body\n";
	}
	if (!authorized(rq->authorization, token)) {
		*status = 401;
		return "this server needs 'Authorization: Bearer TOKEN' (shimtop --serve-token)\n";
	}
	return NULL;
}

void serve_decide(const struct serve_request *rq, const char *token, struct serve_answer *a)
{
	const char *path = rq->path ? rq->path : "";
	unsigned status = 200;
	const char *why = refusal(rq, token, &status);

	memset(a, 0, sizeof(*a));
	if (why)
		refuse(a, status, why);
	else if (!strcmp(path, "/"))
		a->route = SERVE_INDEX;
	else if (!strcmp(path, "/healthz"))
		a->route = SERVE_HEALTH;
	else if (!strcmp(path, "/metrics"))
		a->route = SERVE_METRICS;
	else if (strcmp(path, "/debug/pprof/profile"))
		refuse(a, 404, "no such page: / lists what is served\n");
	else if (!(a->seconds = parse_seconds(rq->seconds)))
		refuse(a, 400, "seconds must be a whole number from 1 to 300\n");
	else
		a->route = SERVE_PROFILE;
	if (a->route != SERVE_REFUSED)
		a->status = 200;
}
