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

void model_account_sample(struct model *m, const struct st_sample *s,
			  const struct st_symbol *sym);
/*
 * n samples of one kind at once (a range's, summed: s->period their
 * weight, s->data their counters), their times left to model_count_time.
 */
void model_account_samples(struct model *m, const struct st_sample *s,
			   const struct st_symbol *sym, uint64_t n);
void model_count_time(struct model *m, uint64_t time, uint64_t n);
/*
 * The sample's call path into the tree; leaf: its own symbol; counters
 * its cycles and instructions, or NULL.  Returns its node.
 */
uint32_t model_take_chain(struct model *m, const struct st_sample *s,
			  const struct st_symbol *leaf, const uint64_t *counters);

#endif
