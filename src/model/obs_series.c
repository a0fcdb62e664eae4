/* obs_series.c - the observer's samples per millisecond (see obs_series.h). */
#include "model/obs_series.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

void obs_series_free(struct obs_series *s)
{
	free(s->b);
	memset(s, 0, sizeof(*s));
}

/* The bucket of `ns`, cleared when the ring comes round to it again. */
static struct obs_bucket *bucket_of(struct obs_series *s, uint64_t ns)
{
	uint64_t ms = ns / 1000000;
	struct obs_bucket *b;

	if (!s->b)
		s->b = st_xcalloc(OBS_SERIES_MS, sizeof(*s->b));
	if (s->newest && ms + OBS_SERIES_MS <= s->newest)
		return NULL;	/* older than the ring holds */
	b = &s->b[ms % OBS_SERIES_MS];
	if (b->ms != ms) {
		if (b->taken && b->ms + 1 > s->complete_from)
			s->complete_from = b->ms + 1;
		memset(b, 0, sizeof(*b));
		b->ms = ms;
	}
	if (ms > s->newest)
		s->newest = ms;
	return b;
}

void obs_series_sample(struct obs_series *s, uint64_t ns, bool accepted,
		       double cycles, uint64_t delta0)
{
	struct obs_bucket *b = bucket_of(s, ns);

	if (!b)
		return;
	b->taken++;
	if (accepted) {
		b->accepted++;
		b->accepted_cycles += cycles;
		b->delta0 += delta0;
	}
}

void obs_series_tag(struct obs_series *s, uint64_t ns, uint64_t tag)
{
	struct obs_bucket *b = bucket_of(s, ns);

	if (!b)
		return;
	for (unsigned i = 0; i < OBS_SERIES_TAGS; i++) {
		if (b->tag_count[i] && b->tag[i] != tag)
			continue;
		b->tag[i] = tag;
		b->tag_count[i]++;
		return;
	}
}

const struct obs_bucket *obs_series_at(const struct obs_series *s, uint64_t ms)
{
	const struct obs_bucket *b;

	if (!s->b)
		return NULL;
	b = &s->b[ms % OBS_SERIES_MS];
	return b->ms == ms && b->taken ? b : NULL;
}
