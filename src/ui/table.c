/* table.c - the per-symbol table and the footer. */
#include "session.h"
#include "symbols/symbols.h"
#include "ui/ui_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static const char *const column_title[ST_SORT_COUNT] = {
	"SELF%", "IPC", "MODULE", "SYMBOL",
};

void ui_put(int y, int x, int width, chtype attr, const char *s)
{
	int n = 0;

	if (width <= 0 || y >= LINES)
		return;
	attrset(attr);
	move(y, x);
	for (; n < width && s[n]; n++)
		addch((unsigned char)(isprint((unsigned char)s[n]) ? s[n] : '?'));
	for (; n < width; n++)
		addch(' ');
}

int ui_table_height(void)
{
	int h = LINES - UI_HEADER_LINES - 2;	/* column titles, footer */

	return h > 0 ? h : 0;
}

void ui_select(struct ui *ui, long index)
{
	long height = ui_table_height();

	if (ui->nrows == 0)
		return;
	if (index < 0)
		index = 0;
	if (index >= (long)ui->nrows)
		index = (long)ui->nrows - 1;
	ui->selected = (size_t)index;
	ui->selected_id = ui->rows[index].sym->id;
	ui->have_selection = true;
	if (ui->selected < ui->top)
		ui->top = ui->selected;
	if (height > 0 && ui->selected >= ui->top + (size_t)height)
		ui->top = ui->selected - (size_t)height + 1;
}

bool ui_search_from(struct ui *ui, size_t from)
{
	if (!ui->search[0])
		return false;
	for (size_t k = 0; k < ui->nrows; k++) {
		size_t i = (from + k) % ui->nrows;

		if (strcasestr(ui->rows[i].sym->name, ui->search)) {
			ui_select(ui, (long)i);
			ui->search_failed = false;
			return true;
		}
	}
	ui->search_failed = true;
	return false;
}

/* A column title, with the sort arrow on the sorted one. */
static const char *title_of(const struct ui *ui, enum st_sort_key k, char *buf,
			    size_t len)
{
	snprintf(buf, len, "%s%s", column_title[k],
		 ui->sort == k ? (ui->invert ? "^" : "v") : "");
	return buf;
}

/* Column layout: SELF% SAMPLES IPC MODULE SYMBOL; narrow screens drop some. */
void ui_draw_table(struct ui *ui)
{
	int y0 = UI_HEADER_LINES, height = ui_table_height();
	bool wide = COLS >= 60;
	int modw = COLS >= 100 ? 24 : COLS >= 60 ? 16 : 0;
	char line[512], t[ST_SORT_COUNT][16];

	for (int k = 0; k < ST_SORT_COUNT; k++)
		title_of(ui, (enum st_sort_key)k, t[k], sizeof(t[k]));
	snprintf(line, sizeof(line), "%8s %s%6s  %-*s%s%s", t[ST_SORT_SELF],
		 wide ? "SAMPLES " : "", t[ST_SORT_IPC], modw,
		 modw ? t[ST_SORT_MODULE] : "", modw ? " " : "", t[ST_SORT_SYMBOL]);
	ui_put(y0, 0, COLS, ui->attr[TH_COLUMNS], line);
	for (int r = 0; r < height; r++) {
		size_t i = ui->top + (size_t)r;
		const struct model_row *row;
		chtype attr;
		char ipc[16] = "-", samples[16] = "";

		if (i >= ui->nrows) {
			ui_put(y0 + 1 + r, 0, COLS, ui->attr[TH_ROW], "");
			continue;
		}
		row = &ui->rows[i];
		if (!isnan(row->ipc))
			snprintf(ipc, sizeof(ipc), "%.2f", row->ipc);
		if (wide)
			snprintf(samples, sizeof(samples), "%7llu ",
				 (unsigned long long)row->samples);
		snprintf(line, sizeof(line), "%7.2f%% %s%6s  %-*.*s%s%s", row->self,
			 samples, ipc, modw, modw, modw ? row->sym->module : "",
			 modw ? " " : "", row->sym->name);
		attr = i == ui->selected && ui->have_selection ? ui->attr[TH_SELECTED]
			: row->sym->unknown ? ui->attr[TH_UNKNOWN] : ui->attr[TH_ROW];
		ui_put(y0 + 1 + r, 0, COLS, attr, line);
	}
}

void ui_draw_footer(struct ui *ui)
{
	static const struct { const char *key, *label; } keys[] = {
		{ "F1", "Help" }, { "F3", "Search" }, { "F6", "SortBy" },
		{ "I", "Invert" }, { "z", "Zero" }, { "q", "Quit" },
	};
	int y = LINES - 1, x = 0;
	char buf[160];

	if (ui->searching) {
		snprintf(buf, sizeof(buf), "Search: %s%s", ui->search,
			 ui->search_failed ? "  (no match)" : "");
		ui_put(y, 0, COLS, ui->attr[TH_SEARCH], buf);
		move(y, 8 + (int)strlen(ui->search) < COLS ? 8 + (int)strlen(ui->search)
							    : COLS - 1);
		return;
	}
	if (ui->message[0]) {
		ui_put(y, 0, COLS, ui->attr[TH_WARNING], ui->message);
		return;
	}
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		int kw = (int)strlen(keys[i].key), lw = (int)strlen(keys[i].label);

		if (x + kw + lw > COLS)
			break;
		ui_put(y, x, kw, ui->attr[TH_KEY], keys[i].key);
		ui_put(y, x + kw, lw + 1, ui->attr[TH_KEY_LABEL], keys[i].label);
		x += kw + lw + 1;
	}
	if (x < COLS)
		ui_put(y, x, COLS - x, ui->attr[TH_KEY_LABEL], "");
}
