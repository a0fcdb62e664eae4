/*
 * pages.c - the hot data pages table (M): the pages IBS saw loads and
 * stores touch, most data cache misses first, with their miss latency
 * and the functions touching them (HOP's page table, 004 Ch. 5).  Without
 * IBS samples it says so and how to get them.
 */
#include "model/model.h"
#include "output/report.h"
#include "session/session.h"
#include "ui/declared_view.h"
#include "ui/ui_internal.h"

#include <stdlib.h>
#include <string.h>

static size_t page_query(struct ui *ui, void **state, const void **rows)
{
	struct ibs_page *p;
	size_t n = ibs_model_pages(&session_whole(ui->s)->ibs, &p);

	free(*state);
	*state = p;
	*rows = p;
	return n;
}

static uint64_t page_id(const void *row)
{
	return ((const struct ibs_page *)row)->key.base;
}

static bool page_match(struct ui *ui, const void *row, const char *needle)
{
	char syms[256];

	report_ibs_page_symbols(session_whole(ui->s), row, syms, sizeof(syms));
	return strcasestr(syms, needle) != NULL;
}

/* Without IBS, how to get it; with a range, that these rows are not its (it holds none). */
static const char *page_notice(struct ui *ui)
{
	if (!ibs_model_active(&session_whole(ui->s)->ibs))
		return "no IBS samples: pages come from AMD IBS (--ibs on bare metal, or -i a "
		       "recording)";
	return session_ranged(ui->s) ? "the whole session's pages: a range keeps none of its own"
				     : NULL;
}

static const enum ui_action pages_actions[] = {
	UA_HELP, UA_INVERT, UA_PAGES, UA_BACK, UA_ZERO, UA_QUIT, UA_NONE,
};

const struct table_source page_source = {
	.name = "pages", .noun = "page", .table = &page_table,
	.row_size = sizeof(struct ibs_page),
	.query = page_query, .forget = free, .id = page_id, .match = page_match,
	.notice = page_notice, .key = UA_PAGES, .actions = pages_actions,
};
