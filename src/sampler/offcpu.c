/*
 * offcpu.c - sched_switch's format read from tracefs, and the pairing of
 * a thread's switch-out sample with the moment it runs again.
 */
#include "sampler/offcpu.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>
#include <uthash.h>

#include "ring/record.h"
#include "sampler/perf_tracing.h"
#include "util.h"

/*
 * Threads whose switch-out waits at once, and their records' bytes (with
 * their stack copies: a hostile file's 65,536 threads of 64 KiB each
 * would hold 4 GiB): more are passed on unweighed and counted unpaired.
 */
#define OFFCPU_HELD_MAX		65536u
#define OFFCPU_HELD_BYTES	(64u << 20)

struct offcpu_held {
	UT_hash_handle hh;
	uint32_t tid;
	bool untold;		/* its state to be told (ST_SWITCH_TOLD, after it): "other" till then */
	uint64_t began;		/* its switch out: its pieces' times move on */
	size_t len;
	unsigned char rec[];
};

/* A thread's waker as the kernel last sent it (it sends one where it changes). */
struct offcpu_waker {
	UT_hash_handle hh;
	uint32_t tid;
	struct st_wake wake;
};

/* A thread's switch state told before its sample (ST_SWITCH_TOLD): one a thread. */
struct offcpu_told {
	UT_hash_handle hh;
	uint32_t tid;
	uint32_t reason;
	uint64_t time;
};

/*
 * A switch's state and its sample, told apart, are stamped this close
 * (the sample a few microseconds first: the kernel stamps it before its
 * program runs); a state farther from a sample is another switch's.
 */
#define TOLD_WITHIN_NS	1000000u

static bool told_near(uint64_t a, uint64_t b)
{
	return (a > b ? a - b : b - a) <= TOLD_WITHIN_NS;
}

static uint32_t told_valid(uint32_t reason)
{
	return reason > ST_OFFCPU_NONE && reason <= ST_OFFCPU_FUTEX ? reason : ST_OFFCPU_OTHER;
}

int offcpu_tracepoint_find(const char *root, struct offcpu_tracepoint *tp, char *why,
			   size_t len)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char path[PATH_MAX], *id = NULL, *fmt = NULL, *end;
	size_t fmt_len = 0;
	int err = -ENOENT;

	/*
	 * Root on a machine that mounted no tracefs: mount it where the kernel
	 * keeps its mount point, as perf does, rather than fail on the first
	 * run and work after perf's.
	 */
	if (!root && geteuid() == 0 && access("/sys/kernel/tracing/events", F_OK) != 0 &&
	    access("/sys/kernel/tracing", F_OK) == 0)
		(void)mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL);
	for (size_t i = 0; i < (root ? 1 : sizeof(roots) / sizeof(roots[0])) && !id; i++) {
		snprintf(path, sizeof(path), "%s/events/sched/sched_switch/id", root ? root : roots[i]);
		id = st_read_file(path, NULL);
		if (!id) {
			if (errno == EACCES || errno == EPERM)
				err = -errno;
			continue;
		}
		snprintf(path, sizeof(path), "%s/events/sched/sched_switch/format",
			 root ? root : roots[i]);
		fmt = st_read_file(path, &fmt_len);
	}
	if (!id || !fmt) {
		snprintf(why, len, err == -ENOENT
			 ? "--off-cpu needs the sched:sched_switch tracepoint, and no tracefs shows it "
			   "(%s): mount it (mount -t tracefs nodev /sys/kernel/tracing)"
			 : "--off-cpu needs the sched:sched_switch tracepoint, and tracefs is not "
			   "readable here (%s): run shimtop as root, or mount tracefs readable",
			 root ? root : roots[0]);
		free(id);
		free(fmt);
		return err;
	}
	tp->id = strtoull(id, &end, 10);
	if (end == id || !perf_tracing_field(fmt, fmt_len, "prev_state", &tp->state_at,
					     &tp->state_size) ||
	    (tp->state_size != 4 && tp->state_size != 8)) {
		snprintf(why, len, "sched:sched_switch's format in tracefs has no prev_state of 4 or 8 "
			 "bytes: this kernel's off-CPU states cannot be read; --off-cpu is unavailable");
		err = -ENOTSUP;
	} else {
		err = 0;
	}
	free(id);
	free(fmt);
	return err;
}

static struct offcpu_held *held_of(const struct offcpu_pairs *p, uint32_t tid)
{
	struct offcpu_held *h;

	HASH_FIND(hh, p->held, &tid, sizeof(tid), h);
	return h;
}

static void forget(struct offcpu_pairs *p, struct offcpu_held *h)
{
	HASH_DEL(p->held, h);
	p->held_bytes -= h->len;
	free(h);
	p->nheld--;
}

/*
 * A switch whose end was not seen (its switch in lost, records out of
 * order, the thread gone): still a sample, as perf script counts it, but
 * weighing nothing (period 1), stamped t where that is later.
 */
static void unweighed(struct offcpu_pairs *p, struct offcpu_held *h, uint64_t t, bool lost,
		      offcpu_emit_fn emit, void *arg)
{
	struct st_sample *s = (void *)h->rec;

	s->period = 1;
	if (t > s->time)
		s->time = t;
	s->flags |= ST_SAMPLE_WAITED;
	emit(arg, h->rec, h->len);
	p->unpaired += lost;
	forget(p, h);
}

/* The held wait of h's thread, ended at t: passed on whole. */
static void ran(struct offcpu_pairs *p, struct offcpu_held *h, uint64_t t, offcpu_emit_fn emit,
		void *arg)
{
	struct st_sample *s = (void *)h->rec;

	if (t <= s->time) {		/* a switch in before its switch out: out of order */
		unweighed(p, h, t, true, emit, arg);
		return;
	}
	/* Who woke it, before it, for the model to join: a wait preempted was woken by none. */
	if (ST_SAMPLE_OFFCPU(s->flags) != ST_OFFCPU_RUNNABLE) {
		struct offcpu_waker *k;

		HASH_FIND(hh, p->wakers, &h->tid, sizeof(h->tid), k);
		if (k) {
			k->wake.h.source = s->h.source;
			k->wake.time = t;
			k->wake.waited = t - h->began;
			emit(arg, &k->wake, sizeof(k->wake));
			p->woken++;
		}
	}
	s->period = t - s->time;
	s->time = t;
	s->flags |= ST_SAMPLE_WAITED;
	emit(arg, h->rec, h->len);
	p->paired++;
	forget(p, h);
}

/*
 * A switch's state told apart from its sample: the held wait's, if it
 * waits for it (the state comes after its sample); else kept for the
 * sample to come, the last told winning.
 */
static void tell(struct offcpu_pairs *p, const struct st_switch *w, offcpu_emit_fn emit, void *arg)
{
	struct offcpu_held *h = held_of(p, w->tid);
	struct offcpu_told *t;

	if (h && h->untold && told_near(w->time, h->began)) {
		struct st_sample *s = (void *)h->rec;
		uint32_t reason = told_valid(w->reason);

		h->untold = false;
		s->flags = (s->flags & ~ST_SAMPLE_OFFCPU_MASK) | reason << ST_SAMPLE_OFFCPU_SHIFT;
		/* A thread's last switch (it exited) ends nothing. */
		if (reason == ST_OFFCPU_EXITED)
			unweighed(p, h, w->time, false, emit, arg);
		return;
	}
	HASH_FIND(hh, p->told, &w->tid, sizeof(w->tid), t);
	if (!t) {
		if (HASH_COUNT(p->told) >= OFFCPU_HELD_MAX)
			return;		/* a sample without its state says "other" */
		t = st_xmalloc(sizeof(*t));
		t->tid = w->tid;
		HASH_ADD(hh, p->told, tid, sizeof(t->tid), t);
	}
	t->reason = w->reason;
	t->time = w->time;
}

/*
 * The state told for s's switch before it, taken: ST_OFFCPU_NONE where
 * none was told near it (it comes after, or its record was lost).
 */
static uint32_t told_reason(struct offcpu_pairs *p, const struct st_sample *s)
{
	struct offcpu_told *t;
	uint32_t reason = ST_OFFCPU_NONE;

	HASH_FIND(hh, p->told, &s->tid, sizeof(s->tid), t);
	if (t) {
		if (told_near(t->time, s->time))
			reason = told_valid(t->reason);
		HASH_DEL(p->told, t);
		free(t);
	}
	return reason;
}

/* The thread's waker from now (the kernel sends one where it changes). */
static void note_waker(struct offcpu_pairs *p, const struct st_wake *w)
{
	struct offcpu_waker *k;

	HASH_FIND(hh, p->wakers, &w->tid, sizeof(w->tid), k);
	if (!k) {
		if (HASH_COUNT(p->wakers) >= OFFCPU_HELD_MAX)
			return;		/* its waits are told of no waker */
		k = st_xmalloc(sizeof(*k));
		k->tid = w->tid;
		HASH_ADD(hh, p->wakers, tid, sizeof(k->tid), k);
	}
	k->wake = *w;
}

static void forget_waker(struct offcpu_pairs *p, uint32_t tid)
{
	struct offcpu_waker *k;

	HASH_FIND(hh, p->wakers, &tid, sizeof(tid), k);
	if (k) {
		HASH_DEL(p->wakers, k);
		free(k);
	}
}

static void hold(struct offcpu_pairs *p, const struct st_sample *s, size_t len,
		 offcpu_emit_fn emit, void *arg)
{
	struct offcpu_held *h = held_of(p, s->tid);
	struct st_sample *kept;

	if (h)				/* its switch in was lost */
		unweighed(p, h, s->time, true, emit, arg);
	h = st_xmalloc(sizeof(*h) + len);
	h->tid = s->tid;
	h->began = s->time;
	h->len = len;
	memcpy(h->rec, s, len);
	kept = (void *)h->rec;
	h->untold = false;
	if (kept->flags & ST_SAMPLE_TOLD_APART) {
		uint32_t reason = told_reason(p, s);

		h->untold = reason == ST_OFFCPU_NONE;
		kept->flags = (kept->flags & ~(ST_SAMPLE_TOLD_APART | ST_SAMPLE_OFFCPU_MASK)) |
			      (h->untold ? ST_OFFCPU_OTHER : reason) << ST_SAMPLE_OFFCPU_SHIFT;
	}
	HASH_ADD(hh, p->held, tid, sizeof(h->tid), h);
	p->nheld++;
	p->held_bytes += len;
	/* A thread's last switch (it exited) ends nothing; past the table's room, not held. */
	if (ST_SAMPLE_OFFCPU(kept->flags) == ST_OFFCPU_EXITED)
		unweighed(p, h, s->time, false, emit, arg);
	else if (p->nheld > OFFCPU_HELD_MAX || p->held_bytes > OFFCPU_HELD_BYTES)
		unweighed(p, h, s->time, true, emit, arg);
}

void offcpu_pairs_take(struct offcpu_pairs *p, const void *rec, size_t len, offcpu_emit_fn emit,
		       void *arg)
{
	const struct st_header *hd = rec;
	struct offcpu_held *h;

	switch (hd->type) {
	case ST_REC_SWITCH: {
		const struct st_switch *w = rec;

		if (w->flags & ST_SWITCH_TOLD)
			tell(p, w, emit, arg);
		else if (!(w->flags & ST_SWITCH_OUT) && (h = held_of(p, w->tid)))
			ran(p, h, w->time, emit, arg);
		return;
	}
	case ST_REC_WAKE:
		if (len >= sizeof(struct st_wake))
			note_waker(p, rec);
		return;
	case ST_REC_SAMPLE: {
		const struct st_sample *s = rec;

		/*
		 * Weighed already (perf record --off-cpu's), or the kernel's walk
		 * of a switch whose sample comes too, only compared with it.
		 */
		if (s->flags & (ST_SAMPLE_WAITED | ST_SAMPLE_CHECK_ONLY))
			break;
		if (ST_SAMPLE_OFFCPU(s->flags)) {
			hold(p, s, len, emit, arg);
			return;
		}
		/* Sampled running: it ran again, though its switch in was not seen. */
		if ((h = held_of(p, s->tid)))
			ran(p, h, s->time, emit, arg);
		break;
	}
	case ST_REC_EXIT:
		if ((h = held_of(p, ((const struct st_task *)rec)->tid)))
			unweighed(p, h, ((const struct st_task *)rec)->time, true, emit, arg);
		forget_waker(p, ((const struct st_task *)rec)->tid);
		break;
	default:
		break;
	}
	emit(arg, rec, len);
}

void offcpu_pairs_split(struct offcpu_pairs *p, uint64_t upto, uint64_t min_ns,
			offcpu_emit_fn emit, void *arg)
{
	struct offcpu_held *h, *tmp;

	HASH_ITER(hh, p->held, h, tmp) {
		struct st_sample *s = (void *)h->rec;
		uint64_t from = s->time;

		if (upto <= from || upto - from < min_ns)
			continue;
		s->period = upto - from;
		s->time = upto;
		s->flags |= ST_SAMPLE_WAITED | ST_SAMPLE_WAIT_GOES_ON;
		emit(arg, h->rec, h->len);
		s->flags &= ~(ST_SAMPLE_WAITED | ST_SAMPLE_WAIT_GOES_ON);
		p->split++;
	}
}

void offcpu_pairs_free(struct offcpu_pairs *p)
{
	ST_HASH_FREE_ALL(p->wakers);
	ST_HASH_FREE_ALL(p->told);
	ST_HASH_FREE_ALL(p->held);
	p->nheld = 0;
	p->held_bytes = 0;
}
