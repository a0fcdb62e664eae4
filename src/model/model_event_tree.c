/*
 * model_event_tree.c - one event's call tree where events are sampled
 * each on its own (-e a,b; --off-cpu's waits beside the CPU's).  The
 * session's tree pools every event by count: a wait of a second and a
 * 250 us tick of the clock are one sample each there.  The history says
 * whose each sample was: the event's samples by node, added again along
 * the pooled tree's paths.  A tree of waits is weighed: its shares are
 * of the time waited, not of how many waits.
 */
#include "model/model.h"
#include "util.h"

#include <stdlib.h>

bool model_event_tree(const struct model *m, int event, uint64_t from, uint64_t to,
		      struct cct *out)
{
	size_t ne = (size_t)m->nsampled;
	uint64_t *v;

	if (m->nsampled < 2 || event < 0 || event >= m->nsampled ||
	    !history_holds_from(&m->history, from > m->first_time ? from : m->first_time))
		return false;
	v = history_node_events(&m->history, from, to, (uint32_t)m->tree.n, ne);
	cct_init(out);
	out->weighed = event == m->offcpu_event;
	for (size_t i = 1; i < m->tree.n; i++) {
		const uint64_t *e = v + (i * ne + (size_t)event) * 2;

		if (e[0])
			cct_add_path_of(out, &m->tree, (uint32_t)i, e[0], e[1]);
	}
	free(v);
	cct_settle(out);
	return true;
}
