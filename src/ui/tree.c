/*
 * tree.c - the call tree view (F5, as htop's tree; 6): the calling
 * context tree top-down, a row a function in one context with its total
 * (it and what it calls) and self shares, children hottest first.  Paths
 * holding a tenth of the samples open by themselves; Right or + opens
 * the selected node, Left or - closes it (Left on a closed node goes to
 * its caller), * opens everything under it, Enter toggles.  Search (/)
 * finds a function among the rows shown.  b turns it bottom-up: at the
 * top the functions samples ended in, under each its callers (the tree
 * inverted at each refresh).  The Firefox Profiler's transforms: f
 * focuses on the selected function, m merges it away, r collapses direct
 * recursion, u undoes them all.  % hides cold nodes (under 0.5, 1 or 5%
 * of the samples, in turn).  c shows the tree CallerChaining rebuilt
 * from stack depths instead (built again only when new samples came),
 * its ambiguous nodes marked '?'.
 */
#include "model/cct.h"
#include "model/model.h"
#include "session.h"
#include "ui/draw.h"
#include "ui/list.h"
#include "ui/ui_internal.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TREE_HOT	0.10	/* paths with this share open unless closed by hand */
#define TREE_INDENT_MAX	60	/* columns of indentation at most */

/* The cold-node limits % steps through, percent of the samples. */
static const double cold_limits[] = { 0, 0.5, 1, 5 };

enum { NODE_DEFAULT, NODE_OPEN, NODE_CLOSED };

struct tree_view {
	struct view v;
	struct list list;
	uint8_t *state;		/* per node: NODE_*, as the user left it */
	size_t state_cap;
	uint32_t *rows;		/* the visible nodes, in order */
	size_t nrows, rows_cap;
	bool bottom_up;
	struct cct inverted;	/* bottom_up: the tree shown, inverted */
	struct cct_transform x;
	struct cct transformed;	/* the session's through x, when any */
	unsigned cold;		/* cold_limits[cold]: rows under it hidden */
	size_t hidden;		/* rows it hid at the last refresh */
	bool chained;		/* c: CallerChaining's tree, not the unwound one */
	struct cct rebuilt;	/* chained: built from the session's depths ... */
	uint8_t *marks;		/* ... its ambiguous nodes ... */
	uint64_t rebuilt_from;	/* ... when the session had this many */
	const struct model *seen_model;	/* the session's or a range's */
	double seen_from, seen_to;	/* the range it was */
};

static const struct cct *tree_of(const struct tree_view *t)
{
	return t->bottom_up ? &t->inverted : cct_transform_any(&t->x) ? &t->transformed
	       : t->chained ? &t->rebuilt : &session_tables(t->v.ui->s)->tree;
}

static const char *name_of(const struct tree_view *t, uint32_t node)
{
	return model_frame_name(&t->v.ui->s->model, cct_node(tree_of(t), node)->sym);
}

static uint64_t row_id(void *ctx, size_t i)
{
	return ((const struct tree_view *)ctx)->rows[i];
}

static const char *row_text(void *ctx, size_t i)
{
	const struct tree_view *t = ctx;

	return name_of(t, t->rows[i]);
}

static bool is_open(const struct tree_view *t, uint32_t node)
{
	const struct cct *c = tree_of(t);
	uint8_t s = node < t->state_cap ? t->state[node] : NODE_DEFAULT;

	if (s != NODE_DEFAULT)
		return s == NODE_OPEN;
	return c->samples && (double)cct_node(c, node)->total >= TREE_HOT * (double)c->samples;
}

static void set_state(struct tree_view *t, uint32_t node, uint8_t s)
{
	size_t had = t->state_cap;

	ST_GROW(t->state, t->state_cap, (size_t)node + 1);
	memset(t->state + had, NODE_DEFAULT, t->state_cap - had);
	t->state[node] = s;
}

static const struct cct *sort_tree;

static int hotter(const void *a, const void *b)
{
	uint64_t x = cct_node(sort_tree, *(const uint32_t *)a)->total;
	uint64_t y = cct_node(sort_tree, *(const uint32_t *)b)->total;

	if (x != y)
		return x < y ? 1 : -1;
	return (*(const uint32_t *)a > *(const uint32_t *)b) -
	       (*(const uint32_t *)a < *(const uint32_t *)b);
}

/* node's children, hottest first, appended to rows with theirs if open. */
static void add_children(struct tree_view *t, uint32_t node)
{
	const struct cct *c = tree_of(t);
	size_t n = 0;
	uint32_t *kids;

	for (uint32_t k = cct_node(c, node)->child; k; k = cct_node(c, k)->sibling)
		n++;
	if (!n)
		return;
	kids = st_xcalloc(n, sizeof(*kids));
	n = 0;
	/* Zeroed (z) paths keep their nodes, without samples: not shown. */
	for (uint32_t k = cct_node(c, node)->child; k; k = cct_node(c, k)->sibling) {
		uint64_t total = cct_node(c, k)->total;

		if (total && (double)total * 100.0 >= cold_limits[t->cold] * (double)c->samples)
			kids[n++] = k;
		else if (total)
			t->hidden++;
	}
	sort_tree = c;
	qsort(kids, n, sizeof(*kids), hotter);
	for (size_t i = 0; i < n; i++) {
		ST_GROW(t->rows, t->rows_cap, t->nrows + 1);
		t->rows[t->nrows++] = kids[i];
		if (cct_node(c, kids[i])->child && is_open(t, kids[i]))
			add_children(t, kids[i]);
	}
	free(kids);
}

/* Another tree: its nodes are others, so is what is open and selected. */
static void start_over(struct tree_view *t)
{
	free(t->state);
	t->state = NULL;
	t->state_cap = 0;
	t->list.have_selection = false;
	t->list.selected = t->list.top = 0;
}

static void tree_refresh(struct view *v)
{
	struct tree_view *t = (struct tree_view *)v;
	const struct session *s = v->ui->s;
	const struct model *m = session_tables(s);
	const struct cct *c = &m->tree;

	if (t->chained) {
		/* Built again only when samples came (a build walks every path). */
		const struct callerchain *cc = &s->model.chaining;

		if (!t->rebuilt.nodes || cc->samples != t->rebuilt_from) {
			struct cc_result r;

			cct_free(&t->rebuilt);
			free(t->marks);
			callerchain_build(cc, &r);
			cct_init(&t->rebuilt);
			callerchain_to_cct(&r, &t->rebuilt, &t->marks);
			callerchain_result_free(&r);
			t->rebuilt_from = cc->samples;
		}
		c = &t->rebuilt;
		m = &s->model;
	}

	/* Another range's tree: its node numbers name other paths. */
	if (m != t->seen_model || (s->ranged && (s->range_from != t->seen_from ||
						   s->range_to != t->seen_to)))
		start_over(t);
	t->seen_model = m;
	t->seen_from = s->range_from;
	t->seen_to = s->range_to;
	if (cct_transform_any(&t->x)) {
		cct_free(&t->transformed);
		cct_transform(c, &t->x, &t->transformed);
		c = &t->transformed;
	}
	if (t->bottom_up) {
		cct_free(&t->inverted);
		cct_invert(c, &t->inverted);
	}
	c = tree_of(t);
	t->nrows = 0;
	t->hidden = 0;
	if (c->nodes)
		add_children(t, CCT_ROOT);
	t->list.n = t->nrows;
	list_refreshed(&t->list);
}

/* CallerChaining put samples of two contexts here: shown, not resolved. */
static bool marked(const struct tree_view *t, uint32_t node)
{
	return t->chained && !t->bottom_up && !cct_transform_any(&t->x) && t->marks &&
	       node < t->rebuilt.n && t->marks[node];
}

static void tree_draw(struct view *v, WINDOW *w)
{
	struct tree_view *t = (struct tree_view *)v;
	const struct ui *ui = v->ui;
	const struct cct *c = tree_of(t);
	int lines, cols;
	char line[1024], applied[160] = "";
	bool ipc;

	getmaxyx(w, lines, cols);
	werase(w);
	if (!c->samples) {
		draw_text(w, 0, 0, cols, ui->attr[TH_ROW], t->chained
			  ? "no samples with stack depths (--call-graph dwarf or callerchain); c returns"
			  : "no samples yet (the tree is every sample's call path)");
		return;
	}
	/* What is applied first: a narrow terminal cuts the title's end. */
	if (cct_transform_any(&t->x)) {
		char name[64] = "";

		if (t->x.focus)
			snprintf(name, sizeof(name), "%.60s",
				 model_frame_name(&ui->s->model, t->x.focus_sym));
		snprintf(applied, sizeof(applied), "  [%s%s%s%s%.0u%s%s; u undoes]",
			 t->x.focus ? "focus on " : "", name,
			 t->x.focus && (t->x.nmerged || t->x.collapse_recursion) ? ", " : "",
			 t->x.nmerged ? "merged " : "", t->x.nmerged,
			 t->x.nmerged && t->x.collapse_recursion ? ", " : "",
			 t->x.collapse_recursion ? "recursion collapsed" : "");
	}
	if (t->cold)
		snprintf(applied + strlen(applied), sizeof(applied) - strlen(applied),
			 "  [%zu under %.1f%% hidden; %% shows more]", t->hidden,
			 cold_limits[t->cold]);
	/* IPC where samples had counters: the plain tree carries them. */
	ipc = c->nodes && c->nodes[CCT_ROOT].cycles && c->nodes[CCT_ROOT].instructions;
	snprintf(line, sizeof(line), "%7s %7s%s  %s%s%s  (%llu samples%s%s%s; + - * open, close; b %s)",
		 "TOTAL%", t->bottom_up ? "" : "SELF%", ipc ? "   IPC" : "",
		 t->bottom_up ? "CALLERS, BOTTOM-UP" : "CALL TREE",
		 t->chained ? " REBUILT BY CALLERCHAINING (? ambiguous)" : "", applied,
		 (unsigned long long)c->samples,
		 ui->s->ranged && !t->chained ? " in the range" : "",
		 c->truncated ? ", some chains truncated" : "",
		 c->capped ? ", the tree is full: some stop short" : "",
		 t->bottom_up ? "top-down" : "bottom-up");
	draw_text(w, 0, 0, cols, ui->attr[TH_COLUMNS], line);
	t->list.height = lines - 1;
	list_select(&t->list, (long)t->list.selected);
	for (int r = 0; r < lines - 1; r++) {
		size_t i = t->list.top + (size_t)r;
		const struct cct_node *n;
		char self[16], ipc_text[16];
		int indent;

		if (i >= t->nrows) {
			draw_text(w, 1 + r, 0, cols, ui->attr[TH_ROW], "");
			continue;
		}
		n = cct_node(c, t->rows[i]);
		indent = (int)(n->depth - 1) * 2;
		if (indent > TREE_INDENT_MAX)
			indent = TREE_INDENT_MAX;
		/* Bottom-up, self would be "the path starts here": left out. */
		if (t->bottom_up)
			snprintf(self, sizeof(self), "%7s", "");
		else
			snprintf(self, sizeof(self), "%6.2f%%",
				 100.0 * (double)n->self / (double)c->samples);
		if (!ipc)
			ipc_text[0] = '\0';
		else if (n->cycles && n->instructions)
			snprintf(ipc_text, sizeof(ipc_text), " %5.2f",
				 (double)n->instructions / (double)n->cycles);
		else
			snprintf(ipc_text, sizeof(ipc_text), " %5s", "-");
		snprintf(line, sizeof(line), "%6.2f%% %s%s  %*s%s %s%s",
			 100.0 * (double)n->total / (double)c->samples, self, ipc_text, indent, "",
			 !n->child ? " " : is_open(t, t->rows[i]) ? "-" : "+",
			 marked(t, t->rows[i]) ? "? " : "", name_of(t, t->rows[i]));
		draw_text(w, 1 + r, 0, cols, i == t->list.selected ? ui->attr[TH_SELECTED]
			  : ui->attr[TH_ROW], line);
	}
}

/* Opens node and everything below it. */
static void open_all(struct tree_view *t, uint32_t node)
{
	const struct cct *c = tree_of(t);

	set_state(t, node, NODE_OPEN);
	for (uint32_t k = cct_node(c, node)->child; k; k = cct_node(c, k)->sibling)
		open_all(t, k);
}

static enum view_reaction tree_key(struct view *v, int code, enum ui_action a)
{
	struct tree_view *t = (struct tree_view *)v;
	uint32_t node;

	if (list_key(&t->list, code, a) == LIST_MOVED)
		return VIEW_REDRAW;
	if (code == '%') {
		t->cold = (t->cold + 1) % (sizeof(cold_limits) / sizeof(cold_limits[0]));
		return VIEW_REQUERY;
	}
	if (code == 'b' || code == 'u' || code == 'r' || code == 'c') {
		if (code == 'b')
			t->bottom_up = !t->bottom_up;
		else if (code == 'c')
			t->chained = !t->chained;
		else if (code == 'r')
			t->x.collapse_recursion = !t->x.collapse_recursion;
		else
			memset(&t->x, 0, sizeof(t->x));
		start_over(t);
		return VIEW_REQUERY;
	}
	if (!t->nrows)
		return VIEW_IGNORED;
	node = t->rows[t->list.selected];
	if (code == 'f' || code == 'm') {
		uint32_t sym = cct_node(tree_of(t), node)->sym;

		if (code == 'f') {
			t->x.focus = true;
			t->x.focus_sym = sym;
		} else if (t->x.nmerged < CCT_MERGE_MAX) {
			t->x.merged[t->x.nmerged++] = sym;
		} else {
			snprintf(v->ui->message, sizeof(v->ui->message),
				 "%u functions merged already: u undoes", CCT_MERGE_MAX);
			return VIEW_REDRAW;
		}
		start_over(t);
		return VIEW_REQUERY;
	}
	if (code == '+' || (a == UA_OPEN && code == KEY_RIGHT)) {
		set_state(t, node, NODE_OPEN);
		return VIEW_REQUERY;
	}
	if (code == '*') {
		open_all(t, node);
		return VIEW_REQUERY;
	}
	if (a == UA_OPEN) {
		set_state(t, node, is_open(t, node) ? NODE_CLOSED : NODE_OPEN);
		return VIEW_REQUERY;
	}
	if (code == '-' || code == KEY_LEFT) {
		const struct cct_node *n = cct_node(tree_of(t), node);

		if (n->child && is_open(t, node)) {
			set_state(t, node, NODE_CLOSED);
			return VIEW_REQUERY;
		}
		/* Closed already: to its caller. */
		for (size_t i = 0; n->parent != CCT_ROOT && i < t->nrows; i++)
			if (t->rows[i] == n->parent)
				list_select(&t->list, (long)i);
		return VIEW_REDRAW;
	}
	return VIEW_IGNORED;
}

static void tree_destroy(struct view *v)
{
	struct tree_view *t = (struct tree_view *)v;

	free(t->state);
	free(t->rows);
	cct_free(&t->inverted);
	cct_free(&t->transformed);
	cct_free(&t->rebuilt);
	free(t->marks);
	free(t);
}

static const enum ui_action tree_actions[] = {
	UA_HELP, UA_VIEW_NEXT, UA_SEARCH, UA_OPEN, UA_ZERO, UA_QUIT, UA_NONE,
};

static const struct view_ops tree_ops = {
	.name = "tree",
	.requery = tree_refresh,
	.draw = tree_draw,
	.key = tree_key,
	.destroy = tree_destroy,
	.actions = tree_actions,
};

struct view *tree_view_create(struct ui *ui)
{
	struct tree_view *t = view_new(sizeof(*t), &tree_ops, ui);

	t->list.id = row_id;
	t->list.text = row_text;
	t->list.ctx = t;
	return &t->v;
}
