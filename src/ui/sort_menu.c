/*
 * sort_menu.c - F6, as htop's: the columns to sort by in a list beside
 * the table, the current one selected; Enter sorts, Esc leaves it be.
 */
#include "output/columns.h"
#include "ui/browser.h"
#include "ui/draw.h"
#include "ui/ui_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MENU_WIDTH 16

struct sort_menu {
	struct view v;
	struct browser rows_shown;	/* an item a key */
	enum st_sort_key keys[ST_SORT_COUNT];
	int n;
};

static const char *const titles[ST_SORT_COUNT] = {
	"SELF%", "IPC", "MODULE", "SYMBOL", "PID COMMAND", "OFF-CPU", "TOTAL%", "WALL",
};

static void menu_items(struct browser *b, const struct browser_item *parent)
{
	const struct sort_menu *m = b->ctx;

	(void)parent;
	for (int i = 0; i < m->n; i++)
		browser_add(b, m->keys[i], (uint64_t)m->keys[i], false);
}

static bool menu_match(struct browser *b, const struct browser_item *it, const char *needle)
{
	(void)b;
	return strcasestr(titles[it->ref], needle) != NULL;
}

static int menu_write(struct browser *b, const struct browser_item *it, char *line, size_t len,
		      int cols)
{
	(void)b;
	(void)cols;
	snprintf(line, len, "%s", titles[it->ref]);
	return TH_ROW;
}

static void menu_title(struct browser *b, char *line, size_t len, int cols)
{
	(void)b;
	(void)cols;
	snprintf(line, len, "Sort by");
}

static const struct browser_ops menu_browser = {
	.items = menu_items,
	.write = menu_write,
	.match = menu_match,
	.title = menu_title,
};

static void menu_draw(struct view *v, WINDOW *w)
{
	struct sort_menu *m = (struct sort_menu *)v;
	int rows = getmaxy(w), shown = m->n + 1 < rows ? m->n + 1 : rows - 1;

	browser_draw(&m->rows_shown, w, 0, 0, MENU_WIDTH, shown, true, v->ui->attr);
	draw_text(w, shown, 0, MENU_WIDTH, v->ui->attr[TH_ROW], "Enter: sort");
}

static enum view_reaction pick(struct sort_menu *m)
{
	const struct browser_item *it = browser_selected(&m->rows_shown);

	if (it)
		ui_set_sort(m->v.ui, (enum st_sort_key)it->ref);
	return VIEW_POP;
}

static enum view_reaction menu_key(struct view *v, int code, enum ui_action a)
{
	struct sort_menu *m = (struct sort_menu *)v;
	bool prompt = m->rows_shown.search.active;

	if (view_browse(v, &m->rows_shown, code, a) != VIEW_IGNORED)
		return VIEW_REDRAW;
	if (a == UA_OPEN && !prompt)
		return pick(m);
	if (a == UA_BACK || a == UA_SORT_MENU)
		return VIEW_POP;
	return a == UA_QUIT ? VIEW_IGNORED : VIEW_REDRAW;
}

static enum view_reaction menu_click(struct view *v, int y, int x, bool twice)
{
	struct sort_menu *m = (struct sort_menu *)v;

	(void)twice;
	if (x >= MENU_WIDTH || !browser_click(&m->rows_shown, y - 1))
		return VIEW_POP;
	return pick(m);
}

static void menu_destroy(struct view *v)
{
	browser_free(&((struct sort_menu *)v)->rows_shown);
	free(v);
}

static const enum ui_action menu_actions[] = { UA_SORT_MENU, UA_BACK, UA_NONE };

static const struct view_ops menu_ops = {
	.name = "sort",
	.draw = menu_draw,
	.key = menu_key,
	.click = menu_click,
	.destroy = menu_destroy,
	.actions = menu_actions,
};

struct view *sort_menu_create(struct ui *ui)
{
	struct sort_menu *m = view_new(sizeof(*m), &menu_ops, ui);

	for (int k = 0; k < ST_SORT_COUNT; k++)
		if (ui_sort_offered(ui, (enum st_sort_key)k))
			m->keys[m->n++] = (enum st_sort_key)k;
	browser_init(&m->rows_shown, &menu_browser, m, "column", false);
	m->v.browser = &m->rows_shown;
	browser_rebuild(&m->rows_shown);
	browser_select_id(&m->rows_shown, ui->sort.key[0]);	/* the current one */
	return &m->v;
}
