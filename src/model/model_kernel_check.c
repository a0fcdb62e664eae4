/*
 * model_kernel_check.c - the kernel's stack walker checked against the
 * walk here (SHIMTOP_UNWIND_CHECK): it then lets each sample out with
 * its copy after sending its own chain, and the two walks of one
 * sample, known by thread, pc and stack pointer (either may come
 * first; of several with those, by their frames), are compared frame
 * by frame.  The kernel reads the whole
 * stack, the walk here the copy: a walk the copy cut short agrees where
 * it is the kernel's chain's start, as a kernel chain cut at its frame
 * limit agrees where it is the start of the walk here.
 */
#include "model/model_internal.h"
#include "symbols/unwind.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_FRAMES	(KW_FRAMES_MAX + 1)

/* One walk of a sample, waiting for the other. */
struct one_walk {
	bool waiting;
	uint64_t sp;
	size_t n;		/* frames (pcs holds the first CHECK_FRAMES) */
	bool cut;		/* stopped early for a reason of its own */
	uint64_t pcs[CHECK_FRAMES];
};

/*
 * Walks of a thread waiting for their other, each side: the kernel's
 * walks and the copies come by two rings, and on a loaded machine a
 * thread's next samples come between a walk and its other.
 */
#define CHECK_PENDING	8

struct kernel_check {
	UT_hash_handle hh;
	uint64_t key;		/* the thread, and whether its walks are of switches */
	struct one_walk kernel[CHECK_PENDING], here[CHECK_PENDING];
	unsigned next_kernel, next_here;	/* the slot each side fills next */
};

/*
 * s's thread's walks, a switch's (--off-cpu) apart: the walk here of a
 * switch comes when its wait ends, the kernel's as it began.
 */
static struct kernel_check *check_of(struct model *m, const struct st_sample *s)
{
	uint64_t key = s->tid | (ST_SAMPLE_OFFCPU(s->flags) ? 1ull << 32 : 0);
	struct kernel_check *c;

	HASH_FIND(hh, m->kernel_checks, &key, sizeof(key), c);
	if (!c) {
		c = st_xcalloc(1, sizeof(*c));
		c->key = key;
		HASH_ADD(hh, m->kernel_checks, key, sizeof(c->key), c);
	}
	return c;
}

static void say_parting(uint32_t tid, const struct one_walk *k, const struct one_walk *h,
			size_t at)
{
	fprintf(stderr, "shimtop: kernel walk check: tid %u from pc %#llx: kernel %zu frames, "
		"here %zu; frame %zu: %#llx against %#llx\n", tid,
		(unsigned long long)h->pcs[0], k->n, h->n, at,
		(unsigned long long)(at < k->n && at < CHECK_FRAMES ? k->pcs[at] : 0),
		(unsigned long long)(at < h->n && at < CHECK_FRAMES ? h->pcs[at] : 0));
}

/* Whether k and h agree: the same frames, or one the other's start for its reason; *at where not. */
static bool agree(const struct one_walk *k, const struct one_walk *h, size_t *at)
{
	size_t both = k->n < h->n ? k->n : h->n;

	if (both > CHECK_FRAMES)
		both = CHECK_FRAMES;
	for (*at = 0; *at < both && k->pcs[*at] == h->pcs[*at];)
		(*at)++;
	return *at == both &&
	       (k->n == h->n || (h->n < k->n && h->cut) || (k->n < h->n && k->cut));
}

/* Both walks of one sample in hand, compared. */
static void compare(struct model *m, uint32_t tid, const struct one_walk *k,
		    const struct one_walk *h)
{
	size_t at;

	if (agree(k, h, &at))
		m->kernel_check_same++;
	else if (++m->kernel_check_differ <= 10)
		say_parting(tid, k, h, at);
}

/*
 * w, the kernel's walk (kernel true) or the one here, arrives: compared
 * with the other side's walk of the same sample if it waits, else kept
 * in place of its side's oldest.
 */
static void arrive(struct model *m, struct kernel_check *c, const struct one_walk *w, bool kernel)
{
	struct one_walk *mine = kernel ? c->kernel : c->here, *other = kernel ? c->here : c->kernel;
	unsigned *next = kernel ? &c->next_kernel : &c->next_here;

	struct one_walk *pair = NULL;
	size_t at;

	/*
	 * Two samples of a thread in one loop of a leaf have the same pc and
	 * stack pointer under two callers of the same frame size: of several
	 * walks waiting with them, the one with the same frames is its other.
	 */
	for (unsigned i = 0; i < CHECK_PENDING; i++) {
		struct one_walk *o = &other[i];

		if (!o->waiting || o->sp != w->sp || !o->n || !w->n || o->pcs[0] != w->pcs[0])
			continue;
		if (!pair || agree(kernel ? w : o, kernel ? o : w, &at))
			pair = o;
	}
	if (pair) {
		pair->waiting = false;
		compare(m, (uint32_t)c->key, kernel ? w : pair, kernel ? pair : w);
		return;
	}
	if (mine[*next].waiting)
		m->kernel_check_unmatched++;	/* the oldest never met its other */
	mine[*next] = *w;
	mine[*next].waiting = true;
	*next = (*next + 1) % CHECK_PENDING;
}

void model_keep_kernel_check(struct model *m, const struct st_sample *s)
{
	const uint64_t *chain = st_sample_chain(s);
	struct one_walk walk = { 0 }, *k = &walk;
	size_t need = sizeof(*s) + ((size_t)s->nchain + 2) * sizeof(uint64_t);
	uint64_t kernel;

	if (s->h.size < need || !s->nchain)
		return;
	/* The user frames: the walk here starts where the task entered the kernel. */
	kernel = chain[s->nchain + 1];
	if (kernel >= s->nchain)
		return;
	k->n = s->nchain - kernel;
	k->cut = (s->flags & ST_SAMPLE_CHAIN_TRUNC) != 0;
	k->sp = chain[s->nchain];
	memcpy(k->pcs, chain + kernel,
	       (k->n < CHECK_FRAMES ? k->n : CHECK_FRAMES) * sizeof(k->pcs[0]));
	arrive(m, check_of(m, s), k, true);
}

void model_check_kernel_walk(struct model *m, const struct st_sample *s,
			     const struct unwound_frame *f, size_t n, bool cut)
{
	struct one_walk walk = { 0 }, *h = &walk;

	if (!n)
		return;
	h->n = n;
	h->cut = cut;
	h->sp = f[0].sp;
	for (size_t i = 0; i < n && i < CHECK_FRAMES; i++)
		h->pcs[i] = f[i].pc;
	arrive(m, check_of(m, s), h, false);
}

void model_free_kernel_checks(struct model *m)
{
	struct kernel_check *c, *tmp;

	HASH_ITER(hh, m->kernel_checks, c, tmp) {
		HASH_DEL(m->kernel_checks, c);
		free(c);
	}
}
