/*
 * perf_parse.c - perf mmap ring reader and record converter.
 *
 * The layouts follow linux/perf_event.h: fields appear in the order of
 * their sample_type bits, and with sample_id_all every non-sample record
 * ends with the same id fields.  Every read is bounds-checked against the
 * record's own size: a corrupt ring must not crash the sampler.
 */
#include "sampler/perf_parse.h"
#include "ring/record.h"
#include "sampler/ibs.h"
#include "util.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

long perf_mmap_drain(struct perf_event_mmap_page *page,
		     const unsigned char *data, size_t data_size,
		     unsigned char *scratch, perf_record_fn fn, void *arg)
{
	uint64_t head = __atomic_load_n(&page->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = page->data_tail;
	long n = 0;

	while (tail < head) {
		size_t off = tail & (data_size - 1);
		struct perf_event_header hdr;
		const struct perf_event_header *ev;

		if (head - tail < sizeof(hdr))
			goto corrupt;
		if (off + sizeof(hdr) <= data_size) {
			memcpy(&hdr, data + off, sizeof(hdr));
		} else {
			size_t first = data_size - off;

			memcpy(&hdr, data + off, first);
			memcpy((unsigned char *)&hdr + first, data,
			       sizeof(hdr) - first);
		}
		/* The kernel writes 8-byte aligned records: anything else is
		 * corruption, and reading it would be misaligned. */
		if (hdr.size < sizeof(hdr) || hdr.size % 8 || off % 8 ||
		    hdr.size > head - tail || hdr.size > data_size)
			goto corrupt;
		if (off + hdr.size <= data_size) {
			ev = (const void *)(data + off);
		} else {
			size_t first = data_size - off;

			memcpy(scratch, data + off, first);
			memcpy(scratch + first, data, hdr.size - first);
			ev = (const void *)scratch;
		}
		fn(ev, arg);
		tail += hdr.size;
		n++;
	}
	__atomic_store_n(&page->data_tail, tail, __ATOMIC_RELEASE);
	return n;
corrupt:
	__atomic_store_n(&page->data_tail, head, __ATOMIC_RELEASE);
	return -EBADMSG;
}

/* A cursor over one record's bytes. */
struct cursor {
	const unsigned char *p;
	const unsigned char *end;
	int bad;
};

static uint64_t take64(struct cursor *c)
{
	uint64_t v = 0;

	if (c->end - c->p < 8) {
		c->bad = 1;
		return 0;
	}
	memcpy(&v, c->p, 8);
	c->p += 8;
	return v;
}

static void take_pair32(struct cursor *c, uint32_t *a, uint32_t *b)
{
	uint64_t v = take64(c);

	*a = (uint32_t)v;
	*b = (uint32_t)(v >> 32);
}

static void init_header(void *out, uint16_t type, size_t size)
{
	struct st_header *h = out;

	h->type = type;
	h->source = ST_SOURCE_PERF;
	h->size = (uint32_t)st_align8(size);
}

/* The id fields that end a non-sample record (sample_id_all): its thread and time. */
static uint64_t trailer_ids(const struct perf_layout *l, const struct perf_event_header *ev,
			    uint32_t *pid, uint32_t *tid)
{
	size_t words = 0, pos = 0;
	uint64_t t = 0;

	if (!l->sample_id_all || !(l->sample_type & PERF_SAMPLE_TIME))
		return 0;
	if (l->sample_type & PERF_SAMPLE_TID)
		words++;
	words++;	/* time */
	if (l->sample_type & PERF_SAMPLE_ID)
		words++;
	if (l->sample_type & PERF_SAMPLE_STREAM_ID)
		words++;
	if (l->sample_type & PERF_SAMPLE_CPU)
		words++;
	if (l->sample_type & PERF_SAMPLE_IDENTIFIER)
		words++;
	if (ev->size < sizeof(*ev) + words * 8)
		return 0;
	pos = ev->size - words * 8;
	if (l->sample_type & PERF_SAMPLE_TID) {
		if (pid && tid) {
			memcpy(pid, (const unsigned char *)ev + pos, 4);
			memcpy(tid, (const unsigned char *)ev + pos + 4, 4);
		}
		pos += 8;
	}
	memcpy(&t, (const unsigned char *)ev + pos, 8);
	return t;
}

static uint64_t trailer_time(const struct perf_layout *l, const struct perf_event_header *ev)
{
	return trailer_ids(l, ev, NULL, NULL);
}

/*
 * PERF_SAMPLE_READ: the group's cumulative counts; the sample carries
 * their change since the thread's previous sample.  -1 if malformed.
 */
static int take_read(struct cursor *c, uint64_t rf, struct perf_group_state *gs,
		     struct st_sample *s)
{
	uint64_t nr = 1, enabled = 0, running = 0;
	uint64_t vals[ST_MAX_EVENTS];

	if (rf & PERF_FORMAT_GROUP)
		nr = take64(c);
	else
		vals[0] = take64(c);
	if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
		enabled = take64(c);
	if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
		running = take64(c);
	if (!(rf & PERF_FORMAT_GROUP) && (rf & PERF_FORMAT_ID))
		take64(c);
	if (nr > ST_MAX_EVENTS)
		return -EBADMSG;
	for (uint64_t i = 0; (rf & PERF_FORMAT_GROUP) && i < nr; i++) {
		vals[i] = take64(c);
		if (rf & PERF_FORMAT_ID)
			take64(c);
		if (rf & PERF_FORMAT_LOST)
			take64(c);
	}
	if (c->bad)
		return -EBADMSG;
	if (gs->have_prev) {
		for (uint64_t i = 0; i < nr; i++)
			s->data[i] = vals[i] - gs->prev[i];
		s->ncounters = (uint8_t)nr;
		s->flags |= ST_SAMPLE_HAS_COUNTERS;
		if (enabled - gs->prev_enabled != running - gs->prev_running)
			s->flags |= ST_SAMPLE_MULTIPLEXED;
	}
	memcpy(gs->prev, vals, nr * sizeof(vals[0]));
	gs->prev_enabled = enabled;
	gs->prev_running = running;
	gs->have_prev = 1;
	return 0;
}

/*
 * PERF_SAMPLE_CALLCHAIN: the frames after the counters, markers left out.
 * *user: the index of the first user frame, s->nchain if none.
 */
static int take_callchain(struct cursor *c, struct st_sample *s, size_t words,
			  unsigned max_stack, unsigned *user_at)
{
	uint64_t nr = take64(c);
	bool user = false;

	*user_at = ST_CHAIN_MAX;
	if (c->bad || nr > (uint64_t)(c->end - c->p) / 8)
		return -EBADMSG;
	for (uint64_t i = 0; i < nr; i++) {
		uint64_t ip = take64(c);

		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			/* A context marker, not a frame: what the frames after it are. */
			user = ip == (uint64_t)PERF_CONTEXT_USER;
			if (user && *user_at == ST_CHAIN_MAX)
				*user_at = s->nchain;
			continue;
		}
		/*
		 * A user frame in the kernel's half is a frame pointer that
		 * walked through data: no code, as perf report resolves it
		 * (in the process's maps), never a kernel function's name.
		 */
		if (user && ip >= ST_KERNEL_START)
			ip = 0;
		if (s->nchain == ST_CHAIN_MAX) {
			s->flags |= ST_SAMPLE_CHAIN_TRUNC;
			break;
		}
		s->data[words + s->nchain++] = ip;
	}
	if (*user_at > s->nchain)
		*user_at = s->nchain;
	/* The kernel stops at its limit without saying so: at the limit, cut. */
	if (max_stack && s->nchain >= max_stack)
		s->flags |= ST_SAMPLE_CHAIN_TRUNC;
	return 0;
}

/*
 * PERF_SAMPLE_REGS_USER and PERF_SAMPLE_STACK_USER into a struct st_stack
 * at rec + used (after a sample's chain, an IBS sample's registers), the
 * copy cut to what fits one record: its size, 0 when there is none.  A
 * sample of a kernel thread has no user registers (abi 0) and gets no stack.
 */
static int take_stack(struct cursor *c, const struct perf_layout *l, void *rec, size_t used,
		      uint32_t tid)
{
	uint64_t regs[3] = { 0, 0, 0 }, abi = 0, size = 0, dyn;
	struct st_stack *k;
	size_t room;

	if (l->sample_type & PERF_SAMPLE_REGS_USER) {
		abi = take64(c);
		/* In bit order; perf record asks for all of them (a perf.data), we for three. */
		if (abi != PERF_SAMPLE_REGS_ABI_NONE)
			for (unsigned bit = 0; bit < 64; bit++) {
				uint64_t v;

				if (!(l->regs_user >> bit & 1))
					continue;
				v = take64(c);
				if (bit == PERF_REG_X86_BP)
					regs[0] = v;
				else if (bit == PERF_REG_X86_SP)
					regs[1] = v;
				else if (bit == PERF_REG_X86_IP)
					regs[2] = v;
			}
	}
	if (!(l->sample_type & PERF_SAMPLE_STACK_USER))
		return 0;
	size = take64(c);
	if (c->bad || size > (uint64_t)(c->end - c->p) || size % 8)
		return -EBADMSG;
	const unsigned char *bytes = c->p;

	c->p += size;
	dyn = size ? take64(c) : 0;
	if (c->bad || dyn > size)
		return -EBADMSG;
	if (abi == PERF_SAMPLE_REGS_ABI_NONE || (l->regs_user & PERF_STACK_REGS) != PERF_STACK_REGS)
		return 0;
	if (used + sizeof(*k) > ST_RECORD_MAX)
		return 0;
	room = ST_RECORD_MAX - used - sizeof(*k);
	k = (struct st_stack *)(void *)((unsigned char *)rec + used);
	k->bp = regs[0];
	k->sp = regs[1];
	k->ip = regs[2];
	k->base = 0;
	if (l->stack_keep)
		dyn = l->stack_keep(l->stack_keep_arg, tid, k->sp, (size_t)dyn);
	k->size = (uint32_t)(dyn < room ? dyn : room & ~(size_t)7);
	k->pad = 0;
	memcpy(k->bytes, bytes, k->size);
	memset(k->bytes + k->size, 0, st_align8(k->size) - k->size);
	return (int)(sizeof(*k) + st_align8(k->size));
}

/* The fields every sample starts with, up to the period, as sample_type lays them. */
struct sample_head {
	uint64_t ip, time, period;
	uint32_t pid, tid, cpu;
};

enum st_offcpu_reason perf_offcpu_reason(uint64_t prev_state)
{
	/* Preempted: TASK_REPORT_MAX (0x100) since 4.14, a high bit before; or plain R. */
	if ((prev_state & ~0xffull) || prev_state == 0)
		return ST_OFFCPU_RUNNABLE;
	if (prev_state & 0x2)
		return ST_OFFCPU_DISK;
	if (prev_state & (0x1 | 0x40 | 0x80))	/* S, parked, an idle kernel thread */
		return ST_OFFCPU_SLEEP;
	if (prev_state & (0x4 | 0x8))
		return ST_OFFCPU_STOPPED;
	if (prev_state & (0x10 | 0x20))
		return ST_OFFCPU_EXITED;
	return ST_OFFCPU_OTHER;
}

/*
 * A tracepoint's raw data: its size counts the padding to 8 bytes.  With
 * --off-cpu, sched_switch's prev_state makes the sample an off-CPU one;
 * another event's raw data (4 zero bytes) is too short to hold it.
 */
static void take_raw(struct cursor *c, const struct perf_layout *l, struct st_sample *s)
{
	uint32_t size, at = l->switch_state_at, n = l->switch_state_size;
	uint64_t state = 0;

	if (!(l->sample_type & PERF_SAMPLE_RAW))
		return;
	if (c->end - c->p < 4) {
		c->bad = 1;
		return;
	}
	memcpy(&size, c->p, sizeof(size));
	if ((uint64_t)(c->end - c->p) < 4 + (uint64_t)size) {
		c->bad = 1;
		return;
	}
	if ((n == 4 || n == 8) && (uint64_t)at + n <= size) {
		memcpy(&state, c->p + 4 + at, n);	/* little-endian: 4 bytes fill the low half */
		s->flags |= (uint32_t)perf_offcpu_reason(state) << ST_SAMPLE_OFFCPU_SHIFT;
	}
	c->p += 4 + (size_t)size;
}

/*
 * The branch stack, 24-byte entries {from, to, flags}, newest first.
 * Under --call-graph lbr it is the user call stack: each entry a call not
 * yet returned, so the user chain becomes its leaf and then each call's
 * site, as perf mixes the kernel's chain with the LBR's.  The leaf is the
 * newest call's target, as perf takes it, where the sample is in user
 * code (ST_SAMPLE_LBR_LEAF): a precise event's ip is the call instruction
 * itself, which the records already hold as made, and ip then call site
 * named its function twice.  Else the kernel's first user frame; the rest
 * of what it walked is dropped: without frame pointers it is garbage.  A
 * chain with no user part (a kernel thread) stays as it is.
 */
static void take_branches(struct cursor *c, const struct perf_layout *l,
			  struct st_sample *s, size_t words, unsigned user_at)
{
	uint64_t n;

	if (!(l->sample_type & PERF_SAMPLE_BRANCH_STACK))
		return;
	n = take64(c);
	if (l->branch_hw_index)
		take64(c);
	if (c->bad || n > (uint64_t)(c->end - c->p) / 24) {
		c->bad = 1;
		return;
	}
	if (l->lbr_callstack && user_at < s->nchain) {
		s->nchain = user_at + 1;
		s->flags &= ~ST_SAMPLE_CHAIN_TRUNC;
		if (n && user_at == 0 && s->data[words] == s->ip) {
			uint64_t to;

			memcpy(&to, c->p + 8, sizeof(to));
			if (to && to < ST_KERNEL_START) {
				s->data[words] = to;
				s->flags |= ST_SAMPLE_LBR_LEAF;
			}
		}
		for (uint64_t i = 0; i < n; i++) {
			uint64_t from;

			if (s->nchain == ST_CHAIN_MAX) {
				s->flags |= ST_SAMPLE_CHAIN_TRUNC;
				break;
			}
			memcpy(&from, c->p + i * 24, sizeof(from));
			s->data[words + s->nchain++] = from < ST_KERNEL_START ? from : 0;
		}
	}
	c->p += n * 24;
}

static void take_sample_head(struct cursor *c, uint64_t t, struct sample_head *h)
{
	uint32_t unused;

	memset(h, 0, sizeof(*h));
	if (t & PERF_SAMPLE_IDENTIFIER)
		take64(c);
	if (t & PERF_SAMPLE_IP)
		h->ip = take64(c);
	if (t & PERF_SAMPLE_TID)
		take_pair32(c, &h->pid, &h->tid);
	if (t & PERF_SAMPLE_TIME)
		h->time = take64(c);
	if (t & PERF_SAMPLE_ADDR)
		take64(c);
	if (t & PERF_SAMPLE_ID)
		take64(c);
	if (t & PERF_SAMPLE_STREAM_ID)
		take64(c);
	if (t & PERF_SAMPLE_CPU)
		take_pair32(c, &h->cpu, &unused);
	if (t & PERF_SAMPLE_PERIOD)
		h->period = take64(c);
}

static size_t convert_sample(const struct perf_layout *l,
			     struct perf_group_state *gs,
			     const struct perf_event_header *ev, void *out)
{
	struct cursor c = { (const unsigned char *)(ev + 1),
			    (const unsigned char *)ev + ev->size, 0 };
	struct st_sample *s = out;
	uint64_t t = l->sample_type;
	size_t words, size;
	unsigned user_at = ST_CHAIN_MAX;
	int stack;

	struct sample_head hd;

	memset(s, 0, sizeof(*s));
	take_sample_head(&c, t, &hd);
	s->ip = hd.ip;
	s->pid = hd.pid;
	s->tid = hd.tid;
	s->time = hd.time;
	s->period = hd.period;
	if ((t & PERF_SAMPLE_READ) && take_read(&c, l->read_format, gs, s) < 0)
		return 0;
	words = s->ncounters;
	if ((t & PERF_SAMPLE_CALLCHAIN) && take_callchain(&c, s, words, l->max_stack, &user_at) < 0)
		return 0;
	take_raw(&c, l, s);
	take_branches(&c, l, s, words, user_at);
	size = sizeof(*s) + (words + s->nchain) * sizeof(uint64_t);
	stack = take_stack(&c, l, s, size, s->tid);
	if (c.bad || stack < 0)
		return 0;
	if (stack > 0)
		s->flags |= ST_SAMPLE_HAS_STACK;
	s->cpumode = (ev->misc & PERF_RECORD_MISC_CPUMODE_MASK) ==
		PERF_RECORD_MISC_KERNEL ? ST_MODE_KERNEL : ST_MODE_USER;
	init_header(s, ST_REC_SAMPLE, size + (size_t)stack);
	return s->h.size;
}

/*
 * An IBS sample: perf's fields up to the period, then the raw registers,
 * checked against the count their capabilities promise (the kernel wrote
 * them, but a sample the decoder would misread is dropped here).
 */
static size_t convert_ibs(const struct perf_layout *l, const struct perf_event_header *ev,
			  void *out)
{
	struct cursor c = { (const unsigned char *)(ev + 1),
			    (const unsigned char *)ev + ev->size, 0 };
	struct st_ibs *b = out;
	struct ibs_sample smp;
	struct sample_head hd;
	uint64_t t = l->sample_type;
	uint32_t raw;
	size_t size;
	int stack;

	memset(b, 0, sizeof(*b));
	if ((t & (PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN)) || !(t & PERF_SAMPLE_RAW))
		return 0;	/* not how the ibs source opens its events */
	take_sample_head(&c, t, &hd);
	b->ip = hd.ip;
	b->pid = hd.pid;
	b->tid = hd.tid;
	b->time = hd.time;
	b->cpu = hd.cpu;
	b->period = hd.period;
	if (c.bad || c.end - c.p < 4)
		return 0;
	memcpy(&raw, c.p, 4);
	c.p += 4;
	if (raw > (size_t)(c.end - c.p) ||
	    ibs_parse(l->ibs_kind == ST_IBS_FETCH_KIND ? IBS_FETCH : IBS_OP, c.p, raw, &smp,
		      NULL, 0) < 0)
		return 0;
	c.p += raw;
	size = sizeof(*b) + smp.nregs * sizeof(uint64_t);
	/* --call-graph dwarf or callerchain: the user stack, as samples carry it. */
	stack = take_stack(&c, l, b, size, b->tid);
	if (c.bad || stack < 0)
		return 0;
	if (stack > 0)
		b->flags |= ST_IBS_HAS_STACK;
	b->caps = smp.caps;
	b->kind = l->ibs_kind;
	b->nregs = (uint8_t)smp.nregs;
	memcpy(b->reg, smp.reg, smp.nregs * sizeof(uint64_t));
	b->family = l->family;
	b->model = l->model;
	b->cpumode = (ev->misc & PERF_RECORD_MISC_CPUMODE_MASK) ==
		PERF_RECORD_MISC_KERNEL ? ST_MODE_KERNEL : ST_MODE_USER;
	init_header(b, ST_REC_IBS, size + (size_t)stack);
	b->h.source = ST_SOURCE_IBS;
	return b->h.size;
}

/*
 * PERF_RECORD_MMAP2, or the MMAP kernels before 3.16 write (and perf for
 * the kernel's maps): no device, inode or protection, data maps marked in
 * misc.  The kernel's (pid -1) are not read: kallsyms names the kernel.
 */
static size_t convert_mmap(const struct perf_layout *l,
			   const struct perf_event_header *ev, void *out)
{
	struct cursor c = { (const unsigned char *)(ev + 1),
			    (const unsigned char *)ev + ev->size, 0 };
	struct st_mmap *m = out;
	const char *name;
	size_t room, len;
	uint32_t prot = PROT_EXEC, flags;

	memset(m, 0, sizeof(*m));
	take_pair32(&c, &m->pid, &m->tid);
	m->start = take64(&c);
	m->len = take64(&c);
	m->pgoff = take64(&c);
	if (ev->type == PERF_RECORD_MMAP2) {
		take64(&c);	/* maj, min or build-id size */
		take64(&c);	/* ino or build id */
		take64(&c);	/* ino_generation or build id */
		take_pair32(&c, &prot, &flags);
	} else if (ev->misc & PERF_RECORD_MISC_MMAP_DATA) {
		prot = 0;
	}
	if (c.bad || !(prot & PROT_EXEC) || m->pid == UINT32_MAX)
		return 0;
	name = (const char *)c.p;
	room = (size_t)(c.end - c.p);
	len = strnlen(name, room);
	if (len == room || len + 1 + sizeof(*m) > ST_RECORD_MAX)
		return 0;
	memcpy(m->filename, name, len + 1);
	m->time = trailer_time(l, ev);
	init_header(m, ST_REC_MMAP, sizeof(*m) + len + 1);
	memset(m->filename + len + 1, 0, m->h.size - sizeof(*m) - len - 1);
	return m->h.size;
}

static size_t convert_comm(const struct perf_layout *l,
			   const struct perf_event_header *ev, void *out)
{
	struct cursor c = { (const unsigned char *)(ev + 1),
			    (const unsigned char *)ev + ev->size, 0 };
	struct st_comm *m = out;
	size_t room;

	memset(m, 0, sizeof(*m));
	take_pair32(&c, &m->pid, &m->tid);
	if (c.bad)
		return 0;
	room = (size_t)(c.end - c.p);
	if (room > sizeof(m->comm) - 1)
		room = sizeof(m->comm) - 1;
	memcpy(m->comm, c.p, strnlen((const char *)c.p, room));
	m->time = trailer_time(l, ev);
	/* exec: the process's old mappings are gone (perf_event_attr.comm_exec). */
	init_header(m, ev->misc & PERF_RECORD_MISC_COMM_EXEC ? ST_REC_EXEC : ST_REC_COMM,
		    sizeof(*m));
	return m->h.size;
}

static size_t convert_task(const struct perf_event_header *ev, void *out)
{
	struct cursor c = { (const unsigned char *)(ev + 1),
			    (const unsigned char *)ev + ev->size, 0 };
	struct st_task *tk = out;

	memset(tk, 0, sizeof(*tk));
	take_pair32(&c, &tk->pid, &tk->ppid);
	take_pair32(&c, &tk->tid, &tk->ptid);
	tk->time = take64(&c);
	if (c.bad)
		return 0;
	init_header(tk, ev->type == PERF_RECORD_FORK ? ST_REC_FORK : ST_REC_EXIT,
		    sizeof(*tk));
	return tk->h.size;
}

static size_t convert_lost(const struct perf_layout *l,
			   const struct perf_event_header *ev, void *out)
{
	struct cursor c = { (const unsigned char *)(ev + 1),
			    (const unsigned char *)ev + ev->size, 0 };
	struct st_lost *lost = out;

	memset(lost, 0, sizeof(*lost));
	if (ev->type == PERF_RECORD_LOST) {
		take64(&c);	/* id */
		lost->count = take64(&c);
		lost->time = trailer_time(l, ev);
		init_header(lost, ST_REC_LOST, sizeof(*lost));
	} else if (ev->type == PERF_RECORD_LOST_SAMPLES) {
		lost->count = take64(&c);
		lost->time = trailer_time(l, ev);
		init_header(lost, ST_REC_LOST, sizeof(*lost));
	} else {
		lost->time = take64(&c);
		lost->count = 1;
		init_header(lost, ST_REC_THROTTLE, sizeof(*lost));
	}
	return c.bad ? 0 : lost->h.size;
}

/*
 * PERF_RECORD_SWITCH (a task's event) and SWITCH_CPU_WIDE (a CPU's: the
 * other task first): the thread in the id trailer left or took the CPU.
 * Without a thread and time it pairs nothing and is not kept.
 */
static size_t convert_switch(const struct perf_layout *l, const struct perf_event_header *ev,
			     void *out)
{
	struct st_switch *w = out;

	memset(w, 0, sizeof(*w));
	if (!(l->sample_type & PERF_SAMPLE_TID))
		return 0;
	w->time = trailer_ids(l, ev, &w->pid, &w->tid);
	if (!w->time)
		return 0;
	if (ev->misc & PERF_RECORD_MISC_SWITCH_OUT)
		w->flags |= ST_SWITCH_OUT;
	if (ev->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT)
		w->flags |= ST_SWITCH_PREEMPT;
	init_header(w, ST_REC_SWITCH, sizeof(*w));
	return w->h.size;
}

size_t perf_convert(const struct perf_layout *l, struct perf_group_state *gs,
		    const struct perf_event_header *ev, void *out)
{
	switch (ev->type) {
	case PERF_RECORD_SAMPLE:
		return l->ibs ? convert_ibs(l, ev, out) : convert_sample(l, gs, ev, out);
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return convert_mmap(l, ev, out);
	case PERF_RECORD_COMM:
		return convert_comm(l, ev, out);
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		return convert_task(ev, out);
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
	case PERF_RECORD_THROTTLE:
		return convert_lost(l, ev, out);
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		return convert_switch(l, ev, out);
	default:
		return 0;
	}
}
