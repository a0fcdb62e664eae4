/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The interface of shimtop's IBS module, shared by the module
 * (src/kmod/) and shimtop's kmod source (src/sampler/).
 *
 * /dev/shimtop_ibs (root or CAP_PERFMON; one holder at a time, others get
 * EBUSY) takes the ioctls below and maps the rings: one per possible
 * CPU, each at cpu * info.ring_stride in the mapping.  A ring is
 * written by that CPU's overflow handler (an NMI) and read by user
 * space without a system call:
 *
 *   the handler: if head - tail < nrec, write rec[head % nrec], then
 *                publish head + 1 (release); else count a drop
 *   the reader:  read head (acquire), read the records before it, then
 *                publish tail (release)
 *
 * so that, at all times, produced = consumed (tail) + buffered (head -
 * tail) + dropped.  The module never indexes by tail: a reader that
 * writes nonsense there loses its own samples, nothing else.  When the
 * holder closes the device (and unmaps it), sampling stops and its
 * targets and unread records are gone.
 */
#ifndef SHIMTOP_IBS_UAPI_H
#define SHIMTOP_IBS_UAPI_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define SHIMTOP_IBS_VERSION	2
#define SHIMTOP_IBS_DEVICE	"/dev/shimtop_ibs"

/* IBS's own limits on the op period (in ops or cycles). */
#define SHIMTOP_IBS_MIN_PERIOD	0x90
#define SHIMTOP_IBS_PERIOD_STEP	16
#define SHIMTOP_IBS_MAX_PERIOD	0x7fffff0	/* with MaxCnt's extension */

#define SHIMTOP_IBS_MIN_RECORDS	64
#define SHIMTOP_IBS_MAX_RECORDS	65536	/* per ring */
#define SHIMTOP_IBS_MAX_TIDS	1024
#define SHIMTOP_IBS_MAX_REGS	9

/* A record's type. */
#define SHIMTOP_IBS_REC_OP	1	/* one op sample: its registers */
#define SHIMTOP_IBS_REC_COUNT	2	/* aggregated: count ops of pid, tid at rip */
#define SHIMTOP_IBS_REC_TEST	3	/* selftest: pushed by SHIMTOP_IBS_IOC_PUSH */

/* flags */
#define SHIMTOP_IBS_KERNEL	0x1	/* the op ran in kernel mode */

struct shimtop_ibs_record {
	__u16 type;
	__u8 nregs;		/* REC_OP: registers in reg[] */
	__u8 flags;
	__u32 cpu;
	__u32 pid;
	__u32 tid;
	__u64 time;		/* ns, the kernel's monotonic clock */
	__u64 rip;
	__u64 count;		/* REC_COUNT: ops; else 1 */
	__u32 caps;		/* REC_OP: IBS capabilities (CPUID Fn8000_001B EAX) */
	__u32 seq;		/* this ring's sequence number, for the reader's checks */
	__u64 reg[SHIMTOP_IBS_MAX_REGS];	/* as perf's raw ibs_op sample */
	__u64 pad;
};

/* A ring's header; its records follow, 64-byte aligned. */
struct shimtop_ibs_ring {
	__u64 head;		/* written by the module */
	__u64 pad0[7];
	__u64 tail;		/* written by the reader */
	__u64 pad1[7];
	__u64 dropped;		/* records the ring had no room for */
	__u64 nrec;		/* a power of two */
	__u64 pad2[6];
};

struct shimtop_ibs_info {
	__u32 version;		/* SHIMTOP_IBS_VERSION */
	__u32 rings;		/* one per possible CPU */
	__u32 nrec;		/* records per ring */
	__u32 selftest;		/* 1: loaded with selftest=1, no sampling */
	__u64 ring_stride;	/* bytes from one ring to the next, page aligned */
	__u64 map_size;		/* bytes to mmap */
	__u64 period;
	__u32 caps;		/* IBS capabilities, 0 under selftest */
	__u32 running;
	__u64 config;		/* the ibs_op attributes sampling starts with */
	__u64 config1;
};

struct shimtop_ibs_stats {
	__u64 samples;		/* op samples taken for registered threads */
	__u64 kernel_samples;	/* of those, in kernel mode */
	__u64 dropped;		/* records a full ring refused (all rings) */
	__u64 spurious;		/* overflows of no registered thread */
	__u64 aggregated;	/* samples counted in the aggregation table */
	__u64 flushed;		/* count records written by the table */
};

/* SHIMTOP_IBS_IOC_ADD and _REMOVE: one thread, or every thread of a process. */
#define SHIMTOP_IBS_PROCESS	0x1
struct shimtop_ibs_target {
	__u32 id;		/* a tid, or a pid with SHIMTOP_IBS_PROCESS */
	__u32 flags;
};

/*
 * SHIMTOP_IBS_IOC_CONFIG: the ibs_op attributes, as perf_event_attr's
 * config and config1 (cnt_ctl, l3missonly, ldlat: the bits sysfs's
 * format/ names), while sampling is off; the kernel's IBS driver checks
 * them when sampling starts.  Until set, config is the ibs_config
 * module parameter and config1 0.
 */
struct shimtop_ibs_config {
	__u64 config;
	__u64 config1;
};

struct shimtop_ibs_push {
	__u32 cpu;		/* the ring */
	__u32 count;		/* records, at most nrec */
	__u32 tid;
	__u32 pad;
	__u64 rip;
};

#define SHIMTOP_IBS_IOC_MAGIC	0xb5
#define SHIMTOP_IBS_IOC_INFO	_IOR(SHIMTOP_IBS_IOC_MAGIC, 1, struct shimtop_ibs_info)
#define SHIMTOP_IBS_IOC_ENABLE	_IOW(SHIMTOP_IBS_IOC_MAGIC, 2, __u32)
#define SHIMTOP_IBS_IOC_ADD	_IOW(SHIMTOP_IBS_IOC_MAGIC, 3, struct shimtop_ibs_target)
#define SHIMTOP_IBS_IOC_REMOVE	_IOW(SHIMTOP_IBS_IOC_MAGIC, 4, struct shimtop_ibs_target)
#define SHIMTOP_IBS_IOC_START	_IOW(SHIMTOP_IBS_IOC_MAGIC, 5, struct shimtop_ibs_target)
#define SHIMTOP_IBS_IOC_STOP	_IOW(SHIMTOP_IBS_IOC_MAGIC, 6, struct shimtop_ibs_target)
#define SHIMTOP_IBS_IOC_CLEAR	_IO(SHIMTOP_IBS_IOC_MAGIC, 7)
#define SHIMTOP_IBS_IOC_PERIOD	_IOW(SHIMTOP_IBS_IOC_MAGIC, 8, __u64)
#define SHIMTOP_IBS_IOC_RING	_IOW(SHIMTOP_IBS_IOC_MAGIC, 9, __u32)
#define SHIMTOP_IBS_IOC_AGGREGATE _IOW(SHIMTOP_IBS_IOC_MAGIC, 10, __u32)
#define SHIMTOP_IBS_IOC_STATS	_IOR(SHIMTOP_IBS_IOC_MAGIC, 11, struct shimtop_ibs_stats)
#define SHIMTOP_IBS_IOC_PUSH	_IOW(SHIMTOP_IBS_IOC_MAGIC, 12, struct shimtop_ibs_push)
#define SHIMTOP_IBS_IOC_CONFIG	_IOW(SHIMTOP_IBS_IOC_MAGIC, 13, struct shimtop_ibs_config)

#endif
