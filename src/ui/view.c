/* view.c - what every view needs (see view.h). */
#include "ui/view.h"
#include "util.h"

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
