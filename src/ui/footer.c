/*
 * footer.c - the last line: a view's prompt, a one-shot message, or the
 * keys the top view binds, labelled from the key table (keys.c), and
 * where a launched command's output goes where they leave room.
 */
#include "ui/browser.h"
#include "ui/draw.h"
#include "ui/ui_internal.h"
#include "output/snapshot_background.h"
#include "session/output_keeper.h"
#include "session/session.h"
#include "symbols/symbols.h"
#include "util.h"

#include <string.h>

/* An action's label width, 0 when it has none in the footer. */
static int label_width(const struct ui_key *k)
{
	return k && k->footer ? (int)(strlen(k->footer_key) + strlen(k->footer)) : 0;
}

/* Draws an action's key and label at x; returns the next x. */
static int draw_action(const struct ui *ui, WINDOW *w, const struct ui_key *k, int x)
{
	int kw = (int)strlen(k->footer_key), lw = (int)strlen(k->footer);

	draw_text(w, 0, x, kw, ui->attr[TH_KEY], k->footer_key);
	draw_text(w, 0, x + kw, lw + 1, ui->attr[TH_KEY_LABEL], k->footer);
	return x + kw + lw + 1;
}

/*
 * The keys in the view's order, as many as fit; the way out (Esc, q) stays
 * at the end whatever the width, as htop's F10.
 */
static int draw_actions(const struct ui *ui, WINDOW *w, const enum ui_action *actions, int cols)
{
	int n = 0, x = 0, tail, tail_width = 0;

	while (actions[n] != UA_NONE)
		n++;
	for (tail = n; tail > 0 && (actions[tail - 1] == UA_QUIT || actions[tail - 1] == UA_BACK);
	     tail--)
		tail_width += label_width(ui_key_of(actions[tail - 1])) + 1;
	for (int i = 0; i < n; i++) {
		const struct ui_key *k = ui_key_of(actions[i]);
		int room = cols - (i < tail ? tail_width : 0);

		if (!label_width(k))
			continue;
		if (x + label_width(k) > room) {
			if (i >= tail)
				break;
			i = tail - 1;	/* the rest before the way out does not fit */
			continue;
		}
		x = draw_action(ui, w, k, x);
	}
	if (x < cols)
		draw_text(w, 0, x, cols - x, ui->attr[TH_KEY_LABEL], "");
	return x;
}

/*
 * Where a launched command's output goes, at the right end where the
 * keys leave room: its path, else its name (the file is in $TMPDIR, as
 * said at the start and at the end), and its last megabytes once cut.
 */
static void draw_output_note(const struct ui *ui, WINDOW *w, int x, int cols)
{
	const char *path = session_target_output(ui->s);
	struct output_kept k;
	char note[320], last[40] = "";

	if (!path)
		return;
	if (session_target_output_kept(ui->s, &k) && k.cut)
		snprintf(last, sizeof(last), " (last %.0f MB)", (double)k.kept / (1 << 20));
	for (int i = 0; i < 3; i++) {
		int n = snprintf(note, sizeof(note), "%s%s%s ", i < 2 ? "output: " : "",
				 i ? st_basename(path) : path, last);

		if (n > 0 && n < (int)sizeof(note) && x + n + 1 <= cols) {
			draw_text(w, 0, cols - n, n, ui->attr[TH_KEY_LABEL], note);
			return;
		}
	}
}

/*
 * The first cut of the command's output file, said for a few seconds
 * whatever the width (at 80 columns the keys leave the note no room).
 */
static void say_output_cut(struct ui *ui)
{
	struct output_kept k;

	if (ui->output_cut_said || ui->message[0] || !session_target_output_kept(ui->s, &k) ||
	    !k.cut)
		return;
	ui->output_cut_said = true;
	snprintf(ui->message, sizeof(ui->message), "the command's output keeps its last %.0f MB "
		 "(%s)", (double)k.kept / (1 << 20), st_basename(session_target_output(ui->s)));
	ui->message_until = st_now_ns() + 6000000000ull;
}

void ui_draw_footer(struct ui *ui, WINDOW *w, struct view *top)
{
	int cols = getmaxx(w);
	char buf[512];
	bool warning;

	if (ui->snapshot_path.active) {
		/* The question and the typed path; a long one shows its end. */
		size_t n = (size_t)snprintf(buf, sizeof(buf), "%s%s", ui->snapshot_question,
					    ui->snapshot_path.text);
		const char *shown = n + 1 > (size_t)cols ? buf + n + 1 - (size_t)cols : buf;

		draw_text(w, 0, 0, cols, ui->attr[TH_SEARCH], shown);
		ui->footer_cursor = (int)strlen(shown);
		return;
	}
	if (top->ops->status && top->ops->status(top, buf, sizeof(buf), &warning)) {
		draw_text(w, 0, 0, cols, ui->attr[warning ? TH_WARNING : TH_SEARCH], buf);
		return;
	}
	if (top->browser && browser_status(top->browser, buf, sizeof(buf))) {
		draw_text(w, 0, 0, cols, ui->attr[TH_SEARCH], buf);
		return;
	}
	if (ui->message[0] && ui->message_until && st_now_ns() >= ui->message_until) {
		ui->message[0] = '\0';
		ui->message_until = 0;
	}
	say_output_cut(ui);
	if (ui->message[0]) {
		draw_text(w, 0, 0, cols, ui->attr[TH_WARNING], ui->message);
		return;
	}
	/* A snapshot being written (keys work meanwhile), then a debug file on its way. */
	if (!snapshot_writing(buf, sizeof(buf)))
		symbols_debuginfod_status(buf, sizeof(buf));
	if (buf[0]) {
		draw_text(w, 0, 0, cols, ui->attr[TH_SEARCH], buf);
		return;
	}
	draw_output_note(ui, w, draw_actions(ui, w, top->ops->actions, cols), cols);
}
