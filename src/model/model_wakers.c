/*
 * model_wakers.c - who woke the waits (--off-cpu with the kernel's
 * walker).  The pairing sends a wait's waker (st_wake) right before the
 * wait; it is kept until that wait is counted (the next record of its
 * source), then the wait's whole time goes to its tree node, its thread
 * and its waker.  By node,
 * so that a function's wakers (every wait with it in its chain) are
 * summed when asked, not counted under each frame of every wait.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

#include "model/model.h"
#include "model/model_internal.h"
#include "text_safe.h"
#include "util.h"

/*
 * Bounds a churning host cannot pass: distinct (node, thread, waker)
 * triples (past them, the time is counted unkept), and wakers named
 * (past them, the names are forgotten and learned again).
 */
#define WOKEN_MAX	(1u << 18)
#define NAMES_MAX	(1u << 16)

struct model_woken {
	UT_hash_handle hh;
	struct model_woken_key {
		uint32_t node;
		pid_t tid;
		pid_t waker;		/* 0: an interrupt */
	} key;
	uint64_t ns, waits;
};

struct model_waker_name {
	UT_hash_handle hh;
	pid_t tid;
	pid_t pid;
	char comm[16];
};

static void name_waker(struct model *m, const struct st_wake *w)
{
	struct model_waker_name *n;
	pid_t tid = (pid_t)w->waker_tid;

	if (w->flags & ST_WAKE_INTERRUPT)
		return;
	HASH_FIND(hh, m->waker_names, &tid, sizeof(tid), n);
	if (!n) {
		/* Full (a host whose threads churn): emptied, the wakers named again as they wake. */
		if (HASH_COUNT(m->waker_names) >= NAMES_MAX)
			ST_HASH_FREE_ALL(m->waker_names);
		n = st_xcalloc(1, sizeof(*n));
		n->tid = tid;
		HASH_ADD(hh, m->waker_names, tid, sizeof(n->tid), n);
	}
	n->pid = (pid_t)w->waker_pid;
	memcpy(n->comm, w->waker_comm, sizeof(w->waker_comm));
	n->comm[sizeof(n->comm) - 1] = '\0';
	st_text_safe(n->comm);		/* the waker names itself */
}

void model_note_wake(struct model *m, const struct st_wake *w)
{
	/* One at a time: the pairing sends each right before its wait. */
	m->wake_pending = *w;
	name_waker(m, w);
}

void model_count_woken(struct model *m, const struct st_sample *s, uint32_t node)
{
	const struct st_wake *p = &m->wake_pending;
	struct model_woken *k;
	struct model_woken_key key = { .node = node, .tid = (pid_t)s->tid };

	if (p->tid != s->tid)
		return;
	/* Its own wait's waker, stamped as it: any other is stale (its wait not counted). */
	if (p->time != s->time || (s->flags & ST_SAMPLE_WAIT_GOES_ON)) {
		m->wake_pending.tid = 0;
		return;
	}
	key.waker = p->flags & ST_WAKE_INTERRUPT ? 0 : (pid_t)p->waker_tid;
	m->woken_waits++;
	m->woken_ns += p->waited;
	HASH_FIND(hh, m->woken, &key, sizeof(key), k);
	if (!k && HASH_COUNT(m->woken) < WOKEN_MAX) {
		k = st_xcalloc(1, sizeof(*k));
		k->key = key;
		HASH_ADD(hh, m->woken, key, sizeof(k->key), k);
	}
	if (k) {
		k->ns += p->waited;
		k->waits++;
	} else {
		m->woken_unkept_ns += p->waited;
	}
	m->wake_pending.tid = 0;
}

static int by_time(const void *a, const void *b)
{
	const struct model_waker *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	if (x->woken != y->woken)
		return x->woken < y->woken ? -1 : 1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* Whether sym is a frame of node's path. */
static bool under(const struct model *m, uint32_t node, uint32_t sym, uint32_t *frames)
{
	size_t n = cct_path(&m->tree, node, frames);

	for (size_t i = 0; i < n; i++)
		if (frames[i] == sym)
			return true;
	return false;
}

/* A waker's place in model_wakers' answer, while summing. */
struct place {
	UT_hash_handle hh;
	uint64_t key;		/* the waker, and with each_thread the thread woken */
	size_t at;
};

size_t model_wakers(const struct model *m, pid_t tid, uint32_t sym, bool each_thread,
		    struct model_waker **out)
{
	uint32_t frames[CCT_MAX_DEPTH + 1];
	struct model_waker *v = NULL;
	struct place *places = NULL, *pl;
	size_t n = 0, cap = 0;
	const struct model_woken *k;

	for (k = m->woken; k; k = k->hh.next) {
		pid_t waker = k->key.waker;
		uint64_t key = (uint32_t)waker | (each_thread ? (uint64_t)(uint32_t)k->key.tid << 32 : 0);

		if ((tid && k->key.tid != tid) ||
		    (sym != UINT32_MAX && !under(m, k->key.node, sym, frames)))
			continue;
		HASH_FIND(hh, places, &key, sizeof(key), pl);
		if (!pl) {
			const struct model_waker_name *name;

			if (n == cap) {
				cap = cap ? cap * 2 : 16;
				v = st_xrealloc(v, cap * sizeof(*v));
			}
			memset(&v[n], 0, sizeof(v[n]));
			v[n].tid = waker;
			v[n].woken = each_thread ? k->key.tid : 0;
			HASH_FIND(hh, m->waker_names, &waker, sizeof(waker), name);
			if (name) {
				v[n].pid = name->pid;
				memcpy(v[n].comm, name->comm, sizeof(v[n].comm));
			}
			pl = st_xmalloc(sizeof(*pl));
			pl->key = key;
			pl->at = n++;
			HASH_ADD(hh, places, key, sizeof(pl->key), pl);
		}
		v[pl->at].ns += k->ns;
		v[pl->at].waits += k->waits;
	}
	ST_HASH_FREE_ALL(places);
	if (n)
		qsort(v, n, sizeof(*v), by_time);
	*out = v;
	return n;
}

const char *model_waker_name(const struct model_waker *w, char *buf, size_t len)
{
	if (!w->tid)
		snprintf(buf, len, "[interrupt]");
	else if (w->comm[0])
		snprintf(buf, len, "%s[%d]", w->comm, (int)w->tid);
	else
		snprintf(buf, len, "[%d]", (int)w->tid);
	return buf;
}

void model_wakers_clear(struct model *m)
{
	ST_HASH_FREE_ALL(m->woken);
	m->wake_pending.tid = 0;
	m->woken_waits = m->woken_ns = m->woken_unkept_ns = 0;
}

void model_wakers_free(struct model *m)
{
	model_wakers_clear(m);
	ST_HASH_FREE_ALL(m->waker_names);
}
