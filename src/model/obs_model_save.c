/*
 * obs_model_save.c - the observer's statistics in a snapshot (the
 * "observer" section, snapshot.h): the observer's samples are not kept
 * (hundreds of thousands a second), so what they added up to is.
 *
 *   u32 version (1)
 *   struct st_observe_meta        as the observer sent it
 *   totals, flags, the DTE counts  (save_totals)
 *   histograms: cpc, period, gap, ipc, then per counter rate, rejected
 *   u32 rows, u64 overflowed, then per tag row its totals and histograms
 *   the series: u64 newest, complete_from, u32 buckets, each bucket;
 *               u64 samples ever, u32 kept, each kept sample, oldest first
 *
 * A histogram: u8 kind, u32 buckets, f64 lo, hi, u64 under, over, n,
 * f64 mean, m2, min, max, u32 non-zero buckets, each as u32 index and
 * u64 count, indexes rising.  The reader builds the model as the
 * observer's records would have (the meta record first, rows through
 * obs_model_add_row) and refuses any histogram shaped otherwise.
 */
#include "model/obs_model.h"
#include "ring/packed.h"

#include <stdlib.h>
#include <string.h>

/*
 * 2: version 1, then each time share's cycles (the model's, each tag's in
 * order), then each tag's samples its depth is of; a version 1 section
 * counts every period as present and every sample's depth.
 */
#define OBS_SAVE_VERSION 2u

static void save_hist(struct packed_out *o, const struct histogram *h)
{
	uint32_t nonzero = 0;

	packed_u8(o, (uint8_t)h->kind);
	packed_u32(o, (uint32_t)h->nbuckets);
	packed_f64(o, h->lo);
	packed_f64(o, h->hi);
	packed_u64(o, h->under);
	packed_u64(o, h->over);
	packed_u64(o, h->n);
	packed_f64(o, h->mean);
	packed_f64(o, h->m2);
	packed_f64(o, h->min);
	packed_f64(o, h->max);
	for (size_t i = 0; h->buckets && i < h->nbuckets; i++)
		nonzero += h->buckets[i] != 0;
	packed_u32(o, nonzero);
	for (size_t i = 0; h->buckets && i < h->nbuckets; i++)
		if (h->buckets[i]) {
			packed_u32(o, (uint32_t)i);
			packed_u64(o, h->buckets[i]);
		}
}

/* Into h, initialised as the writer's was; false if shaped otherwise. */
static bool load_hist(struct packed_in *in, struct histogram *h)
{
	uint8_t kind = packed_get_u8(in);
	uint32_t nbuckets = packed_get_u32(in), nonzero;
	double lo = packed_get_f64(in), hi = packed_get_f64(in);
	int64_t last = -1;

	/*
	 * A row's histogram the reader has not made (a counter or IPC the
	 * writer's meta data had at some time): made as the writer made it.
	 */
	if (!h->nbuckets && kind == HIST_LOG)
		hist_init_log(h);
	else if (!h->nbuckets && kind == HIST_LINEAR && nbuckets == 500 && lo == 0 && hi == 4)
		hist_init_linear(h, 0, 4, 500);
	if (in->bad || kind != (uint8_t)h->kind || nbuckets != h->nbuckets ||
	    memcmp(&lo, &h->lo, sizeof(lo)) || memcmp(&hi, &h->hi, sizeof(hi)))
		return false;
	h->under = packed_get_u64(in);
	h->over = packed_get_u64(in);
	h->n = packed_get_u64(in);
	h->mean = packed_get_f64(in);
	h->m2 = packed_get_f64(in);
	h->min = packed_get_f64(in);
	h->max = packed_get_f64(in);
	nonzero = packed_get_u32(in);
	if (in->bad || nonzero > nbuckets)
		return false;
	if (nonzero && !h->buckets)
		h->buckets = st_xcalloc(nbuckets, sizeof(*h->buckets));
	for (uint32_t k = 0; k < nonzero; k++) {
		uint32_t i = packed_get_u32(in);
		uint64_t count = packed_get_u64(in);

		if (in->bad || i >= nbuckets || (int64_t)i <= last || !count)
			return false;
		h->buckets[i] = count;
		last = i;
	}
	return !in->bad;
}

static void save_pair(struct packed_out *o, const uint64_t *v)
{
	packed_u64(o, v[0]);
	packed_u64(o, v[1]);
}

static void load_pair(struct packed_in *in, uint64_t *v)
{
	v[0] = packed_get_u64(in);
	v[1] = packed_get_u64(in);
}

static void save_totals(struct packed_out *o, const struct obs_model *m)
{
	const struct dte *d = &m->dte;

	packed_f64(o, m->tolerance);
	packed_u64(o, m->tsc_hz);
	packed_u64(o, m->batches);
	packed_u64(o, m->missing);
	packed_u32(o, m->next_seq);
	packed_u8(o, m->have_seq);
	packed_u64(o, m->thread_samples);
	packed_f64(o, m->cycles);
	packed_f64(o, m->accepted_cycles);
	packed_u64(o, m->first_tsc);
	packed_u64(o, m->last_tsc);
	packed_u8(o, m->have_ipc);
	packed_u8(o, m->have_hardware);
	save_pair(o, m->hw_delta);
	save_pair(o, m->hw_delta_all);
	packed_f64(o, m->hw_rejected_max_ipc);
	packed_u8(o, m->have_self);
	save_pair(o, m->self_delta);
	save_pair(o, m->self_delta_all);
	packed_u8(o, m->have_accept);
	packed_u64(o, m->last_accept);
	packed_f64(o, d->tolerance);
	packed_u64(o, d->taken);
	packed_u64(o, d->first);
	packed_u64(o, d->accepted);
	packed_u64(o, d->rejected_cpc);
	packed_u64(o, d->rejected_clock);
	packed_u64(o, d->rejected_backwards);
	packed_u64(o, d->rejected_window);
	packed_u64(o, d->min_window);
	packed_u8(o, d->have_prev);
	packed_u64(o, d->prev_start);
	packed_u64(o, d->prev_end);
}

static void load_totals(struct packed_in *in, struct obs_model *m)
{
	struct dte *d = &m->dte;

	m->tolerance = packed_get_f64(in);
	m->tsc_hz = packed_get_u64(in);
	m->batches = packed_get_u64(in);
	m->missing = packed_get_u64(in);
	m->next_seq = packed_get_u32(in);
	m->have_seq = packed_get_u8(in) != 0;
	m->thread_samples = packed_get_u64(in);
	m->cycles = packed_get_f64(in);
	m->accepted_cycles = packed_get_f64(in);
	m->first_tsc = packed_get_u64(in);
	m->last_tsc = packed_get_u64(in);
	m->have_ipc = packed_get_u8(in) != 0;
	m->have_hardware = packed_get_u8(in) != 0;
	load_pair(in, m->hw_delta);
	load_pair(in, m->hw_delta_all);
	m->hw_rejected_max_ipc = packed_get_f64(in);
	m->have_self = packed_get_u8(in) != 0;
	load_pair(in, m->self_delta);
	load_pair(in, m->self_delta_all);
	m->have_accept = packed_get_u8(in) != 0;
	m->last_accept = packed_get_u64(in);
	d->tolerance = packed_get_f64(in);
	d->taken = packed_get_u64(in);
	d->first = packed_get_u64(in);
	d->accepted = packed_get_u64(in);
	d->rejected_cpc = packed_get_u64(in);
	d->rejected_clock = packed_get_u64(in);
	d->rejected_backwards = packed_get_u64(in);
	d->rejected_window = packed_get_u64(in);
	d->min_window = packed_get_u64(in);
	d->have_prev = packed_get_u8(in) != 0;
	d->prev_start = packed_get_u64(in);
	d->prev_end = packed_get_u64(in);
}

static void save_counts(struct packed_out *o, const uint64_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		packed_u64(o, v[i]);
}

static void load_counts(struct packed_in *in, uint64_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		v[i] = packed_get_u64(in);
}

static void save_row(struct packed_out *o, const struct obs_tag *t)
{
	packed_u64(o, t->tag);
	packed_u8(o, t->other);
	packed_u64(o, t->samples);
	packed_f64(o, t->cycles);
	packed_f64(o, t->accepted_cycles);
	packed_u64(o, t->max_depth);
	packed_u64(o, t->depth_sum);
	save_counts(o, t->delta, ST_OBS_MAX_COUNTERS);
	save_counts(o, t->delta_all, ST_OBS_MAX_COUNTERS);
	save_pair(o, t->hw_delta);
	save_pair(o, t->hw_delta_all);
	for (unsigned c = 0; c < ST_OBS_MAX_COUNTERS; c++)
		save_hist(o, &t->rate[c]);
	save_hist(o, &t->ipc);
}

static int load_row(struct packed_in *in, struct obs_model *m, char *err, size_t errlen)
{
	uint64_t tag = packed_get_u64(in);
	bool other = packed_get_u8(in) != 0;
	struct obs_tag *t = in->bad ? NULL : obs_model_add_row(m, tag, other);

	if (in->bad)
		return st_refuse(err, errlen, "the observer section ends inside a tag");
	if (!t)
		return st_refuse(err, errlen, "the observer section repeats tag %llu "
				 "or holds more than %u", (unsigned long long)tag, OBS_MAX_TAGS);
	t->samples = packed_get_u64(in);
	t->cycles = packed_get_f64(in);
	t->accepted_cycles = packed_get_f64(in);
	t->max_depth = packed_get_u64(in);
	t->depth_sum = packed_get_u64(in);
	load_counts(in, t->delta, ST_OBS_MAX_COUNTERS);
	load_counts(in, t->delta_all, ST_OBS_MAX_COUNTERS);
	load_pair(in, t->hw_delta);
	load_pair(in, t->hw_delta_all);
	for (unsigned c = 0; c < ST_OBS_MAX_COUNTERS; c++)
		if (!load_hist(in, &t->rate[c]))
			return st_refuse(err, errlen, "tag %llu's rate histogram of counter "
					 "%u is malformed", (unsigned long long)tag, c);
	if (!load_hist(in, &t->ipc))
		return st_refuse(err, errlen, "tag %llu's IPC histogram is malformed",
				 (unsigned long long)tag);
	return 0;
}

static void save_bucket(struct packed_out *o, const struct obs_bucket *b)
{
	packed_u64(o, b->ms);
	packed_u32(o, b->taken);
	packed_u32(o, b->accepted);
	packed_f64(o, b->accepted_cycles);
	packed_u64(o, b->delta0);
	packed_f64(o, b->cycles);
	for (unsigned i = 0; i < OBS_SERIES_TAGS; i++) {
		packed_u64(o, b->tag[i]);
		packed_u32(o, b->tag_count[i]);
		packed_f64(o, b->tag_cycles[i]);
		packed_u64(o, b->tag_delta0[i]);
	}
	save_counts(o, b->hw, 4);
}

static void load_bucket(struct packed_in *in, struct obs_bucket *b)
{
	b->ms = packed_get_u64(in);
	b->taken = packed_get_u32(in);
	b->accepted = packed_get_u32(in);
	b->accepted_cycles = packed_get_f64(in);
	b->delta0 = packed_get_u64(in);
	b->cycles = packed_get_f64(in);
	for (unsigned i = 0; i < OBS_SERIES_TAGS; i++) {
		b->tag[i] = packed_get_u64(in);
		b->tag_count[i] = packed_get_u32(in);
		b->tag_cycles[i] = packed_get_f64(in);
		b->tag_delta0[i] = packed_get_u64(in);
	}
	load_counts(in, b->hw, 4);
}

static void save_series(struct packed_out *o, const struct obs_series *s)
{
	uint32_t n = 0;
	size_t kept = obs_series_raw_count(s);

	packed_u64(o, s->newest);
	packed_u64(o, s->complete_from);
	for (size_t i = 0; s->b && i < OBS_SERIES_MS; i++)
		n += s->b[i].taken != 0;
	packed_u32(o, n);
	for (size_t i = 0; s->b && i < OBS_SERIES_MS; i++)
		if (s->b[i].taken)
			save_bucket(o, &s->b[i]);
	packed_u64(o, s->nraw);
	packed_u32(o, (uint32_t)kept);
	for (size_t i = 0; i < kept; i++) {
		const struct obs_raw_sample *r = obs_series_raw_at(s, i);

		packed_u64(o, r->ns);
		packed_u64(o, r->tag);
		packed_u32(o, r->delta0);
		packed_u32(o, r->cycles);
		packed_u32(o, r->accepted);
	}
}

static int load_series(struct packed_in *in, struct obs_series *s, char *err, size_t errlen)
{
	uint32_t n, kept;
	uint64_t last = 0;

	s->newest = packed_get_u64(in);
	s->complete_from = packed_get_u64(in);
	n = packed_get_u32(in);
	if (in->bad || n > OBS_SERIES_MS)
		return st_refuse(err, errlen, "the observer's timeline holds %u milliseconds, "
				 "more than %u", n, OBS_SERIES_MS);
	if (n && !s->b)
		s->b = st_xcalloc(OBS_SERIES_MS, sizeof(*s->b));
	for (uint32_t k = 0; k < n; k++) {
		struct obs_bucket b, *at;

		load_bucket(in, &b);
		if (in->bad)
			break;
		at = &s->b[b.ms % OBS_SERIES_MS];
		/* Only what the ring could hold at once, each millisecond once. */
		if (!b.taken || b.ms > s->newest || b.ms + OBS_SERIES_MS <= s->newest || at->taken)
			return st_refuse(err, errlen, "the observer's timeline has a bad "
					 "millisecond (%llu)", (unsigned long long)b.ms);
		*at = b;
	}
	s->nraw = packed_get_u64(in);
	kept = packed_get_u32(in);
	if (in->bad || kept != (s->nraw < OBS_RAW_SAMPLES ? s->nraw : OBS_RAW_SAMPLES))
		return st_refuse(err, errlen, "the observer's single samples are miscounted");
	if (kept && !s->raw)
		s->raw = st_xcalloc(OBS_RAW_SAMPLES, sizeof(*s->raw));
	for (uint32_t k = 0; k < kept; k++) {
		struct obs_raw_sample *r = &s->raw[(s->nraw - kept + k) % OBS_RAW_SAMPLES];

		r->ns = packed_get_u64(in);
		r->tag = packed_get_u64(in);
		r->delta0 = packed_get_u32(in);
		r->cycles = packed_get_u32(in);
		r->accepted = packed_get_u32(in);
		/* Looked up by binary search: in time order or not at all. */
		if (in->bad || r->ns < last)
			return st_refuse(err, errlen, "the observer's single samples are "
					 "out of order or cut short");
		last = r->ns;
	}
	return 0;
}

void obs_model_save(const struct obs_model *m, struct packed_out *o)
{
	packed_u32(o, OBS_SAVE_VERSION);
	packed_put(o, &m->meta, sizeof(m->meta));
	save_totals(o, m);
	save_hist(o, &m->cpc);
	save_hist(o, &m->period);
	save_hist(o, &m->gap);
	save_hist(o, &m->ipc);
	for (unsigned c = 0; c < ST_OBS_MAX_COUNTERS; c++) {
		packed_u64(o, m->counter[c].delta);
		packed_u64(o, m->counter[c].delta_all);
		save_hist(o, &m->counter[c].rate);
		save_hist(o, &m->counter[c].rejected);
	}
	packed_u32(o, (uint32_t)m->ntags);
	packed_u64(o, m->tags_overflowed);
	for (size_t i = 0; i < m->ntags; i++)
		save_row(o, &m->tags[i]);
	save_series(o, &m->series);
	packed_f64(o, m->present_cycles);
	for (size_t i = 0; i < m->ntags; i++)
		packed_f64(o, m->tags[i].present_cycles);
	for (size_t i = 0; i < m->ntags; i++)
		packed_u64(o, m->tags[i].depth_samples);
}

static void load_present(struct packed_in *in, struct obs_model *m, uint32_t version)
{
	m->present_cycles = version >= 2 ? packed_get_f64(in) : m->cycles;
	for (size_t i = 0; i < m->ntags; i++)
		m->tags[i].present_cycles = version >= 2 ? packed_get_f64(in) : m->tags[i].cycles;
	for (size_t i = 0; i < m->ntags; i++)
		m->tags[i].depth_samples = version >= 2 ? packed_get_u64(in) : m->tags[i].samples;
}

int obs_model_load(struct obs_model *m, const uint8_t *p, size_t len, char *err, size_t errlen)
{
	struct packed_in in = { p, len, 0, false };
	struct st_observe_meta meta;
	uint32_t version = packed_get_u32(&in), rows;
	int rc;

	if (in.bad || version < 1 || version > OBS_SAVE_VERSION)
		return st_refuse(err, errlen, "the observer section is of version %u, not "
				 "1-%u", version, OBS_SAVE_VERSION);
	packed_get(&in, &meta, sizeof(meta));
	if (in.bad)
		return st_refuse(err, errlen, "the observer section ends in its meta data");
	/* As the observer's own record: the model checks what it holds. */
	meta.h.type = ST_REC_OBSERVE_META;
	meta.h.size = sizeof(meta);
	obs_model_ingest(m, &meta);
	load_totals(&in, m);
	if (!load_hist(&in, &m->cpc) || !load_hist(&in, &m->period) ||
	    !load_hist(&in, &m->gap) || !load_hist(&in, &m->ipc))
		return st_refuse(err, errlen, "the observer's CPC, period, gap or IPC "
				 "histogram is malformed");
	for (unsigned c = 0; c < ST_OBS_MAX_COUNTERS; c++) {
		m->counter[c].delta = packed_get_u64(&in);
		m->counter[c].delta_all = packed_get_u64(&in);
		if (!load_hist(&in, &m->counter[c].rate) ||
		    !load_hist(&in, &m->counter[c].rejected))
			return st_refuse(err, errlen, "the observer's histograms of counter %u "
					 "are malformed", c);
	}
	rows = packed_get_u32(&in);
	m->tags_overflowed = packed_get_u64(&in);
	if (in.bad || rows > OBS_MAX_TAGS + 1)
		return st_refuse(err, errlen, "the observer section holds %u tags, more than %u",
				 rows, OBS_MAX_TAGS + 1);
	for (uint32_t i = 0; i < rows; i++) {
		rc = load_row(&in, m, err, errlen);
		if (rc)
			return rc;
	}
	rc = load_series(&in, &m->series, err, errlen);
	if (rc)
		return rc;
	load_present(&in, m, version);
	if (in.bad)
		return st_refuse(err, errlen, "the observer section is cut short");
	if (packed_left(&in))
		return st_refuse(err, errlen, "%zu bytes follow the observer section's end",
				 packed_left(&in));
	return 0;
}
