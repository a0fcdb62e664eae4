/* observer.c - the SHIM observer thread and its loop. */
#include "sampler/observer.h"
#include "sampler/corewide.h"
#include "sampler/signal_segment.h"
#include "sampler/tsc.h"
#include "sampler/tsc_clock.h"
#include "ring/record.h"
#include "ring/ring.h"
#include "util.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>

#define BATCH_SAMPLES	64	/* samples per ring record */
#define HOUSEKEEP_NS	1000000	/* stop flag, calibration: every 1 ms */
#define RESCAN_NS	10000000 /* new threads' slots: every 10 ms */
#define FLUSH_NS	20000000 /* a part-filled batch waits at most 20 ms */
#define SLEEP_NS	200000	/* pauses longer than this sleep ... */
#define WAKE_EARLY_NS	60000	/* ... and wake this early to spin */

struct observer {
	struct st_source base;
	struct observer_config cfg;
	struct signal_segment seg;
	struct source_thread th;
	atomic_uint_fast64_t period;
	atomic_uint_fast64_t samples;

	pthread_mutex_t lock;	/* guards info */
	struct st_source_info info;
	uint64_t started_ns;	/* CLOCK_MONOTONIC at start */
};

/* The observer thread's working state. */
struct loop {
	struct observer *o;
	const volatile struct shimtop_slot *slot[ST_OBS_MAX_THREADS];
	uint32_t tid[ST_OBS_MAX_THREADS];	/* as read by scan_slots */
	unsigned nthreads, ncounters;
	uint32_t flags;			/* ST_OBS_HARDWARE | ST_OBS_SELF: the core's counters */
	struct corewide cw;
	size_t head, words;		/* thread 0's first word; per sample */
	unsigned cap;			/* samples per batch */
	uint32_t seq;
	uint64_t made;			/* samples taken (published each ms) */
	struct tsc_clock clock;
	uint64_t tsc_hz;		/* clock.hz once known */
	uint64_t batch_tsc;		/* when the batch began */
	struct st_observe_meta meta;
	struct st_observe *rec;
	uint64_t *next;
	unsigned n;
	struct iovec local[ST_MAX_SIGNALS], remote[ST_MAX_SIGNALS];
	_Alignas(8) unsigned char buf[ST_RECORD_MAX];
};

static void set_finished(struct observer *o, const char *why, bool failed)
{
	pthread_mutex_lock(&o->lock);
	o->info.finished = true;
	o->info.failed = failed;
	snprintf(o->info.finish_reason, sizeof(o->info.finish_reason), "%.127s", why);
	pthread_mutex_unlock(&o->lock);
}

static void set_note(struct observer *o, const char *note)
{
	pthread_mutex_lock(&o->lock);
	snprintf(o->info.note, sizeof(o->info.note), "%.383s", note);
	pthread_mutex_unlock(&o->lock);
}

/* Where the observer runs, then what it says of hardware counters. */
static void note_placement(struct observer *o, const char *tail)
{
	char note[sizeof(o->info.note)];
	const struct observer_placement *p = &o->cfg.place;

	snprintf(note, sizeof(note), "observer on CPU %d (%s of the target's "
		 "CPU %d); %.300s", p->observer_cpu,
		 p->smt_sibling ? "SMT sibling" : "another core", p->target_cpu, tail);
	set_note(o, note);
}

static uint64_t cycles_for_ns(const struct loop *l, uint64_t ns)
{
	return (uint64_t)((double)ns * (double)l->tsc_hz / 1e9);
}

static uint64_t mono_now(void)
{
	return st_now_ns();
}

static uint64_t tsc_now(void)
{
	return tsc_end();
}

/* TSC ticks per second against CLOCK_MONOTONIC since the thread began. */
static void calibrate(struct loop *l)
{
	if (tsc_clock_update(&l->clock, tsc_now, mono_now))
		l->tsc_hz = l->clock.hz;
}

static void calibrate_start(struct loop *l)
{
	uint64_t until;

	tsc_clock_start(&l->clock, tsc_now, mono_now);
	until = st_now_ns() + 5000000;
	while (st_now_ns() < until)
		tsc_pause();
	/* A loose pair now waits for a tight one: no rate without a clock. */
	for (int i = 0; i < 1000 && !l->tsc_hz; i++)
		calibrate(l);
}

/* ---- what is read: shared-memory slots or variables ---- */

/* From the copy validated at attach; names refreshed through a copy. */
static void meta_from_segment(struct loop *l)
{
	const struct shimtop_signals_header *h = &l->o->seg.header;
	struct st_observe_meta *m = &l->meta;

	signal_segment_refresh(&l->o->seg);
	m->mode = ST_OBS_SHARED_MEMORY;
	m->tag_kind = h->tag_kind;
	m->ncounters = h->ncounters;
	memcpy(m->tag_name, h->tag_name, ST_OBS_NAME_LEN);
	memcpy(m->counter_name, h->counter_name, sizeof(m->counter_name));
	memcpy(m->tag_value_name, h->tag_value_name, sizeof(m->tag_value_name));
	for (unsigned i = 0; i < ST_OBS_MAX_COUNTERS; i++)
		m->width[i] = 64;
}

static void meta_from_variables(struct loop *l)
{
	const struct observer_config *c = &l->o->cfg;
	struct st_observe_meta *m = &l->meta;
	unsigned k = 0;

	m->mode = ST_OBS_VM_READ;
	m->tag_kind = 0;
	for (size_t i = 0; i < c->nvars; i++) {
		if (c->vars[i].is_tag) {
			snprintf(m->tag_name, ST_OBS_NAME_LEN, "%.31s", c->vars[i].name);
			continue;
		}
		snprintf(m->counter_name[k], ST_OBS_NAME_LEN, "%.31s", c->vars[i].name);
		m->width[k++] = (uint32_t)(c->vars[i].size * 8);
	}
	m->ncounters = k;
}

/* Sends the meta record if it differs from the last one sent. */
static void send_meta(struct loop *l, bool force)
{
	struct st_observe_meta *m = &l->meta;
	struct st_observe_meta old = *m;

	if (l->o->cfg.nvars)
		meta_from_variables(l);
	else
		meta_from_segment(l);
	m->h.type = ST_REC_OBSERVE_META;
	m->h.source = ST_SOURCE_OBSERVER;
	m->h.size = sizeof(*m);
	m->pid = (uint32_t)l->o->cfg.pid;
	m->period = atomic_load_explicit(&l->o->period, memory_order_relaxed);
	m->cpu = (uint32_t)l->o->cfg.place.observer_cpu;
	if (force || memcmp(&old, m, sizeof(*m)))
		ring_push(l->o->base.ring, m, sizeof(*m));
}

/*
 * The slots threads have claimed, in slot order, at most 8.  Each tid is
 * read once here and kept: the program may change it any time.
 */
static bool scan_slots(struct loop *l)
{
	const struct shimtop_signals *s = l->o->seg.sig;
	const volatile struct shimtop_slot *found[ST_OBS_MAX_THREADS];
	uint32_t tid[ST_OBS_MAX_THREADS];
	unsigned n = 0;
	bool changed;

	for (unsigned i = 0; i < SHIMTOP_SIGNALS_SLOTS && n < ST_OBS_MAX_THREADS; i++) {
		uint32_t t = s->slot[i].tid;

		if (t) {
			tid[n] = t;
			found[n++] = &s->slot[i];
		}
	}
	changed = n != l->nthreads ||
		  memcmp(found, l->slot, n * sizeof(found[0])) ||
		  memcmp(tid, l->tid, n * sizeof(tid[0]));
	memcpy(l->slot, found, n * sizeof(found[0]));
	memcpy(l->tid, tid, n * sizeof(tid[0]));
	l->nthreads = n;
	return changed;
}

/* ---- batches ---- */

static void batch_begin(struct loop *l, const uint64_t *carry)
{
	struct st_observe *r = l->rec;

	memset(r, 0, sizeof(*r));
	r->h.type = ST_REC_OBSERVE;
	r->h.source = ST_SOURCE_OBSERVER;
	r->pid = (uint32_t)l->o->cfg.pid;
	r->seq = l->seq;
	r->nthreads = (uint8_t)l->nthreads;
	r->ncounters = (uint8_t)l->ncounters;
	if (l->o->cfg.nvars)
		r->tid[0] = (uint32_t)l->o->cfg.pid;
	else
		for (unsigned t = 0; t < l->nthreads; t++)
			r->tid[t] = l->tid[t];
	l->n = 0;
	l->next = r->data;
	r->flags = l->flags;
	if (carry) {
		memmove(r->data, carry, l->words * sizeof(uint64_t));
		r->flags |= ST_OBS_CONTINUES;
		l->n = 1;
		l->next += l->words;
	}
	l->batch_tsc = tsc_end();
}

/* Ships the batch; the next one continues from its last sample. */
static void batch_flush(struct loop *l, bool carry)
{
	struct st_observe *r = l->rec;
	uint64_t last[2 + ST_OBS_MAX_THREADS * (ST_OBS_MAX_COUNTERS + 2)];
	unsigned fresh = l->n - ((r->flags & ST_OBS_CONTINUES) ? 1 : 0);

	if (fresh) {
		r->nsamples = (uint16_t)l->n;
		r->tsc_hz = l->tsc_hz;
		r->tsc_base = l->clock.origin.tsc;
		r->mono_base = l->clock.origin.mono;
		r->h.size = (uint32_t)(sizeof(*r) + l->n * l->words * sizeof(uint64_t));
		ring_push(l->o->base.ring, r, r->h.size);
		l->seq++;
	}
	if (carry && l->n) {
		memcpy(last, l->next - l->words, l->words * sizeof(uint64_t));
		batch_begin(l, last);
	} else {
		batch_begin(l, NULL);
	}
}

static void layout(struct loop *l)
{
	const struct observer_config *c = &l->o->cfg;

	if (c->nvars) {
		l->nthreads = 1;
		l->ncounters = l->meta.ncounters;
	} else {
		l->ncounters = l->meta.ncounters;
	}
	l->head = st_observe_head(l->flags);
	l->words = st_observe_words(l->nthreads, l->ncounters, l->flags);
	l->cap = (unsigned)((sizeof(l->buf) - sizeof(struct st_observe)) /
			    (l->words * sizeof(uint64_t)));
	if (l->cap > BATCH_SAMPLES)
		l->cap = BATCH_SAMPLES;
}

/* ---- pacing ---- */

static void wait_until(const struct loop *l, uint64_t due)
{
	uint64_t now = tsc_end();

	if (due <= now)
		return;
	if (due - now > cycles_for_ns(l, SLEEP_NS)) {
		/* Long periods sleep (SHIM, ISCA 2015, §4.2), waking early to spin. */
		uint64_t ns = (uint64_t)((double)(due - now) * 1e9 / (double)l->tsc_hz);
		uint64_t wake = st_now_ns() + ns - WAKE_EARLY_NS;
		struct timespec ts = { (time_t)(wake / 1000000000u),
				       (long)(wake % 1000000000u) };

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
	}
	while (tsc_end() < due)
		tsc_pause();
}

/*
 * After a sample: into the batch, through the throttle.  True when the
 * once-a-millisecond housekeeping is due (it also publishes the count).
 */
static inline bool sample_taken(struct loop *l, uint64_t start, uint64_t end,
				uint64_t *housekeep, uint64_t every)
{
	struct observer *o = l->o;
	uint64_t period;

	l->next += l->words;
	l->made++;
	if (++l->n == l->cap)
		batch_flush(l, true);
	period = atomic_load_explicit(&o->period, memory_order_relaxed);
	if (period)
		wait_until(l, start + period);
	if (end < *housekeep)
		return false;
	*housekeep = tsc_end() + every;
	atomic_store_explicit(&o->samples, l->made, memory_order_relaxed);
	return true;
}

/* ---- the loops (SHIM, ISCA 2015, Fig. 2) ---- */

/*
 * Shared memory: counters between the two clock reads, then the tags.
 * x86 keeps loads in program order, so the counters are read in order
 * without fences; lfence after the first rdtscp keeps them inside the
 * bracket.  No system calls here.
 */
static void loop_shared_memory(struct loop *l)
{
	struct observer *o = l->o;
	uint64_t housekeep = 0, rescan = 0, hk = cycles_for_ns(l, HOUSEKEEP_NS);

	scan_slots(l);
	layout(l);
	batch_begin(l, NULL);
	rescan = tsc_end() + cycles_for_ns(l, RESCAN_NS);
	for (;;) {
		uint64_t *p = l->next, start;
		unsigned w = (unsigned)l->head, nt = l->nthreads, nc = l->ncounters;

		start = p[0] = tsc_start();
		if (l->flags & ST_OBS_HARDWARE)
			corewide_read(&l->cw, &p[2]);
		/* The layout of record.h: all counters, then all (tag, depth). */
		for (unsigned t = 0; t < nt; t++)
			for (unsigned c = 0; c < nc; c++)
				p[w++] = l->slot[t]->counter[c];
		p[1] = tsc_end();
		for (unsigned t = 0; t < nt; t++) {
			p[w++] = l->slot[t]->tag;
			p[w++] = l->slot[t]->depth;
		}
		/* Truncated under us: this sample read zeros; keep the rest. */
		if (o->seg.truncated)
			break;
		if (!sample_taken(l, start, p[1], &housekeep, hk))
			continue;
		if (source_thread_stopping(&o->th))
			break;
		calibrate(l);
		if (housekeep > rescan) {
			rescan = housekeep + cycles_for_ns(l, RESCAN_NS);
			send_meta(l, false);
			if (scan_slots(l)) {
				batch_flush(l, false);
				layout(l);
				batch_begin(l, NULL);
				continue;
			}
		}
		if (housekeep - l->batch_tsc > cycles_for_ns(l, FLUSH_NS))
			batch_flush(l, true);
	}
	batch_flush(l, false);
	if (o->seg.truncated) {
		char why[160];

		snprintf(why, sizeof(why), "process %d truncated its signal segment "
			 "/dev/shm%s: observation stopped there", (int)o->cfg.pid,
			 o->seg.name);
		set_finished(o, why, true);
	}
}

/*
 * Variables of an unmodified program: one process_vm_readv per sample
 * reads them all, counters and tag.  Values narrower than 8 bytes land in
 * zeroed words (little-endian: zero-extended).
 */
static void loop_variables(struct loop *l)
{
	struct observer *o = l->o;
	const struct observer_config *c = &o->cfg;
	uint64_t housekeep = 0, hk = cycles_for_ns(l, HOUSEKEEP_NS);
	size_t nv = c->nvars, expect = 0;
	unsigned tag_var = (unsigned)nv;

	layout(l);
	for (size_t i = 0; i < nv; i++) {
		if (c->vars[i].is_tag)
			tag_var = (unsigned)i;
		l->remote[i].iov_base = (void *)(uintptr_t)c->vars[i].address;
		l->remote[i].iov_len = c->vars[i].size;
		expect += c->vars[i].size;
	}
	batch_begin(l, NULL);
	for (;;) {
		uint64_t *p = l->next, *q = p + l->head, start;
		unsigned k = 0;
		ssize_t got;

		/* Counters first, in --signal order, then the tag after them. */
		for (size_t i = 0; i < nv; i++) {
			uint64_t *at = i == tag_var ? &q[l->ncounters] : &q[k++];

			*at = 0;
			l->local[i].iov_base = at;
			l->local[i].iov_len = c->vars[i].size;
		}
		if (tag_var == nv)
			q[l->ncounters] = 0;
		q[1 + l->ncounters] = 0;	/* depth */
		start = p[0] = tsc_start();
		if (l->flags & ST_OBS_HARDWARE)
			corewide_read(&l->cw, &p[2]);
		got = process_vm_readv(c->pid, l->local, nv, l->remote, nv, 0);
		p[1] = tsc_end();
		if (got != (ssize_t)expect) {
			bool gone = got < 0 && errno == ESRCH;
			char why[120];

			if (gone)
				snprintf(why, sizeof(why), "target exited");
			else
				snprintf(why, sizeof(why), "reading the target's variables "
					 "failed: %.60s", got < 0 ? strerror(errno) : "short read");
			batch_flush(l, false);
			atomic_store(&o->samples, l->made);
			set_finished(o, why, !gone);
			return;
		}
		if (!sample_taken(l, start, p[1], &housekeep, hk))
			continue;
		if (source_thread_stopping(&o->th))
			break;
		calibrate(l);
		send_meta(l, false);
		if (housekeep - l->batch_tsc > cycles_for_ns(l, FLUSH_NS))
			batch_flush(l, true);
	}
	batch_flush(l, false);
}

/* A launched program creates its segment once main() runs: wait for it. */
static bool wait_for_segment(struct observer *o)
{
	uint64_t until = st_now_ns() + (uint64_t)(o->cfg.wait_seconds * 1e9);
	char err[512];

	while (!source_thread_stopping(&o->th)) {
		int rc = signal_segment_attach(&o->seg, o->cfg.pid, err, sizeof(err));

		if (rc == 0)
			return true;
		/* Only a segment not created yet is worth waiting for. */
		if (st_now_ns() > until || rc != -ENOENT) {
			set_note(o, err);
			set_finished(o, "observer: no usable signal segment", false);
			return false;
		}
		usleep(1000);
	}
	return false;
}

/*
 * The core's counters, opened here because rdpmc reads the counters of
 * the CPU the observer is pinned to.  Failing, the note says why.
 */
static void open_counters(struct loop *l)
{
	struct observer *o = l->o;
	char why[200];

	if (!o->cfg.open_counters)
		return;
	if (o->cfg.open_counters(&l->cw, why, sizeof(why)) == 0) {
		l->flags |= ST_OBS_HARDWARE | ST_OBS_SELF;
		note_placement(o, "reads the core's cycles and instructions with "
			       "rdpmc (app = core - self)");
	} else {
		char tail[300];

		snprintf(tail, sizeof(tail), "observer reads no hardware counters: "
			 "%.200s; IPC comes from perf group sampling", why);
		note_placement(o, tail);
	}
}

static void *observer_main(void *arg)
{
	struct observer *o = arg;
	struct loop *l = calloc(1, sizeof(*l));
	struct timespec cpu;
	cpu_set_t one;

	if (!l) {
		set_finished(o, "observer: out of memory", true);
		return NULL;
	}
	l->o = o;
	l->rec = (struct st_observe *)l->buf;
	CPU_ZERO(&one);
	CPU_SET(o->cfg.place.observer_cpu, &one);
	if (pthread_setaffinity_np(pthread_self(), sizeof(one), &one) != 0) {
		set_finished(o, "observer: cannot pin to its CPU", true);
		free(l);
		return NULL;
	}
	calibrate_start(l);
	if (!o->cfg.nvars && !o->seg.sig && !wait_for_segment(o)) {
		free(l);
		return NULL;
	}
	open_counters(l);
	send_meta(l, true);
	if (o->cfg.nvars)
		loop_variables(l);
	else
		loop_shared_memory(l);
	atomic_store(&o->samples, l->made);
	calibrate(l);
	if (l->flags & ST_OBS_HARDWARE)
		corewide_close(&l->cw);
	pthread_mutex_lock(&o->lock);
	/* Its own CPU for good: the thread's clock goes with the thread. */
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu) == 0) {
		o->info.cpu_seconds = (double)cpu.tv_sec + (double)cpu.tv_nsec / 1e9;
		o->info.run_seconds = (double)(st_now_ns() - o->started_ns) / 1e9;
	}
	o->info.finished = true;
	if (!o->info.finish_reason[0])
		snprintf(o->info.finish_reason, sizeof(o->info.finish_reason),
			 "observer stopped");
	pthread_mutex_unlock(&o->lock);
	free(l);
	return NULL;
}

/* ---- the source interface ---- */

static int resolve_variables(struct observer *o)
{
	char err[512];

	for (size_t i = 0; i < o->cfg.nvars; i++) {
		if (variable_signal_resolve(o->cfg.pid, &o->cfg.vars[i], err,
					    sizeof(err)) < 0) {
			st_error("%s", err);
			return -ENOENT;
		}
	}
	return 0;
}

static int observer_start(struct st_source *s)
{
	struct observer *o = (struct observer *)s;
	char err[256];

	int rc;

	if (o->cfg.launched && o->cfg.nvars && (rc = resolve_variables(o)) < 0)
		return rc;
	if (o->cfg.pin_target &&
	    pin_target_threads(o->cfg.pid, o->cfg.place.target_cpu, err,
			       sizeof(err)) < 0) {
		st_error("%s", err);
		return -EPERM;
	}
	o->started_ns = st_now_ns();
	return source_thread_start(&o->th, observer_main, o, "observer");
}

static void observer_stop(struct st_source *s)
{
	struct observer *o = (struct observer *)s;

	source_thread_stop(&o->th, -1);
}

static void observer_info(struct st_source *s, struct st_source_info *out)
{
	struct observer *o = (struct observer *)s;
	uint64_t p = atomic_load(&o->period);

	clockid_t cid;
	struct timespec cpu;

	pthread_mutex_lock(&o->lock);
	*out = o->info;
	pthread_mutex_unlock(&o->lock);
	/* While it runs, its CPU clock read from here (the gauges' own CPU). */
	if (!out->finished && o->th.running &&
	    pthread_getcpuclockid(o->th.thread, &cid) == 0 && clock_gettime(cid, &cpu) == 0) {
		out->cpu_seconds = (double)cpu.tv_sec + (double)cpu.tv_nsec / 1e9;
		out->run_seconds = (double)(st_now_ns() - o->started_ns) / 1e9;
	}
	out->produced = atomic_load(&o->samples);
	out->period = (struct st_period){ p, ST_PERIOD_CYCLES, false };
}

static void observer_destroy(struct st_source *s)
{
	struct observer *o = (struct observer *)s;

	observer_stop(s);
	signal_segment_detach(&o->seg);
	pthread_mutex_destroy(&o->lock);
	free(o);
}

static const struct st_source_ops observer_ops = {
	.start = observer_start,
	.stop = observer_stop,
	.info = observer_info,
	.destroy = observer_destroy,
};

void observer_set_period(struct st_source *s, uint64_t cycles)
{
	struct observer *o = (struct observer *)s;

	atomic_store(&o->period, cycles);
}

uint64_t observer_samples(struct st_source *s)
{
	return atomic_load(&((struct observer *)s)->samples);
}

int observer_configure(const struct observer_request *opt, pid_t pid, bool launched,
		       struct observer_config *cfg)
{
	cpu_set_t allowed;
	char err[512];
	size_t tags = 0;

	memset(cfg, 0, sizeof(*cfg));
	cfg->pid = pid;
	cfg->launched = launched;
	cfg->pin_target = opt->pin_target;
	cfg->period = opt->period;
	cfg->wait_seconds = 5;
	for (size_t i = 0; i < opt->nsignals; i++) {
		if (variable_signal_parse(opt->signals[i], &cfg->vars[i], err,
					  sizeof(err)) < 0) {
			st_error("%s", err);
			return -EINVAL;
		}
		tags += cfg->vars[i].is_tag;
		cfg->nvars++;
	}
	if (tags > 1 || cfg->nvars - tags > ST_OBS_MAX_COUNTERS) {
		st_error("--signal: give at most %u counters and one tag (NAME:tag)",
			 ST_OBS_MAX_COUNTERS);
		return -EINVAL;
	}
	if (sched_getaffinity(pid, sizeof(allowed), &allowed) < 0) {
		int e = errno;

		st_error("cannot read the CPUs process %d may use: %s", (int)pid,
			 strerror(e));
		return -e;
	}
	if (observer_place("", task_last_cpu(pid), &allowed, opt->cpu,
			   &cfg->place, err, sizeof(err)) < 0) {
		st_error("%s", err);
		return -EINVAL;
	}
	{
		struct cpu_facts f;

		cpu_facts_read(&f, "", cfg->place.smt_sibling);
		if (corewide_supported(&f, cfg->no_counters, sizeof(cfg->no_counters)))
			cfg->open_counters = corewide_open;
	}
	return 0;
}

struct st_source *observer_source_create(const struct observer_config *cfg,
					 struct ring *ring, int *status)
{
	struct observer *o = st_xcalloc(1, sizeof(*o));
	char err[512];
	size_t off = 0;

	o->base.ops = &observer_ops;
	o->base.ring = ring;
	o->cfg = *cfg;
	atomic_init(&o->period, cfg->period);
	pthread_mutex_init(&o->lock, NULL);
	o->info.kind = ST_SOURCE_OBSERVER;
	o->info.ipc_cycles = o->info.ipc_instructions = -1;
	if (!cfg->launched) {
		int rc = cfg->nvars ? resolve_variables(o) :
			signal_segment_attach(&o->seg, cfg->pid, err, sizeof(err));

		if (rc < 0) {
			if (!cfg->nvars)
				st_error("%s", err);
			/* A target's refusal is no usage error. */
			*status = rc == -EINVAL ? -EPERM : rc;
			observer_destroy(&o->base);
			return NULL;
		}
	}
	if (cfg->nvars) {
		for (size_t i = 0; i < cfg->nvars && off < sizeof(o->info.events); i++)
			off += (size_t)snprintf(o->info.events + off,
						sizeof(o->info.events) - off, "%s%s%s",
						i ? "," : "", cfg->vars[i].name,
						cfg->vars[i].is_tag ? ":tag" : "");
	} else {
		snprintf(o->info.events, sizeof(o->info.events), "signal segment");
	}
	note_placement(o, cfg->open_counters ? "opening core-wide counters" :
		       cfg->no_counters);
	return &o->base;
}
