/* obs_model.c - DTE and statistics over observer samples. */
#include "model/obs_model.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void init_hists(struct obs_model *m)
{
	hist_init_linear(&m->cpc, 0, 2, 400);
	hist_init_log(&m->period);
	hist_init_log(&m->gap);
	hist_init_linear(&m->ipc, 0, 4, 500);
	for (unsigned c = 0; c < ST_OBS_MAX_COUNTERS; c++) {
		hist_init_log(&m->counter[c].rate);
		hist_init_log(&m->counter[c].rejected);
		m->counter[c].delta = 0;
	}
}

static void free_hists(struct obs_model *m)
{
	struct obs_tag_index *ix, *next;

	hist_free(&m->cpc);
	hist_free(&m->period);
	hist_free(&m->gap);
	hist_free(&m->ipc);
	for (unsigned c = 0; c < ST_OBS_MAX_COUNTERS; c++) {
		hist_free(&m->counter[c].rate);
		hist_free(&m->counter[c].rejected);
	}
	for (size_t i = 0; i < m->ntags; i++) {
		for (unsigned c = 0; c < ST_OBS_MAX_COUNTERS; c++)
			hist_free(&m->tags[i].rate[c]);
		hist_free(&m->tags[i].ipc);
	}
	free(m->tags);
	HASH_ITER(hh, m->index, ix, next) {
		HASH_DEL(m->index, ix);
		free(ix);
	}
	m->tags = NULL;
	m->ntags = m->tags_cap = m->other = 0;
	m->tags_overflowed = 0;
}

void obs_model_init(struct obs_model *m, double tolerance)
{
	memset(m, 0, sizeof(*m));
	m->tolerance = tolerance;
	dte_init(&m->dte, tolerance);
	init_hists(m);
}

void obs_model_free(struct obs_model *m)
{
	free_hists(m);
	obs_series_free(&m->series);
}

void obs_model_zero(struct obs_model *m)
{
	struct st_observe_meta meta = m->meta;
	bool active = m->active, have_ipc = m->have_ipc;
	bool have_hardware = m->have_hardware, have_self = m->have_self;
	uint64_t hz = m->tsc_hz, min_period = m->min_period;
	struct obs_series series = m->series;	/* history, not totals: z keeps it */

	free_hists(m);
	obs_model_init(m, m->tolerance);
	m->series = series;
	m->meta = meta;
	m->active = active;
	m->have_ipc = have_ipc;
	m->have_hardware = have_hardware;
	m->have_self = have_self;
	m->tsc_hz = hz;
	m->min_period = min_period;
}

/* ---- tags ---- */

static struct obs_tag *new_tag(struct obs_model *m, uint64_t tag)
{
	struct obs_tag *t;

	ST_GROW(m->tags, m->tags_cap, m->ntags + 1);
	t = &m->tags[m->ntags++];
	memset(t, 0, sizeof(*t));
	t->tag = tag;
	for (unsigned c = 0; c < m->meta.ncounters; c++)
		hist_init_log(&t->rate[c]);
	if (m->have_ipc)
		hist_init_linear(&t->ipc, 0, 4, 500);
	return t;
}

static struct obs_tag *tag_of(struct obs_model *m, uint64_t tag)
{
	struct obs_tag_index *ix;

	HASH_FIND(hh, m->index, &tag, sizeof(tag), ix);
	if (ix)
		return &m->tags[ix->at];
	if (m->ntags - (m->other != 0) >= OBS_MAX_TAGS) {
		if (!m->other) {
			new_tag(m, 0)->other = true;
			m->other = m->ntags;
		}
		return &m->tags[m->other - 1];
	}
	new_tag(m, tag);
	ix = st_xmalloc(sizeof(*ix));
	ix->tag = tag;
	ix->at = m->ntags - 1;
	HASH_ADD(hh, m->index, tag, sizeof(ix->tag), ix);
	return &m->tags[ix->at];
}

struct obs_tag *obs_model_add_row(struct obs_model *m, uint64_t tag, bool other)
{
	struct obs_tag_index *ix;

	if (other) {
		if (m->other)
			return NULL;
		new_tag(m, 0)->other = true;
		m->other = m->ntags;
		return &m->tags[m->ntags - 1];
	}
	HASH_FIND(hh, m->index, &tag, sizeof(tag), ix);
	if (ix || m->ntags - (m->other != 0) >= OBS_MAX_TAGS)
		return NULL;
	return tag_of(m, tag);
}

/* ---- records ---- */

/* IPC histograms from now on, for tags made before too. */
static void enable_ipc(struct obs_model *m)
{
	if (m->have_ipc)
		return;
	m->have_ipc = true;
	for (size_t i = 0; i < m->ntags; i++)
		hist_init_linear(&m->tags[i].ipc, 0, 4, 500);
}

static void take_meta(struct obs_model *m, const struct st_observe_meta *r)
{
	unsigned old = m->meta.ncounters;

	m->meta = *r;
	/* From a file: terminate every string. */
	m->meta.tag_name[ST_OBS_NAME_LEN - 1] = '\0';
	for (unsigned i = 0; i < ST_OBS_MAX_COUNTERS; i++)
		m->meta.counter_name[i][ST_OBS_NAME_LEN - 1] = '\0';
	for (unsigned i = 0; i < ST_OBS_TAG_NAMES; i++)
		m->meta.tag_value_name[i][ST_OBS_NAME_LEN - 1] = '\0';
	if (m->meta.ncounters > ST_OBS_MAX_COUNTERS)
		m->meta.ncounters = ST_OBS_MAX_COUNTERS;
	for (unsigned i = 0; i < ST_OBS_MAX_COUNTERS; i++)
		if (m->meta.width[i] == 0 || m->meta.width[i] > 64)
			m->meta.width[i] = 64;
	if (!m->have_hardware && m->meta.ncounters >= 2 &&
	    !strcmp(m->meta.counter_name[0], "cycles") &&
	    !strcmp(m->meta.counter_name[1], "instructions"))
		enable_ipc(m);
	m->active = true;
	/* Tags made before more counters were known get their histograms. */
	for (size_t i = 0; i < m->ntags && m->meta.ncounters > old; i++)
		for (unsigned c = old; c < m->meta.ncounters; c++)
			hist_init_log(&m->tags[i].rate[c]);
}

/*
 * One thread's part of sample n: tag points at its tag and depth, delta
 * at its counters' changes since sample n-1 (valid[c] false when counter
 * c went backwards); dt is the period in cycles, after a gap when away.
 */
static void take_thread(struct obs_model *m, unsigned nc, const uint64_t *tag,
			const uint64_t *delta, const bool *valid, double dt,
			bool ok, bool away)
{
	struct obs_tag *t = tag_of(m, tag[0]);

	m->thread_samples++;
	m->tags_overflowed += t->other;
	t->samples++;
	if (ok) {
		t->depth_samples++;
		if (tag[1] > t->max_depth)
			t->max_depth = tag[1];
		t->depth_sum += tag[1];
	}
	t->cycles += dt;
	if (!away)
		t->present_cycles += dt;
	for (unsigned c = 0; c < nc; c++) {
		double rate;

		if (!valid[c])
			continue;	/* backwards: no rate at all */
		rate = (double)delta[c] * (double)m->tsc_hz / dt;
		m->counter[c].delta_all += delta[c];
		t->delta_all[c] += delta[c];
		if (!ok) {
			hist_add(&m->counter[c].rejected, rate);
			continue;
		}
		m->counter[c].delta += delta[c];
		hist_add(&m->counter[c].rate, rate);
		t->delta[c] += delta[c];
		hist_add(&t->rate[c], rate);
	}
	if (ok) {
		t->accepted_cycles += dt;
		if (m->have_ipc && !m->have_hardware && delta[0]) {
			double ipc = (double)delta[1] / (double)delta[0];

			hist_add(&m->ipc, ipc);
			hist_add(&t->ipc, ipc);
		}
	}
}

/* Instructions per cycle from {cycles, instructions}; NAN without cycles. */
static double ipc_of(const uint64_t *d)
{
	return d[0] ? (double)d[1] / (double)d[0] : NAN;
}

/*
 * The core's cycles and instructions in sample n; t is the tag of the
 * thread on the sibling (NULL when no thread is watched yet).
 */
/* delta: app's cycles and instructions, then self's where the batch has them. */
static void take_hardware(struct obs_model *m, struct obs_tag *t,
			  const uint64_t *delta, bool self, bool ok)
{
	double ipc = ipc_of(delta);

	for (unsigned i = 0; self && i < 2; i++) {
		m->self_delta_all[i] += delta[2 + i];
		if (ok)
			m->self_delta[i] += delta[2 + i];
	}
	for (unsigned i = 0; i < 2; i++) {
		m->hw_delta_all[i] += delta[i];
		if (t)
			t->hw_delta_all[i] += delta[i];
	}
	if (!ok) {
		if (ipc > m->hw_rejected_max_ipc)
			m->hw_rejected_max_ipc = ipc;
		return;
	}
	for (unsigned i = 0; i < 2; i++) {
		m->hw_delta[i] += delta[i];
		if (t)
			t->hw_delta[i] += delta[i];
	}
	if (isnan(ipc))
		return;
	hist_add(&m->ipc, ipc);
	if (t)
		hist_add(&t->ipc, ipc);
}

/*
 * A period far longer than the shortest one means the observer was away
 * (preempted, or a long interrupt).  The tag it reads at the end says
 * nothing about the time before, so giving that tag the gap in its time
 * share lets one sample outweigh thousands (under stress-ng, 17 points).
 * Rates keep the gap: the target may have run all of it, and dropping it
 * would count the target mostly when the observer runs instead of it.
 */
#define OBS_AWAY_FACTOR 16
#define OBS_AWAY_FLOOR_HZ 20000	/* never below 50 us: interrupts stay in */

static bool observer_was_away(struct obs_model *m, uint64_t period)
{
	uint64_t limit;

	if (period && (!m->min_period || period < m->min_period))
		m->min_period = period;
	limit = m->min_period * OBS_AWAY_FACTOR;
	if (limit < m->tsc_hz / OBS_AWAY_FLOOR_HZ)
		limit = m->tsc_hz / OBS_AWAY_FLOOR_HZ;
	return period > limit;
}

/* One sample against the one before it in the same batch. */
static void take_sample(struct obs_model *m, const struct st_observe *r,
			size_t words, size_t head, size_t n)
{
	const uint64_t *cur = r->data + n * words, *prev = cur - words;
	uint64_t delta[ST_OBS_MAX_THREADS][ST_OBS_MAX_COUNTERS], hw[4] = { 0 };
	bool valid[ST_OBS_MAX_THREADS][ST_OBS_MAX_COUNTERS], back = false, away;
	double cpc, dt;
	enum dte_verdict v = dte_check(&m->dte, cur[0], cur[1], &cpc);

	m->last_tsc = cur[1];
	if (v == DTE_FIRST || v == DTE_REJECT_CLOCK)
		return;
	hist_add(&m->cpc, cpc);
	/* Rates over the start clocks (SHIM, ISCA 2015, §4.1). */
	dt = (double)(cur[0] - prev[0]);
	hist_add(&m->period, dt);
	m->cycles += dt;
	away = observer_was_away(m, cur[0] - prev[0]);
	if (!away)
		m->present_cycles += dt;
	/* Every counter's change once; one going backwards rejects all. */
	for (unsigned i = 2; i < head; i++)
		back |= !counter_delta(prev[i], cur[i], 64, &hw[i - 2]);
	for (unsigned t = 0; t < r->nthreads; t++) {
		size_t off = st_observe_counters_at(r->flags, r->ncounters, t);

		for (unsigned c = 0; c < r->ncounters; c++) {
			valid[t][c] = counter_delta(prev[off + c], cur[off + c],
						    m->meta.width[c], &delta[t][c]);
			back |= !valid[t][c];
		}
	}
	if (back)
		v = dte_backwards(&m->dte, v);
	if (r->mono_base && m->tsc_hz) {
		/* The sample's time on perf's clock, for the timeline. */
		double at = (double)r->mono_base + (double)(int64_t)(cur[0] -
			    r->tsc_base) * 1e9 / (double)m->tsc_hz;
		/* A hostile recording's clocks clamp rather than overflow. */
		uint64_t ns = !(at > 0) ? 0 : at >= 0x1p63 ? (uint64_t)INT64_MAX
			      : (uint64_t)at;
		uint64_t d0 = 0;

		for (unsigned t = 0; t < r->nthreads && r->ncounters; t++)
			if (valid[t][0])
				d0 += delta[t][0];
		obs_series_sample(&m->series, ns, v == DTE_ACCEPT, dt, d0);
		for (unsigned t = 0; t < r->nthreads; t++)
			obs_series_tag(&m->series, ns, cur[st_observe_tag_at(r->flags,
				       r->nthreads, r->ncounters, t)], dt,
				       r->ncounters ? delta[t][0] : 0,
				       r->ncounters && valid[t][0]);
		obs_series_raw(&m->series, ns, v == DTE_ACCEPT, dt, d0, r->nthreads ?
			       cur[st_observe_tag_at(r->flags, r->nthreads, r->ncounters, 0)] : 0);
		if (head > 2 && v == DTE_ACCEPT)
			obs_series_hardware(&m->series, ns, hw, (r->flags & ST_OBS_SELF) != 0);
	}
	for (unsigned t = 0; t < r->nthreads; t++)
		take_thread(m, r->ncounters, cur + st_observe_tag_at(r->flags,
			    r->nthreads, r->ncounters, t),
			    delta[t], valid[t], dt, v == DTE_ACCEPT, away);
	if (head > 2 && v != DTE_REJECT_BACKWARDS)
		take_hardware(m, r->nthreads ? tag_of(m, cur[st_observe_tag_at(
			      r->flags, r->nthreads, r->ncounters, 0)]) : NULL,
			      hw, (r->flags & ST_OBS_SELF) != 0, v == DTE_ACCEPT);
	if (v == DTE_ACCEPT) {
		m->accepted_cycles += dt;
		if (m->have_accept)
			hist_add(&m->gap, (double)(cur[0] - m->last_accept));
		m->have_accept = true;
		m->last_accept = cur[0];
	}
}

void obs_model_ingest(struct obs_model *m, const void *rec)
{
	const struct st_header *h = rec;
	const struct st_observe *r = rec;
	size_t words, head, first = 0;

	if (h->type == ST_REC_OBSERVE_META) {
		take_meta(m, rec);
		return;
	}
	if (h->type != ST_REC_OBSERVE || !r->nsamples)
		return;
	m->active = true;
	if (r->tsc_hz)
		m->tsc_hz = r->tsc_hz;
	if (!m->tsc_hz || r->ncounters != m->meta.ncounters)
		return;		/* no meta yet: nothing to interpret it by */
	m->batches++;
	if (m->have_seq && r->seq != m->next_seq)
		m->missing += (uint32_t)(r->seq - m->next_seq);
	m->have_seq = true;
	m->next_seq = r->seq + 1;
	words = st_observe_words(r->nthreads, r->ncounters, r->flags);
	head = st_observe_head(r->flags);
	if ((r->flags & ST_OBS_SELF) && (r->flags & ST_OBS_HARDWARE))
		m->have_self = true;
	if ((r->flags & ST_OBS_HARDWARE) && !m->have_hardware) {
		m->have_hardware = true;
		enable_ipc(m);
	}
	if (r->flags & ST_OBS_CONTINUES) {
		/* Sample 0 was judged in the previous batch; compare with it. */
		dte_resume(&m->dte, r->data[0], r->data[1]);
		first = 1;
	} else {
		dte_restart(&m->dte);
		m->have_accept = false;
	}
	if (!m->first_tsc)
		m->first_tsc = r->data[0];
	for (size_t n = first; n < r->nsamples; n++)
		take_sample(m, r, words, head, n);
}

/* ---- queries ---- */

static int by_time(const void *a, const void *b)
{
	const struct obs_tag *x = *(const struct obs_tag *const *)a;
	const struct obs_tag *y = *(const struct obs_tag *const *)b;

	return x->present_cycles < y->present_cycles ? 1 :
	       x->present_cycles > y->present_cycles ? -1 :
	       x->tag < y->tag ? -1 : x->tag > y->tag;
}

double obs_tag_share(const struct obs_model *m, const struct obs_tag *t)
{
	return m->present_cycles > 0 ? 100.0 * t->present_cycles / m->present_cycles : 0;
}

size_t obs_model_tags(const struct obs_model *m, const struct obs_tag ***out)
{
	const struct obs_tag **v = st_xcalloc(m->ntags + 1, sizeof(*v));

	for (size_t i = 0; i < m->ntags; i++)
		v[i] = &m->tags[i];
	qsort(v, m->ntags, sizeof(*v), by_time);
	*out = v;
	return m->ntags;
}

double obs_model_rate(const struct obs_model *m, unsigned c)
{
	if (c >= m->meta.ncounters || !(m->cycles > 0) || !m->tsc_hz)
		return NAN;
	return (double)m->counter[c].delta_all * (double)m->tsc_hz / m->cycles;
}

double obs_tag_rate(const struct obs_model *m, const struct obs_tag *t,
		    unsigned c)
{
	if (c >= m->meta.ncounters || !(t->cycles > 0) || !m->tsc_hz)
		return NAN;
	return (double)t->delta_all[c] * (double)m->tsc_hz / t->cycles;
}

double obs_model_hardware_ipc(const struct obs_model *m)
{
	return ipc_of(m->hw_delta_all);
}

double obs_model_self_ipc(const struct obs_model *m)
{
	return ipc_of(m->self_delta_all);
}

double obs_model_core_ipc(const struct obs_model *m)
{
	uint64_t core[2] = { m->hw_delta_all[0] + m->self_delta_all[0],
			     m->hw_delta_all[1] + m->self_delta_all[1] };

	return ipc_of(core);
}

double obs_tag_hardware_ipc(const struct obs_tag *t)
{
	return ipc_of(t->hw_delta_all);
}

const char *obs_model_tag_name(const struct obs_model *m, uint64_t tag)
{
	if (m->meta.tag_kind != 0 || tag >= ST_OBS_TAG_NAMES ||
	    !m->meta.tag_value_name[tag][0])
		return NULL;
	return m->meta.tag_value_name[tag];
}
