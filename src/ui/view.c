/* view.c - what every view needs (see view.h). */
#include "ui/view.h"
#include "ui/browser.h"
#include "ui/ui_internal.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>

const enum ui_action view_no_actions[] = { UA_NONE };

void *view_new(size_t size, const struct view_ops *ops, struct ui *ui)
{
	struct view *v = st_xcalloc(1, size);

	v->ops = ops;
	v->ui = ui;
	return v;
}

void view_free(struct view *v)
{
	free(v);
}

enum view_reaction view_browse(struct view *v, struct browser *b, int code, enum ui_action a)
{
	bool prompt = b->search.active || b->filter.active;

	if (browser_key(b, code, a) != BROWSER_MOVED)
		return VIEW_IGNORED;
	if (!prompt && a == UA_SEARCH_NEXT && b->search_failed)
		snprintf(v->ui->message, sizeof(v->ui->message), "no %s matches '%s'", b->noun,
			 b->search.text);
	return VIEW_REDRAW;
}
