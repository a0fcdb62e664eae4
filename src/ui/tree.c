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
 * of the samples, in turn).
 *
 * c steps through the tree from the call chains, both trees side by side
 * (the tree CallerChaining rebuilt from stack depths on the right, built
 * again only when new samples came, its ambiguous nodes marked '?'), and
 * the rebuilt tree alone.  Side by side, keys act on one pane (w
 * switches) and the other selects the same path where it has it, so the
 * two reconstructions are compared node by node.  i draws the selected
 * pane as an icicle (a flame graph hanging from its root).
 */
#include "model/callerchain.h"
#include "model/cct.h"
#include "model/model.h"
#include "session.h"
#include "ui/draw.h"
#include "ui/icicle.h"
#include "ui/list.h"
#include "ui/ui_internal.h"
#include "ring/packed.h"
#include "util.h"

#include <pthread.h>
#include <stdatomic.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TREE_HOT	0.10	/* paths with this share open unless closed by hand */
#define TREE_INDENT_MAX	60	/* columns of indentation at most */
#define PANE_MIN_WIDTH	56	/* side by side needs two panes this wide */

/* The cold-node limits % steps through, percent of the samples. */
static const double cold_limits[] = { 0, 0.5, 1, 5 };

enum { NODE_DEFAULT, NODE_OPEN, NODE_CLOSED };

/* What c shows. */
enum tree_layout { SHOW_UNWOUND, SHOW_BOTH, SHOW_REBUILT };

enum { PANE_UNWOUND, PANE_REBUILT };

struct tree_view;

/* One tree on screen: its rows, what is open in it and its selection. */
struct tree_pane {
	struct tree_view *t;
	bool rebuilt;		/* CallerChaining's tree, not the call chains' */
	struct list list;
	uint8_t *state;		/* per node: NODE_*, as the user left it */
	size_t state_cap;
	uint32_t reveal;	/* its callers are open: the other pane's path */
	uint32_t *rows;		/* the visible nodes, in order */
	size_t nrows, rows_cap;
	size_t hidden;		/* rows the cold limit hid at the last refresh */
	const struct cct *shown;	/* the tree the rows index; NULL: not built */
	struct cct transformed;	/* the base through the transforms, when any */
	struct cct inverted;	/* bottom-up: that, inverted */
};

struct tree_view {
	struct view v;
	struct tree_pane pane[2];
	enum tree_layout layout;
	int active;		/* the pane keys act on */
	bool bottom_up;
	struct cct_transform x;
	unsigned cold;		/* cold_limits[cold]: rows under it hidden */
	bool icicle;		/* i: the active pane as an icicle */
	struct icicle ic;
	struct cct rebuilt;	/* CallerChaining's tree of the session's depths ... */
	uint8_t *marks;		/* ... its ambiguous nodes ... */
	uint64_t rebuilt_from;	/* ... when the session had this many */
	struct rebuild_job *job;	/* the next one, being built */
	uint64_t next_job_ns;	/* not started again before this */
	const struct model *seen_model;	/* the session's or a range's */
	double seen_from, seen_to;	/* the range it was */
};

static const char *name_of(const struct tree_pane *p, uint32_t node)
{
	if (node == CCT_ROOT)
		return "all";
	return model_frame_name(&p->t->v.ui->s->model, cct_node(p->shown, node)->sym);
}

static uint64_t row_id(void *ctx, size_t i)
{
	return ((const struct tree_pane *)ctx)->rows[i];
}

static const char *row_text(void *ctx, size_t i)
{
	const struct tree_pane *p = ctx;

	return name_of(p, p->rows[i]);
}

static const char *node_text(void *ctx, uint32_t node)
{
	return name_of(ctx, node);
}

/* Whether both panes fit side by side in cols columns. */
static bool side_by_side(const struct tree_view *t, int cols)
{
	return t->layout == SHOW_BOTH && !t->icicle && cols >= 2 * PANE_MIN_WIDTH + 1;
}

static bool pane_used(const struct tree_view *t, int which)
{
	return t->layout == SHOW_BOTH || (t->layout == SHOW_REBUILT) == (which == PANE_REBUILT);
}

/* Whether node is a caller (at any distance) of p->reveal. */
static bool revealed(const struct tree_pane *p, uint32_t node)
{
	const struct cct *c = p->shown;

	if (!p->reveal || p->reveal >= c->n)
		return false;
	for (uint32_t at = cct_node(c, p->reveal)->parent; at != CCT_ROOT;
	     at = cct_node(c, at)->parent)
		if (at == node)
			return true;
	return false;
}

static bool is_open(const struct tree_pane *p, uint32_t node)
{
	const struct cct *c = p->shown;
	uint8_t s = node < p->state_cap ? p->state[node] : NODE_DEFAULT;

	if (s != NODE_DEFAULT)
		return s == NODE_OPEN;
	return revealed(p, node) ||
	       (c->samples && (double)cct_node(c, node)->total >= TREE_HOT * (double)c->samples);
}

static void set_state(struct tree_pane *p, uint32_t node, uint8_t s)
{
	size_t had = p->state_cap;

	ST_GROW(p->state, p->state_cap, (size_t)node + 1);
	memset(p->state + had, NODE_DEFAULT, p->state_cap - had);
	p->state[node] = s;
}

/* node's children, hottest first, appended to rows with theirs if open. */
static void add_children(struct tree_pane *p, uint32_t node)
{
	const struct cct *c = p->shown;
	double cold = cold_limits[p->t->cold] * (double)c->samples;
	uint32_t *kids;
	size_t n = cct_children_hottest(c, node, &kids);

	for (size_t i = 0; i < n; i++) {
		if ((double)cct_node(c, kids[i])->total * 100.0 < cold) {
			p->hidden++;
			continue;
		}
		ST_GROW(p->rows, p->rows_cap, p->nrows + 1);
		p->rows[p->nrows++] = kids[i];
		if (cct_node(c, kids[i])->child && is_open(p, kids[i]))
			add_children(p, kids[i]);
	}
	free(kids);
}

static void pane_rows(struct tree_pane *p)
{
	p->nrows = 0;
	p->hidden = 0;
	if (p->shown && p->shown->nodes)
		add_children(p, CCT_ROOT);
	p->list.n = p->nrows;
	list_refreshed(&p->list);
}

/* Another tree: its nodes are others, so is what is open and selected. */
static void start_over(struct tree_pane *p)
{
	free(p->state);
	p->state = NULL;
	p->state_cap = 0;
	p->reveal = 0;
	p->list.have_selection = p->list.chosen = false;
	p->list.selected = p->list.top = 0;
}

static void start_all_over(struct tree_view *t)
{
	start_over(&t->pane[PANE_UNWOUND]);
	start_over(&t->pane[PANE_REBUILT]);
	t->ic.zoom = t->ic.selected = CCT_ROOT;
}

/* base through the transforms and b into what p shows. */
static void pane_refresh(struct tree_pane *p, const struct cct *base)
{
	const struct tree_view *t = p->t;

	p->shown = base;
	if (cct_transform_any(&t->x)) {
		cct_free(&p->transformed);
		cct_transform(base, &t->x, &p->transformed);
		p->shown = &p->transformed;
	}
	if (t->bottom_up) {
		cct_free(&p->inverted);
		cct_invert(p->shown, &p->inverted);
		p->shown = &p->inverted;
	}
	pane_rows(p);
}

/*
 * CallerChaining's tree is rebuilt off the UI thread: a build walks every
 * path and took seconds on a compiler's recording, with keys waiting.  The
 * UI thread only packs the session's input (bounded by CC_MAX_PAIRS and
 * CC_MAX_EDGES: milliseconds); a worker reads it back, builds and
 * converts; the pane shows the last tree until the new one is done.
 */
struct rebuild_job {
	pthread_t thread;
	struct packed_out input;	/* callerchain_save's */
	uint32_t *starts;		/* model_start_symbols' */
	size_t nstarts;
	uint64_t from;			/* the session's samples then */
	struct cct tree;
	uint8_t *marks;
	bool ok;
	atomic_bool done;
};

#define REBUILD_EVERY_NS	1000000000ull	/* at most a build a second */

static uint32_t same_symbol(uint32_t id, void *arg)
{
	(void)arg;
	return id;
}

static void *rebuild_main(void *arg)
{
	struct rebuild_job *j = arg;
	struct callerchain cc;
	char err[128];

	callerchain_init(&cc);
	j->ok = callerchain_load(&cc, j->input.p, j->input.n, same_symbol, NULL, err,
				 sizeof(err)) == 0;
	if (j->ok) {
		struct cc_result r;

		callerchain_build(&cc, &r);
		cct_init(&j->tree);
		callerchain_to_cct(&r, &j->tree, &j->marks, j->starts, j->nstarts);
		callerchain_result_free(&r);
	}
	callerchain_free(&cc);
	atomic_store(&j->done, true);
	return NULL;
}

/* Waits for the job, takes its tree if it made one, and frees it. */
static void rebuild_finish(struct tree_view *t)
{
	struct rebuild_job *j = t->job;

	pthread_join(j->thread, NULL);
	if (j->ok) {
		cct_free(&t->rebuilt);
		free(t->marks);
		t->rebuilt = j->tree;
		t->marks = j->marks;
		t->rebuilt_from = j->from;
	}
	free(j->input.p);
	free(j->starts);
	free(j);
	t->job = NULL;
}

/* The tree CallerChaining rebuilt, the newest done; a new build starts when samples came. */
static const struct cct *rebuilt_tree(struct tree_view *t)
{
	const struct callerchain *cc = &t->v.ui->s->model.chaining;
	uint64_t now = st_now_ns();
	struct rebuild_job *j;

	if (t->job && atomic_load(&t->job->done))
		rebuild_finish(t);
	if (t->job || cc->samples == t->rebuilt_from || now < t->next_job_ns)
		return &t->rebuilt;
	j = st_xcalloc(1, sizeof(*j));
	callerchain_save(cc, &j->input);
	/* Names are read here: the worker has symbol ids only. */
	j->nstarts = model_start_symbols(&t->v.ui->s->model, &j->starts);
	j->from = cc->samples;
	t->next_job_ns = now + REBUILD_EVERY_NS;
	if (st_thread_start(&j->thread, rebuild_main, j, "callerchain rebuild") != 0) {
		free(j->input.p);
		free(j->starts);
		free(j);
		return &t->rebuilt;
	}
	t->job = j;
	return &t->rebuilt;
}

/* Opens node's callers in p and selects it. */
static void pane_reveal(struct tree_pane *p, uint32_t node)
{
	p->reveal = node;
	pane_rows(p);
	for (size_t i = 0; i < p->nrows; i++)
		if (p->rows[i] == node)
			list_select(&p->list, (long)i);
	p->list.chosen = true;
}

/*
 * Side by side, the other pane selects the active one's path, as far as
 * it has it.  The trees may start differently (CallerChaining anchors at
 * the outermost frame it knows, not at _start), so the match is from the
 * selected function outwards: the node of that function whose callers
 * agree longest with the selected path, the hotter on a tie.
 */
static void follow(struct tree_view *t)
{
	const struct tree_pane *from = &t->pane[t->active];
	struct tree_pane *to = &t->pane[!t->active];
	const struct cct *c = to->shown;
	uint32_t path[CCT_MAX_DEPTH + 1], best = CCT_ROOT;
	size_t k, best_len = 0;

	if (t->layout != SHOW_BOTH || from->list.selected >= from->nrows || !c || !c->nodes)
		return;
	k = cct_path(from->shown, from->rows[from->list.selected], path);
	for (uint32_t i = 1; k && i < c->n; i++) {
		size_t len = 0;

		if (c->nodes[i].sym != path[k - 1] || !c->nodes[i].total)
			continue;
		for (uint32_t at = i; at != CCT_ROOT && len < k &&
		     c->nodes[at].sym == path[k - 1 - len]; at = c->nodes[at].parent)
			len++;
		if (len > best_len || (len == best_len && c->nodes[i].total > c->nodes[best].total)) {
			best_len = len;
			best = i;
		}
	}
	if (best != CCT_ROOT)
		pane_reveal(to, best);
}

static void tree_refresh(struct view *v)
{
	struct tree_view *t = (struct tree_view *)v;
	const struct session *s = v->ui->s;
	const struct model *m = session_tables(s);

	session_settle(v->ui->s);	/* the totals, here and in the draws and keys after */
	/* Another range's tree: its node numbers name other paths. */
	if (m != t->seen_model || (s->ranged && (s->range_from != t->seen_from ||
						   s->range_to != t->seen_to))) {
		start_over(&t->pane[PANE_UNWOUND]);
		if (t->active == PANE_UNWOUND)
			t->ic.zoom = t->ic.selected = CCT_ROOT;
	}
	t->seen_model = m;
	t->seen_from = s->range_from;
	t->seen_to = s->range_to;
	for (int i = 0; i < 2; i++) {
		if (!pane_used(t, i))
			continue;
		pane_refresh(&t->pane[i], i == PANE_REBUILT ? rebuilt_tree(t) : &m->tree);
	}
	follow(t);
}

/* CallerChaining put samples of two contexts here: shown, not resolved. */
static bool marked(const struct tree_pane *p, uint32_t node)
{
	const struct tree_view *t = p->t;

	return p->rebuilt && !t->bottom_up && !cct_transform_any(&t->x) && t->marks &&
	       node < t->rebuilt.n && t->marks[node];
}

/* What is applied to the trees, for the title: a narrow terminal cuts its end. */
static void describe_applied(const struct tree_view *t, const struct tree_pane *p, char *out,
			     size_t len)
{
	const struct model *m = &t->v.ui->s->model;

	out[0] = '\0';
	if (cct_transform_any(&t->x)) {
		char name[64] = "";

		if (t->x.focus)
			snprintf(name, sizeof(name), "%.60s", model_frame_name(m, t->x.focus_sym));
		snprintf(out, len, "  [%s%s%s%s%.0u%s%s; u undoes]",
			 t->x.focus ? "focus on " : "", name,
			 t->x.focus && (t->x.nmerged || t->x.collapse_recursion) ? ", " : "",
			 t->x.nmerged ? "merged " : "", t->x.nmerged,
			 t->x.nmerged && t->x.collapse_recursion ? ", " : "",
			 t->x.collapse_recursion ? "recursion collapsed" : "");
	}
	if (t->cold)
		snprintf(out + strlen(out), len - strlen(out),
			 "  [%zu under %.1f%% hidden; %% shows more]", p->hidden,
			 cold_limits[t->cold]);
}

static bool has_ipc(const struct cct *c)
{
	return c->nodes && c->nodes[CCT_ROOT].cycles && c->nodes[CCT_ROOT].instructions;
}

/* One pane's title and rows in columns x .. x+width-1. */
static void draw_pane(struct tree_pane *p, WINDOW *w, int x, int width, int lines, bool keys)
{
	const struct tree_view *t = p->t;
	const struct ui *ui = t->v.ui;
	const struct cct *c = p->shown;
	char line[1024], applied[160];
	bool ipc;

	if (!c)
		return;
	ipc = has_ipc(c);
	if (!c->samples) {
		draw_text(w, 0, x, width, ui->attr[TH_ROW], !p->rebuilt
			  ? "no samples yet (the tree is every sample's call path)"
			  : t->job ? "CallerChaining is rebuilding the tree from the stack depths..."
			  : ui->s->is_perf_data
			  ? "no stack depths: perf.data holds none (perf records no stack base); c switches"
			  : "no samples with stack depths (--call-graph dwarf or callerchain); c switches");
		return;
	}
	describe_applied(t, p, applied, sizeof(applied));
	snprintf(line, sizeof(line), "%7s %7s%s  %s%s%s  (%llu samples%s%s%s; + - * open, close; b %s%s)",
		 "TOTAL%", t->bottom_up ? "" : "SELF%", ipc ? "   IPC" : "",
		 t->bottom_up ? "CALLERS, BOTTOM-UP" : "CALL TREE",
		 p->rebuilt ? " REBUILT BY CALLERCHAINING (? ambiguous)" : "", applied,
		 (unsigned long long)c->samples,
		 ui->s->ranged && !p->rebuilt ? " in the range" : "",
		 c->truncated ? ", some chains truncated" : "",
		 c->capped ? ", the tree is full: some stop short" : "",
		 t->bottom_up ? "top-down" : "bottom-up",
		 t->layout == SHOW_BOTH ? "; w the other tree" : "");
	draw_text(w, 0, x, width, ui->attr[TH_COLUMNS], line);
	p->list.height = lines - 1;
	list_select(&p->list, (long)p->list.selected);
	for (int r = 0; r < lines - 1; r++) {
		size_t i = p->list.top + (size_t)r;
		const struct cct_node *n;
		char self[16], ipc_text[16];
		int indent;

		if (i >= p->nrows) {
			draw_text(w, 1 + r, x, width, ui->attr[TH_ROW], "");
			continue;
		}
		n = cct_node(c, p->rows[i]);
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
			 !n->child ? " " : is_open(p, p->rows[i]) ? "-" : "+",
			 marked(p, p->rows[i]) ? "? " : "", name_of(p, p->rows[i]));
		/* The pane keys do not act on shows its selection dimmed, and marked for monochrome. */
		if (!keys && i == p->list.selected && line[0] == ' ')
			line[0] = '>';
		draw_text(w, 1 + r, x, width, i != p->list.selected ? ui->attr[TH_ROW]
			  : keys ? ui->attr[TH_SELECTED] : ui->attr[TH_SEARCH], line);
	}
}

static void draw_icicle(struct tree_view *t, WINDOW *w, int lines, int cols)
{
	const struct ui *ui = t->v.ui;
	struct tree_pane *p = &t->pane[t->active];
	const struct cct *c = p->shown;
	const struct cct_node *sel;
	const struct icicle_style style = {
		.name = node_text, .ctx = p, .bar = ui->attr[TH_COLUMNS],
		.unknown = ui->attr[TH_UNKNOWN], .selected = ui->attr[TH_SELECTED],
		.gap = ui->attr[TH_ROW],
	};
	char line[1024];

	if (!c || !c->samples) {
		draw_text(w, 0, 0, cols, ui->attr[TH_ROW], "no samples yet; i returns to the tree");
		return;
	}
	icicle_select(&t->ic, c, t->ic.selected);
	sel = cct_node(c, t->ic.selected);
	snprintf(line, sizeof(line), "ICICLE%s%s  %s: total %.2f%% self %.2f%%  (arrows move, Enter zooms%s; i the tree)",
		 p->rebuilt ? " OF THE REBUILT TREE" : "", t->bottom_up ? ", BOTTOM-UP" : "",
		 name_of(p, t->ic.selected), 100.0 * (double)sel->total / (double)c->samples,
		 100.0 * (double)sel->self / (double)c->samples,
		 t->ic.zoom != CCT_ROOT ? ", on the top bar out" : "");
	draw_text(w, 0, 0, cols, ui->attr[TH_COLUMNS], line);
	icicle_draw(&t->ic, c, w, 1, 0, lines - 1, cols, &style);
}

static void tree_draw(struct view *v, WINDOW *w)
{
	struct tree_view *t = (struct tree_view *)v;
	int lines, cols, half;

	session_settle(v->ui->s);	/* samples pumped since the refresh: the shown tree's totals */
	getmaxyx(w, lines, cols);
	werase(w);
	if (t->icicle) {
		draw_icicle(t, w, lines, cols);
		return;
	}
	if (!side_by_side(t, cols)) {
		draw_pane(&t->pane[t->active], w, 0, cols, lines, true);
		return;
	}
	half = (cols - 1) / 2;
	draw_pane(&t->pane[PANE_UNWOUND], w, 0, half, lines, t->active == PANE_UNWOUND);
	for (int y = 0; y < lines; y++)
		mvwaddch(w, y, half, '|' | v->ui->attr[TH_ROW]);
	draw_pane(&t->pane[PANE_REBUILT], w, half + 1, cols - half - 1, lines,
		  t->active == PANE_REBUILT);
}

/* Opens node and everything below it. */
static void open_all(struct tree_pane *p, uint32_t node)
{
	const struct cct *c = p->shown;

	set_state(p, node, NODE_OPEN);
	for (uint32_t k = cct_node(c, node)->child; k; k = cct_node(c, k)->sibling)
		open_all(p, k);
}

static enum view_reaction icicle_key(struct tree_view *t, int code)
{
	struct tree_pane *p = &t->pane[t->active];
	static const struct {
		int code;
		enum icicle_move how;
	} moves[] = {
		{ KEY_UP, ICICLE_CALLER }, { 'k', ICICLE_CALLER },
		{ KEY_DOWN, ICICLE_CALLEE }, { 'j', ICICLE_CALLEE },
		{ KEY_LEFT, ICICLE_PREVIOUS }, { KEY_RIGHT, ICICLE_NEXT },
		{ '\n', ICICLE_ZOOM }, { KEY_ENTER, ICICLE_ZOOM },
	};

	if (code == 'i') {
		t->icicle = false;
		pane_reveal(p, t->ic.selected);
		return VIEW_REQUERY;
	}
	for (size_t i = 0; i < sizeof(moves) / sizeof(moves[0]); i++)
		if (moves[i].code == code) {
			if (p->shown)
				icicle_move(&t->ic, p->shown, moves[i].how);
			return VIEW_REDRAW;
		}
	return VIEW_IGNORED;
}

/* Keys that change what the trees are: b c w u r %. */
static enum view_reaction layout_key(struct tree_view *t, int code)
{
	switch (code) {
	case '%':
		t->cold = (t->cold + 1) % (sizeof(cold_limits) / sizeof(cold_limits[0]));
		return VIEW_REQUERY;
	case 'c':
		t->layout = (t->layout + 1) % (SHOW_REBUILT + 1);
		t->active = t->layout == SHOW_REBUILT ? PANE_REBUILT : PANE_UNWOUND;
		/* The icicle's nodes were the other tree's. */
		t->ic.zoom = t->ic.selected = CCT_ROOT;
		return VIEW_REQUERY;
	case 'w':
		if (t->layout != SHOW_BOTH)
			return VIEW_IGNORED;
		t->active = !t->active;
		t->pane[t->active].reveal = 0;
		t->ic.zoom = t->ic.selected = CCT_ROOT;
		return VIEW_REQUERY;
	case 'b':
		t->bottom_up = !t->bottom_up;
		break;
	case 'r':
		t->x.collapse_recursion = !t->x.collapse_recursion;
		break;
	case 'u':
		memset(&t->x, 0, sizeof(t->x));
		break;
	default:
		return VIEW_IGNORED;
	}
	start_all_over(t);
	return VIEW_REQUERY;
}

static enum view_reaction tree_key(struct view *v, int code, enum ui_action a)
{
	struct tree_view *t = (struct tree_view *)v;
	struct tree_pane *p = &t->pane[t->active];
	enum view_reaction r;
	uint32_t node;

	/* A prompt (search) takes every key first; the icicle has none. */
	if (t->icicle && (r = icicle_key(t, code)) != VIEW_IGNORED)
		return r;
	if (!t->icicle && list_key(&p->list, code, a) == LIST_MOVED) {
		follow(t);
		return VIEW_REDRAW;
	}
	if ((r = layout_key(t, code)) != VIEW_IGNORED)
		return r;
	if (!p->nrows)
		return VIEW_IGNORED;
	node = t->icicle ? t->ic.selected : p->rows[p->list.selected];
	if (code == 'i') {
		t->icicle = true;
		icicle_select(&t->ic, p->shown, node);
		return VIEW_REDRAW;
	}
	if ((code == 'f' || code == 'm') && node != CCT_ROOT) {
		uint32_t sym = cct_node(p->shown, node)->sym;

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
		start_all_over(t);
		return VIEW_REQUERY;
	}
	if (t->icicle)
		return VIEW_IGNORED;
	if (code == '+' || (a == UA_OPEN && code == KEY_RIGHT)) {
		set_state(p, node, NODE_OPEN);
		return VIEW_REQUERY;
	}
	if (code == '*') {
		open_all(p, node);
		return VIEW_REQUERY;
	}
	if (a == UA_OPEN) {
		set_state(p, node, is_open(p, node) ? NODE_CLOSED : NODE_OPEN);
		return VIEW_REQUERY;
	}
	if (code == '-' || code == KEY_LEFT) {
		const struct cct_node *n = cct_node(p->shown, node);

		if (n->child && is_open(p, node)) {
			set_state(p, node, NODE_CLOSED);
			return VIEW_REQUERY;
		}
		/* Closed already: to its caller. */
		for (size_t i = 0; n->parent != CCT_ROOT && i < p->nrows; i++)
			if (p->rows[i] == n->parent)
				list_select(&p->list, (long)i);
		p->list.chosen = true;
		follow(t);
		return VIEW_REDRAW;
	}
	return VIEW_IGNORED;
}

static void tree_destroy(struct view *v)
{
	struct tree_view *t = (struct tree_view *)v;

	for (int i = 0; i < 2; i++) {
		free(t->pane[i].state);
		free(t->pane[i].rows);
		cct_free(&t->pane[i].inverted);
		cct_free(&t->pane[i].transformed);
	}
	if (t->job)
		rebuild_finish(t);
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

	for (int i = 0; i < 2; i++) {
		struct tree_pane *p = &t->pane[i];

		p->t = t;
		p->rebuilt = i == PANE_REBUILT;
		p->list.id = row_id;
		p->list.text = row_text;
		p->list.ctx = p;
	}
	return &t->v;
}
