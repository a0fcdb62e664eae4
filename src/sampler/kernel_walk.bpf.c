/*
 * kernel_walk.bpf.c - a sample's user stack walked where it was taken,
 * in the kernel, by the rows shimtop's own walks already used
 * (symbols/unwind.c): no stack copy leaves the kernel for it.  Run at
 * each overflow of a sampling event; a walked sample goes out as its
 * chain on a bpf-output event and the sample itself is not written
 * (return 0).  Anything it has not been taught (a process's mappings, an
 * address's row, a rule only libdwfl applies) lets the sample out as
 * before (return 1), stack copy and all; shimtop walks that one and
 * teaches the kernel what it used.  The same rules and ends as
 * walk_rows in symbols/unwind.c, so both walks give the same frames.
 * --off-cpu's switches come the same way (kw_walk_switch, on the
 * software event context-switches), with the state kw_note_switch
 * noted at sched_switch just before.
 */
#include <stdbool.h>
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <linux/perf_event.h>
#include <bpf/bpf_helpers.h>

#include "sampler/kernel_walk_abi.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} kw_out SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);	/* 4 KiB a process: made as taught */
	__uint(max_entries, KW_PROCS_MAX);
	__type(key, __u32);
	__type(value, struct kw_proc);
} kw_procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	/* Preallocated (1 MiB of keys and rows): an insert then allocates nothing, at half the cost. */
	__uint(max_entries, KW_ROWS_MAX);
	__type(key, struct kw_row_key);
	__type(value, struct kw_row);
} kw_rows SEC(".maps");

/*
 * One file's pages (KW_PAGES_*), an array of its own size: the template.
 * Two words an element (an array's elements take 8 bytes each), so
 * that user space fills them as one array of words.
 */
struct kw_pages {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_INNER_MAP | BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, KW_FILES_MAX);
	__type(key, __u32);
	__array(values, struct kw_pages);
} kw_files SEC(".maps");

/* The rows the pages index, one of each, shared by every file. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, KW_DICT_MAX);
	__type(key, __u32);
	__type(value, struct kw_row);
} kw_dict SEC(".maps");

/*
 * A walk's registers and end, kept in map memory, whose contents the
 * verifier does not follow: kept on the stack, each value a frame
 * leaves there would be a state more, and bpf_loop's callback is
 * verified until its states repeat.
 */
struct walk {
	__u64 pc, sp, bp, rbx;
	__u64 bp_known, rbx_known;
	__u64 n, stop;
	__s64 why;		/* >= 0: let the sample out, counted so */
	__u64 need_file, need_addr;	/* why KW_NO_ROW: the row wanted */
	__u64 kernel;		/* the chain's first frames, the kernel's */
	__u64 map;		/* the last frame's mapping: a caller is mostly in its callee's file */
	__u64 sp_at_sample;	/* the user stack pointer the walk started from */
	struct kw_chain chain;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct walk);
} kw_scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KW_COUNTS);
	__type(key, __u32);
	__type(value, __u64);
} kw_counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kw_config);
} kw_config SEC(".maps");

/* Counted, and the sample let out with its copy. */
static int let_out(__u32 why)
{
	__u64 *n = bpf_map_lookup_elem(&kw_counts, &why);

	if (n)
		(*n)++;
	return 1;
}

/*
 * The mapping holding pc (KW_MAPS_MAX: none): a binary search over all
 * KW_MAPS_MAX entries (those past n start at ~0).  The probe is hidden
 * from the compiler, which would otherwise unroll the search into
 * constants the verifier follows apart.
 */
static __u32 map_at(const struct kw_proc *p, __u64 pc)
{
	__u32 base = 0;

	for (__u32 step = KW_MAPS_MAX / 2; step; step >>= 1) {
		__u32 probe = (base + step) & (KW_MAPS_MAX - 1);

		if (p->m[probe].start <= pc)
			base = probe;
		asm volatile("" : "+r"(base));
	}
	base &= KW_MAPS_MAX - 1;
	return pc >= p->m[base].start && pc < p->m[base].end ? base : KW_MAPS_MAX;
}

/*
 * Word at of a file's pages in *out; false past its end.  A failed
 * look-up ends the search where it is: given as a word of 0 it made a
 * state of its own at each of them, and the verifier took 0.4 s.
 */
static bool pages_word(void *pages, __u32 at, __u32 *out)
{
	__u32 element = at / 2;
	__u64 *v = bpf_map_lookup_elem(pages, &element);

	if (!v)
		return false;
	/* Little-endian: the even word is the element's low half. */
	*out = (__u32)(*v >> (at & 1) * 32);
	return true;
}

/* A search of one page's entries (bpf_loop's): the last at or before off. */
struct page_search {
	void *pages;
	__u32 at, lo, hi, off;
};

static long halve(__u32 i, void *arg)
{
	struct page_search *s = arg;
	__u32 mid = s->lo + (s->hi - s->lo) / 2, e;

	(void)i;
	if (s->hi - s->lo <= 1 || !pages_word(s->pages, s->at + mid, &e))
		return 1;
	if (e >> 16 <= s->off)
		s->lo = mid;
	else
		s->hi = mid;
	return 0;
}

/*
 * Where a file's compiled pages (all its CFI) have its address's row in
 * kw_dict: the row of no CFI (the first) where no page holds it, as the
 * walk in user space has it; -1 where the file has no pages in the
 * kernel.  A global function, verified once whatever its caller: inlined
 * in the frame's step, each look-up's outcome was a state more there,
 * and the verifier took 0.4 s over the program.
 */
__attribute__((noinline)) int page_row_index(__u32 file, __u64 addr)
{
	void *pages = bpf_map_lookup_elem(&kw_files, &file);
	__u64 page = addr >> KW_PAGE_SHIFT;
	struct page_search s;
	__u32 first, span, n, e = 0;

	if (!pages)
		return -1;
	if (pages_word(pages, KW_PAGES_FIRST, &first) && pages_word(pages, KW_PAGES_SPAN, &span) &&
	    page >= first && page - first < span &&
	    pages_word(pages, KW_PAGES_INDEX + 2 * (__u32)(page - first), &s.at) &&
	    pages_word(pages, KW_PAGES_INDEX + 2 * (__u32)(page - first) + 1, &n) && n) {
		s.pages = pages;
		s.lo = 0;
		s.hi = n;
		s.off = (__u32)(addr & ((1u << KW_PAGE_SHIFT) - 1));
		bpf_loop(KW_PAGE_SEARCH, halve, &s, 0);
		if (pages_word(pages, s.at + s.lo, &e))
			e &= 0xffff;
		else
			e = 0;
	}
	return (int)e;
}

/*
 * The row for a file address: from the file's pages where it has them,
 * else as taught: its own, or its block's, or its small block's.
 */
static const struct kw_row *row_at(__u32 file, __u64 addr)
{
	struct kw_row_key key = { .file = file, .addr = addr };
	int e = page_row_index(file, addr);
	const struct kw_row *r;

	if (e >= 0) {
		__u32 index = (__u32)e;

		return bpf_map_lookup_elem(&kw_dict, &index);
	}
	r = bpf_map_lookup_elem(&kw_rows, &key);
	if (r)
		return r;
	key.addr = (addr & ~(__u64)(KW_BLOCK_SIZE - 1)) | KW_BLOCK;
	r = bpf_map_lookup_elem(&kw_rows, &key);
	if (r)
		return r;
	key.addr = (addr & ~(__u64)(KW_SMALL_SIZE - 1)) | KW_BLOCK_SMALL;
	return bpf_map_lookup_elem(&kw_rows, &key);
}

static int read_word(__u64 addr, __u64 *v)
{
	return bpf_probe_read_user(v, sizeof(*v), (const void *)addr);
}

/* The frame loop's (bpf_loop's) context: pointers only. */
struct loop {
	const struct kw_proc *p;
	struct walk *w;
};

/* Frame i: its row applied, the caller's registers set; 1 ends the loop. */
static long step(__u32 i, void *arg)
{
	const struct loop *l = arg;
	struct walk *w = l->w;
	const struct kw_map *m;
	const struct kw_row *r;
	__u64 at = i ? w->pc - 1 : w->pc, cfa, ra, saved;
	/* After the kernel's frames, if the sample was taken there. */
	__u32 k = i + (__u32)w->kernel;

	if (k >= KW_FRAMES_MAX)
		return 1;
	/* Hidden from the compiler, which would drop the mask the verifier needs. */
	asm volatile("" : "+r"(k));
	w->chain.ip[k & KW_FRAMES_MAX] = w->pc;
	w->n = k + 1;
	m = &l->p->m[w->map & (KW_MAPS_MAX - 1)];
	if (at < m->start || at >= m->end) {
		__u32 found = map_at(l->p, at);

		if (found >= KW_MAPS_MAX) {
			w->why = KW_NO_MAPPING;
			return 1;
		}
		w->map = found;
		m = &l->p->m[found & (KW_MAPS_MAX - 1)];
	}
	r = row_at(m->file, at - m->start + m->vaddr);
	if (!r) {
		w->why = KW_NO_ROW;
		w->need_file = m->file;
		w->need_addr = at - m->start + m->vaddr;
		return 1;
	}
	switch (r->kind) {
	case KW_ROW_OUTERMOST:
		w->stop = KW_STOP_OUTERMOST;
		return 1;
	case KW_ROW_CFA_RSP:
		cfa = w->sp + (__s64)r->cfa_off;
		break;
	case KW_ROW_CFA_RBP:
		if (!w->bp_known) {
			w->why = KW_HARD_RULE;
			return 1;
		}
		cfa = w->bp + (__s64)r->cfa_off;
		break;
	case KW_ROW_PLT:
		cfa = w->sp + (__s64)r->cfa_off + ((w->pc & 15) >= r->plt_at ? 8 : 0);
		break;
	case KW_ROW_CFA_RBX:
		/* Unknown in frame 0, as in shimtop's walk: no sample carries rbx. */
		if (!w->rbx_known) {
			w->stop = KW_STOP_NO_RULE;
			return 1;
		}
		cfa = w->rbx + (__s64)r->cfa_off;
		break;
	case KW_ROW_NONE:
		/* No CFI: stepped by rbp, as libdwfl steps it. */
		if (!w->bp_known) {
			w->why = KW_HARD_RULE;
			return 1;
		}
		if (!w->bp) {
			w->stop = KW_STOP_RBP_ZERO;
			return 1;
		}
		if (w->bp < w->sp) {
			w->stop = KW_STOP_NO_RULE;
			return 1;
		}
		if (read_word(w->bp + 8, &ra)) {
			w->stop = KW_STOP_UNREADABLE;
			return 1;
		}
		if (read_word(w->bp, &saved))
			saved = 0;
		w->sp = w->bp + 16;
		w->bp = saved;
		w->pc = ra;
		w->rbx_known = 0;
		return 0;
	default:
		w->why = KW_HARD_RULE;
		return 1;
	}
	if (cfa <= w->sp) {
		w->stop = KW_STOP_NO_RULE;
		return 1;
	}
	if (read_word(cfa + (__s64)r->ra_off, &ra)) {
		w->stop = KW_STOP_UNREADABLE;
		return 1;
	}
	if (r->rbx_lost)
		w->rbx_known = 0;
	else if (r->rbx_off)
		w->rbx_known = !read_word(cfa + (__s64)r->rbx_off, &w->rbx);
	if (r->rbp_lost) {
		w->bp_known = 0;
	} else if (r->rbp_off) {
		w->bp_known = !read_word(cfa + (__s64)r->rbp_off, &saved);
		if (w->bp_known)
			w->bp = saved;
	}
	if (!ra) {
		w->stop = KW_STOP_OUTERMOST;
		return 1;
	}
	w->sp = cfa;
	w->pc = ra;
	return 0;
}

/*
 * A sample taken in the kernel: its kernel frames first (the kernel's
 * own chain, as perf's), then the user stack from the registers the
 * task entered the kernel with.  False where there are none (a kernel
 * thread) or they cannot be read.
 */
static int from_kernel(struct bpf_perf_event_data *ctx, struct walk *w)
{
	struct pt_regs *user = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
	struct pt_regs regs;
	long got;

	if (!user || bpf_probe_read_kernel(&regs, sizeof(regs), user) || !(regs.cs & 3))
		return 0;
	got = bpf_get_stack(ctx, w->chain.ip, KW_KERNEL_FRAMES_MAX * 8, 0);
	/* The sample's own chain, as perf made it: its kernel part starts with the mark. */
	if (got <= 8 || w->chain.ip[0] != (__u64)PERF_CONTEXT_KERNEL)
		return 0;
	w->kernel = (__u64)got / 8;
	w->pc = regs.rip;
	w->sp = regs.rsp;
	w->bp = regs.rbp;
	return 1;
}

/*
 * The user stack walked from w's registers, after w->kernel kernel
 * frames, and the chain sent: 0.  1 where the sample goes out with its
 * copy instead (counted why), a row asked for where one was missing.
 */
static __always_inline int walk_and_send(void *ctx, const struct kw_proc *p, struct walk *w,
					 __u64 period, __u32 switched)
{
	struct loop l = { .p = p, .w = w };

	w->bp_known = 1;
	w->rbx_known = 0;
	w->map = 0;
	w->n = 0;
	w->sp_at_sample = w->sp;
	w->stop = KW_STOP_MAX_FRAMES;
	w->why = -1;
	bpf_loop(KW_FRAMES_MAX, step, &l, 0);
	if (w->why == KW_NO_ROW) {
		/* Asked for, so that the next sample through here is walked. */
		w->chain.n = 0;
		w->chain.stop = KW_STOP_NEED_ROW;
		w->chain.switched = 0;
		w->chain.sp = w->need_file;
		w->chain.ip[0] = w->need_addr;
		bpf_perf_event_output(ctx, &kw_out, BPF_F_CURRENT_CPU, &w->chain,
				      sizeof(w->chain) - sizeof(w->chain.ip) + 8);
	}
	if (w->why >= 0)
		return let_out((__u32)w->why);
	w->chain.n = (__u32)w->n;
	w->chain.stop = (__u32)w->stop;
	w->chain.kernel = (__u32)w->kernel;
	w->chain.switched = switched;
	w->chain.period = period;
	w->chain.sp = w->sp_at_sample;
	let_out(KW_WALKED);
	bpf_perf_event_output(ctx, &kw_out, BPF_F_CURRENT_CPU, &w->chain,
			      sizeof(w->chain) - sizeof(w->chain.ip) + (w->n & KW_FRAMES_MAX) * 8);
	return 0;
}

/* Walked, the sample itself is not written, unless the two walks are being compared. */
static int walked(void)
{
	__u32 zero = 0;
	const struct kw_config *cfg = bpf_map_lookup_elem(&kw_config, &zero);

	return cfg && cfg->check ? 1 : 0;
}

SEC("perf_event")
int kw_walk(struct bpf_perf_event_data *ctx)
{
	__u32 pid = (__u32)(bpf_get_current_pid_tgid() >> 32), zero = 0;
	const struct kw_proc *p = bpf_map_lookup_elem(&kw_procs, &pid);
	struct walk *w;

	if (!p)
		return let_out(KW_NO_PROCESS);
	w = bpf_map_lookup_elem(&kw_scratch, &zero);
	if (!w)
		return 1;
	w->kernel = 0;
	if (ctx->regs.cs & 3) {
		w->pc = ctx->regs.rip;
		w->sp = ctx->regs.rsp;
		w->bp = ctx->regs.rbp;
	} else if (!from_kernel(ctx, w)) {
		return let_out(KW_KERNEL_MODE);
	}
	return walk_and_send(ctx, p, w, ctx->sample_period, 0) ? 1 : walked();
}

/*
 * The last switch out on each CPU, as sched_switch gives it: read by
 * kw_walk_switch, which the same switch runs next on the same CPU.
 */
struct switch_out {
	__u64 tid;
	__u32 told;		/* KW_SWITCHED | KW_PREEMPTED? | prev_state */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct switch_out);
} kw_switch_out SEC(".maps");

/*
 * Every switch on the machine while --off-cpu samples (a raw
 * tracepoint filters nothing and writes one per-CPU slot): the thread
 * leaving and its state, exact, as the tracepoint's own prev_state.
 */
SEC("raw_tp/sched_switch")
int kw_note_switch(struct bpf_raw_tracepoint_args *ctx)
{
	__u32 zero = 0;
	struct switch_out *o = bpf_map_lookup_elem(&kw_switch_out, &zero);

	if (!o)
		return 0;
	o->tid = (__u32)bpf_get_current_pid_tgid();
	/* (bool preempt, prev, next, unsigned int prev_state): its state since 5.18. */
	o->told = KW_SWITCHED | (ctx->args[0] ? KW_PREEMPTED : 0) | ((__u32)ctx->args[3] & KW_STATE);
	return 0;
}

/*
 * A target thread leaving its CPU (the software event context-switches,
 * sampled at each one on the target's threads for --off-cpu): the
 * kernel's frames where it blocked, then its user stack, sent with its
 * state.  A switch let out with its copy sends its state alone (stop
 * KW_STOP_TOLD), stamped just after the sample (the kernel stamps a
 * sample before running its program), which the sampler joins to it.
 */
SEC("perf_event")
int kw_walk_switch(struct bpf_perf_event_data *ctx)
{
	__u64 tid = (__u32)bpf_get_current_pid_tgid();
	__u32 pid = (__u32)(bpf_get_current_pid_tgid() >> 32), zero = 0, told;
	const struct switch_out *o = bpf_map_lookup_elem(&kw_switch_out, &zero);
	const struct kw_proc *p = bpf_map_lookup_elem(&kw_procs, &pid);
	struct walk *w = bpf_map_lookup_elem(&kw_scratch, &zero);
	int out;

	if (!w)
		return 1;
	/* Its sched_switch ran just before on this CPU; a slot of another's: its state not known. */
	told = o && o->tid == tid ? o->told : KW_SWITCHED | KW_UNTOLD;
	w->kernel = 0;
	if (!p)
		out = let_out(KW_NO_PROCESS);
	else if (!from_kernel(ctx, w))
		out = let_out(KW_KERNEL_MODE);
	else
		out = walk_and_send(ctx, p, w, 1, told) ? 1 : walked();
	if (out) {
		w->chain.n = 0;
		w->chain.stop = KW_STOP_TOLD;
		w->chain.switched = told;
		bpf_perf_event_output(ctx, &kw_out, BPF_F_CURRENT_CPU, &w->chain,
				      sizeof(w->chain) - sizeof(w->chain.ip));
	}
	return out;
}

/*
 * The processes sampled, told by the sampler as it starts and as they
 * fork: their wakeups are sent from the first, before the walker is
 * taught their mappings (which a loaded machine can take a second to do).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KW_PROCS_MAX);
	__type(key, __u32);
	__type(value, __u8);
} kw_watched SEC(".maps");

/*
 * Who woke each wait (--off-cpu): built into its own object
 * (kernel_walk_wakes_obj.c, -DKW_WAKES), loaded only when asked.  Its
 * CO-RE read of a task makes libbpf parse the kernel's whole BTF (5 MB
 * read, a third of an idle session's CPU), and its programs cost the
 * verifier's time: neither is paid by a session that shows no waits.
 */
#ifdef KW_WAKES
/* The fields read of a task, found in this kernel's task_struct by CO-RE (its BTF). */
struct task_struct {
	int pid;
	int tgid;
} __attribute__((preserve_access_index));

/*
 * Whether this CPU is in an interrupt (a device's handler, a softirq, an
 * hrtimer's callback), noted at their tracepoints' entries and exits: a
 * wakeup there is no doing of the thread it interrupted.  Each kind by
 * its own programs, when it began (0: not in one): a program that an
 * interrupt of its own kind finds running is skipped, so a count shared
 * by the kinds would miss an exit now and then, and keep it for good;
 * a stale note is believed KW_IRQ_LONGEST at most.
 */
#define KW_IRQ_KINDS	3
#define KW_IRQ_LONGEST	10000000ull	/* ns: a softirq's turn is 2 ms at most */

struct irq_notes {
	__u64 since[KW_IRQ_KINDS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct irq_notes);
} kw_irqs SEC(".maps");

static int note_irq(__u32 kind, __u64 since)
{
	__u32 zero = 0;
	struct irq_notes *n = bpf_map_lookup_elem(&kw_irqs, &zero);

	if (n && kind < KW_IRQ_KINDS)
		n->since[kind] = since;
	return 0;
}

#define IRQ_PROGRAMS(kind, name)						\
SEC("raw_tp")									\
int kw_##name##_in(void *ctx)							\
{										\
	return note_irq(kind, bpf_ktime_get_ns());				\
}										\
SEC("raw_tp")									\
int kw_##name##_out(void *ctx)							\
{										\
	return note_irq(kind, 0);						\
}

IRQ_PROGRAMS(0, hardirq)
IRQ_PROGRAMS(1, softirq)
IRQ_PROGRAMS(2, hrtimer)

static __u32 in_interrupt(void)
{
	__u32 zero = 0;
	const struct irq_notes *n = bpf_map_lookup_elem(&kw_irqs, &zero);
	__u64 now = bpf_ktime_get_ns();

	if (!n)
		return 0;
	for (__u32 k = 0; k < KW_IRQ_KINDS; k++)
		if (n->since[k] && now - n->since[k] < KW_IRQ_LONGEST)
			return 1;
	return 0;
}

/* kw_chain's head, then a kw_woke where the frames would be. */
struct woke_message {
	__u64 period, sp;
	__u32 n, stop, kernel, switched;
	struct kw_woke woke;
};
_Static_assert(__builtin_offsetof(struct woke_message, woke) == __builtin_offsetof(struct kw_chain, ip),
	       "a wakeup is read as a chain's head");

/*
 * Each thread's waker as last sent (its process and thread, or ~0 for an
 * interrupt): a wakeup by the same is not sent again; the sampler keeps
 * the last it was sent (offcpu.h).  A thread forgotten here is sent again.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, KW_WAKEES_MAX);
	__type(key, __u32);
	__type(value, __u64);
} kw_wakers SEC(".maps");

/*
 * A thread of a process sampled woken: who woke it (the current thread,
 * sched_waking running in its context), sent for the wait it ends where
 * it is not the thread's last waker.  Runs on every wakeup of the
 * machine; a look-up filters the rest.
 */
SEC("tp_btf/sched_waking")
int kw_note_wake(__u64 *ctx)
{
	const struct task_struct *p = (const struct task_struct *)ctx[0];
	struct woke_message m = { .stop = KW_STOP_WOKE };
	__u32 tgid = (__u32)p->tgid, zero = 0;
	const struct kw_config *cfg = bpf_map_lookup_elem(&kw_config, &zero);
	__u64 waker, *last;

	if (!(cfg && cfg->watch_all) && !bpf_map_lookup_elem(&kw_watched, &tgid) &&
	    !bpf_map_lookup_elem(&kw_procs, &tgid))
		return 0;
	m.woke.pid = tgid;
	m.woke.tid = (__u32)p->pid;
	m.woke.interrupt = in_interrupt();
	waker = m.woke.interrupt ? ~0ull : bpf_get_current_pid_tgid();
	last = bpf_map_lookup_elem(&kw_wakers, &m.woke.tid);
	if (last && *last == waker)
		return 0;
	bpf_map_update_elem(&kw_wakers, &m.woke.tid, &waker, BPF_ANY);
	bpf_get_current_comm(m.woke.comm, sizeof(m.woke.comm));
	bpf_perf_event_output(ctx, &kw_out, BPF_F_CURRENT_CPU, &m, sizeof(m));
	return 0;
}

#endif

char LICENSE[] SEC("license") = "GPL";
