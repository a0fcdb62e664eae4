/* help.c - the help screen (F1 or ?). */
#include "ui/ui_internal.h"

static const char *const help_lines[] = {
	"shimtop keys",
	"",
	"  F1 ?          this help (any key returns)",
	"  Up Down       move the selection",
	"  PgUp PgDn     page; Home End: first, last row",
	"  F6 > .        sort by the next column",
	"  <  ,          sort by the previous column",
	"  I             invert the sort order",
	"  F3 /          search symbols as you type; Enter keeps,",
	"                Esc cancels, F3 or n finds the next match",
	"  z             zero the totals",
	"  Ctrl-L        redraw the screen",
	"  q F10         quit",
	"",
	"Header: samples, samples/s, lost (kernel + ring), unknown",
	"(samples no symbol explains). Line 4: caveats, e.g. a",
	"missing hardware PMU, or that the target has exited.",
	"IPC shows '-' where no cycle and instruction counts exist.",
};

void ui_draw_help(struct ui *ui)
{
	int n = (int)(sizeof(help_lines) / sizeof(help_lines[0]));

	for (int y = 0; y < LINES; y++)
		ui_put(y, 0, COLS, y == 0 ? ui->attr[TH_COLUMNS] : ui->attr[TH_ROW],
		       y < n ? help_lines[y] : "");
}
