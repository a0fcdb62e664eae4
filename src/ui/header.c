/*
 * header.c - the header strip: target, source, rates, and how far to
 * trust them.  Its figures come from session_metrics, as the reports'.
 * Its caveat wraps over as many as three lines: a narrow terminal still
 * shows it whole.
 */
#include "session/session.h"
#include "ui/draw.h"
#include "ui/ui_internal.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 12345 -> "12345", 1234567 -> "1.23M": keeps the header narrow. */
static void human(char *buf, size_t len, uint64_t v)
{
	if (v < 100000)
		snprintf(buf, len, "%llu", (unsigned long long)v);
	else if (v < 100000000)
		snprintf(buf, len, "%.1fk", (double)v / 1e3);
	else
		snprintf(buf, len, "%.2fM", (double)v / 1e6);
}

/* Writes "label value  " pairs left to right while they fit. */
static int pair(const struct ui *ui, WINDOW *w, int y, int x, const char *label,
		const char *value)
{
	int need = (int)(strlen(label) + strlen(value)) + 3;

	if (x + need > getmaxx(w))
		return x;
	draw_text(w, y, x, (int)strlen(label) + 1, ui->attr[TH_HEADER], label);
	draw_text(w, y, x + (int)strlen(label) + 1, (int)strlen(value) + 2,
		  ui->attr[TH_VALUE], value);
	return x + need;
}

static void draw_target_line(const struct ui *ui, WINDOW *w,
			     const struct session_metrics *mt)
{
	const struct session *s = ui->s;
	char buf[128];
	int x;

	session_target_name(s, buf, sizeof(buf));
	x = pair(ui, w, 0, 0, "shimtop", PACKAGE_VERSION);
	x = pair(ui, w, 0, x, session_has_target(s) ? "target"
			      : session_is_snapshot(s) ? "snapshot of" : "replay of", buf);
	if (session_is_snapshot(s) && session_snapshot(s)->label[0])
		x = pair(ui, w, 0, x, "taken", session_snapshot(s)->label);
	snprintf(buf, sizeof(buf), "%zu (%zu seen)", mt->threads_live, mt->threads_seen);
	x = pair(ui, w, 0, x, "threads", buf);
	/* A short recording's tenths: "0 s" would say it held nothing. */
	snprintf(buf, sizeof(buf), mt->elapsed < 10 ? "%.1f s" : "%.0f s", mt->elapsed);
	pair(ui, w, 0, x, "elapsed", buf);
}

static void draw_source_line(const struct ui *ui, WINDOW *w,
			     const struct session_metrics *mt)
{
	const struct session *s = ui->s;
	const struct st_source_info *obs = session_observer_info(s);
	const struct st_source_info *info = session_info(s);
	const struct model *m = session_whole(s);
	char a[32], b[160];
	int x;

	session_period_text(s, b, sizeof(b));
	x = pair(ui, w, 1, 0, source_kind_name(info->kind), info->events);
	/* The period always shows (where [ and ] are checked): its value alone if need be. */
	if (x + (int)(strlen("period") + strlen(b)) + 3 > getmaxx(w))
		session_period_brief(s, b, sizeof(b));
	x = pair(ui, w, 1, x, "period", b);
	if (m->nsampled) {
		/* -e a,b: shares are of one event at a time, as perf report's. */
		snprintf(b, sizeof(b), "%.30s (e)", info->sampled[m->shown_event]);
		x = pair(ui, w, 1, x, "SELF% of", b);
	}
	if (!mt->observing)
		return;
	/* The observer's gauge: its sample rate and DTE acceptance. */
	human(a, sizeof(a), (uint64_t)mt->observer_rate);
	snprintf(b, sizeof(b), "%.24s/s", a);
	x = pair(ui, w, 1, x, "observer", b);
	snprintf(b, sizeof(b), "%.1f%%", mt->dte_accepted_pct);
	x = pair(ui, w, 1, x, "DTE accepted", b);
	period_format(&obs->period, b, sizeof(b));
	x = pair(ui, w, 1, x, "every", b);
	if (m->obs.have_hardware) {
		/* Measured by rdpmc on the sibling: app = core - self. */
		snprintf(b, sizeof(b), "%.2f", obs_model_hardware_ipc(&m->obs));
		pair(ui, w, 1, x, "core IPC", b);
	}
}

static void draw_counts_line(const struct ui *ui, WINDOW *w,
			     const struct session_metrics *mt)
{
	char a[32], b[64];
	int x;

	const struct view *top = ui->stack[ui->depth - 1];

	human(a, sizeof(a), mt->samples);
	if (top->ops->as_of_requery && top->queried_samples != mt->samples) {
		/* The count is live, the table is as of its refresh: say both. */
		char shown[32];

		human(shown, sizeof(shown), top->queried_samples);
		snprintf(b, sizeof(b), "%.24s (%.24s shown)", a, shown);
		x = pair(ui, w, 2, 0, "samples", b);
	} else {
		x = pair(ui, w, 2, 0, "samples", a);
	}
	snprintf(b, sizeof(b), "%.0f/s", mt->rate);
	x = pair(ui, w, 2, x, "rate", b);
	human(a, sizeof(a), mt->lost);
	x = pair(ui, w, 2, x, "lost", a);
	human(a, sizeof(a), mt->dropped);
	x = pair(ui, w, 2, x, "dropped", a);
	snprintf(b, sizeof(b), "%llu (%.1f%%)", (unsigned long long)mt->unknown,
		 mt->unknown_pct);
	pair(ui, w, 2, x, "unknown", b);
}

/*
 * Line 4: the most important caveat, finishing status first; a selected
 * time range before all, every table showing it alone (line 1 was cut
 * before it at 80 columns).
 */
static void caveat_text(const struct ui *ui, char *buf, size_t len)
{
	const struct session *s = ui->s;
	const struct st_source_info *obs = session_observer_info(s);
	const struct st_source_info *info = session_info(s);

	if (session_ranged(s)) {
		int n = snprintf(buf, len, "range %.3f-%.3f s%s in every table (Esc in the "
				 "timeline clears it); ", session_range_from(s),
				 session_range_to(s), session_range_complete(s) ? "" : " (partly dropped)");

		if (n > 0 && (size_t)n < len) {
			buf += n;
			len -= (size_t)n;
		}
	}
	if (session_finished(s) && obs->failed)
		snprintf(buf, len, "%.100s; %.120s; table kept, q quits",
			 obs->finish_reason, session_status(s));
	else if (session_finished(s) && !session_has_target(s) && info->note[0])
		/* A file ends at once: what it is stays in view, not only that it ended. */
		snprintf(buf, len, "%.120s; %.380s", session_status(s), info->note);
	else if (session_finished(s))
		snprintf(buf, len, "%s; table kept, q quits", session_status(s));
	else if (ui->paused)
		snprintf(buf, len, "PAUSED: the tables hold still while sampling goes "
			 "on; Z resumes");
	else if (obs->failed)
		snprintf(buf, len, "%.200s; perf sampling goes on", obs->finish_reason);
	else {
		char history[320];

		/* The caveats that change what the tables mean come first. */
		if (model_chain_note(session_whole(s), history, sizeof(history)))
			snprintf(buf, len, "%.300s%s%.200s", history,
				 info->note[0] ? "; " : "", info->note);
		else if (session_history_note(s, history, sizeof(history)) ||
			 session_names_note(s, history, sizeof(history)))
			snprintf(buf, len, "%.300s%s%.200s", history,
				 info->note[0] ? "; " : "", info->note);
		else
			snprintf(buf, len, "%.384s", info->note);
	}
}

/*
 * The caveat wraps over up to this many lines, a range's one more (the
 * caveat it puts off is still true): the table keeps the rest.
 */
#define CAVEAT_MAX_LINES 3

static int caveat_lines(const struct ui *ui, const char *text, int cols)
{
	int n = 1, most = CAVEAT_MAX_LINES + session_ranged(ui->s);
	const char *next;

	for (draw_wrap(text, cols, &next); *next && n < most; n++)
		draw_wrap(next, cols, &next);
	return n;
}

static void draw_caveat(const struct ui *ui, WINDOW *w)
{
	char buf[512];
	const char *at = buf, *next;
	int cols = getmaxx(w);

	caveat_text(ui, buf, sizeof(buf));
	for (int y = 3; y < getmaxy(w); y++) {
		/* The last line takes what is left, cut at its end. */
		size_t len = y + 1 < getmaxy(w) ? draw_wrap(at, cols, &next) : strlen(at);
		char line[512];

		snprintf(line, sizeof(line), "%.*s", (int)len, at);
		draw_text(w, y, 0, cols, ui->attr[TH_WARNING], line);
		at = y + 1 < getmaxy(w) ? next : at + len;
	}
}

static int header_lines(struct view *v, int cols)
{
	char buf[512];

	if (v->ui->settings.brief_header)
		return 2;
	caveat_text(v->ui, buf, sizeof(buf));
	return 3 + caveat_lines(v->ui, buf, cols);
}

static void header_draw(struct view *v, WINDOW *w)
{
	struct session_metrics mt;

	session_metrics(v->ui->s, &mt);
	werase(w);
	draw_target_line(v->ui, w, &mt);
	draw_source_line(v->ui, w, &mt);
	draw_counts_line(v->ui, w, &mt);
	draw_caveat(v->ui, w);
}

static const struct view_ops header_ops = {
	.name = "header",
	.draw = header_draw,
	.lines = header_lines,
	.destroy = view_free,
	.actions = view_no_actions,
};

struct view *header_view_create(struct ui *ui)
{
	return view_new(sizeof(struct view), &header_ops, ui);
}
