/*
 * sort_menu.c - F6, as htop's: the columns to sort by in a list beside
 * the table, the current one selected; Enter sorts, Esc leaves it be.
 */
#include "output/columns.h"
#include "ui/draw.h"
#include "ui/ui_internal.h"

#include <stdio.h>

struct sort_menu {
	struct view v;
	enum st_sort_key keys[ST_SORT_COUNT];
	int n, selected;
};

static const char *const titles[ST_SORT_COUNT] = {
	"SELF%", "IPC", "MODULE", "SYMBOL", "PID COMMAND",
};

static void menu_draw(struct view *v, WINDOW *w)
{
	struct sort_menu *m = (struct sort_menu *)v;
	const struct ui *ui = v->ui;
	int rows = getmaxy(w);

	draw_text(w, 0, 0, 16, ui->attr[TH_COLUMNS], "Sort by");
	for (int i = 0; i < m->n && i + 1 < rows; i++)
		draw_text(w, i + 1, 0, 16, i == m->selected ? ui->attr[TH_SELECTED]
			  : ui->attr[TH_ROW], titles[m->keys[i]]);
	draw_text(w, m->n + 1 < rows ? m->n + 1 : rows - 1, 0, 16, ui->attr[TH_ROW],
		  "Enter: sort");
}

static enum view_reaction pick(struct sort_menu *m)
{
	ui_set_sort(m->v.ui, m->keys[m->selected]);
	return VIEW_POP;
}

static enum view_reaction menu_key(struct view *v, int code, enum ui_action a)
{
	struct sort_menu *m = (struct sort_menu *)v;

	switch (code) {
	case KEY_UP:
	case 'k':
		m->selected = (m->selected + m->n - 1) % m->n;
		return VIEW_REDRAW;
	case KEY_DOWN:
	case 'j':
		m->selected = (m->selected + 1) % m->n;
		return VIEW_REDRAW;
	case '\n':
	case KEY_ENTER:
		return pick(m);
	default:
		break;
	}
	if (a == UA_BACK || a == UA_SORT_MENU)
		return VIEW_POP;
	return a == UA_QUIT ? VIEW_IGNORED : VIEW_REDRAW;
}

static enum view_reaction menu_click(struct view *v, int y, int x, bool twice)
{
	struct sort_menu *m = (struct sort_menu *)v;

	(void)twice;
	if (x >= 16 || y < 1 || y > m->n)
		return VIEW_POP;
	m->selected = y - 1;
	return pick(m);
}

static const enum ui_action menu_actions[] = { UA_SORT_MENU, UA_BACK, UA_NONE };

static const struct view_ops menu_ops = {
	.name = "sort",
	.draw = menu_draw,
	.key = menu_key,
	.click = menu_click,
	.destroy = view_free,
	.actions = menu_actions,
};

struct view *sort_menu_create(struct ui *ui)
{
	struct sort_menu *m = view_new(sizeof(*m), &menu_ops, ui);

	for (int k = 0; k < ST_SORT_COUNT; k++) {
		if (!ui_sort_offered(ui, (enum st_sort_key)k))
			continue;
		if ((enum st_sort_key)k == ui->sort.key[0])
			m->selected = m->n;
		m->keys[m->n++] = (enum st_sort_key)k;
	}
	return &m->v;
}
