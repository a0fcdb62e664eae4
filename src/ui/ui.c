/*
 * ui.c - the UI loop: pump the session, refresh the views every
 * interval, lay out their windows, redraw without flicker (erase + one
 * doupdate), send keys to the top view and take the ones it leaves.
 */
#include "output/columns.h"
#include "session/output_keeper.h"
#include "session/session.h"
#include "output/snapshot_background.h"
#include "output/snapshot_write.h"
#include "front/run.h"
#include "ui/browser.h"
#include "ui/declared_view.h"
#include "ui/draw.h"
#include "ui/ui.h"
#include "ui/ui_internal.h"
#include "output_file.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct theme loaded_theme;
static struct ui_settings loaded_settings;
static char loaded_path[4096];

int ui_prepare(const struct st_options *o)
{
	char err[256];

	settings_defaults(&loaded_settings);
	if (settings_path(loaded_path, sizeof(loaded_path)) &&
	    settings_read(&loaded_settings, loaded_path, err, sizeof(err)) < 0)
		st_warn("%s: %s; fix or delete it (F2 rewrites it)", loaded_path, err);
	/* The command line wins over the file. */
	return theme_load(&loaded_theme, o->theme ? o->theme
			  : loaded_settings.theme[0] ? loaded_settings.theme : NULL);
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

static struct view *top_of(const struct ui *ui)
{
	return ui->stack[ui->depth - 1];
}

static void free_windows(struct ui *ui)
{
	for (int i = 0; i < ui->nstrips; i++)
		if (ui->strip_win[i])
			delwin(ui->strip_win[i]);
	if (ui->body)
		delwin(ui->body);
	if (ui->footer)
		delwin(ui->footer);
	memset(ui->strip_win, 0, sizeof(ui->strip_win));
	ui->body = ui->footer = NULL;
}

/* Strips on top, the top view below them, the footer on the last line. */
static void layout(struct ui *ui)
{
	int y = 0;

	free_windows(ui);
	if (COLS < UI_MIN_COLS || LINES < UI_MIN_LINES)
		return;
	if (!top_of(ui)->ops->full_screen)
		for (int i = 0; i < ui->nstrips; i++) {
			ui->strip_win[i] = newwin(ui->strip_lines[i], COLS, y, 0);
			y += ui->strip_lines[i];
		}
	ui->body = newwin(LINES - y - 1, COLS, y, 0);
	ui->footer = newwin(1, COLS, LINES - 1, 0);
}

/* Re-reads the model into v, noting how many samples it held then. */
static void requery(struct ui *ui, struct view *v)
{
	if (!v->ops->requery)
		return;
	v->queried_samples = session_tables(ui->s)->samples;
	v->ops->requery(v);
}

static void refresh_views(struct ui *ui)
{
	for (int i = 0; i < ui->nstrips; i++)
		requery(ui, ui->strips[i]);
	requery(ui, top_of(ui));
}

/* The interval's refresh: with z on, the next table starts from zero. */
static void refresh_interval(struct ui *ui)
{
	refresh_views(ui);
	if (ui->zero_each)
		session_zero(ui->s);
}

static void draw_too_small(void)
{
	werase(stdscr);
	mvwprintw(stdscr, 0, 0, "terminal too small:");
	mvwprintw(stdscr, 1, 0, "%dx%d, need %dx%d", COLS, LINES, UI_MIN_COLS,
		  UI_MIN_LINES);
	wnoutrefresh(stdscr);
}

static void draw(struct ui *ui)
{
	struct view *top = top_of(ui);
	int cy, cx;
	bool cursor = false;

	/* A strip that needs more lines (a long caveat at 80 columns) gets them. */
	for (int i = 0; i < ui->nstrips; i++) {
		int want = ui->strips[i]->ops->lines
			? ui->strips[i]->ops->lines(ui->strips[i], COLS) : ui->strip_lines[i];

		if (want != ui->strip_lines[i]) {
			ui->strip_lines[i] = want;
			layout(ui);
		}
	}
	if (!ui->body) {
		draw_too_small();
		doupdate();
		return;
	}
	for (int i = 0; i < ui->nstrips; i++)
		if (ui->strip_win[i]) {
			ui->strips[i]->ops->draw(ui->strips[i], ui->strip_win[i]);
			wnoutrefresh(ui->strip_win[i]);
		}
	werase(ui->body);
	top->ops->draw(top, ui->body);
	ui_draw_footer(ui, ui->footer, top);
	if (ui->snapshot_path.active) {
		cy = -1;
		cx = ui->footer_cursor;
		cursor = true;
	} else if ((top->ops->cursor && top->ops->cursor(top, &cy, &cx)) ||
		   (top->browser && browser_cursor(top->browser, &cy, &cx))) {
		cursor = true;
	}
	wnoutrefresh(ui->body);
	if (cursor && cy < 0)
		wmove(ui->footer, 0, cx < COLS ? cx : COLS - 1);
	wnoutrefresh(ui->footer);
	curs_set(cursor ? 1 : 0);
	doupdate();
}

static void push(struct ui *ui, struct view *v)
{
	if (ui->depth == UI_MAX_DEPTH) {
		v->ops->destroy(v);
		return;
	}
	ui->stack[ui->depth++] = v;
	requery(ui, v);
	layout(ui);
}

static void pop(struct ui *ui)
{
	struct view *v;

	if (ui->depth <= 1)
		return;
	v = ui->stack[--ui->depth];
	v->ops->destroy(v);
	refresh_views(ui);
	layout(ui);
}

/* The main views, in Tab's order and numbered as the keys 1 to 6. */
static const struct {
	const char *name;
	struct view *(*create)(struct ui *ui);
	enum ui_action key;
} main_views[] = {
	{ "symbols", table_view_create, UA_VIEW_TABLE },
	{ "timeline", timeline_view_create, UA_VIEW_TIMELINE },
	{ "gauges", gauges_view_create, UA_VIEW_GAUGES },
	{ "tags", tags_view_create, UA_VIEW_TAGS },
	{ "distribution", distribution_view_create, UA_VIEW_DISTRIBUTION },
	{ "tree", tree_view_create, UA_VIEW_TREE },
};
#define NMAIN_VIEWS (int)(sizeof(main_views) / sizeof(main_views[0]))

/* The declared tables a key pushes over any view (declared_view.h). */
static const struct table_source *const secondary_views[] = {
	&thread_source, &process_source, &module_source, &page_source, &diff_source,
};

/*
 * Tab, 1 to 5: another main view at the bottom of the stack (views
 * pushed on the old one go with it).  which: its index, -1 the next.
 */
static void switch_view(struct ui *ui, int which)
{
	int now = 0;

	for (int i = 0; i < NMAIN_VIEWS; i++)
		if (!strcmp(ui->stack[0]->ops->name, main_views[i].name))
			now = i;
	if (which < 0)
		which = (now + 1) % NMAIN_VIEWS;
	if (which == now && ui->depth == 1)
		return;
	while (ui->depth > 1)
		pop(ui);
	ui->stack[0]->ops->destroy(ui->stack[0]);
	ui->stack[0] = main_views[which].create(ui);
	layout(ui);
	refresh_views(ui);
}

/* e: the tables show the shares of another event of -e a,b. */
static void show_next_event(struct ui *ui, int step)
{
	struct session *s = ui->s;
	int n = session_whole(s)->nsampled;

	if (n < 2) {
		snprintf(ui->message, sizeof(ui->message),
			 "e switches events sampled each on its own (-e a,b); "
			 "this session samples one");
		return;
	}
	session_show_event(s, (session_whole(s)->shown_event + step + n) % n);
	snprintf(ui->message, sizeof(ui->message), "SELF%% is now of %s",
		 session_info(s)->sampled[session_whole(s)->shown_event]);
	refresh_views(ui);
}

/*
 * The global keys' actions, for a key no view took (htop's keys[]): each
 * returns false when it quits.
 */
static bool do_quit(struct ui *ui, enum ui_action a)
{
	(void)ui;
	(void)a;
	return false;
}

static bool do_push(struct ui *ui, enum ui_action a)
{
	push(ui, a == UA_HELP ? help_view_create(ui) : a == UA_SETUP ? setup_view_create(ui)
	     : sort_menu_create(ui));
	return true;
}

static bool do_secondary(struct ui *ui, enum ui_action a)
{
	for (size_t i = 0; i < sizeof(secondary_views) / sizeof(secondary_views[0]); i++) {
		const struct table_source *src = secondary_views[i];
		const char *why = src->unavailable ? src->unavailable(ui) : NULL;

		if (src->key != a)
			continue;
		if (why)
			snprintf(ui->message, sizeof(ui->message), "%s", why);
		else
			push(ui, declared_view_create(ui, src));
	}
	return true;
}

static bool do_zero(struct ui *ui, enum ui_action a)
{
	if (a == UA_ZERO) {
		ui->zero_each = !ui->zero_each;
		snprintf(ui->message, sizeof(ui->message), "%s",
			 ui->zero_each ? "z: the table shows each refresh interval alone"
				       : "z off: the table accumulates");
	}
	if (a == UA_ZERO_ONCE || ui->zero_each)
		session_zero(ui->s);
	refresh_views(ui);
	return true;
}

static bool do_switch_view(struct ui *ui, enum ui_action a)
{
	for (int i = 0; i < NMAIN_VIEWS; i++)
		if (main_views[i].key == a)
			switch_view(ui, i);
	if (a == UA_VIEW_NEXT)
		switch_view(ui, -1);
	return true;
}

static bool do_pause(struct ui *ui, enum ui_action a)
{
	(void)a;
	ui->paused = !ui->paused;
	snprintf(ui->message, sizeof(ui->message), "%s", ui->paused
		 ? "paused: the tables hold still, sampling goes on (Z resumes)"
		 : "resumed: the tables catch up");
	if (!ui->paused)
		refresh_interval(ui);
	return true;
}

static bool do_unwind(struct ui *ui, enum ui_action a)
{
	(void)a;
	session_unwind_broken_chains(ui->s, ui->message, sizeof(ui->message));
	return true;
}

static bool do_off_cpu(struct ui *ui, enum ui_action a)
{
	(void)a;
	session_sample_waits(ui->s, ui->message, sizeof(ui->message));
	return true;
}

static bool do_period(struct ui *ui, enum ui_action a)
{
	int step = a == UA_PERIOD_HALVE ? -1 : a == UA_PERIOD_DOUBLE ? 1 : 0;

	/* The observer's views focus the observer; the rest, perf. */
	if (session_has_observer(ui->s) && (!session_has_source(ui->s)
					    || ui->stack[0]->ops->observer))
		session_change_observer_period(ui->s, step, ui->message, sizeof(ui->message));
	else
		session_change_period(ui->s, step, ui->message, sizeof(ui->message));
	return true;
}

static bool do_event(struct ui *ui, enum ui_action a)
{
	show_next_event(ui, a == UA_EVENT_NEXT ? 1 : -1);
	return true;
}

static bool do_back(struct ui *ui, enum ui_action a)
{
	(void)a;
	pop(ui);
	return true;
}

/* The footer asks for another path, saying why the last one failed. */
static void ask_snapshot_path(struct ui *ui, const char *path, int rc)
{
	snprintf(ui->snapshot_question, sizeof(ui->snapshot_question),
		 "%.60s: %s; save to: ", path ? path : "snapshot",
		 st_output_strerror(rc));
	ui->snapshot_path.text[0] = '\0';
	ui->snapshot_path.active = true;
}

/*
 * Begins writing a snapshot to path (NULL: a name of the time, in the
 * working directory) in the background: the footer says it is being
 * written until it ends (snapshot_done), and a second while one is.
 */
static void save_snapshot(struct ui *ui, const char *path)
{
	char msg[512];
	int rc = snapshot_begin(ui->s, path, msg, sizeof(msg));

	if (rc >= 0 || rc == -EBUSY) {
		snprintf(ui->message, sizeof(ui->message), "%.255s", msg);
		/* Its progress shows in the footer once this goes. */
		ui->message_until = rc >= 0 ? st_now_ns() + 1000000000ull : 0;
		return;
	}
	ask_snapshot_path(ui, path, rc);
}

static bool do_snapshot(struct ui *ui, enum ui_action a)
{
	char name[64];

	(void)a;
	snapshot_default_name(name, sizeof(name));
	save_snapshot(ui, name);
	return true;
}

/* The footer's path question takes every key: Enter saves, Esc gives up. */
static void snapshot_path_key(struct ui *ui, int code)
{
	switch (prompt_key(&ui->snapshot_path, code)) {
	case PROMPT_DONE:
		if (ui->snapshot_path.text[0])
			save_snapshot(ui, ui->snapshot_path.text);
		else
			snprintf(ui->message, sizeof(ui->message), "no path: snapshot not saved");
		break;
	case PROMPT_CANCELLED:
		snprintf(ui->message, sizeof(ui->message), "snapshot not saved");
		break;
	default:
		break;
	}
}

static bool do_redraw(struct ui *ui, enum ui_action a)
{
	(void)ui;
	(void)a;
	clearok(curscr, TRUE);
	return true;
}

static const struct {
	enum ui_action action;
	bool (*run)(struct ui *ui, enum ui_action a);
} global_actions[] = {
	{ UA_QUIT, do_quit },
	{ UA_HELP, do_push },
	{ UA_SETUP, do_push },
	{ UA_SORT_MENU, do_push },
	{ UA_ZERO, do_zero },
	{ UA_ZERO_ONCE, do_zero },
	{ UA_VIEW_NEXT, do_switch_view },
	{ UA_VIEW_TABLE, do_switch_view },
	{ UA_VIEW_TIMELINE, do_switch_view },
	{ UA_VIEW_GAUGES, do_switch_view },
	{ UA_VIEW_TAGS, do_switch_view },
	{ UA_VIEW_DISTRIBUTION, do_switch_view },
	{ UA_VIEW_TREE, do_switch_view },
	{ UA_PAUSE, do_pause },
	{ UA_UNWIND_AUTO, do_unwind },
	{ UA_OFF_CPU, do_off_cpu },
	{ UA_PERIOD_HALVE, do_period },
	{ UA_PERIOD_DOUBLE, do_period },
	{ UA_PERIOD_RANDOM, do_period },
	{ UA_EVENT_NEXT, do_event },
	{ UA_EVENT_PREV, do_event },
	{ UA_BACK, do_back },
	{ UA_LEFT, do_back },
	{ UA_SNAPSHOT, do_snapshot },
	{ UA_REDRAW, do_redraw },
	{ UA_THREADS, do_secondary },
	{ UA_PROCESSES, do_secondary },
	{ UA_MODULES, do_secondary },
	{ UA_PAGES, do_secondary },
	{ UA_DIFF, do_secondary },
};

/* The keys no view took, and the terminal's resize. */
static bool global_key(struct ui *ui, int code, enum ui_action a)
{
	if (code == KEY_RESIZE) {
		layout(ui);
		return true;
	}
	for (size_t i = 0; i < sizeof(global_actions) / sizeof(global_actions[0]); i++)
		if (global_actions[i].action == a)
			return global_actions[i].run(ui, a);
	return true;
}

/* A click goes to the view under it, in that window's coordinates. */
static enum view_reaction click(struct ui *ui, struct view *top)
{
	MEVENT ev;
	int y, x;

	if (getmouse(&ev) != OK || !ui->body || !top->ops->click ||
	    !(ev.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_DOUBLE_CLICKED)))
		return VIEW_REDRAW;
	y = ev.y;
	x = ev.x;
	if (!wmouse_trafo(ui->body, &y, &x, FALSE))
		return VIEW_REDRAW;
	return top->ops->click(top, y, x, ev.bstate & BUTTON1_DOUBLE_CLICKED);
}

/* Returns false when the key quits. */
static bool handle_key(struct ui *ui, int code)
{
	struct view *top = top_of(ui);
	enum ui_action a = ui_key_action(top->ops->scope, code);
	enum view_reaction r = VIEW_IGNORED;

	ui->message[0] = '\0';
	ui->message_until = 0;
	/* The path question takes the keys; a resize is still laid out. */
	if (ui->snapshot_path.active && code != KEY_RESIZE) {
		if (code != KEY_MOUSE)
			snapshot_path_key(ui, code);
		return true;
	}
	if (code == KEY_MOUSE)
		r = click(ui, top);
	else if (code != KEY_RESIZE && top->ops->key)
		r = top->ops->key(top, code, a);
	switch (r) {
	case VIEW_IGNORED:
		return global_key(ui, code, a);
	case VIEW_REQUERY:
		refresh_views(ui);
		break;
	case VIEW_PUSH:
		push(ui, top->next);
		top->next = NULL;
		break;
	case VIEW_POP:
		pop(ui);
		break;
	case VIEW_QUIT:
		return false;
	case VIEW_REDRAW:
		break;
	}
	return true;
}

static bool redirected(void)
{
	return !isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO);
}

bool ui_has_terminal(void)
{
	int fd;

	if (!redirected())
		return true;
	fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static int start_terminal(struct ui *ui)
{
	setlocale(LC_ALL, "");
	if (redirected()) {
		/* The target's output stays where the shell sent ours; the UI goes to the terminal. */
		ui->tty = fopen("/dev/tty", "r+e");
		ui->screen = ui->tty ? newterm(NULL, ui->tty, ui->tty) : NULL;
		if (!ui->screen) {
			st_error("cannot draw on /dev/tty (is TERM set?); use --batch");
			if (ui->tty)
				fclose(ui->tty);
			ui->tty = NULL;
			return -ENOTTY;
		}
		set_term(ui->screen);
		snprintf(ui->message, sizeof(ui->message), "standard %s is not a terminal: "
			 "drawing on /dev/tty", isatty(STDOUT_FILENO) ? "input" : "output");
	} else if (!initscr()) {
		st_error("cannot start the terminal UI (is TERM set?); use --batch");
		return -ENOTTY;
	}
	ui->utf8 = draw_locale_is_utf8();
	/*
	 * Said once, for a few seconds: the footer's keys are the first
	 * screen's too, and it keeps naming the file where there is room.
	 */
	if (!ui->message[0] && session_target_output(ui->s)) {
		snprintf(ui->message, sizeof(ui->message), "the command's output goes to %s "
			 "(--target-output)", session_target_output(ui->s));
		ui->message_until = st_now_ns() + 6000000000ull;
	}
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	timeout(100);
	ui_theme_apply(ui);
	mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_DOUBLE_CLICKED, NULL);
	ui->strips[ui->nstrips] = header_view_create(ui);
	ui->strip_lines[ui->nstrips++] = UI_HEADER_LINES;
	ui->stack[ui->depth++] = table_view_create(ui);
	ui_apply_settings(ui);	/* lays the windows out */
	/* --diff: the comparison first; Esc shows A's own table. */
	if (session_diff_with(ui->s))
		push(ui, declared_view_create(ui, &diff_source));
	return 0;
}

static void stop_terminal(struct ui *ui)
{
	free_windows(ui);
	endwin();
	if (ui->screen) {
		delscreen(ui->screen);
		fclose(ui->tty);
	}
	for (; ui->depth > 0; ui->depth--)
		ui->stack[ui->depth - 1]->ops->destroy(ui->stack[ui->depth - 1]);
	for (; ui->nstrips > 0; ui->nstrips--)
		ui->strips[ui->nstrips - 1]->ops->destroy(ui->strips[ui->nstrips - 1]);
}

/*
 * SHIMTOP_UI_STATS=FILE: at the end, how long the loop's work kept keys
 * waiting (from one key read to the next, the wait for a key left out),
 * for the benchmarks: "work_max_ms", "work_over_50ms", "iterations", and
 * the longest of each part: "pump_max_ms" (records into the model),
 * "refresh_max_ms" (the tables), "draw_max_ms", "key_max_ms"; when the
 * longest refresh began ("refresh_max_at_s", from the UI's start), and
 * the longest work while a snapshot was being written
 * ("snapshot_work_max_ms"): a snapshot's cost told from the session's.
 */
struct loop_stats {
	uint64_t work_max, over, iterations;
	uint64_t pump_max, refresh_max, draw_max, key_max;
	uint64_t started, refresh_max_at, snapshot_work_max;
};

static void stretch(uint64_t *max, uint64_t from)
{
	uint64_t d = st_now_ns() - from;

	*max = d > *max ? d : *max;
}

static void write_loop_stats(const struct loop_stats *ls)
{
	const char *path = getenv("SHIMTOP_UI_STATS");
	struct st_output out;

	if (!path || !path[0] || st_output_replace(&out, path, 0) < 0)
		return;
	fprintf(out.f, "work_max_ms %.1f\nwork_over_50ms %llu\niterations %llu\n"
		"pump_max_ms %.1f\nrefresh_max_ms %.1f\ndraw_max_ms %.1f\nkey_max_ms %.1f\n"
		"refresh_max_at_s %.1f\nsnapshot_work_max_ms %.1f\n",
		(double)ls->work_max / 1e6, (unsigned long long)ls->over,
		(unsigned long long)ls->iterations, (double)ls->pump_max / 1e6,
		(double)ls->refresh_max / 1e6, (double)ls->draw_max / 1e6,
		(double)ls->key_max / 1e6, (double)ls->refresh_max_at / 1e9,
		(double)ls->snapshot_work_max / 1e6);
	st_output_finish(&out, 0);
}

/*
 * The screen is drawn every DRAW_NS at least.  The ring is drained when
 * its bell rings, or every 10 ms above 5,000 records a second
 * (session_wait_for): at 100 ms a compile's samples at 10 kHz, each
 * with its 16 KiB copy until the kernel's walker is taught, filled the
 * 16 MiB ring between two pumps (2,000 of 50,000 dropped).
 */
#define DRAW_NS		(100u * 1000 * 1000)

/* The loop's state between turns (run.c turns the loop). */
struct ui_loop {
	struct ui *ui;
	uint64_t next_refresh;
	uint64_t began;		/* the last key read's return */
	uint64_t drawn;		/* the last draw */
	uint64_t pumped;	/* when this turn's pump began */
	struct loop_stats ls;
	bool was_finished, keyed, due;
	bool pumped_since;	/* a pump since the last refresh */
};

static int ui_begin(void *arg)
{
	struct ui_loop *l = arg;
	int status = start_terminal(l->ui);

	if (status < 0)
		return status;
	session_set_interactive(l->ui->s, true);
	l->began = st_now_ns();
	l->ls.started = l->began;
	l->keyed = true;	/* drawn at once */
	return 0;
}

/*
 * A refresh and a pump each take up to UI_PUMP_NS or so: never both
 * before one key read.  The refresh shows what is in.
 */
static bool ui_pump_now(void *arg)
{
	struct ui_loop *l = arg;

	l->pumped = st_now_ns();
	/*
	 * Never two refreshes without a pump between: each may outlast the
	 * delay.  None while the session holds its records for a snapshot:
	 * the tables cannot change, and walking the tree the copy shares
	 * took up to 140 ms where it took 30.
	 */
	l->due = l->pumped >= l->next_refresh && !l->ui->paused && l->pumped_since &&
		 !session_holding(l->ui->s);
	l->pumped_since = !l->due;
	return !l->due;
}

/* Refreshes and draws, then waits for a key: false when it quits. */
static bool ui_turn(void *arg)
{
	struct ui_loop *l = arg;
	struct ui *ui = l->ui;
	uint64_t now = st_now_ns(), at;
	int code;
	/* The end shows the final tables at once, not at the next refresh. */
	bool ended = session_finished(ui->s) && !l->was_finished;

	if (!l->due)
		stretch(&l->ls.pump_max, l->pumped);
	l->was_finished = session_finished(ui->s);
	if ((l->due || ended) && !ui->paused) {
		uint64_t longest = l->ls.refresh_max;

		refresh_interval(ui);
		stretch(&l->ls.refresh_max, now);
		if (l->ls.refresh_max > longest)
			l->ls.refresh_max_at = now - l->ls.started;
		/* From the refresh's end: one slower than the delay (a diff of large trees) still pumps. */
		l->next_refresh = st_now_ns() + (uint64_t)(ui->delay * 1e9);
	}
	/*
	 * Drawn after a key or a refresh at once, else every DRAW_NS:
	 * the loop turns as session_wait_for ends to drain the ring.
	 */
	at = st_now_ns();
	if (l->keyed || l->due || ended || at - l->drawn >= DRAW_NS) {
		draw(ui);
		l->drawn = st_now_ns();
		l->keyed = false;
		stretch(&l->ls.draw_max, at);
	}
	now = st_now_ns() - l->began;
	l->ls.work_max = now > l->ls.work_max ? now : l->ls.work_max;
	if (now > l->ls.snapshot_work_max && snapshot_writing(NULL, 0))
		l->ls.snapshot_work_max = now;
	l->ls.over += now > 50000000u;
	l->ls.iterations++;
	/*
	 * Keys still answer while a replay fills the model: no pause
	 * then, but a short one while a symbol table is being built.
	 * Else until a key, the next draw or refresh, or the ring's bell
	 * (session_wait_for): a live session at a low rate no longer
	 * turns every 10 ms for nothing.
	 */
	if (session_waiting(ui->s)) {
		session_wait_for(ui->s, 5000000u, STDIN_FILENO);
	} else if (!session_behind(ui->s)) {
		uint64_t t = st_now_ns(), until = l->drawn + DRAW_NS;

		/* A refresh put off while records are held would turn the loop at once. */
		if (!ui->paused && !session_holding(ui->s) && l->next_refresh < until)
			until = l->next_refresh;
		session_wait_for(ui->s, until > t ? until - t : 0, STDIN_FILENO);
	}
	timeout(0);
	code = getch();
	l->began = st_now_ns();
	if (code == ERR)
		return true;
	l->keyed = true;
	if (!handle_key(ui, code))
		return false;
	stretch(&l->ls.key_max, l->began);
	return true;
}

/* Said where the keys are: until the next key. */
/* A background snapshot ended: said, or another path asked for. */
static void snapshot_done(void *arg, const struct snapshot_result *r)
{
	struct ui *ui = ((struct ui_loop *)arg)->ui;

	if (r->rc >= 0) {
		snprintf(ui->message, sizeof(ui->message), "%.255s", r->msg);
		ui->message_until = 0;
		return;
	}
	ask_snapshot_path(ui, r->path, r->rc);
}

static void ui_say(void *arg, bool warning, const char *msg)
{
	struct ui *ui = ((struct ui_loop *)arg)->ui;

	(void)warning;
	snprintf(ui->message, sizeof(ui->message), "%s", msg);
	ui->message_until = 0;
}

static void ui_end(void *arg)
{
	struct ui_loop *l = arg;

	write_loop_stats(&l->ls);
	stop_terminal(l->ui);
}

void ui_set_sort(struct ui *ui, enum st_sort_key key)
{
	ui->sort.key[0] = key;
	if (ui->sort.nkeys < 1)
		ui->sort.nkeys = 1;
	ui->settings.sort = key;
}

bool ui_sort_offered(const struct ui *ui, enum st_sort_key key)
{
	if (key == ST_SORT_OFFCPU)
		return session_whole(ui->s)->offcpu_event >= 0;
	if (key == ST_SORT_WALL)
		return model_knows_wall(session_whole(ui->s));
	if (key == ST_SORT_TOTAL)
		return model_knows_through(session_tables(ui->s)) &&
		       session_sort(ui->s)->split == ST_SPLIT_NONE;
	return key != ST_SORT_PROCESS || session_sort(ui->s)->split != ST_SPLIT_NONE;
}

void ui_columns(const struct ui *ui, struct column_set *cs)
{
	static const char *const keys[] = { "samples", "ipc", "module" };
	const char *hide[3];
	size_t n = 0;

	for (size_t i = 0; i < 3; i++)
		if (ui->settings.hidden & (1u << i))
			hide[n++] = keys[i];
	columns_hide(cs, hide, n);
	columns_of_session(cs, ui->s);
}

void ui_apply_settings(struct ui *ui)
{
	ui->strip_lines[0] = ui->settings.brief_header ? 2 : UI_HEADER_LINES;
	layout(ui);
}

void ui_save_settings(struct ui *ui)
{
	char err[256];

	if (!ui->settings_path[0])
		snprintf(ui->message, sizeof(ui->message),
			 "settings not saved: neither XDG_CONFIG_HOME nor HOME is set");
	else if (settings_write(&ui->settings, ui->settings_path, err, sizeof(err)) < 0)
		snprintf(ui->message, sizeof(ui->message), "%.127s", err);
	else
		snprintf(ui->message, sizeof(ui->message), "settings saved to %.100s",
			 ui->settings_path);
}

/* Where the command's output is, once the screen is gone (its footer had no room at 80 columns). */
static void say_output_kept(struct session *s)
{
	struct output_kept k;

	if (!session_target_output_kept(s, &k) || !k.written)
		return;
	if (k.cut)
		st_note("the command's output is in %s: its last %.1f MB of %.1f MB written",
			session_target_output(s), (double)k.kept / (1 << 20),
			(double)k.written / (1 << 20));
	else
		st_note("the command's output is in %s (%.1f MB)", session_target_output(s),
			(double)k.written / (1 << 20));
}

int ui_run(struct session *s)
{
	const struct st_options *o = session_options(s);
	struct ui ui;
	struct ui_loop loop = { .ui = &ui };
	const struct run_front front = { ui_begin, ui_pump_now, ui_turn, ui_say, ui_end, &loop,
					 snapshot_done };
	int status;

	memset(&ui, 0, sizeof(ui));
	ui.s = s;
	ui.theme = loaded_theme;
	ui.settings = loaded_settings;
	snprintf(ui.settings_path, sizeof(ui.settings_path), "%s", loaded_path);
	ui.delay = o->delay_set ? o->delay : loaded_settings.delay;
	ui.settings.delay = ui.delay;
	ui.sort = *session_sort(s);
	/* -s wins over the file; without it, the file's column. */
	if (!o->sort.given && ui_sort_offered(&ui, loaded_settings.sort)) {
		ui.sort.key[0] = loaded_settings.sort;
		ui.invert = loaded_settings.invert;
	}
	ui.settings.sort = ui.sort.key[0];
	status = run_session(s, &front);
	if (status < 0 && !loop.began)
		return status;
	say_output_kept(s);
	if (session_observer_info(s)->failed) {
		st_error("%s; the observer's figures covered the samples before it",
			 session_observer_info(s)->finish_reason);
		return -EIO;
	}
	if (session_finished(s) && session_has_target(s) && session_info(s)->finished)
		st_warn("%s", session_status(s));
	return status;
}
