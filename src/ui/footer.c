/*
 * footer.c - the last line: a view's prompt, a one-shot message, or the
 * keys the top view binds, labelled from the key table (keys.c).
 */
#include "ui/browser.h"
#include "ui/draw.h"
#include "ui/ui_internal.h"
#include "symbols/symbols.h"

#include <string.h>

void ui_draw_footer(struct ui *ui, WINDOW *w, struct view *top)
{
	int x = 0, cols = getmaxx(w);
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
	if (ui->message[0]) {
		draw_text(w, 0, 0, cols, ui->attr[TH_WARNING], ui->message);
		return;
	}
	/* A debug file on its way: names change when it is here. */
	symbols_debuginfod_status(buf, sizeof(buf));
	if (buf[0]) {
		draw_text(w, 0, 0, cols, ui->attr[TH_SEARCH], buf);
		return;
	}
	for (const enum ui_action *a = top->ops->actions; *a != UA_NONE; a++) {
		const struct ui_key *k = ui_key_of(*a);
		int kw, lw;

		if (!k || !k->footer)
			continue;
		kw = (int)strlen(k->footer_key);
		lw = (int)strlen(k->footer);
		if (x + kw + lw > cols)
			break;
		draw_text(w, 0, x, kw, ui->attr[TH_KEY], k->footer_key);
		draw_text(w, 0, x + kw, lw + 1, ui->attr[TH_KEY_LABEL], k->footer);
		x += kw + lw + 1;
	}
	if (x < cols)
		draw_text(w, 0, x, cols - x, ui->attr[TH_KEY_LABEL], "");
}
