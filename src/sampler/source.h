/*
 * source.h - the interface every sampling source implements (the perf
 * sampler, replay; later the SHIM observer and IBS).  A source runs its
 * own thread and pushes records (record.h) into its own ring; it never
 * waits for the consumer.
 */
#ifndef SHIMTOP_SOURCE_H
#define SHIMTOP_SOURCE_H

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "ring/record.h"

/*
 * Stack copies past this many bytes a second: the kernel's walker is
 * still being taught (a program's first second lets every sample out
 * with its copy; then tens a second, for code first run), and the
 * sampler and the front keep their short passes, each of which teaches.
 */
#define ST_COPIES_FLOW_BYTES	(2u << 20)
#include "ring/record_file.h"
#include "sampler/events.h"

struct ring;

/* "perf", "replay", "observer" ("" for none). */
const char *source_kind_name(enum st_source_kind k);

struct st_period {
	uint64_t value;
	enum st_period_unit unit;
	bool randomized;		/* varied by +/-3% (DCPI, TOCS 1997, §4.1.1) */
};

/* The unit's name for JSON: "ns", "events", "Hz", "cycles", "unknown". */
const char *period_unit_name(enum st_period_unit u);

/* For people: "250000 ns +/-3%", "4000 Hz", "as fast as possible". */
void period_format(const struct st_period *p, char *buf, size_t len);

/* What the header shows about a source; copied out under its lock. */
struct st_source_info {
	enum st_source_kind kind;
	char events[160];		/* "cpu-clock", "cycles,instructions" */
	struct st_period period;
	char note[2048];		/* e.g. why IPC is unavailable; a perf.data's command, whole */
	char walk_note[192];		/* why stacks are not walked in the kernel, if wanted */
	char counters[ST_MAX_EVENTS][64]; /* names of the sample counters */
	int ncounters;
	int ipc_cycles;			/* counter index, or -1 */
	int ipc_instructions;		/* counter index, or -1 */
	char sampled[ST_MAX_SAMPLED][64]; /* -e a,b: the events sampled each */
	int nsampled;			/* 0, or 2..ST_MAX_SAMPLED */
	uint64_t kernel_lost;		/* samples the kernel dropped */
	uint64_t records_skipped;	/* a file's records of kinds not read (perf.data) */
	uint64_t samples_left_out;	/* a file's samples of events not read (-e chose one) */
	/*
	 * The check of a period change: the period the latest sample was
	 * taken with (ns or events; 0: none yet, or a kernel-kept frequency
	 * on a counting event, whose samples' periods vary), and when the
	 * period shown was asked for (CLOCK_MONOTONIC ns; 0: at the start).
	 */
	uint64_t period_seen;
	uint64_t period_expected;	/* what period_seen should be; 0: no check */
	uint64_t period_asked_ns;
	uint64_t throttled;		/* times the kernel throttled us */
	uint64_t offcpu_unpaired;	/* switches whose end was never seen (records lost) */
	uint64_t offcpu_before;		/* threads found waiting as off-CPU sampling began */
	bool offcpu_wakers;		/* who woke each wait is seen (the kernel's walker) */
	bool switches_counted;		/* a perf.data's sched_switch samples are samples, not waits */
	/*
	 * Live threads sampled through copies of their parent's events (born
	 * since attach, with inherit): their period is the one drawn at their
	 * birth, never varied +/-3%; a period change reopens them as our own.
	 */
	uint64_t period_fixed_threads;
	unsigned stack_copy;		/* bytes of user stack each sample carries */
	bool kernel_excluded;		/* no sample is taken in the kernel */
	uint64_t stack_copied;		/* bytes of stack copies the kernel gave */
	uint64_t stack_kept;		/* of them, passed on (cut to what walks read) */
	uint64_t produced;		/* samples made (observer) */
	double cpu_seconds;		/* the observer thread's CPU time ... */
	double run_seconds;		/* ... over how long it has run (0: unknown) */
	/*
	 * Every record stamped up to this time (CLOCK_MONOTONIC ns) is in the
	 * ring: a reader merging another stream by time waits for it.  0: not
	 * yet; UINT64_MAX: all of them.
	 */
	uint64_t complete_ns;
	bool finished;			/* target gone / stream ended */
	bool failed;			/* ended by bad input (corrupt file) */
	char finish_reason[320];
};

/*
 * The thread a source samples on: started once, told to stop by a flag
 * it polls (and, where it sleeps in poll(), a byte on wake_fd).
 */
struct source_thread {
	pthread_t thread;
	bool running;
	atomic_bool stop;
};

/* 0, or -errno after "cannot start the WHAT thread". */
int source_thread_start(struct source_thread *t, void *(*fn)(void *),
			void *arg, const char *what);

/* Raises the flag, writes a byte to wake_fd (-1: none), joins. */
void source_thread_stop(struct source_thread *t, int wake_fd);

static inline bool source_thread_stopping(struct source_thread *t)
{
	return atomic_load_explicit(&t->stop, memory_order_relaxed);
}

struct st_source;

struct st_source_ops {
	int (*start)(struct st_source *s);
	void (*stop)(struct st_source *s);
	void (*info)(struct st_source *s, struct st_source_info *out);
	void (*destroy)(struct st_source *s);
	/*
	 * Optional: asks for a new sampling period (in the unit info's
	 * period has; Hz for a frequency) and randomization (-1: as it is),
	 * applied by the source's own thread soon after.  Returns 0, or
	 * -ERANGE / -ENOTSUP after filling why.
	 */
	int (*set_period)(struct st_source *s, uint64_t value, int randomize,
			  char *why, size_t len);
	/*
	 * Optional: samples carry stack_copy bytes of user stack from now
	 * on, beside the kernel's chain (--call-graph auto), applied by the
	 * source's own thread (info's stack_copy says when).  0, or -errno
	 * after filling why.
	 */
	int (*set_unwind)(struct st_source *s, unsigned stack_copy, char *why, size_t len);
	/*
	 * Optional: off-CPU samples (--off-cpu) from now on, one more event
	 * sampled on its own, applied by the source's own thread (info's
	 * sampled names say when).  0, or -errno after filling why.
	 */
	int (*set_offcpu)(struct st_source *s, char *why, size_t len);
	/*
	 * Optional: the front has read the ring once.  A replay at the
	 * recorded speed starts its clock here, so that its start is on
	 * screen rather than spent while the screen was set up.
	 */
	void (*front_reading)(struct st_source *s);
};

struct st_source {
	const struct st_source_ops *ops;
	struct ring *ring;
};

static inline int source_start(struct st_source *s)
{
	return s->ops->start(s);
}

static inline void source_front_reading(struct st_source *s)
{
	if (s->ops->front_reading)
		s->ops->front_reading(s);
}

static inline void source_stop(struct st_source *s)
{
	s->ops->stop(s);
}

static inline void source_info(struct st_source *s, struct st_source_info *out)
{
	s->ops->info(s, out);
}

static inline int source_set_period(struct st_source *s, uint64_t value,
				    int randomize, char *why, size_t len)
{
	if (!s->ops->set_period) {
		snprintf(why, len, "this source's period cannot change");
		return -ENOTSUP;
	}
	return s->ops->set_period(s, value, randomize, why, len);
}

static inline int source_set_unwind(struct st_source *s, unsigned stack_copy,
				    char *why, size_t len)
{
	if (!s->ops->set_unwind) {
		snprintf(why, len, "this source takes no stack copies");
		return -ENOTSUP;
	}
	return s->ops->set_unwind(s, stack_copy, why, len);
}

static inline int source_set_offcpu(struct st_source *s, char *why, size_t len)
{
	if (!s->ops->set_offcpu) {
		snprintf(why, len, "this source takes no off-CPU samples");
		return -ENOTSUP;
	}
	return s->ops->set_offcpu(s, why, len);
}

static inline void source_destroy(struct st_source *s)
{
	if (s)
		s->ops->destroy(s);
}

/* A record file's header fields that describe this source. */
void record_header_from_info(struct st_file_header *h, const struct st_source_info *in, int pid,
			     const char *comm);

#endif
