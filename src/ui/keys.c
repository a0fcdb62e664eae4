/* keys.c - the key table (see keys.h): htop's and perf top's keys. */
#include "ui/keys.h"

#include <curses.h>
#include <stddef.h>

#define CTRL(c) ((c) & 0x1f)

const struct ui_key ui_keys[] = {
	{ UA_HELP, SCOPE_GLOBAL, { KEY_F(1), '?', 'h' }, "F1, `?`, `h`", "Help", "F1",
	  "this help (any key returns)" },
	{ UA_UP, SCOPE_GLOBAL, { KEY_UP, 'k' }, "Up, `k`", NULL, NULL,
	  "move the selection up (it stays on its row across refreshes)" },
	{ UA_DOWN, SCOPE_GLOBAL, { KEY_DOWN, 'j' }, "Down, `j`", NULL, NULL,
	  "move the selection down" },
	{ UA_PAGE_UP, SCOPE_GLOBAL, { KEY_PPAGE }, "PgUp", NULL, NULL, "a page up" },
	{ UA_PAGE_DOWN, SCOPE_GLOBAL, { KEY_NPAGE, ' ' }, "PgDn, Space", NULL, NULL,
	  "a page down" },
	{ UA_FIRST, SCOPE_GLOBAL, { KEY_HOME, 'g' }, "Home, `g`", NULL, NULL, "the first row" },
	{ UA_LAST, SCOPE_GLOBAL, { KEY_END, 'G' }, "End, `G`", "Follow", "End",
	  "the last row (timeline: follow the newest samples again)" },
	{ UA_SORT_MENU, SCOPE_GLOBAL, { KEY_F(6) }, "F6", "SortBy", "F6",
	  "the sort menu: pick a column, Enter sorts by it (a click on a title too)" },
	{ UA_SORT_NEXT, SCOPE_GLOBAL, { '>', '.' }, "`>`, `.`", NULL, NULL,
	  "sort by the next column (SELF%, IPC, MODULE, SYMBOL)" },
	{ UA_SORT_PREV, SCOPE_GLOBAL, { '<', ',' }, "`<`, `,`", NULL, NULL,
	  "sort by the previous column" },
	{ UA_INVERT, SCOPE_GLOBAL, { 'I' }, "`I`", "Invert", "I", "invert the sort order" },
	{ UA_SEARCH, SCOPE_GLOBAL, { KEY_F(3), '/' }, "F3, `/`", "Search", "F3",
	  "search as you type; Enter keeps, Esc cancels" },
	{ UA_SEARCH_NEXT, SCOPE_GLOBAL, { 'n' }, "`n`", NULL, NULL,
	  "the next match (F3 again while searching)" },
	{ UA_FILTER, SCOPE_GLOBAL, { KEY_F(4), '\\' }, "F4, `\\`", "Filter", "F4",
	  "show only rows that match as you type; Esc clears" },
	{ UA_OPEN, SCOPE_GLOBAL, { '\n', KEY_ENTER }, "Enter", "Detail", "Enter",
	  "the selected row's detail: source, disassembly, callers (icicle: zoom)" },
	{ UA_BACK, SCOPE_GLOBAL, { 27, KEY_BACKSPACE }, "Esc, Backspace", "Back",
	  "Esc", "back (in the timeline: clear the range)" },
	{ UA_LEFT, SCOPE_GLOBAL, { KEY_LEFT }, "Left", NULL, NULL,
	  "back; tree: close, or to the caller; timeline: cursor" },
	{ UA_RIGHT, SCOPE_GLOBAL, { KEY_RIGHT }, "Right", NULL, NULL,
	  "the detail; tree: open; timeline: cursor" },
	{ UA_ZERO, SCOPE_GLOBAL, { 'z' }, "`z`", "Zero", "z",
	  "zero the table at every refresh, as perf top's z (again: accumulate)" },
	{ UA_ZERO_ONCE, SCOPE_GLOBAL, { 'x' }, "`x`", NULL, NULL, "zero the totals once" },
	{ UA_VIEW_NEXT, SCOPE_GLOBAL, { '\t' }, "Tab", "View", "Tab",
	  "the next view: symbols, timeline, gauges, tags, distribution, tree" },
	{ UA_VIEW_TABLE, SCOPE_GLOBAL, { '1' }, "`1`", NULL, NULL, "the symbol table" },
	{ UA_VIEW_TIMELINE, SCOPE_GLOBAL, { '2' }, "`2`", NULL, NULL,
	  "the timeline: rates over time, a cursor, a range to look at alone" },
	{ UA_VIEW_GAUGES, SCOPE_GLOBAL, { '3' }, "`3`", NULL, NULL,
	  "the gauges: how far the numbers can be trusted, and what to do" },
	{ UA_VIEW_TAGS, SCOPE_GLOBAL, { '4' }, "`4`", NULL, NULL,
	  "the observer's tags: time, rates (mean, sd), IPC; Enter: distributions" },
	{ UA_VIEW_DISTRIBUTION, SCOPE_GLOBAL, { '5' }, "`5`", NULL, NULL,
	  "the observer's distributions: rates, IPC, CPC, period, gap (Up/Down)" },
	{ UA_VIEW_TREE, SCOPE_GLOBAL, { KEY_F(5), '6' }, "F5, `6`", "Tree", "F5",
	  "the call tree: a function in each calling context, its callees under it" },
	{ UA_PAUSE, SCOPE_GLOBAL, { 'Z' }, "`Z`", NULL, NULL,
	  "pause the tables, as htop's Z: sampling goes on, Z again catches up" },
	{ UA_PERIOD_HALVE, SCOPE_GLOBAL, { '[' }, "`[`", NULL, NULL,
	  "halve the sampling period (-F: double the rate); views 4, 5: the observer's" },
	{ UA_PERIOD_DOUBLE, SCOPE_GLOBAL, { ']' }, "`]`", NULL, NULL,
	  "double the sampling period (half the samples)" },
	{ UA_PERIOD_RANDOM, SCOPE_GLOBAL, { 'R' }, "`R`", NULL, NULL,
	  "period randomization (+/-3%, as DCPI) on or off" },
	{ UA_UNWIND_AUTO, SCOPE_GLOBAL, { 'U' }, "`U`", NULL, NULL,
	  "unwind by DWARF where frame-pointer chains stop early (--call-graph auto)" },
	{ UA_OFF_CPU, SCOPE_GLOBAL, { 'W' }, "`W`", NULL, NULL,
	  "sample where threads wait too (--off-cpu): each switch off a CPU, weighed by its wait" },
	{ UA_EVENT_NEXT, SCOPE_GLOBAL, { 'e' }, "`e`", NULL, NULL,
	  "with -e a,b: shares of the next event sampled (perf report's Tab)" },
	{ UA_EVENT_PREV, SCOPE_GLOBAL, { 'E' }, "`E`", NULL, NULL,
	  "with -e a,b: shares of the previous event sampled" },
	{ UA_SETUP, SCOPE_GLOBAL, { KEY_F(2), 'S' }, "F2, `S`", "Setup", "F2",
	  "setup: columns, theme, refresh, sort, header; saved to shimtoprc" },
	{ UA_THREADS, SCOPE_GLOBAL, { 'H' }, "`H`", "Threads", "H",
	  "the per-thread table (H again or Esc returns)" },
	{ UA_PROCESSES, SCOPE_GLOBAL, { 'P' }, "`P`", "Procs", "P",
	  "the per-process table (P again or Esc returns; H switches)" },
	{ UA_MODULES, SCOPE_GLOBAL, { 'O' }, "`O`", NULL, NULL,
	  "the per-module table: each file's share, symbols, and what named them" },
	{ UA_PAGES, SCOPE_GLOBAL, { 'M' }, "`M`", NULL, NULL,
	  "with IBS: the hot data pages, most cache misses first, and who touches them" },
	{ UA_DIFF, SCOPE_GLOBAL, { 'D' }, "`D`", NULL, NULL,
	  "with --diff: the comparison per symbol, largest change first" },
	{ UA_SNAPSHOT, SCOPE_GLOBAL, { 's' }, "`s`", "Snap", "s",
	  "save a snapshot (shimtop-DATE-TIME.snap, or a path asked for where that "
	  "cannot be written; -i opens it; SIGUSR1 too)" },
	{ UA_REDRAW, SCOPE_GLOBAL, { CTRL('l') }, "Ctrl-L", NULL, NULL, "redraw the screen" },
	{ UA_QUIT, SCOPE_GLOBAL, { 'q', KEY_F(10) }, "`q`, F10", "Quit", "q",
	  "quit (a launched target is ended too)" },

	{ UA_TREE_OPEN, SCOPE_TREE, { '+' }, "`+`", NULL, NULL, "open the selected function" },
	{ UA_TREE_CLOSE, SCOPE_TREE, { '-' }, "`-`", NULL, NULL,
	  "close it (closed: to its caller)" },
	{ UA_TREE_OPEN_ALL, SCOPE_TREE, { '*' }, "`*`", NULL, NULL,
	  "open everything under it" },
	{ UA_TREE_BOTTOM_UP, SCOPE_TREE, { 'b' }, "`b`", "BottomUp", "b",
	  "bottom-up: where samples ended, their callers under them (again: top-down)" },
	{ UA_TREE_FOCUS, SCOPE_TREE, { 'f' }, "`f`", "Focus", "f",
	  "focus on the selected function: its calls alone, from its callers merged" },
	{ UA_TREE_MERGE, SCOPE_TREE, { 'm' }, "`m`", NULL, NULL,
	  "merge the selected function away: its time goes to its callers" },
	{ UA_TREE_RECURSION, SCOPE_TREE, { 'r' }, "`r`", NULL, NULL,
	  "collapse direct recursion (again: undo)" },
	{ UA_TREE_UNDO, SCOPE_TREE, { 'u' }, "`u`", NULL, NULL, "undo every transform" },
	{ UA_TREE_COLD, SCOPE_TREE, { '%' }, "`%`", NULL, NULL,
	  "hide cold nodes: under 0.5, 1 or 5% of the samples, in turn" },
	{ UA_TREE_REBUILT, SCOPE_TREE, { 'c' }, "`c`", NULL, NULL,
	  "CallerChaining's tree from stack depths: beside, alone, or not" },
	{ UA_TREE_PANE, SCOPE_TREE, { 'w' }, "`w`", NULL, NULL,
	  "side by side: the keys act on the other tree" },
	{ UA_TREE_ICICLE, SCOPE_TREE, { 'i' }, "`i`", "Icicle", "i",
	  "an icicle: a flame graph hanging down; arrows move, Enter zooms" },

	{ UA_ZOOM_IN, SCOPE_TIMELINE, { '+', '=' }, "`+`, `=`", NULL, NULL, "zoom in" },
	{ UA_ZOOM_OUT, SCOPE_TIMELINE, { '-' }, "`-`", NULL, NULL, "zoom out" },
	{ UA_FIT, SCOPE_TIMELINE, { 'f' }, "`f`", "Fit", "f", "the whole session on screen" },
	{ UA_RANGE_FROM, SCOPE_TIMELINE, { '(' }, "`(`", "Range", "(",
	  "a range starts at the cursor; ) ends it: every table shows it alone" },
	{ UA_RANGE_TO, SCOPE_TIMELINE, { ')' }, "`)`", NULL, NULL,
	  "the range ends at the cursor" },

	{ UA_DIFF_PATHS, SCOPE_DIFF, { 'p' }, "`p`", "Paths", "p",
	  "calling contexts (folded paths) instead of symbols (again: symbols)" },

	{ UA_HOT_NEXT, SCOPE_DETAIL, { 'J' }, "`J`", "Hot", "J",
	  "the next hot instruction, hottest first (as perf annotate's Tab)" },
	{ UA_HOT_PREV, SCOPE_DETAIL, { 'K' }, "`K`", NULL, NULL,
	  "the previous hot instruction" },
	{ UA_LINKS, SCOPE_DETAIL, { 'c' }, "`c`", "Callers", "c",
	  "its callers and callees as a list: Enter opens one's detail" },
	{ UA_CODE_ALONE, SCOPE_DETAIL, { 'a' }, "`a`", "Summary", "a",
	  "the summary above the code, or the code alone, as perf annotate shows it "
	  "(alone first under 30 lines)" },

	{ UA_PROMPT_DONE, SCOPE_PROMPT, { '\n', KEY_ENTER }, "Enter", NULL, NULL,
	  "keep what was typed (a search stays on its match, a filter stays)" },
	{ UA_PROMPT_CANCEL, SCOPE_PROMPT, { 27 }, "Esc", NULL, NULL,
	  "cancel (a filter is cleared)" },
	{ UA_PROMPT_ERASE, SCOPE_PROMPT, { KEY_BACKSPACE, 127, CTRL('h') }, "Backspace", NULL,
	  NULL, "erase the last character" },
	{ UA_PROMPT_NEXT, SCOPE_PROMPT, { KEY_F(3) }, "F3", NULL, NULL,
	  "the next match" },
};
const unsigned ui_nkeys = sizeof(ui_keys) / sizeof(ui_keys[0]);

static const char *const scope_titles[SCOPE_COUNT] = {
	"Everywhere",
	"In the call tree (F5, 6)",
	"In the timeline (2): Left/Right, PgUp/PgDn move the cursor, Home the start, End follows",
	"In the diff (--diff, D)",
	"In a symbol's detail: Up/Down select code, Enter follows a call or jump, Esc back",
	"In a prompt (/, F3, F4): other keys are typed",
};

const char *ui_scope_title(enum ui_scope scope)
{
	return scope < SCOPE_COUNT ? scope_titles[scope] : "";
}

bool ui_scope_reads_global(enum ui_scope scope)
{
	return scope != SCOPE_PROMPT;
}

enum ui_action ui_key_action(enum ui_scope scope, int code)
{
	for (unsigned i = 0; i < ui_nkeys; i++) {
		if (ui_keys[i].scope != scope &&
		    (ui_keys[i].scope != SCOPE_GLOBAL || !ui_scope_reads_global(scope)))
			continue;
		for (unsigned c = 0; c < UI_KEY_CODES && ui_keys[i].codes[c]; c++)
			if (ui_keys[i].codes[c] == code)
				return ui_keys[i].action;
	}
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
	for (int scope = 0; scope < SCOPE_COUNT; scope++) {
		if (max > n)
			lines[n++] = "";
		if (max > n)
			lines[n++] = scope_titles[scope];
		for (unsigned i = 0; i < ui_nkeys && n < max; i++) {
			char names[64];

			if (ui_keys[i].scope != (enum ui_scope)scope)
				continue;
			snprintf(text[i], sizeof(text[i]), "  %-22s %s",
				 plain(ui_keys[i].names, names, sizeof(names)), ui_keys[i].does);
			lines[n++] = text[i];
		}
	}
	return n;
}

/*
 * Markdown's text as roff: `code` bold, backslashes and minus signs
 * escaped (a hyphen in a key name is a minus), nothing read as a request.
 */
static void roff_text(FILE *out, const char *s)
{
	bool code = false;

	if (*s == '.' || *s == '\'')
		fputs("\\&", out);
	for (; *s; s++) {
		if (*s == '`') {
			fputs(code ? "\\fR" : "\\fB", out);
			code = !code;
		} else if (*s == '\\') {
			fputs("\\e", out);
		} else if (*s == '-') {
			fputs("\\-", out);
		} else {
			fputc(*s, out);
		}
	}
	if (code)
		fputs("\\fR", out);
}

void ui_keys_man(FILE *out)
{
	for (int scope = 0; scope < SCOPE_COUNT; scope++) {
		fputs(".SS ", out);
		roff_text(out, scope_titles[scope]);
		fputc('\n', out);
		for (unsigned i = 0; i < ui_nkeys; i++) {
			if (ui_keys[i].scope != (enum ui_scope)scope)
				continue;
			fputs(".TP\n", out);
			roff_text(out, ui_keys[i].names);
			fputc('\n', out);
			roff_text(out, ui_keys[i].does);
			fputc('\n', out);
		}
	}
}

void ui_keys_markdown(FILE *out)
{
	for (int scope = 0; scope < SCOPE_COUNT; scope++) {
		fprintf(out, "%s**%s**\n\n| key | does |\n|---|---|\n", scope ? "\n" : "",
			scope_titles[scope]);
		for (unsigned i = 0; i < ui_nkeys; i++)
			if (ui_keys[i].scope == (enum ui_scope)scope)
				fprintf(out, "| %s | %s |\n", ui_keys[i].names, ui_keys[i].does);
	}
}
