/* record.c - validation of records read from untrusted bytes. */
#include "ring/record.h"

#include <string.h>

static size_t min_size(uint16_t type)
{
	switch (type) {
	case ST_REC_SAMPLE:
		return sizeof(struct st_sample);
	case ST_REC_MMAP:
		return sizeof(struct st_mmap) + 8;
	case ST_REC_COMM:
	case ST_REC_EXEC:
		return sizeof(struct st_comm);
	case ST_REC_FORK:
	case ST_REC_EXIT:
		return sizeof(struct st_task);
	case ST_REC_LOST:
	case ST_REC_THROTTLE:
		return sizeof(struct st_lost);
	case ST_REC_OBSERVE:
		return sizeof(struct st_observe);
	case ST_REC_OBSERVE_META:
		return sizeof(struct st_observe_meta);
	case ST_REC_IBS:
		return sizeof(struct st_ibs);
	case ST_REC_SWITCH:
		return sizeof(struct st_switch);
	case ST_REC_WAKE:
		return sizeof(struct st_wake);
	default:
		return sizeof(struct st_header);	/* unknown: skippable */
	}
}

uint64_t st_record_time(const void *rec)
{
	const struct st_header *h = rec;

	switch (h->type) {
	case ST_REC_SAMPLE:
		return ((const struct st_sample *)rec)->time;
	case ST_REC_MMAP:
		return ((const struct st_mmap *)rec)->time;
	case ST_REC_COMM:
	case ST_REC_EXEC:
		return ((const struct st_comm *)rec)->time;
	case ST_REC_FORK:
	case ST_REC_EXIT:
		return ((const struct st_task *)rec)->time;
	case ST_REC_IBS:
		return ((const struct st_ibs *)rec)->time;
	case ST_REC_SWITCH:
		return ((const struct st_switch *)rec)->time;
	case ST_REC_WAKE:
		return ((const struct st_wake *)rec)->time;
	default:
		return 0;
	}
}

size_t st_record_check(const void *rec, size_t avail)
{
	struct st_header h;

	if (avail < sizeof(h))
		return 0;
	memcpy(&h, rec, sizeof(h));
	if (h.size < min_size(h.type) || h.size > avail || h.size % 8 ||
	    h.size > ST_RECORD_MAX)
		return 0;
	if (h.type == ST_REC_SAMPLE) {
		const struct st_sample *s = rec;
		size_t need = sizeof(*s) +
			((size_t)s->ncounters + s->nchain) * sizeof(uint64_t);

		if (need > h.size || s->nchain > ST_CHAIN_MAX)
			return 0;
		if (s->flags & ST_SAMPLE_HAS_STACK) {
			const struct st_stack *k = st_sample_stack(s);

			if (need + sizeof(*k) > h.size ||
			    need + sizeof(*k) + st_align8(k->size) > h.size)
				return 0;
		}
	} else if (h.type == ST_REC_MMAP) {
		const struct st_mmap *m = rec;
		size_t room = h.size - sizeof(*m);

		if (!memchr(m->filename, '\0', room))
			return 0;
	} else if (h.type == ST_REC_OBSERVE) {
		const struct st_observe *o = rec;
		size_t need = sizeof(*o) + (size_t)o->nsamples * sizeof(uint64_t) *
			st_observe_words(o->nthreads, o->ncounters, o->flags);

		/* Unknown flags would change the layout: not guessed at. */
		if (o->nthreads > ST_OBS_MAX_THREADS ||
		    o->ncounters > ST_OBS_MAX_COUNTERS || need > h.size ||
		    (o->flags & ~ST_OBS_FLAGS) ||
		    (o->flags & (ST_OBS_HARDWARE | ST_OBS_SELF)) == ST_OBS_SELF)
			return 0;
	} else if (h.type == ST_REC_OBSERVE_META) {
		const struct st_observe_meta *m = rec;

		if (m->ncounters > ST_OBS_MAX_COUNTERS)
			return 0;
	} else if (h.type == ST_REC_IBS) {
		const struct st_ibs *b = rec;

		size_t need = sizeof(*b) + (size_t)b->nregs * sizeof(uint64_t);

		if (b->nregs > ST_IBS_MAX_REGS || b->kind > ST_IBS_FETCH_KIND || need > h.size ||
		    (b->flags & ~ST_IBS_HAS_STACK))
			return 0;
		if (b->flags & ST_IBS_HAS_STACK) {
			const struct st_stack *k = st_ibs_stack(b);

			if (need + sizeof(*k) > h.size ||
			    need + sizeof(*k) + st_align8(k->size) > h.size)
				return 0;
		}
	}
	return h.size;
}

size_t st_mmap_make(void *buf, size_t room, uint32_t pid, uint64_t time,
		    uint64_t start, uint64_t len, uint64_t pgoff,
		    const char *path)
{
	struct st_mmap *m = buf;
	size_t plen = strlen(path) + 1, size = st_align8(sizeof(*m) + plen);

	if (size > room || size > ST_RECORD_MAX)
		return 0;
	memset(m, 0, size);
	m->h = (struct st_header){ ST_REC_MMAP, ST_SOURCE_PERF, (uint32_t)size };
	m->pid = m->tid = pid;
	m->time = time;
	m->start = start;
	m->len = len;
	m->pgoff = pgoff;
	memcpy(m->filename, path, plen);
	return size;
}
