/* sample_push.c - samples before their copies into a full ring (see sample_push.h). */
#include "ring/sample_push.h"
#include "ring/record.h"

#include <string.h>

bool sample_push(struct ring *r, const void *rec, size_t len)
{
	const struct st_sample *s = rec;
	struct st_sample *cut;
	size_t kept;

	if (len < sizeof(*s) || s->h.type != ST_REC_SAMPLE || !(s->flags & ST_SAMPLE_HAS_STACK) ||
	    ring_fits(r, len + ring_capacity(r) / SAMPLE_PUSH_ROOM_SHARE))
		return ring_push(r, rec, len);
	/* The sample up to its chain's end: where its copy begins. */
	kept = sizeof(*s) + ((size_t)s->ncounters + s->nchain) * sizeof(uint64_t);
	if (kept > len)
		return ring_push(r, rec, len);
	cut = ring_reserve(r, kept);
	if (!cut)
		return false;
	memcpy(cut, s, kept);
	cut->h.size = (uint32_t)kept;
	cut->flags = (cut->flags & ~ST_SAMPLE_HAS_STACK) | ST_SAMPLE_COPY_SHED | ST_SAMPLE_CHAIN_TRUNC;
	ring_commit(r);
	return true;
}
