/*
 * test_ui.c - the UI's pieces that need no terminal: the key table
 * against the README (one source for keys), the browser (selection,
 * paging, search, filter), bars with and without UTF-8, and the shared
 * columns, and the icicle's layout and moves (drawn into a window of a
 * terminal that writes to /dev/null).  `test_ui --markdown` prints the
 * README's key table.
 */
#include "check.h"
#include "model/model.h"
#include "output/columns.h"
#include "output/export.h"
#include "output/tables.h"
#include "session/session_state.h"
#include "util.h"
#include "symbols/symbols.h"
#include "ui/draw.h"
#include "ui/icicle.h"
#include "ui/keys.h"
#include "ui/browser.h"
#include "ui/theme.h"
#include "ui/settings.h"

#include <curses.h>
#include <json-c/json.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <math.h>
#include <string.h>

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)n + 1);
	if (fread(buf, 1, (size_t)n, f) != (size_t)n)
		buf[0] = '\0';
	fclose(f);
	return buf;
}

/*
 * The part of file (from the source tree's top) between its begin and end
 * markers is exactly what generate writes: one source for the keys.
 */
static void check_generated(const char *file, const char *begin, const char *end,
			    void (*generate)(FILE *out))
{
	const char *dir = getenv("TESTS_DIR");
	char path[4096], *text, *gen = NULL, *from, *to;
	size_t gen_len = 0;
	FILE *mem = open_memstream(&gen, &gen_len);

	snprintf(path, sizeof(path), "%s/../%s", dir ? dir : "tests", file);
	text = read_all(path);
	CHECK(text != NULL);
	generate(mem);
	fclose(mem);
	if (!text)
		return;
	from = strstr(text, begin);
	to = strstr(text, end);
	CHECK(from && to && to > from);
	if (from && to) {
		from += strlen(begin);
		*to = '\0';
		if (strcmp(from, gen) != 0)
			fprintf(stderr, "%s's generated part differs; generated:\n%s", file, gen);
		CHECK(strcmp(from, gen) == 0);
	}
	free(text);
	free(gen);
}

/* The README's key tables and the man page's key section. */
static void test_readme_keys(void)
{
	check_generated("README.md", "<!-- keys: begin -->\n", "<!-- keys: end -->",
			ui_keys_markdown);
}

static void test_man_keys(void)
{
	check_generated("doc/shimtop.1.in", ".\\\" keys: begin (generated from the key table, "
			"src/ui/keys.c; test_ui checks)\n", ".\\\" keys: end", ui_keys_man);
}

/* Whether entry k is read in scope (its own, or global). */
static bool read_in(const struct ui_key *k, enum ui_scope scope)
{
	return k->scope == scope || (k->scope == SCOPE_GLOBAL && ui_scope_reads_global(scope));
}

/* A key is bound once where it is read: in each scope with the global keys. */
static void test_key_conflicts(void)
{
	unsigned twice = 0;

	for (int scope = 0; scope < SCOPE_COUNT; scope++)
		for (unsigned i = 0; i < ui_nkeys; i++)
			for (unsigned j = i; j < ui_nkeys; j++) {
				const struct ui_key *a = &ui_keys[i], *b = &ui_keys[j];

				if (!read_in(a, (enum ui_scope)scope) || !read_in(b, (enum ui_scope)scope))
					continue;
				for (unsigned c = 0; c < UI_KEY_CODES && a->codes[c]; c++)
					for (unsigned d = i == j ? c + 1 : 0;
					     d < UI_KEY_CODES && b->codes[d]; d++)
						if (a->codes[c] == b->codes[d]) {
							fprintf(stderr, "key %d bound to %s and %s in %s\n",
								a->codes[c], a->names, b->names,
								ui_scope_title((enum ui_scope)scope));
							twice++;
						}
			}
	CHECK_EQ_U64(twice, 0);
}

/* Each code reads as its action in its scope, each action has one entry, footers name a key. */
static void test_key_table(void)
{
	const char *lines[128];
	unsigned n, globals = 0;

	for (unsigned i = 0; i < ui_nkeys; i++) {
		const struct ui_key *k = &ui_keys[i];

		globals += k->scope == SCOPE_GLOBAL;
		CHECK(ui_key_of(k->action) == k);
		for (unsigned c = 0; c < UI_KEY_CODES && k->codes[c]; c++)
			CHECK(ui_key_action(k->scope, k->codes[c]) == k->action);
		if (k->footer)
			CHECK(k->footer_key && strstr(k->names, k->footer_key));
	}
	for (int a = UA_NONE + 1; a < UA_COUNT; a++)
		CHECK(ui_key_of((enum ui_action)a) != NULL);
	CHECK(ui_key_action(SCOPE_GLOBAL, 'j') == UA_DOWN);	/* once missing from the help */
	CHECK(ui_key_action(SCOPE_GLOBAL, KEY_F(6)) == UA_SORT_MENU);
	CHECK(ui_key_action(SCOPE_GLOBAL, '>') == UA_SORT_NEXT);
	CHECK(ui_key_action(SCOPE_GLOBAL, 'x') == UA_ZERO_ONCE);
	CHECK(ui_key_action(SCOPE_GLOBAL, 'Z') == UA_PAUSE);
	CHECK(ui_key_action(SCOPE_GLOBAL, 'y') == UA_NONE);
	/* A view's keys are its own: f focuses in the tree, fits in the timeline. */
	CHECK(ui_key_action(SCOPE_TREE, 'f') == UA_TREE_FOCUS);
	CHECK(ui_key_action(SCOPE_TIMELINE, 'f') == UA_FIT);
	CHECK(ui_key_action(SCOPE_GLOBAL, 'f') == UA_NONE);
	CHECK(ui_key_action(SCOPE_TIMELINE, 'h') == UA_HELP);	/* h was the cursor there */
	CHECK(ui_key_action(SCOPE_TREE, 'j') == UA_DOWN);
	/* The help has a title, a section a scope (a blank line and its title), a line a key. */
	n = ui_help_lines(lines, 128);
	CHECK(n == ui_nkeys + 1 + 2 * SCOPE_COUNT);
	CHECK(strstr(lines[3 + 2], "Down, j") != NULL);
	CHECK(strstr(lines[3 + globals + 1], "In the call tree") != NULL);
}

/* A list over ids: items[] holds ids, names[] their text. */
static uint64_t items[8];
static const char *names[8];
static size_t nitems;

static void list_items(struct browser *b, const struct browser_item *parent)
{
	(void)parent;
	for (size_t i = 0; i < nitems; i++)
		browser_add(b, items[i], i, false);
}

static bool list_match(struct browser *b, const struct browser_item *it, const char *needle)
{
	(void)b;
	return strcasestr(names[it->ref], needle) != NULL;
}

static int list_write(struct browser *b, const struct browser_item *it, char *line, size_t len,
		      int cols)
{
	(void)b;
	(void)cols;
	snprintf(line, len, "%*s%s", it->depth * 2, "", names[it->ref]);
	return TH_ROW;
}

static const struct browser_ops list_ops = {
	.items = list_items, .write = list_write, .match = list_match,
};

static void set_items(struct browser *b, const uint64_t *ids, size_t n)
{
	static const char *const all[] = { "alpha", "beta", "gamma", "delta",
		"epsilon", "zeta", "eta", "theta" };

	for (size_t i = 0; i < n; i++) {
		items[i] = ids[i];
		names[i] = all[ids[i]];
	}
	nitems = n;
	browser_rebuild(b);
}

static const char *selected_name(const struct browser *b)
{
	return names[browser_selected(b)->ref];
}

static void test_browser_list(void)
{
	struct browser l;
	static const uint64_t first[] = { 0, 1, 2, 3, 4, 5 };
	static const uint64_t reordered[] = { 5, 3, 1, 0, 2, 4 };
	static const uint64_t gone[] = { 5, 1, 0, 2 };

	browser_init(&l, &list_ops, NULL, "item", false);
	l.height = 3;
	set_items(&l, first, 6);
	CHECK(l.selected == 0 && l.have_selection);
	CHECK(browser_key(&l, KEY_DOWN, UA_DOWN) == BROWSER_MOVED);
	browser_key(&l, 'j', UA_DOWN);
	browser_key(&l, 'j', UA_DOWN);
	CHECK_EQ_U64(l.selected, 3);
	CHECK_EQ_U64(l.top, 1);			/* kept visible: rows 1-3 */
	/* The selection follows its item (id 3) when the order changes. */
	set_items(&l, reordered, 6);
	CHECK_EQ_U64(l.selected, 1);
	CHECK_EQ_U64(items[l.selected], 3);
	/* Its item gone: the same position. */
	set_items(&l, gone, 4);
	CHECK_EQ_U64(l.selected, 1);
	/* Paging stops at the ends. */
	browser_key(&l, KEY_NPAGE, UA_PAGE_DOWN);
	CHECK_EQ_U64(l.selected, 3);
	browser_key(&l, KEY_PPAGE, UA_PAGE_UP);
	browser_key(&l, KEY_PPAGE, UA_PAGE_UP);
	CHECK_EQ_U64(l.selected, 0);
	/* Incremental search: "ze" finds zeta; F3 wraps to it again. */
	set_items(&l, first, 6);
	browser_key(&l, '/', UA_SEARCH);
	CHECK(l.search.active);
	browser_key(&l, 'z', ui_key_action(SCOPE_GLOBAL, 'z'));	/* typed, not "zero" */
	browser_key(&l, 'e', UA_NONE);
	CHECK(!strcmp(selected_name(&l), "zeta"));
	browser_key(&l, KEY_F(3), UA_SEARCH);
	CHECK(!strcmp(selected_name(&l), "zeta"));
	browser_key(&l, '\n', UA_OPEN);
	CHECK(!l.search.active && !strcmp(l.search.text, "ze"));
	browser_key(&l, 'n', UA_SEARCH_NEXT);
	CHECK(!l.search_failed);
	/* No match is said, the selection stays. */
	browser_key(&l, '/', UA_SEARCH);
	browser_key(&l, 'q', UA_QUIT);
	CHECK(l.search_failed && !strcmp(selected_name(&l), "zeta"));
	browser_key(&l, 27, UA_BACK);
	CHECK(!l.search.active && !l.search.text[0]);
	/* The filter: typed text rebuilds the rows; Esc clears it. */
	CHECK(browser_key(&l, '\\', UA_FILTER) == BROWSER_MOVED);
	browser_key(&l, 'E', UA_NONE);	/* beta, delta, zeta, ... */
	CHECK_EQ_U64(l.n, 4);
	CHECK(!strcmp(names[l.rows[0].ref], "beta"));
	browser_key(&l, 27, UA_BACK);
	CHECK_EQ_U64(l.n, 6);
	/* Empty lists are safe. */
	set_items(&l, first, 0);
	CHECK(browser_key(&l, KEY_END, UA_LAST) == BROWSER_MOVED);
	CHECK_EQ_U64(l.selected, 0);
	CHECK(browser_selected(&l) == NULL);
	browser_free(&l);
}

/*
 * A tree: node k's parent is parent_of[k] (0 the top); its name names[k].
 * `swap` reverses each node's children, as a re-sort or a transform
 * would reorder them; `shift` moves every ref, as another tree's node
 * numbers: what is open must stay by id.
 */
static const int parent_of[] = { -1, 0, 0, 1, 1, 3, 2, 6 };
static const char *const tree_names[] = { "", "main", "idle", "parse", "emit", "lex",
					  "wait", "deep_inside" };
static bool swap;
static uint64_t shift;

static void tree_items(struct browser *b, const struct browser_item *parent)
{
	int at = parent ? (int)(parent->ref - shift) : 0;
	int n = (int)(sizeof(parent_of) / sizeof(parent_of[0]));

	for (int i = 0; i < n; i++) {
		int k = swap ? n - i : i;
		bool kids = false;

		if (k < 1 || k >= n || parent_of[k] != at)
			continue;
		for (int j = 1; j < n; j++)
			kids |= parent_of[j] == k;
		browser_add(b, browser_child_id(parent ? parent->id : 0, (uint64_t)k),
			    (uint64_t)k + shift, kids);
	}
}

static bool tree_match(struct browser *b, const struct browser_item *it, const char *needle)
{
	(void)b;
	return strcasestr(tree_names[it->ref - shift], needle) != NULL;
}

static const char *tree_selected(const struct browser *b)
{
	return tree_names[browser_selected(b)->ref - shift];
}

static bool main_opens(struct browser *b, const struct browser_item *it)
{
	(void)b;
	return it->ref - shift == 1;	/* main is hot */
}

static void test_browser_tree(void)
{
	static const struct browser_ops ops = {
		.items = tree_items, .write = list_write, .match = tree_match,
		.opens = main_opens,
	};
	struct browser b;

	browser_init(&b, &ops, NULL, "function", true);
	b.height = 10;
	browser_rebuild(&b);
	/* main opens by itself (hot): main, parse, emit, idle. */
	CHECK_EQ_U64(b.n, 4);
	CHECK(!strcmp(tree_selected(&b), "main") && b.rows[0].open);
	/* Search finds a function in a closed subtree and opens its callers. */
	browser_key(&b, '/', UA_SEARCH);
	browser_key(&b, 'd', UA_NONE);
	browser_key(&b, 'e', UA_NONE);
	browser_key(&b, 'e', UA_NONE);
	browser_key(&b, '\n', UA_OPEN);
	CHECK(!strcmp(tree_selected(&b), "deep_inside"));
	CHECK_EQ_U64(b.n, 6);
	CHECK_EQ_U64(browser_selected(&b)->depth, 2);
	/* Left goes to the caller when there is nothing to close, then closes it. */
	browser_key(&b, KEY_LEFT, UA_LEFT);
	CHECK(!strcmp(tree_selected(&b), "wait"));
	browser_key(&b, KEY_LEFT, UA_LEFT);
	CHECK(!strcmp(tree_selected(&b), "wait") && !browser_selected(&b)->open);
	CHECK_EQ_U64(b.n, 5);
	/* Closed by hand, main stays closed though hot; it survives reordering and new refs. */
	browser_select(&b, 0);
	browser_key(&b, '-', UA_TREE_CLOSE);
	CHECK_EQ_U64(b.n, 3);	/* main, idle (opened by the search), wait */
	swap = true;
	shift = 100;
	browser_rebuild(&b);
	CHECK_EQ_U64(b.n, 3);
	CHECK(!strcmp(tree_names[b.rows[2].ref - shift], "main") && !b.rows[2].open);
	CHECK(!strcmp(tree_selected(&b), "main"));	/* by id, not by place */
	/* * opens everything under it. */
	browser_key(&b, '*', UA_TREE_OPEN_ALL);
	CHECK_EQ_U64(b.n, 6);
	browser_key(&b, KEY_RIGHT, UA_RIGHT);
	CHECK(!strcmp(tree_selected(&b), "main"));
	/* A reveal opens a path and selects its end. */
	{
		uint64_t ids[3];

		ids[0] = browser_child_id(0, 2);
		ids[1] = browser_child_id(ids[0], 6);
		ids[2] = browser_child_id(ids[1], 7);
		browser_reveal(&b, ids, 3);
		CHECK(!strcmp(tree_selected(&b), "deep_inside"));
	}
	swap = false;
	shift = 0;
	browser_free(&b);
}

static void test_bars(void)
{
	char buf[256];

	/* 40% of 10 columns: 4 full blocks (3 bytes each in UTF-8). */
	CHECK(!strcmp(draw_bar(buf, sizeof(buf), 0.4, 10, true),
		      "\u2588\u2588\u2588\u2588"));
	/* 45%: four and a half, the half an eighth-block glyph. */
	CHECK(!strcmp(draw_bar(buf, sizeof(buf), 0.45, 10, true),
		      "\u2588\u2588\u2588\u2588\u258c"));
	CHECK(!strcmp(draw_bar(buf, sizeof(buf), 0.45, 10, false), "#####"));
	CHECK(!strcmp(draw_bar(buf, sizeof(buf), 2.0, 3, false), "###"));
	CHECK(!strcmp(draw_bar(buf, sizeof(buf), NAN, 3, true), ""));

	/* Sparklines: eighths of the top (0: the largest value), blank at 0. */
	CHECK(!strcmp(draw_spark(buf, sizeof(buf), (const double[]){ 0, 1, 4, 8 }, 4, 0,
				 false), " _-#"));
	CHECK(!strcmp(draw_spark(buf, sizeof(buf), (const double[]){ 8, -1, 32 }, 3, 16,
				 true), "\u2584 \u2588"));
	CHECK(!strcmp(draw_block(-1, true), " "));
	CHECK(!strcmp(draw_block(3, true), "\u2584"));
	CHECK(!strcmp(draw_block(9, false), "#"));
	/* A short buffer ends at a whole glyph. */
	CHECK(!strcmp(draw_spark(buf, 8, (const double[]){ 1, 1, 1 }, 3, 1, true),
		      "\u2588\u2588"));
}

/* The JSON report's rows come from the same columns: a member a column, whole. */
static void test_columns_json(struct model_row *r)
{
	static struct session s;	/* no -e a,b: no "events" */
	struct json_object *o;

	o = columns_json(&s, ST_SPLIT_NONE, r);
	CHECK(!strcmp(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
		      "{\"self\":50.0,\"samples\":12,\"weight\":12,\"ipc\":null,"
		      "\"named_by\":\"debuginfod\",\"unknown\":false,\"module\":\"a.out\","
		      "\"symbol\":\"main\"}"));
	json_object_put(o);
	/* Split by process: its pid and command; by command: how many processes. */
	r->processes = 3;
	o = columns_json(&s, ST_SPLIT_PID, r);
	CHECK(json_object_get_int(json_object_object_get(o, "pid")) == 4242);
	CHECK(!strcmp(json_object_get_string(json_object_object_get(o, "comm")), "make"));
	CHECK(!json_object_object_get_ex(o, "processes", NULL));
	json_object_put(o);
	o = columns_json(&s, ST_SPLIT_COMM, r);
	CHECK(!json_object_object_get_ex(o, "pid", NULL));
	CHECK(json_object_get_int(json_object_object_get(o, "processes")) == 3);
	json_object_put(o);
}

/* Text wraps at the last word that fits; a word wider than the line is cut. */
static void test_wrap(void)
{
	const char *next;
	const char *text = "a range starts at the cursor; ) ends it";

	CHECK_EQ_U64(draw_wrap(text, 20, &next), 17);	/* "a range starts at" */
	CHECK(!strcmp(next, "the cursor; ) ends it"));
	CHECK_EQ_U64(draw_wrap(next, 80, &next), 21);
	CHECK(*next == '\0');
	CHECK_EQ_U64(draw_wrap("abcdefghij klm", 4, &next), 4);
	CHECK(!strcmp(next, "efghij klm"));
	/* An indent is not a place to break; a line ending at a space keeps its word. */
	CHECK_EQ_U64(draw_wrap("  Enter    keep it", 9, &next), 7);
	CHECK(!strcmp(next, "keep it"));
	CHECK_EQ_U64(draw_wrap("abc def", 3, &next), 3);
	CHECK(!strcmp(next, "def"));
	/* Columns, not bytes: "é" is two bytes, one column. */
	CHECK_EQ_U64(draw_wrap("caf\u00e9 au lait", 6, &next), 5);
	CHECK(!strcmp(next, "au lait"));
}

static void test_columns(void)
{
	struct st_symbol sym = { .id = 7, .name = "main", .module = "a.out",
				 .named_by = NAMED_BY_DEBUGINFOD };
	struct model_row r = { .sym = &sym, .samples = 12, .weight = 12,
			       .self = 50, .ipc = NAN, .waited_under = NAN,
			       .through = NAN, .wall = NAN };
	char line[256];
	struct column_set cs, other;
	static const char *const ipc[] = { "ipc" };
	static const char events[2][64] = { "cpu-clock", "page-faults" };

	column_set_init(&cs);
	column_set_init(&other);
	columns_title(&cs, line, sizeof(line), 0, false, ST_SORT_SELF, false);
	CHECK(!strcmp(line, " SELF%v   SAMPLES    IPC  NAMED BY    MODULE                    SYMBOL"));
	columns_row(&cs, line, sizeof(line), 0, false, &r);
	CHECK(!strcmp(line, " 50.00%        12      -  debuginfod  a.out                     main"));
	/* Which columns show is each table's own: hiding IPC in one leaves the other. */
	columns_hide(&other, ipc, 1);
	columns_title(&other, line, sizeof(line), 0, false, ST_SORT_SELF, false);
	CHECK(!strcmp(line, " SELF%v   SAMPLES  NAMED BY    MODULE                    SYMBOL"));
	columns_title(&cs, line, sizeof(line), 0, false, ST_SORT_SELF, false);
	CHECK(strstr(line, "IPC") != NULL);
	/* -e a,b: a column for each event but the one SELF% is of. */
	columns_events(&other, events, 2, 0);
	columns_title(&other, line, sizeof(line), 0, false, ST_SORT_SELF, false);
	CHECK(!strcmp(line, " SELF%v page-faults   SAMPLES  NAMED BY    MODULE                    SYMBOL"));
	/* What named a row is shown from 120 columns. */
	columns_title(&cs, line, sizeof(line), 119, false, ST_SORT_SELF, false);
	CHECK(!strcmp(line, " SELF%v   SAMPLES    IPC  MODULE                    SYMBOL"));
	/* A 50-column screen drops SAMPLES and MODULE. */
	columns_title(&cs, line, sizeof(line), 50, false, ST_SORT_IPC, true);
	CHECK(!strcmp(line, "  SELF%   IPC^  SYMBOL"));
	/* Rows split by process carry the process (-a, -s pid). */
	r.pid = 4242;
	snprintf(r.comm, sizeof(r.comm), "make");
	columns_title(&cs, line, sizeof(line), 0, true, ST_SORT_PROCESS, false);
	CHECK(!strcmp(line, "  SELF%   SAMPLES    IPC  PID COMMANDv            NAMED BY    MODULE                    SYMBOL"));
	columns_row(&cs, line, sizeof(line), 0, true, &r);
	CHECK(!strcmp(line, " 50.00%        12      -  4242 make               debuginfod  a.out                     main"));
	/* At 80 columns the process and module narrow: the symbol keeps 23 (PID COMMAND) or 28 of them. */
	columns_title(&cs, line, sizeof(line), 80, ST_SPLIT_PID, ST_SORT_SELF, false);
	CHECK(!strcmp(line, " SELF%v   SAMPLES    IPC  PID COMMAND      MODULE        SYMBOL"));
	columns_title(&cs, line, sizeof(line), 80, ST_SPLIT_COMM, ST_SORT_SELF, false);
	CHECK(!strcmp(line, " SELF%v   SAMPLES    IPC  COMMAND     MODULE        SYMBOL"));
	test_columns_json(&r);
}

static const void *thread_at(const void *ctx, size_t i)
{
	return &((const struct model_thread_row *)ctx)[i];
}

/* The thread table's off-CPU columns: hidden where every row reads "-", else seconds. */
static void test_thread_waits(void)
{
	struct model_thread_row t = { .tid = 12, .pid = 10, .comm = "waits", .samples = 7,
				      .share = 100, .ipc = NAN, .on_cpu = NAN, .wall = NAN,
				      .waited = { NAN, NAN, NAN, NAN, NAN } };
	static struct model m;		/* no thread in it: no top symbols */
	struct table_shown shown = { .col = -1 };
	char line[256];
	struct json_object *o;

	shown.hidden = table_empty_columns(&thread_table, 1, thread_at, &t, NULL);
	table_title(&thread_table, &shown, line, sizeof(line));
	CHECK(!strcmp(line, "     TID      PID COMMAND            SAMPLES   SHARE    IPC STATE   TOP SYMBOL"));
	o = table_json(&thread_table, &t, &m);
	/* Without waits, null as IPC without counters. */
	CHECK(json_object_object_get_ex(o, "sleep_s", NULL) && !json_object_object_get(o, "sleep_s") &&
	      !json_object_object_get(o, "wall_s"));
	json_object_put(o);
	t.on_cpu = 1.5;
	t.waited[MODEL_WAIT_SLEEP] = 0.25;
	t.waited[MODEL_WAIT_LOCK] = 0.0004;
	t.waited[MODEL_WAIT_DISK] = 123.4;
	t.waited[MODEL_WAIT_CPU] = 0;
	t.waited[MODEL_WAIT_OTHER] = 0;
	t.wall = 125.1504;
	shown.hidden = table_empty_columns(&thread_table, 1, thread_at, &t, NULL);
	table_title(&thread_table, &shown, line, sizeof(line));
	CHECK(!strcmp(line, "     TID      PID COMMAND            SAMPLES   SHARE    IPC  ON-CPU   SLEEP"
		      "    LOCK    DISK    RUNQ    WALL STATE   TOP SYMBOL"));
	table_row(&thread_table, &shown, &t, NULL, line, sizeof(line));
	CHECK(!strcmp(line, "      12       10 waits                    7 100.00%      -   1.50s   250ms"
		      "   400us    123s       0    125s live    -"));
	o = table_json(&thread_table, &t, &m);
	CHECK(json_object_get_double(json_object_object_get(o, "disk_s")) == 123.4);
	json_object_put(o);
}

/* The process table: declared once, the same title, row and JSON members everywhere. */
static void test_tables(void)
{
	struct st_symbol sym = { .id = 3, .name = "compress_block", .module = "libz.so.1" };
	struct model_process_row r = { .pid = 4242, .comm = "a-fifteen-chars",
				       .samples = 12, .share = 37.5, .ipc = NAN, .threads = 2,
				       .top = &sym };
	char line[256];
	struct json_object *o;

	table_title(&process_table, NULL, line, sizeof(line));
	CHECK(!strcmp(line, "     PID COMMAND          THREADS   SAMPLES   SHARE    IPC TOP SYMBOL"));
	table_row(&process_table, NULL, &r, NULL, line, sizeof(line));
	CHECK(!strcmp(line, "    4242 a-fifteen-chars        2        12  37.50%      - compress_block"));
	o = table_json(&process_table, &r, NULL);
	CHECK(!strcmp(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
		      "{\"pid\":4242,\"comm\":\"a-fifteen-chars\",\"threads\":2,"
		      "\"samples\":12,\"share\":37.5,\"ipc\":null,\"top\":\"compress_block\"}"));
	json_object_put(o);
	test_thread_waits();
}

static const void *process_at(const void *ctx, size_t i)
{
	return &((const struct model_process_row *)ctx)[i];
}

/* A declared table sorts by any titled column, by the cell's value. */
static void test_table_sort(void)
{
	struct st_symbol a = { .name = "zlib_inflate" }, b = { .name = "memcpy" };
	const struct model_process_row rows[] = {
		{ .pid = 30, .comm = "make", .samples = 5, .share = 10, .ipc = 1.5, .top = &a },
		{ .pid = 10, .comm = "cc1", .samples = 40, .share = 80, .ipc = NAN, .top = &b },
		{ .pid = 20, .comm = "ld", .samples = 5, .share = 10, .ipc = 0.5, .top = &a },
	};
	struct table_shown by = { .col = 3 };	/* SAMPLES */
	char line[256];
	size_t *order;

	/* Numbers heaviest first, ties in the model's order. */
	order = table_order(&process_table, &by, 3, process_at, rows, NULL);
	CHECK(order && order[0] == 1 && order[1] == 0 && order[2] == 2);
	free(order);
	by.invert = true;
	order = table_order(&process_table, &by, 3, process_at, rows, NULL);
	CHECK(order && order[0] == 0 && order[1] == 2 && order[2] == 1);
	free(order);
	/* Text from A; a missing IPC last either way. */
	by = (struct table_shown){ .col = 1 };
	order = table_order(&process_table, &by, 3, process_at, rows, NULL);
	CHECK(order && order[0] == 1 && order[1] == 2 && order[2] == 0);
	free(order);
	by = (struct table_shown){ .col = 5, .invert = true };
	order = table_order(&process_table, &by, 3, process_at, rows, NULL);
	CHECK(order && order[0] == 2 && order[1] == 0 && order[2] == 1);
	free(order);
	/* The top symbol (a list in the JSON) sorts by its text. */
	by = (struct table_shown){ .col = 6 };
	order = table_order(&process_table, &by, 3, process_at, rows, NULL);
	CHECK(order && order[0] == 1 && order[1] == 0 && order[2] == 2);
	free(order);
	/* No column: the model's order. */
	by.col = -1;
	CHECK(table_order(&process_table, &by, 3, process_at, rows, NULL) == NULL);
	/* The title marks the column; a click finds it, gaps included. */
	by = (struct table_shown){ .col = 3, .invert = true };
	table_title(&process_table, &by, line, sizeof(line));
	CHECK(!strcmp(line, "     PID COMMAND          THREADS  SAMPLES^   SHARE    IPC TOP SYMBOL"));
	CHECK_EQ_U64(table_column_at(&process_table, NULL, 0), 0);
	CHECK_EQ_U64(table_column_at(&process_table, NULL, 9), 1);
	CHECK_EQ_U64(table_column_at(&process_table, NULL, 34), 3);
	CHECK_EQ_U64(table_column_at(&process_table, NULL, 200), 6);
	/* > and < cycle over the titled columns. */
	CHECK_EQ_U64(table_column_step(&process_table, NULL, -1, 1), 0);
	CHECK_EQ_U64(table_column_step(&process_table, NULL, -1, -1), 6);
	CHECK_EQ_U64(table_column_step(&process_table, NULL, 6, 1), 0);
	/* ... and skip a column the view hides (the diff's IPC without figures). */
	by.hidden = 1u << 5 | 1u << 6;
	CHECK_EQ_U64(table_column_step(&process_table, &by, 4, 1), 0);
	CHECK_EQ_U64(table_column_step(&process_table, &by, 0, -1), 4);
	by.hidden = 0;
}

/* F2's file: written, read back the same; a bad line named, the rest read. */
static void test_settings(void)
{
	char dir[] = "/tmp/shimtop-settings.XXXXXX", path[4200], err[256];
	struct ui_settings a, b;
	FILE *f;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/sub/shimtoprc", dir);
	settings_defaults(&a);
	snprintf(a.theme, sizeof(a.theme), "mono");
	a.delay = 2;
	a.sort = ST_SORT_IPC;
	a.invert = true;
	a.hidden = SETTINGS_HIDE_MODULE | SETTINGS_HIDE_SAMPLES;
	a.brief_header = true;
	/* Another table's columns: the threads' IPC (5), the pages' LAT (6). */
	a.table_hidden[0] = 1u << 5;
	a.table_hidden[3] = 1u << 6;
	CHECK(declared_tables[0] == &thread_table && !strcmp(thread_table.cols[5].key, "ipc"));
	CHECK(declared_tables[3] == &page_table && !strcmp(page_table.cols[6].key, "latency"));
	CHECK(settings_write(&a, path, err, sizeof(err)) == 0);
	settings_defaults(&b);
	CHECK(settings_read(&b, path, err, sizeof(err)) == 0);
	CHECK(!strcmp(b.theme, "mono") && b.delay == 2 && b.sort == ST_SORT_IPC);
	CHECK(b.invert && b.brief_header);
	CHECK(b.hidden == (SETTINGS_HIDE_MODULE | SETTINGS_HIDE_SAMPLES));
	CHECK(!memcmp(a.table_hidden, b.table_hidden, sizeof(a.table_hidden)));
	CHECK(settings_table_hidden(&b, &page_table) == 1u << 6);
	CHECK(settings_table_hidden(&b, &module_table) == 0);
	/* A missing file leaves the defaults. */
	settings_defaults(&b);
	CHECK(settings_read(&b, "/nonexistent/shimtoprc", err, sizeof(err)) == 0);
	CHECK(b.delay == 1 && b.sort == ST_SORT_SELF && !b.hidden);
	/* Bad values are named; good lines after them still count. */
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs("[display]\ndelay = -3\nsort = ipc\n[columns]\nipc = maybe\n"
		      "threads.tid = false\nthreads.ipc = maybe\nthread.ipc = false\n"
		      "modules.module = false\n", f);
		fclose(f);
	}
	settings_defaults(&b);
	CHECK(settings_read(&b, path, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "delay = -3") != NULL);
	CHECK(b.sort == ST_SORT_IPC && b.delay == 1 && !b.hidden);
	/* The first column (the row's name) never hides; a bad value or table is ignored. */
	CHECK(!b.table_hidden[0]);
	CHECK(settings_table_hidden(&b, &module_table) == 1u << 5);
	/* A file that cannot be written says so. */
	CHECK(settings_write(&a, "/proc/shimtop/shimtoprc", err, sizeof(err)) < 0);
	CHECK(strstr(err, "/proc/shimtop") != NULL);
	unlink(path);
	snprintf(path, sizeof(path), "%s/sub", dir);
	rmdir(path);
	rmdir(dir);
}

static const char *icicle_names[] = { "all", "main", "a", "x", "b" };

static const char *icicle_name(void *ctx, uint32_t node)
{
	const struct cct *c = ctx;

	return node == CCT_ROOT ? "all" : icicle_names[cct_node(c, node)->sym];
}

/* Columns from..to-1 of row y of w, as text. */
static const char *row_text_at(WINDOW *w, int y, int from, int to)
{
	static char buf[128];

	mvwinnstr(w, y, from, buf, to - from);
	return buf;
}

/*
 * main took 100 samples: 60 through a (into x), 30 in b, 10 itself.  In
 * 100 columns a is 60 wide (its last a gap), b 30 after it, x under a,
 * nothing under main's own 10.  The moves walk it as the keys do.
 */
static void test_icicle(void)
{
	const uint32_t max[] = { 1, 2, 3 }, mb[] = { 1, 4 }, m[] = { 1 };
	struct cct c;
	struct icicle ic = { CCT_ROOT, CCT_ROOT };
	struct icicle_style style = { icicle_name, &c, A_REVERSE, A_BOLD, A_UNDERLINE, A_NORMAL };
	FILE *null = fopen("/dev/null", "r+");
	SCREEN *scr = null ? newterm("xterm", null, null) : NULL;
	uint32_t main_node, a, b, x;
	WINDOW *w;

	cct_init(&c);
	cct_add_samples(&c, max, 3, false, 60, 60);
	cct_add_samples(&c, mb, 2, false, 30, 30);
	cct_add_samples(&c, m, 1, false, 10, 10);
	cct_settle(&c);
	main_node = cct_find(&c, CCT_ROOT, 1);
	a = cct_find(&c, main_node, 2);
	x = cct_find(&c, a, 3);
	b = cct_find(&c, main_node, 4);
	CHECK(scr != NULL);
	if (scr) {
		w = newwin(6, 100, 0, 0);
		icicle_draw(&ic, &c, w, 0, 0, 6, 100, &style);
		CHECK(!strncmp(row_text_at(w, 0, 0, 4), "all ", 4));
		CHECK(!strncmp(row_text_at(w, 1, 0, 5), "main ", 5));
		CHECK(!strcmp(row_text_at(w, 2, 0, 2), "a "));
		CHECK(!strcmp(row_text_at(w, 2, 59, 61), " b"));
		CHECK(!strcmp(row_text_at(w, 2, 89, 91), "  "));
		CHECK(!strcmp(row_text_at(w, 3, 0, 2), "x "));
		CHECK(!strcmp(row_text_at(w, 3, 60, 62), "  "));
		/* The selected bar has its own look. */
		ic.selected = b;
		icicle_draw(&ic, &c, w, 0, 0, 6, 100, &style);
		CHECK((mvwinch(w, 2, 60) & A_UNDERLINE) && !(mvwinch(w, 2, 0) & A_UNDERLINE));
		/* Zoomed into a: it fills the width, x under it. */
		ic.zoom = ic.selected = a;
		icicle_draw(&ic, &c, w, 0, 0, 6, 100, &style);
		CHECK(!strcmp(row_text_at(w, 0, 0, 2), "a "));
		CHECK(!strcmp(row_text_at(w, 1, 0, 2), "x "));
		CHECK((mvwinch(w, 1, 98) & A_REVERSE) && !(mvwinch(w, 1, 99) & A_REVERSE));
		delwin(w);
		endwin();
		delscreen(scr);
	}
	if (null)
		fclose(null);

	ic = (struct icicle){ CCT_ROOT, CCT_ROOT };
	CHECK(icicle_move(&ic, &c, ICICLE_CALLEE) && ic.selected == main_node);
	CHECK(icicle_move(&ic, &c, ICICLE_CALLEE) && ic.selected == a);
	CHECK(icicle_move(&ic, &c, ICICLE_NEXT) && ic.selected == b);
	CHECK(!icicle_move(&ic, &c, ICICLE_NEXT) && ic.selected == b);
	CHECK(icicle_move(&ic, &c, ICICLE_PREVIOUS) && ic.selected == a);
	CHECK(icicle_move(&ic, &c, ICICLE_ZOOM) && ic.zoom == a && ic.selected == a);
	/* The zoom has no siblings in sight; Enter on it zooms out. */
	CHECK(!icicle_move(&ic, &c, ICICLE_NEXT));
	CHECK(icicle_move(&ic, &c, ICICLE_ZOOM) && ic.zoom == main_node && ic.selected == a);
	CHECK(icicle_move(&ic, &c, ICICLE_ZOOM) && ic.zoom == a);
	/* Up from the zoom leaves it. */
	CHECK(icicle_move(&ic, &c, ICICLE_CALLER) && ic.zoom == main_node && ic.selected == main_node);
	/* Selecting a node outside the zoom zooms out to it. */
	ic.zoom = a;
	icicle_select(&ic, &c, b);
	CHECK(ic.selected == b && ic.zoom == main_node);
	icicle_select(&ic, &c, x);
	CHECK(ic.selected == x && ic.zoom == main_node);
	cct_free(&c);
}

/* CSV fields as RFC 4180 quotes them: C++ names carry commas and quotes. */
static void test_csv_field(void)
{
	static const char *const in[] = {
		"main", "std::map<int, int>::find", "say \"hi\"", "two\nlines", "",
	};
	static const char *const want[] = {
		"main", "\"std::map<int, int>::find\"", "\"say \"\"hi\"\"\"", "\"two\nlines\"", "",
	};

	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		CHECK(f != NULL);
		if (!f)
			continue;
		export_csv_field(f, in[i]);
		fclose(f);
		CHECK(!strcmp(buf, want[i]));
		free(buf);
	}
}

/*
 * The header's period says what samples carry, not what was asked: a
 * second after a change, samples still taken with the old period (past
 * the 3% randomization) read NOT APPLIED with that period.
 */
static void test_period_text(void)
{
	static struct session s;
	char buf[192];

	s.info.period = (struct st_period){ 2000000, ST_PERIOD_NS, true };
	s.info.period_expected = 2000000;
	s.info.period_seen = 1990000;
	s.info.period_asked_ns = 1;
	session_period_text(&s, buf, sizeof(buf));
	CHECK(!strcmp(buf, "2000000 ns +/-3% (500/s a busy thread)"));
	s.info.period_seen = 250000;
	session_period_text(&s, buf, sizeof(buf));
	CHECK(!strcmp(buf, "2000000 ns +/-3% NOT APPLIED: samples still every 250000 ns"));
	/* Within the first second the old period's samples are still arriving. */
	s.info.period_asked_ns = st_now_ns();
	session_period_text(&s, buf, sizeof(buf));
	CHECK(!strstr(buf, "NOT APPLIED"));
	/* -F 62 on a clock: a sample every 16129032 ns; 62 ns is no such thing. */
	s.info.period = (struct st_period){ 62, ST_PERIOD_HZ, false };
	s.info.period_expected = 16129032;
	s.info.period_seen = 62;
	s.info.period_asked_ns = 1;
	session_period_text(&s, buf, sizeof(buf));
	CHECK(!strcmp(buf, "62 Hz NOT APPLIED: samples still every 62 ns"));
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--markdown")) {
		ui_keys_markdown(stdout);
		return 0;
	}
	test_readme_keys();
	test_man_keys();
	test_key_table();
	test_key_conflicts();
	test_browser_list();
	test_browser_tree();
	test_bars();
	test_columns();
	test_wrap();
	test_tables();
	test_table_sort();
	test_settings();
	test_icicle();
	test_csv_field();
	test_period_text();
	return check_done("test_ui");
}
