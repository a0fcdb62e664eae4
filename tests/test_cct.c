/*
 * test_cct.c - the calling context tree: paths merged on shared
 * prefixes with exact self and total counts, a function in two contexts
 * kept apart, recursion nested, chains cut by the kernel or deeper than
 * the cap under "[truncated chain]", a full tree stopping samples short
 * and counting them; then through the model, samples' chains of this
 * program's functions printed as folded stacks.
 */
#include "check.h"
#include "own_maps.h"
#include "model/callers_seen.h"
#include "model/cct.h"
#include "model/paths_seen.h"
#include "util.h"
#include "model/model.h"
#include "output/report.h"
#include "ring/record.h"
#include "symbols/symbols.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline)) int cct_fn_main(void);
__attribute__((noinline)) int cct_fn_main(void)
{
	return 1;
}

__attribute__((noinline)) int cct_fn_a(void);
__attribute__((noinline)) int cct_fn_a(void)
{
	return 2;
}

__attribute__((noinline)) int cct_fn_b(void);
__attribute__((noinline)) int cct_fn_b(void)
{
	return 3;
}

static void paths(void)
{
	struct cct t;
	const uint32_t mab[] = { 1, 2, 3 }, ma[] = { 1, 2 }, mcb[] = { 1, 4, 3 };
	const uint32_t xy[] = { 8, 9 }, rec[] = { 1, 5, 5, 5 };
	uint32_t main_n, a, b_in_a, c, b_in_c, trunc, r1, r2, r3;

	cct_init(&t);
	for (int i = 0; i < 3; i++)
		cct_add(&t, mab, 3, false, 10);
	cct_add(&t, ma, 2, false, 10);
	cct_add(&t, mcb, 3, false, 10);
	CHECK(cct_add(&t, mcb, 3, false, 30) == cct_find(&t, cct_find(&t, cct_find(&t, 0, 1), 4), 3));
	cct_add(&t, xy, 2, true, 10);
	main_n = cct_find(&t, CCT_ROOT, 1);
	a = cct_find(&t, main_n, 2);
	b_in_a = cct_find(&t, a, 3);
	c = cct_find(&t, main_n, 4);
	b_in_c = cct_find(&t, c, 3);
	trunc = cct_find(&t, CCT_ROOT, CCT_SYM_TRUNCATED);
	CHECK(main_n && a && b_in_a && c && b_in_c && trunc);
	CHECK(b_in_a != b_in_c);	/* one function, two contexts */
	/* A sample counts in its own node: the totals come when settled. */
	CHECK_EQ_U64(cct_node(&t, CCT_ROOT)->total, 0);
	CHECK(t.unsettled);
	cct_settle(&t);
	CHECK_EQ_U64(cct_node(&t, CCT_ROOT)->total, 7);
	CHECK_EQ_U64(cct_node(&t, CCT_ROOT)->self, 0);
	CHECK_EQ_U64(cct_node(&t, main_n)->total, 6);
	CHECK_EQ_U64(cct_node(&t, main_n)->total_weight, 80);
	CHECK_EQ_U64(cct_node(&t, a)->total, 4);
	CHECK_EQ_U64(cct_node(&t, a)->self, 1);
	CHECK_EQ_U64(cct_node(&t, b_in_a)->self, 3);
	CHECK_EQ_U64(cct_node(&t, b_in_c)->self, 2);
	CHECK_EQ_U64(cct_node(&t, b_in_c)->self_weight, 40);
	CHECK_EQ_U64(cct_node(&t, b_in_c)->depth, 3);
	CHECK_EQ_U64(cct_node(&t, cct_find(&t, cct_find(&t, trunc, 8), 9))->self, 1);
	CHECK(cct_find(&t, CCT_ROOT, 8) == 0);	/* a cut chain is not a root path */
	CHECK_EQ_U64(t.truncated, 1);
	CHECK_EQ_U64(t.samples, 7);

	/* Bottom-up: where samples ended at the top, callers under them. */
	{
		struct cct inv;
		uint32_t b, b_a, b_c, a_top, y;

		cct_invert(&t, &inv);
		b = cct_find(&inv, CCT_ROOT, 3);
		b_a = cct_find(&inv, b, 2);
		b_c = cct_find(&inv, b, 4);
		a_top = cct_find(&inv, CCT_ROOT, 2);
		y = cct_find(&inv, CCT_ROOT, 9);
		CHECK(b && b_a && b_c && a_top && y);
		CHECK_EQ_U64(inv.samples, 7);
		CHECK_EQ_U64(cct_node(&inv, b)->total, 5);
		CHECK_EQ_U64(cct_node(&inv, b)->total_weight, 70);
		CHECK_EQ_U64(cct_node(&inv, b_a)->total, 3);
		CHECK_EQ_U64(cct_node(&inv, cct_find(&inv, b_a, 1))->self, 3);
		CHECK_EQ_U64(cct_node(&inv, b_c)->total, 2);
		CHECK_EQ_U64(cct_node(&inv, a_top)->total, 1);
		CHECK_EQ_U64(cct_node(&inv, cct_find(&inv, cct_find(&inv, y, 8),
						 CCT_SYM_TRUNCATED))->self, 1);
		CHECK(cct_find(&inv, CCT_ROOT, 1) == 0);	/* main: no sample ended there */
		CHECK_EQ_U64(inv.truncated, 1);
		cct_free(&inv);
	}

	/* Recursion nests, a level a call. */
	cct_add(&t, rec, 4, false, 1);
	r1 = cct_find(&t, main_n, 5);
	r2 = cct_find(&t, r1, 5);
	r3 = cct_find(&t, r2, 5);
	cct_settle(&t);
	CHECK(r1 && r2 && r3 && cct_node(&t, r3)->self == 1 && cct_node(&t, r1)->total == 1);
	/* Settled again after more samples: the totals are summed anew, not added twice. */
	CHECK_EQ_U64(cct_node(&t, main_n)->total, 7);

	/* The transforms: collapse recursion, merge a function, focus on one. */
	{
		struct cct_transform x;
		struct cct out;
		uint32_t m1, m_a, m_c;

		memset(&x, 0, sizeof(x));
		x.collapse_recursion = true;
		cct_transform(&t, &x, &out);
		m1 = cct_find(&out, CCT_ROOT, 1);
		CHECK(m1 && cct_find(&out, m1, 5) && !cct_find(&out, cct_find(&out, m1, 5), 5));
		CHECK_EQ_U64(cct_node(&out, cct_find(&out, m1, 5))->self, 1);
		CHECK_EQ_U64(out.samples, 8);
		cct_free(&out);

		/* a merged away: main;a;b becomes main;b, main;a's sample is main's own. */
		memset(&x, 0, sizeof(x));
		x.merged[x.nmerged++] = 2;
		cct_transform(&t, &x, &out);
		m1 = cct_find(&out, CCT_ROOT, 1);
		CHECK(m1 && !cct_find(&out, m1, 2));
		CHECK_EQ_U64(cct_node(&out, cct_find(&out, m1, 3))->self, 3);
		CHECK_EQ_U64(cct_node(&out, m1)->self, 1);
		CHECK_EQ_U64(cct_node(&out, m1)->total, 7);
		cct_free(&out);

		/* Focus on a: only paths through it, from it. */
		memset(&x, 0, sizeof(x));
		x.focus = true;
		x.focus_sym = 2;
		cct_transform(&t, &x, &out);
		m_a = cct_find(&out, CCT_ROOT, 2);
		m_c = cct_find(&out, CCT_ROOT, 4);
		CHECK(m_a && !m_c && !cct_find(&out, CCT_ROOT, 1));
		CHECK_EQ_U64(out.samples, 4);
		CHECK_EQ_U64(cct_node(&out, cct_find(&out, m_a, 3))->self, 3);
		cct_free(&out);
	}

	/* Deeper than the cap: the innermost CCT_MAX_DEPTH under the marker. */
	{
		uint32_t deep[CCT_MAX_DEPTH + 88], at;

		for (size_t i = 0; i < CCT_MAX_DEPTH + 88; i++)
			deep[i] = 1000 + (uint32_t)i;
		at = cct_add(&t, deep, CCT_MAX_DEPTH + 88, false, 1);
		CHECK_EQ_U64(cct_node(&t, at)->depth, CCT_MAX_DEPTH + 1);
		CHECK_EQ_U64(cct_node(&t, at)->sym, 1000 + CCT_MAX_DEPTH + 87);
		CHECK(cct_find(&t, trunc, 1088) != 0);	/* the first frame kept */
		CHECK_EQ_U64(t.truncated, 2);
	}
	cct_clear(&t);
	CHECK(t.samples == 0 && t.nodes == NULL);
	cct_free(&t);

	/* Full: a new path stops at the deepest node it has; counted, never lost. */
	cct_init(&t);
	for (uint32_t i = 0; i < CCT_MAX_NODES - 1; i++)
		cct_add(&t, &i, 1, false, 1);
	CHECK_EQ_U64(t.n, CCT_MAX_NODES);
	{
		const uint32_t known_then_new[] = { 7, 424242424 };

		CHECK(cct_add(&t, known_then_new, 2, false, 1) == cct_find(&t, CCT_ROOT, 7));
		CHECK_EQ_U64(t.capped, 1);
		CHECK_EQ_U64(cct_node(&t, cct_find(&t, CCT_ROOT, 7))->self, 2);
		cct_settle(&t);
		CHECK_EQ_U64(cct_node(&t, CCT_ROOT)->total, CCT_MAX_NODES);
	}
	CHECK(cct_bytes(&t) > CCT_MAX_NODES * sizeof(struct cct_node));
	cct_free(&t);

	/* Bounded by --memory (5 MB: 72,817 nodes), kept through cct_clear: full there. */
	cct_init(&t);
	cct_bound(&t, (size_t)5 << 20);
	CHECK_EQ_U64(cct_max_nodes(&t), ((size_t)5 << 20) / (sizeof(struct cct_node) + 16));
	cct_clear(&t);
	for (uint32_t i = 0; i < 100000; i++)
		cct_add(&t, &i, 1, false, 1);
	CHECK_EQ_U64(t.n, cct_max_nodes(&t));
	CHECK_EQ_U64(t.capped, 100000 - (cct_max_nodes(&t) - 1));
	cct_settle(&t);
	CHECK_EQ_U64(cct_node(&t, CCT_ROOT)->total, 100000);
	cct_free(&t);
}

static uint64_t sample_time = 1000000000;
static const uint64_t *sample_counters;	/* cycles, instructions; NULL: none */

/* A sample in ip, its chain: ip, then return addresses, innermost first. */
static void sample(struct model *m, const uint64_t *chain, uint16_t n, uint32_t flags)
{
	_Alignas(8) unsigned char buf[sizeof(struct st_sample) + 130 * sizeof(uint64_t)];
	struct st_sample *s = (void *)buf;
	unsigned nc = sample_counters ? 2 : 0;

	memset(buf, 0, sizeof(buf));
	s->h = (struct st_header){ ST_REC_SAMPLE, ST_SOURCE_PERF,
				   (uint32_t)(sizeof(*s) + (nc + n) * sizeof(uint64_t)) };
	s->pid = s->tid = (uint32_t)getpid();
	s->time = sample_time;
	s->ip = chain[0];
	s->period = 1;
	s->nchain = n;
	s->flags = flags;
	s->ncounters = (uint8_t)nc;
	if (nc) {
		s->flags |= ST_SAMPLE_HAS_COUNTERS;
		memcpy(s->data, sample_counters, 2 * sizeof(uint64_t));
	}
	memcpy(s->data + nc, chain, n * sizeof(uint64_t));
	model_ingest(m, s);
}

static void folded(void)
{
	struct symbolizer *sy = symbolizer_create(true);
	/* Return addresses point past a call: a few bytes into the caller. */
	uint64_t fmain = (uint64_t)(uintptr_t)&cct_fn_main + 4;
	uint64_t fa = (uint64_t)(uintptr_t)&cct_fn_a + 4, fb = (uint64_t)(uintptr_t)&cct_fn_b + 1;
	const uint64_t mab[] = { fb, fa, fmain }, ma[] = { fa, fmain }, mb[] = { fb, fmain };
	struct model m;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	model_init(&m, sy);
	symbols_read_proc_maps(getpid(), ingest_own_map, &m);
	for (int i = 0; i < 3; i++)
		sample(&m, mab, 3, 0);
	sample_time = 2000000000;	/* the rest a second later */
	sample(&m, ma, 2, 0);
	sample(&m, mb, 2, 0);
	sample(&m, mb, 2, ST_SAMPLE_CHAIN_TRUNC);
	out = open_memstream(&text, &len);
	report_folded(&m, out);
	fclose(out);
	CHECK(text && strstr(text, "cct_fn_main;cct_fn_a;cct_fn_b 3\n"));
	CHECK(text && strstr(text, "cct_fn_main;cct_fn_a 1\n"));
	CHECK(text && strstr(text, "cct_fn_main;cct_fn_b 1\n"));
	CHECK(text && strstr(text, "[truncated chain];cct_fn_main;cct_fn_b 1\n"));
	/* Four paths, six samples: nothing else printed. */
	{
		char *copy = strdup(text ? text : ""), *save = NULL;
		int lines = 0;
		unsigned long sum = 0;

		for (char *line = strtok_r(copy, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			sum += strtoul(strrchr(line, ' ') + 1, NULL, 10);
			lines++;
		}
		CHECK(lines == 4 && sum == 6);
		free(copy);
	}
	free(text);
	CHECK_EQ_U64(m.tree.samples, 6);
	/* The second second's tree: its three samples on their paths. */
	{
		struct model r;
		uint32_t main_sym = 0;

		CHECK(model_range(&m, 1500000000, 3000000000, &r));
		CHECK_EQ_U64(r.tree.samples, 3);
		CHECK_EQ_U64(r.tree.truncated, 1);
		for (size_t i = 1; i < m.tree.n; i++)
			if (m.tree.nodes[i].parent == CCT_ROOT &&
			    m.tree.nodes[i].sym != CCT_SYM_TRUNCATED)
				main_sym = m.tree.nodes[i].sym;
		{
			uint32_t rm = cct_find(&r.tree, CCT_ROOT, main_sym);

			/* main > a (1) and main > b (1); a > b is not in this second. */
			CHECK(rm && cct_node(&r.tree, rm)->total == 2);
			CHECK(rm && cct_node(&r.tree, rm)->child &&
			      !cct_node(&r.tree, cct_node(&r.tree, rm)->child)->child);
		}
		model_free(&r);
	}
	model_zero(&m);
	CHECK_EQ_U64(m.tree.samples, 0);
	/* Zeroed, the history's samples still name the right nodes. */
	{
		struct model r;

		CHECK(model_range(&m, 0, 3000000000, &r));
		CHECK_EQ_U64(r.tree.samples, 6);
		CHECK_EQ_U64(r.tree.max_depth, 3);	/* main a b */
		model_free(&r);
	}
	model_free(&m);
	symbolizer_destroy(sy);
}

/* Whether every node of t is in ref on the same path with the same counts. */
static bool same_tree(const struct cct *t, const struct cct *ref)
{
	uint32_t path[CCT_MAX_DEPTH + 1];

	if (t->n != ref->n || t->samples != ref->samples || t->truncated != ref->truncated ||
	    t->max_depth != ref->max_depth)
		return false;
	for (size_t i = 0; i < t->n; i++) {
		size_t k = i ? cct_path(t, (uint32_t)i, path) : 0;
		uint32_t at = CCT_ROOT;

		for (size_t j = 0; j < k && at != UINT32_MAX; j++)
			at = cct_find(ref, at, path[j]) ? cct_find(ref, at, path[j]) : UINT32_MAX;
		if (at == UINT32_MAX || ref->nodes[at].total != t->nodes[i].total ||
		    ref->nodes[at].self != t->nodes[i].self ||
		    ref->nodes[at].total_weight != t->nodes[i].total_weight ||
		    ref->nodes[at].self_weight != t->nodes[i].self_weight)
			return false;
	}
	return true;
}

/*
 * A model on this process's maps, its reference tree, and four places:
 * return addresses in three of its functions and one in no file.
 */
static void own_model(struct model *m, struct symbolizer *sy, struct cct *ref, uint64_t fns[4])
{
	fns[0] = (uint64_t)(uintptr_t)&cct_fn_main + 4;
	fns[1] = (uint64_t)(uintptr_t)&cct_fn_a + 4;
	fns[2] = (uint64_t)(uintptr_t)&cct_fn_b + 1;
	fns[3] = 0x10;
	model_init(m, sy);
	symbolizer_set_time(sy, 1);
	cct_init(ref);
	symbols_read_proc_maps(getpid(), ingest_own_map, m);
}

/* The reference: each caller looked up at its address less one, root first. */
static void add_reference(struct cct *ref, struct symbolizer *sy, const uint64_t *chain,
			  uint16_t n, bool cut)
{
	uint32_t frames[CCT_MAX_DEPTH];

	for (uint16_t j = 0; j < n; j++)
		frames[n - 1 - j] = symbolizer_lookup(sy, getpid(), j ? chain[j] - 1 : chain[0],
						      false)->id;
	cct_add(ref, frames, n, cut, 1);
}

/*
 * Chains whose callers were seen before (callers_seen) make the tree
 * cct_add makes of every frame looked up: samples from a few places
 * under a few callers, some truncated, some in unknown code, across a
 * change of the process's map; and 100-frame chains alike in their first
 * 60 frames, told apart by the rest (an entry keeps only 8).
 */
static void seen_callers(void)
{
	struct symbolizer *sy = symbolizer_create(true);
	uint64_t fns[4];
	uint64_t x = 0x2545f4914f6cdd1dull, long_hits = 0;
	struct model m;
	struct cct ref;

	own_model(&m, sy, &ref, fns);
	for (int i = 0; i < 3000; i++) {
		uint64_t chain[100];
		uint16_t n;
		bool cut;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		n = (uint16_t)(1 + x % 6);
		for (uint16_t j = 0; j < n; j++)
			chain[j] = fns[(x >> (8 + 2 * j)) % (j ? 4 : 3)];
		if ((x >> 50) % 3 == 0) {
			n = 100;
			for (uint16_t j = 1; j < n; j++)
				chain[j] = j < 60 ? fns[1 + j % 2] : fns[(j + (x >> 44) % 3) % 4];
		}
		cut = (x >> 40) % 5 == 0;
		{
			uint64_t hits = m.callers_seen.hits;

			sample(&m, chain, n, cut ? ST_SAMPLE_CHAIN_TRUNC : 0);
			long_hits += n == 100 && m.callers_seen.hits > hits;
		}
		add_reference(&ref, sy, chain, n, cut);
		if (i == 1500)	/* the map read again: a new generation, old entries not used */
			symbols_read_proc_maps(getpid(), ingest_own_map, &m);
	}
	CHECK(m.callers_seen.hits > 1000);
	CHECK(long_hits > 300);
	CHECK(same_tree(&m.tree, &ref));
	cct_free(&ref);
	model_free(&m);
	symbolizer_destroy(sy);
}

/*
 * Paths seen: the deepest kept path of a chain, by a binary search that
 * a wrong hint does not mislead, against every prefix kept, counted by
 * brute force; another generation's or a truncated chain's paths are
 * not found; grown keeping them all; emptied whole when full at its
 * largest.
 */
#define PS_CHAINS	64
#define PS_DEPTH	40

static void paths_seen_search(void)
{
	static uint64_t ips[PS_CHAINS][PS_DEPTH], hashes[PS_CHAINS][PS_DEPTH];
	struct paths_seen p = { .seed = 42 };
	uint64_t x = 0x9e3779b97f4a7c15ull, start = paths_seen_start(&p, 7, false);
	size_t found = 0;

	/* Chains over three addresses: many share their outer paths. */
	for (int c = 0; c < PS_CHAINS; c++)
		for (int i = 0; i < PS_DEPTH; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			ips[c][i] = i < 3 ? 0x1000 + (uint64_t)i : 0x1000 + x % 3;
			hashes[c][i] = paths_seen_step(i ? hashes[c][i - 1] : start, ips[c][i]);
		}
	/* The first half kept, each path's node naming the chain and depth that put it first. */
	for (int c = 0; c < PS_CHAINS / 2; c++) {
		size_t kept = paths_seen_deepest(&p, hashes[c], PS_DEPTH, 0, &(struct paths_seen_entry){ 0 });

		paths_seen_reserve(&p, PS_DEPTH);
		for (size_t i = kept; i < PS_DEPTH; i++)
			paths_seen_put(&p, hashes[c][i], (struct paths_seen_entry){
				.node = (uint32_t)(c * 100 + (int)i), .unknown = (uint32_t)i % 7, .root = 5 });
	}
	/* Grown to make room: every path kept moves with it, as the searches below find. */
	CHECK(p.cap == PATHS_SEEN_FIRST);
	paths_seen_reserve(&p, PATHS_SEEN_FIRST);
	CHECK(p.cap == 2 * PATHS_SEEN_FIRST && p.emptied == 0 && p.used > PS_DEPTH);
	for (int c = 0; c < PS_CHAINS; c++) {
		/* By brute force: the longest prefix any kept chain has, and the first that had it. */
		size_t want = 0;
		int by = -1;

		for (int k = 0; k < PS_CHAINS / 2; k++) {
			size_t d = 0;

			while (d < PS_DEPTH && ips[k][d] == ips[c][d])
				d++;
			if (d > want)
				want = d, by = k;
		}
		for (int k = 0; by >= 0 && k < by; k++)	/* the first to have put it */
			if (!memcmp(ips[k], ips[c], want * sizeof(uint64_t))) {
				by = k;
				break;
			}
		for (size_t hint = 0; hint <= PS_DEPTH; hint += 9) {
			struct paths_seen_entry e = { 0 };
			size_t got = paths_seen_deepest(&p, hashes[c], PS_DEPTH, hint, &e);

			CHECK(got == want);
			if (got)
				CHECK(e.node == (uint32_t)(by * 100 + (int)want - 1) && e.root == 5 &&
				      e.unknown == (want - 1) % 7);
			found += got;
		}
	}
	CHECK(found > 0);
	/* Another generation, or truncated: none of them. */
	for (int g = 0; g < 2; g++) {
		uint64_t h = paths_seen_start(&p, g ? 8 : 7, g == 0), hs[PS_DEPTH];

		for (int i = 0; i < PS_DEPTH; i++)
			hs[i] = h = paths_seen_step(h, ips[0][i]);
		CHECK(paths_seen_deepest(&p, hs, PS_DEPTH, PS_DEPTH, &(struct paths_seen_entry){ 0 }) == 0);
	}
	/* Full: emptied whole before the next chain, nothing found after. */
	CHECK(paths_seen_deepest(&p, hashes[0], PS_DEPTH, 0, &(struct paths_seen_entry){ 0 }) ==
	      PS_DEPTH);
	p.used = PATHS_SEEN_FULL - 1;
	paths_seen_reserve(&p, 2);
	CHECK(p.emptied == 1 && p.used == 0 && p.cap == PATHS_SEEN_SLOTS);
	CHECK(paths_seen_deepest(&p, hashes[0], PS_DEPTH, PS_DEPTH, &(struct paths_seen_entry){ 0 }) == 0);
	paths_seen_free(&p);
	{
		/* Bounded by --memory: 2.5 MB of slots holds 131,072; past 5/8 of them, emptied. */
		struct paths_seen q = { 0 };

		paths_seen_bound(&q, (size_t)5 << 19);
		CHECK_EQ_U64(q.max_cap, 1u << 17);
		paths_seen_start(&q, 1, false);	/* the first path: its slots */
		paths_seen_reserve(&q, 1u << 16);
		CHECK(q.cap == (1u << 17) && q.emptied == 0);
		q.used = 1u << 16;
		paths_seen_reserve(&q, 1u << 15);	/* past the bound: emptied, not grown */
		CHECK(q.cap == (1u << 17) && q.emptied == 1 && q.used == 0);
		paths_seen_free(&q);
	}
}

/*
 * Deep chains whose outer frames come from a few stacks and whose inner
 * ones are new each sample (callers seen misses them): the tree is the
 * one every frame looked up makes, each sample walks only the frames
 * past the deepest path seen, and emptying the paths midway changes
 * nothing in the tree.
 */
static void paths_across_chains(void)
{
	struct symbolizer *sy = symbolizer_create(true);
	uint64_t fns[4];
	uint64_t x = 0x2545f4914f6cdd1dull;
	const int samples = 2000;
	struct model m;
	struct cct ref;

	own_model(&m, sy, &ref, fns);
	for (int i = 0; i < samples; i++) {
		uint64_t chain[70];
		const uint16_t n = 70;
		unsigned stack;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		stack = (unsigned)(x % 3);
		/* Innermost first: 8 new frames, then one of three 62-frame stacks. */
		for (uint16_t j = 0; j < n; j++)
			chain[j] = j < 8 ? fns[(x >> (10 + 2 * j)) % 4]
					 : fns[(j * (stack + 1) + stack) % 3];
		sample(&m, chain, n, 0);
		add_reference(&ref, sy, chain, n, false);
		if (i == samples / 2)
			m.paths_seen.used = PATHS_SEEN_FULL;	/* emptied before the next chain */
	}
	cct_settle(&m.tree);
	cct_settle(&ref);
	CHECK(same_tree(&m.tree, &ref));
	CHECK(m.paths_seen.emptied == 1);
	/* 69 callers a sample if walked; about 8 past the deepest path seen. */
	CHECK(m.tree.steps < (uint64_t)samples * 16);
	cct_free(&ref);
	model_free(&m);
	symbolizer_destroy(sy);
}

/* A callers' chain of n made-up addresses from *x; frames: its length. */
static void made_up_chain(uint64_t *x, uint64_t *ips, size_t n)
{
	for (size_t j = 0; j < n; j++) {
		*x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
		ips[j] = 0x400000 + *x % 0x1000000;
	}
}

/*
 * As many callers' chains as a large program has (a clang++ compile:
 * about 20,000): most are held at once, each found by its own addresses
 * only (not another generation's, not the truncated one's), and the
 * entry found is the one put.  4,096 direct slots held a quarter of
 * 16,000.
 */
static void seen_many(void)
{
	enum { CHAINS = 32000 };
	struct callers_seen c;
	uint64_t x = 0x9e3779b97f4a7c15ull, found = 0, wrong = 0, other = 0;

	memset(&c, 0, sizeof(c));
	c.seed = 0xa4093822299f31d0ull;	/* the same buckets every run */
	for (int pass = 0; pass < 2; pass++) {
		uint64_t y = x;

		for (uint32_t i = 1; i <= CHAINS; i++) {
			uint64_t ips[3];
			const struct callers_seen_entry *e;

			made_up_chain(&y, ips, 3);
			if (!pass) {
				struct callers_seen_entry put = { .gen = 7, .node = i, .frames = 3 };

				callers_seen_put(&c, callers_seen_key(&c, 7, ips, 3, false), &put);
				continue;
			}
			if ((e = callers_seen_find(&c, callers_seen_key(&c, 7, ips, 3, false), 7))) {
				found++;
				wrong += e->node != i || e->frames != 3;
			}
			other += callers_seen_find(&c, callers_seen_key(&c, 8, ips, 3, false), 8) != NULL;
			other += callers_seen_find(&c, callers_seen_key(&c, 7, ips, 3, true), 7) != NULL;
			other += callers_seen_find(&c, callers_seen_key(&c, 7, ips, 2, false), 7) != NULL;
		}
	}
	CHECK(found >= CHAINS * 85 / 100);
	CHECK_EQ_U64(wrong, 0);
	CHECK_EQ_U64(other, 0);
	callers_seen_free(&c);
}

/*
 * Under --memory 40 (callers_seen_bound of 640 KB): 8,192 buckets of two,
 * so of 32,000 chains at most 16,384 are held, every one found right.
 */
static void seen_bounded(void)
{
	enum { CHAINS = 32000 };
	struct callers_seen c;
	uint64_t x = 0x9e3779b97f4a7c15ull, y, found = 0, wrong = 0;

	memset(&c, 0, sizeof(c));
	c.seed = 0xa4093822299f31d0ull;
	callers_seen_bound(&c, (40u << 20) / 64);
	CHECK_EQ_U64(c.bucket_bits, 13);
	for (int pass = 0; pass < 2; pass++) {
		y = x;
		for (uint32_t i = 1; i <= CHAINS; i++) {
			uint64_t ips[3];
			const struct callers_seen_entry *e;
			struct callers_seen_entry put = { .gen = 7, .node = i, .frames = 3 };

			made_up_chain(&y, ips, 3);
			if (!pass)
				callers_seen_put(&c, callers_seen_key(&c, 7, ips, 3, false), &put);
			else if ((e = callers_seen_find(&c, callers_seen_key(&c, 7, ips, 3, false), 7))) {
				found++;
				wrong += e->node != i;
			}
		}
	}
	CHECK(found <= 16384 && found >= 12000);
	CHECK_EQ_U64(wrong, 0);
	/* A bound after the table is made leaves it as it is. */
	callers_seen_bound(&c, 1u << 30);
	CHECK_EQ_U64(c.bucket_bits, 13);
	callers_seen_free(&c);
}

/*
 * A long chain (a frame pointer's walk through data: 126 frames to look
 * up and probe when it misses) outlives short ones that come after it
 * into its bucket: 8,000 long, then 120,000 short (nearly four to a
 * bucket's two entries).  Oldest-first kept 89% of the long; and a
 * bucket that only long ones of an old generation hold is not kept
 * from the new chains for ever.
 */
static void seen_keeps_long(void)
{
	enum { LONG = 8000, SHORT = 120000 };
	struct callers_seen c;
	uint64_t x = 0x2545f4914f6cdd1dull, y, ips[126], found = 0;

	memset(&c, 0, sizeof(c));
	c.seed = 0x243f6a8885a308d3ull;	/* the same buckets every run */
	y = x;
	for (uint32_t i = 1; i <= LONG; i++) {
		struct callers_seen_entry put = { .gen = 3, .node = i, .frames = 126 };

		made_up_chain(&y, ips, 126);
		callers_seen_put(&c, callers_seen_key(&c, 3, ips, 126, true), &put);
	}
	for (uint32_t i = 1; i <= SHORT; i++) {
		struct callers_seen_entry put = { .gen = 3, .node = LONG + i, .frames = 2 };

		made_up_chain(&y, ips, 2);
		callers_seen_put(&c, callers_seen_key(&c, 3, ips, 2, false), &put);
	}
	y = x;
	for (uint32_t i = 1; i <= LONG; i++) {
		made_up_chain(&y, ips, 126);
		found += callers_seen_find(&c, callers_seen_key(&c, 3, ips, 126, true), 3) != NULL;
	}
	CHECK(found >= LONG * 95 / 100);
	callers_seen_free(&c);

	/*
	 * A table full of an old generation's long chains (70,000 of them)
	 * and 20,000 chains of 4 of the new one, asked for again and again:
	 * the old ones' credit runs out and the new ones are held.
	 */
	c.seed = 0x13198a2e03707344ull;
	y = x;
	for (uint32_t i = 1; i <= 70000; i++) {
		struct callers_seen_entry put = { .gen = 3, .node = i, .frames = 126 };

		made_up_chain(&y, ips, 126);
		callers_seen_put(&c, callers_seen_key(&c, 3, ips, 126, true), &put);
	}
	for (int round = 0; round < 100; round++) {
		y = x ^ 0x5555;
		for (uint32_t i = 1; i <= 20000; i++) {
			struct callers_seen_entry put = { .gen = 4, .node = i, .frames = 4 };
			uint64_t key;

			made_up_chain(&y, ips, 4);
			key = callers_seen_key(&c, 4, ips, 4, false);
			if (!callers_seen_find(&c, key, 4))
				callers_seen_put(&c, key, &put);
		}
	}
	y = x ^ 0x5555;
	found = 0;
	for (uint32_t i = 1; i <= 20000; i++) {
		made_up_chain(&y, ips, 4);
		found += callers_seen_find(&c, callers_seen_key(&c, 4, ips, 4, false), 4) != NULL;
	}
	CHECK(found >= 20000 * 85 / 100);
	callers_seen_free(&c);
}

/*
 * Callers and callees over every context: main > a > b (3), main > b (1),
 * main > a (2), a > b > b (recursion, 1).  b is reached from a (4, its
 * recursive node's 1 within), main (1) and itself (1); 5 samples pass
 * through b, the recursive one once.
 */
static void links(void)
{
	enum { MAIN = 10, A, B };
	const uint32_t mab[] = { MAIN, A, B }, mb[] = { MAIN, B }, ma[] = { MAIN, A };
	const uint32_t mabb[] = { MAIN, A, B, B };
	struct cct_link *callers, *callees;
	size_t ncallers, ncallees;
	struct cct t;

	cct_init(&t);
	cct_add_samples(&t, mab, 3, false, 3, 3);
	cct_add_samples(&t, mb, 2, false, 1, 1);
	cct_add_samples(&t, ma, 2, false, 2, 2);
	cct_add_samples(&t, mabb, 4, false, 1, 1);
	cct_settle(&t);
	CHECK_EQ_U64(cct_links(&t, B, &callers, &ncallers, &callees, &ncallees), 5);
	CHECK(ncallers == 3 && callers[0].sym == A && callers[0].samples == 4);
	/* Equal samples: the lower id first, a fixed order. */
	CHECK(callers[1].sym == MAIN && callers[1].samples == 1);
	CHECK(callers[2].sym == B && callers[2].samples == 1);
	CHECK(ncallees == 1 && callees[0].sym == B && callees[0].samples == 1);
	free(callers);
	free(callees);
	/* main: called from nowhere; calls a (6) and b (1). */
	CHECK_EQ_U64(cct_links(&t, MAIN, &callers, &ncallers, &callees, &ncallees), 7);
	CHECK(ncallers == 1 && callers[0].sym == CCT_SYM_ROOT && callers[0].samples == 7);
	CHECK(ncallees == 2 && callees[0].sym == A && callees[0].samples == 6 &&
	      callees[1].sym == B && callees[1].samples == 1);
	free(callers);
	free(callees);
	/* Not in the tree: nothing. */
	CHECK_EQ_U64(cct_links(&t, 99, &callers, &ncallers, &callees, &ncallees), 0);
	CHECK(!ncallers && !ncallees);
	free(callers);
	free(callees);
	cct_free(&t);
}

/*
 * Deep recursion (the demo's recurse_tree): main > r > r > r > r > leaf
 * (5), main > r (1).  Each sample counts once per link: r calls r in 5
 * samples (not 5 + 5 + 5), leaf in 5; r is called by main in 6, by r in 5.
 */
static void links_recursive(void)
{
	enum { MAIN = 10, R, LEAF };
	const uint32_t deep[] = { MAIN, R, R, R, R, LEAF }, shallow[] = { MAIN, R };
	struct cct_link *callers, *callees;
	size_t ncallers, ncallees;
	struct cct t;

	cct_init(&t);
	cct_add_samples(&t, deep, 6, false, 5, 5);
	cct_add_samples(&t, shallow, 2, false, 1, 1);
	cct_settle(&t);
	CHECK_EQ_U64(cct_links(&t, R, &callers, &ncallers, &callees, &ncallees), 6);
	CHECK(ncallers == 2 && callers[0].sym == MAIN && callers[0].samples == 6 &&
	      callers[1].sym == R && callers[1].samples == 5);
	CHECK(ncallees == 2 && callees[0].sym == R && callees[0].samples == 5 &&
	      callees[1].sym == LEAF && callees[1].samples == 5);
	for (size_t i = 0; i < ncallees; i++)
		CHECK(callees[i].samples <= 6);
	free(callers);
	free(callees);
	cct_free(&t);
}

/* Paths that start at 10 (main) are whole; at 20 (a garbage frame) broken. */
static bool starts_at_main(const struct cct *t, uint32_t node, void *arg)
{
	(void)arg;
	while (cct_node(t, node)->parent != CCT_ROOT)
		node = cct_node(t, node)->parent;
	return cct_node(t, node)->sym == 10;
}

/*
 * Callers past a broken chain: main > a > b (3), junk > x > b (2), junk >
 * b > b (1, recursion).  b's callers are a (3) and one marked link of 3
 * samples (the recursive one once), not x or b; its callees keep b
 * (1); without the predicate the callers are as cct_links gives them.
 */
static void links_broken(void)
{
	enum { MAIN = 10, A, B, JUNK = 20, X };
	const uint32_t mab[] = { MAIN, A, B }, jxb[] = { JUNK, X, B }, jbb[] = { JUNK, B, B };
	struct cct_link *callers, *callees;
	size_t ncallers, ncallees;
	struct cct t;

	cct_init(&t);
	cct_add_samples(&t, mab, 3, false, 3, 3);
	cct_add_samples(&t, jxb, 3, false, 2, 2);
	cct_add_samples(&t, jbb, 3, false, 1, 1);
	cct_settle(&t);
	CHECK_EQ_U64(cct_links_trusting(&t, B, starts_at_main, NULL, &callers, &ncallers,
					&callees, &ncallees), 6);
	CHECK(ncallers == 2 && callers[0].sym == A && callers[0].samples == 3 &&
	      callers[1].sym == CCT_SYM_BROKEN && callers[1].samples == 3);
	CHECK(ncallees == 1 && callees[0].sym == B && callees[0].samples == 1);
	free(callers);
	free(callees);
	CHECK_EQ_U64(cct_links(&t, B, &callers, &ncallers, &callees, &ncallees), 6);
	CHECK(ncallers == 4);
	free(callers);
	free(callees);
	cct_free(&t);
}

/*
 * TOTAL%: a function's weight through it.  The links' trees, weighed ten
 * a sample: b 50 (its recursive sample once), main 70, a 60; r 60, leaf
 * 50.  Then 3,000 made-up paths of six functions with repeats, cut
 * chains among them: each function's weight through it is what
 * cct_links counts through it (weight = count), and main's is the whole.
 */
static void through_by_symbol(void)
{
	enum { MAIN = 1, A, B, R, LEAF, NSYM = 8 };
	const uint32_t mab[] = { MAIN, A, B }, mb[] = { MAIN, B }, ma[] = { MAIN, A };
	const uint32_t mabb[] = { MAIN, A, B, B }, deep[] = { MAIN, R, R, R, R, LEAF };
	uint64_t by_sym[NSYM], x = 88172645463325252ull, whole = 0;
	struct cct t;

	cct_init(&t);
	cct_through_by_symbol(&t, by_sym, NSYM);
	CHECK_EQ_U64(by_sym[MAIN], 0);
	cct_add_samples(&t, mab, 3, false, 3, 30);
	cct_add_samples(&t, mb, 2, false, 1, 10);
	cct_add_samples(&t, ma, 2, false, 2, 20);
	cct_add_samples(&t, mabb, 4, false, 1, 10);
	cct_add_samples(&t, deep, 6, false, 5, 50);
	cct_add_samples(&t, deep, 2, false, 1, 10);
	cct_through_by_symbol(&t, by_sym, NSYM);
	CHECK_EQ_U64(by_sym[MAIN], 130);
	CHECK_EQ_U64(by_sym[A], 60);
	CHECK_EQ_U64(by_sym[B], 50);
	CHECK_EQ_U64(by_sym[R], 60);
	CHECK_EQ_U64(by_sym[LEAF], 50);
	CHECK_EQ_U64(by_sym[0], 0);
	cct_clear(&t);

	for (int i = 0; i < 3000; i++) {
		uint32_t path[12] = { MAIN };
		size_t n = 1 + (size_t)(x % 11);

		for (size_t j = 1; j < n; j++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			path[j] = (uint32_t)(A + x % (NSYM - A));
		}
		/* Every seventh is cut: its outer frames (main among them) are missing. */
		if (i % 7 == 0)
			cct_add_samples(&t, path + 1, n - 1 ? n - 1 : 1, true, 1, 1);
		else
			cct_add_samples(&t, path, n, false, 1, 1), whole++;
	}
	cct_settle(&t);
	cct_through_by_symbol(&t, by_sym, NSYM);
	CHECK_EQ_U64(by_sym[MAIN], whole);
	for (uint32_t sym = A; sym < NSYM; sym++) {
		struct cct_link *callers, *callees;
		size_t ncallers, ncallees;

		CHECK_EQ_U64(by_sym[sym], cct_links(&t, sym, &callers, &ncallers, &callees,
						    &ncallees));
		CHECK(by_sym[sym] > 0);
		free(callers);
		free(callees);
	}
	cct_free(&t);
}

/* Top-level node of t for function sym (by name), or 0. */
static uint32_t top_named(const struct model *m, const struct cct *t, const char *name)
{
	for (uint32_t k = t->nodes[CCT_ROOT].child; k; k = t->nodes[k].sibling)
		if (!strcmp(model_frame_name(m, t->nodes[k].sym), name))
			return k;
	return 0;
}

/*
 * The bottom-up and transformed trees carry each sample's counters to
 * its new path: bottom-up, b (ended in b: 100/200) and a (ended in a:
 * 100/50, and b's sample does not count there); a merged away, main
 * keeps a's own samples and main > b b's.
 */
static void derived_ipc(const struct model *m)
{
	struct cct inv, merged;
	struct cct_transform x = { 0 };
	uint32_t b, a, mainn;

	cct_invert(&m->tree, &inv);
	b = top_named(m, &inv, "cct_fn_b");
	a = top_named(m, &inv, "cct_fn_a");
	CHECK(a && b);
	if (a && b) {
		CHECK_EQ_U64(inv.counts[b].cycles, 100);
		CHECK_EQ_U64(inv.counts[b].instructions, 200);
		CHECK_EQ_U64(inv.counts[a].cycles, 100);
		CHECK_EQ_U64(inv.counts[a].instructions, 50);
		/* b's callers a, then main: the same sample's counters. */
		CHECK(inv.nodes[b].child && inv.counts[inv.nodes[b].child].instructions == 200);
	}
	x.merged[x.nmerged++] = m->tree.nodes[m->tree.nodes[top_named(m, &m->tree, "cct_fn_main")]
					      .child].sym;
	cct_transform(&m->tree, &x, &merged);
	mainn = top_named(m, &merged, "cct_fn_main");
	CHECK(mainn && merged.nodes[mainn].child);
	if (mainn && merged.nodes[mainn].child) {
		uint32_t kid = merged.nodes[mainn].child;

		CHECK(!strcmp(model_frame_name(m, merged.nodes[kid].sym), "cct_fn_b"));
		CHECK_EQ_U64(merged.counts[mainn].cycles, 200);
		CHECK_EQ_U64(merged.counts[mainn].instructions, 250);
		CHECK_EQ_U64(merged.counts[kid].instructions, 200);
	}
	cct_free(&inv);
	cct_free(&merged);
}

/*
 * A node's IPC is that of the samples through it: main > a > b took 100
 * cycles and 200 instructions, main > a 100 and 50; main and a 250/200,
 * b 2.0.  A range's tree carries them too.
 */
static void node_ipc(void)
{
	struct symbolizer *sy = symbolizer_create(true);
	uint64_t fmain = (uint64_t)(uintptr_t)&cct_fn_main + 4;
	uint64_t fa = (uint64_t)(uintptr_t)&cct_fn_a + 4, fb = (uint64_t)(uintptr_t)&cct_fn_b + 1;
	const uint64_t mab[] = { fb, fa, fmain }, ma[] = { fa, fmain };
	const uint64_t fast[] = { 100, 200 }, slow[] = { 100, 50 };
	struct model m, r;

	model_init(&m, sy);
	m.ipc_cycles = 0;
	m.ipc_instructions = 1;
	symbols_read_proc_maps(getpid(), ingest_own_map, &m);
	sample_time = 1000000000;
	sample_counters = fast;
	sample(&m, mab, 3, 0);
	sample_counters = slow;
	sample(&m, ma, 2, 0);
	sample_counters = NULL;
	sample(&m, ma, 2, 0);	/* no counters: in the samples, not the IPC */
	CHECK(model_range(&m, 0, 2000000000, &r));
	cct_settle(&m.tree);	/* the range's is, when made */
	for (int pass = 0; pass < 2; pass++) {
		const struct cct *t = pass ? &r.tree : &m.tree;
		uint32_t main_node = 0, a = 0, b = 0;

		for (uint32_t i = 1; i < t->n; i++)
			if (t->nodes[i].parent == CCT_ROOT)
				main_node = i;
		a = main_node ? t->nodes[main_node].child : 0;
		b = a ? t->nodes[a].child : 0;
		CHECK(main_node && a && b);
		if (!b)
			break;
		CHECK_EQ_U64(t->nodes[main_node].total, 3);
		CHECK_EQ_U64(t->counts[main_node].cycles, 200);
		CHECK_EQ_U64(t->counts[main_node].instructions, 250);
		CHECK_EQ_U64(t->counts[a].instructions, 250);
		CHECK_EQ_U64(t->counts[b].cycles, 100);
		CHECK_EQ_U64(t->counts[b].instructions, 200);
	}
	derived_ipc(&m);
	model_free(&r);
	model_free(&m);
	symbolizer_destroy(sy);
}

/* Hash tables' slots: zeroed, cache-line aligned, and from 2 MiB on whole huge pages. */
static void tables(void)
{
	const size_t huge = (size_t)2 << 20;
	struct paths_seen p = { 0 };
	size_t sizes[] = { 1000, huge / 24 + 1, 3 * huge / 32 };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t size = i == 1 ? 24 : 32, bytes = sizes[i] * size;
		unsigned char *t = st_table_alloc(sizes[i], size);
		size_t nonzero = 0;

		CHECK((uintptr_t)t % 64 == 0);
		if (bytes >= huge)
			CHECK((uintptr_t)t % huge == 0);
		for (size_t k = 0; k < bytes; k++)
			nonzero += t[k] != 0;
		CHECK(nonzero == 0);
		memset(t, 0xa5, bytes);
		st_table_free(t, sizes[i], size);
	}
	/* A paths table grown past 2 MiB keeps its paths, and frees what it had. */
	paths_seen_start(&p, 1, false);
	for (uint64_t h = 1; h <= 200000; h++) {
		paths_seen_reserve(&p, 1);
		paths_seen_put(&p, h * 0x9e3779b97f4a7c15ull, (struct paths_seen_entry){ .node = 7 });
	}
	CHECK(p.cap * sizeof(*p.slots) > huge && p.emptied == 0);
	{
		uint64_t h[1] = { 5 * 0x9e3779b97f4a7c15ull };
		struct paths_seen_entry e;

		CHECK(paths_seen_deepest(&p, h, 1, 0, &e) == 1 && e.node == 7);
	}
	paths_seen_free(&p);
}

/* A sample whose copy the sampler left out: counted, in the tree, under the cut chains' node. */
static void copy_shed(void)
{
	struct symbolizer *sy = symbolizer_create(true);
	uint64_t fmain = (uint64_t)(uintptr_t)&cct_fn_main + 4, fb = (uint64_t)(uintptr_t)&cct_fn_b + 1;
	const uint64_t mb[] = { fb, fmain }, leaf[] = { fb };
	struct model m;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	model_init(&m, sy);
	symbols_read_proc_maps(getpid(), ingest_own_map, &m);
	sample(&m, mb, 2, 0);
	sample(&m, leaf, 1, ST_SAMPLE_CHAIN_TRUNC | ST_SAMPLE_COPY_SHED);
	sample(&m, leaf, 1, ST_SAMPLE_CHAIN_TRUNC | ST_SAMPLE_COPY_SHED);
	CHECK_EQ_U64(m.copies_shed, 2);
	CHECK_EQ_U64(m.samples, 3);
	CHECK_EQ_U64(m.tree.samples, 3);
	out = open_memstream(&text, &len);
	report_folded(&m, out);
	fclose(out);
	CHECK(text && strstr(text, "cct_fn_main;cct_fn_b 1\n"));
	CHECK(text && strstr(text, "[truncated chain];cct_fn_b 2\n"));
	free(text);
	model_free(&m);
	symbolizer_destroy(sy);
}

int main(void)
{
	tables();
	paths();
	node_ipc();
	links();
	links_recursive();
	through_by_symbol();
	links_broken();
	folded();
	copy_shed();
	seen_callers();
	seen_many();
	seen_bounded();
	seen_keeps_long();
	paths_seen_search();
	paths_across_chains();
	return check_done("test_cct");
}
