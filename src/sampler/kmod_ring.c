/* kmod_ring.c - reading the IBS module's rings from their mapping (kmod_ring.h). */
#include "sampler/kmod_ring.h"
#include "ring/record.h"
#include "sampler/ibs.h"
#include "util.h"

#include <errno.h>
#include <string.h>

int kmod_info_check(const struct shimtop_ibs_info *in, char *err, size_t errlen)
{
	uint64_t need;

	if (in->version != SHIMTOP_IBS_VERSION)
		return st_refuse(err, errlen, "the IBS module speaks version %u, shimtop %u: "
				 "load the module shimtop was built with", in->version,
				 SHIMTOP_IBS_VERSION);
	if (!in->rings || in->rings > 65536 || in->nrec < SHIMTOP_IBS_MIN_RECORDS ||
	    in->nrec > SHIMTOP_IBS_MAX_RECORDS || (in->nrec & (in->nrec - 1)))
		return st_refuse(err, errlen, "the IBS module reports %u rings of %u records",
				 in->rings, in->nrec);
	need = sizeof(struct shimtop_ibs_ring) +
	       (uint64_t)in->nrec * sizeof(struct shimtop_ibs_record);
	if (in->ring_stride < need || in->ring_stride > (1ull << 32) ||
	    in->map_size / in->ring_stride < in->rings)
		return st_refuse(err, errlen, "the IBS module's rings (%llu bytes apart, %llu in "
				 "all) do not hold %u rings of %u records",
				 (unsigned long long)in->ring_stride,
				 (unsigned long long)in->map_size, in->rings, in->nrec);
	return 0;
}

/* An op sample as the ibs source records it; 0 when its registers do not check. */
static size_t op_record(const struct shimtop_ibs_record *r, uint8_t family, uint8_t model,
			uint64_t period, void *buf)
{
	struct st_ibs *b = buf;
	struct ibs_sample smp;
	uint64_t reg[SHIMTOP_IBS_MAX_REGS];

	memcpy(reg, r->reg, sizeof(reg));	/* __u64 is not uint64_t's type */
	if (r->nregs > SHIMTOP_IBS_MAX_REGS ||
	    ibs_from_regs(IBS_OP, r->caps, reg, r->nregs, &smp, NULL, 0) < 0)
		return 0;
	memset(b, 0, sizeof(*b));
	b->h = (struct st_header){ ST_REC_IBS, ST_SOURCE_IBS,
				   (uint32_t)(sizeof(*b) + r->nregs * sizeof(uint64_t)) };
	b->pid = r->pid;
	b->tid = r->tid;
	b->time = r->time;
	b->ip = r->rip;
	b->period = period;
	b->caps = r->caps;
	b->kind = ST_IBS_OP_KIND;
	b->nregs = r->nregs;
	b->cpumode = r->flags & SHIMTOP_IBS_KERNEL ? ST_MODE_KERNEL : ST_MODE_USER;
	b->family = family;
	b->model = model;
	b->cpu = r->cpu;
	memcpy(b->reg, reg, r->nregs * sizeof(uint64_t));
	return b->h.size;
}

/*
 * The module's aggregated count: one sample standing for count periods
 * (its time is the count's flush, not the ops').
 */
static size_t count_record(const struct shimtop_ibs_record *r, uint64_t period, void *buf)
{
	struct st_sample *s = buf;

	if (!r->count || r->count > UINT32_MAX || !r->pid || !r->tid)
		return 0;
	memset(s, 0, sizeof(*s));
	s->h = (struct st_header){ ST_REC_SAMPLE, ST_SOURCE_IBS, sizeof(*s) };
	s->pid = r->pid;
	s->tid = r->tid;
	s->time = r->time;
	s->ip = r->rip;
	s->period = period * r->count;
	s->cpumode = r->flags & SHIMTOP_IBS_KERNEL ? ST_MODE_KERNEL : ST_MODE_USER;
	return s->h.size;
}

size_t kmod_ring_drain(uint8_t *map, const struct shimtop_ibs_info *in, uint32_t ring,
		       struct kmod_ring_cursor *cur, uint8_t family, uint8_t model,
		       uint64_t period, uint64_t until, kmod_record_fn fn, void *arg,
		       struct kmod_ring_stats *st)
{
	_Alignas(8) unsigned char buf[sizeof(struct st_ibs) + SHIMTOP_IBS_MAX_REGS * 8];
	struct shimtop_ibs_ring *rg = (void *)(map + (size_t)in->ring_stride * ring);
	const struct shimtop_ibs_record *recs = (const void *)(rg + 1);
	uint64_t head, tail, dropped;
	size_t handed = 0;

	if (ring >= in->rings)
		return 0;
	head = __atomic_load_n(&rg->head, __ATOMIC_ACQUIRE);
	tail = __atomic_load_n(&rg->tail, __ATOMIC_RELAXED);
	dropped = __atomic_load_n(&rg->dropped, __ATOMIC_RELAXED);
	if (dropped > cur->dropped)
		st->lost += dropped - cur->dropped;
	cur->dropped = dropped;
	if (head - tail > in->nrec) {
		/* Not a state the module makes: start again from its head. */
		st->resyncs++;
		__atomic_store_n(&rg->tail, head, __ATOMIC_RELEASE);
		cur->seen = 0;
		return 0;
	}
	for (; tail != head; tail++) {
		struct shimtop_ibs_record r;
		size_t n = 0;

		/* Copied once, then checked: the bytes stay the kernel's to write. */
		memcpy(&r, &recs[tail & (in->nrec - 1)], sizeof(r));
		if (r.time > until)
			break;
		if (cur->seen && r.seq != cur->next_seq)
			st->seq_gaps += (uint32_t)(r.seq - cur->next_seq);
		cur->next_seq = r.seq + 1;
		cur->seen = 1;
		if (r.type == SHIMTOP_IBS_REC_OP)
			n = op_record(&r, family, model, period, buf);
		else if (r.type == SHIMTOP_IBS_REC_COUNT)
			n = count_record(&r, period, buf);
		if (!n || r.cpu != ring) {
			st->bad++;
			continue;
		}
		fn(buf, arg);
		handed++;
	}
	st->records += handed;
	__atomic_store_n(&rg->tail, tail, __ATOMIC_RELEASE);
	return handed;
}
