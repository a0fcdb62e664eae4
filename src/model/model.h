/*
 * model.h - aggregation of the record stream: per-symbol totals, per
 * thread totals, a sample-rate timeline, and the counters that say how
 * far the numbers can be trusted (lost, unknown, multiplexed).
 * Single-threaded: only the consumer of the rings touches it.
 */
#ifndef SHIMTOP_MODEL_H
#define SHIMTOP_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <uthash.h>

#include "model/callerchain.h"
#include "model/callers_seen.h"
#include "model/paths_seen.h"
#include "model/cct.h"
#include "sampler/kernel_walk_abi.h"
#include "model/history.h"
#include "model/ibs_model.h"
#include "model/obs_model.h"
#include "index.h"
#include "model/sort.h"
#include "ring/record.h"	/* ST_MAX_SAMPLED */

struct symbolizer;
struct st_symbol;

/*
 * A table's rows are values: a view draws them until its next requery
 * while the model goes on (threads exit and are forgotten, arrays grow
 * and move, z frees the rows), so a row holds no pointer into the
 * model.  Its symbol is the symbolizer's, interned for the symbolizer's
 * life; its IBS figures and event shares are copies in the rows' own
 * allocation.
 */
struct model_row {
	const struct st_symbol *sym;
	pid_t pid;		/* rows split by process: its id, else 0 */
	char comm[16];		/* and its command (by process or command), else "" */
	/* Rows split by command: the processes it holds; by process, a folded row's. */
	uint32_t processes;
	uint64_t samples;
	uint64_t weight;	/* sum of sample periods */
	double self;		/* share of all weight, 0..100 */
	double ipc;		/* NAN when no counters were read */
	/* -e a,b: the share of each event sampled (self is the shown one's), else NULL. */
	const double *event_share;
	const struct ibs_stats *ibs;	/* the symbol's IBS figures (the rows' copy), or NULL */
	double waited_under;	/* --off-cpu: seconds waits spent under it (NAN without) */
	/* And its wall time: on a CPU under it (a clock event's ns) and waiting (NAN: unknown). */
	double wall;
	/* TOTAL%: the share of samples through it, callees' too, by function (NAN: unknown). */
	double through;
};

/* Rows by a key of two words: the index's values are places in rows (NULL: deleted). */
struct model_rows {
	struct st_index index;
	void **rows;
	size_t n, cap, dead;
};

/*
 * One thread's samples of one symbol: in the model's one table by (tid,
 * symbol) and in its thread's list (a table per thread would cost its
 * bucket array for each of 100,000 one-sample processes).
 */
struct model_thread_sym {
	struct model_thread_sym_key {
		pid_t tid;
		uint32_t id;		/* st_symbol.id */
	} key;
	uint64_t samples;
	struct model_thread_sym *next;	/* the thread's next */
	uint32_t at;			/* its place in the model's thread_rows */
};

/*
 * Totals of one symbol (of all processes, or of one).  With events
 * sampled each on its own (-e a,b) their periods are of different units:
 * each event's weight is kept apart, and shares are of the shown event.
 */
struct model_sym {
	uint64_t samples, weight;
	uint64_t cycles, instructions;
	uint64_t event_weight[ST_MAX_SAMPLED];
};

/*
 * One process's samples of one symbol: the rows of -s comm/pid and the
 * per-process table.  Kept after the process exits (its samples count);
 * past MODEL_GONE_ROWS_MAX rows of processes forgotten after their exit,
 * the oldest such process's rows are folded into its command's (a pid of
 * its own below 0, MODEL_FOLDED_PID), so a host whose processes churn
 * for hours holds rows by command, not by process.
 */
struct model_proc_sym {
	UT_hash_handle hh;
	struct model_proc_sym_key {
		pid_t pid;
		uint32_t id;		/* st_symbol.id */
	} key;
	struct model_sym totals;
	char comm[16];			/* the process's command at its last sample */
	struct model_proc_sym *next;	/* its process's next */
	uint32_t at;			/* its place in the model's proc_rows */
};
#define MODEL_GONE_ROWS_MAX	65536u
/* A command's folded processes have a pid of their own: this and below. */
#define MODEL_FOLDED_PID	(-2)
/* The command of the stand-in every command folds into past the bound. */
#define MODEL_ANY_COMMAND	"[any command]"

/*
 * A process that had samples: its threads that did, forgotten ones too
 * (the table's THREADS), its rows, and for a command's folded stand-in
 * the processes folded into it.
 */
struct model_process {
	pid_t pid;
	uint32_t threads;
	struct model_proc_sym *syms;
	uint32_t nsyms;
	uint32_t folded;
	bool folded_away;	/* folded into its command's: dropped at the next compaction */
};

/*
 * Samples in anonymous code that no JIT map named when they came
 * (model_jit.c), summed by kind: process, thread, address, tree node and
 * event.  A map that appears or changes later (a JVM's, written mid-run
 * or at its exit) names them in every table, the tree's leaves and the
 * history.  Bounded: past MODEL_JIT_MAX kinds a sample stays unknown,
 * counted in unkept.
 */
#define MODEL_JIT_MAX		65536u
#define MODEL_JIT_PASS_NS	2000000000ull	/* a look at the maps at least this often */
struct model_jit_kind {
	pid_t pid, tid;
	uint64_t ip;
	uint32_t node;			/* the tree node it ended in */
	uint32_t sym;			/* the unknown symbol it counts under */
	int32_t event;			/* -e a,b: its event, or -1 */
	uint32_t offset;		/* named: bytes into its function */
	uint64_t n, weight, cycles, instructions;
	bool named;
};

struct model_jit {
	struct model_jit_kind *v;
	size_t n, cap;
	struct st_index index;		/* (pid:tid, ip ^ node:event) -> v's entry + 1 */
	unsigned loads_seen;		/* symbolizer_jit_loads at the last pass */
	uint64_t last_pass;		/* record time */
	uint64_t waiting;		/* kinds not named yet */
	uint64_t named, unkept;		/* samples named late; not kept to be */
};

/* A row of the per-process table (top's default view); a value, as model_row. */
struct model_process_row {
	pid_t pid;			/* below 0: a command's folded processes */
	uint32_t exited;		/* ... how many */
	char comm[16];
	uint64_t samples, weight;
	double share;			/* of all weight, 0..100 */
	double ipc;			/* NAN when no counters were read */
	size_t threads;			/* threads that had samples, exited ones too */
	const struct st_symbol *top;	/* its heaviest symbol */
};

/*
 * Why a thread waited (--off-cpu), as its tables show: sched_switch's
 * state, and a sleep whose chain passes the kernel's futex code a lock.
 */
enum model_wait {
	MODEL_WAIT_SLEEP,		/* S, not on a futex */
	MODEL_WAIT_LOCK,		/* S in a futex wait: a mutex, a condition */
	MODEL_WAIT_DISK,		/* D: uninterruptible, mostly I/O */
	MODEL_WAIT_CPU,			/* R: preempted, runnable, waiting for a CPU */
	MODEL_WAIT_OTHER,		/* stopped, or a state none of those */
	MODEL_WAITS
};

struct model_thread {
	UT_hash_handle hh;
	pid_t tid;
	pid_t pid;			/* its process, once a sample says */
	char comm[16];
	uint64_t samples, weight;
	uint64_t cycles, instructions;
	uint64_t event_weight[ST_MAX_SAMPLED];
	uint64_t waited[MODEL_WAITS];	/* --off-cpu: ns off its CPU, by why */
	struct model_thread_sym *syms;	/* its list */
	bool exited;
};

/* Who woke waits (--off-cpu, with the kernel's walker): a waker and the waits it ended. */
struct model_waker {
	pid_t tid, pid;		/* tid 0: interrupts (a timer's, a device's), no thread */
	pid_t woken;		/* each_thread: the thread it woke; else 0 */
	char comm[16];		/* "" where not kept */
	uint64_t ns, waits;	/* the waits' whole time, and how many */
};

/*
 * A row of the per-thread table (tiptop's and top's H): a value, as
 * model_row (the thread itself is freed a second after it exits).
 */
struct model_thread_row {
	pid_t tid, pid;
	char comm[16];
	uint64_t samples;
	double share;			/* of all weight, 0..100 */
	double ipc;			/* NAN when no counters were read */
	const struct st_symbol *top;	/* its heaviest symbol, or NULL */
	bool exited;
	/* --off-cpu, seconds (NAN without): on a CPU, off it by why, and both. */
	double on_cpu, waited[MODEL_WAITS], wall;
	/* Who woke its waits the longest (woken: one is known), and how long. */
	bool woken;
	struct model_waker woke_most;
};

/* One of a thread's heaviest symbols. */
struct model_thread_top {
	const struct st_symbol *sym;
	uint64_t samples;
	double share;			/* of the thread's samples, 0..100 */
};

/*
 * An exited process or thread is forgotten FORGET_NS of record time
 * after its exit record (samples drained from other CPUs' buffers after
 * it still count), or when EXITS_KEPT exits wait: a forking target's
 * children cost nothing once gone.
 */
#define MODEL_FORGET_NS	1000000000ull
#define MODEL_EXITS_KEPT 1024u
#define MODEL_RECORDED_THREADS 4096u	/* a recording's threads kept after they exited */
/* CallerChaining's default stack window: --call-graph callerchain's copy. */
#define MODEL_CHAIN_WINDOW 2048u

/*
 * A sample of a process not known yet (its FORK record is still in
 * another CPU's buffer) waits up to HOLD_NS of record time for it, so it
 * resolves through the map the child inherited.  At most HOLD_MAX wait.
 */
#define MODEL_HOLD_NS	100000000ull
#define MODEL_HOLD_MAX	4096u

#define MODEL_BUCKET_NS 100000000ull	/* timeline resolution: 100 ms */

/* How far ahead model_prefetch runs (model_prefetch), and the keys it keeps: twice that. */
#define MODEL_PREFETCH_AHEAD	8u
#define MODEL_KEY_MEMO		(2 * MODEL_PREFETCH_AHEAD)

struct stack_needs;

struct model {
	struct symbolizer *symbols;
	int ipc_cycles, ipc_instructions;	/* counter indices, -1 if none */
	int nsampled;				/* -e a,b: events sampled each, or 0 */
	int shown_event;			/* whose shares the tables show */
	uint64_t event_samples[ST_MAX_SAMPLED];
	uint64_t event_weight[ST_MAX_SAMPLED];

	uint64_t samples, weight;
	uint64_t unknown;			/* samples with no symbol */
	uint64_t kernel_samples;
	uint64_t kernel_lost, throttled;
	uint64_t copies_shed;		/* samples that came without their stack copy (ST_SAMPLE_COPY_SHED) */
	/*
	 * --off-cpu: ns off the CPU by why, and under each function of the
	 * waits' chains (by symbol id, a function counted once a wait, NULL
	 * before the first); model_offcpu.c.
	 */
	uint64_t waited[MODEL_WAITS];
	uint64_t waits;
	int offcpu_event, clock_event;	/* -e a,b's off-CPU event and clock event (ns), or -1 */
	/* The off-CPU event is offcpu-time: folded stacks weigh it in us (offcputime -f's). */
	bool offcpu_folded_us;
	uint64_t *waited_under;
	uint64_t *ran_under;		/* the clock event's ns on the CPU under it, the same way */
	uint64_t *waited_why;		/* [id * MODEL_WAITS + why]: the same, by why */
	uint32_t *waited_stamp;		/* the wait that last counted a function */
	uint8_t *is_futex;		/* by symbol id: 0 not looked at, 1 no, 2 yes */
	size_t waited_cap;
	uint32_t waited_gen;
	/* Who woke the waits (model_wakers.c): by node, thread and waker; names; the next wait's. */
	struct model_woken *woken;
	struct model_waker_name *waker_names;
	struct st_wake wake_pending;	/* tid 0: none */
	uint64_t woken_waits, woken_ns;	/* the waits whose waker was seen, and their time */
	uint64_t woken_unkept_ns;	/* of it, past the table's bound: in no waker's */
	uint64_t multiplexed;
	uint64_t cycles, instructions;	/* the usable counters' sums (IPC's), of every sample */
	uint64_t chains, chain_frames;
	uint64_t tree_frames, tree_unknown;	/* callers symbolized for the tree; unexplained */
	/*
	 * Frame-pointer chains of user samples, and those whose outermost
	 * frame is no process or thread start (main's caller, start_thread,
	 * clone): code without frame pointers ends them early (model_tree.c).
	 */
	uint64_t fp_user_chains, fp_rootless;
	uint8_t *root_kind;			/* by symbol id: 0 unseen, 1 a start, 2 not */
	size_t root_kind_cap;
	uint64_t first_time, last_time;

	struct model_sym *per_sym;		/* indexed by st_symbol.id */
	size_t per_sym_cap;

	struct model_thread *threads;		/* by tid (uthash) */
	uint64_t gone_threads, gone_samples;	/* exited threads forgotten */
	/*
	 * Processes forgotten after their exit whose rows are still their
	 * own (a queue, oldest first), their rows in all, and those folded
	 * into their command's; by command, its stand-in's pid (uthash).
	 */
	struct model_gone {
		pid_t *v;
		size_t head, n, cap;
		uint64_t rows;
	} gone;
	uint64_t folded_processes;
	uint64_t folded_rows;		/* rows of the commands' stand-ins */
	uint32_t gone_rows_max;		/* 0: MODEL_GONE_ROWS_MAX (model_fit_rows) */
	struct model_folded {
		UT_hash_handle hh;
		char comm[16];
		pid_t pid;
	} *folded;
	pid_t next_folded_pid;
	struct model_proc_sym *proc_syms;	/* by (pid, symbol) (uthash) */
	/* Threads sampled by process: 8 bytes and a slot each (100,000 processes: 2 MB). */
	struct model_process *processes;
	size_t nprocesses, processes_cap;
	struct st_index processes_index;	/* pid -> processes' entry + 1 */
	size_t processes_away;			/* entries folded_away */
	/*
	 * Every sample finds both its rows: through the shared index, whose
	 * slots hold 32 bits of the hash, so a lookup touches the row it
	 * wants and no other (uthash's chains cost a cache miss a link: a
	 * clang++ compile's 3,383 rows in 1,024 buckets, 4% of a session).
	 */
	struct model_rows thread_rows, proc_rows;
	/*
	 * By symbol id: the rows its last sample counted in, and what the
	 * samples since then add to them (pending).  A thread that runs on in
	 * one function finds them with no lookup, and counts in the memo,
	 * not in the two rows: a large program's rows are spread over
	 * memory (a clang++ sample missed the cache on each).  pending goes
	 * into the rows when the memo is another's (model.c memo_flush) and
	 * before a row goes; readers add it (model_proc_sym_totals,
	 * model_thread_sym_samples).  A memo whose thread goes is flushed and
	 * forgotten; rows_gen moves on when every row goes, and a memo of an
	 * older one is stale.
	 */
	struct model_row_memo {
		pid_t tid, pid;
		uint32_t gen, id;		/* id: the symbol's, of the slots id & mask */
		struct model_thread *thread;
		struct model_thread_sym *thread_sym;
		struct model_proc_sym *proc_sym;
		struct model_sym pending;
	} *row_memo;				/* MODEL_ROW_MEMOS slots, made at first */
	size_t row_memo_cap;
	uint32_t rows_gen;
	size_t nthreads;			/* every thread ever seen */
	size_t live_threads;
	uint64_t now;				/* the latest record time */

	struct model_exit {
		pid_t pid, tid;
		uint64_t time;
	} exits[MODEL_EXITS_KEPT];		/* a queue, oldest at exit_head */
	size_t exit_head, nexits;

	struct model_held {
		uint64_t time;
		void *rec;
	} *held;				/* a queue of MODEL_HOLD_MAX */
	size_t held_head, nheld;
	uint64_t held_total;			/* samples ever held */

	uint32_t *timeline;			/* samples per bucket */
	size_t timeline_len, timeline_cap;

	struct obs_model obs;			/* the SHIM observer's samples */
	struct ibs_model ibs;			/* what IBS op samples add */

	struct model_jit jit;			/* anonymous code's samples, to name late */
	bool keep_history;			/* every sample into history */
	/*
	 * A recording's (-i): its threads not seen to exit ran to its end
	 * ("at end", not "live"); how to unwind what frame pointers could not
	 * (NULL: live, "--call-graph auto (the UI's U)").
	 */
	bool recorded;
	const char *unwind_hint;
	/* x or z zeroed the counts: the history's samples before this (record time) are not counted */
	uint64_t zeroed_at;
	struct history history;
	struct cct tree;			/* every sample's call path */
	struct callers_seen callers_seen;	/* chains' callers' nodes in tree */
	struct paths_seen paths_seen;		/* and every path's, root first */
	/*
	 * The callers' keys model_prefetch made, oldest first, for the samples
	 * it fetched for: a deep chain is hashed once, not twice.  Known by
	 * the record's place, time and thread, and good in its generation.
	 */
	struct model_key_memo {
		const void *rec;
		uint64_t time, gen, key;
		uint32_t tid;
	} key_memo[MODEL_KEY_MEMO];
	unsigned key_memo_put, key_memo_take;

	/* --call-graph dwarf and callerchain: stacks unwound here. */
	struct unwinder *unwinder;		/* made for the first stack */
	uint64_t unwound, unwind_cut, unwind_lost;	/* samples, by how the walk ended */
	bool unwind_check;		/* SHIMTOP_UNWIND_CHECK: rows against libdwfl */
	struct stack_needs *stack_needs; /* the walks teach the sampler's cuts (not owned) */
	/*
	 * The kernel's stack walker (sampler/kernel_walk.h): taught by the
	 * walks here (not owned; NULL: none), its chains counted, and with
	 * unwind_check each of its chains kept for the copy of the same
	 * sample and compared with the walk here, frame by frame.
	 */
	const struct unwind_teacher *unwind_teacher;
	uint64_t kernel_walked;			/* samples whose chain the kernel walked */
	uint64_t kernel_walk_counts[KW_COUNTS];	/* the walker's own counts (the session's copy) */
	char kernel_walk_off[192];		/* why not, where stacks are copied ("": it walks) */
	struct kernel_check *kernel_checks;	/* by tid: its latest chain to compare */
	/* By tid: its last chain's path into the tree, where the next one starts (model_tree.c). */
	struct path_memo *path_memos;
	size_t npath_memos, path_memos_max;	/* max 0: PATH_MEMOS_MAX (model_tree_bound) */
	uint64_t kernel_check_same, kernel_check_differ, kernel_check_unmatched;
	/*
	 * CallerChaining's input: every user sample's (function, depth),
	 * quadruples from frames within chain_window bytes of its stack
	 * pointer (what a copy that size unwinds), and its full chain as the
	 * reference.  callerchain_mode: the tree shown is the one rebuilt.
	 */
	struct callerchain chaining;
	uint32_t chain_window;
	bool callerchain_mode;
	/*
	 * --call-graph auto feeds CallerChaining from its stack copies only
	 * once the UI shows its tree (c): fed every unwound sample it cost
	 * 16% of shimtop's CPU on a compile.  dwarf and callerchain feed it
	 * always (their reports measure it).
	 */
	bool chaining_wanted;
	/* Samples whose reference was the kernel's whole chain; the copy unwound. */
	uint64_t chaining_fp_reference, chaining_dwarf_reference;
	/*
	 * --call-graph auto: samples carry the kernel's frame-pointer chain
	 * and a stack copy; the chain is kept where it reaches a process or
	 * thread start, the copy unwound (DWARF) where it stops early.
	 */
	bool unwind_broken;
	uint64_t auto_fp, auto_dwarf;		/* samples, by which was kept */
};

void model_init(struct model *m, struct symbolizer *symbols);

/*
 * Names what JIT maps name now among the samples of anonymous code that
 * waited (model_jit.c); final: read every map again first (the target
 * exited, or a report or snapshot is to be made).  Ingest calls it when
 * a map changed and every MODEL_JIT_PASS_NS.  Returns samples named.
 */
uint64_t model_jit_name(struct model *m, bool final);

/*
 * How samples' stacks feed CallerChaining: quadruples from the window
 * bytes above the stack pointer; rebuilt: the tree shown is CallerChaining's.
 */
void model_set_call_graph(struct model *m, uint32_t window, bool rebuilt);
/* --call-graph auto: frame pointers where the chain is whole, else DWARF. */
void model_set_unwind_broken(struct model *m, bool on);
/*
 * How the stacks were unwound: by the files' rows or by libdwfl, and
 * with the check on, how many walks by rows libdwfl walked alike.
 */
struct unwind_stats;
const struct unwind_stats *model_unwind_stats(const struct model *m);

/*
 * When most frame-pointer chains stop short of a process or thread start
 * (code built without frame pointers, as Debian builds), a line saying so
 * and what unwinds them; false otherwise.
 */
bool model_chain_note(const struct model *m, char *buf, size_t len);
/* ... its part that is a warning: most frame-pointer chains broke, and what unwinds them. */
bool model_chains_broken(const struct model *m, char *buf, size_t len);
/* What unwinds chains frame pointers broke: live, U; a recording, how to record again. */
const char *model_unwind_hint(const struct model *m);

/*
 * cct_links over tree (m's, or a part of it): while most frame-pointer
 * chains broke (model_chains_broken), the callers of a chain that does
 * not start at a start, kernel code or a cut, and that holds a frame no
 * symbol explains, are one CCT_SYM_BROKEN link.
 */
uint64_t model_links(const struct model *m, const struct cct *tree, uint32_t sym,
		     struct cct_link **callers, size_t *ncallers, struct cct_link **callees,
		     size_t *ncallees);

/*
 * A call tree frame's name: its function's, or "[truncated chain]" (in
 * the tree CallerChaining rebuilt: "[callers not seen]"); a broken
 * chain's callers "[callers past a broken chain]".
 */
const char *model_frame_name(const struct model *m, uint32_t sym);
/*
 * The ids of symbols a whole path starts at (main, a process's or a
 * thread's start), ascending; *ids allocated (free it).  Their count.
 */
size_t model_start_symbols(const struct model *m, uint32_t **ids);

/*
 * The weight that shares are of: the shown event's with -e a,b, else
 * all of it.  `weight` and `event_weight` are one total's (a symbol's, a
 * thread's); model_total_weight is the whole session's.
 */
static inline uint64_t model_shown_weight(const struct model *m, uint64_t weight,
					  const uint64_t *event_weight)
{
	return m->nsampled ? event_weight[m->shown_event] : weight;
}

static inline uint64_t model_total_weight(const struct model *m)
{
	return model_shown_weight(m, m->weight, m->event_weight);
}
void model_free(struct model *m);
/*
 * n events sampled each on its own (-e a,b) from now on, a running
 * session's W: from one, its samples so far become the first event's.
 */
void model_set_sampled(struct model *m, int n);

/*
 * --off-cpu: a sample whose chain ended in tree node node, its time
 * counted under the chain's functions: a wait's (ST_SAMPLE_OFFCPU, paired)
 * as a wait, the clock event's as time on the CPU (WALL); others not.
 */
void model_count_wall(struct model *m, const struct st_sample *s, uint32_t node);
/* Whether rows have a WALL: --off-cpu beside a clock event (ns on the CPU). */
bool model_knows_wall(const struct model *m);
/*
 * waits (a time range's, summed) of thread tid, for reason (ST_OFFCPU_*),
 * ns in all, their chain the tree's frames[0..n) (reused as scratch).
 */
void model_count_waits(struct model *m, pid_t tid, unsigned reason, uint32_t *frames, size_t n,
		       uint64_t ns, uint64_t waits);
/*
 * A clock event's sample (--off-cpu: ns on the CPU) whose chain is the
 * tree's frames[0..n) (reused as scratch): ns under each function of it,
 * once a sample, for WALL.
 */
void model_count_ran(struct model *m, uint32_t *frames, size_t n, uint64_t ns);
/*
 * Event event's own tree of its samples in [from, to) (model_event_tree.c),
 * into out (cct_free it): weighed for the off-CPU event.  False where
 * events are not apart or the history no longer holds them all.
 */
bool model_event_tree(const struct model *m, int event, uint64_t from, uint64_t to,
		      struct cct *out);
/* ns that waits spent under function sym (its chains passed it), 0 without any. */
uint64_t model_waited_under(const struct model *m, uint32_t sym);
/* ns the clock event's samples spent under sym, 0 without any. */
uint64_t model_ran_under(const struct model *m, uint32_t sym);
/* ... and by why. */
void model_waited_why(const struct model *m, uint32_t sym, uint64_t ns[MODEL_WAITS]);

/* A wait's waker (ST_REC_WAKE), for the wait right after it. */
void model_note_wake(struct model *m, const struct st_wake *w);
/* Off-CPU sample s, counted in tree node node: its waker, if one came before it, given its time. */
void model_count_woken(struct model *m, const struct st_sample *s, uint32_t node);
/*
 * The wakers of tid's waits (0: any thread's) with function sym in their
 * chain (UINT32_MAX: any), most time first, in *out (freed by the caller);
 * how many.  each_thread: a waker once for each thread it woke (woken).
 */
size_t model_wakers(const struct model *m, pid_t tid, uint32_t sym, bool each_thread,
		    struct model_waker **out);
/* "comm[tid]", "[tid]" where its name was not kept, or "[interrupt]", in buf. */
const char *model_waker_name(const struct model_waker *w, char *buf, size_t len);
void model_wakers_clear(struct model *m);
void model_wakers_free(struct model *m);
/* "sleep", "lock", "disk", "cpu", "other": the tables' and JSON's name of why. */
const char *model_wait_name(enum model_wait w);

/*
 * Bounds the sample history to keep_ns of record time (--history; 0:
 * all of it, the default).
 */
void model_set_history(struct model *m, uint64_t keep_ns);

/*
 * --memory: the history's bound; the rows exited processes keep as
 * their own before the oldest's fold into their commands', as many as a
 * thirty-second of the bytes take (65,536 rows of 16 MB at most); the
 * call tree's nodes in an eighth (524,288 at most) and its caches in a
 * sixteenth (16 MB at most).
 */
void model_set_memory(struct model *m, size_t bytes);
uint32_t model_gone_rows_max(const struct model *m);

/*
 * The model of the samples taken in [from, to) (record time, ns): every
 * table of a time range (the timeline's selection, --range), from the
 * history.  `out` shares m's symbols and has no history of its own; free
 * it with model_free.  Returns false when part of the range lies before
 * what the history still holds (--history dropped it): the tables then
 * cover only the rest.
 */
bool model_range(const struct model *m, uint64_t from, uint64_t to,
		 struct model *out);
/*
 * The same, walked in `parts` windows side by side (model_range picks as
 * many as there are CPUs, up to 4, for a long range); the tables do not
 * depend on it.
 */
bool model_range_split(const struct model *m, uint64_t from, uint64_t to,
		       unsigned parts, struct model *out);

/* The DTE tolerance for observer samples (--dte-tolerance). */
void model_set_dte_tolerance(struct model *m, double tolerance);

/* Takes one record (record.h); unknown record types are ignored. */
void model_ingest(struct model *m, const void *rec);
/*
 * A record model_ingest will take a few records from now: what it will
 * look up is fetched into the CPU's cache meanwhile (a large program's
 * addresses and chains do not stay there), and its callers' key kept
 * for it.  Changes no figure.  At MODEL_PREFETCH_AHEAD records, a
 * clang++ compile's samples took 15% less time, the demo's (all in
 * cache already) 7% more.
 */
void model_prefetch(struct model *m, const void *rec);
/* rec waits for its symbols: its process taught to the kernel's walker meanwhile. */
void model_teach_ahead(struct model *m, const void *rec);
/*
 * Whether model_ingest can take rec without waiting for a symbol table
 * (symbolizer_ready, for each address of a sample): false asks the
 * caller to come back to it.
 */
bool model_ready(struct model *m, const void *rec);

/* Forgets the totals (perf top's `z`); symbols and threads stay known. */
void model_zero(struct model *m);

/* Takes the samples still held for their process (end of the stream). */
void model_flush(struct model *m);

/*
 * Whether rows know their share through (TOTAL%): the samples have call
 * chains, of one event.
 */
bool model_knows_through(const struct model *m);

/*
 * The per-symbol table, sorted; *rows is allocated (model_rows_free).  Returns
 * the row count.  Sorted by TOTAL, functions samples only passed
 * through have rows too.
 */
size_t model_rows(const struct model *m, enum st_sort_key key, bool invert,
		  struct model_row **rows);

/*
 * The same with perf's sort list: the first key orders, the others break
 * ties; sort->split: a row per (process, symbol) or (command, symbol).
 */
size_t model_rows_sorted(const struct model *m, const struct st_sort *sort,
			 bool invert, struct model_row **rows);
/* Gives back model_rows' and model_rows_sorted's rows (NULL: nothing). */
void model_rows_free(struct model_row *rows);

/* A thread the model knows (its name as its last COMM or exec says), or NULL. */
const struct model_thread *model_thread_of(const struct model *m, pid_t tid);

/* The per-process table, heaviest first; *rows is allocated (free it). */
size_t model_process_rows(const struct model *m, struct model_process_row **rows);

/* A module's row: a file's symbols' samples summed (perf report --sort dso). */
struct model_module_row {
	const char *module;		/* the symbols' module string */
	uint64_t samples, weight;
	double share;			/* of all weight, 0..100 */
	size_t symbols;			/* with samples */
	size_t unnamed;			/* of them, with no name (.eh_frame bounds, unknown) */
	uint8_t named_by;		/* enum st_named_by: what named most of its samples */
};

/* The per-module table, heaviest first; *rows is allocated (free it). */
size_t model_module_rows(const struct model *m, struct model_module_row **rows);

/* Samples per second over the last second of sample time. */
double model_rate(const struct model *m);

/* Threads that have not exited. */
size_t model_live_threads(const struct model *m);

/* Every thread seen since the start (exited ones too). */
size_t model_seen_threads(const struct model *m);

/*
 * The per-thread table, heaviest first; *rows is allocated (free it).
 * Threads forgotten after their exit are not in it (gone_threads and
 * gone_samples count them).
 */
size_t model_thread_rows(const struct model *m, struct model_thread_row **rows);

/*
 * Thread tid's n heaviest symbols as the model holds them now, into out,
 * heaviest first; the count (0: no such thread any more).  For what is
 * made at once (a report); a view keeps rows, which hold no thread.
 */
size_t model_thread_top(const struct model *m, pid_t tid, struct model_thread_top *out, size_t n);
/* A process's row's totals and a thread's row's samples, with what their memo counts still. */
struct model_sym model_proc_sym_totals(const struct model *m, const struct model_proc_sym *ps);
uint64_t model_thread_sym_samples(const struct model *m, const struct model_thread_sym *ts);

/* Samples no symbol explains, as a percentage of all samples. */
double model_unknown_pct(const struct model *m);

#endif
