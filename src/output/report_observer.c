/* report_observer.c - the observer's part of the batch report. */
#include "output/report.h"
#include "session/session.h"
#include "symbols/symbols.h"

#include <shimtop/signals.h>

#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void report_tag_name(const struct session *s, uint64_t tag, char *buf, size_t len)
{
	const struct obs_model *m = &session_whole(s)->obs;
	const char *name = obs_model_tag_name(m, tag);

	if (name) {
		snprintf(buf, len, "%s", name);
	} else if (m->meta.tag_kind == SHIMTOP_TAG_ADDRESS && !tag) {
		snprintf(buf, len, "[no instrumented function]");
	} else if (m->meta.tag_kind == SHIMTOP_TAG_ADDRESS && tag && session_symbols(s)) {
		const struct st_symbol *sym =
			symbolizer_lookup(session_symbols(s), session_pid(s), tag, false);

		snprintf(buf, len, "%s", sym->name);
	} else {
		snprintf(buf, len, "%llu", (unsigned long long)tag);
	}
}

void report_tag_label(const struct session *s, const struct obs_tag *t, char *buf,
		      size_t len)
{
	if (t->other)
		snprintf(buf, len, "[%u+ other tags]", OBS_MAX_TAGS);
	else
		report_tag_name(s, t->tag, buf, len);
}

/*
 * The selected range's part of the observer (--range): each tag's time
 * share and counter 0's rate in it, and counter 0's distribution, from
 * the observer's series (report_range_json gives the same).
 */
struct range_observed {
	uint64_t from, to;
	bool partly;			/* reaching before the series' 2 minutes */
	struct obs_window_tag *tags;
	size_t ntags;
	double all;			/* every thread sample's time */
	struct obs_window_dist dist;
};

static void range_observed_make(const struct session *s, struct range_observed *r)
{
	const struct obs_model *m = &session_whole(s)->obs;

	session_range_ns(s, &r->from, &r->to);
	r->partly = m->series.complete_from && r->from / 1000000 < m->series.complete_from;
	r->ntags = obs_series_window_tags(&m->series, r->from, r->to, &r->tags, &r->all);
	obs_series_window_dist(&m->series, r->from, r->to, m->tsc_hz, NULL, &r->dist);
}

static void range_observed_free(struct range_observed *r)
{
	free(r->tags);
	obs_window_dist_free(&r->dist);
}

static double window_tag_rate(const struct obs_model *m, const struct obs_window_tag *t)
{
	return m->meta.ncounters && t->cycles > 0 && m->tsc_hz
	       ? (double)t->delta0 * (double)m->tsc_hz / t->cycles : 0;
}

static void range_text(struct session *s, FILE *out)
{
	const struct obs_model *m = &session_whole(s)->obs;
	const struct histogram *h;
	struct range_observed r;

	range_observed_make(s, &r);
	h = &r.dist.rate;
	fprintf(out, "\nobserver in the range %.3f-%.3f s (above: the whole session)%s\n",
		session_range_from(s), session_range_to(s), r.partly
		? "; partly older than the observer's 2-minute series" : "");
	if (m->meta.ncounters)
		fprintf(out, "%s/s per %s: n %llu  mean %.4g  sd %.4g  median %.4g  "
			"p90 %.4g  max %.4g\n", m->meta.counter_name[0],
			r.dist.per_sample ? "sample" : "millisecond", (unsigned long long)h->n,
			h->mean, hist_stddev(h), h->n ? hist_quantile(h, 0.5) : 0,
			h->n ? hist_quantile(h, 0.9) : 0, h->n ? h->max : 0);
	fprintf(out, "%7s %10s  %-24s  %s/s\n", "TIME%", "SAMPLES",
		m->meta.tag_name[0] ? m->meta.tag_name : "tag",
		m->meta.ncounters ? m->meta.counter_name[0] : "counter");
	for (size_t i = 0; i < r.ntags && i < 40; i++) {
		char label[128];

		report_tag_name(s, r.tags[i].tag, label, sizeof(label));
		fprintf(out, "%6.2f%% %10llu  %-24.24s  %.4g\n",
			r.all > 0 ? 100.0 * r.tags[i].cycles / r.all : 0,
			(unsigned long long)r.tags[i].samples, label,
			window_tag_rate(m, &r.tags[i]));
	}
	if (!r.ntags)
		fprintf(out, "no observer samples in the range\n");
	range_observed_free(&r);
}

void report_observer_text(struct session *s, FILE *out)
{
	const struct obs_model *m = &session_whole(s)->obs;
	const struct dte *d = &m->dte;
	const struct obs_tag **tags;
	size_t n;
	char period[64];

	if (!m->active) {
		const struct st_source_info *obs = session_observer_info(s);

		if (session_has_observer(s) || obs->kind == ST_SOURCE_OBSERVER)
			fprintf(out, "\nobserver: no samples%s%s\n", obs->note[0] ? ": " : "",
				obs->note);
		return;
	}
	period_format(&session_observer_info(s)->period, period, sizeof(period));
	fprintf(out, "\nobserver: %s  period target %s  TSC %.3f GHz\nnote: %s\n",
		m->meta.mode == ST_OBS_VM_READ ? "process_vm_readv" : "shared memory",
		period, (double)m->tsc_hz / 1e9, session_observer_info(s)->note);
	fprintf(out, "samples %llu  accepted %.1f%%  rejected: cpc %.1f%%, long "
		"window %.1f%%, clock %.1f%%, backwards %.1f%%  (|CPC-1| <= %g)  "
		"batches dropped %llu\n",
		(unsigned long long)d->taken, dte_share(d, d->accepted),
		dte_share(d, d->rejected_cpc), dte_share(d, d->rejected_window),
		dte_share(d, d->rejected_clock),
		dte_share(d, d->rejected_backwards), m->tolerance,
		(unsigned long long)m->missing);
	fprintf(out, "period cycles: median %.0f  p10 %.0f  p90 %.0f  mean %.0f"
		"   gap between accepted: median %.0f  p90 %.0f\n",
		hist_quantile(&m->period, 0.5), hist_quantile(&m->period, 0.1),
		hist_quantile(&m->period, 0.9), m->period.mean,
		hist_quantile(&m->gap, 0.5), hist_quantile(&m->gap, 0.9));
	for (unsigned c = 0; c < m->meta.ncounters; c++)
		fprintf(out, "%s: %.4g /s over the run; accepted samples: mean %.4g "
			"sd %.4g max %.4g /s (highest rejected %.4g /s)\n",
			m->meta.counter_name[c], obs_model_rate(m, c),
			m->counter[c].rate.mean, hist_stddev(&m->counter[c].rate),
			m->counter[c].rate.max, m->counter[c].rejected.max);
	if (m->have_hardware)
		fprintf(out, "core IPC (app = core - self): %.3f over the run; "
			"accepted samples: mean %.3f sd %.3f, %llu cycles, %llu "
			"instructions\n", obs_model_hardware_ipc(m), m->ipc.mean,
			hist_stddev(&m->ipc), (unsigned long long)m->hw_delta_all[0],
			(unsigned long long)m->hw_delta_all[1]);
	if (m->have_self)
		fprintf(out, "observer effect: the observer's own IPC %.3f (%llu cycles, %llu "
			"instructions), the whole core's %.3f\n", obs_model_self_ipc(m),
			(unsigned long long)m->self_delta_all[0],
			(unsigned long long)m->self_delta_all[1], obs_model_core_ipc(m));
	n = obs_model_tags(m, &tags);
	fprintf(out, "\n%7s %10s  %-24s", "TIME%", "SAMPLES",
		m->meta.tag_name[0] ? m->meta.tag_name : "tag");
	for (unsigned c = 0; c < m->meta.ncounters; c++)
		fprintf(out, "  %.20s/s (mean, sd)", m->meta.counter_name[c]);
	if (m->have_hardware)
		fprintf(out, "  IPC");
	fputc('\n', out);
	for (size_t i = 0; i < n && i < 40; i++) {
		char label[128];

		report_tag_label(s, tags[i], label, sizeof(label));
		fprintf(out, "%6.2f%% %10llu  %-24.24s", obs_tag_share(m, tags[i]),
			(unsigned long long)tags[i]->samples, label);
		for (unsigned c = 0; c < m->meta.ncounters; c++)
			fprintf(out, "  %.4g (%.4g, %.4g)", obs_tag_rate(m, tags[i], c),
				tags[i]->rate[c].mean, hist_stddev(&tags[i]->rate[c]));
		if (m->have_hardware)
			fprintf(out, "  %.3f", obs_tag_hardware_ipc(tags[i]));
		fputc('\n', out);
	}
	free(tags);
	if (session_ranged(s))
		range_text(s, out);
}

/*
 * The non-empty buckets as [low edge, high edge, count]: a log histogram
 * has 2048 buckets and a run fills a few dozen.  "under" counts values
 * below the range (or <= 0 in a log histogram), "over" those above it.
 */
static struct json_object *buckets_json(const struct histogram *h)
{
	struct json_object *arr = json_object_new_array();

	for (size_t i = 0; h->buckets && i < h->nbuckets; i++) {
		struct json_object *b;

		if (!h->buckets[i])
			continue;
		b = json_object_new_array();
		json_object_array_add(b, json_object_new_double(hist_bucket_low(h, i)));
		json_object_array_add(b, json_object_new_double(hist_bucket_low(h, i + 1)));
		json_object_array_add(b, json_object_new_int64((int64_t)h->buckets[i]));
		json_object_array_add(arr, b);
	}
	return arr;
}

static struct json_object *hist_json(const struct histogram *h)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "n", json_object_new_int64((int64_t)h->n));
	json_object_object_add(o, "mean", json_object_new_double(h->n ? h->mean : 0));
	json_object_object_add(o, "stddev", json_object_new_double(hist_stddev(h)));
	json_object_object_add(o, "min", json_object_new_double(h->min));
	json_object_object_add(o, "max", json_object_new_double(h->max));
	json_object_object_add(o, "p10", json_object_new_double(h->n ? hist_quantile(h, 0.1) : 0));
	json_object_object_add(o, "p50", json_object_new_double(h->n ? hist_quantile(h, 0.5) : 0));
	json_object_object_add(o, "p90", json_object_new_double(h->n ? hist_quantile(h, 0.9) : 0));
	json_object_object_add(o, "buckets", buckets_json(h));
	json_object_object_add(o, "under", json_object_new_int64((int64_t)h->under));
	json_object_object_add(o, "over", json_object_new_int64((int64_t)h->over));
	return o;
}

static double finite_or_0(double x)
{
	return isfinite(x) ? x : 0;
}

/* The core's counts (app = core - self): all samples, accepted ones. */
static struct json_object *hardware_json(const uint64_t *all,
					 const uint64_t *accepted, double ipc)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "cycles", json_object_new_int64((int64_t)all[0]));
	json_object_object_add(o, "instructions", json_object_new_int64((int64_t)all[1]));
	json_object_object_add(o, "accepted_cycles", json_object_new_int64((int64_t)accepted[0]));
	json_object_object_add(o, "accepted_instructions",
			       json_object_new_int64((int64_t)accepted[1]));
	json_object_object_add(o, "ipc", json_object_new_double(finite_or_0(ipc)));
	return o;
}

static void add_double(struct json_object *o, const char *key, double v)
{
	json_object_object_add(o, key, json_object_new_double(v));
}

/* DTE's verdicts and the batches that carried the samples. */
static void add_dte_json(struct json_object *o, const struct session *s)
{
	const struct obs_model *m = &session_whole(s)->obs;
	const struct dte *d = &m->dte;

	add_double(o, "tolerance", m->tolerance);
	report_add_u64(o, "taken", d->taken);
	report_add_u64(o, "first", d->first);
	report_add_u64(o, "accepted", d->accepted);
	report_add_u64(o, "rejected_cpc", d->rejected_cpc);
	report_add_u64(o, "rejected_window", d->rejected_window);
	report_add_u64(o, "rejected_clock", d->rejected_clock);
	report_add_u64(o, "rejected_backwards", d->rejected_backwards);
	report_add_u64(o, "batches", m->batches);
	report_add_u64(o, "batches_missing", m->missing);
	report_add_u64(o, "ring_dropped", session_observer_dropped(s));
	report_add_u64(o, "produced", session_observer_info(s)->produced);
}

static struct json_object *counters_json(const struct obs_model *m)
{
	struct json_object *arr = json_object_new_array();

	for (unsigned c = 0; c < m->meta.ncounters; c++) {
		struct json_object *k = json_object_new_object();

		json_object_object_add(k, "name", json_object_new_string(m->meta.counter_name[c]));
		report_add_u64(k, "delta", m->counter[c].delta_all);
		report_add_u64(k, "accepted_delta", m->counter[c].delta);
		add_double(k, "rate", finite_or_0(obs_model_rate(m, c)));
		json_object_object_add(k, "rate_samples", hist_json(&m->counter[c].rate));
		json_object_object_add(k, "rejected_samples", hist_json(&m->counter[c].rejected));
		json_object_array_add(arr, k);
	}
	return arr;
}

static struct json_object *tag_rates_json(const struct obs_model *m,
					  const struct obs_tag *t)
{
	struct json_object *rates = json_object_new_array();

	for (unsigned c = 0; c < m->meta.ncounters; c++) {
		struct json_object *r = hist_json(&t->rate[c]);

		add_double(r, "rate", finite_or_0(obs_tag_rate(m, t, c)));
		report_add_u64(r, "delta", t->delta_all[c]);
		report_add_u64(r, "accepted_delta", t->delta[c]);
		add_double(r, "accepted_rate", t->accepted_cycles > 0 ?
			   (double)t->delta[c] * (double)m->tsc_hz / t->accepted_cycles : 0);
		json_object_array_add(rates, r);
	}
	return rates;
}

static struct json_object *tag_json(struct session *s, const struct obs_tag *tag)
{
	const struct obs_model *m = &session_whole(s)->obs;
	struct json_object *t = json_object_new_object();
	char label[128];

	report_tag_label(s, tag, label, sizeof(label));
	report_add_u64(t, "tag", tag->tag);
	if (tag->other)
		json_object_object_add(t, "other", json_object_new_boolean(1));
	json_object_object_add(t, "name", json_object_new_string(label));
	report_add_u64(t, "samples", tag->samples);
	report_add_u64(t, "max_depth", (uint64_t)tag->max_depth);
	add_double(t, "mean_depth", tag->depth_samples ?
		   (double)tag->depth_sum / (double)tag->depth_samples : 0);
	add_double(t, "share", obs_tag_share(m, tag));
	add_double(t, "seconds", m->tsc_hz ? tag->cycles / (double)m->tsc_hz : 0);
	json_object_object_add(t, "rates", tag_rates_json(m, tag));
	if (m->have_ipc)
		json_object_object_add(t, "ipc", hist_json(&tag->ipc));
	if (m->have_hardware)
		json_object_object_add(t, "hardware", hardware_json(
			tag->hw_delta_all, tag->hw_delta, obs_tag_hardware_ipc(tag)));
	return t;
}

static struct json_object *range_json(struct session *s)
{
	const struct obs_model *m = &session_whole(s)->obs;
	struct json_object *o = json_object_new_object(), *tarr = json_object_new_array();
	struct range_observed r;

	range_observed_make(s, &r);
	add_double(o, "from", session_range_from(s));
	add_double(o, "to", session_range_to(s));
	json_object_object_add(o, "partly_older", json_object_new_boolean(r.partly));
	json_object_object_add(o, "per_sample", json_object_new_boolean(r.dist.per_sample));
	report_add_u64(o, "samples", r.dist.samples);
	json_object_object_add(o, "rate", hist_json(&r.dist.rate));
	if (r.dist.per_sample)
		json_object_object_add(o, "period", hist_json(&r.dist.period));
	for (size_t i = 0; i < r.ntags; i++) {
		struct json_object *t = json_object_new_object();
		char label[128];

		report_tag_name(s, r.tags[i].tag, label, sizeof(label));
		report_add_u64(t, "tag", r.tags[i].tag);
		json_object_object_add(t, "name", json_object_new_string(label));
		report_add_u64(t, "samples", r.tags[i].samples);
		add_double(t, "time_share", r.all > 0 ? r.tags[i].cycles / r.all : 0);
		add_double(t, "rate", window_tag_rate(m, &r.tags[i]));
		json_object_array_add(tarr, t);
	}
	json_object_object_add(o, "tags", tarr);
	range_observed_free(&r);
	return o;
}

struct json_object *report_observer_json(struct session *s)
{
	const struct obs_model *m = &session_whole(s)->obs;
	struct json_object *o, *tarr;
	const struct obs_tag **tags;
	size_t n;

	if (!m->active)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "mode", json_object_new_string(
		m->meta.mode == ST_OBS_VM_READ ? "process_vm_readv" : "shared_memory"));
	json_object_object_add(o, "cpu", json_object_new_int((int)m->meta.cpu));
	report_add_u64(o, "period_target", m->meta.period);
	json_object_object_add(o, "note", json_object_new_string(session_observer_info(s)->note));
	report_add_u64(o, "tsc_hz", m->tsc_hz);
	add_dte_json(o, s);
	add_double(o, "seconds", m->tsc_hz ? m->cycles / (double)m->tsc_hz : 0);
	json_object_object_add(o, "cpc", hist_json(&m->cpc));
	json_object_object_add(o, "period", hist_json(&m->period));
	json_object_object_add(o, "gap", hist_json(&m->gap));
	if (m->have_ipc)
		json_object_object_add(o, "ipc", hist_json(&m->ipc));
	if (m->have_hardware) {
		struct json_object *hw = hardware_json(m->hw_delta_all, m->hw_delta,
						       obs_model_hardware_ipc(m));

		add_double(hw, "rejected_max_ipc", m->hw_rejected_max_ipc);
		/* The observer's own beside the target's (SHIM, ISCA 2015, §4.3). */
		if (m->have_self) {
			json_object_object_add(hw, "self", hardware_json(
				m->self_delta_all, m->self_delta, obs_model_self_ipc(m)));
			add_double(hw, "core_ipc", finite_or_0(obs_model_core_ipc(m)));
		}
		json_object_object_add(o, "hardware", hw);
	}
	json_object_object_add(o, "counters", counters_json(m));
	json_object_object_add(o, "tag_name", json_object_new_string(m->meta.tag_name));
	tarr = json_object_new_array();
	n = obs_model_tags(m, &tags);
	for (size_t i = 0; i < n; i++)
		json_object_array_add(tarr, tag_json(s, tags[i]));
	free(tags);
	json_object_object_add(o, "tags", tarr);
	/* The rest is the whole session's: a range cuts again only this. */
	if (session_ranged(s))
		json_object_object_add(o, "range", range_json(s));
	return o;
}
