/* header.c - the header: target, source, rates, and trust notes. */
#include "session.h"
#include "ui/ui_internal.h"

#include <stdio.h>
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
static int pair(struct ui *ui, int y, int x, const char *label,
		const char *value)
{
	int need = (int)(strlen(label) + strlen(value)) + 3;

	if (x + need > COLS)
		return x;
	attrset(ui->attr[TH_HEADER]);
	mvaddstr(y, x, label);
	attrset(ui->attr[TH_VALUE]);
	mvaddstr(y, x + (int)strlen(label) + 1, value);
	return x + need;
}

void ui_draw_header(struct ui *ui)
{
	const struct session *s = ui->s;
	const struct model *m = &s->model;
	char buf[256], a[32], b[32];
	int x;

	snprintf(buf, sizeof(buf), "%d (%s)", (int)s->pid, s->comm);
	x = pair(ui, 0, 0, "shimtop", PACKAGE_VERSION);
	x = pair(ui, 0, x, s->has_target ? "pid" : "replay of pid", buf);
	snprintf(buf, sizeof(buf), "%zu", model_live_threads(m));
	x = pair(ui, 0, x, "threads", buf);
	pair(ui, 0, x, "elapsed", (snprintf(a, sizeof(a), "%.0f s",
					     session_elapsed(s)), a));

	x = pair(ui, 1, 0, s->info.kind, s->info.events);
	x = pair(ui, 1, x, "period", s->info.period);
	if (m->obs.active) {
		/* The observer's gauge: its sample rate and DTE acceptance. */
		const struct dte *d = &m->obs.dte;
		uint64_t judged = d->taken - d->first;
		double el = session_elapsed(s);

		human(a, sizeof(a), el > 0 ? (uint64_t)((double)s->obs_info.produced / el) : 0);
		snprintf(b, sizeof(b), "%.24s/s", a);
		x = pair(ui, 1, x, "observer", b);
		snprintf(b, sizeof(b), "%.1f%%", judged ?
			 100.0 * (double)d->accepted / (double)judged : 0);
		x = pair(ui, 1, x, "DTE accepted", b);
		x = pair(ui, 1, x, "every", s->obs_info.period);
		if (m->obs.have_hardware) {
			/* Measured by rdpmc on the sibling: app = core - self. */
			snprintf(b, sizeof(b), "%.2f", obs_model_hardware_ipc(&m->obs));
			pair(ui, 1, x, "core IPC", b);
		}
	}

	human(a, sizeof(a), m->samples);
	x = pair(ui, 2, 0, "samples", a);
	snprintf(b, sizeof(b), "%.0f/s", model_rate(m));
	x = pair(ui, 2, x, "rate", b);
	human(a, sizeof(a), m->kernel_lost + session_dropped(s));
	x = pair(ui, 2, x, "lost", a);
	snprintf(b, sizeof(b), "%llu (%.1f%%)", (unsigned long long)m->unknown,
		 m->samples ? 100.0 * (double)m->unknown / (double)m->samples : 0);
	pair(ui, 2, x, "unknown", b);

	/* Line 4: the most important caveat, finishing status first. */
	if (s->finished && s->obs_info.failed)
		snprintf(buf, sizeof(buf), "%.100s; %.120s; table kept, q quits",
			 s->obs_info.finish_reason, s->status);
	else if (s->finished)
		snprintf(buf, sizeof(buf), "%s; table kept, q quits", s->status);
	else if (s->obs_info.failed)
		snprintf(buf, sizeof(buf), "%.200s; perf sampling goes on",
			 s->obs_info.finish_reason);
	else
		snprintf(buf, sizeof(buf), "%.255s", s->info.note);
	ui_put(3, 0, COLS, ui->attr[TH_WARNING], buf);
}
