/* obs_series.c - the observer's samples per millisecond (see obs_series.h). */
#include "model/obs_series.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <uthash.h>

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

void obs_series_tag(struct obs_series *s, uint64_t ns, uint64_t tag, double cycles,
		    uint64_t delta0, bool valid0)
{
	struct obs_bucket *b = bucket_of(s, ns);

	if (!b)
		return;
	b->cycles += cycles;
	for (unsigned i = 0; i < OBS_SERIES_TAGS; i++) {
		if (b->tag_count[i] && b->tag[i] != tag)
			continue;
		b->tag[i] = tag;
		b->tag_count[i]++;
		b->tag_cycles[i] += cycles;
		if (valid0)
			b->tag_delta0[i] += delta0;
		return;
	}
}

void obs_series_hardware(struct obs_series *s, uint64_t ns, const uint64_t *hw, bool self)
{
	struct obs_bucket *b = bucket_of(s, ns);

	for (unsigned i = 0; b && i < (self ? 4u : 2u); i++)
		b->hw[i] += hw[i];
}

struct window_tag {
	UT_hash_handle hh;
	struct obs_window_tag t;
};

static int by_cycles(const void *x, const void *y)
{
	const struct obs_window_tag *a = x, *b = y;

	if (a->cycles != b->cycles)
		return a->cycles < b->cycles ? 1 : -1;
	return (a->tag > b->tag) - (a->tag < b->tag);
}

/* The milliseconds of [from, to) (ns) to visit: at most the ring's span. */
static uint64_t window_first_ms(const struct obs_series *s, uint64_t from)
{
	uint64_t first = from / 1000000;

	if (s->newest >= OBS_SERIES_MS && first < s->newest + 1 - OBS_SERIES_MS)
		first = s->newest + 1 - OBS_SERIES_MS;
	return first;
}

size_t obs_series_window_tags(const struct obs_series *s, uint64_t from, uint64_t to,
			      struct obs_window_tag **out, double *cycles)
{
	struct window_tag *all = NULL, *w, *tmp;
	size_t n = 0;

	*cycles = 0;
	for (uint64_t ms = window_first_ms(s, from); ms < to / 1000000 && ms <= s->newest; ms++) {
		const struct obs_bucket *b = obs_series_at(s, ms);

		if (!b)
			continue;
		*cycles += b->cycles;
		for (unsigned i = 0; i < OBS_SERIES_TAGS && b->tag_count[i]; i++) {
			HASH_FIND(hh, all, &b->tag[i], sizeof(b->tag[i]), w);
			if (!w) {
				w = st_xcalloc(1, sizeof(*w));
				w->t.tag = b->tag[i];
				HASH_ADD(hh, all, t.tag, sizeof(w->t.tag), w);
			}
			w->t.samples += b->tag_count[i];
			w->t.cycles += b->tag_cycles[i];
			w->t.delta0 += b->tag_delta0[i];
		}
	}
	*out = st_xcalloc(HASH_COUNT(all) + 1, sizeof(**out));
	HASH_ITER(hh, all, w, tmp) {
		(*out)[n++] = w->t;
		HASH_DEL(all, w);
		free(w);
	}
	qsort(*out, n, sizeof(**out), by_cycles);
	return n;
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

void obs_window_dist_free(struct obs_window_dist *d)
{
	hist_free(&d->rate);
	hist_free(&d->period);
}

static void window_from_raw(const struct obs_series *s, uint64_t from, uint64_t to,
			    uint64_t tsc_hz, const uint64_t *tag, struct obs_window_dist *d)
{
	size_t n = obs_series_raw_count(s);

	for (size_t i = obs_series_raw_from(s, from); i < n; i++) {
		const struct obs_raw_sample *r = obs_series_raw_at(s, i);

		if (r->ns >= to)
			break;
		if (tag && r->tag != *tag)
			continue;
		d->samples++;
		if (r->cycles)
			hist_add(&d->period, r->cycles);
		if (r->accepted && r->cycles)
			hist_add(&d->rate, (double)r->delta0 * (double)tsc_hz / r->cycles);
	}
}

static void window_from_buckets(const struct obs_series *s, uint64_t from, uint64_t to,
				uint64_t tsc_hz, const uint64_t *tag,
				struct obs_window_dist *d)
{
	for (uint64_t ms = window_first_ms(s, from); ms < to / 1000000 && ms <= s->newest; ms++) {
		const struct obs_bucket *b = obs_series_at(s, ms);

		if (!b)
			continue;
		if (!tag) {
			d->samples += b->taken;
			if (b->accepted_cycles > 0)
				hist_add(&d->rate, (double)b->delta0 * (double)tsc_hz /
					 b->accepted_cycles);
			continue;
		}
		for (unsigned i = 0; i < OBS_SERIES_TAGS && b->tag_count[i]; i++) {
			if (b->tag[i] != *tag)
				continue;
			d->samples += b->tag_count[i];
			if (b->tag_cycles[i] > 0)
				hist_add(&d->rate, (double)b->tag_delta0[i] * (double)tsc_hz /
					 b->tag_cycles[i]);
		}
	}
}

void obs_series_window_dist(const struct obs_series *s, uint64_t from, uint64_t to,
			    uint64_t tsc_hz, const uint64_t *tag, struct obs_window_dist *out)
{
	size_t n = obs_series_raw_count(s);

	memset(out, 0, sizeof(*out));
	hist_init_log(&out->rate);
	hist_init_log(&out->period);
	/* The ring holds the window if it holds its start, or every sample yet. */
	out->per_sample = n && (s->nraw <= OBS_RAW_SAMPLES || obs_series_raw_at(s, 0)->ns <= from);
	if (out->per_sample)
		window_from_raw(s, from, to, tsc_hz, tag, out);
	else
		window_from_buckets(s, from, to, tsc_hz, tag, out);
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
