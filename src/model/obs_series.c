/* obs_series.c - the observer's samples per millisecond (see obs_series.h). */
#include "model/obs_series.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

void obs_series_free(struct obs_series *s)
{
	free(s->b);
	free(s->raw);
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

void obs_series_raw(struct obs_series *s, uint64_t ns, bool accepted, double cycles,
		    uint64_t delta0, uint64_t tag)
{
	struct obs_raw_sample *r;
	size_t n = obs_series_raw_count(s);

	/* Out of order (a hostile recording's clocks): not kept, the order is the index. */
	if (n && ns < obs_series_raw_at(s, n - 1)->ns)
		return;
	if (!s->raw)
		s->raw = st_xcalloc(OBS_RAW_SAMPLES, sizeof(*s->raw));
	r = &s->raw[s->nraw++ % OBS_RAW_SAMPLES];
	r->ns = ns;
	r->tag = tag;
	r->delta0 = delta0 > UINT32_MAX ? UINT32_MAX : (uint32_t)delta0;
	r->cycles = !(cycles > 0) ? 0 : cycles >= (double)UINT32_MAX ? UINT32_MAX
		    : (uint32_t)cycles;
	r->accepted = accepted;
}

size_t obs_series_raw_count(const struct obs_series *s)
{
	return s->nraw < OBS_RAW_SAMPLES ? (size_t)s->nraw : OBS_RAW_SAMPLES;
}

const struct obs_raw_sample *obs_series_raw_at(const struct obs_series *s, size_t i)
{
	uint64_t first = s->nraw - obs_series_raw_count(s);

	return &s->raw[(first + i) % OBS_RAW_SAMPLES];
}

size_t obs_series_raw_from(const struct obs_series *s, uint64_t ns)
{
	size_t lo = 0, hi = obs_series_raw_count(s);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (obs_series_raw_at(s, mid)->ns < ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct obs_bucket *obs_series_at(const struct obs_series *s, uint64_t ms)
{
	const struct obs_bucket *b;

	if (!s->b)
		return NULL;
	b = &s->b[ms % OBS_SERIES_MS];
	return b->ms == ms && b->taken ? b : NULL;
}
