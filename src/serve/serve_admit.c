/*
 * serve_admit.c - connections kept by address group: see serve_admit.h.
 */
#include "serve/serve_admit.h"
#include "util.h"

#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

/* Descriptors per slot: libmicrohttpd's and our duplicate, for each it may hold. */
#define FDS_PER_CONNECTION (2 * SERVE_LIMIT_FACTOR)
#define FDS_SPARE 256		/* for the session: perf, files, the target's */

unsigned serve_admit_slots(void)
{
	struct rlimit r;
	rlim_t want = (rlim_t)SERVE_CONNECTIONS * FDS_PER_CONNECTION + FDS_SPARE;
	rlim_t fit;

	if (getrlimit(RLIMIT_NOFILE, &r))
		return 32;
	if (r.rlim_cur != RLIM_INFINITY && r.rlim_cur < want) {
		r.rlim_cur = r.rlim_max == RLIM_INFINITY || r.rlim_max > want ? want : r.rlim_max;
		setrlimit(RLIMIT_NOFILE, &r);
		getrlimit(RLIMIT_NOFILE, &r);
	}
	if (r.rlim_cur == RLIM_INFINITY || r.rlim_cur >= want)
		return SERVE_CONNECTIONS;
	fit = r.rlim_cur > FDS_SPARE + 32 * FDS_PER_CONNECTION
	      ? (r.rlim_cur - FDS_SPARE) / FDS_PER_CONNECTION : 32;
	return (unsigned)fit;
}

void serve_admit_init(struct serve_admit *a, unsigned slots)
{
	memset(a, 0, sizeof(*a));
	a->slots = slots;
}

/* An IPv6 client by its /64 (one host's, often); IPv4 and mapped whole. */
static void key_of(const struct serve_conn *k, unsigned char *key)
{
	memset(key, 0, 17);
	if (k->peer_len && k->peer.ss_family == AF_INET) {
		key[0] = 4;
		memcpy(key + 1, &((const struct sockaddr_in *)&k->peer)->sin_addr, 4);
	} else if (k->peer_len && k->peer.ss_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)&k->peer)->sin6_addr;

		key[0] = 6;
		memcpy(key + 1, a, IN6_IS_ADDR_V4MAPPED(a) ? 16 : 8);
	}
}

void serve_admit_cut(struct serve_admit *a, struct serve_conn *k)
{
	if (k->cut)
		return;
	if (k->fd >= 0)
		shutdown(k->fd, SHUT_RDWR);
	k->cut = true;
	k->group->live--;
	a->live--;
	a->cut_total++;
}

/* Its group's oldest connection still awaited but k, or NULL. */
static struct serve_conn *oldest_unheard(struct serve_admit *a, struct serve_conn *k)
{
	struct serve_conn *oldest = NULL;

	for (struct serve_conn *o = a->conns; o; o = o->next)
		if (o->group == k->group && o != k && !o->cut && !o->heard)
			oldest = o;	/* newest first: the last seen is the oldest */
	return oldest;
}

/* Past the slots: the group with the most connections loses its oldest unheard. */
static struct serve_conn *most_crowded(struct serve_admit *a, struct serve_conn *k)
{
	struct serve_peer *best = NULL;
	struct serve_conn *o;

	/* Every group with a connection is some connection's: no table walk. */
	for (o = a->conns; o; o = o->next)
		o->group->victim = NULL;
	for (o = a->conns; o; o = o->next)
		if (o != k && !o->cut && !o->heard)
			o->group->victim = o;	/* newest first: the last is the oldest */
	for (o = a->conns; o; o = o->next)
		if (o->group->victim && o->group->live >= 2 &&
		    (!best || o->group->live > best->live))
			best = o->group;
	return best ? best->victim : NULL;
}

static void make_room(struct serve_admit *a, struct serve_conn *k)
{
	struct serve_conn *out;

	if (k->group->live > SERVE_CONNECTIONS_PER_IP) {
		out = oldest_unheard(a, k);
		serve_admit_cut(a, out ? out : k);
	} else if (a->live > a->slots) {
		out = most_crowded(a, k);
		serve_admit_cut(a, out ? out : k);
	}
}

void serve_admit_add(struct serve_admit *a, struct serve_conn *k)
{
	unsigned char key[17];
	struct serve_peer *g;

	key_of(k, key);
	HASH_FIND(hh, a->peers, key, sizeof(key), g);
	if (!g) {
		g = st_xcalloc(1, sizeof(*g));
		memcpy(g->key, key, sizeof(key));
		HASH_ADD(hh, a->peers, key, sizeof(g->key), g);
	}
	k->group = g;
	k->cut = false;
	g->refs++;
	g->live++;
	a->live++;
	k->next = a->conns;
	a->conns = k;
	make_room(a, k);
}

void serve_admit_expire(struct serve_admit *a, uint64_t now, uint64_t deadline)
{
	for (struct serve_conn *k = a->conns; k; k = k->next)
		if (!k->heard && now > k->since && now - k->since > deadline)
			serve_admit_cut(a, k);
}

void serve_admit_remove(struct serve_admit *a, struct serve_conn *k)
{
	struct serve_peer *g = k->group;

	for (struct serve_conn **p = &a->conns; *p; p = &(*p)->next)
		if (*p == k) {
			*p = k->next;
			break;
		}
	if (!k->cut) {
		g->live--;
		a->live--;
	}
	if (!--g->refs) {
		HASH_DEL(a->peers, g);
		free(g);
	}
	k->group = NULL;
}

void serve_admit_free(struct serve_admit *a)
{
	ST_HASH_FREE_ALL(a->peers);
	a->conns = NULL;
}
