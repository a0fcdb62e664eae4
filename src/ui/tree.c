/*
 * tree.c - the call tree view (F5, as htop's tree; 6): the calling
 * context tree top-down, a row a function in one context with its total
 * (it and what it calls) and self shares, children hottest first.  Paths
 * holding a tenth of the samples open by themselves; Right or + opens
 * the selected node, Left or - closes it (Left on a closed node goes to
 * its caller), * opens everything under it, Enter opens the function's
 * detail (in the icicle: zooms).  Search (/)
 * finds a function anywhere in the tree and opens its callers; what is
 * open stays so by path through transforms and ranges.  b turns it bottom-up: at the
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
#include "output/tables.h"
#include "session/session.h"
#include "ui/draw.h"
#include "ui/icicle.h"
#include "ui/browser.h"
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

/* What c shows. */
enum tree_layout { SHOW_UNWOUND, SHOW_BOTH, SHOW_REBUILT };

enum { PANE_UNWOUND, PANE_REBUILT };

struct tree_view;

/* One tree on screen: its rows, what is open in it and its selection. */
struct tree_pane {
	struct tree_view *t;
	bool rebuilt;		/* CallerChaining's tree, not the call chains' */
	struct browser rows_shown;	/* an item a node: ref its number, id its path's */
	size_t hidden;		/* rows the cold limit hid at the last build */
	const struct cct *shown;	/* the tree the rows index; NULL: not built */
	bool of_event;		/* of the shown event alone (events apart), not pooled */
	struct cct transformed;	/* the base through the transforms, when any */
	struct cct inverted;	/* bottom-up: that, inverted */
};

struct tree_view {
	struct view v;
	struct tree_pane pane[2];
	enum tree_layout layout;
	int active;		/* the pane keys act on */
	int cols;		/* the width last drawn in */
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
	/* Events sampled apart: the shown one's own tree, not the pooled one ... */
	struct cct event_tree;
	bool event_tree_ok;
	int event_of;			/* ... of this event ... */
	uint64_t event_samples, event_from, event_to;	/* ... samples, range ... */
	uint64_t next_event_ns;		/* ... made again no sooner */
};

static const char *name_of(const struct tree_pane *p, uint32_t node)
{
	if (node == CCT_ROOT)
		return "all";
	return model_frame_name(session_whole(p->t->v.ui->s), cct_node(p->shown, node)->sym);
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

/* A path that holds a tenth of the samples opens by itself. */
static bool pane_opens(struct browser *b, const struct browser_item *it)
{
	const struct tree_pane *p = b->ctx;
	const struct cct *c = p->shown;

	return cct_whole(c) && (double)cct_amount(c, cct_node(c, (uint32_t)it->ref)) >=
		TREE_HOT * (double)cct_whole(c);
}

/* A node's children, hottest first; the cold limit hides some (counted). */
static void pane_items(struct browser *b, const struct browser_item *parent)
{
	struct tree_pane *p = b->ctx;
	const struct cct *c = p->shown;
	double cold;
	uint32_t *kids;
	size_t n;

	if (!c || !c->nodes)
		return;
	cold = cold_limits[p->t->cold] * (double)cct_whole(c);
	if (!parent && b->placing)
		p->hidden = 0;
	n = cct_children_hottest(c, parent ? (uint32_t)parent->ref : CCT_ROOT, &kids);
	for (size_t i = 0; i < n; i++) {
		const struct cct_node *k = cct_node(c, kids[i]);

		if ((double)cct_amount(c, k) * 100.0 < cold) {
			p->hidden += b->placing;
			continue;
		}
		browser_add(b, browser_child_id(parent ? parent->id : 0, k->sym), kids[i],
			    k->child != 0);
	}
	free(kids);
}

static bool pane_match(struct browser *b, const struct browser_item *it, const char *needle)
{
	return strcasestr(name_of(b->ctx, (uint32_t)it->ref), needle) != NULL;
}

/* The ids of node's path, root's child first: how many. */
static size_t node_ids(const struct tree_pane *p, uint32_t node, uint64_t *ids)
{
	uint32_t path[CCT_MAX_DEPTH + 1];
	size_t k = cct_path(p->shown, node, path);

	for (size_t i = 0; i < k; i++)
		ids[i] = browser_child_id(i ? ids[i - 1] : 0, path[i]);
	return k;
}

/*
 * Another tree (a transform, b): what is open and selected stays by path;
 * the icicle's nodes were the old tree's.
 */
static void start_all_over(struct tree_view *t)
{
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
	browser_rebuild(&p->rows_shown);
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
	cct_free(&t->event_tree);
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
	const struct callerchain *cc = &session_whole(t->v.ui->s)->chaining;
	uint64_t now = st_now_ns();
	struct rebuild_job *j;

	if (t->job && atomic_load(&t->job->done))
		rebuild_finish(t);
	if (t->job || cc->samples == t->rebuilt_from || now < t->next_job_ns)
		return &t->rebuilt;
	j = st_xcalloc(1, sizeof(*j));
	callerchain_save(cc, &j->input);
	/* Names are read here: the worker has symbol ids only. */
	j->nstarts = model_start_symbols(session_whole(t->v.ui->s), &j->starts);
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
	uint64_t ids[CCT_MAX_DEPTH + 1];

	browser_reveal(&p->rows_shown, ids, node_ids(p, node, ids));
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
	const struct browser_item *sel = browser_selected(&from->rows_shown);
	uint32_t path[CCT_MAX_DEPTH + 1], best = CCT_ROOT;
	size_t k, best_len = 0;

	if (t->layout != SHOW_BOTH || !sel || !c || !c->nodes)
		return;
	k = cct_path(from->shown, (uint32_t)sel->ref, path);
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

/*
 * Events sampled apart (-e a,b, --off-cpu): the shown event's tree, made
 * from the history when the event or range changed, or at most once a
 * second while samples come; the pooled tree where the history cannot.
 */
static const struct cct *event_tree(struct tree_view *t, const struct cct *pooled)
{
	const struct session *s = t->v.ui->s;
	const struct model *w = session_whole(s);
	uint64_t from, to, now = st_now_ns();

	if (w->nsampled < 2)
		return pooled;
	/* After x or z, as the pooled tree's counts: from then on. */
	session_counted_ns(s, &from, &to);
	if (w->shown_event != t->event_of || from != t->event_from || to != t->event_to ||
	    (w->samples != t->event_samples && now >= t->next_event_ns)) {
		cct_free(&t->event_tree);
		t->event_tree_ok = model_event_tree(w, w->shown_event, from, to, &t->event_tree);
		t->event_of = w->shown_event;
		t->event_from = from;
		t->event_to = to;
		t->event_samples = w->samples;
		t->next_event_ns = now + REBUILD_EVERY_NS;
	}
	return t->event_tree_ok ? &t->event_tree : pooled;
}

static void tree_refresh(struct view *v)
{
	struct tree_view *t = (struct tree_view *)v;
	const struct session *s = v->ui->s;
	const struct model *m = session_tables(s);

	session_settle(v->ui->s);	/* the totals, here and in the draws and keys after */
	/* Another range's tree: its node numbers name other paths (the browser keeps ids). */
	if (m != t->seen_model || (session_ranged(s) && (session_range_from(s) != t->seen_from ||
						   session_range_to(s) != t->seen_to))) {
		if (t->active == PANE_UNWOUND)
			t->ic.zoom = t->ic.selected = CCT_ROOT;
	}
	t->seen_model = m;
	t->seen_from = session_range_from(s);
	t->seen_to = session_range_to(s);
	for (int i = 0; i < 2; i++) {
		if (!pane_used(t, i))
			continue;
		const struct cct *base = i == PANE_REBUILT ? rebuilt_tree(t) : event_tree(t, &m->tree);

		t->pane[i].of_event = base == &t->event_tree;
		pane_refresh(&t->pane[i], base);
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
	const struct model *m = session_whole(t->v.ui->s);

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
	const struct cct_counts *k = cct_counts_of(c, CCT_ROOT);

	return k && k->cycles && k->instructions;
}

static void pane_title(struct browser *b, char *line, size_t len, int cols)
{
	const struct tree_pane *p = b->ctx;
	const struct tree_view *t = p->t;
	const struct ui *ui = t->v.ui;
	const struct cct *c = p->shown;
	const struct model *w = session_whole(ui->s);
	char applied[160], count[128], time[16], keys[96];
	double seconds = (double)cct_whole(c) / 1e9;
	int n;

	describe_applied(t, p, applied, sizeof(applied));
	/* A tree of waits: how many, and how long off the CPU; of one event: which. */
	table_field_text(FIELD_SECONDS, 0, &seconds, time, sizeof(time));
	if (c->weighed)	/* waits, not their samples: a long one's pieces are one wait */
		snprintf(count, sizeof(count), "%llu waits, %s off the CPU",
			 (unsigned long long)session_tables(ui->s)->waits, time);
	else
		snprintf(count, sizeof(count), "%llu %s%ssamples", (unsigned long long)c->samples,
			 p->of_event ? session_info(ui->s)->sampled[w->shown_event] : "",
			 p->of_event ? " " : "");
	snprintf(keys, sizeof(keys), "; + - * open, close; b %s%s",
		 t->bottom_up ? "top-down" : "bottom-up",
		 t->layout == SHOW_BOTH ? "; w the other tree" : "");
	n = snprintf(line, len, "%7s %7s%s  %s%s%s  (%s%s%s%s",
		     "TOTAL%", t->bottom_up ? "" : "SELF%",
		     has_ipc(c) ? "   IPC" : c->weighed ? "   TIME" : "",
		     t->bottom_up ? "CALLERS, BOTTOM-UP" : "CALL TREE",
		     p->rebuilt ? " REBUILT BY CALLERCHAINING (? ambiguous)" : "", applied, count,
		     session_ranged(ui->s) && !p->rebuilt ? " in the range" : "",
		     c->truncated ? ", some chains truncated" : "",
		     c->capped ? ", the tree is full: some stop short" : "");
	/* The count whole first; the keys where they fit (the footer names them too). */
	if (n < 0 || (size_t)n >= len)
		return;
	snprintf(line + n, len - (size_t)n, "%s)",
		 n + (int)strlen(keys) + 1 <= cols ? keys : "");
}

static int pane_write(struct browser *b, const struct browser_item *it, char *line, size_t len,
		      int cols)
{
	const struct tree_pane *p = b->ctx;
	const struct cct *c = p->shown;
	const struct cct_node *n = cct_node(c, (uint32_t)it->ref);
	const struct cct_counts *k;
	int indent = it->depth * 2 > TREE_INDENT_MAX ? TREE_INDENT_MAX : it->depth * 2;
	char self[16], ipc_text[24];

	(void)cols;
	/* Bottom-up, self would be "the path starts here": left out. */
	if (p->t->bottom_up)
		snprintf(self, sizeof(self), "%7s", "");
	else
		snprintf(self, sizeof(self), "%6.2f%%", 100.0 * (double)(c->weighed ? n->self_weight
								  : n->self) / (double)cct_whole(c));
	if (c->weighed) {
		/* A wait's time through it: the off-CPU column of the tree. */
		char time[12];
		double seconds = (double)n->total_weight / 1e9;

		table_field_text(FIELD_SECONDS, 0, &seconds, time, sizeof(time));
		snprintf(ipc_text, sizeof(ipc_text), " %6s", time);
	} else if (!has_ipc(c))
		ipc_text[0] = '\0';
	else if ((k = cct_counts_of(c, (uint32_t)it->ref)) && k->cycles && k->instructions)
		snprintf(ipc_text, sizeof(ipc_text), " %5.2f",
			 (double)k->instructions / (double)k->cycles);
	else
		snprintf(ipc_text, sizeof(ipc_text), " %5s", "-");
	snprintf(line, len, "%6.2f%% %s%s  %*s%s %s%s",
		 100.0 * (double)cct_amount(c, n) / (double)cct_whole(c), self, ipc_text, indent, "",
		 !it->children ? " " : it->open ? "-" : "+",
		 marked(p, (uint32_t)it->ref) ? "? " : "", name_of(p, (uint32_t)it->ref));
	return c->weighed ? TH_OFFCPU : TH_ROW;
}

static const struct browser_ops pane_browser = {
	.items = pane_items,
	.write = pane_write,
	.match = pane_match,
	.title = pane_title,
	.opens = pane_opens,
};

/* One pane's title and rows in columns x .. x+width-1. */
static void draw_pane(struct tree_pane *p, WINDOW *w, int x, int width, int lines, bool keys)
{
	const struct tree_view *t = p->t;
	const struct ui *ui = t->v.ui;
	const struct cct *c = p->shown;

	if (!c)
		return;
	if (!c->samples) {
		draw_text(w, 0, x, width, ui->attr[TH_ROW], !p->rebuilt
			  ? "no samples yet (the tree is every sample's call path)"
			  : t->job ? "CallerChaining is rebuilding the tree from the stack depths..."
			  : session_is_perf_data(ui->s)
			  ? "no stack depths: perf.data holds none (perf records no stack base); c switches"
			  : "no samples with stack depths (--call-graph dwarf or callerchain); c switches");
		return;
	}
	browser_draw(&p->rows_shown, w, 0, x, width, lines, keys, ui->attr);
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
		 name_of(p, t->ic.selected), 100.0 * (double)cct_amount(c, sel) / (double)cct_whole(c),
		 100.0 * (double)(c->weighed ? sel->self_weight : sel->self) / (double)cct_whole(c),
		 t->ic.zoom != CCT_ROOT ? ", on the top bar out" : "");
	draw_text(w, 0, 0, cols, ui->attr[TH_COLUMNS], line);
	icicle_draw(&t->ic, c, w, 1, 0, lines - 1, cols, &style);
}

static void tree_draw(struct view *v, WINDOW *w)
{
	struct tree_view *t = (struct tree_view *)v;
	int lines, cols, half;

	session_settle(v->ui->s);	/* samples pumped since the refresh: the shown tree's totals */
	v->browser = &t->pane[t->active].rows_shown;
	getmaxyx(w, lines, cols);
	t->cols = cols;
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

static enum view_reaction icicle_key(struct tree_view *t, enum ui_action a)
{
	struct tree_pane *p = &t->pane[t->active];
	static const struct {
		enum ui_action a;
		enum icicle_move how;
	} moves[] = {
		{ UA_UP, ICICLE_CALLER }, { UA_DOWN, ICICLE_CALLEE },
		{ UA_LEFT, ICICLE_PREVIOUS }, { UA_RIGHT, ICICLE_NEXT }, { UA_OPEN, ICICLE_ZOOM },
	};

	if (a == UA_TREE_ICICLE) {
		t->icicle = false;
		pane_reveal(p, t->ic.selected);
		return VIEW_REQUERY;
	}
	for (size_t i = 0; i < sizeof(moves) / sizeof(moves[0]); i++)
		if (moves[i].a == a) {
			if (p->shown)
				icicle_move(&t->ic, p->shown, moves[i].how);
			return VIEW_REDRAW;
		}
	return VIEW_IGNORED;
}

/* Keys that change what the trees are: b c w u r %. */
static enum view_reaction layout_key(struct tree_view *t, enum ui_action a)
{
	switch (a) {
	case UA_TREE_COLD:
		t->cold = (t->cold + 1) % (sizeof(cold_limits) / sizeof(cold_limits[0]));
		return VIEW_REQUERY;
	case UA_TREE_REBUILT:
		t->layout = (t->layout + 1) % (SHOW_REBUILT + 1);
		/* CallerChaining is fed from here on when it was not (model.chaining_wanted). */
		if (session_want_chaining(t->v.ui->s))
			snprintf(t->v.ui->message, sizeof(t->v.ui->message),
				 "the tree rebuilt by CallerChaining grows from the samples from now on");
		/* Too narrow for two panes: c goes between the trees, and says why. */
		if (t->layout == SHOW_BOTH && t->cols && t->cols < 2 * PANE_MIN_WIDTH + 1) {
			t->layout = SHOW_REBUILT;
			snprintf(t->v.ui->message, sizeof(t->v.ui->message),
				 "the trees side by side need %d columns: the rebuilt one alone",
				 2 * PANE_MIN_WIDTH + 1);
		}
		t->active = t->layout == SHOW_REBUILT ? PANE_REBUILT : PANE_UNWOUND;
		/* The icicle's nodes were the other tree's. */
		t->ic.zoom = t->ic.selected = CCT_ROOT;
		return VIEW_REQUERY;
	case UA_TREE_PANE:
		if (t->layout != SHOW_BOTH) {
			snprintf(t->v.ui->message, sizeof(t->v.ui->message),
				 "w switches panes side by side (c; %d columns)",
				 2 * PANE_MIN_WIDTH + 1);
			return VIEW_REDRAW;
		}
		t->active = !t->active;
		t->ic.zoom = t->ic.selected = CCT_ROOT;
		return VIEW_REQUERY;
	case UA_TREE_BOTTOM_UP:
		t->bottom_up = !t->bottom_up;
		break;
	case UA_TREE_RECURSION:
		t->x.collapse_recursion = !t->x.collapse_recursion;
		break;
	case UA_TREE_UNDO:
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
	const struct browser_item *sel;
	enum view_reaction r;
	uint32_t node;

	v->browser = &p->rows_shown;
	/* A prompt (search) takes every key first; the icicle has none. */
	if (t->icicle && (r = icicle_key(t, a)) != VIEW_IGNORED)
		return r;
	if (!t->icicle && view_browse(v, &p->rows_shown, code, a) != VIEW_IGNORED) {
		follow(t);
		return VIEW_REDRAW;
	}
	if ((r = layout_key(t, a)) != VIEW_IGNORED)
		return r;
	sel = browser_selected(&p->rows_shown);
	if (!sel)
		return VIEW_IGNORED;
	node = t->icicle ? t->ic.selected : (uint32_t)sel->ref;
	if (a == UA_TREE_ICICLE) {
		t->icicle = true;
		icicle_select(&t->ic, p->shown, node);
		return VIEW_REDRAW;
	}
	if ((a == UA_TREE_FOCUS || a == UA_TREE_MERGE) && node != CCT_ROOT) {
		uint32_t sym = cct_node(p->shown, node)->sym;

		if (a == UA_TREE_FOCUS) {
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
	/* Enter: the function's detail, as on the symbol table (+ - fold). */
	if (a == UA_OPEN && node != CCT_ROOT) {
		uint32_t sym = cct_node(p->shown, node)->sym;

		if (sym == CCT_SYM_ROOT || sym == CCT_SYM_TRUNCATED)
			return VIEW_REDRAW;
		v->next = detail_view_create(v->ui, sym);
		return VIEW_PUSH;
	}
	return VIEW_IGNORED;
}

static void tree_destroy(struct view *v)
{
	struct tree_view *t = (struct tree_view *)v;

	for (int i = 0; i < 2; i++) {
		browser_free(&t->pane[i].rows_shown);
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
	UA_HELP, UA_VIEW_NEXT, UA_SEARCH, UA_OPEN, UA_TREE_BOTTOM_UP, UA_TREE_FOCUS,
	UA_TREE_ICICLE, UA_ZERO, UA_QUIT, UA_NONE,
};

static const struct view_ops tree_ops = {
	.name = "tree",
	.scope = SCOPE_TREE,
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
		browser_init(&p->rows_shown, &pane_browser, p, "function", true);
	}
	t->v.browser = &t->pane[PANE_UNWOUND].rows_shown;
	return &t->v;
}
