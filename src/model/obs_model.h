/*
 * obs_model.h - analysis of the observer's raw samples (SHIM, ISCA 2015,
 * §4): DTE over every pair of consecutive samples, the distributions of CPC, of the
 * sample period and of the gap between accepted samples, rate
 * distributions per counter, and per-tag statistics (time share, rates
 * with mean, standard deviation and histogram).  Tags are attributed to
 * the period in which they were read.
 */
#ifndef SHIMTOP_OBS_MODEL_H
#define SHIMTOP_OBS_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uthash.h>

#include "model/dte.h"
#include "model/histogram.h"
#include "model/obs_series.h"
#include "ring/record.h"

struct obs_counter {
	uint64_t delta;			/* increments in accepted samples */
	uint64_t delta_all;		/* ... in every sample with a clock */
	struct histogram rate;		/* per second, per thread-sample */
	struct histogram rejected;	/* rates of the samples DTE threw out */
};

/*
 * Distinct tags kept; a target that writes more (a hostile one, or one
 * tagging with addresses of a huge program) gets one "other" row for the
 * rest, so its memory stays bounded (each tag's histograms take up to
 * 70 KiB).
 */
#define OBS_MAX_TAGS	1024u

struct obs_tag {
	uint64_t tag;
	bool other;			/* the row for tags past OBS_MAX_TAGS */
	uint64_t samples;		/* thread-samples read under this tag */
	double cycles;			/* TSC cycles attributed to it: rates */
	double present_cycles;		/* ... the observer present: time share */
	double accepted_cycles;		/* ... in accepted samples */
	/*
	 * Its stack depth, from accepted samples only: a tag and its depth
	 * are two stores, and a read between them pairs a tag with a
	 * neighbour's depth; a window DTE rejects (the observer preempted
	 * between its reads) can pair them across any time.
	 */
	uint64_t depth_samples;
	uint64_t max_depth;
	uint64_t depth_sum;
	uint64_t delta[ST_OBS_MAX_COUNTERS];	/* accepted samples */
	uint64_t delta_all[ST_OBS_MAX_COUNTERS]; /* every sample */
	struct histogram rate[ST_OBS_MAX_COUNTERS];
	struct histogram ipc;		/* when counters 0-1 are cycles, instructions,
					   or the core's hardware counters */
	uint64_t hw_delta[2];		/* core cycles, instructions: accepted */
	uint64_t hw_delta_all[2];	/* ... every sample */
};

/* Finds a tag's row; rows move as the array grows, so by position. */
struct obs_tag_index {
	UT_hash_handle hh;
	uint64_t tag;
	size_t at;
};

struct obs_model {
	bool active;			/* an observer record has arrived */
	struct st_observe_meta meta;	/* strings NUL-terminated */
	double tolerance;
	struct dte dte;
	uint64_t tsc_hz;
	uint64_t batches, missing;	/* batches seen; seq gaps (ring drops) */
	uint32_t next_seq;
	bool have_seq;
	uint64_t thread_samples;
	double cycles, accepted_cycles;	/* observed time, accepted time */
	double present_cycles;		/* ... in periods not after a gap */
	uint64_t min_period;		/* shortest period, TSC cycles; not saved */
	uint64_t first_tsc, last_tsc;

	struct histogram cpc;		/* 400 buckets over 0-2 */
	struct histogram period;	/* TSC cycles, log */
	struct histogram gap;		/* cycles between accepted samples, log */
	struct histogram ipc;		/* 500 over 0-4 (SHIM, ISCA 2015, §5) */
	bool have_ipc;
	/*
	 * ST_OBS_HARDWARE batches: the target core's cycles and instructions
	 * (app = core - self), attributed to the tag of the first watched
	 * thread, the one SHIM pins to the observer's SMT sibling.
	 */
	bool have_hardware;
	uint64_t hw_delta[2], hw_delta_all[2];
	double hw_rejected_max_ipc;	/* the highest IPC DTE threw out */
	/*
	 * ST_OBS_SELF batches too: the observer's own cycles and instructions
	 * (self; core = app + self), for the observer-effect display (SHIM,
	 * ISCA 2015, §4.3 and Fig. 6).
	 */
	bool have_self;
	uint64_t self_delta[2], self_delta_all[2];
	bool have_accept;
	uint64_t last_accept;

	struct obs_counter counter[ST_OBS_MAX_COUNTERS];
	struct obs_tag *tags;
	size_t ntags, tags_cap;
	struct obs_tag_index *index;	/* tag -> position in tags (uthash) */
	size_t other;			/* index + 1 of the "other" row, 0: none */
	uint64_t tags_overflowed;	/* thread-samples that went to it */

	struct obs_series series;	/* per millisecond, for the timeline */
};

void obs_model_init(struct obs_model *m, double tolerance);
void obs_model_free(struct obs_model *m);

/* Takes an ST_REC_OBSERVE or ST_REC_OBSERVE_META record. */
void obs_model_ingest(struct obs_model *m, const void *rec);

/* Forgets the statistics; the meta data stays. */
void obs_model_zero(struct obs_model *m);

/* Tag t's share of the time the observer was present, in percent. */
double obs_tag_share(const struct obs_model *m, const struct obs_tag *t);

/* Tags by attributed time, largest first; *out is allocated. */
size_t obs_model_tags(const struct obs_model *m, const struct obs_tag ***out);

/*
 * A counter's mean rate per second over the run, all threads: every
 * increment over all observed time.  Counter differences add up exactly
 * whatever DTE says of single samples, and DTE's choice is not
 * independent of the rate (a window in which the program wrote the
 * counter's cache line takes longer), so this is the unbiased mean; the
 * accepted samples give the distribution.
 */
double obs_model_rate(const struct obs_model *m, unsigned counter);

/* The same for the time attributed to one tag. */
double obs_tag_rate(const struct obs_model *m, const struct obs_tag *t,
		    unsigned counter);

/* Instructions per cycle of the target's core over the run, or NAN. */
double obs_model_hardware_ipc(const struct obs_model *m);

/* The observer's own IPC and the whole core's (both hyperthreads) over the run, or NAN. */
double obs_model_self_ipc(const struct obs_model *m);
double obs_model_core_ipc(const struct obs_model *m);

/* The same for the time attributed to one tag. */
double obs_tag_hardware_ipc(const struct obs_tag *t);

/*
 * A tag's row made for a snapshot being read (other: the row for tags
 * past OBS_MAX_TAGS); NULL if the model has it already or no room.
 */
struct obs_tag *obs_model_add_row(struct obs_model *m, uint64_t tag, bool other);

/*
 * Snapshots (obs_model_save.c): every statistic, histogram and the
 * series as the observer section's bytes; read back into a model just
 * obs_model_init'ed, every field checked against the bytes.  0, or
 * -EINVAL with the problem in err (the model then holds a part: free it).
 */
struct packed_out;
void obs_model_save(const struct obs_model *m, struct packed_out *out);
int obs_model_load(struct obs_model *m, const uint8_t *p, size_t len, char *err, size_t errlen);

/* The name of a value tag (from the program), or NULL. */
const char *obs_model_tag_name(const struct obs_model *m, uint64_t tag);

#endif
