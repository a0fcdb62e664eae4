/*
 * offcpu.h - off-CPU time (--off-cpu): where a thread left its CPU and
 * for how long.  sched:sched_switch, sampled on each of the target's
 * threads, gives the chain where it blocked and its state (prev_state);
 * the event's switch records (attr.context_switch) say when the thread
 * ran again.  Under the kernel's walker the software event
 * context-switches takes the chain instead, and a switch it let out with
 * its copy has its state told in a switch record beside it.  The pairs
 * here join the two, in time order, into one sample whose period is the
 * time off the CPU.
 */
#ifndef SHIMTOP_OFFCPU_H
#define SHIMTOP_OFFCPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Its samples' event, as perf record --off-cpu names its own. */
#define OFFCPU_EVENT	"offcpu-time"

/* The tracepoint on this kernel: its id and where prev_state lies in its raw data. */
struct offcpu_tracepoint {
	uint64_t id;
	uint32_t state_at, state_size;
};

/*
 * Reads sched_switch's id and format from tracefs (root's /sys/kernel/tracing,
 * or debugfs's), mounting root's when it is not.  0, or -errno with why (what
 * is missing, what to do) in why.
 */
int offcpu_tracepoint_find(const char *root, struct offcpu_tracepoint *tp, char *why,
			   size_t len);

struct offcpu_held;
struct offcpu_told;
struct offcpu_waker;

struct offcpu_pairs {
	struct offcpu_held *held;	/* by tid: its switch-out, waiting for it to run */
	struct offcpu_told *told;	/* by tid: a switch's state, its sample to come */
	struct offcpu_waker *wakers;	/* by tid: its waker as last sent */
	size_t nheld, held_bytes;
	uint64_t paired;		/* off-CPU samples passed on, whole */
	uint64_t split;			/* pieces of waits still going on, passed on */
	uint64_t unpaired;		/* switch-outs never seen to end (lost records, a full table) */
	uint64_t woken;			/* of the paired, those whose waker was seen */
};

typedef void (*offcpu_emit_fn)(void *arg, const void *rec, size_t len);

/*
 * One record, in time order: an off-CPU sample is held (its reason, if
 * ST_SAMPLE_TOLD_APART, the one an ST_SWITCH_TOLD record of its thread
 * stamped within a millisecond gives, before it or after, before it ran
 * again; "other" if none does); a switch in (or
 * any other sample of its thread) passes it on with period = the time
 * between, stamped when the thread ran again, ST_SAMPLE_WAITED.  A switch
 * never seen to end (its thread's next switch out came first, it exited)
 * is passed on weighing nothing (period 1), and counted unpaired: every
 * sample counts.  Switch records go no further; every other record passes
 * on unchanged.  A wakeup (ST_REC_WAKE) names the thread's waker from
 * then on (the kernel sends one only where it changes, and an exit
 * forgets it): each wait it ends but a preemption's has its waker
 * passed on right before it, stamped as it, with the wait's whole time
 * in waited.  Wakeups go no further otherwise.
 */
void offcpu_pairs_take(struct offcpu_pairs *p, const void *rec, size_t len, offcpu_emit_fn emit,
		       void *arg);

/*
 * Waits going on for at least min_ns by time upto (every record up to it
 * taken) are passed on up to it, and held from it on: a thread blocked
 * for minutes shows as it blocks, not when it wakes.
 */
void offcpu_pairs_split(struct offcpu_pairs *p, uint64_t upto, uint64_t min_ns,
			offcpu_emit_fn emit, void *arg);

void offcpu_pairs_free(struct offcpu_pairs *p);

#endif
