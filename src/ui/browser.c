/* browser.c - the list and tree widget (see browser.h). */
#include "ui/browser.h"
#include "ui/draw.h"
#include "ui/keys.h"
#include "ui/theme.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A search walks at most this many items: a huge tree cannot hang a key. */
#define SEARCH_MAX_ITEMS	(8u << 20)
#define PATH_MAX_DEPTH		4096

enum { STATE_FREE, STATE_OPEN, STATE_CLOSED };

struct browser_state {
	uint64_t id;
	uint8_t state;
};

enum prompt_result prompt_key(struct prompt *p, int code)
{
	size_t len = strlen(p->text);

	switch (ui_key_action(SCOPE_PROMPT, code)) {
	case UA_PROMPT_CANCEL:
		p->text[0] = '\0';
		p->active = false;
		return PROMPT_CANCELLED;
	case UA_PROMPT_DONE:
		p->active = false;
		return PROMPT_DONE;
	case UA_PROMPT_NEXT:
		return PROMPT_NEXT;
	case UA_PROMPT_ERASE:
		if (len)
			p->text[len - 1] = '\0';
		return PROMPT_EDITED;
	default:
		/* Any other printable key is typed. */
		if (code >= 32 && code < 127 && len + 1 < sizeof(p->text)) {
			p->text[len] = (char)code;
			p->text[len + 1] = '\0';
			return PROMPT_EDITED;
		}
		return PROMPT_IGNORED;
	}
}

void browser_init(struct browser *b, const struct browser_ops *ops, void *ctx,
		  const char *noun, bool tree)
{
	memset(b, 0, sizeof(*b));
	b->ops = ops;
	b->ctx = ctx;
	b->noun = noun;
	b->tree = tree;
}

void browser_free(struct browser *b)
{
	free(b->rows);
	free(b->states);
	free(b->pending);
	memset(b, 0, sizeof(*b));
}

void browser_add(struct browser *b, uint64_t id, uint64_t ref, bool children)
{
	ST_GROW(b->pending, b->pending_cap, b->npending + 1);
	b->pending[b->npending++] = (struct browser_item){
		.id = id, .ref = ref, .parent = BROWSER_NONE, .children = children,
	};
}

uint64_t browser_child_id(uint64_t parent, uint64_t key)
{
	uint64_t h = (parent + 0x9e3779b97f4a7c15ull) ^ (key * 0x632be59bd9b4e019ull);

	/* splitmix64's finalizer: a path's id, not its last key's. */
	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
	h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
	return h ^ (h >> 31);
}

uint64_t browser_name_id(const char *a, const char *b)
{
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */

	for (const char *p = a; p && *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	h = (h ^ 0x1f) * 1099511628211ull;
	for (const char *p = b; p && *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	return h;
}

/* The user's open or closed for id, else STATE_FREE. */
static uint8_t state_of(const struct browser *b, uint64_t id)
{
	if (!b->states_cap)
		return STATE_FREE;
	for (size_t i = id & (b->states_cap - 1);; i = (i + 1) & (b->states_cap - 1)) {
		if (b->states[i].state == STATE_FREE)
			return STATE_FREE;
		if (b->states[i].id == id)
			return b->states[i].state;
	}
}

static void put_state(struct browser *b, uint64_t id, uint8_t state);

static void grow_states(struct browser *b)
{
	struct browser_state *old = b->states;
	size_t cap = b->states_cap;

	b->states_cap = cap ? cap * 2 : 64;
	b->states = st_xcalloc(b->states_cap, sizeof(*b->states));
	b->nstates = 0;
	for (size_t i = 0; i < cap; i++)
		if (old[i].state != STATE_FREE)
			put_state(b, old[i].id, old[i].state);
	free(old);
}

static void put_state(struct browser *b, uint64_t id, uint8_t state)
{
	size_t i;

	if (2 * (b->nstates + 1) > b->states_cap)
		grow_states(b);
	for (i = id & (b->states_cap - 1); b->states[i].state != STATE_FREE &&
	     b->states[i].id != id; i = (i + 1) & (b->states_cap - 1))
		;
	if (b->states[i].state == STATE_FREE)
		b->nstates++;
	b->states[i] = (struct browser_state){ .id = id, .state = state };
}

bool browser_is_open(const struct browser *b, const struct browser_item *it)
{
	uint8_t s;

	if (!it->children)
		return false;
	s = state_of(b, it->id);
	if (s != STATE_FREE)
		return s == STATE_OPEN;
	return b->ops->opens && b->ops->opens((struct browser *)b, it);
}

static bool passes_filter(struct browser *b, const struct browser_item *it)
{
	return it->depth || !b->filter.text[0] || b->ops->match(b, it, b->filter.text);
}

/*
 * Places the items under parent (a copy: rows may move) after it, and
 * theirs under the open ones.  items() adds to pending; the ones added
 * for this parent stay at [from, to) while deeper calls add past them.
 */
static void build_under(struct browser *b, const struct browser_item *parent, uint32_t at)
{
	size_t from = b->npending, to;

	b->ops->items(b, parent);
	to = b->npending;
	for (size_t i = from; i < to; i++) {
		struct browser_item it = b->pending[i];

		it.parent = at;
		it.depth = parent ? (uint16_t)(parent->depth + 1) : 0;
		if (!passes_filter(b, &it))
			continue;
		it.open = browser_is_open(b, &it);
		ST_GROW(b->rows, b->rows_cap, b->n + 1);
		b->rows[b->n++] = it;
		if (it.open && it.depth + 1 < PATH_MAX_DEPTH)
			build_under(b, &it, (uint32_t)(b->n - 1));
	}
	b->npending = from;
}

void browser_select(struct browser *b, long index)
{
	if (b->n == 0) {
		b->selected = b->top = 0;
		return;
	}
	if (index < 0)
		index = 0;
	if (index >= (long)b->n)
		index = (long)b->n - 1;
	if (b->pager) {
		/* The "selection" is the top line: the last page ends at the last line. */
		long last = b->height > 0 && b->n > (size_t)b->height ? (long)b->n - b->height : 0;

		if (index > last)
			index = last;
		b->selected = b->top = (size_t)index;
		b->selected_id = b->rows[b->selected].id;
		b->have_selection = true;
		return;
	}
	b->selected = (size_t)index;
	b->selected_id = b->rows[b->selected].id;
	b->have_selection = true;
	if (b->selected < b->top)
		b->top = b->selected;
	if (b->height > 0 && b->selected >= b->top + (size_t)b->height)
		b->top = b->selected - (size_t)b->height + 1;
	/* No blank rows below the last item while earlier ones are hidden. */
	if (b->height > 0 && b->top + (size_t)b->height > b->n)
		b->top = b->n > (size_t)b->height ? b->n - (size_t)b->height : 0;
}

bool browser_select_id(struct browser *b, uint64_t id)
{
	for (size_t i = 0; i < b->n; i++)
		if (b->rows[i].id == id) {
			browser_select(b, (long)i);
			return true;
		}
	return false;
}

void browser_rebuild(struct browser *b)
{
	b->n = 0;
	b->npending = 0;
	b->placing = true;
	build_under(b, NULL, BROWSER_NONE);
	b->placing = false;
	if (b->have_selection && b->chosen && browser_select_id(b, b->selected_id))
		return;
	if (b->n == 0) {
		b->selected = b->top = 0;
		return;
	}
	/* Its item is gone: the same position, or the first row. */
	browser_select(b, b->have_selection && b->selected < b->n ? (long)b->selected : 0);
}

void browser_forget_selection(struct browser *b)
{
	b->have_selection = b->chosen = false;
	b->selected = b->top = 0;
}

const struct browser_item *browser_selected(const struct browser *b)
{
	return b->selected < b->n ? &b->rows[b->selected] : NULL;
}

void browser_reveal(struct browser *b, const uint64_t *ids, size_t n)
{
	if (!n)
		return;
	for (size_t i = 0; i + 1 < n; i++)
		put_state(b, ids[i], STATE_OPEN);
	browser_rebuild(b);
	if (browser_select_id(b, ids[n - 1]))
		b->chosen = true;
}

void browser_set_open(struct browser *b, const struct browser_item *it, bool open)
{
	put_state(b, it->id, open ? STATE_OPEN : STATE_CLOSED);
	browser_rebuild(b);
}

static void open_under(struct browser *b, const struct browser_item *parent, size_t *budget)
{
	size_t from = b->npending, to;

	put_state(b, parent->id, STATE_OPEN);
	b->ops->items(b, parent);
	to = b->npending;
	for (size_t i = from; i < to && *budget; i++) {
		struct browser_item it = b->pending[i];

		it.depth = (uint16_t)(parent->depth + 1);
		--*budget;
		if (it.children && it.depth + 1 < PATH_MAX_DEPTH)
			open_under(b, &it, budget);
	}
	b->npending = from;
}

void browser_open_all(struct browser *b, const struct browser_item *it)
{
	struct browser_item copy = *it;
	size_t budget = SEARCH_MAX_ITEMS;

	if (it->children)
		open_under(b, &copy, &budget);
	browser_rebuild(b);
}

/* A search's walk over every item in order, the path to where it is kept. */
struct search_walk {
	uint64_t from_id;	/* the selection's */
	bool passed;		/* the walk has passed it (or there is none) */
	bool here;		/* the selection itself may match */
	uint64_t path[PATH_MAX_DEPTH];
	size_t depth;
	uint64_t first[PATH_MAX_DEPTH];	/* the first match of all (wrapping round) */
	size_t first_n;
	uint64_t found[PATH_MAX_DEPTH];	/* the first at or after the selection */
	size_t found_n;
	size_t budget;
};

static bool walk(struct browser *b, const struct browser_item *parent, struct search_walk *w)
{
	size_t from = b->npending, to;
	bool done = false;

	b->ops->items(b, parent);
	to = b->npending;
	for (size_t i = from; i < to && !done && w->budget; i++) {
		struct browser_item it = b->pending[i];
		bool self;

		w->budget--;
		it.depth = parent ? (uint16_t)(parent->depth + 1) : 0;
		if (!passes_filter(b, &it))
			continue;
		w->path[w->depth++] = it.id;
		self = it.id == w->from_id;
		if (b->ops->match(b, &it, b->search.text)) {
			if (!w->first_n) {
				memcpy(w->first, w->path, w->depth * sizeof(w->path[0]));
				w->first_n = w->depth;
			}
			if (w->passed || (self && w->here)) {
				memcpy(w->found, w->path, w->depth * sizeof(w->path[0]));
				w->found_n = w->depth;
				done = true;
			}
		}
		if (self)
			w->passed = true;
		if (!done && it.children && w->depth < PATH_MAX_DEPTH)
			done = walk(b, &it, w);
		w->depth--;
	}
	b->npending = from;
	return done;
}

bool browser_search(struct browser *b, bool here)
{
	struct search_walk *w;
	bool found;

	if (!b->search.text[0])
		return false;
	w = st_xcalloc(1, sizeof(*w));
	w->from_id = b->selected_id;
	w->passed = !b->have_selection || !b->n;
	w->here = here;
	w->budget = SEARCH_MAX_ITEMS;
	walk(b, NULL, w);
	found = w->found_n || w->first_n;
	if (found) {
		if (w->found_n)
			browser_reveal(b, w->found, w->found_n);
		else
			browser_reveal(b, w->first, w->first_n);
		b->chosen = true;
	}
	b->search_failed = !found;
	free(w);
	return found;
}

void browser_draw(struct browser *b, WINDOW *w, int y, int x, int width, int lines,
		  bool focused, const chtype *attr)
{
	char line[8192];
	int first = y;

	if (b->ops->title && lines > 0) {
		b->ops->title(b, line, sizeof(line), width);
		draw_text(w, y, x, width, attr[TH_COLUMNS], line);
		if (b->filter.text[0] && !b->filter.active) {
			/* A kept filter stays in sight: rows are missing on purpose. */
			char f[96];
			int fw;

			snprintf(f, sizeof(f), " filter: %.60s ", b->filter.text);
			fw = (int)strlen(f);
			if (fw < width / 2)
				draw_text(w, y, x + width - fw, fw, attr[TH_SEARCH], f);
		}
		first++;
		lines--;
	}
	b->height = lines;
	browser_select(b, (long)b->selected);	/* fits a new height */
	for (int r = 0; r < lines; r++) {
		size_t i = b->top + (size_t)r;
		chtype a;

		if (i >= b->n) {
			draw_text(w, first + r, x, width, attr[TH_ROW], "");
			continue;
		}
		a = attr[b->ops->write(b, &b->rows[i], line, sizeof(line), width)];
		if (i == b->selected && !b->pager) {
			/* Marked for monochrome too where the keys act elsewhere. */
			if (!focused && line[0] == ' ')
				line[0] = '>';
			a = focused ? attr[TH_SELECTED] : attr[TH_SEARCH];
		}
		draw_text(w, first + r, x, width, a, line);
	}
}

bool browser_click(struct browser *b, int r)
{
	if (r < 0 || b->top + (size_t)r >= b->n)
		return false;
	browser_select(b, (long)(b->top + (size_t)r));
	b->chosen = true;
	return true;
}

static enum browser_reaction search_prompt_key(struct browser *b, int code)
{
	switch (prompt_key(&b->search, code)) {
	case PROMPT_EDITED:
		b->search_failed = false;
		browser_search(b, true);
		break;
	case PROMPT_NEXT:
		browser_search(b, false);
		break;
	case PROMPT_CANCELLED:
		b->search_failed = false;
		break;
	default:
		break;	/* the prompt has the keyboard */
	}
	return BROWSER_MOVED;
}

static enum browser_reaction filter_prompt_key(struct browser *b, int code)
{
	enum prompt_result r = prompt_key(&b->filter, code);

	if (r == PROMPT_EDITED || r == PROMPT_CANCELLED)
		browser_rebuild(b);
	return BROWSER_MOVED;
}

/* + opens, * opens all below, - and Left close (closed: to the parent), Right opens. */
static enum browser_reaction tree_key(struct browser *b, enum ui_action a)
{
	const struct browser_item *it = browser_selected(b);

	if (!it || (a != UA_TREE_OPEN && a != UA_TREE_CLOSE && a != UA_TREE_OPEN_ALL &&
		    a != UA_LEFT && a != UA_RIGHT))
		return BROWSER_IGNORED;
	b->chosen = true;
	if (a == UA_TREE_OPEN_ALL) {
		browser_open_all(b, it);
	} else if (a == UA_TREE_OPEN || a == UA_RIGHT) {
		if (it->children)
			browser_set_open(b, it, true);
	} else if (it->open) {
		browser_set_open(b, it, false);
	} else if (it->parent != BROWSER_NONE) {
		browser_select(b, (long)it->parent);
	}
	return BROWSER_MOVED;
}

enum browser_reaction browser_key(struct browser *b, int code, enum ui_action a)
{
	long page = b->height > 0 ? b->height : 1;

	if (b->search.active)
		return search_prompt_key(b, code);
	if (b->filter.active)
		return filter_prompt_key(b, code);
	if (b->tree && tree_key(b, a) == BROWSER_MOVED)
		return BROWSER_MOVED;
	if (a == UA_UP || a == UA_DOWN || a == UA_PAGE_UP || a == UA_PAGE_DOWN ||
	    a == UA_FIRST || a == UA_LAST || a == UA_SEARCH_NEXT)
		b->chosen = true;
	switch (a) {
	case UA_UP:
		browser_select(b, (long)b->selected - 1);
		return BROWSER_MOVED;
	case UA_DOWN:
		browser_select(b, (long)b->selected + 1);
		return BROWSER_MOVED;
	case UA_PAGE_UP:
		browser_select(b, (long)b->selected - page);
		return BROWSER_MOVED;
	case UA_PAGE_DOWN:
		browser_select(b, (long)b->selected + page);
		return BROWSER_MOVED;
	case UA_FIRST:
		browser_select(b, 0);
		return BROWSER_MOVED;
	case UA_LAST:
		browser_select(b, (long)b->n - 1);
		return BROWSER_MOVED;
	case UA_SEARCH:
		b->search.active = true;
		b->search.text[0] = '\0';
		b->search_failed = false;
		return BROWSER_MOVED;
	case UA_SEARCH_NEXT:
		if (!b->search.text[0])
			b->search.active = true;
		else
			browser_search(b, false);
		return BROWSER_MOVED;
	case UA_FILTER:
		b->filter.active = true;
		return BROWSER_MOVED;
	default:
		return BROWSER_IGNORED;
	}
}

bool browser_status(const struct browser *b, char *buf, size_t len)
{
	if (b->search.active) {
		snprintf(buf, len, "Search: %s%s", b->search.text,
			 b->search_failed ? "  (no match)" : "");
		return true;
	}
	if (b->filter.active) {
		snprintf(buf, len, "Filter: %s", b->filter.text);
		return true;
	}
	return false;
}

bool browser_cursor(const struct browser *b, int *y, int *x)
{
	const struct prompt *p = b->search.active ? &b->search
		: b->filter.active ? &b->filter : NULL;

	if (!p)
		return false;
	*y = -1;	/* the footer */
	*x = 8 + (int)strlen(p->text);
	return true;
}
