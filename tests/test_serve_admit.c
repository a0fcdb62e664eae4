/*
 * test_serve_admit.c - which connections --serve keeps, over constructed
 * ones (no sockets): an address past its 8 loses its oldest unheard; past
 * the slots, the address with the most loses one; an address's only
 * connection is never cut, so a scraper's request survives a flood from
 * hundreds of addresses; a heard request is never cut; IPv6 clients count
 * by /64; closing gives slots back; the request deadline.
 */
#include "check.h"
#include "serve/serve_admit.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

static struct serve_conn *v4(const char *addr)
{
	struct serve_conn *k = calloc(1, sizeof(*k));
	struct sockaddr_in *a = (struct sockaddr_in *)&k->peer;

	k->fd = -1;
	a->sin_family = AF_INET;
	inet_pton(AF_INET, addr, &a->sin_addr);
	k->peer_len = sizeof(*a);
	return k;
}

static struct serve_conn *v6(const char *addr)
{
	struct serve_conn *k = calloc(1, sizeof(*k));
	struct sockaddr_in6 *a = (struct sockaddr_in6 *)&k->peer;

	k->fd = -1;
	a->sin6_family = AF_INET6;
	inet_pton(AF_INET6, addr, &a->sin6_addr);
	k->peer_len = sizeof(*a);
	return k;
}

/* Closes and frees every connection (libmicrohttpd's part, here). */
static void close_all(struct serve_admit *a)
{
	while (a->conns) {
		struct serve_conn *k = a->conns;

		serve_admit_remove(a, k);
		free(k);
	}
	CHECK(a->live == 0 && a->peers == NULL);
}

/* Live (not cut) connections in all. */
static unsigned live(const struct serve_admit *a)
{
	unsigned n = 0;

	for (const struct serve_conn *k = a->conns; k; k = k->next)
		n += !k->cut;
	return n;
}

int main(void)
{
	struct serve_admit a;
	struct serve_conn *first, *k, *root;
	char addr[64];

	/* One address: the 9th connection cuts its oldest unheard, not itself. */
	serve_admit_init(&a, 32);
	first = v4("127.0.0.2");
	serve_admit_add(&a, first);
	for (int i = 0; i < 8; i++)
		serve_admit_add(&a, v4("127.0.0.2"));
	CHECK(first->cut && !a.conns->cut);
	CHECK_EQ_U64(a.live, 8);
	CHECK_EQ_U64(live(&a), 8);
	CHECK_EQ_U64(a.cut_total, 1);	/* the server's metrics count it */
	/* A heard request is never cut: the next oldest goes instead. */
	for (k = a.conns; k; k = k->next)
		k->heard = !k->cut && k != a.conns;
	serve_admit_add(&a, v4("127.0.0.2"));
	CHECK(a.conns->next->cut && !a.conns->cut);
	CHECK_EQ_U64(a.cut_total, 2);
	for (k = a.conns->next->next; k; k = k->next)
		CHECK(k->cut == (k == first));
	close_all(&a);

	/*
	 * The flood: 200 addresses, 8 connections each, beside one scraper
	 * (127.0.0.1) sending nothing yet.  Past the 32 slots, the crowded
	 * addresses lose theirs; the scraper's one connection stays.
	 */
	serve_admit_init(&a, 32);
	root = v4("127.0.0.1");
	serve_admit_add(&a, root);
	for (int round = 0; round < 8; round++)
		for (int i = 0; i < 200; i++) {
			snprintf(addr, sizeof(addr), "127.0.%d.%d", 1 + i / 100, i % 100);
			serve_admit_add(&a, v4(addr));
		}
	CHECK(!root->cut);
	CHECK_EQ_U64(a.live, 32);
	CHECK_EQ_U64(live(&a), 32);
	/* Each address is down to its only connection, or none. */
	for (k = a.conns; k; k = k->next)
		CHECK(k->cut || k->group->live == 1);
	/* Every address holds one: a newcomer from a new one is the one cut. */
	k = v4("10.0.0.1");
	serve_admit_add(&a, k);
	CHECK(k->cut && !root->cut);
	close_all(&a);

	/*
	 * The flood at the real size: 200 addresses of 8 fill the
	 * 1,024 slots; a scraper arriving in the middle gets in and stays
	 * while the flood goes on.
	 */
	serve_admit_init(&a, SERVE_CONNECTIONS);
	for (int round = 0; round < 16; round++) {
		for (int i = 0; i < 200; i++) {
			snprintf(addr, sizeof(addr), "127.0.%d.%d", 1 + i / 100, i % 100);
			serve_admit_add(&a, v4(addr));
		}
		if (round == 7) {
			root = v4("127.0.0.1");
			serve_admit_add(&a, root);
		}
	}
	CHECK(!root->cut);
	CHECK_EQ_U64(a.live, SERVE_CONNECTIONS);
	close_all(&a);

	/* IPv6: one /64 is one address; another /64 is another. */
	serve_admit_init(&a, 32);
	first = v6("2001:db8:0:1::1");
	serve_admit_add(&a, first);
	for (int i = 2; i < 10; i++) {
		snprintf(addr, sizeof(addr), "2001:db8:0:1::%x", i);
		serve_admit_add(&a, v6(addr));
	}
	CHECK(first->cut);
	k = v6("2001:db8:0:2::1");
	serve_admit_add(&a, k);
	CHECK(!k->cut && k->group != a.conns->next->group);
	/* An IPv4-mapped client is its own address, not its /64's. */
	k = v6("::ffff:10.0.0.1");
	serve_admit_add(&a, k);
	serve_admit_add(&a, v6("::ffff:10.0.0.2"));
	CHECK(a.conns->group != k->group);
	close_all(&a);

	/* Closing gives the slot back: no cut below the limit. */
	serve_admit_init(&a, 2);
	serve_admit_add(&a, v4("10.0.0.1"));
	serve_admit_add(&a, v4("10.0.0.1"));
	k = a.conns;
	serve_admit_remove(&a, k);
	free(k);
	serve_admit_add(&a, v4("10.0.0.2"));
	CHECK(!a.conns->cut && !a.conns->next->cut);
	close_all(&a);

	/*
	 * The request deadline: a connection awaited past it is cut, one
	 * heard is not, and one accepted after the clock was read (its since
	 * later than now: the tick reads the clock before the lock) is not
	 * late.  That one was cut at once, an empty reply under a flood.
	 */
	serve_admit_init(&a, 32);
	serve_admit_add(&a, v4("10.0.0.1"));
	a.conns->since = 1000;
	serve_admit_add(&a, v4("10.0.0.2"));
	a.conns->since = 1000;
	a.conns->heard = true;
	serve_admit_add(&a, v4("10.0.0.3"));
	a.conns->since = 7000;
	serve_admit_expire(&a, 6500, 5000);
	CHECK(!a.conns->cut && !a.conns->next->cut && a.conns->next->next->cut);
	close_all(&a);

	CHECK(serve_admit_slots() >= 32);
	return check_done("test_serve_admit");
}
