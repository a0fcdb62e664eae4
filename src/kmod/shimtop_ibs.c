// SPDX-License-Identifier: GPL-2.0
/*
 * AMD IBS op samples for shimtop: per-thread control,
 * one lock-free ring per CPU mapped to user space, optional in-kernel
 * aggregation of (tid, rip) counts.
 *
 * IBS is driven through the kernel's own ibs_op PMU (perf's in-kernel
 * API, one counter per CPU), never by writing its MSRs: Linux's IBS
 * driver owns them.  The overflow handler runs in NMI context on the
 * CPU that took the sample and writes that CPU's ring alone, so each
 * ring has one writer and needs no lock (uapi/shimtop_ibs.h).
 *
 * selftest=1 loads without IBS, for tests in a VM: SHIMTOP_IBS_IOC_PUSH
 * then pushes made-up records through the same insert path.  Nothing it
 * pushes is a sample.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <asm/cpufeature.h>
#include <asm/processor.h>

#include "uapi/shimtop_ibs.h"

#define AGG_WAYS		4
#define AGG_BUCKETS		256	/* per CPU: 16 KiB */

static bool selftest;
module_param(selftest, bool, 0444);
MODULE_PARM_DESC(selftest, "load without IBS; allow test pushes into the rings (never sampling)");

static int ibs_type = -1;
module_param(ibs_type, int, 0444);
MODULE_PARM_DESC(ibs_type, "perf type of the ibs_op PMU (/sys/bus/event_source/devices/ibs_op/type)");

static ulong ibs_config;
module_param(ibs_config, ulong, 0444);
MODULE_PARM_DESC(ibs_config, "ibs_op config bits (e.g. cnt_ctl), as its sysfs format places them");

/*
 * One (pid, tid, mode, rip) count in 16 bytes, four to a cache line:
 * DCPI's bucket.  key packs the tid and the pid (each under
 * PID_MAX_LIMIT, 2^22), the kernel-mode bit and, above them, the count,
 * which flushes when it would overflow its 19 bits.  A count of 0 is
 * an empty way.
 */
#define AGG_ID_BITS		22
#define AGG_KERNEL		BIT_ULL(2 * AGG_ID_BITS)
#define AGG_COUNT_SHIFT		(2 * AGG_ID_BITS + 1)
#define AGG_COUNT_ONE		BIT_ULL(AGG_COUNT_SHIFT)
#define AGG_COUNT_MAX		((u64)(-1) >> AGG_COUNT_SHIFT)
#define AGG_ID_MASK		(BIT_ULL(AGG_ID_BITS) - 1)

struct agg_entry {
	u64 key;
	u64 rip;
};

struct agg_bucket {
	struct agg_entry e[AGG_WAYS];
} ____cacheline_aligned;

/* What one CPU's handler owns: its ring, its table, its counts. */
struct cpu_state {
	struct shimtop_ibs_ring *ring;
	struct shimtop_ibs_record *rec;
	struct agg_bucket *agg;
	struct perf_event *event;
	u64 head;		/* the module's own copy: the mapped one is only shown */
	u32 seq;
	u32 evict;
	u64 random;
	u64 ring_dropped;	/* this ring's, since it was made */
	u64 samples, kernel_samples, dropped, spurious, aggregated, flushed;
};

/*
 * The registered threads: a slot is 0 or id | flags << 32, published
 * whole so the handler reads it in one load; written under ctl_lock.
 */
#define TARGET_STARTED		BIT_ULL(63)
#define TARGET_PROCESS		BIT_ULL(32)
static u64 targets[SHIMTOP_IBS_MAX_TIDS];
static unsigned int targets_used;	/* slots below this may be in use */

static DEFINE_MUTEX(ctl_lock);
static struct cpu_state *cpus;
static void *area;
static size_t area_size, ring_stride;
static u32 nrec = 4096;
static u64 period = 0x10000;
static bool running, aggregate;
static atomic_t mappings = ATOMIC_INIT(0);
static bool held;		/* one holder at a time: the state is global */
static u32 ibs_caps;
static struct shimtop_ibs_config attr_config;	/* from ibs_config until set */

static bool target_wanted(const struct task_struct *t)
{
	unsigned int n = READ_ONCE(targets_used);
	unsigned int i;

	for (i = 0; i < n && i < SHIMTOP_IBS_MAX_TIDS; i++) {
		u64 v = READ_ONCE(targets[i]);
		u32 id = (u32)v;

		if (!(v & TARGET_STARTED))
			continue;
		if (v & TARGET_PROCESS ? id == (u32)t->tgid : id == (u32)t->pid)
			return true;
	}
	return false;
}

/* The one writer of a ring: drops (and counts) when the reader is behind. */
static void ring_insert(struct cpu_state *cs, struct shimtop_ibs_record *r)
{
	struct shimtop_ibs_ring *ring = cs->ring;
	u64 head = cs->head;
	u64 tail = READ_ONCE(ring->tail);

	/* The reader's tail is never trusted as an index, only for room. */
	if (head - tail >= nrec) {
		WRITE_ONCE(ring->dropped, ++cs->ring_dropped);
		cs->dropped++;
		return;
	}
	r->seq = cs->seq++;
	cs->rec[head & (nrec - 1)] = *r;
	cs->head = head + 1;
	/* The record is whole before the reader sees head move past it. */
	smp_store_release(&ring->head, cs->head);
}

static void flush_entry(struct cpu_state *cs, struct agg_entry *e, int cpu)
{
	struct shimtop_ibs_record r = {
		.type = SHIMTOP_IBS_REC_COUNT,
		.flags = e->key & AGG_KERNEL ? SHIMTOP_IBS_KERNEL : 0,
		.cpu = cpu,
		.pid = (e->key >> AGG_ID_BITS) & AGG_ID_MASK,
		.tid = e->key & AGG_ID_MASK,
		.time = ktime_get_mono_fast_ns(),
		.rip = e->rip,
		.count = e->key >> AGG_COUNT_SHIFT,
	};

	ring_insert(cs, &r);
	cs->flushed++;
	e->key = 0;
}

/* DCPI: count in the bucket; a full bucket flushes one way, round robin. */
static void aggregate_insert(struct cpu_state *cs, const struct shimtop_ibs_record *r)
{
	u64 key = r->tid | (u64)r->pid << AGG_ID_BITS |
		  (r->flags & SHIMTOP_IBS_KERNEL ? AGG_KERNEL : 0);
	u64 h = (r->rip ^ key << 20) * 0x9e3779b97f4a7c15ull;
	struct agg_bucket *b = &cs->agg[(h >> 56) % AGG_BUCKETS];
	struct agg_entry *e;
	int i;

	cs->aggregated++;
	for (i = 0; i < AGG_WAYS; i++) {
		e = &b->e[i];
		if (e->key >> AGG_COUNT_SHIFT && (e->key & (AGG_COUNT_ONE - 1)) == key &&
		    e->rip == r->rip) {
			e->key += AGG_COUNT_ONE;
			if (e->key >> AGG_COUNT_SHIFT == AGG_COUNT_MAX)
				flush_entry(cs, e, r->cpu);
			return;
		}
	}
	for (i = 0; i < AGG_WAYS; i++)
		if (!b->e[i].key)
			break;
	if (i == AGG_WAYS) {
		i = cs->evict++ % AGG_WAYS;
		flush_entry(cs, &b->e[i], r->cpu);
	}
	b->e[i] = (struct agg_entry){ key | AGG_COUNT_ONE, r->rip };
}

static void insert(struct cpu_state *cs, struct shimtop_ibs_record *r)
{
	if (READ_ONCE(aggregate))
		aggregate_insert(cs, r);
	else
		ring_insert(cs, r);
}

/* Empties a CPU's table into its ring; only while nothing else writes it. */
static void aggregate_flush(struct cpu_state *cs, int cpu)
{
	int b, i;

	for (b = 0; b < AGG_BUCKETS; b++)
		for (i = 0; i < AGG_WAYS; i++)
			if (cs->agg[b].e[i].key)
				flush_entry(cs, &cs->agg[b].e[i], cpu);
}

static u64 next_random(struct cpu_state *cs)
{
	u64 x = cs->random;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	cs->random = x;
	return x;
}

/*
 * The period of the next op: within 1/16 of the one asked for, a
 * multiple of 16, never under IBS's minimum (DCPI's randomization, so
 * that no loop's own period lines up with ours).
 */
static u64 random_period(struct cpu_state *cs, u64 want)
{
	u64 span = want >> 4;
	u64 p = want - (want >> 5) + (span ? next_random(cs) % span : 0);

	p &= ~(u64)(SHIMTOP_IBS_PERIOD_STEP - 1);
	return max_t(u64, p, SHIMTOP_IBS_MIN_PERIOD);
}

static void ibs_overflow(struct perf_event *event, struct perf_sample_data *data,
			 struct pt_regs *regs)
{
	int cpu = smp_processor_id();
	struct cpu_state *cs = &cpus[cpu];
	struct shimtop_ibs_record r = { .type = SHIMTOP_IBS_REC_OP, .count = 1 };
	const struct perf_raw_record *raw = data->raw;
	u32 nregs;

	event->hw.sample_period = random_period(cs, READ_ONCE(period));
	if (!target_wanted(current)) {
		cs->spurious++;
		return;
	}
	if (!raw || raw->frag.size < sizeof(u32) + 7 * sizeof(u64))
		return;
	nregs = (raw->frag.size - sizeof(u32)) / sizeof(u64);
	nregs = min_t(u32, nregs, SHIMTOP_IBS_MAX_REGS);
	memcpy(&r.caps, raw->frag.data, sizeof(u32));
	memcpy(r.reg, (const u8 *)raw->frag.data + sizeof(u32), nregs * sizeof(u64));
	r.nregs = nregs;
	r.cpu = cpu;
	r.pid = current->tgid;
	r.tid = current->pid;
	r.time = ktime_get_mono_fast_ns();
	r.rip = r.reg[1];
	cs->samples++;
	if (!user_mode(regs)) {
		r.flags = SHIMTOP_IBS_KERNEL;
		cs->kernel_samples++;
	}
	insert(cs, &r);
}

static void events_stop(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		if (!cpus[cpu].event)
			continue;
		perf_event_release_kernel(cpus[cpu].event);
		cpus[cpu].event = NULL;
	}
}

static int events_start(void)
{
	struct perf_event_attr attr = {
		.type = ibs_type,
		.size = sizeof(attr),
		.config = attr_config.config,
		.config1 = attr_config.config1,
		.sample_period = period,
		.sample_type = PERF_SAMPLE_RAW,
	};
	int cpu, err = 0;

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct perf_event *e;

		e = perf_event_create_kernel_counter(&attr, cpu, NULL, ibs_overflow, NULL);
		if (IS_ERR(e)) {
			err = PTR_ERR(e);
			pr_info("cannot open ibs_op on CPU %d: error %d (another IBS user?)\n",
				cpu, err);
			break;
		}
		cpus[cpu].event = e;
	}
	cpus_read_unlock();
	if (err)
		events_stop();
	return err;
}

static void tables_free(struct agg_bucket **agg)
{
	int cpu;

	for_each_possible_cpu(cpu)
		kfree(agg[cpu]);
	kfree(agg);
}

static void rings_free(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		kfree(cpus[cpu].agg);
		cpus[cpu].agg = NULL;
	}
	vfree(area);
	area = NULL;
}

/*
 * One ring per possible CPU, in one area the reader maps whole.  All is
 * allocated before anything is replaced: a failure leaves the old rings.
 */
static int rings_alloc(u32 records)
{
	size_t stride = PAGE_ALIGN(sizeof(struct shimtop_ibs_ring) +
				   (size_t)records * sizeof(struct shimtop_ibs_record));
	struct agg_bucket **agg = kcalloc(nr_cpu_ids, sizeof(*agg), GFP_KERNEL);
	void *a = vmalloc_user(stride * nr_cpu_ids);
	int cpu;

	if (!agg || !a)
		goto fail;
	for_each_possible_cpu(cpu) {
		agg[cpu] = kcalloc(AGG_BUCKETS, sizeof(**agg), GFP_KERNEL);
		if (!agg[cpu])
			goto fail;
	}
	rings_free();
	area = a;
	area_size = stride * nr_cpu_ids;
	ring_stride = stride;
	nrec = records;
	for_each_possible_cpu(cpu) {
		struct cpu_state *cs = &cpus[cpu];

		cs->ring = a + stride * cpu;
		cs->rec = (void *)(cs->ring + 1);
		cs->ring->nrec = records;
		cs->head = 0;
		cs->ring_dropped = 0;
		cs->seq = 0;
		cs->random = 0x2545f4914f6cdd1dull ^ ((u64)cpu << 32) ^ ktime_get_ns();
		cs->agg = agg[cpu];
	}
	kfree(agg);
	return 0;
fail:
	vfree(a);
	if (agg)
		tables_free(agg);
	return -ENOMEM;
}

static int target_find(u32 id, u64 kind)
{
	unsigned int i;

	for (i = 0; i < targets_used; i++)
		if (targets[i] && (u32)targets[i] == id &&
		    (targets[i] & TARGET_PROCESS) == kind)
			return i;
	return -1;
}

static int target_add(u32 id, u64 kind)
{
	unsigned int i;

	if (target_find(id, kind) >= 0)
		return -EEXIST;
	for (i = 0; i < SHIMTOP_IBS_MAX_TIDS; i++)
		if (!targets[i])
			break;
	if (i == SHIMTOP_IBS_MAX_TIDS)
		return -ENOSPC;
	WRITE_ONCE(targets[i], id | kind);
	if (i >= targets_used)
		WRITE_ONCE(targets_used, i + 1);
	return 0;
}

/* Slot by slot: the handler may be reading them. */
static void targets_clear(void)
{
	unsigned int i;

	for (i = 0; i < SHIMTOP_IBS_MAX_TIDS; i++)
		WRITE_ONCE(targets[i], 0);
}

static int get_target(const void __user *arg, u32 *id, u64 *kind)
{
	struct shimtop_ibs_target t;

	if (copy_from_user(&t, arg, sizeof(t)))
		return -EFAULT;
	if (t.flags & ~SHIMTOP_IBS_PROCESS || !t.id || t.id >= PID_MAX_LIMIT)
		return -EINVAL;
	*id = t.id;
	*kind = t.flags & SHIMTOP_IBS_PROCESS ? TARGET_PROCESS : 0;
	return 0;
}

static long ctl_target(unsigned int cmd, const void __user *arg)
{
	u32 id;
	u64 kind;
	int at, err = get_target(arg, &id, &kind);

	if (err)
		return err;
	if (cmd == SHIMTOP_IBS_IOC_ADD)
		return target_add(id, kind);
	at = target_find(id, kind);
	if (at < 0)
		return -ESRCH;
	if (cmd == SHIMTOP_IBS_IOC_REMOVE)
		WRITE_ONCE(targets[at], 0);
	else if (cmd == SHIMTOP_IBS_IOC_START)
		WRITE_ONCE(targets[at], targets[at] | TARGET_STARTED);
	else
		WRITE_ONCE(targets[at], targets[at] & ~TARGET_STARTED);
	return 0;
}

static long ctl_enable(u32 on)
{
	int cpu, err;

	if (on > 1)
		return -EINVAL;
	if (on == running)
		return 0;
	if (on) {
		if (selftest)
			return -EOPNOTSUPP;	/* nothing to sample with */
		err = events_start();
		if (err)
			return err;
		running = true;
		return 0;
	}
	events_stop();
	running = false;
	/* No handler runs now: the tables go to the rings. */
	for_each_possible_cpu(cpu)
		aggregate_flush(&cpus[cpu], cpu);
	return 0;
}

static long ctl_period(u64 p)
{
	int cpu;
	/* MaxCnt is 16 bits of 16 ops, 23 with the extension (OpCntExt). */
	u64 most = ibs_caps & IBS_CAPS_OPCNTEXT ? SHIMTOP_IBS_MAX_PERIOD : 0xffff0;

	if (p < SHIMTOP_IBS_MIN_PERIOD || p > most)
		return -ERANGE;
	p &= ~(u64)(SHIMTOP_IBS_PERIOD_STEP - 1);
	WRITE_ONCE(period, p);
	/* At once, not after the op in flight: perf restarts the counters. */
	for_each_possible_cpu(cpu)
		if (cpus[cpu].event)
			perf_event_period(cpus[cpu].event, p);
	return 0;
}

static long ctl_ring(u32 records)
{
	if (records < SHIMTOP_IBS_MIN_RECORDS || records > SHIMTOP_IBS_MAX_RECORDS ||
	    !is_power_of_2(records))
		return -EINVAL;
	/* Only while no handler writes the rings and no one has them mapped. */
	if (running || atomic_read(&mappings))
		return -EBUSY;
	return rings_alloc(records);
}

static long ctl_aggregate(u32 on)
{
	int cpu;

	if (on > 1)
		return -EINVAL;
	if (running)
		return -EBUSY;
	WRITE_ONCE(aggregate, on);
	if (!on)
		for_each_possible_cpu(cpu)
			aggregate_flush(&cpus[cpu], cpu);
	return 0;
}

/* The attributes for the next start; the IBS driver checks them then. */
static long ctl_config(const void __user *arg)
{
	struct shimtop_ibs_config c;

	if (copy_from_user(&c, arg, sizeof(c)))
		return -EFAULT;
	if (running)
		return -EBUSY;
	attr_config = c;
	return 0;
}

static void stats_sum(struct shimtop_ibs_stats *st)
{
	int cpu;

	memset(st, 0, sizeof(*st));
	for_each_possible_cpu(cpu) {
		const struct cpu_state *cs = &cpus[cpu];

		st->samples += READ_ONCE(cs->samples);
		st->kernel_samples += READ_ONCE(cs->kernel_samples);
		st->dropped += READ_ONCE(cs->dropped);
		st->spurious += READ_ONCE(cs->spurious);
		st->aggregated += READ_ONCE(cs->aggregated);
		st->flushed += READ_ONCE(cs->flushed);
	}
}

/* selftest: records through the handler's own insert path, never samples. */
static long ctl_push(const void __user *arg)
{
	struct shimtop_ibs_push p;
	u32 i;

	if (!selftest)
		return -EPERM;
	if (copy_from_user(&p, arg, sizeof(p)))
		return -EFAULT;
	if (p.cpu >= nr_cpu_ids || !cpu_possible(p.cpu) || !p.count || p.count > nrec ||
	    !p.tid || p.tid >= PID_MAX_LIMIT || p.pad)
		return -EINVAL;
	for (i = 0; i < p.count; i++) {
		struct shimtop_ibs_record r = {
			.type = SHIMTOP_IBS_REC_TEST,
			.cpu = p.cpu,
			.pid = p.tid,
			.tid = p.tid,
			.time = ktime_get_mono_fast_ns(),
			.rip = p.rip + i % 8,
			.count = 1,
		};

		insert(&cpus[p.cpu], &r);
		cpus[p.cpu].samples++;
	}
	return 0;
}

static long ctl_info(void __user *arg)
{
	struct shimtop_ibs_info in = {
		.version = SHIMTOP_IBS_VERSION,
		.rings = nr_cpu_ids,
		.nrec = nrec,
		.selftest = selftest,
		.ring_stride = ring_stride,
		.map_size = area_size,
		.period = period,
		.caps = ibs_caps,
		.running = running,
		.config = attr_config.config,
		.config1 = attr_config.config1,
	};

	return copy_to_user(arg, &in, sizeof(in)) ? -EFAULT : 0;
}

static long ibs_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	void __user *p = (void __user *)arg;
	struct shimtop_ibs_stats st;
	u64 v64;
	u32 v;
	long err;

	mutex_lock(&ctl_lock);
	switch (cmd) {
	case SHIMTOP_IBS_IOC_INFO:
		err = ctl_info(p);
		break;
	case SHIMTOP_IBS_IOC_ENABLE:
		err = get_user(v, (u32 __user *)p) ? -EFAULT : ctl_enable(v);
		break;
	case SHIMTOP_IBS_IOC_ADD:
	case SHIMTOP_IBS_IOC_REMOVE:
	case SHIMTOP_IBS_IOC_START:
	case SHIMTOP_IBS_IOC_STOP:
		err = ctl_target(cmd, p);
		break;
	case SHIMTOP_IBS_IOC_CLEAR:
		targets_clear();
		err = 0;
		break;
	case SHIMTOP_IBS_IOC_PERIOD:
		err = get_user(v64, (u64 __user *)p) ? -EFAULT : ctl_period(v64);
		break;
	case SHIMTOP_IBS_IOC_RING:
		err = get_user(v, (u32 __user *)p) ? -EFAULT : ctl_ring(v);
		break;
	case SHIMTOP_IBS_IOC_AGGREGATE:
		err = get_user(v, (u32 __user *)p) ? -EFAULT : ctl_aggregate(v);
		break;
	case SHIMTOP_IBS_IOC_STATS:
		stats_sum(&st);
		err = copy_to_user(p, &st, sizeof(st)) ? -EFAULT : 0;
		break;
	case SHIMTOP_IBS_IOC_PUSH:
		err = ctl_push(p);
		break;
	case SHIMTOP_IBS_IOC_CONFIG:
		err = ctl_config(p);
		break;
	default:
		err = -ENOTTY;
	}
	mutex_unlock(&ctl_lock);
	return err;
}

static void ring_vm_open(struct vm_area_struct *vma)
{
	atomic_inc(&mappings);
}

static void ring_vm_close(struct vm_area_struct *vma)
{
	atomic_dec(&mappings);
}

static const struct vm_operations_struct ring_vm_ops = {
	.open = ring_vm_open,
	.close = ring_vm_close,
};

static int ibs_mmap(struct file *f, struct vm_area_struct *vma)
{
	size_t len = vma->vm_end - vma->vm_start;
	int err;

	if (vma->vm_pgoff)
		return -EINVAL;
	mutex_lock(&ctl_lock);
	err = len > area_size ? -EINVAL : remap_vmalloc_range(vma, area, 0);
	if (!err) {
		vma->vm_ops = &ring_vm_ops;
		ring_vm_open(vma);
	}
	mutex_unlock(&ctl_lock);
	return err;
}

/*
 * One holder: the targets, period, rings and aggregation are the
 * module's, not a file's, so a second profiler would change the first's.
 */
static int ibs_open(struct inode *inode, struct file *f)
{
	int err = 0;

	if (!perfmon_capable())
		return -EPERM;
	mutex_lock(&ctl_lock);
	if (held)
		err = -EBUSY;
	else
		held = true;
	mutex_unlock(&ctl_lock);
	return err;
}

/* The rings' unread records go: the next holder starts with empty rings. */
static void rings_empty(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		WRITE_ONCE(cpus[cpu].ring->tail, cpus[cpu].head);
}

/*
 * The holder is gone (its file and every mapping of it): sampling stops,
 * its targets and unread records go, aggregation is off, the attributes
 * are the parameter's again.
 */
static int ibs_release(struct inode *inode, struct file *f)
{
	mutex_lock(&ctl_lock);
	ctl_enable(0);
	ctl_aggregate(0);
	targets_clear();
	rings_empty();
	attr_config = (struct shimtop_ibs_config){ ibs_config, 0 };
	held = false;
	mutex_unlock(&ctl_lock);
	return 0;
}

static const struct file_operations ibs_fops = {
	.owner = THIS_MODULE,
	.open = ibs_open,
	.release = ibs_release,
	.unlocked_ioctl = ibs_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = ibs_mmap,
	.llseek = noop_llseek,
};

static struct miscdevice ibs_device = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "shimtop_ibs",
	.fops = &ibs_fops,
	.mode = 0600,
};

/* CPUID: an AMD CPU with IBS op sampling, or no module. */
static int ibs_present(void)
{
	if (boot_cpu_data.x86_vendor != X86_VENDOR_AMD &&
	    boot_cpu_data.x86_vendor != X86_VENDOR_HYGON) {
		pr_info("no IBS: not an AMD CPU; load with selftest=1 to test the rings\n");
		return -ENODEV;
	}
	if (!boot_cpu_has(X86_FEATURE_IBS)) {
		pr_info("no IBS: CPUID Fn8000_0001 ECX bit 10 is clear (a VM hides it?)\n");
		return -ENODEV;
	}
	ibs_caps = cpuid_eax(IBS_CPUID_FEATURES);
	if (!(ibs_caps & IBS_CAPS_OPSAM)) {
		pr_info("no IBS: no op sampling (capabilities %#x)\n", ibs_caps);
		return -ENODEV;
	}
	if (ibs_type < 0) {
		pr_info("no ibs_type: pass the ibs_op PMU's type from sysfs\n");
		return -EINVAL;
	}
	return 0;
}

static int __init shimtop_ibs_init(void)
{
	int err;

	/* A tid and a pid fit an aggregation entry's key. */
	BUILD_BUG_ON(BIT(AGG_ID_BITS) < PID_MAX_LIMIT);

	if (!selftest) {
		err = ibs_present();
		if (err)
			return err;
	}
	attr_config.config = ibs_config;
	cpus = kcalloc(nr_cpu_ids, sizeof(*cpus), GFP_KERNEL);
	if (!cpus)
		return -ENOMEM;
	err = rings_alloc(nrec);
	if (!err)
		err = misc_register(&ibs_device);
	if (err) {
		rings_free();
		kfree(cpus);
		return err;
	}
	pr_info("ready: %u rings of %u records%s\n", nr_cpu_ids, nrec,
		selftest ? " (selftest: no sampling)" : "");
	return 0;
}

static void __exit shimtop_ibs_exit(void)
{
	misc_deregister(&ibs_device);
	/* No file is open (each holds the module), so no ioctl runs. */
	if (running)
		events_stop();
	rings_free();
	kfree(cpus);
}

module_init(shimtop_ibs_init);
module_exit(shimtop_ibs_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("shimtop: AMD IBS op samples in per-CPU rings mapped to user space");
