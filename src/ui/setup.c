/*
 * setup.c - F2, as htop's setup: one line per setting, Up and Down
 * choose, Enter or Right change it (Left back), and the change
 * shows at once.  Leaving (Esc, F2, q) writes the settings file.
 */
#include "ui/browser.h"
#include "ui/draw.h"
#include "ui/ui_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum setup_item {
	SETUP_THEME, SETUP_DELAY, SETUP_SORT, SETUP_ORDER, SETUP_SAMPLES,
	SETUP_IPC, SETUP_MODULE, SETUP_HEADER, SETUP_COUNT
};

static const char *const item_names[SETUP_COUNT] = {
	"Theme", "Refresh interval", "Sort by", "Sort order", "Column SAMPLES (symbols)",
	"Column IPC (symbols)", "Column MODULE (symbols)", "Header",
};

static const double delays[] = { 0.5, 1, 2, 5, 10 };

/*
 * After the fixed items, one a column of a declared table F2 can hide:
 * the k-th such column, as its table's index and column's; false past
 * the last.
 */
static bool table_column_item(int k, size_t *table, size_t *col)
{
	for (size_t i = 0; i < NDECLARED_TABLES; i++)
		for (size_t c = 0; c < declared_tables[i]->n; c++)
			if (table_column_hideable(declared_tables[i], c) && k-- == 0) {
				*table = i, *col = c;
				return true;
			}
	return false;
}

static int item_count(void)
{
	size_t t, c;
	int n = SETUP_COUNT;

	while (table_column_item(n - SETUP_COUNT, &t, &c))
		n++;
	return n;
}

static void item_name(int i, char *buf, size_t len)
{
	size_t t, c;

	if (i < SETUP_COUNT)
		snprintf(buf, len, "%s", item_names[i]);
	else if (table_column_item(i - SETUP_COUNT, &t, &c))
		snprintf(buf, len, "Column %s (%s)", declared_tables[t]->cols[c].title,
			 declared_tables[t]->name);
	else
		buf[0] = '\0';
}

struct setup_view {
	struct view v;
	struct browser rows_shown;	/* an item a setting */
};

static void item_value(const struct ui *ui, int i, char *buf, size_t len)
{
	const struct ui_settings *s = &ui->settings;
	size_t t, c;

	if (i >= SETUP_COUNT) {
		bool hidden = table_column_item(i - SETUP_COUNT, &t, &c) &&
			      s->table_hidden[t] >> c & 1;

		snprintf(buf, len, "%s", hidden ? "hidden" : "shown");
		return;
	}
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
	default:	/* SETUP_HEADER */
		snprintf(buf, len, "%s", s->brief_header ? "brief (2 lines)" : "full (4 lines)");
		break;
	}
}

static void setup_items(struct browser *b, const struct browser_item *parent)
{
	(void)parent;
	for (int i = 0, n = item_count(); i < n; i++)
		browser_add(b, (uint64_t)i, (uint64_t)i, false);
}

static bool setup_match(struct browser *b, const struct browser_item *it, const char *needle)
{
	char name[96];

	(void)b;
	item_name((int)it->ref, name, sizeof(name));
	return strcasestr(name, needle) != NULL;
}

static int setup_write(struct browser *b, const struct browser_item *it, char *line, size_t len,
		       int cols)
{
	const struct setup_view *sv = b->ctx;
	char name[96], value[64];

	(void)cols;
	item_name((int)it->ref, name, sizeof(name));
	item_value(sv->v.ui, (int)it->ref, value, sizeof(value));
	snprintf(line, len, "  %-38s %s", name, value);
	return TH_ROW;
}

static void setup_title(struct browser *b, char *line, size_t len, int cols)
{
	(void)b;
	(void)cols;
	snprintf(line, len, "Setup  (Enter/Right: change, Left: back, Esc/F2: save and close)");
}

static const struct browser_ops setup_browser = {
	.items = setup_items,
	.write = setup_write,
	.match = setup_match,
	.title = setup_title,
};

static void setup_draw(struct view *v, WINDOW *w)
{
	struct setup_view *sv = (struct setup_view *)v;
	const struct ui *ui = v->ui;
	int rows = getmaxy(w), cols = getmaxx(w);
	char line[256];

	int n = item_count() + 1;	/* the title, the items */

	/* The items, and where they are saved below them (the last line if they scroll). */
	if (n + 2 > rows)
		n = rows - 2;
	browser_draw(&sv->rows_shown, w, 0, 0, cols, n > 0 ? n : rows, true, ui->attr);
	if (n > 0) {
		snprintf(line, sizeof(line), "Saved to %.200s",
			 ui->settings_path[0] ? ui->settings_path : "(nowhere: no HOME)");
		draw_text(w, n + 1, 0, cols, ui->attr[TH_ROW], line);
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
	case SETUP_HEADER:
		s->brief_header = !s->brief_header;
		break;
	default: {
		size_t t, c;

		if (table_column_item(item - SETUP_COUNT, &t, &c))
			s->table_hidden[t] ^= UINT32_C(1) << c;
		break;
	}
	}
	ui_apply_settings(ui);
}

/* The selected setting. */
static int selected_item(const struct setup_view *sv)
{
	const struct browser_item *it = browser_selected(&sv->rows_shown);

	return it ? (int)it->ref : 0;
}

static enum view_reaction setup_key(struct view *v, int code, enum ui_action a)
{
	struct setup_view *sv = (struct setup_view *)v;

	if (!sv->rows_shown.search.active) {
		if (a == UA_OPEN || a == UA_RIGHT) {
			change(v->ui, selected_item(sv), 1);
			return VIEW_REDRAW;
		}
		if (a == UA_LEFT) {
			change(v->ui, selected_item(sv), -1);
			return VIEW_REDRAW;
		}
	}
	if (view_browse(v, &sv->rows_shown, code, a) != VIEW_IGNORED)
		return VIEW_REDRAW;
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
	if (browser_click(&sv->rows_shown, y - 1) && twice)
		change(v->ui, selected_item(sv), 1);
	return VIEW_REDRAW;
}

static void setup_destroy(struct view *v)
{
	browser_free(&((struct setup_view *)v)->rows_shown);
	free(v);
}

static const enum ui_action setup_actions[] = { UA_SETUP, UA_NONE };

static const struct view_ops setup_ops = {
	.name = "setup",
	.draw = setup_draw,
	.key = setup_key,
	.click = setup_click,
	.destroy = setup_destroy,
	.actions = setup_actions,
	.full_screen = true,
};

struct view *setup_view_create(struct ui *ui)
{
	struct setup_view *sv = view_new(sizeof(*sv), &setup_ops, ui);

	browser_init(&sv->rows_shown, &setup_browser, sv, "setting", false);
	sv->v.browser = &sv->rows_shown;
	browser_rebuild(&sv->rows_shown);
	return &sv->v;
}
