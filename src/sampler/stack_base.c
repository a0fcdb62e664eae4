/*
 * stack_base.c - the per-thread stack bases the sampler stamps on
 * samples that carry a stack copy.
 */
#include "sampler/stack_base.h"
#include "symbols/symbols.h"
#include "util.h"

#include <stdlib.h>

/* A stack pointer outside every mapping (a bogus one) costs one read a tick. */
#define STACK_RETRY_NS	(10u * 1000u * 1000u)

void stack_bases_init(struct stack_bases *b)
{
	b->v = st_xcalloc(STACK_BASES_MAX, sizeof(*b->v));
	b->n = b->next = 0;
	b->failed_pid = 0;
	b->failed_ns = 0;
	b->reads = 0;
}

void stack_bases_free(struct stack_bases *b)
{
	free(b->v);
	b->v = NULL;
	b->n = 0;
}

uint64_t stack_base_of(struct stack_bases *b, pid_t pid, uint64_t sp, uint64_t now_ns)
{
	uint64_t start, end;
	struct stack_range *r;

	/* A process has as many stacks as threads: a short scan. */
	for (size_t i = 0; i < b->n; i++)
		if (b->v[i].pid == pid && sp >= b->v[i].start && sp < b->v[i].end)
			return b->v[i].end;
	if (pid == b->failed_pid && now_ns - b->failed_ns < STACK_RETRY_NS)
		return 0;
	b->reads++;
	if (symbols_mapping_of(pid, sp, &start, &end) < 0) {
		b->failed_pid = pid;
		b->failed_ns = now_ns;
		return 0;
	}
	if (b->n < STACK_BASES_MAX) {
		r = &b->v[b->n++];
	} else {
		r = &b->v[b->next];
		b->next = (b->next + 1) % STACK_BASES_MAX;
	}
	*r = (struct stack_range){ pid, start, end };
	return end;
}

void stack_bases_forget(struct stack_bases *b, pid_t pid)
{
	size_t k = 0;

	for (size_t i = 0; i < b->n; i++)
		if (b->v[i].pid != pid)
			b->v[k++] = b->v[i];
	b->n = k;
	b->next = 0;
}
