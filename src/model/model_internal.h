/*
 * model_internal.h - what the model's own files share: samples into
 * every total, their symbol already known (live: looked up; a range: from
 * the history).
 */
#ifndef SHIMTOP_MODEL_INTERNAL_H
#define SHIMTOP_MODEL_INTERNAL_H

#include "model/model.h"
#include "ring/record.h"

struct st_symbol;

/* sym: the sample's symbol (st_symbol.id), unknown: whether no symbol explains it. */
void model_account_sample(struct model *m, const struct st_sample *s, uint32_t sym,
			  bool unknown);
/*
 * n samples of one kind at once (a range's, summed: s->period their
 * weight, s->data their counters), their times left to model_count_time.
 */
void model_account_samples(struct model *m, const struct st_sample *s, uint32_t sym,
			   bool unknown, uint64_t n);
void model_count_time(struct model *m, uint64_t time, uint64_t n);
/* Whether the sample's counters count toward IPC (not multiplexed, both read). */
bool counters_usable(const struct model *m, const struct st_sample *s);
/* The event of -e a,b that took the sample; -1 if none (or out of range). */
int sample_event(const struct model *m, const struct st_sample *s);
/*
 * The sample's call path into the tree; leaf: its own symbol's id; counters
 * its cycles and instructions, or NULL.  Returns its node.
 */
uint32_t model_take_chain(struct model *m, const struct st_sample *s,
			  uint32_t leaf, const uint64_t *counters);
/* The kernel's stack walker checked (model_kernel_check.c): its chain of s, kept for s's copy. */
void model_keep_kernel_check(struct model *m, const struct st_sample *s);
/* The walk here of s's copy (f[0..n), cut: ended at the copy's end) against it. */
struct unwound_frame;
void model_check_kernel_walk(struct model *m, const struct st_sample *s,
			     const struct unwound_frame *f, size_t n, bool cut);
void model_free_kernel_checks(struct model *m);
void model_free_path_memos(struct model *m);
/* The tree's caches within bytes: paths seen, and the threads' last paths in a quarter of it. */
void model_tree_bound(struct model *m, size_t bytes);
/* model_take_chain of s to come: the callers seen's bucket, fetched. */
void model_prefetch_chain(struct model *m, const struct st_sample *s);

/*
 * The sample (its leaf sym unknown anonymous code, in tree node node)
 * waits for a JIT map: its kind's place, for the history, or UINT32_MAX
 * when not kept.
 */
uint32_t model_jit_wait(struct model *m, const struct st_sample *s,
			uint32_t sym, uint32_t node);
/* Ingest's look: a pass when a map changed or MODEL_JIT_PASS_NS went by. */
void model_jit_tick(struct model *m);
void model_jit_zero(struct model *m);
void model_jit_free(struct model *m);
/*
 * n samples (weight w; event ev or -1; counters) of tid in pid counted
 * under from count under to instead: every table's totals move.
 */
void model_rename_samples(struct model *m, pid_t pid, pid_t tid, uint32_t from, uint32_t to,
			  uint64_t n, uint64_t w, int ev, uint64_t cycles,
			  uint64_t instructions);

#endif
