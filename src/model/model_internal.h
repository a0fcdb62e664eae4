/*
 * model_internal.h - what the model's own files share: one sample into
 * every total, its symbol already known (live: looked up; a range: from
 * the history).
 */
#ifndef SHIMTOP_MODEL_INTERNAL_H
#define SHIMTOP_MODEL_INTERNAL_H

#include "model/model.h"
#include "ring/record.h"

struct st_symbol;

void model_account_sample(struct model *m, const struct st_sample *s,
			  const struct st_symbol *sym);

#endif
