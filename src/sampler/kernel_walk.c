/*
 * kernel_walk.c - the kernel's walker loaded, attached and taught.  The
 * unwinder's lessons (symbols/unwind.h) become map entries: a process's
 * code mappings once its walks saw them all, each row a walk used once.
 * A process's mappings are taken back as soon as the sampler reads that
 * it mapped code over code the kernel holds, or exec'd, before the model
 * has the record (the reorder holds it a pass): until a walk of a later
 * sample teaches them again, the kernel lets its samples out for the
 * walk in user space.
 */
#include "sampler/kernel_walk.h"
#include "sampler/kernel_walk_pages.h"
#include "sampler/perf_parse.h"
#include "symbols/unwind.h"
#include "symbols/unwind_rows.h"
#include "ring/record.h"
#include "util.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <uthash.h>

/*
 * The programs' objects, made from kernel_walk.bpf.c at build time
 * (kernel_walk_obj.c): without and with the wakes' programs.
 */
extern const unsigned char kernel_walk_obj[], kernel_walk_wakes_obj[];
extern const size_t kernel_walk_obj_len, kernel_walk_wakes_obj_len;

_Static_assert(KW_ROW_CFA_RSP == ROW_CFA_RSP && KW_ROW_CFA_RBP == ROW_CFA_RBP &&
	       KW_ROW_CFA_RBX == ROW_CFA_RBX && KW_ROW_PLT == ROW_PLT &&
	       KW_ROW_OUTERMOST == ROW_OUTERMOST && KW_ROW_OTHER == ROW_OTHER &&
	       KW_ROW_NONE == ROW_NONE, "the kernel's row kinds are the unwinder's");
_Static_assert(KW_BLOCK_SIZE == UNWIND_TEACH_BLOCK && KW_SMALL_SIZE == UNWIND_TEACH_SMALL,
	       "rows are taught for the blocks looked up");

#define KW_NEEDS_MAX	1024	/* asked-for rows waiting; more are dropped, asked again */
#define KW_PENDING_MAX	256	/* rows sent to the kernel in one call */
#define KW_SEEN_MAX	4096	/* code mappings remembered a process */

/* A process's mappings in the kernel: as of which map generation, taken back when. */
struct taught_process {
	UT_hash_handle hh;
	pid_t pid;
	bool held;		/* the kernel holds its mappings */
	uint64_t gen;		/* the unwinder's generation of what it holds */
	uint64_t replaced_at;	/* the latest exec, or code mapped over code, the sampler read */
	/*
	 * What the kernel holds, [start, end) each: a new mapping over one
	 * takes them back.  As many as held (a host's thousands of processes
	 * had 4 KB each of KW_MAPS_MAX).
	 */
	uint64_t *held_start, *held_end;
	size_t nheld;
	/* The code mappings the sampler read since the exec, [start, end) each. */
	uint64_t *seen_start, *seen_end;
	size_t nseen, seen_cap;
};

struct kernel_walk {
	struct bpf_object *obj;
	int prog, procs, rows, counts, config, out;
	int watched;		/* kw_watched: processes whose wakeups are sent */
	int switch_prog;	/* kw_walk_switch; -1 where this kernel refused it */
	struct bpf_link *noting;	/* kw_note_switch on sched_switch, once asked for */
	int noting_err;		/* why it could not be: -errno */
	struct bpf_link *waking;	/* kw_note_wake on sched_waking, with noting where it can */
	struct bpf_link *irq_links[6];	/* with it: the interrupts' programs on irq_points */
	bool check;
	bool watch_all;		/* every process's wakeups (-a) */
	bool rows_full;		/* the kernel's table of rows is full: no more taught */
	pthread_mutex_t lock;	/* guards processes: the sampler's thread and the model's */
	struct taught_process *processes;
	struct unwind_teacher teacher;
	/* Rows taught and not yet sent (the model's thread alone). */
	struct kw_row_key pending_keys[KW_PENDING_MAX];
	struct kw_row pending_rows[KW_PENDING_MAX];
	size_t npending;
	struct kw_pages pages;	/* files' compiled pages given, guarded by pages_lock */
	pthread_mutex_t pages_lock;
	bool pages_on;
	/* Rows the program asked for, from the sampler's thread to the model's. */
	struct unwind_need needs[KW_NEEDS_MAX];
	size_t nneeds;		/* guarded by lock */
};

/* libbpf's own messages stay quiet: a refusal is said once, in shimtop's words. */
static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

static struct taught_process *process_of(struct kernel_walk *kw, pid_t pid)
{
	struct taught_process *p;

	HASH_FIND(hh, kw->processes, &pid, sizeof(pid), p);
	if (!p) {
		p = st_xcalloc(1, sizeof(*p));
		p->pid = pid;
		HASH_ADD(hh, kw->processes, pid, sizeof(p->pid), p);
	}
	return p;
}

static void take_back(struct kernel_walk *kw, struct taught_process *p)
{
	__u32 key = (__u32)p->pid;

	if (p->held)
		bpf_map_delete_elem(kw->procs, &key);
	p->held = false;
	free(p->held_start);
	free(p->held_end);
	p->held_start = p->held_end = NULL;
	p->nheld = 0;
}

/*
 * A walk of a sample at time saw pid's mappings (generation gen): the
 * kernel is given them unless it holds these already, or the sampler has
 * read, after the sample, an exec or code mapped over code (the walk's
 * view may hold what is gone).  A library mapped beside the view leaves
 * it right: the model walks seconds behind a loaded host, and a program
 * that keeps loading code would never be taught.
 */
static void teach_maps(void *arg, pid_t pid, uint64_t time, uint64_t gen,
		       const struct unwind_map *m, size_t n)
{
	struct kernel_walk *kw = arg;
	struct taught_process *p;
	struct kw_proc *proc;
	__u32 key = (__u32)pid;

	pthread_mutex_lock(&kw->lock);
	p = process_of(kw, pid);
	if ((p->held && p->gen == gen) || time < p->replaced_at || !n) {
		pthread_mutex_unlock(&kw->lock);
		return;
	}
	proc = st_xcalloc(1, sizeof(*proc));
	for (size_t i = 0; i < n && proc->n < KW_MAPS_MAX; i++)
		proc->m[proc->n++] = (struct kw_map){ m[i].start, m[i].end, m[i].vaddr, m[i].file, 0 };
	/* Past n: never below an address, so the search never stops there. */
	for (size_t i = proc->n; i < KW_MAPS_MAX; i++)
		proc->m[i].start = proc->m[i].end = UINT64_MAX;
	if (bpf_map_update_elem(kw->procs, &key, proc, BPF_ANY) == 0) {
		p->held = true;
		p->gen = gen;
		p->nheld = proc->n;
		p->held_start = st_xrealloc(p->held_start, proc->n * sizeof(*p->held_start));
		p->held_end = st_xrealloc(p->held_end, proc->n * sizeof(*p->held_end));
		for (size_t i = 0; i < proc->n; i++) {
			p->held_start[i] = proc->m[i].start;
			p->held_end[i] = proc->m[i].end;
		}
	}
	pthread_mutex_unlock(&kw->lock);
	free(proc);
}

/* The rows gathered go to the kernel in one call (a function's blocks are dozens). */
static void flush_rows(void *arg)
{
	struct kernel_walk *kw = arg;
	__u32 count = (__u32)kw->npending;

	if (!count)
		return;
	kw->npending = 0;
	if (kw->rows_full)
		return;
	/* E2BIG: full.  What it holds keeps serving; the rest are walked here. */
	if (bpf_map_update_batch(kw->rows, kw->pending_keys, kw->pending_rows, &count, NULL) != 0 &&
	    (errno == E2BIG || errno == ENOMEM))
		kw->rows_full = true;
}

/* Each row comes once (the unwinder marks what it taught); a block's, once per address in it. */
static void teach_key(struct kernel_walk *kw, const struct kw_row_key *key, const struct kw_row *row)
{
	if (kw->npending == KW_PENDING_MAX)
		flush_rows(kw);
	kw->pending_keys[kw->npending] = *key;
	kw->pending_rows[kw->npending++] = *row;
}

static void teach_row(void *arg, uint32_t file, uint64_t addr, unsigned block,
		      const struct unwind_row *row)
{
	struct kernel_walk *kw = arg;
	struct kw_row r = kw_row_of(row);
	struct kw_row_key key = { .file = file, .addr = addr };

	/* The walk's own key space: an address with a block bit set is none of a file's. */
	if (addr & (KW_BLOCK | KW_BLOCK_SMALL))
		return;
	if (block == KW_BLOCK_SIZE)
		key.addr = (addr & ~(uint64_t)(KW_BLOCK_SIZE - 1)) | KW_BLOCK;
	else if (block == KW_SMALL_SIZE)
		key.addr = (addr & ~(uint64_t)(KW_SMALL_SIZE - 1)) | KW_BLOCK_SMALL;
	else if (block)
		return;
	teach_key(kw, &key, &r);
}

/* On the unwinder's worker thread. */
static bool teach_pages(void *arg, uint32_t file, const struct unwind_pages *p)
{
	struct kernel_walk *kw = arg;
	int err;

	pthread_mutex_lock(&kw->pages_lock);
	err = kw_pages_give(&kw->pages, file, p);
	pthread_mutex_unlock(&kw->pages_lock);
	return err == 0;
}

/* The pages given since the last settle go into the walker's map together. */
static void settle_pages(void *arg)
{
	struct kernel_walk *kw = arg;

	pthread_mutex_lock(&kw->pages_lock);
	(void)kw_pages_put(&kw->pages);
	pthread_mutex_unlock(&kw->pages_lock);
}

static size_t take_needs(void *arg, struct unwind_need *out, size_t max)
{
	struct kernel_walk *kw = arg;
	size_t n;

	pthread_mutex_lock(&kw->lock);
	n = kw->nneeds < max ? kw->nneeds : max;
	memcpy(out, kw->needs + kw->nneeds - n, n * sizeof(*out));
	kw->nneeds -= n;
	pthread_mutex_unlock(&kw->lock);
	return n;
}

static void free_process(struct kernel_walk *kw, struct taught_process *p)
{
	HASH_DEL(kw->processes, p);
	free(p->held_start);
	free(p->held_end);
	free(p->seen_start);
	free(p->seen_end);
	free(p);
}

static void forget_process(void *arg, pid_t pid)
{
	struct kernel_walk *kw = arg;
	struct taught_process *p;

	pthread_mutex_lock(&kw->lock);
	HASH_FIND(hh, kw->processes, &pid, sizeof(pid), p);
	if (p) {
		take_back(kw, p);
		free_process(kw, p);
	}
	pthread_mutex_unlock(&kw->lock);
}

/* Whether [start, end) meets one of n ranges [s[i], e[i]). */
static bool meets(const uint64_t *s, const uint64_t *e, size_t n, uint64_t start, uint64_t end)
{
	for (size_t i = 0; i < n; i++)
		if (start < e[i] && s[i] < end)
			return true;
	return false;
}

/*
 * Whether code mapped at [start, end) covers code the sampler saw mapped
 * since the exec; remembered.  Past KW_SEEN_MAX mappings (a JIT's) every
 * new one is taken as covering.
 */
static bool maps_over_seen(struct taught_process *p, uint64_t start, uint64_t end)
{
	if (meets(p->seen_start, p->seen_end, p->nseen, start, end) || p->nseen >= KW_SEEN_MAX)
		return true;
	if (p->nseen == p->seen_cap) {
		p->seen_cap = p->seen_cap ? 2 * p->seen_cap : 16;
		p->seen_start = st_xrealloc(p->seen_start, p->seen_cap * sizeof(*p->seen_start));
		p->seen_end = st_xrealloc(p->seen_end, p->seen_cap * sizeof(*p->seen_end));
	}
	p->seen_start[p->nseen] = start;
	p->seen_end[p->nseen++] = end;
	return false;
}

void kernel_walk_mapped(struct kernel_walk *kw, pid_t pid, uint64_t time, uint64_t start,
			uint64_t len)
{
	struct taught_process *p;

	uint64_t end = len > UINT64_MAX - start ? UINT64_MAX : start + len;
	bool replaced;

	pthread_mutex_lock(&kw->lock);
	p = process_of(kw, pid);
	if (!len)
		p->nseen = 0;
	replaced = !len || maps_over_seen(p, start, end);
	/* No view older than this is taught from now on (it may hold what this covers). */
	if (replaced && time > p->replaced_at)
		p->replaced_at = time;
	/*
	 * Code mapped where the kernel holds none (a library loaded) leaves
	 * what it holds right: a walk that meets the new code lets its
	 * sample out.  Taken back, every sample of a starting program waited
	 * for the model to teach its mappings again, library by library.
	 */
	if (!len || !p->held || meets(p->held_start, p->held_end, p->nheld, start, end))
		take_back(kw, p);
	pthread_mutex_unlock(&kw->lock);
}

bool kernel_walk_holds(struct kernel_walk *kw, pid_t pid)
{
	struct taught_process *p;
	bool held;

	pthread_mutex_lock(&kw->lock);
	HASH_FIND(hh, kw->processes, &pid, sizeof(pid), p);
	held = p && p->held;
	pthread_mutex_unlock(&kw->lock);
	return held;
}

static int map_fd(struct kernel_walk *kw, const char *name)
{
	return bpf_object__find_map_fd_by_name(kw->obj, name);
}

/* The tracepoints where interrupts begin and end, and their programs (one pair a kind). */
static const char *const irq_points[][4] = {
	{ "irq_handler_entry", "kw_hardirq_in", "irq_handler_exit", "kw_hardirq_out" },
	{ "softirq_entry", "kw_softirq_in", "softirq_exit", "kw_softirq_out" },
	{ "hrtimer_expire_entry", "kw_hrtimer_in", "hrtimer_expire_exit", "kw_hrtimer_out" },
};

#define WAKES	"kw_note_wake", "kw_hardirq_in", "kw_hardirq_out", "kw_softirq_in", \
		"kw_softirq_out", "kw_hrtimer_in", "kw_hrtimer_out"

/* The programs left out, tier by tier, where the kernel refuses the whole. */
static const char *const optional[][10] = {
	{ NULL },
	{ WAKES, NULL },
	{ WAKES, "kw_walk_switch", "kw_note_switch", NULL },
};
/* Without --off-cpu: the object without the wakes', and no switches' either. */
static const char *const samples_only[][10] = {
	{ "kw_walk_switch", "kw_note_switch", NULL },
};

struct kernel_walk *kernel_walk_open(bool off_cpu, char *why, size_t len)
{
	struct bpf_object_open_opts opts = { .sz = sizeof(opts), .object_name = "shimtop_walk" };
	struct kernel_walk *kw = st_xcalloc(1, sizeof(*kw));
	const char *const (*left_out)[10] = off_cpu ? optional : samples_only;
	size_t tiers = off_cpu ? sizeof(optional) / sizeof(optional[0]) : 1;
	struct bpf_program *prog;
	int err = -EINVAL;

	libbpf_set_print(quiet);
	/*
	 * A kernel that refuses the wakeups' program (no BTF, no
	 * sched_waking) walks switches still; one that refuses the
	 * switches' walks samples still.
	 */
	for (size_t tier = 0; tier < tiers; tier++) {
		bpf_object__close(kw->obj);
		kw->obj = off_cpu ? bpf_object__open_mem(kernel_walk_wakes_obj,
							 kernel_walk_wakes_obj_len, &opts)
				  : bpf_object__open_mem(kernel_walk_obj, kernel_walk_obj_len, &opts);
		err = kw->obj ? 0 : -errno;
		for (size_t i = 0; !err && left_out[tier][i]; i++) {
			prog = bpf_object__find_program_by_name(kw->obj, left_out[tier][i]);
			err = prog ? bpf_program__set_autoload(prog, false) : -ENOENT;
		}
		if (!err)
			err = bpf_object__load(kw->obj);
		if (!err || !kw->obj)
			break;
	}
	if (err) {
		snprintf(why, len, "the kernel refused shimtop's BPF stack walker (%s%s): "
			 "stacks are copied and walked in user space",
			 strerror(err < 0 ? -err : err),
			 err == -EPERM || err == -EACCES ? "; it needs root, or CAP_BPF and CAP_PERFMON"
							 : "");
		kernel_walk_close(kw);
		return NULL;
	}
	prog = bpf_object__find_program_by_name(kw->obj, "kw_walk");
	kw->prog = prog ? bpf_program__fd(prog) : -1;
	prog = bpf_object__find_program_by_name(kw->obj, "kw_walk_switch");
	kw->switch_prog = prog && bpf_program__autoload(prog) ? bpf_program__fd(prog) : -1;
	kw->procs = map_fd(kw, "kw_procs");
	kw->rows = map_fd(kw, "kw_rows");
	kw->counts = map_fd(kw, "kw_counts");
	kw->config = map_fd(kw, "kw_config");
	kw->out = map_fd(kw, "kw_out");
	kw->watched = map_fd(kw, "kw_watched");
	if (kw->prog < 0 || kw->procs < 0 || kw->rows < 0 || kw->counts < 0 ||
	    kw->config < 0 || kw->out < 0 || kw->watched < 0 || map_fd(kw, "kw_files") < 0 || map_fd(kw, "kw_dict") < 0) {
		snprintf(why, len, "shimtop's BPF stack walker lacks a part (a build fault): "
			 "stacks are copied and walked in user space");
		kernel_walk_close(kw);
		return NULL;
	}
	pthread_mutex_init(&kw->lock, NULL);
	pthread_mutex_init(&kw->pages_lock, NULL);
	/* SHIMTOP_KERNEL_PAGES=0: rows taught address by address alone (comparisons). */
	kw->pages_on = !(getenv("SHIMTOP_KERNEL_PAGES") && !strcmp(getenv("SHIMTOP_KERNEL_PAGES"), "0")) &&
		       kw_pages_init(&kw->pages, map_fd(kw, "kw_files"), map_fd(kw, "kw_dict"));
	kw->teacher = (struct unwind_teacher){ teach_maps, teach_row, forget_process, take_needs,
					       flush_rows, kw->pages_on ? teach_pages : NULL,
					       kw->pages_on ? settle_pages : NULL, kw };
	return kw;
}

void kernel_walk_close(struct kernel_walk *kw)
{
	if (!kw)
		return;
	while (kw->processes)
		free_process(kw, kw->processes);
	kw_pages_clear(&kw->pages);
	if (kw->teacher.arg) {
		pthread_mutex_destroy(&kw->lock);
		pthread_mutex_destroy(&kw->pages_lock);
	}
	bpf_link__destroy(kw->waking);
	for (size_t i = 0; i < sizeof(kw->irq_links) / sizeof(kw->irq_links[0]); i++)
		bpf_link__destroy(kw->irq_links[i]);
	bpf_link__destroy(kw->noting);
	bpf_object__close(kw->obj);
	free(kw);
}

static void write_config(struct kernel_walk *kw)
{
	struct kw_config c = { .check = kw->check, .watch_all = kw->watch_all };
	__u32 zero = 0;

	bpf_map_update_elem(kw->config, &zero, &c, BPF_ANY);
}

void kernel_walk_set_check(struct kernel_walk *kw, bool on)
{
	kw->check = on;
	write_config(kw);
}

void kernel_walk_watch(struct kernel_walk *kw, pid_t pid, bool on)
{
	__u32 key = (__u32)pid;
	__u8 yes = 1;

	/* Full (KW_PROCS_MAX): its wakeups are sent once its mappings are taught. */
	if (on)
		bpf_map_update_elem(kw->watched, &key, &yes, BPF_ANY);
	else
		bpf_map_delete_elem(kw->watched, &key);
}

void kernel_walk_watch_all(struct kernel_walk *kw)
{
	kw->watch_all = true;
	write_config(kw);
}

bool kernel_walk_checking(const struct kernel_walk *kw)
{
	return kw && kw->check;
}

int kernel_walk_attach(struct kernel_walk *kw, int fd)
{
	return ioctl(fd, PERF_EVENT_IOC_SET_BPF, kw->prog) < 0 ? -errno : 0;
}

/*
 * Who woke each wait, where this kernel can say (BTF, sched_waking, the
 * interrupts' tracepoints): all or none; the switches go on without.
 */
static void note_wakes(struct kernel_walk *kw)
{
	struct bpf_program *wake = bpf_object__find_program_by_name(kw->obj, "kw_note_wake");
	size_t n = 0;

	/* SHIMTOP_WAKERS=0: not noted (the benchmarks' comparison). */
	if (!wake || !bpf_program__autoload(wake) ||
	    (getenv("SHIMTOP_WAKERS") && !strcmp(getenv("SHIMTOP_WAKERS"), "0")))
		return;
	for (size_t i = 0; i < sizeof(irq_points) / sizeof(irq_points[0]); i++) {
		/* Exits first: an interrupt under way as they attach is not noted as going on. */
		for (int end = 1; end >= 0; end--) {
			struct bpf_program *prog =
				bpf_object__find_program_by_name(kw->obj, irq_points[i][2 * end + 1]);

			kw->irq_links[n] = prog ? bpf_program__attach_raw_tracepoint(
						prog, irq_points[i][2 * end]) : NULL;
			if (!kw->irq_links[n++])
				goto fail;
		}
	}
	kw->waking = bpf_program__attach_trace(wake);
	if (kw->waking)
		return;
fail:
	for (size_t i = 0; i < n; i++) {
		bpf_link__destroy(kw->irq_links[i]);
		kw->irq_links[i] = NULL;
	}
}

int kernel_walk_note_switches(struct kernel_walk *kw)
{
	struct bpf_program *prog;

	if (kw->noting || kw->noting_err)
		return kw->noting_err;
	prog = bpf_object__find_program_by_name(kw->obj, "kw_note_switch");
	if (kw->switch_prog < 0 || !prog || !bpf_program__autoload(prog)) {
		kw->noting_err = -EOPNOTSUPP;
		return kw->noting_err;
	}
	/* Refused where sched_switch gives no prev_state (before 5.18): its context is too short. */
	kw->noting = bpf_program__attach_raw_tracepoint(prog, "sched_switch");
	if (!kw->noting) {
		kw->noting_err = -errno ? -errno : -EINVAL;
		return kw->noting_err;
	}
	note_wakes(kw);
	return 0;
}

bool kernel_walk_notes_wakes(const struct kernel_walk *kw)
{
	return kw && kw->waking;
}

int kernel_walk_attach_switches(struct kernel_walk *kw, int fd)
{
	if (!kw->noting)
		return -EOPNOTSUPP;
	return ioctl(fd, PERF_EVENT_IOC_SET_BPF, kw->switch_prog) < 0 ? -errno : 0;
}

int kernel_walk_open_output(struct kernel_walk *kw, int cpu, uint32_t wake_bytes)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(a), .config = PERF_COUNT_SW_BPF_OUTPUT,
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			       PERF_SAMPLE_RAW,
		/* The sampler is woken as by its sample rings: a quarter full, not each chain. */
		.sample_period = 1, .watermark = 1, .wakeup_watermark = wake_bytes,
		/* The sampling events' clock: chains and records interleave by time. */
		.use_clockid = 1, .clockid = CLOCK_MONOTONIC,
	};
	__u32 key = (__u32)cpu;
	int fd = (int)syscall(SYS_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (bpf_map_update_elem(kw->out, &key, &fd, BPF_ANY) != 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

const struct unwind_teacher *kernel_walk_teacher(struct kernel_walk *kw)
{
	return &kw->teacher;
}

void kernel_walk_counts(const struct kernel_walk *kw, uint64_t counts[KW_COUNTS])
{
	int ncpus = libbpf_num_possible_cpus();
	uint64_t *per = ncpus > 0 ? st_xcalloc((size_t)ncpus, sizeof(*per)) : NULL;

	for (__u32 k = 0; k < KW_COUNTS; k++) {
		counts[k] = 0;
		if (!per || bpf_map_lookup_elem(kw->counts, &k, per) != 0)
			continue;
		for (int c = 0; c < ncpus; c++)
			counts[k] += per[c];
	}
	free(per);
}

/* What a bpf-output sample holds, checked: its head, and the chain it carries. */
struct walked {
	uint32_t pid, tid;
	uint64_t time;
	struct kw_chain c;
};

static bool read_walked(const struct perf_event_header *ev, struct walked *w)
{
	const unsigned char *p = (const unsigned char *)(ev + 1);
	size_t have = ev->size >= sizeof(*ev) ? ev->size - sizeof(*ev) : 0;
	uint32_t raw;

	/* pid tid, time, cpu res, raw size: 28 bytes before the chain. */
	if (ev->type != PERF_RECORD_SAMPLE || have < 28)
		return false;
	memcpy(&w->pid, p, 4);
	memcpy(&w->tid, p + 4, 4);
	memcpy(&w->time, p + 8, 8);
	memcpy(&raw, p + 24, 4);
	if (raw > have - 28 || raw < offsetof(struct kw_chain, ip))
		return false;
	memset(&w->c, 0, sizeof(w->c));
	memcpy(&w->c, p + 28, raw < sizeof(w->c) ? raw : sizeof(w->c));
	if (w->c.stop == KW_STOP_NEED_ROW)
		return !w->c.n && raw >= offsetof(struct kw_chain, ip) + 8;
	if (w->c.stop == KW_STOP_TOLD)
		return !w->c.n && (w->c.switched & KW_SWITCHED);
	if (w->c.stop == KW_STOP_WOKE)
		return !w->c.n && raw >= offsetof(struct kw_chain, ip) + sizeof(struct kw_woke);
	/* A user frame at least: a sample whose user stack could not be read went out as itself. */
	return w->c.n && w->c.n <= KW_FRAMES_MAX && w->c.kernel < w->c.n &&
	       w->c.kernel <= KW_KERNEL_FRAMES_MAX &&
	       raw >= offsetof(struct kw_chain, ip) + 8 * (size_t)w->c.n;
}

bool kernel_walk_read_need(const struct perf_event_header *ev, struct unwind_need *out)
{
	struct walked w;

	if (!read_walked(ev, &w) || w.c.stop != KW_STOP_NEED_ROW || !w.c.sp || w.c.sp > UINT32_MAX)
		return false;
	*out = (struct unwind_need){ (uint32_t)w.c.sp, w.c.ip[0] };
	return true;
}

bool kernel_walk_take_need(struct kernel_walk *kw, const struct perf_event_header *ev)
{
	struct unwind_need need;

	if (!kernel_walk_read_need(ev, &need))
		return false;
	pthread_mutex_lock(&kw->lock);
	if (kw->nneeds < KW_NEEDS_MAX)
		kw->needs[kw->nneeds++] = need;
	pthread_mutex_unlock(&kw->lock);
	return true;
}

uint64_t kernel_walk_lost(const struct perf_event_header *ev)
{
	uint64_t lost;

	/* The event's id, then the count. */
	if (ev->type != PERF_RECORD_LOST || ev->size < sizeof(*ev) + 16)
		return 0;
	memcpy(&lost, (const unsigned char *)(ev + 1) + 8, sizeof(lost));
	return lost;
}

/*
 * Why a thread left its CPU, from sched_switch's raw prev_state (the
 * task's __state), as the tracepoint reports it (its fls of the
 * reported bits, TASK_IDLE as I, a dying task as X).
 */
enum st_offcpu_reason kernel_walk_switch_reason(uint32_t switched)
{
	uint32_t state = switched & KW_STATE, report = state & 0x7f;

	if (switched & KW_UNTOLD)
		return ST_OFFCPU_OTHER;
	if (switched & KW_PREEMPTED)
		return ST_OFFCPU_RUNNABLE;
	if (state == 0x402)		/* TASK_IDLE */
		return perf_offcpu_reason(0x80);
	if (state & 0x80)		/* TASK_DEAD */
		return ST_OFFCPU_EXITED;
	if (state == 0x1000)		/* TASK_RTLOCK_WAIT: reported D */
		return ST_OFFCPU_DISK;
	return perf_offcpu_reason(report ? 1u << (31 - __builtin_clz(report)) : 0);
}

/* A switch's state told apart from its sample (let out next), as an st_switch. */
static size_t convert_told(const struct walked *w, void *out, size_t room)
{
	struct st_switch *s = out;

	if (room < sizeof(*s))
		return 0;
	memset(s, 0, sizeof(*s));
	s->h.type = ST_REC_SWITCH;
	s->h.size = sizeof(*s);
	s->pid = w->pid;
	s->tid = w->tid;
	s->time = w->time;
	s->flags = ST_SWITCH_OUT | ST_SWITCH_TOLD;
	s->reason = kernel_walk_switch_reason(w->c.switched);
	return sizeof(*s);
}

/* A target thread woken, and by whom (the sample's thread), as an st_wake. */
static size_t convert_woke(const struct walked *w, void *out, size_t room)
{
	struct st_wake *s = out;
	struct kw_woke k;

	memcpy(&k, w->c.ip, sizeof(k));
	if (room < sizeof(*s) || !k.tid || !k.pid)
		return 0;
	memset(s, 0, sizeof(*s));
	s->h.type = ST_REC_WAKE;
	s->h.size = sizeof(*s);
	s->pid = k.pid;
	s->tid = k.tid;
	s->time = w->time;
	if (k.interrupt) {
		s->flags = ST_WAKE_INTERRUPT;
	} else {
		s->waker_pid = w->pid;
		s->waker_tid = w->tid;
		memcpy(s->waker_comm, k.comm, sizeof(s->waker_comm));
	}
	return sizeof(*s);
}

size_t kernel_walk_convert(const struct perf_event_header *ev, void *out, size_t room)
{
	struct walked w;
	const struct kw_chain *c = &w.c;
	struct st_sample *s = out;
	size_t size, n = 0, kernel;

	if (!read_walked(ev, &w) || w.c.stop == KW_STOP_NEED_ROW)
		return 0;
	if (w.c.stop == KW_STOP_TOLD)
		return convert_told(&w, out, room);
	if (w.c.stop == KW_STOP_WOKE)
		return convert_woke(&w, out, room);
	kernel = c->kernel;
	size = sizeof(*s) + 8 * (size_t)c->n + 16;
	if (size > room)
		return 0;
	memset(s, 0, sizeof(*s));
	/*
	 * The kernel's frames are its sample's chain (bpf_get_stack reads the
	 * one perf made), context marks and all: the marks go, as perf's go.
	 */
	for (uint32_t i = 0; i < c->n; i++) {
		if (i < c->kernel && c->ip[i] >= (uint64_t)PERF_CONTEXT_MAX) {
			kernel--;
			continue;
		}
		s->data[n++] = c->ip[i];
	}
	if (n <= kernel)
		return 0;
	size = sizeof(*s) + 8 * (size_t)n + 16;
	s->h.type = ST_REC_SAMPLE;
	s->h.size = (uint32_t)size;
	s->pid = w.pid;
	s->tid = w.tid;
	s->time = w.time;
	s->ip = s->data[0];
	s->period = c->period;
	s->cpumode = kernel ? ST_MODE_KERNEL : ST_MODE_USER;
	s->nchain = (uint16_t)n;
	s->flags = ST_SAMPLE_KERNEL_WALKED |
		   (c->stop == KW_STOP_MAX_FRAMES ? ST_SAMPLE_CHAIN_TRUNC : 0);
	if (c->switched & KW_SWITCHED)
		s->flags |= (uint32_t)kernel_walk_switch_reason(c->switched) << ST_SAMPLE_OFFCPU_SHIFT;
	s->data[n] = c->sp;
	s->data[n + 1] = kernel;
	return size;
}
