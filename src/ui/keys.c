/* keys.c - the key table (see keys.h): htop's and perf top's keys. */
#include "ui/keys.h"

#include <curses.h>
#include <stddef.h>

#define CTRL(c) ((c) & 0x1f)

const struct ui_key ui_keys[] = {
	{ UA_HELP, { KEY_F(1), '?', 'h' }, "F1, `?`, `h`", "Help", "F1",
	  "this help (any key returns)" },
	{ UA_UP, { KEY_UP, 'k' }, "Up, `k`", NULL, NULL,
	  "move the selection up (it stays on its row across refreshes)" },
	{ UA_DOWN, { KEY_DOWN, 'j' }, "Down, `j`", NULL, NULL,
	  "move the selection down" },
	{ UA_PAGE_UP, { KEY_PPAGE }, "PgUp", NULL, NULL, "a page up" },
	{ UA_PAGE_DOWN, { KEY_NPAGE, ' ' }, "PgDn, Space", NULL, NULL,
	  "a page down" },
	{ UA_FIRST, { KEY_HOME, 'g' }, "Home, `g`", NULL, NULL, "the first row" },
	{ UA_LAST, { KEY_END, 'G' }, "End, `G`", NULL, NULL, "the last row" },
	{ UA_SORT_MENU, { KEY_F(6) }, "F6", "SortBy", "F6",
	  "the sort menu: pick a column, Enter sorts by it (a click on a title too)" },
	{ UA_SORT_NEXT, { '>', '.' }, "`>`, `.`", NULL, NULL,
	  "sort by the next column (SELF%, IPC, MODULE, SYMBOL)" },
	{ UA_SORT_PREV, { '<', ',' }, "`<`, `,`", NULL, NULL,
	  "sort by the previous column" },
	{ UA_INVERT, { 'I' }, "`I`", "Invert", "I", "invert the sort order" },
	{ UA_SEARCH, { KEY_F(3), '/' }, "F3, `/`", "Search", "F3",
	  "search as you type; Enter keeps, Esc cancels" },
	{ UA_SEARCH_NEXT, { 'n' }, "`n`", NULL, NULL,
	  "the next match (F3 again while searching)" },
	{ UA_FILTER, { KEY_F(4), '\\' }, "F4, `\\`", "Filter", "F4",
	  "show only rows that match as you type; Esc clears" },
	{ UA_OPEN, { '\n', KEY_ENTER, KEY_RIGHT }, "Enter, Right", "Detail", "Enter",
	  "open the selected row's detail" },
	{ UA_BACK, { 27, KEY_LEFT, KEY_BACKSPACE }, "Esc, Left, Backspace", "Back",
	  "Esc", "back to the previous view" },
	{ UA_ZERO, { 'z' }, "`z`", "Zero", "z",
	  "zero the table at every refresh, as perf top's z (again: accumulate)" },
	{ UA_ZERO_ONCE, { 'x' }, "`x`", NULL, NULL, "zero the totals once" },
	{ UA_VIEW_NEXT, { '\t' }, "Tab", "View", "Tab",
	  "the next view: symbols, timeline, gauges, tags, distribution, tree" },
	{ UA_VIEW_TABLE, { '1' }, "`1`", NULL, NULL, "the symbol table" },
	{ UA_VIEW_TIMELINE, { '2' }, "`2`", NULL, NULL,
	  "the timeline: Left/Right cursor, + - zoom, f fit, End follows, ( ) a range" },
	{ UA_VIEW_GAUGES, { '3' }, "`3`", NULL, NULL,
	  "the gauges: how far the numbers can be trusted, and what to do" },
	{ UA_VIEW_TAGS, { '4' }, "`4`", NULL, NULL,
	  "the observer's tags: time, rates (mean, sd), IPC; Enter: distributions" },
	{ UA_VIEW_DISTRIBUTION, { '5' }, "`5`", NULL, NULL,
	  "the observer's distributions: rates, IPC, CPC, period, gap (Up/Down)" },
	{ UA_VIEW_TREE, { KEY_F(5), '6' }, "F5, `6`", "Tree", "F5",
	  "tree: +-* b bottom-up, f m r u transform, % cold, c w rebuilt, i icicle" },
	{ UA_PAUSE, { 'Z' }, "`Z`", NULL, NULL,
	  "pause the tables, as htop's Z: sampling goes on, Z again catches up" },
	{ UA_PERIOD_HALVE, { '[' }, "`[`", NULL, NULL,
	  "halve the sampling period (-F: double the rate); views 4, 5: the observer's" },
	{ UA_PERIOD_DOUBLE, { ']' }, "`]`", NULL, NULL,
	  "double the sampling period (half the samples)" },
	{ UA_PERIOD_RANDOM, { 'R' }, "`R`", NULL, NULL,
	  "period randomization (+/-3%, as DCPI) on or off" },
	{ UA_UNWIND_AUTO, { 'U' }, "`U`", NULL, NULL,
	  "unwind by DWARF where frame-pointer chains stop early (--call-graph auto)" },
	{ UA_EVENT_NEXT, { 'e' }, "`e`", NULL, NULL,
	  "with -e a,b: shares of the next event sampled (perf report's Tab)" },
	{ UA_EVENT_PREV, { 'E' }, "`E`", NULL, NULL,
	  "with -e a,b: shares of the previous event sampled" },
	{ UA_SETUP, { KEY_F(2), 'S' }, "F2, `S`", "Setup", "F2",
	  "setup: columns, theme, refresh, sort, header; saved to shimtoprc" },
	{ UA_THREADS, { 'H' }, "`H`", "Threads", "H",
	  "the per-thread table (H again or Esc returns)" },
	{ UA_PROCESSES, { 'P' }, "`P`", "Procs", "P",
	  "the per-process table (P again or Esc returns; H switches)" },
	{ UA_PAGES, { 'M' }, "`M`", NULL, NULL,
	  "with IBS: the hot data pages, most cache misses first, and who touches them" },
	{ UA_DIFF, { 'D' }, "`D`", NULL, NULL,
	  "with --diff: the comparison per symbol, largest change first (p: paths)" },
	{ UA_SNAPSHOT, { 's' }, "`s`", NULL, NULL,
	  "save a snapshot (shimtop-DATE-TIME.snap; -i opens it; SIGUSR1 too)" },
	{ UA_REDRAW, { CTRL('l') }, "Ctrl-L", NULL, NULL, "redraw the screen" },
	{ UA_QUIT, { 'q', KEY_F(10) }, "`q`, F10", "Quit", "q",
	  "quit (a launched target is ended too)" },
};
const unsigned ui_nkeys = sizeof(ui_keys) / sizeof(ui_keys[0]);

enum ui_action ui_key_action(int code)
{
	for (unsigned i = 0; i < ui_nkeys; i++)
		for (unsigned c = 0; c < UI_KEY_CODES && ui_keys[i].codes[c]; c++)
			if (ui_keys[i].codes[c] == code)
				return ui_keys[i].action;
	return UA_NONE;
}

const struct ui_key *ui_key_of(enum ui_action a)
{
	for (unsigned i = 0; i < ui_nkeys; i++)
		if (ui_keys[i].action == a)
			return &ui_keys[i];
	return NULL;
}

/* Help shows key names without the README's backquotes. */
static const char *plain(const char *names, char *buf, size_t len)
{
	size_t n = 0;

	for (; *names && n + 1 < len; names++)
		if (*names != '`')
			buf[n++] = *names;
	buf[n] = '\0';
	return buf;
}

unsigned ui_help_lines(const char *lines[], unsigned max)
{
	static char text[sizeof(ui_keys) / sizeof(ui_keys[0])][160];
	unsigned n = 0;

	if (max > n)
		lines[n++] = "shimtop keys";
	if (max > n)
		lines[n++] = "";
	for (unsigned i = 0; i < ui_nkeys && n < max; i++) {
		char names[64];

		snprintf(text[i], sizeof(text[i]), "  %-22s %s",
			 plain(ui_keys[i].names, names, sizeof(names)), ui_keys[i].does);
		lines[n++] = text[i];
	}
	return n;
}

void ui_keys_markdown(FILE *out)
{
	fputs("| key | does |\n|---|---|\n", out);
	for (unsigned i = 0; i < ui_nkeys; i++)
		fprintf(out, "| %s | %s |\n", ui_keys[i].names, ui_keys[i].does);
}
