/*
 * kernel_walk_abi.h - what the kernel's walker (kernel_walk.bpf.c) and
 * shimtop share: the maps user space fills (a process's code mappings,
 * the rows its walks used) and the chain each walked sample comes back as.
 * Fixed-size types only: the same bytes on both sides.
 */
#ifndef SHIMTOP_KERNEL_WALK_ABI_H
#define SHIMTOP_KERNEL_WALK_ABI_H

#include <linux/types.h>

#define KW_MAPS_MAX	128	/* code mappings a process can have walked in the kernel */
#define KW_FRAMES_MAX	127	/* perf's own default chain length */
#define KW_KERNEL_FRAMES_MAX	63	/* of them, a sample in the kernel's own frames at most */
#define KW_ROWS_MAX	(1u << 15)
#define KW_PROCS_MAX	4096
/*
 * A row key's addr with one of these bits: a block all of whose
 * addresses share the row, of 64 bytes or (where rows change more
 * often, in short functions) of 16.
 */
#define KW_BLOCK	(1ull << 63)
#define KW_BLOCK_SIZE	64
#define KW_BLOCK_SMALL	(1ull << 62)
#define KW_SMALL_SIZE	16

/*
 * A file's whole CFI compiled into pages (symbols/unwind_pages.h), an
 * array of __u32 in the kernel, one map per file (kw_files[file]):
 *   [KW_PAGES_FIRST]	the file's first page (file address >> KW_PAGE_SHIFT)
 *   [KW_PAGES_SPAN]	how many pages from it the index covers
 *   [KW_PAGES_INDEX + 2k], [+ 1]	page first + k's entries: where, how many (0: none)
 *   then the entries: a row's start in its page << 16 | its index in kw_dict.
 */
#define KW_PAGE_SHIFT	12
#define KW_PAGES_FIRST	0
#define KW_PAGES_SPAN	1
#define KW_PAGES_INDEX	2
#define KW_PAGE_SEARCH	13	/* halvings that find any of a page's 4,096 offsets */
#define KW_FILES_MAX	4096	/* files with their pages in the kernel */
#define KW_DICT_MAX	(1u << 14)	/* distinct rows over every file's pages */

struct kw_map {
	__u64 start, end;	/* the mapping's addresses */
	__u64 vaddr;		/* the file address start stands for */
	__u32 file;		/* the file's id in the row keys */
	__u32 pad;
};

struct kw_proc {
	__u32 n;		/* sorted by start, not overlapping; those past n start at ~0 */
	__u32 pad;
	struct kw_map m[KW_MAPS_MAX];
};

struct kw_row_key {
	__u32 file;
	__u32 pad;
	__u64 addr;		/* a file address, or a block's start | KW_BLOCK or KW_BLOCK_SMALL */
};

/* symbols/unwind_rows.h's row kinds (checked equal in kernel_walk.c). */
#define KW_ROW_CFA_RSP		0
#define KW_ROW_CFA_RBP		1
#define KW_ROW_CFA_RBX		2
#define KW_ROW_PLT		3
#define KW_ROW_OUTERMOST	4
#define KW_ROW_OTHER		5
#define KW_ROW_NONE		6

/* symbols/unwind_rows.h's row, as the kernel applies it. */
struct kw_row {
	__s32 cfa_off;
	__s16 ra_off, rbp_off, rbx_off;
	__u8 kind;		/* KW_ROW_* */
	__u8 plt_at;
	__u8 rbp_lost, rbx_lost;
	__u8 pad[2];
};

/* Why the kernel walked no chain and let the sample out with its stack copy. */
enum kw_count {
	KW_WALKED,		/* walked: the chain came back */
	KW_KERNEL_MODE,		/* the sample is in the kernel, its user registers not at hand */
	KW_NO_PROCESS,		/* its process's mappings are not known (yet) */
	KW_NO_MAPPING,		/* an address outside them */
	KW_NO_ROW,		/* an address no walk in user space has taught */
	KW_HARD_RULE,		/* a rule only libdwfl applies, or an rbp not known */
	KW_COUNTS
};

/* How a walk ended (as symbols/unwind.h's enum unwind_stop, for the counts). */
enum kw_stop {
	KW_STOP_OUTERMOST,
	KW_STOP_RBP_ZERO,
	KW_STOP_UNREADABLE,	/* a return address that cannot be read: the stack's end */
	KW_STOP_NO_RULE,	/* garbage: a CFA below the frame, an rbp below sp */
	KW_STOP_MAX_FRAMES,
	KW_STOP_NEED_ROW,	/* no chain: a row asked for (file in sp, its address in ip[0]) */
	KW_STOP_TOLD,		/* no chain: a switch's state (switched), its sample let out */
	KW_STOP_WOKE,		/* no chain: a target thread woken (struct kw_woke in ip[]) */
};

/*
 * A walked sample: the raw data of a bpf-output event.  With stop
 * KW_STOP_NEED_ROW and n 0, a request instead: the sample went out with
 * its copy for want of the row of file sp's address ip[0], which a walk
 * in user space may never reach (its copy ends first).
 */
struct kw_chain {
	__u64 period;
	__u64 sp;		/* the sample's user stack pointer */
	__u32 n;		/* ip[0..n-1], innermost first */
	__u32 stop;		/* enum kw_stop */
	__u32 kernel;		/* ip[0..kernel-1]: the kernel's frames of a sample taken there */
	__u32 switched;		/* a switch out: KW_SWITCHED and the rest; else 0 */
	__u64 ip[KW_FRAMES_MAX + 1];
};

/*
 * kw_chain.switched: a switch out, preempted or not, and sched_switch's
 * raw prev_state (the task's __state: TASK_* bits, all below these).
 */
#define KW_SWITCHED		(1u << 31)
#define KW_PREEMPTED		(1u << 30)
#define KW_UNTOLD		(1u << 29)	/* its sched_switch not seen: state unknown */
#define KW_STATE		((1u << 29) - 1)

#define KW_WAKEES_MAX	65536	/* threads whose last waker the kernel remembers */

/*
 * A wakeup of a target thread, sent by its waker (sched_waking runs in
 * the waker's context: the sample's pid and tid are the waker's) as a
 * kw_chain with stop KW_STOP_WOKE, n 0, and this in place of ip[]: only
 * where the waker is not the one last sent for the thread.
 */
struct kw_woke {
	__u32 pid, tid;		/* the thread woken */
	__u32 interrupt;	/* 1: woken from an interrupt, whose thread did not wake it */
	__u32 pad;
	char comm[16];		/* the waker's */
};

struct kw_config {
	__u32 check;		/* 1: walk, send the chain and let the sample out too */
	__u32 watch_all;	/* 1: every process's wakeups are sent (-a) */
};

#endif
