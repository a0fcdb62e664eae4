/*
 * serve_admit.h - which connections --serve keeps when there are too
 * many.  Clients are grouped by address (an IPv6 client by its /64, what
 * one host is given); a group past its own limit loses its oldest
 * connection still sending its request; past the limit in all, the group
 * with the most connections loses one, never the only connection of a
 * group.  A flood from many addresses then never cuts a client from
 * another that asks once: its one connection is always kept.
 */
#ifndef SHIMTOP_SERVE_ADMIT_H
#define SHIMTOP_SERVE_ADMIT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include <uthash.h>

#define SERVE_CONNECTIONS	1024	/* at most, fewer under a low RLIMIT_NOFILE */
#define SERVE_CONNECTIONS_PER_IP 8
/* libmicrohttpd's own limit, in slots: see serve_http_start. */
#define SERVE_LIMIT_FACTOR	4

struct serve_conn;

/* Clients of one address (or /64). */
struct serve_peer {
	UT_hash_handle hh;
	unsigned char key[17];		/* family, then the address kept */
	unsigned live;			/* connections not cut */
	unsigned refs;			/* connections not yet closed */
	struct serve_conn *victim;	/* make_room's scratch: its oldest unheard */
};

/*
 * A client's connection, from its accept to its close: whether its
 * request has all come (heard), and since when it is awaited.  Its socket
 * is a duplicate of libmicrohttpd's, so cutting it (shutdown) or asking
 * whether the client left (poll) never touches a descriptor that was
 * closed and given to another.
 */
struct serve_conn {
	struct serve_conn *next;
	int fd;
	struct sockaddr_storage peer;
	socklen_t peer_len;
	uint64_t since;		/* st_now_ns() its request began to be awaited */
	bool heard;		/* the request line and headers came: judged, not cut */
	bool cut;
	struct serve_peer *group;
};

struct serve_admit {
	struct serve_conn *conns;	/* open, newest first */
	struct serve_peer *peers;	/* by key (uthash) */
	unsigned live, slots;
	uint64_t cut_total;		/* connections cut to make room or past their deadline */
};

/* Slots for connections: SERVE_CONNECTIONS if descriptors allow (raised). */
unsigned serve_admit_slots(void);

void serve_admit_init(struct serve_admit *a, unsigned slots);

/* A new connection, peer filled: kept, and room made (maybe by cutting it). */
void serve_admit_add(struct serve_admit *a, struct serve_conn *k);

/* No more of it: shut down (libmicrohttpd sees its end and closes it). */
void serve_admit_cut(struct serve_admit *a, struct serve_conn *k);

/*
 * Cuts each connection whose request has been awaited more than deadline
 * ns at now (read before the caller's lock: one accepted since is not late).
 */
void serve_admit_expire(struct serve_admit *a, uint64_t now, uint64_t deadline);

/* Closed: forgotten (not freed). */
void serve_admit_remove(struct serve_admit *a, struct serve_conn *k);

void serve_admit_free(struct serve_admit *a);

#endif
