/* session_read.c - what a front reads of a session (see session.h). */
#include "session/session_state.h"

const struct st_options *session_options(const struct session *s)
{
	return s->opt;
}

const struct st_source_info *session_info(const struct session *s)
{
	return &s->info;
}

const struct st_source_info *session_observer_info(const struct session *s)
{
	return &s->obs_info;
}

bool session_has_observer(const struct session *s)
{
	return s->observer != NULL;
}

bool session_has_source(const struct session *s)
{
	return s->source != NULL;
}

bool session_ranged(const struct session *s)
{
	return s->ranged;
}

double session_range_from(const struct session *s)
{
	return s->range_from;
}

double session_range_to(const struct session *s)
{
	return s->range_to;
}

bool session_range_complete(const struct session *s)
{
	return s->range_complete;
}

bool session_finished(const struct session *s)
{
	return s->finished;
}

const char *session_status(const struct session *s)
{
	return s->status;
}

bool session_behind(const struct session *s)
{
	return s->behind;
}

bool session_waiting(const struct session *s)
{
	return s->waiting;
}

bool session_is_snapshot(const struct session *s)
{
	return s->is_snapshot;
}

const struct snapshot_opened *session_snapshot(const struct session *s)
{
	return &s->snap;
}

bool session_is_perf_data(const struct session *s)
{
	return s->is_perf_data;
}

bool session_has_target(const struct session *s)
{
	return s->has_target;
}

pid_t session_pid(const struct session *s)
{
	return s->pid;
}

const char *session_comm(const struct session *s)
{
	return s->comm;
}

struct symbolizer *session_symbols(const struct session *s)
{
	return s->symbols;
}

const struct st_sort *session_sort(const struct session *s)
{
	return &s->sort;
}

const struct session *session_diff_with(const struct session *s)
{
	return s->diff_with;
}

void session_set_diff_with(struct session *s, const struct session *with)
{
	s->diff_with = with;
}
