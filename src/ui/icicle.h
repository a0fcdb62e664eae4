/*
 * icicle.h - a calling context tree drawn as an icicle: a flame graph
 * hanging from its root, a row per depth, each node a bar as wide as its
 * share of the samples, its callees under it, hottest first from the
 * left.  One node fills the width (the zoom); one is selected.
 */
#ifndef SHIMTOP_ICICLE_H
#define SHIMTOP_ICICLE_H

#include <curses.h>
#include <stdint.h>

#include "model/cct.h"

struct icicle {
	uint32_t zoom;		/* the node drawn across the whole width */
	uint32_t selected;	/* under zoom, or zoom itself */
};

/* What a node is called and how it looks, from the view. */
struct icicle_style {
	const char *(*name)(void *ctx, uint32_t node);
	void *ctx;
	chtype bar, unknown, selected, gap;
};

/*
 * Draws c from ic->zoom down into rows y0 .. y0+height-1 and columns
 * x0 .. x0+width-1 of w.  Nodes narrower than a column are left out.
 */
void icicle_draw(const struct icicle *ic, const struct cct *c, WINDOW *w, int y0, int x0,
		 int height, int width, const struct icicle_style *style);

enum icicle_move {
	ICICLE_CALLER,		/* Up: to the caller, out of the zoom if need be */
	ICICLE_CALLEE,		/* Down: to the hottest callee */
	ICICLE_PREVIOUS,	/* Left: the hotter sibling */
	ICICLE_NEXT,		/* Right: the colder sibling */
	ICICLE_ZOOM,		/* Enter: zoom to the selected node; on the zoom, out one level */
};

/* Moves the selection (or zoom); returns whether anything changed. */
bool icicle_move(struct icicle *ic, const struct cct *c, enum icicle_move how);

/* Makes node (of c) the selection, zooming out until it is in sight. */
void icicle_select(struct icicle *ic, const struct cct *c, uint32_t node);

#endif
