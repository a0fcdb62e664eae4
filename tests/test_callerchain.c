/*
 * test_callerchain.c - CallerChaining on the paper's own examples
 * (Inoue and Nakatani, OOPSLA 2009): Fig. 6's quadruples give exactly
 * its tree with its depths; both of Fig. 7's cases are flagged
 * ambiguous and their samples shared by edge hotness; a sample whose
 * depth is its caller's is fitted (§6.2); the agreement with reference
 * chains is counted level by level; what was fed in is saved for a
 * snapshot and read back to the same tree, symbols renumbered.
 */
#include "check.h"
#include "model/callerchain.h"
#include "ring/packed.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { A = 1, B, C, D, E, F };

static const char *name(uint32_t sym)
{
	static const char *names[] = { "?", "A", "B", "C", "D", "E", "F" };

	return sym < 7 ? names[sym] : "?";
}

/* Each node as "A10>B50>D90", sorted into one line: the tree's shape. */
static void shape(const struct cc_result *r, char *out, size_t room)
{
	char lines[64][128];
	size_t n = 0;

	for (size_t i = 1; i < r->n && n < 64; i++) {
		uint32_t path[32], k = 0;
		size_t at = 0;

		for (uint32_t x = (uint32_t)i; x && k < 32; x = r->nodes[x].parent)
			path[k++] = x;
		lines[n][0] = '\0';
		while (k--)
			at += (size_t)snprintf(lines[n] + at, sizeof(lines[n]) - at, "%s%s%u",
					       at ? ">" : "", name(r->nodes[path[k]].sym),
					       r->nodes[path[k]].depth);
		n++;
	}
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && strcmp(lines[j - 1], lines[j]) > 0; j--) {
			char t[128];

			memcpy(t, lines[j], sizeof(t));
			memcpy(lines[j], lines[j - 1], sizeof(t));
			memcpy(lines[j - 1], t, sizeof(t));
		}
	out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		strncat(out, lines[i], room - strlen(out) - 1);
		strncat(out, " ", room - strlen(out) - 1);
	}
}

#define CHECK_STR(got, want) do {					\
	bool same_ = strcmp((got), (want)) == 0;			\
	CHECK(same_);							\
	if (!same_)							\
		fprintf(stderr, "  got  '%s'\n  want '%s'\n", (got), (want)); \
} while (0)

/* The paper's sample: its function and depth alone. */
static void add_sample(struct callerchain *c, uint32_t sym, uint32_t depth,
		       const uint32_t *reference, size_t nreference, uint64_t count)
{
	struct cc_frame f = { sym, depth };

	callerchain_add_sample(c, &f, 1, reference, nreference, count);
}

static const struct cc_node *find(const struct cc_result *r, uint32_t sym, uint32_t depth,
				  uint32_t parent_sym)
{
	for (size_t i = 1; i < r->n; i++)
		if (r->nodes[i].sym == sym && r->nodes[i].depth == depth &&
		    r->nodes[r->nodes[i].parent].sym == parent_sym)
			return &r->nodes[i];
	return NULL;
}

/* Fig. 6: the table's rows, samples as the paper counts them. */
static void figure6(void)
{
	struct callerchain c;
	struct cc_result r;
	char got[1024];

	callerchain_init(&c);
	callerchain_add_call(&c, B, 50, A, 10, 10);
	callerchain_add_call(&c, C, 40, A, 10, 10);
	callerchain_add_call(&c, D, 90, B, 50, 20);
	callerchain_add_call(&c, D, 80, C, 40, 40);
	callerchain_add_call(&c, E, 50, C, 40, 10);
	callerchain_add_call(&c, E, 100, D, 90, 80);
	/* Samples in E at depth 100: only A-B-D puts D at 90. */
	add_sample(&c, E, 100, NULL, 0, 8);
	add_sample(&c, E, 50, NULL, 0, 2);
	callerchain_build(&c, &r);
	shape(&r, got, sizeof(got));
	CHECK_STR(got, "A10 A10>B50 A10>B50>D90 A10>B50>D90>E100 A10>C40 A10>C40>D80 "
		  "A10>C40>E50 ");
	CHECK(r.ambiguous_nodes == 0);
	CHECK(find(&r, E, 100, D) && fabs(find(&r, E, 100, D)->self - 8) < 1e-9);
	CHECK(find(&r, E, 50, C) && fabs(find(&r, E, 50, C)->self - 2) < 1e-9);
	/* E at 50 has two callers above it (C, A); at 100, three (D, B, A). */
	CHECK(fabs(r.unique[1] - 10) < 1e-9 && fabs(r.unique[3] - 8) < 1e-9);
	CHECK(r.unique[4] == 0);
	CHECK(r.functions == 5);

	/*
	 * §6.2's fitting: a miss in E taken at depth 40, after E returned to
	 * C, matches no node; E under A-C has a caller at 40, so it goes there.
	 */
	add_sample(&c, E, 40, NULL, 0, 3);
	callerchain_result_free(&r);
	callerchain_build(&c, &r);
	CHECK(fabs(find(&r, E, 50, C)->self - 5) < 1e-9);
	CHECK(fabs(r.fitted - 3) < 1e-9 && r.unresolved == 0);
	/* Nothing of F at any depth: unresolved, never guessed. */
	add_sample(&c, F, 70, NULL, 0, 4);
	callerchain_result_free(&r);
	callerchain_build(&c, &r);
	CHECK(fabs(r.unresolved - 4) < 1e-9);
	callerchain_result_free(&r);
	callerchain_free(&c);
}

/* Fig. 7 (A)'s quadruples: D at 90 called from B and from F, both at 50. */
static void figure7a_calls(struct callerchain *c)
{
	callerchain_add_call(c, B, 50, A, 10, 5);
	callerchain_add_call(c, F, 50, A, 10, 5);
	callerchain_add_call(c, D, 90, B, 50, 30);
	callerchain_add_call(c, D, 90, F, 50, 10);
	callerchain_add_call(c, E, 100, D, 90, 40);
}

/*
 * Fig. 7 (A): B and F have equal frames, so D at 90 has two callers at
 * one depth; E under D is ambiguous and shared 3:1 as B-D and F-D are
 * observed.  The reference says every E sample came through B.
 */
static void figure7a(void)
{
	struct callerchain c;
	struct cc_result r;
	const uint32_t via_b[] = { D, B, A };
	char got[1024];

	callerchain_init(&c);
	figure7a_calls(&c);
	add_sample(&c, E, 100, via_b, 3, 100);
	callerchain_build(&c, &r);
	shape(&r, got, sizeof(got));
	CHECK_STR(got, "A10 A10>B50 A10>B50>D90 A10>B50>D90>E100 A10>F50 A10>F50>D90 "
		  "A10>F50>D90>E100 ");
	/* Both D nodes and (their pair's callers being two) nothing else. */
	CHECK(r.ambiguous_nodes == 2);
	CHECK(find(&r, D, 90, B)->ambiguous && find(&r, D, 90, F)->ambiguous);
	{
		double via_bd = 0, via_fd = 0;

		for (size_t i = 1; i < r.n; i++)
			if (r.nodes[i].sym == E) {
				uint32_t d = r.nodes[i].parent;

				if (r.nodes[r.nodes[d].parent].sym == B)
					via_bd = r.nodes[i].self;
				else
					via_fd = r.nodes[i].self;
			}
		CHECK(fabs(via_bd - 75) < 1e-9 && fabs(via_fd - 25) < 1e-9);
	}
	/* One level up is D either way; two levels up, only 75% say B. */
	CHECK(fabs(r.unique[1] - 100) < 1e-9 && r.unique[2] == 0);
	CHECK(fabs(r.compared[1] - 100) < 1e-9 && fabs(r.agreed[1] - 100) < 1e-9);
	CHECK(fabs(r.agreed[2] - 75) < 1e-9 && fabs(r.agreed[3] - 75) < 1e-9);
	CHECK(r.compared[4] == 0);
	CHECK(r.compared_clear[1] == 0);	/* E's one pair has two nodes */
	/* As a calling context tree: both D nodes marked, a mark for every node. */
	{
		struct cct t;
		uint8_t *marks;
		size_t marked = 0;

		static const uint32_t starts[] = { A };

		cct_init(&t);
		callerchain_to_cct(&r, &t, &marks, starts, 1);
		CHECK(t.samples == 100 && marks != NULL && t.truncated == 0);
		for (size_t i = 0; marks && i < t.n; i++)
			marked += marks[i];
		CHECK(marked == 2);
		for (size_t i = 1; marks && i < t.n; i++)
			if (marks[i])
				CHECK(cct_node(&t, (uint32_t)i)->sym == D);
		free(marks);
		cct_free(&t);
	}
	callerchain_result_free(&r);

	/*
	 * On x86-64 a sample's copy may reach its callers: anchored at D90 it
	 * is as ambiguous as before; reaching B50, it is placed exactly.
	 */
	{
		const struct cc_frame to_d[] = { { E, 100 }, { D, 90 } };
		const struct cc_frame to_b[] = { { E, 100 }, { D, 90 }, { B, 50 } };

		callerchain_add_sample(&c, to_d, 2, via_b, 3, 100);
		callerchain_add_sample(&c, to_b, 3, via_b, 3, 100);
		callerchain_build(&c, &r);
		CHECK(r.samples == 300);
		CHECK(fabs(r.unique[1] - 300) < 1e-9 && fabs(r.unique[2] - 100) < 1e-9);
		CHECK(fabs(r.unique[3] - 100) < 1e-9 && r.unique[4] == 0);
		CHECK(fabs(r.agreed[2] - (75 + 75 + 100)) < 1e-9);
		for (size_t i = 1; i < r.n; i++)
			if (r.nodes[i].sym == E)
				CHECK(fabs(r.nodes[i].self -
					   (r.nodes[r.nodes[r.nodes[i].parent].parent].sym == B ?
					    250 : 50)) < 1e-9);
		callerchain_result_free(&r);
	}
	callerchain_free(&c);
}

/*
 * The calling context tree keeps every sample: two samples of E shared
 * 3:1 between its two D nodes are 1.5 and 0.5 (each rounded, three); a
 * sample whose frame the tree lacks keeps its own frames under the
 * marker of unseen callers, as do paths that start elsewhere than a
 * start.
 */
static void every_sample_kept(void)
{
	static const uint32_t starts[] = { A };
	const uint32_t via_b[] = { D, B, A };
	const struct cc_frame lost[] = { { C, 700 }, { F, 600 } };
	struct callerchain c;
	struct cc_result r;
	struct cct t;
	uint32_t marker = 0;

	callerchain_init(&c);
	figure7a_calls(&c);
	add_sample(&c, E, 100, via_b, 3, 2);
	callerchain_add_sample(&c, lost, 2, NULL, 0, 5);
	callerchain_build(&c, &r);
	CHECK(r.samples == 7 && fabs(r.unresolved - 5) < 1e-9);
	cct_init(&t);
	callerchain_to_cct(&r, &t, NULL, starts, 1);
	CHECK_EQ_U64(t.samples, 7);
	CHECK_EQ_U64(t.truncated, 5);
	for (uint32_t i = 1; i < t.n; i++)
		if (cct_node(&t, i)->sym == CCT_SYM_TRUNCATED)
			marker = i;
	CHECK(marker && cct_node(&t, marker)->parent == CCT_ROOT &&
	      cct_node(&t, marker)->total == 5);
	/* Under it F, then C with the samples: the sample's own frames, outermost first. */
	CHECK(marker && cct_node(&t, cct_node(&t, marker)->child)->sym == F);
	CHECK(marker && cct_node(&t, cct_node(&t, cct_node(&t, marker)->child)->child)->self == 5);
	cct_free(&t);
	/* No start known: every path under the marker, none lost. */
	cct_init(&t);
	callerchain_to_cct(&r, &t, NULL, NULL, 0);
	CHECK(t.samples == 7 && t.truncated == 7);
	cct_free(&t);
	callerchain_result_free(&r);
	callerchain_free(&c);
}

/* Fig. 7 (B): B and C called in both orders with equal frames. */
static void figure7b(void)
{
	struct callerchain c;
	struct cc_result r;

	callerchain_init(&c);
	callerchain_add_call(&c, B, 30, A, 10, 4);
	callerchain_add_call(&c, C, 50, B, 30, 4);
	callerchain_add_call(&c, E, 70, C, 50, 6);
	callerchain_add_call(&c, C, 30, A, 10, 4);
	callerchain_add_call(&c, B, 50, C, 30, 4);
	callerchain_add_call(&c, E, 70, B, 50, 2);
	add_sample(&c, E, 70, NULL, 0, 40);
	callerchain_build(&c, &r);
	CHECK(r.ambiguous_nodes == 2);	/* E under A-B-C and under A-C-B */
	CHECK(fabs(find(&r, E, 70, C)->self - 30) < 1e-9);
	CHECK(fabs(find(&r, E, 70, B)->self - 10) < 1e-9);
	CHECK(r.unique[1] == 0);
	callerchain_result_free(&r);
	callerchain_free(&c);
}

/* A callee no deeper than its caller cannot be: dropped and counted. */
static void backward(void)
{
	struct callerchain c;

	callerchain_init(&c);
	callerchain_add_call(&c, B, 10, A, 10, 1);
	callerchain_add_call(&c, B, 5, A, 10, 2);
	CHECK(c.backward == 3 && c.nedges == 0);
	callerchain_free(&c);
}

static uint32_t identity(uint32_t id, void *arg)
{
	(void)arg;
	return id;
}

/* A snapshot's symbols get new ids; D is missing from the second map. */
static uint32_t shifted(uint32_t id, void *arg)
{
	return arg && id == D ? UINT32_MAX : id + 100;
}

/* Fig. 7 (A)'s input, saved and read back: the same tree and agreement. */
static void saved(void)
{
	const uint32_t via_b[] = { D, B, A };
	const struct cc_frame to_b[] = { { E, 100 }, { D, 90 }, { B, 50 } };
	struct callerchain c, back;
	struct packed_out o = { 0 }, again = { 0 };
	struct cc_result r, rb;
	char err[256], got[1024], want[1024];
	size_t cut;

	callerchain_init(&c);
	figure7a_calls(&c);
	callerchain_add_call(&c, E, 80, D, 90, 1);	/* backward: counted only */
	add_sample(&c, E, 100, via_b, 3, 100);
	callerchain_add_sample(&c, to_b, 3, via_b, 3, 100);
	c.no_depth = 7;
	callerchain_save(&c, &o);

	callerchain_init(&back);
	CHECK(callerchain_load(&back, o.p, o.n, identity, NULL, err, sizeof(err)) == 0);
	CHECK(back.samples == 200 && back.checked == 200 && back.no_depth == 7);
	CHECK(back.backward == 1 && back.quadruples == c.quadruples && back.nedges == 5);
	callerchain_build(&c, &r);
	callerchain_build(&back, &rb);
	shape(&r, want, sizeof(want));
	shape(&rb, got, sizeof(got));
	CHECK_STR(got, want);
	CHECK(rb.ambiguous_nodes == r.ambiguous_nodes && rb.agreed[2] == r.agreed[2]);
	callerchain_result_free(&rb);
	/* Saved again: the same bytes. */
	callerchain_save(&back, &again);
	CHECK(again.n == o.n && !memcmp(again.p, o.p, o.n));
	callerchain_free(&back);

	/* Renumbered: every symbol, references included, goes through the map. */
	callerchain_init(&back);
	CHECK(callerchain_load(&back, o.p, o.n, shifted, NULL, err, sizeof(err)) == 0);
	callerchain_build(&back, &rb);
	CHECK(rb.n == r.n && fabs(rb.agreed[2] - r.agreed[2]) < 1e-9);
	for (size_t i = 1; i < rb.n; i++)
		CHECK(rb.nodes[i].sym > 100 && rb.nodes[i].sym <= 100 + F);
	callerchain_result_free(&rb);
	callerchain_free(&back);
	callerchain_result_free(&r);

	/* A symbol the snapshot does not have, a cut anywhere, bytes after the end. */
	callerchain_init(&back);
	CHECK(callerchain_load(&back, o.p, o.n, shifted, &back, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "names no symbol") != NULL);
	callerchain_free(&back);
	for (cut = 0; cut < o.n; cut++) {
		callerchain_init(&back);
		CHECK(callerchain_load(&back, o.p, cut, identity, NULL, err, sizeof(err)) ==
		      -EINVAL);
		callerchain_free(&back);
	}
	packed_u8(&o, 0);
	callerchain_init(&back);
	CHECK(callerchain_load(&back, o.p, o.n, identity, NULL, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "1 bytes follow") != NULL);
	callerchain_free(&back);
	free(o.p);
	free(again.p);
	callerchain_free(&c);
}

int main(void)
{
	saved();
	figure6();
	figure7a();
	figure7b();
	every_sample_kept();
	backward();
	return check_done("test_callerchain");
}
