/*
 * export_speedscope.c - speedscope's file format: a "sampled" profile
 * per event, stacks as indices into one shared frame table, root first,
 * each with its weight.  From the sample history in time order, so
 * speedscope's time-order view is the run as it happened (consecutive
 * samples on one path merged, as speedscope does itself); from the call
 * tree, a stack per path, where the history no longer holds every
 * sample.  Strings and objects go through json-c; the stacks, numbers
 * only, are streamed, as a long run holds millions.
 */
#include "output/export.h"
#include "model/model.h"
#include "sampler/events.h"
#include "session/session.h"
#include "symbols/symbols.h"
#include "util.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#define SPEEDSCOPE_SCHEMA "https://www.speedscope.app/file-format-schema.json"

struct speedscope {
	struct session *s;
	const struct cct *tree;		/* what the nodes index */
	FILE *out;
	size_t nsyms;			/* the symbolizer's; the truncated marker after */
	uint32_t *frame_of;		/* by slot: frame index + 1, 0: none yet */
	uint32_t *frames;		/* frame index -> frame sym */
	size_t nframes, frames_cap;
	int event;			/* -e a,b: the profile's event; -1: every sample */
	uint32_t run_node;		/* the run of samples on one path being merged */
	uint64_t run_weight;
	double *weights;		/* written after the stacks */
	size_t nweights, weights_cap;
	uint32_t path[CCT_MAX_DEPTH + 1];
};

static size_t slot_of(const struct speedscope *x, uint32_t sym)
{
	return sym == CCT_SYM_TRUNCATED ? x->nsyms : sym;
}

static uint32_t frame_index(struct speedscope *x, uint32_t sym)
{
	size_t slot = slot_of(x, sym);

	if (slot > x->nsyms)
		slot = x->nsyms;	/* an id past the table: never from the model */
	if (!x->frame_of[slot]) {
		ST_GROW(x->frames, x->frames_cap, x->nframes + 1);
		x->frames[x->nframes++] = sym;
		x->frame_of[slot] = (uint32_t)x->nframes;
	}
	return x->frame_of[slot] - 1;
}

/* The run so far as one stack and its weight. */
static void flush_run(struct speedscope *x)
{
	size_t n;

	if (!x->run_node || !x->run_weight)
		return;
	n = cct_path(x->tree, x->run_node, x->path);
	fputs(x->nweights ? ",[" : "[", x->out);
	for (size_t i = 0; i < n; i++)
		fprintf(x->out, i ? ",%u" : "%u", frame_index(x, x->path[i]));
	fputc(']', x->out);
	ST_GROW(x->weights, x->weights_cap, x->nweights + 1);
	x->weights[x->nweights++] = (double)x->run_weight;
	x->run_node = 0;
	x->run_weight = 0;
}

static void add_sample(struct speedscope *x, uint32_t node, uint64_t weight)
{
	if (!node || node >= x->tree->n)
		return;		/* no path (the tree was full before its first frame) */
	if (node != x->run_node)
		flush_run(x);
	x->run_node = node;
	x->run_weight += weight;
}

static void history_sample(uint64_t time, const struct history_entry *e, void *arg)
{
	struct speedscope *x = arg;

	(void)time;
	if (x->event >= 0 && (!(e->flags & HISTORY_EVENT) || e->event != x->event))
		return;
	add_sample(x, e->node, e->weight ? e->weight : 1);
}

/* Whether the history holds every sample of the shown tables. */
static bool history_whole(const struct session *s, uint64_t from)
{
	return history_holds_from(&session_whole(s)->history,
				  from > session_whole(s)->first_time ? from : session_whole(s)->first_time);
}

static void put_string(FILE *out, const char *key, const char *value)
{
	struct json_object *v = json_object_new_string(value);

	fprintf(out, "\"%s\":%s", key, json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN |
		JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(v);
}

/* Clock events' periods are nanoseconds; other events' counts have no unit. */
static const char *event_unit(const char *event)
{
	return event_weighs_ns(event) ? "nanoseconds" : "none";
}

/* One sampled profile: stacks from the history (or the tree), then weights. */
static void write_profile(struct speedscope *x, const char *name, const char *unit,
			  bool from_history, uint64_t from, uint64_t to)
{
	double total = 0;

	fputs("{\"type\":\"sampled\",", x->out);
	put_string(x->out, "name", name);
	fputc(',', x->out);
	put_string(x->out, "unit", unit);
	fputs(",\"samples\":[", x->out);
	x->nweights = 0;
	if (from_history) {
		history_each(&session_whole(x->s)->history, from, to, history_sample, x);
	} else {
		for (uint32_t i = 1; i < x->tree->n; i++)
			if (cct_node(x->tree, i)->self)
				add_sample(x, i, strcmp(unit, "none") ? cct_node(x->tree, i)->self_weight
					   : cct_node(x->tree, i)->self);
	}
	flush_run(x);
	fputs("],\"weights\":[", x->out);
	for (size_t i = 0; i < x->nweights; i++) {
		fprintf(x->out, i ? ",%.0f" : "%.0f", x->weights[i]);
		total += x->weights[i];
	}
	fprintf(x->out, "],\"startValue\":0,\"endValue\":%.0f}", total);
}

int export_speedscope(struct session *s, FILE *out)
{
	const struct model *m = session_tables(s);
	struct speedscope x = { .s = s, .out = out, .event = -1 };
	uint64_t from, to;
	bool whole;
	char name[160];

	session_range_ns(s, &from, &to);
	whole = history_whole(s, from);
	/* The history's nodes are the session's tree's; without it, the tables' tree. */
	x.tree = whole ? &session_whole(s)->tree : &m->tree;
	x.nsyms = symbolizer_count(session_symbols(s));
	x.frame_of = st_xcalloc(x.nsyms + 1, sizeof(*x.frame_of));
	fputs("{", out);
	put_string(out, "$schema", SPEEDSCOPE_SCHEMA);
	fputs(",\"exporter\":\"shimtop " PACKAGE_VERSION "\",", out);
	snprintf(name, sizeof(name), "%s%s", session_comm(s),
		 whole ? "" : " (per path: the history no longer held every sample, so not in "
		 "time order)");
	put_string(out, "name", name);
	fputs(",\"activeProfileIndex\":0,\"profiles\":[", out);
	if (whole && session_info(s)->nsampled >= 2) {
		/* -e a,b: a profile per event, each in its own unit. */
		for (int e = 0; e < session_info(s)->nsampled; e++) {
			x.event = e;
			if (e)
				fputc(',', out);
			write_profile(&x, session_info(s)->sampled[e],
				      event_unit(session_info(s)->sampled[e]),
				      true, from, to);
		}
	} else {
		const struct st_source_info *info = session_info(s);

		write_profile(&x, info->events[0] ? info->events : "samples",
			      info->nsampled >= 2 || info->period.unit != ST_PERIOD_NS
			      ? "none" : "nanoseconds",
			      whole, from, to);
	}
	fputs("],\"shared\":{\"frames\":[", out);
	for (size_t i = 0; i < x.nframes; i++) {
		uint32_t sym = x.frames[i];

		fputs(i ? ",{" : "{", out);
		put_string(out, "name", model_frame_name(session_whole(s), sym));
		if (sym != CCT_SYM_TRUNCATED) {
			fputc(',', out);
			put_string(out, "file", symbolizer_symbol(session_symbols(s), sym)->module);
		}
		fputc('}', out);
	}
	fputs("]}}\n", out);
	free(x.frame_of);
	free(x.frames);
	free(x.weights);
	return ferror(out) ? -EIO : 0;
}
