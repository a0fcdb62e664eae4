/*
 * setup.c - F2, as htop's setup: one line per setting, Up and Down
 * choose, Enter, Space or Right change it (Left back), and the change
 * shows at once.  Leaving (Esc, F2, q) writes the settings file.
 */
#include "ui/draw.h"
#include "ui/ui_internal.h"

#include <stdio.h>
#include <string.h>

enum setup_item {
	SETUP_THEME, SETUP_DELAY, SETUP_SORT, SETUP_ORDER, SETUP_SAMPLES,
	SETUP_IPC, SETUP_MODULE, SETUP_HEADER, SETUP_COUNT
};

static const char *const item_names[SETUP_COUNT] = {
	"Theme", "Refresh interval", "Sort by", "Sort order", "Column SAMPLES",
	"Column IPC", "Column MODULE", "Header",
};

static const double delays[] = { 0.5, 1, 2, 5, 10 };

struct setup_view {
	struct view v;
	int selected;
};

static void item_value(const struct ui *ui, int i, char *buf, size_t len)
{
	const struct ui_settings *s = &ui->settings;

	switch (i) {
	case SETUP_THEME:
		snprintf(buf, len, "%s", ui->theme.name[0] ? ui->theme.name : "default");
		break;
	case SETUP_DELAY:
		snprintf(buf, len, "%g s", ui->delay);
		break;
	case SETUP_SORT:
		snprintf(buf, len, "%s", sort_key_name(ui->sort.key[0]));
		break;
	case SETUP_ORDER:
		snprintf(buf, len, "%s", ui->invert ? "inverted" : "heaviest first");
		break;
	case SETUP_SAMPLES:
	case SETUP_IPC:
	case SETUP_MODULE:
		snprintf(buf, len, "%s", s->hidden & (1u << (i - SETUP_SAMPLES)) ? "hidden"
									: "shown");
		break;
	default:
		snprintf(buf, len, "%s", s->brief_header ? "brief (2 lines)" : "full (4 lines)");
		break;
	}
}

static void setup_draw(struct view *v, WINDOW *w)
{
	struct setup_view *sv = (struct setup_view *)v;
	const struct ui *ui = v->ui;
	int rows = getmaxy(w), cols = getmaxx(w);
	char line[256], value[64];

	draw_text(w, 0, 0, cols, ui->attr[TH_COLUMNS],
		  "Setup  (Enter/Right: change, Left: back, Esc/F2: save and close)");
	for (int i = 0; i < SETUP_COUNT && i + 1 < rows; i++) {
		item_value(ui, i, value, sizeof(value));
		snprintf(line, sizeof(line), "  %-18s %s", item_names[i], value);
		draw_text(w, i + 1, 0, cols, i == sv->selected ? ui->attr[TH_SELECTED]
			  : ui->attr[TH_ROW], line);
	}
	if (SETUP_COUNT + 2 < rows) {
		snprintf(line, sizeof(line), "Saved to %.200s",
			 ui->settings_path[0] ? ui->settings_path : "(nowhere: no HOME)");
		draw_text(w, SETUP_COUNT + 2, 0, cols, ui->attr[TH_ROW], line);
	}
}

static int next_delay(double now, int step)
{
	int n = (int)(sizeof(delays) / sizeof(delays[0])), i;

	for (i = 0; i < n && delays[i] < now - 1e-9; i++)
		;
	if (i < n && delays[i] > now + 1e-9 && step > 0)
		i--;		/* between two: step from the lower */
	return ((i + step) % n + n) % n;
}

static void change(struct ui *ui, int item, int step)
{
	struct ui_settings *s = &ui->settings;

	switch (item) {
	case SETUP_THEME: {
		const char *name = strcmp(ui->theme.name, "mono") ? "mono" : "default";

		if (theme_load(&ui->theme, name) == 0) {
			snprintf(s->theme, sizeof(s->theme), "%s", name);
			ui_theme_apply(ui);
		}
		break;
	}
	case SETUP_DELAY:
		ui->delay = s->delay = delays[next_delay(ui->delay, step)];
		break;
	case SETUP_SORT: {
		int k = (int)ui->sort.key[0];

		do
			k = (k + ST_SORT_COUNT + step) % ST_SORT_COUNT;
		while (!ui_sort_offered(ui, (enum st_sort_key)k));
		ui_set_sort(ui, (enum st_sort_key)k);
		break;
	}
	case SETUP_ORDER:
		ui->invert = s->invert = !ui->invert;
		break;
	case SETUP_SAMPLES:
	case SETUP_IPC:
	case SETUP_MODULE:
		s->hidden ^= 1u << (item - SETUP_SAMPLES);
		break;
	default:
		s->brief_header = !s->brief_header;
		break;
	}
	ui_apply_settings(ui);
}

static enum view_reaction setup_key(struct view *v, int code, enum ui_action a)
{
	struct setup_view *sv = (struct setup_view *)v;

	switch (code) {
	case KEY_UP:
	case 'k':
		sv->selected = (sv->selected + SETUP_COUNT - 1) % SETUP_COUNT;
		return VIEW_REDRAW;
	case KEY_DOWN:
	case 'j':
		sv->selected = (sv->selected + 1) % SETUP_COUNT;
		return VIEW_REDRAW;
	case '\n':
	case KEY_ENTER:
	case ' ':
	case KEY_RIGHT:
		change(v->ui, sv->selected, 1);
		return VIEW_REDRAW;
	case KEY_LEFT:
		change(v->ui, sv->selected, -1);
		return VIEW_REDRAW;
	default:
		break;
	}
	if (a == UA_BACK || a == UA_SETUP || a == UA_QUIT) {
		ui_save_settings(v->ui);
		return VIEW_POP;
	}
	return VIEW_REDRAW;	/* the setup takes every other key */
}

static enum view_reaction setup_click(struct view *v, int y, int x, bool twice)
{
	struct setup_view *sv = (struct setup_view *)v;

	(void)x;
	if (y < 1 || y > SETUP_COUNT)
		return VIEW_REDRAW;
	sv->selected = y - 1;
	if (twice)
		change(v->ui, sv->selected, 1);
	return VIEW_REDRAW;
}

static const enum ui_action setup_actions[] = { UA_SETUP, UA_NONE };

static const struct view_ops setup_ops = {
	.name = "setup",
	.draw = setup_draw,
	.key = setup_key,
	.click = setup_click,
	.destroy = view_free,
	.actions = setup_actions,
	.full_screen = true,
};

struct view *setup_view_create(struct ui *ui)
{
	return view_new(sizeof(struct setup_view), &setup_ops, ui);
}
