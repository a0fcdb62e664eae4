/*
 * icicle.c - the call tree as an icicle (icicle.h).  A node's callees
 * share its width in proportion to their totals (a tree of waits': their
 * times), hottest from the left; what is left on the right of a node is
 * its self time.  Each bar ends in a gap column, so two neighbours with
 * one colour stay apart.
 */
#include "ui/icicle.h"
#include "ui/draw.h"

#include <stdlib.h>

static void draw_node(const struct icicle *ic, const struct cct *c, WINDOW *w, int y,
		      int y_end, int x, int width, uint32_t node,
		      const struct icicle_style *st)
{
	const struct cct_node *n = cct_node(c, node);
	const char *name;
	chtype attr;
	uint32_t *kids;
	size_t nkids;
	uint64_t before = 0, whole = cct_amount(c, n);

	if (width < 1 || y >= y_end || !whole)
		return;
	name = st->name(st->ctx, node);
	attr = node == ic->selected ? st->selected : name[0] == '[' ? st->unknown : st->bar;
	draw_text(w, y, x, width > 1 ? width - 1 : 1, attr, name);
	if (width > 1)
		draw_text(w, y, x + width - 1, 1, st->gap, "");
	nkids = cct_children_hottest(c, node, &kids);
	for (size_t i = 0; i < nkids; i++) {
		/* Edges from the running sum: the widths add up to the parent's. */
		int from = x + (int)((double)before * width / (double)whole);
		int to;

		before += cct_amount(c, cct_node(c, kids[i]));
		to = x + (int)((double)before * width / (double)whole);
		draw_node(ic, c, w, y + 1, y_end, from, to - from, kids[i], st);
	}
	free(kids);
}

void icicle_draw(const struct icicle *ic, const struct cct *c, WINDOW *w, int y0, int x0,
		 int height, int width, const struct icicle_style *style)
{
	for (int y = y0; y < y0 + height; y++)
		draw_text(w, y, x0, width, style->gap, "");
	if (c->nodes && ic->zoom < c->n)
		draw_node(ic, c, w, y0, y0 + height, x0, width, ic->zoom, style);
}

/* Whether node is at or under top. */
static bool under(const struct cct *c, uint32_t node, uint32_t top)
{
	for (uint32_t at = node;; at = cct_node(c, at)->parent) {
		if (at == top)
			return true;
		if (at == CCT_ROOT)
			return false;
	}
}

/* The sibling step places from node (hottest first), or node itself. */
static uint32_t sibling(const struct cct *c, uint32_t node, int step)
{
	uint32_t *kids, found = node;
	size_t n = cct_children_hottest(c, cct_node(c, node)->parent, &kids);

	for (size_t i = 0; i < n; i++)
		if (kids[i] == node && (long)i + step >= 0 && (size_t)((long)i + step) < n)
			found = kids[(long)i + step];
	free(kids);
	return found;
}

bool icicle_move(struct icicle *ic, const struct cct *c, enum icicle_move how)
{
	uint32_t was = ic->selected, zoom = ic->zoom, *kids;

	if (!c->nodes || ic->selected >= c->n || ic->zoom >= c->n) {
		ic->selected = ic->zoom = CCT_ROOT;
		return true;
	}
	switch (how) {
	case ICICLE_CALLER:
		if (ic->selected == CCT_ROOT)
			return false;
		if (ic->selected == ic->zoom)
			ic->zoom = cct_node(c, ic->zoom)->parent;
		ic->selected = cct_node(c, ic->selected)->parent;
		break;
	case ICICLE_CALLEE:
		if (cct_children_hottest(c, ic->selected, &kids))
			ic->selected = kids[0];
		free(kids);
		break;
	case ICICLE_PREVIOUS:
	case ICICLE_NEXT:
		if (ic->selected != ic->zoom)
			ic->selected = sibling(c, ic->selected, how == ICICLE_NEXT ? 1 : -1);
		break;
	case ICICLE_ZOOM:
		if (ic->selected != ic->zoom)
			ic->zoom = ic->selected;
		else if (ic->zoom != CCT_ROOT)
			ic->zoom = cct_node(c, ic->zoom)->parent;
		break;
	}
	return ic->selected != was || ic->zoom != zoom;
}

void icicle_select(struct icicle *ic, const struct cct *c, uint32_t node)
{
	if (!c->nodes || node >= c->n)
		node = CCT_ROOT;
	if (ic->zoom >= c->n)
		ic->zoom = CCT_ROOT;
	ic->selected = node;
	while (!under(c, node, ic->zoom))
		ic->zoom = cct_node(c, ic->zoom)->parent;
}
