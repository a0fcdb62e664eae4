/*
 * ui.c - the UI loop: pump the session, re-sort every refresh interval,
 * redraw without flicker (erase + one doupdate), handle keys and resize.
 */
#include "ui/ui.h"
#include "session.h"
#include "stop_signal.h"
#include "symbols/symbols.h"
#include "ui/ui_internal.h"
#include "util.h"

#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

static struct theme loaded_theme;

int ui_prepare(const char *theme_name)
{
	return theme_load(&loaded_theme, theme_name);
}

static chtype attrs_of(const struct theme_style *st)
{
	chtype a = A_NORMAL;

	if (st->attrs & THEME_BOLD)
		a |= A_BOLD;
	if (st->attrs & THEME_DIM)
		a |= A_DIM;
	if (st->attrs & THEME_REVERSE)
		a |= A_REVERSE;
	if (st->attrs & THEME_UNDERLINE)
		a |= A_UNDERLINE;
	return a;
}

void ui_theme_apply(struct ui *ui)
{
	bool colour = !ui->theme.mono && has_colors();

	if (colour) {
		start_color();
		use_default_colors();
	}
	for (int e = 0; e < TH_COUNT; e++) {
		const struct theme_style *st = &ui->theme.style[e];

		ui->attr[e] = attrs_of(st);
		if (colour && (st->fg >= 0 || st->bg >= 0)) {
			init_pair((short)(e + 1), st->fg, st->bg);
			ui->attr[e] |= COLOR_PAIR(e + 1);
		} else if (!colour && (e == TH_SELECTED || e == TH_COLUMNS ||
				       e == TH_KEY_LABEL || e == TH_SEARCH)) {
			/* Without colour, bars must still stand out. */
			ui->attr[e] |= A_REVERSE;
		}
	}
}

/* Re-sorts from the model; keeps the same symbol selected. */
static void refresh_rows(struct ui *ui)
{
	free(ui->rows);
	ui->nrows = model_rows(&ui->s->model, ui->sort, ui->invert, &ui->rows);
	if (ui->have_selection) {
		for (size_t i = 0; i < ui->nrows; i++)
			if (ui->rows[i].sym->id == ui->selected_id) {
				ui_select(ui, (long)i);
				return;
			}
	}
	if (ui->nrows)
		ui_select(ui, ui->have_selection && ui->selected < ui->nrows
			  ? (long)ui->selected : 0);
}

static void draw(struct ui *ui)
{
	erase();
	if (COLS < UI_MIN_COLS || LINES < UI_MIN_LINES) {
		mvprintw(0, 0, "terminal too small:");
		mvprintw(1, 0, "%dx%d, need %dx%d", COLS, LINES, UI_MIN_COLS,
			 UI_MIN_LINES);
	} else if (ui->help) {
		ui_draw_help(ui);
	} else {
		ui_draw_header(ui);
		ui_draw_table(ui);
		ui_draw_footer(ui);
	}
	curs_set(ui->searching ? 1 : 0);
	wnoutrefresh(stdscr);
	doupdate();
}

/* Returns false when the key quits. */
static bool search_key(struct ui *ui, int ch)
{
	size_t len = strlen(ui->search);

	switch (ch) {
	case 27:	/* Esc: cancel */
		ui->search[0] = '\0';
		ui->searching = false;
		ui->search_failed = false;
		break;
	case '\n':
	case KEY_ENTER:
		ui->searching = false;
		break;
	case KEY_F(3):
		ui_search_from(ui, ui->selected + 1);
		break;
	case KEY_BACKSPACE:
	case 127:
	case 8:
		if (len)
			ui->search[len - 1] = '\0';
		ui_search_from(ui, 0);
		break;
	default:
		if (ch >= 32 && ch < 127 && len + 1 < sizeof(ui->search)) {
			ui->search[len] = (char)ch;
			ui->search[len + 1] = '\0';
			ui_search_from(ui, ui->selected);
		}
		break;
	}
	return true;
}

static void sort_by(struct ui *ui, int step)
{
	ui->sort = (enum st_sort_key)((ui->sort + ST_SORT_COUNT + step) % ST_SORT_COUNT);
	refresh_rows(ui);
}

static bool handle_key(struct ui *ui, int ch)
{
	long page = ui_table_height();

	ui->message[0] = '\0';
	if (ui->help && ch != KEY_RESIZE) {
		ui->help = false;
		return true;
	}
	if (ui->searching)
		return search_key(ui, ch);
	switch (ch) {
	case 'q':
	case KEY_F(10):
		return false;
	case '?':
	case 'h':
	case KEY_F(1):
		ui->help = true;
		break;
	case KEY_UP:
	case 'k':
		ui_select(ui, (long)ui->selected - 1);
		break;
	case KEY_DOWN:
	case 'j':
		ui_select(ui, (long)ui->selected + 1);
		break;
	case KEY_PPAGE:
		ui_select(ui, (long)ui->selected - page);
		break;
	case KEY_NPAGE:
		ui_select(ui, (long)ui->selected + page);
		break;
	case KEY_HOME:
		ui_select(ui, 0);
		break;
	case KEY_END:
		ui_select(ui, (long)ui->nrows - 1);
		break;
	case KEY_F(6):
	case '>':
	case '.':
		sort_by(ui, 1);
		break;
	case '<':
	case ',':
		sort_by(ui, -1);
		break;
	case 'I':
		ui->invert = !ui->invert;
		refresh_rows(ui);
		break;
	case '/':
		ui->searching = true;
		ui->search[0] = '\0';
		ui->search_failed = false;
		break;
	case KEY_F(3):
	case 'n':
		if (!ui->search[0])
			ui->searching = true;
		else if (!ui_search_from(ui, ui->selected + 1))
			snprintf(ui->message, sizeof(ui->message),
				 "no symbol matches '%s'", ui->search);
		break;
	case 'z':
		model_zero(&ui->s->model);
		refresh_rows(ui);
		break;
	case 12:	/* Ctrl-L */
		clearok(curscr, TRUE);
		break;
	case KEY_RESIZE:
		ui_select(ui, (long)ui->selected);
		break;
	default:
		break;
	}
	return true;
}

int ui_run(struct session *s)
{
	struct ui ui;
	uint64_t next_refresh = 0, interval;
	int status;

	memset(&ui, 0, sizeof(ui));
	ui.s = s;
	ui.theme = loaded_theme;
	ui.sort = s->opt->sort;
	interval = (uint64_t)(s->opt->delay * 1e9);
	stop_signal_install();
	status = session_start(s);
	if (status < 0)
		return status;
	setlocale(LC_ALL, "");
	if (!initscr()) {
		st_error("cannot start the terminal UI (is TERM set?); use --batch");
		return -ENOTTY;
	}
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	timeout(100);
	ui_theme_apply(&ui);
	for (;;) {
		int ch;
		uint64_t now;

		session_pump(s);
		now = st_now_ns();
		if (now >= next_refresh) {
			refresh_rows(&ui);
			next_refresh = now + interval;
		}
		draw(&ui);
		ch = getch();
		if (stop_signal_received())
			break;		/* Ctrl-C, SIGTERM: the same stop as q */
		if (ch == ERR)
			continue;
		if (!handle_key(&ui, ch))
			break;
		draw(&ui);
	}
	endwin();
	free(ui.rows);
	status = session_stop(s);
	if (s->obs_info.failed) {
		st_error("%s; the observer's figures covered the samples before it",
			 s->obs_info.finish_reason);
		return -EIO;
	}
	if (s->finished && s->has_target && s->info.finished)
		st_warn("%s", s->status);
	return status;
}
