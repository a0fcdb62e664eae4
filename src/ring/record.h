/*
 * record.h - the records every source produces and the model consumes.
 *
 * One format serves the ring, the record file and replay, so a recorded
 * stream is exactly what the model saw live.  Every record starts with
 * struct st_header; `size` covers the whole record and is a multiple of 8.
 * New kinds of sample (observer, IBS ops) get new types; readers skip
 * types they do not know, so old readers survive new files.
 */
#ifndef SHIMTOP_RECORD_H
#define SHIMTOP_RECORD_H

#include <stddef.h>
#include <stdint.h>

/* The most counters a sample carries, and events sampled each on its own (-e a,b). */
#define ST_MAX_EVENTS 8
/*
 * Sampled events: 8 (perf 3.4's files hold six).  Each costs 8 bytes in
 * every process's row and thread (100,000 processes: 1.6 MB an event),
 * so not the 16 a sample's 4 event bits could say.
 */
#define ST_MAX_SAMPLED 8

/* How a period is counted (a record file's header says it). */
enum st_period_unit {
	ST_PERIOD_UNKNOWN,
	ST_PERIOD_NS,			/* a clock event: ns between samples */
	ST_PERIOD_EVENTS,		/* a counting event: events between */
	ST_PERIOD_HZ,			/* a frequency the kernel keeps (-F) */
	ST_PERIOD_CYCLES,		/* TSC cycles (observer); 0: no pause */
};

enum st_record_type {
	ST_REC_SAMPLE = 1,	/* struct st_sample */
	ST_REC_MMAP = 2,	/* struct st_mmap */
	ST_REC_COMM = 3,	/* struct st_comm */
	ST_REC_FORK = 4,	/* struct st_task */
	ST_REC_EXIT = 5,	/* struct st_task */
	ST_REC_LOST = 6,	/* struct st_lost: the kernel dropped samples */
	ST_REC_THROTTLE = 7,	/* struct st_lost: the kernel throttled */
	ST_REC_OBSERVE = 8,	/* struct st_observe: observer samples */
	ST_REC_OBSERVE_META = 9, /* struct st_observe_meta: what they hold */
	ST_REC_EXEC = 10,	/* struct st_comm: the process exec'd a new image */
	ST_REC_IBS = 11,	/* struct st_ibs: an AMD IBS op or fetch sample */
	ST_REC_SWITCH = 12,	/* struct st_switch: a thread left or took a CPU */
	ST_REC_WAKE = 13,	/* struct st_wake: who woke the off-CPU wait after it */
};

/*
 * Which source produced a record (st_header.source), and which kind a
 * source is (st_source_info.kind).  A replay hands on the records of the
 * source it recorded, so ST_SOURCE_REPLAY is never in a record.
 */
enum st_source_kind {
	ST_SOURCE_NONE = 0,
	ST_SOURCE_PERF = 1,
	ST_SOURCE_OBSERVER = 2,
	ST_SOURCE_IBS = 3,
	ST_SOURCE_REPLAY = 4,
};

struct st_header {
	uint16_t type;
	uint16_t source;
	uint32_t size;
};

enum st_cpumode {
	ST_MODE_USER = 0,
	ST_MODE_KERNEL = 1,
};

/* Set in st_sample.flags. */
#define ST_SAMPLE_MULTIPLEXED	0x1u	/* counters did not run the whole interval */
#define ST_SAMPLE_HAS_COUNTERS	0x2u	/* data[0..1] are cycles and instructions */
#define ST_SAMPLE_CHAIN_TRUNC	0x4u	/* the kernel cut the call chain short */
#define ST_SAMPLE_HAS_STACK	0x8u	/* a struct st_stack follows the chain */
#define ST_SAMPLE_KERNEL_WALKED	0x10u	/* the user chain was walked by CFI in the kernel */
#define ST_SAMPLE_CHECK_ONLY	0x20u	/* a kernel walk to check against the copy after it */
#define ST_SAMPLE_WAITED	0x40u	/* off-CPU: its period is its wait (paired, or BPF's) */
/* ... a second's piece of a wait still going on: its time, not another wait */
#define ST_SAMPLE_WAIT_GOES_ON	0x80u
/* Which of the events sampled each on its own (-e a,b) took it: 0..15. */
#define ST_SAMPLE_EVENT_SHIFT	8u
#define ST_SAMPLE_EVENT_MASK	0xf00u
#define ST_SAMPLE_EVENT(flags)	(((flags) & ST_SAMPLE_EVENT_MASK) >> ST_SAMPLE_EVENT_SHIFT)
/*
 * An off-CPU sample (--off-cpu): its chain is where the thread left the
 * CPU, these bits why it left (enum st_offcpu_reason, from the thread's
 * state at the switch); with ST_SAMPLE_WAITED its period is the ns until
 * it ran again, before that (a switch, not yet paired) 1.
 */
#define ST_SAMPLE_OFFCPU_SHIFT	12u
#define ST_SAMPLE_OFFCPU_MASK	0x7000u
#define ST_SAMPLE_OFFCPU(flags)	(((flags) & ST_SAMPLE_OFFCPU_MASK) >> ST_SAMPLE_OFFCPU_SHIFT)
/*
 * In the sampler alone: an off-CPU sample whose reason comes in an
 * ST_SWITCH_TOLD record beside it (the kernel's walker let it out).
 */
#define ST_SAMPLE_TOLD_APART	0x8000u
/*
 * --call-graph lbr: chain[0] is the call stack's leaf (its newest call's
 * target), which perf's chains show, not the ip: a precise event's ip is
 * the call instruction the branch records already hold as retired.
 */
#define ST_SAMPLE_LBR_LEAF	0x10000u
/*
 * Its stack copy left out by the sampler, the session ring too full to
 * take it whole (a front still starting behind a 10 kHz stream of 16
 * KiB copies): counted, its callers cut short (ST_SAMPLE_CHAIN_TRUNC).
 */
#define ST_SAMPLE_COPY_SHED	0x20000u
_Static_assert(ST_MAX_SAMPLED <= (ST_SAMPLE_EVENT_MASK >> ST_SAMPLE_EVENT_SHIFT) + 1,
	       "a sample says which event took it in ST_SAMPLE_EVENT_MASK");
_Static_assert(ST_MAX_SAMPLED == ST_MAX_EVENTS, "-e's one limit, apart or in a group");

/*
 * A sample.  data[] holds ncounters counter deltas for the sampling
 * interval (cycles first, then instructions, then any others), then
 * nchain call-chain addresses, innermost first, without the kernel's
 * context markers.
 */
struct st_sample {
	struct st_header h;
	uint32_t pid;
	uint32_t tid;
	uint64_t time;		/* ns, CLOCK_MONOTONIC (perf's clock) */
	uint64_t ip;
	uint64_t period;	/* events (or ns) this sample stands for */
	uint8_t cpumode;
	uint8_t ncounters;
	uint16_t nchain;
	uint32_t flags;
	uint64_t data[];
};

/* Why a thread left the CPU, as sched_switch's prev_state says. */
enum st_offcpu_reason {
	ST_OFFCPU_NONE = 0,		/* not an off-CPU sample */
	ST_OFFCPU_SLEEP = 1,		/* S: waiting for an event (a timer, a futex, a socket) */
	ST_OFFCPU_DISK = 2,		/* D: uninterruptible, most often I/O */
	ST_OFFCPU_RUNNABLE = 3,		/* R: preempted, waiting for a CPU */
	ST_OFFCPU_STOPPED = 4,		/* T: stopped by a signal or a tracer */
	ST_OFFCPU_OTHER = 5,		/* a state this kernel reports that is none of those */
	ST_OFFCPU_EXITED = 6,		/* its last switch (X, Z): never kept */
	/*
	 * S in the futex system call, found so when off-CPU sampling began:
	 * its wait started before, and its chain holds no kernel frame.
	 */
	ST_OFFCPU_FUTEX = 7,
};

/*
 * A thread switched out of a CPU or onto one (PERF_RECORD_SWITCH).  It
 * pairs off-CPU samples with the moment their thread ran again, in the
 * sampler, and never reaches the ring.
 */
#define ST_SWITCH_OUT		0x1u
#define ST_SWITCH_PREEMPT	0x2u	/* out while runnable */
/* Not the kernel's: the state of a switch whose sample is ST_SAMPLE_TOLD_APART (stamped just before). */
#define ST_SWITCH_TOLD		0x4u

struct st_switch {
	struct st_header h;
	uint32_t pid;
	uint32_t tid;
	uint64_t time;
	uint32_t flags;
	uint32_t reason;	/* ST_SWITCH_TOLD: enum st_offcpu_reason */
};

/*
 * Who woke a thread (--off-cpu with the kernel's walker: sched_waking,
 * run by the waker).  From the kernel each wakeup of a target thread;
 * from the pairing (offcpu.h) one right before the wait it ended, with
 * that wait's whole time, pieces and all.
 */
#define ST_WAKE_INTERRUPT	0x1u	/* from an interrupt (a timer's, a device's): no thread's doing */

struct st_wake {
	struct st_header h;
	uint32_t pid;
	uint32_t tid;		/* the thread woken */
	uint64_t time;
	uint64_t waited;	/* from the pairing: ns since its switch out; else 0 */
	uint32_t waker_pid;
	uint32_t waker_tid;	/* 0 with ST_WAKE_INTERRUPT */
	uint32_t flags;
	uint32_t pad;
	char waker_comm[16];	/* as the kernel had it; not NUL-terminated at 16 */
};

/* An executable mapping.  filename is NUL-terminated, padded to 8. */
struct st_mmap {
	struct st_header h;
	uint32_t pid;
	uint32_t tid;
	uint64_t time;
	uint64_t start;
	uint64_t len;
	uint64_t pgoff;
	char filename[];
};

struct st_comm {
	struct st_header h;
	uint32_t pid;
	uint32_t tid;
	uint64_t time;
	char comm[16];
};

struct st_task {
	struct st_header h;
	uint32_t pid;
	uint32_t tid;
	uint32_t ppid;
	uint32_t ptid;
	uint64_t time;
};

struct st_lost {
	struct st_header h;
	uint64_t count;
	uint64_t time;
};

/*
 * A batch of the SHIM observer's raw samples (SHIM, ISCA 2015, Fig. 2), analysed by
 * the consumer.  data[] holds nsamples samples of
 *     start, end               rdtscp before and after the counters
 *     cycles, instructions     with ST_OBS_HARDWARE only: the target
 *                              core's counts, app = core - self (SHIM, ISCA 2015, §3)
 *     cycles, instructions     with ST_OBS_SELF too: self, the observer's
 *                              own, for the observer-effect display (§4.3)
 *     counter[nthreads][ncounters]   every thread's counters, read
 *                              between the two clock reads
 *     (tag, depth)[nthreads]   read after the second clock read
 * in 64-bit words (st_observe_counters_at, st_observe_tag_at: writer and
 * readers use them, so they cannot disagree).  With ST_OBS_CONTINUES, sample 0 repeats the last
 * sample of batch seq-1, so each batch is complete on its own and a batch
 * the ring dropped costs only its own samples.
 */
#define ST_OBS_MAX_THREADS	8u
#define ST_OBS_MAX_COUNTERS	4u
#define ST_MAX_SIGNALS		5	/* --signal: four counters and a tag */
#define ST_OBS_NAME_LEN		32u
#define ST_OBS_TAG_NAMES	16u
#define ST_OBS_CONTINUES	0x1u
#define ST_OBS_HARDWARE		0x2u
#define ST_OBS_SELF		0x4u	/* only with ST_OBS_HARDWARE */
#define ST_OBS_FLAGS		(ST_OBS_CONTINUES | ST_OBS_HARDWARE | ST_OBS_SELF)

struct st_observe {
	struct st_header h;
	uint32_t pid;
	uint32_t seq;
	uint16_t nsamples;
	uint8_t nthreads;
	uint8_t ncounters;
	uint32_t flags;
	uint64_t tsc_hz;	/* TSC ticks per second, calibrated so far */
	uint64_t tsc_base;	/* a TSC reading ... */
	uint64_t mono_base;	/* ... and CLOCK_MONOTONIC ns at that moment */
	uint32_t tid[ST_OBS_MAX_THREADS];
	uint64_t data[];
};

/* Where thread 0's words begin in a sample. */
static inline size_t st_observe_head(uint32_t flags)
{
	return !(flags & ST_OBS_HARDWARE) ? 2u : (flags & ST_OBS_SELF) ? 6u : 4u;
}

static inline size_t st_observe_words(unsigned nthreads, unsigned ncounters,
				       uint32_t flags)
{
	return st_observe_head(flags) + (size_t)nthreads * (ncounters + 2u);
}

/* Where thread t's counters begin in a sample. */
static inline size_t st_observe_counters_at(uint32_t flags, unsigned ncounters,
					    unsigned t)
{
	return st_observe_head(flags) + (size_t)t * ncounters;
}

/* Where thread t's tag is in a sample; its depth follows. */
static inline size_t st_observe_tag_at(uint32_t flags, unsigned nthreads,
				       unsigned ncounters, unsigned t)
{
	return st_observe_head(flags) + (size_t)nthreads * ncounters + 2u * t;
}

enum st_observe_mode {
	ST_OBS_SHARED_MEMORY = 1,	/* <shimtop/signals.h> slots */
	ST_OBS_VM_READ = 2,		/* --signal: process_vm_readv */
};

/* What the observer reads; sent at start and whenever it changes. */
struct st_observe_meta {
	struct st_header h;
	uint32_t pid;
	uint32_t mode;			/* enum st_observe_mode */
	uint32_t tag_kind;		/* SHIMTOP_TAG_VALUE or _ADDRESS */
	uint32_t ncounters;
	uint64_t period;		/* throttle target, TSC cycles; 0 = none */
	uint32_t cpu;			/* the observer's CPU */
	uint32_t width[ST_OBS_MAX_COUNTERS]; /* counter bits (64 for memory) */
	uint32_t reserved;
	char tag_name[ST_OBS_NAME_LEN];
	char counter_name[ST_OBS_MAX_COUNTERS][ST_OBS_NAME_LEN];
	char tag_value_name[ST_OBS_TAG_NAMES][ST_OBS_NAME_LEN];
};

/*
 * An AMD IBS sample: the registers of perf's raw sample as they came
 * (sampler/ibs.h names them), decoded by the model with the family and
 * model of the CPU that took it, so a recording decodes the same on any
 * machine.  ip is perf's: the op's RIP when the hardware gave a valid
 * one, else where the interrupt landed.  period: ops (or cycles) per
 * sample.  The register count must be what caps promises: the model
 * checks, as it checks everything a record file holds.
 */
#define ST_IBS_MAX_REGS		9u
#define ST_IBS_OP_KIND		0u	/* kind: ibs_op */
#define ST_IBS_FETCH_KIND	1u	/* kind: ibs_fetch */

struct st_ibs {
	struct st_header h;
	uint32_t pid;
	uint32_t tid;
	uint64_t time;
	uint64_t ip;
	uint64_t period;
	uint32_t caps;		/* CPUID Fn8000_001B EAX, as the kernel read it */
	uint8_t kind;
	uint8_t nregs;
	uint8_t cpumode;
	uint8_t family;		/* CPUID family and model of the sampled CPU */
	uint8_t model;
	uint8_t flags;		/* ST_IBS_HAS_STACK */
	uint8_t pad[2];
	uint32_t cpu;
	uint64_t reg[];
};

/* A struct st_stack (--call-graph dwarf, callerchain) follows the registers. */
#define ST_IBS_HAS_STACK	0x1u

/* The largest record a source may produce (a deep chain fits). */
#define ST_RECORD_MAX	(64u * 1024u)
#define ST_CHAIN_MAX	1024u

static inline size_t st_align8(size_t n)
{
	return (n + 7u) & ~(size_t)7u;
}

static inline const uint64_t *st_sample_chain(const struct st_sample *s)
{
	return s->data + s->ncounters;
}

/*
 * With ST_SAMPLE_HAS_STACK (--call-graph dwarf, callerchain): the user
 * registers an unwinder starts from and size bytes of the user stack from
 * sp up, padded to 8, after the chain.  base is the top of the mapping
 * that holds sp, read by the sampler when the thread was new: stack
 * depths (CallerChaining) count down from it; 0 if unknown.
 */
struct st_stack {
	uint64_t ip, sp, bp;
	uint64_t base;
	uint32_t size;
	uint32_t pad;
	unsigned char bytes[];
};

static inline const struct st_stack *st_sample_stack(const struct st_sample *s)
{
	return (const struct st_stack *)(const void *)(st_sample_chain(s) + s->nchain);
}

static inline const struct st_stack *st_ibs_stack(const struct st_ibs *b)
{
	return (const struct st_stack *)(const void *)(b->reg + b->nregs);
}

/*
 * Checks a record's header against the bytes that hold it; returns its
 * size, or 0 when the header is malformed.  Used by every reader of
 * untrusted bytes (record files) before touching the body.
 */
size_t st_record_check(const void *rec, size_t avail);

/* A checked record's time (ns), or 0 for records without one (LOST). */
uint64_t st_record_time(const void *rec);

/*
 * Builds an ST_REC_MMAP record of pid's mapping of path in buf (room
 * bytes).  Returns its size, or 0 if it does not fit.
 */
size_t st_mmap_make(void *buf, size_t room, uint32_t pid, uint64_t time,
		    uint64_t start, uint64_t len, uint64_t pgoff,
		    const char *path);

#endif
