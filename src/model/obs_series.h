/*
 * obs_series.h - the observer's samples over time, per millisecond of
 * CLOCK_MONOTONIC (perf's clock, so the timeline lines both up): how many
 * were taken and accepted, the accepted time and the first counter's
 * accepted increments (its rate), and the tags read (the phase band).
 * A ring of OBS_SERIES_MS buckets: older milliseconds are overwritten,
 * and the series says from when it is complete.  The latest
 * OBS_RAW_SAMPLES samples are also kept one by one, for a timeline zoomed
 * below a millisecond down to single samples.
 */
#ifndef SHIMTOP_OBS_SERIES_H
#define SHIMTOP_OBS_SERIES_H

#include "model/histogram.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OBS_SERIES_MS		120000u	/* 2 minutes: 120,000 x 184 bytes = 22 MB */
#define OBS_SERIES_TAGS		4u	/* distinct tags counted per millisecond */

struct obs_bucket {
	uint64_t ms;			/* which millisecond (CLOCK_MONOTONIC / 1e6) */
	uint32_t taken, accepted;
	double accepted_cycles;
	uint64_t delta0;		/* counter 0's increments in accepted samples */
	uint64_t tag[OBS_SERIES_TAGS];
	uint32_t tag_count[OBS_SERIES_TAGS];
	/* Each thread's sample time, all and per tag, and counter 0's increments per tag. */
	double cycles;
	double tag_cycles[OBS_SERIES_TAGS];
	uint64_t tag_delta0[OBS_SERIES_TAGS];
	/* ST_OBS_HARDWARE, accepted samples: app's cycles, instructions; self's (ST_OBS_SELF). */
	uint64_t hw[4];
};

/* One sample as the finest zoom shows it: 32 bytes. */
struct obs_raw_sample {
	uint64_t ns;
	uint64_t tag;			/* the first watched thread's */
	uint32_t delta0;		/* counter 0's increments (saturated) */
	uint32_t cycles;		/* its period in TSC cycles (saturated) */
	uint32_t accepted;
	uint32_t pad;
};

/* About 1.2 s at this VM's fastest period (860,000 a second); 32 MB. */
#define OBS_RAW_SAMPLES		(1u << 20)

struct obs_series {
	struct obs_bucket *b;		/* OBS_SERIES_MS, allocated at the first sample */
	uint64_t newest;		/* the latest millisecond written */
	uint64_t complete_from;		/* ms: none before it was overwritten */
	struct obs_raw_sample *raw;	/* a ring of OBS_RAW_SAMPLES, at the first sample */
	uint64_t nraw;			/* samples ever written to it */
};

void obs_series_free(struct obs_series *s);

/* One thread-sample read at `ns` with its tag; once per sample: taken. */
void obs_series_sample(struct obs_series *s, uint64_t ns, bool accepted,
		       double cycles, uint64_t delta0);
/*
 * A watched thread's sample: its tag, its period in TSC cycles, and
 * counter 0's increments (valid0: they went forwards).
 */
void obs_series_tag(struct obs_series *s, uint64_t ns, uint64_t tag, double cycles,
		    uint64_t delta0, bool valid0);

/* A tag over a window of the series: its samples, time and counter 0's increments. */
struct obs_window_tag {
	uint64_t tag;
	uint64_t samples;
	double cycles;
	uint64_t delta0;
};

/*
 * The tags of the milliseconds in [from, to) (ns) that the series holds,
 * by time, most first, into *out (malloc'd); *cycles the time of every
 * thread sample there, tags beyond the OBS_SERIES_TAGS of a millisecond
 * included.  Returns how many.
 */
size_t obs_series_window_tags(const struct obs_series *s, uint64_t from, uint64_t to,
			      struct obs_window_tag **out, double *cycles);

/* An accepted sample's core counts: app's cycles, instructions, then self's if self. */
void obs_series_hardware(struct obs_series *s, uint64_t ns, const uint64_t *hw, bool self);

/* One sample into the ring of single samples (times non-decreasing). */
void obs_series_raw(struct obs_series *s, uint64_t ns, bool accepted, double cycles,
		    uint64_t delta0, uint64_t tag);

/*
 * The single samples held: obs_series_raw_count of them, oldest first
 * through obs_series_raw_at(s, 0 .. count-1); the index of the first at or
 * after ns by obs_series_raw_from (count if none).
 */
size_t obs_series_raw_count(const struct obs_series *s);
const struct obs_raw_sample *obs_series_raw_at(const struct obs_series *s, size_t i);
size_t obs_series_raw_from(const struct obs_series *s, uint64_t ns);

/*
 * The distributions of a window [from, to) (ns), for a time range: one by
 * one from the single samples where their ring still holds the window's
 * start, else per millisecond from the buckets (the ring's 2 minutes).
 * rate: counter 0's rate, tsc_hz ticks a second: per accepted sample (the
 * watched threads' increments over its period), or per millisecond (its
 * accepted increments over its accepted time); period: each sample's
 * period in TSC cycles, single samples only.  With tag, only its samples
 * (the first thread's tag), or per millisecond its increments over its
 * time, accepted or not (the buckets keep no acceptance per tag).
 * Histograms made here (log buckets), freed by obs_window_dist_free.
 */
struct obs_window_dist {
	bool per_sample;		/* else per millisecond */
	uint64_t samples;		/* taken in the window (with the tag) */
	struct histogram rate, period;
};

void obs_series_window_dist(const struct obs_series *s, uint64_t from, uint64_t to,
			    uint64_t tsc_hz, const uint64_t *tag, struct obs_window_dist *out);
void obs_window_dist_free(struct obs_window_dist *d);

/* The bucket of millisecond ms, or NULL if none (not written, or gone). */
const struct obs_bucket *obs_series_at(const struct obs_series *s, uint64_t ms);

#endif
