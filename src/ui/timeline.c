/*
 * timeline.c - the timeline view: rows over time from the sample history
 * (samples per second, CPU share for a clock event, IPC where counters
 * exist, the heaviest threads' rates), at any zoom from the whole session
 * to single samples; it follows the live edge until moved.  A cursor
 * marks a time; ( and ) set the ends of a range whose tables the other
 * views then show (Esc clears it).
 */
#include "model/model.h"
#include "model/timeline.h"
#include "output/report.h"
#include "session/session.h"
#include "ui/draw.h"
#include "ui/ui_internal.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LABEL_COLS	22
#define MIN_STEP_NS	1000ull			/* 1 us a column */
#define MAX_STEP_NS	3600000000000ull	/* 1 h a column */
#define LIVE_STEP_NS	100000000ull		/* 100 ms a column at start */

struct timeline_view {
	struct view v;
	uint64_t step;		/* ns per column */
	uint64_t from;		/* record time of the first column (when not following) */
	bool follow;		/* the right edge is the latest sample */
	int cursor;		/* column */
	int width, lines;	/* of the window at the last draw */
	bool marking;
	uint64_t mark;		/* record time of ( */
	/* Built at each refresh (and after a key), drawn until the next. */
	struct timeline tl;
	uint64_t tl_from;
	int tl_width, tl_lines;
};

/* The end of the column holding the latest sample: what following follows. */
static uint64_t latest_end(const struct timeline_view *t, const struct model *m)
{
	uint64_t last = m->last_time;
	size_t nraw = obs_series_raw_count(&m->obs.series);

	/* Below a millisecond the observer is the finer source: follow its newest. */
	if (t->step < 1000000 && nraw)
		last = obs_series_raw_at(&m->obs.series, nraw - 1)->ns;
	return (last / t->step + 1) * t->step;
}

/*
 * The first column's time.  Following: the latest samples at the right
 * edge, or, while the session is shorter than the view, its start at the
 * left edge (no empty columns before it).
 */
static uint64_t first_column(const struct timeline_view *t, const struct model *m)
{
	uint64_t span = t->step * (uint64_t)t->width, end = latest_end(t, m);
	uint64_t start = m->first_time / t->step * t->step;

	if (!t->follow)
		return t->from;
	if (end <= start + span)
		return start;
	return end > span ? end - span : 0;
}

/* Following, the cursor is on the latest column, never past the data. */
static void cursor_on_latest(struct timeline_view *t, const struct model *m, uint64_t from)
{
	uint64_t end = latest_end(t, m);
	uint64_t col = end > from ? (end - from) / t->step : 1;

	t->cursor = col < 1 ? 0 : col > (uint64_t)t->width ? t->width - 1 : (int)col - 1;
}

static double seconds(const struct model *m, uint64_t time)
{
	return time >= m->first_time ? (double)(time - m->first_time) / 1e9
				     : -(double)(m->first_time - time) / 1e9;
}

/* "250 us", "1.5 ms", "2 s" for a column's width. */
static void format_step(uint64_t ns, char *buf, size_t len)
{
	if (ns < 1000000)
		snprintf(buf, len, "%g us", (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%g ms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%g s", (double)ns / 1e9);
}

/* One row: a glyph per column, its height value / top; 0 draws blank. */
static void draw_row(const struct ui *ui, WINDOW *w, int y, int x0,
		     const double *value, int n, double top, const bool *in_range)
{
	for (int c = 0; c < n; c++) {
		wattrset(w, in_range[c] ? ui->attr[TH_SELECTED] : ui->attr[TH_VALUE]);
		mvwaddstr(w, y, x0 + c, draw_level_glyph(value[c], top, ui->utf8));
	}
}

static double row_max(const double *v, int n)
{
	double top = 0;

	for (int c = 0; c < n; c++)
		if (v[c] > top)
			top = v[c];
	return top;
}

/* A labelled row: its name and the value its full height (top) stands for. */
static void scaled_row(const struct ui *ui, WINDOW *w, int y, const char *name,
		       const char *unit, const double *v, int n, double top,
		       const bool *in_range)
{
	char label[64];

	snprintf(label, sizeof(label), "%-11.11s%8.4g%-2s ", name, top, unit);
	draw_text(w, y, 0, LABEL_COLS, ui->attr[TH_HEADER], label);
	draw_row(ui, w, y, LABEL_COLS, v, n, top, in_range);
}

/* The same, its full height its own largest value. */
static void labelled_row(const struct ui *ui, WINDOW *w, int y, const char *name,
			 const char *unit, const double *v, int n, const bool *in_range)
{
	scaled_row(ui, w, y, name, unit, v, n, row_max(v, n), in_range);
}

/*
 * --off-cpu: what a thread did in each column.  A bar, the share of its
 * known time it ran (its clock samples' time; without a clock, a sample
 * counts half the column), in the off-CPU colour where it was off the
 * CPU more than on; a column it spent all off the CPU reads why, the
 * longest reason: r waiting for a CPU, . asleep, D in a disk wait, ?
 * other.  Blank where nothing says.
 */
static const char *thread_state(const struct timeline_column *c, size_t i, uint64_t step,
				bool utf8, bool *off)
{
	static const char *const letter[TIMELINE_OFFS] = { ".", "D", "r", "?" };
	uint64_t ran = c->thread_ran[i], waited = 0, most = 0;
	int why = 0;

	if (c->thread_samples[i] && !ran)
		ran = step / 2;		/* no clock: a sample says it ran, not for how long */
	for (int k = 0; k < TIMELINE_OFFS; k++) {
		waited += c->thread_off[i][k];
		if (c->thread_off[i][k] > most) {
			most = c->thread_off[i][k];
			why = k;
		}
	}
	*off = waited > ran;
	if (!ran && !waited)
		return " ";
	if (!ran)
		return letter[why];
	return draw_level_glyph((double)ran, (double)(ran + waited), utf8);
}

static void state_row(const struct ui *ui, WINDOW *w, int y, const char *name,
		      const struct timeline *tl, size_t i, int n, const bool *in_range)
{
	draw_text(w, y, 0, LABEL_COLS, ui->attr[TH_HEADER], name);
	for (int c = 0; c < n && (size_t)c < tl->ncols; c++) {
		bool off;
		const char *glyph = thread_state(&tl->col[c], i, tl->step, ui->utf8, &off);

		wattrset(w, in_range[c] ? ui->attr[TH_SELECTED] : ui->attr[off ? TH_OFFCPU : TH_VALUE]);
		mvwaddstr(w, y, LABEL_COLS + c, glyph);
	}
}

/*
 * The observer's rows: its tag in each column as a letter (the tag read
 * most there), a legend naming the letters, and the first counter's rate
 * over accepted samples, '!' where DTE rejected most of a column.
 */
/* One column's observer samples, from the per-ms buckets or one by one. */
struct column_acc {
	uint64_t best, best_n, taken, accepted, d0;
	uint64_t hw[4];		/* accepted: target's cycles, instructions; observer's */
	uint64_t seen[OBS_SERIES_TAGS * 4], seen_n[OBS_SERIES_TAGS * 4];
	unsigned nseen;
	double cycles;
};

/* n more reads of tag: the column's tag is the one read most over all of it. */
static void see_tag(struct column_acc *k, uint64_t tag, uint64_t n)
{
	unsigned j = 0;

	while (j < k->nseen && k->seen[j] != tag)
		j++;
	if (j == k->nseen) {
		if (k->nseen == sizeof(k->seen) / sizeof(k->seen[0]))
			return;
		k->seen[j] = tag;
		k->seen_n[k->nseen++] = 0;
	}
	k->seen_n[j] += n;
}

static void from_buckets(const struct obs_series *s, uint64_t from, uint64_t to,
			 struct column_acc *k)
{
	uint64_t a = from / 1000000, b = (to + 999999) / 1000000;

	/* Columns narrower than a millisecond share their bucket. */
	for (uint64_t ms = a; ms < b || ms == a; ms++) {
		const struct obs_bucket *x = obs_series_at(s, ms);

		if (!x)
			continue;
		k->taken += x->taken;
		k->accepted += x->accepted;
		k->cycles += x->accepted_cycles;
		k->d0 += x->delta0;
		for (unsigned i = 0; i < 4; i++)
			k->hw[i] += x->hw[i];
		for (unsigned i = 0; i < OBS_SERIES_TAGS; i++)
			if (x->tag_count[i])
				see_tag(k, x->tag[i], x->tag_count[i]);
	}
}

static void from_raw(const struct obs_series *s, uint64_t from, uint64_t to,
		     struct column_acc *k)
{
	size_t n = obs_series_raw_count(s);

	for (size_t i = obs_series_raw_from(s, from); i < n; i++) {
		const struct obs_raw_sample *r = obs_series_raw_at(s, i);

		if (r->ns >= to)
			break;
		k->taken++;
		if (r->accepted) {
			k->accepted++;
			k->cycles += r->cycles;
			k->d0 += r->delta0;
		}
		see_tag(k, r->tag, 1);
	}
}

/*
 * Below a millisecond a column, the single samples when the ring still
 * holds the window's start; else the per-ms buckets.
 */
static bool use_raw(const struct obs_series *s, uint64_t from, uint64_t step)
{
	size_t n = obs_series_raw_count(s);

	return step < 1000000 && n && obs_series_raw_at(s, 0)->ns <= from;
}

static int draw_observer(const struct timeline_view *t, WINDOW *w, int y,
			 uint64_t from, const bool *in_range)
{
	const struct ui *ui = t->v.ui;
	const struct session *s = ui->s;
	const struct obs_model *o = &session_whole(s)->obs;
	uint64_t letters[26];
	int nletters = 0, cols = getmaxx(w);
	double *rate = st_xcalloc((size_t)t->width, sizeof(*rate));
	bool *rejected = st_xcalloc((size_t)t->width, sizeof(*rejected));
	uint64_t *tag = st_xcalloc((size_t)t->width, sizeof(*tag));
	bool *tagged = st_xcalloc((size_t)t->width, sizeof(*tagged));
	/* The core's IPC rows: the target's, the observer's own, the core's (§4.3). */
	double *ipc[3];
	char legend[512] = "", label[64];
	bool raw = use_raw(&o->series, from, t->step);
	size_t at = raw ? (size_t)snprintf(legend, sizeof(legend), "single samples: ") : 0;

	for (int i = 0; i < 3; i++)
		ipc[i] = st_xcalloc((size_t)t->width, sizeof(*ipc[i]));
	snprintf(label, sizeof(label), "%-21.21s", o->meta.tag_name[0] ? o->meta.tag_name : "tag");
	draw_text(w, y, 0, LABEL_COLS, ui->attr[TH_HEADER], label);
	for (int c = 0; c < t->width; c++) {
		uint64_t a = from + (uint64_t)c * t->step, b = a + t->step;
		struct column_acc k;

		memset(&k, 0, sizeof(k));
		if (raw) {
			struct column_acc ms;

			/* Single samples carry no core counts: those from their milliseconds. */
			from_raw(&o->series, a, b, &k);
			memset(&ms, 0, sizeof(ms));
			from_buckets(&o->series, a, b, &ms);
			memcpy(k.hw, ms.hw, sizeof(k.hw));
		} else {
			from_buckets(&o->series, a, b, &k);
		}
		ipc[0][c] = k.hw[0] ? (double)k.hw[1] / (double)k.hw[0] : 0;
		ipc[1][c] = k.hw[2] ? (double)k.hw[3] / (double)k.hw[2] : 0;
		ipc[2][c] = k.hw[0] + k.hw[2] ? (double)(k.hw[1] + k.hw[3]) /
						(double)(k.hw[0] + k.hw[2]) : 0;
		for (unsigned j = 0; j < k.nseen; j++)
			if (k.seen_n[j] > k.best_n) {
				k.best_n = k.seen_n[j];
				k.best = k.seen[j];
			}
		rate[c] = k.cycles > 0 && o->tsc_hz ? (double)k.d0 * (double)o->tsc_hz / k.cycles : 0;
		rejected[c] = k.taken && k.accepted * 2 < k.taken;
		tag[c] = k.best;
		tagged[c] = k.best_n > 0;
	}
	/* Letters in the tags' order, so a tag keeps its letter at every zoom. */
	for (int c = 0; c < t->width; c++) {
		int at_l = 0;

		if (!tagged[c])
			continue;
		while (at_l < nletters && letters[at_l] < tag[c])
			at_l++;
		if ((at_l < nletters && letters[at_l] == tag[c]) || nletters == 26)
			continue;
		memmove(&letters[at_l + 1], &letters[at_l],
			(size_t)(nletters - at_l) * sizeof(letters[0]));
		letters[at_l] = tag[c];
		nletters++;
	}
	for (int c = 0; c < t->width; c++) {
		int letter = -1;

		for (int l = 0; tagged[c] && l < nletters; l++)
			if (letters[l] == tag[c])
				letter = l;
		wattrset(w, in_range[c] ? ui->attr[TH_SELECTED] : ui->attr[TH_VALUE]);
		mvwaddch(w, y, LABEL_COLS + c, letter < 0 ? ' ' : (chtype)('a' + letter));
	}
	for (int l = 0; l < nletters && at < sizeof(legend) - 1; l++) {
		char name[96];

		report_tag_name(s, letters[l], name, sizeof(name));
		at += (size_t)snprintf(legend + at, sizeof(legend) - at, "%s%c=%s",
				       l ? "  " : "", 'a' + l, name);
	}
	draw_text(w, y + 1, 0, LABEL_COLS, ui->attr[TH_HEADER], "");
	draw_text(w, y + 1, LABEL_COLS, cols - LABEL_COLS, ui->attr[TH_ROW],
		  nletters ? legend : "(no observer samples here)");
	labelled_row(ui, w, y + 2, o->meta.counter_name[0][0] ? o->meta.counter_name[0]
		     : "counter", "/s", rate, t->width, in_range);
	for (int c = 0; c < t->width; c++)
		if (rejected[c]) {
			wattrset(w, ui->attr[TH_WARNING]);
			mvwaddch(w, y + 2, LABEL_COLS + c, '!');
		}
	y += 3;
	if (o->have_hardware) {
		/* One scale for the three, so their heights compare. */
		double top = fmax(row_max(ipc[0], t->width), o->have_self
				  ? fmax(row_max(ipc[1], t->width), row_max(ipc[2], t->width)) : 0);

		scaled_row(ui, w, y++, "IPC target", "", ipc[0], t->width, top, in_range);
		if (o->have_self) {
			scaled_row(ui, w, y++, "IPC self", "", ipc[1], t->width, top, in_range);
			scaled_row(ui, w, y++, "IPC core", "", ipc[2], t->width, top, in_range);
		}
	}
	for (int i = 0; i < 3; i++)
		free(ipc[i]);
	free(rate);
	free(rejected);
	free(tag);
	free(tagged);
	return y;
}

/*
 * A tick every 1, 2 or 5 times a power of ten seconds, at least 12
 * columns apart: labels on round times never skip one ("|41 |42 |43 |45"
 * was 1.2 s ticks rounded).
 */
static double tick_seconds(uint64_t step)
{
	double least = (double)step * 12 / 1e9, tick = pow(10, floor(log10(least)));

	while (tick < least)
		tick = tick * 2 >= least ? tick * 2 : tick * 5 >= least ? tick * 5 : tick * 10;
	return tick;
}

/* The time axis: labels on round times of the session (none before it), the cursor as ^. */
static void draw_axis(const struct timeline_view *t, WINDOW *w, int y,
		      const struct model *m, uint64_t from)
{
	const struct ui *ui = t->v.ui;
	double tick = tick_seconds(t->step), step = (double)t->step / 1e9;
	double start = seconds(m, from), end = start + step * t->width;
	int decimals = tick >= 1 ? 0 : (int)ceil(-log10(tick) - 1e-9);
	char label[32];

	draw_text(w, y, 0, getmaxx(w), ui->attr[TH_COLUMNS], "seconds");
	for (double at = fmax(0, ceil(fmax(start, 0) / tick - 1e-9) * tick); at < end;
	     at += tick) {
		int c = (int)floor((at - start) / step + 1e-9);

		if (c < 0 || c + 8 >= t->width)
			continue;
		snprintf(label, sizeof(label), "|%.*f", decimals, at + 0.0);	/* no "-0" */
		draw_text(w, y, LABEL_COLS + c, 11, ui->attr[TH_COLUMNS], label);
	}
	wattrset(w, ui->attr[TH_SEARCH]);
	mvwaddch(w, y, LABEL_COLS + t->cursor, '^');
}

/*
 * IBS's rows from its 100 ms steps: data cache misses per second and
 * their mean latency in cycles.  A column narrower than a step shows the
 * step it lies in; a wider one sums the steps starting in it.
 */
static void draw_ibs(const struct timeline_view *t, WINDOW *w, int y, uint64_t from,
		     double *val, const bool *in_range)
{
	const struct ui *ui = t->v.ui;
	const struct model *m = session_whole(ui->s);
	const struct ibs_model *im = &m->ibs;
	double *lat = st_xcalloc((size_t)t->width, sizeof(*lat));

	for (int c = 0; c < t->width; c++) {
		uint64_t t0 = from + (uint64_t)c * t->step, t1 = t0 + t->step;
		size_t a, b;
		uint64_t misses = 0, lat_sum = 0, lat_n = 0;

		val[c] = lat[c] = 0;
		if (t1 <= m->first_time)
			continue;
		a = t0 > m->first_time ? (size_t)((t0 - m->first_time) / MODEL_BUCKET_NS) : 0;
		b = (size_t)((t1 - 1 - m->first_time) / MODEL_BUCKET_NS);
		for (size_t k = a; k <= b && k < im->nsteps; k++) {
			misses += im->steps[k].misses;
			lat_sum += im->steps[k].lat_sum;
			lat_n += im->steps[k].lat_n;
		}
		/* Per second of what was summed: whole steps, or the column's one. */
		val[c] = (double)misses * 1e9 / (double)((b - a + 1) * MODEL_BUCKET_NS);
		lat[c] = lat_n ? (double)lat_sum / (double)lat_n : 0;
	}
	labelled_row(ui, w, y, "DC misses", "/s", val, t->width, in_range);
	labelled_row(ui, w, y + 1, "miss lat", "cy", lat, t->width, in_range);
	free(lat);
}

/* The rows besides the threads': title, rate, CPU (a clock), IPC, IBS, axis. */
static int fixed_rows(const struct session *s)
{
	const struct model *m = session_whole(s);

	return 3 + (session_info(s)->period.unit == ST_PERIOD_NS) + 2 * ibs_model_active(&m->ibs) +
	       (m->ipc_cycles >= 0 && m->ipc_instructions >= 0) + 3 * m->obs.active +
	       m->obs.have_hardware + 2 * m->obs.have_self;
}

static void timeline_requery(struct view *v)
{
	struct timeline_view *t = (struct timeline_view *)v;
	const struct session *s = v->ui->s;
	int fixed = fixed_rows(s);

	if (t->width <= 0)
		return;		/* not drawn yet: no size */
	timeline_free(&t->tl);
	t->tl_from = first_column(t, session_whole(s));
	t->tl_width = t->width;
	t->tl_lines = t->lines;
	timeline_build(session_whole(s), t->tl_from, t->step, (size_t)t->width,
		       t->lines > fixed ? (size_t)(t->lines - fixed) : 0, &t->tl);
}

static void timeline_draw(struct view *v, WINDOW *w)
{
	struct timeline_view *t = (struct timeline_view *)v;
	const struct ui *ui = v->ui;
	const struct session *s = ui->s;
	const struct model *m = session_whole(s);
	const struct timeline *tl = &t->tl;
	int lines = getmaxy(w), cols = getmaxx(w), y = 1;
	/* A clock's weights are ns of CPU; with waits, the clock event's alone count. */
	bool clock = session_info(s)->period.unit == ST_PERIOD_NS ||
		     (tl->waits && m->clock_event >= 0);
	bool ipc = m->ipc_cycles >= 0 && m->ipc_instructions >= 0;
	double *val;
	bool *in_range;
	uint64_t from;
	char buf[256], step[32];

	t->width = cols - LABEL_COLS;
	t->lines = lines;
	if (t->width < 10 || lines < 5) {
		draw_text(w, 0, 0, cols, ui->attr[TH_WARNING],
			  "the timeline needs a wider and taller terminal");
		return;
	}
	if (t->cursor >= t->width)
		t->cursor = t->width - 1;
	if (!m->samples) {
		draw_text(w, 0, 0, cols, ui->attr[TH_WARNING], "timeline: no samples yet");
		return;
	}
	if (t->tl_width != t->width || t->tl_lines != lines)
		timeline_requery(v);
	from = t->tl_from;
	if (t->follow)
		cursor_on_latest(t, m, from);
	val = st_xcalloc((size_t)t->width, sizeof(*val));
	in_range = st_xcalloc((size_t)t->width, sizeof(*in_range));
	for (int c = 0; c < t->width; c++) {
		double at = seconds(m, from + (uint64_t)c * t->step);

		in_range[c] = session_ranged(s) &&
			      at + (double)t->step / 1e9 > session_range_from(s) &&
			      at < session_range_to(s);
	}
	format_step(t->step, step, sizeof(step));
	/* The column holding the session's start reads 0, not a time before it. */
	snprintf(buf, sizeof(buf), "timeline  %s a column  %s  cursor %.6f s%s%s",
		 step, t->follow ? "following (End)" : "scrolled (End follows)",
		 fmax(0, seconds(m, from + (uint64_t)t->cursor * t->step)),
		 t->marking ? "  range from ( ... ) ends it" : "",
		 m->history.complete_from ? "  (older history dropped)" : "");
	draw_text(w, 0, 0, cols, ui->attr[TH_COLUMNS], buf);

	for (int c = 0; c < t->width; c++)
		val[c] = (double)tl->col[c].samples * 1e9 / (double)t->step;
	labelled_row(ui, w, y++, "samples", "/s", val, t->width, in_range);
	if (clock) {
		/* A clock's weight is ns of CPU: per ns of column, CPUs busy. */
		for (int c = 0; c < t->width; c++)
			val[c] = 100.0 * (double)tl->col[c].weight / (double)t->step;
		labelled_row(ui, w, y++, "CPU", "%", val, t->width, in_range);
	}
	if (ipc) {
		for (int c = 0; c < t->width; c++)
			val[c] = tl->col[c].cycles ? (double)tl->col[c].instructions /
						    (double)tl->col[c].cycles : 0;
		labelled_row(ui, w, y++, "IPC", "", val, t->width, in_range);
	}
	if (ibs_model_active(&m->ibs) && y + 2 < lines) {
		draw_ibs(t, w, y, from, val, in_range);
		y += 2;
	}
	if (m->obs.active && y + 3 < lines)
		y = draw_observer(t, w, y, from, in_range);
	if (tl->waits && tl->ntids && y < lines - 2)
		draw_text(w, y++, 0, cols, ui->attr[TH_HEADER],
			  "threads: the share of time on a CPU; off all of it: "
			  "r waiting for one, . asleep, D disk, ? other");
	for (size_t i = 0; i < tl->ntids && y < lines - 1; i++) {
		const struct model_thread *th;
		pid_t tid = tl->tids[i];
		char name[32];

		HASH_FIND(hh, m->threads, &tid, sizeof(tid), th);
		snprintf(name, sizeof(name), "%d %s", (int)tid, th ? th->comm : "");
		if (tl->waits) {
			state_row(ui, w, y++, name, tl, i, t->width, in_range);
			continue;
		}
		for (int c = 0; c < t->width; c++)
			val[c] = (double)tl->col[c].thread_samples[i] * 1e9 / (double)t->step;
		labelled_row(ui, w, y++, name, "/s", val, t->width, in_range);
	}
	while (y < lines - 1)
		draw_text(w, y++, 0, cols, ui->attr[TH_ROW], "");
	draw_axis(t, w, lines - 1, m, from);
	free(val);
	free(in_range);
}

/*
 * Zooms by factor 2 (in: -1, out: 1).  A live view stays live, its right
 * edge the newest sample (zooming must not freeze what is being watched);
 * a scrolled one keeps the cursor's time in place.
 */
static void zoom(struct timeline_view *t, const struct model *m, int dir)
{
	uint64_t from = first_column(t, m), at = from + (uint64_t)t->cursor * t->step;
	uint64_t step = dir < 0 ? t->step / 2 : t->step * 2;

	if (step < MIN_STEP_NS || step > MAX_STEP_NS)
		return;
	t->step = step;
	if (t->follow)
		return;
	t->from = at > (uint64_t)t->cursor * step ? at - (uint64_t)t->cursor * step : 0;
	t->from = t->from / step * step;	/* columns on the history's spans */
}

/*
 * Moves the cursor by n columns, scrolling at the edges.  A moved cursor
 * stops following, as less +F does: the columns stay where they were
 * drawn, and the cursor's time with them (End follows again).
 */
static void move_cursor(struct timeline_view *t, const struct model *m, int n)
{
	uint64_t from = t->follow && t->tl_width ? t->tl_from : first_column(t, m);
	long c = t->cursor + n;

	t->from = from;
	t->follow = false;
	if (c >= 0 && c < t->width) {
		t->cursor = (int)c;
		return;
	}
	t->follow = false;
	if (c < 0) {
		uint64_t back = (uint64_t)(-c) * t->step;

		t->from = from > back ? from - back : 0;
		t->cursor = 0;
	} else {
		t->from = from + (uint64_t)(c - t->width + 1) * t->step;
		t->cursor = t->width - 1;
	}
}

/* The whole session in the width. */
static void fit(struct timeline_view *t, const struct model *m)
{
	uint64_t span = m->last_time - m->first_time + 1, step = LIVE_STEP_NS;
	uint64_t width = t->width > 0 ? (uint64_t)t->width : 1;

	/*
	 * 100 ms times a power of two, as zoom keeps it, with the columns
	 * on its multiples: room for the session and the alignment.
	 */
	while (step * width < span + step && step * 2 <= MAX_STEP_NS)
		step *= 2;
	while (step / 2 >= MIN_STEP_NS && step / 2 * width >= span + step / 2)
		step /= 2;
	t->step = step;
	t->from = m->first_time / step * step;
	t->follow = false;
	/* The cursor on the latest samples, where it was when following. */
	t->cursor = (int)((m->last_time - t->from) / step);
	if (t->cursor >= t->width)
		t->cursor = t->width - 1;
}

static enum view_reaction set_mark(struct timeline_view *t, bool end)
{
	struct ui *ui = t->v.ui;
	struct session *s = ui->s;
	const struct model *m = session_whole(s);
	uint64_t at = first_column(t, m) + (uint64_t)t->cursor * t->step;
	uint64_t a, b;

	if (!end) {
		t->marking = true;
		t->mark = at;
		snprintf(ui->message, sizeof(ui->message),
			 "range starts at %.6g s: move the cursor, ) ends it",
			 seconds(m, at));
		return VIEW_REDRAW;
	}
	if (!t->marking) {
		snprintf(ui->message, sizeof(ui->message), "( starts a range first");
		return VIEW_REDRAW;
	}
	t->marking = false;
	a = at < t->mark ? at : t->mark;
	b = (at < t->mark ? t->mark : at) + t->step;
	if (session_select_range(s, seconds(m, a) > 0 ? seconds(m, a) : 0, seconds(m, b)) < 0) {
		snprintf(ui->message, sizeof(ui->message),
			 "no samples from %.6g to %.6g s: nothing selected",
			 seconds(m, a), seconds(m, b));
		return VIEW_REDRAW;
	}
	snprintf(ui->message, sizeof(ui->message),
		 "range %.6g-%.6g s: every table shows it alone (Esc clears)",
		 session_range_from(s), session_range_to(s));
	return VIEW_REQUERY;
}

static enum view_reaction timeline_key(struct view *v, int code, enum ui_action a)
{
	struct timeline_view *t = (struct timeline_view *)v;
	struct session *s = v->ui->s;
	const struct model *m = session_whole(s);

	(void)code;
	if (!m->samples)
		return VIEW_IGNORED;
	switch (a) {
	case UA_LEFT:
		move_cursor(t, m, -1);
		return VIEW_REQUERY;
	case UA_RIGHT:
		move_cursor(t, m, 1);
		return VIEW_REQUERY;
	case UA_PAGE_UP:
		move_cursor(t, m, -t->width / 2);
		return VIEW_REQUERY;
	case UA_PAGE_DOWN:
		move_cursor(t, m, t->width / 2);
		return VIEW_REQUERY;
	case UA_ZOOM_IN:
		zoom(t, m, -1);
		return VIEW_REQUERY;
	case UA_ZOOM_OUT:
		zoom(t, m, 1);
		return VIEW_REQUERY;
	case UA_FIT:
		fit(t, m);
		return VIEW_REQUERY;
	case UA_FIRST:
		t->from = m->first_time;
		t->follow = false;
		t->cursor = 0;
		return VIEW_REQUERY;
	case UA_LAST:
		t->follow = true;
		t->cursor = t->width - 1;
		return VIEW_REQUERY;
	case UA_RANGE_FROM:
		return set_mark(t, false);
	case UA_RANGE_TO:
		return set_mark(t, true);
	case UA_BACK:
		if (t->marking) {
			t->marking = false;
			return VIEW_REQUERY;
		}
		if (!session_ranged(s))
			return VIEW_IGNORED;
		session_clear_range(s);
		snprintf(v->ui->message, sizeof(v->ui->message),
			 "range cleared: the tables show the whole session");
		return VIEW_REQUERY;
	default:
		return VIEW_IGNORED;
	}
}

static const enum ui_action timeline_actions[] = {
	UA_HELP, UA_VIEW_NEXT, UA_RANGE_FROM, UA_FIT, UA_LAST, UA_PAUSE, UA_PERIOD_HALVE,
	UA_PERIOD_DOUBLE, UA_QUIT, UA_NONE,
};

static void timeline_destroy(struct view *v)
{
	timeline_free(&((struct timeline_view *)v)->tl);
	free(v);
}

static const struct view_ops timeline_ops = {
	.name = "timeline",
	.scope = SCOPE_TIMELINE,
	.requery = timeline_requery,
	.draw = timeline_draw,
	.key = timeline_key,
	.destroy = timeline_destroy,
	.actions = timeline_actions,
};

struct view *timeline_view_create(struct ui *ui)
{
	struct timeline_view *t = view_new(sizeof(*t), &timeline_ops, ui);

	t->step = LIVE_STEP_NS;
	t->follow = true;
	t->cursor = 1 << 20;	/* the right edge, clamped at the first draw */
	return &t->v;
}
