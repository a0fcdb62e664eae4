/*
 * report_ibs.c - the batch report's IBS part: the session's totals and
 * the hot data pages (ibs_model.h), text and JSON.  Nothing without IBS.
 */
#include "output/tables.h"
#include "output/report.h"
#include "model/ibs_model.h"
#include "session/session.h"
#include "symbols/symbols.h"

#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define PAGES_SHOWN	20u

void report_ibs_page_symbols(const struct model *m, const struct ibs_page *p, char *buf,
			     size_t len)
{
	size_t used = 0;
	uint64_t shown[IBS_PAGE_SYMS] = { 0 };

	buf[0] = '\0';
	/* Heaviest first: the counts are few, a selection sort does. */
	for (unsigned k = 0; k < p->nsyms && used < len; k++) {
		unsigned best = IBS_PAGE_SYMS;

		for (unsigned i = 0; i < p->nsyms && i < IBS_PAGE_SYMS; i++)
			if (!shown[i] && (best == IBS_PAGE_SYMS || p->sym_count[i] > p->sym_count[best]))
				best = i;
		if (best == IBS_PAGE_SYMS)
			break;
		shown[best] = 1;
		used += (size_t)snprintf(buf + used, len - used, "%s%s", k ? ", " : "",
					 symbolizer_symbol(m->symbols, p->sym[best])->name);
	}
}

void report_ibs_text(struct session *s, FILE *out)
{
	const struct ibs_model *im = &session_whole(s)->ibs;
	const struct ibs_stats *t = &im->total;
	struct ibs_page *pages;
	size_t n;
	char line[1024];

	if (!ibs_model_active(im) && !im->fetches && !im->bad)
		return;
	fprintf(out, "\n");
	/* Fetch samples count where they fetched; their fields are not summed. */
	if (im->fetches)
		fprintf(out, "IBS: %" PRIu64 " fetch samples, counted where they fetched (their "
			"IC, ITLB and latency fields are not summed: --ibs-dump prints them)\n",
			im->fetches);
	if (!ibs_model_active(im)) {
		if (im->bad)
			fprintf(out, "IBS samples not decoded: %" PRIu64 ", the first because: %s\n",
				im->bad, im->first_bad);
		return;
	}
	fprintf(out, "IBS: %" PRIu64 " ops, %.1f%% loads, %.1f%% stores, DC miss %.1f%%, "
		"miss latency mean %.0f p90 %.0f cycles, %" PRIu64 " DTLB misses, "
		"%" PRIu64 " of %" PRIu64 " branches mispredicted\n", t->ops, ibs_load_share(t),
		ibs_store_share(t), ibs_miss_pct(t), ibs_mean_latency(t),
		ibs_latency_quantile(t, 0.9), t->tlb_misses, t->mispredicts, t->branches);
	fprintf(out, "IBS data sources:");
	for (int i = IBS_SRC_L1; i < IBS_NSOURCES; i++)
		if (t->source[i])
			fprintf(out, " %s %" PRIu64, ibs_data_source_name((enum ibs_data_source)i),
				t->source[i]);
	fprintf(out, "\n");
	if (im->bad)
		fprintf(out, "IBS samples not decoded: %" PRIu64 ", the first because: %s\n",
			im->bad, im->first_bad);
	n = ibs_model_pages(im, &pages);
	table_title(&page_table, NULL, line, sizeof(line));
	fprintf(out, "\nhot data pages (%zu):\n%s\n", n, line);
	for (size_t i = 0; i < n && i < PAGES_SHOWN; i++) {
		table_row(&page_table, NULL, &pages[i], session_whole(s), line, sizeof(line));
		fprintf(out, "%s\n", line);
	}
	free(pages);
}

static struct json_object *number_or_null(double v)
{
	return isnan(v) ? NULL : json_object_new_double(v);
}

struct json_object *report_ibs_stats_json(const struct ibs_stats *t)
{
	struct json_object *o = json_object_new_object(), *src = json_object_new_object();

	report_add_u64(o, "ops", t->ops);
	report_add_u64(o, "loads", t->loads);
	report_add_u64(o, "stores", t->stores);
	report_add_u64(o, "dc_misses", t->dc_misses);
	json_object_object_add(o, "miss_latency", number_or_null(ibs_mean_latency(t)));
	json_object_object_add(o, "miss_latency_p90", number_or_null(ibs_latency_quantile(t, 0.9)));
	report_add_u64(o, "dtlb_misses", t->tlb_misses);
	report_add_u64(o, "l2_dtlb_misses", t->l2tlb_misses);
	report_add_u64(o, "branches", t->branches);
	report_add_u64(o, "mispredicts", t->mispredicts);
	json_object_object_add(o, "tag_to_retire", number_or_null(ibs_tag_to_retire(t)));
	for (int i = IBS_SRC_L1; i < IBS_NSOURCES; i++)
		if (t->source[i])
			report_add_u64(src, ibs_data_source_name((enum ibs_data_source)i),
				       t->source[i]);
	json_object_object_add(o, "data_sources", src);
	return o;
}

struct json_object *report_ibs_json(struct session *s)
{
	const struct ibs_model *im = &session_whole(s)->ibs;
	struct json_object *o, *arr;
	struct ibs_page *pages;
	size_t n;

	if (!ibs_model_active(im) && !im->fetches && !im->bad)
		return NULL;
	o = report_ibs_stats_json(&im->total);
	report_add_u64(o, "fetches", im->fetches);
	report_add_u64(o, "undecoded", im->bad);
	n = ibs_model_pages(im, &pages);
	arr = table_json_rows(&page_table, pages, n < PAGES_SHOWN ? n : PAGES_SHOWN,
			      sizeof(*pages), session_whole(s));
	free(pages);
	json_object_object_add(o, "pages", arr);
	return o;
}
