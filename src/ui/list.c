/* list.c - the list widget (see list.h). */
#include "ui/list.h"

#include <curses.h>
#include <string.h>

enum prompt_result prompt_key(struct prompt *p, int code)
{
	size_t len = strlen(p->text);

	switch (code) {
	case 27:	/* Esc */
		p->text[0] = '\0';
		p->active = false;
		return PROMPT_CANCELLED;
	case '\n':
	case KEY_ENTER:
		p->active = false;
		return PROMPT_DONE;
	case KEY_F(3):
		return PROMPT_NEXT;
	case KEY_BACKSPACE:
	case 127:
	case 8:
		if (len)
			p->text[len - 1] = '\0';
		return PROMPT_EDITED;
	default:
		if (code >= 32 && code < 127 && len + 1 < sizeof(p->text)) {
			p->text[len] = (char)code;
			p->text[len + 1] = '\0';
			return PROMPT_EDITED;
		}
		return PROMPT_IGNORED;
	}
}

void list_select(struct list *l, long index)
{
	if (l->n == 0) {
		l->selected = l->top = 0;
		return;
	}
	if (index < 0)
		index = 0;
	if (index >= (long)l->n)
		index = (long)l->n - 1;
	l->selected = (size_t)index;
	l->selected_id = l->id(l->ctx, l->selected);
	l->have_selection = true;
	if (l->selected < l->top)
		l->top = l->selected;
	if (l->height > 0 && l->selected >= l->top + (size_t)l->height)
		l->top = l->selected - (size_t)l->height + 1;
	/* No blank rows below the last item while earlier ones are hidden. */
	if (l->height > 0 && l->top + (size_t)l->height > l->n)
		l->top = l->n > (size_t)l->height ? l->n - (size_t)l->height : 0;
}

void list_refreshed(struct list *l)
{
	if (l->have_selection && l->chosen)
		for (size_t i = 0; i < l->n; i++)
			if (l->id(l->ctx, i) == l->selected_id) {
				list_select(l, (long)i);
				return;
			}
	if (l->n == 0) {
		l->selected = l->top = 0;
		return;
	}
	/* Its item is gone: the same position, or the first row. */
	list_select(l, l->have_selection && l->selected < l->n ? (long)l->selected : 0);
}

bool list_search_from(struct list *l, size_t from)
{
	if (!l->search.text[0] || l->n == 0)
		return false;
	for (size_t k = 0; k < l->n; k++) {
		size_t i = (from + k) % l->n;

		if (strcasestr(l->text(l->ctx, i), l->search.text)) {
			list_select(l, (long)i);
			l->chosen = true;
			l->search_failed = false;
			return true;
		}
	}
	l->search_failed = true;
	return false;
}

bool list_passes_filter(const struct list *l, const char *text)
{
	return !l->filter.text[0] || strcasestr(text, l->filter.text);
}

static enum list_reaction search_prompt_key(struct list *l, int code)
{
	switch (prompt_key(&l->search, code)) {
	case PROMPT_EDITED:
		l->search_failed = false;
		list_search_from(l, l->selected);
		return LIST_MOVED;
	case PROMPT_NEXT:
		list_search_from(l, l->selected + 1);
		return LIST_MOVED;
	case PROMPT_CANCELLED:
		l->search_failed = false;
		return LIST_MOVED;
	case PROMPT_DONE:
		return LIST_MOVED;
	default:
		return LIST_MOVED;	/* the prompt has the keyboard */
	}
}

static enum list_reaction filter_prompt_key(struct list *l, int code)
{
	switch (prompt_key(&l->filter, code)) {
	case PROMPT_EDITED:
	case PROMPT_CANCELLED:
		return LIST_FILTERED;
	default:
		return LIST_MOVED;
	}
}

enum list_reaction list_key(struct list *l, int code, enum ui_action a)
{
	long page = l->height > 0 ? l->height : 1;

	if (l->search.active)
		return search_prompt_key(l, code);
	if (l->filter.active)
		return filter_prompt_key(l, code);
	if (a == UA_UP || a == UA_DOWN || a == UA_PAGE_UP || a == UA_PAGE_DOWN ||
	    a == UA_FIRST || a == UA_LAST || a == UA_SEARCH_NEXT)
		l->chosen = true;
	switch (a) {
	case UA_UP:
		list_select(l, (long)l->selected - 1);
		return LIST_MOVED;
	case UA_DOWN:
		list_select(l, (long)l->selected + 1);
		return LIST_MOVED;
	case UA_PAGE_UP:
		list_select(l, (long)l->selected - page);
		return LIST_MOVED;
	case UA_PAGE_DOWN:
		list_select(l, (long)l->selected + page);
		return LIST_MOVED;
	case UA_FIRST:
		list_select(l, 0);
		return LIST_MOVED;
	case UA_LAST:
		list_select(l, (long)l->n - 1);
		return LIST_MOVED;
	case UA_SEARCH:
		l->search.active = true;
		l->search.text[0] = '\0';
		l->search_failed = false;
		return LIST_MOVED;
	case UA_SEARCH_NEXT:
		if (!l->search.text[0])
			l->search.active = true;
		else
			list_search_from(l, l->selected + 1);
		return LIST_MOVED;
	case UA_FILTER:
		l->filter.active = true;
		return LIST_MOVED;
	default:
		return LIST_IGNORED;
	}
}
