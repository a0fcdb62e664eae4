/*
 * test_reorder.c - records from several perf rings come out in time
 * order: a flush emits only what is older than its bound, sorted, with
 * equal times in arrival order, and keeps the rest for the next flush;
 * a record written in place (reserve, commit) as one copied in.
 */
#include "check.h"
#include "sampler/reorder.h"

#include <stdint.h>
#include <string.h>

struct seen {
	uint64_t v[16];
	size_t n;
};

static void collect(void *arg, const void *rec, size_t len)
{
	struct seen *s = arg;

	CHECK(len == sizeof(uint64_t));
	memcpy(&s->v[s->n++], rec, sizeof(uint64_t));
}

static void count_only(void *arg, const void *rec, size_t len)
{
	(void)rec;
	*(size_t *)arg += len;
}

struct texts {
	size_t n;
	char got[3][32];
};

static void collect_text(void *arg, const void *rec, size_t len)
{
	struct texts *out = arg;

	CHECK(len <= sizeof(out->got[0]) && out->n < 3);
	if (len <= sizeof(out->got[0]) && out->n < 3)
		memcpy(out->got[out->n++], rec, len);
}

struct order_check {
	uint64_t added, out, last;
};

/* Each record: its time, the time's complement, its pass; out in time order. */
static void check_order(void *arg, const void *rec, size_t len)
{
	struct order_check *oc = arg;
	uint64_t v[3];

	CHECK(len == sizeof(v));
	memcpy(v, rec, sizeof(v));
	CHECK(v[1] == ~v[0]);
	CHECK(v[0] >= oc->last);
	oc->last = v[0];
	oc->out++;
}

static void add(struct reorder *r, uint64_t time, uint64_t tag)
{
	reorder_add(r, &tag, sizeof(tag), time);
}

int main(void)
{
	struct reorder r = { 0 };
	struct seen s = { { 0 }, 0 };

	reorder_flush(&r, UINT64_MAX, collect, &s);	/* empty: nothing */
	CHECK(s.n == 0);
	/* Ring A gave 30 and 10, ring B 20, then a LOST record (no time). */
	add(&r, 30, 300);
	add(&r, 10, 100);
	add(&r, 20, 200);
	add(&r, 0, 1);
	reorder_flush(&r, 25, collect, &s);
	CHECK(s.n == 3);
	CHECK(s.v[0] == 1 && s.v[1] == 100 && s.v[2] == 200);
	CHECK(r.n == 1);
	/* The next pass finds 25 in another ring, and two records at 40. */
	add(&r, 40, 401);
	add(&r, 25, 250);
	add(&r, 40, 402);
	reorder_flush(&r, 40, collect, &s);
	CHECK(s.n == 5 && s.v[3] == 250 && s.v[4] == 300);
	reorder_flush(&r, UINT64_MAX, collect, &s);
	CHECK(s.n == 7 && s.v[5] == 401 && s.v[6] == 402);
	CHECK(r.n == 0);
	/* Records of different sizes held over two flushes keep their bytes. */
	{
		static const char *const text[] = { "a", "bbbbbbbbbbbbbbbbbbbbbbbb", "ccc" };
		struct texts out = { 0, { "" } };

		for (int i = 0; i < 3; i++)
			reorder_add(&r, text[i], strlen(text[i]) + 1, 100 + (uint64_t)(3 - i));
		reorder_flush(&r, 50, collect_text, &out);
		reorder_flush(&r, 102, collect_text, &out);	/* 101: "ccc" */
		reorder_flush(&r, 103, collect_text, &out);	/* 102: the long one */
		CHECK(out.n == 2 && !strcmp(out.got[0], "ccc") && !strcmp(out.got[1], text[1]));
		CHECK(r.n == 1);
		reorder_flush(&r, UINT64_MAX, collect_text, &out);
		CHECK(out.n == 3 && !strcmp(out.got[2], "a") && r.n == 0);
	}
	/*
	 * A burst grows the buffers to megabytes; a few light passes after
	 * it keep them (the next burst's pages not zeroed again), more give
	 * them back, and a record held over those passes keeps its bytes.
	 */
	{
		static char big[4096];
		struct texts out = { 0, { "" } };
		size_t bytes = 0;

		for (int i = 0; i < 2000; i++)
			reorder_add(&r, big, sizeof(big), 1000);
		CHECK(reorder_bytes(&r) >= 2000 * sizeof(big));
		reorder_flush(&r, UINT64_MAX, count_only, &bytes);
		CHECK_EQ_U64(bytes, 2000 * sizeof(big));
		reorder_add(&r, "held", 5, 5000);
		for (int pass = 0; pass < 3; pass++) {
			reorder_add(&r, big, 64, 2000 + (uint64_t)pass);
			reorder_flush(&r, 4000, count_only, &bytes);
		}
		CHECK(r.bytes_cap[0] + r.bytes_cap[1] > (1u << 21));
		for (int pass = 3; pass < 40; pass++) {
			reorder_add(&r, big, 64, 2000 + (uint64_t)pass);
			reorder_flush(&r, 4000, count_only, &bytes);
		}
		CHECK(r.bytes_cap[0] + r.bytes_cap[1] < (1u << 21));
		reorder_flush(&r, UINT64_MAX, collect_text, &out);
		CHECK(out.n == 1 && !strcmp(out.got[0], "held") && r.n == 0);
		/*
		 * The same burst, then passes with nothing at all (a machine
		 * gone quiet): its room goes after a few of them.
		 */
		for (int i = 0; i < 20000; i++)
			reorder_add(&r, big, 256, 6000 + (uint64_t)i);
		reorder_flush(&r, UINT64_MAX, count_only, &bytes);
		CHECK(r.bytes_cap[0] + r.bytes_cap[1] > (1u << 21) && r.cap > 16384);
		reorder_flush(&r, UINT64_MAX, count_only, &bytes);
		CHECK(r.bytes_cap[0] + r.bytes_cap[1] > (1u << 21) && r.cap <= 16384);
		for (int pass = 0; pass < 4; pass++)
			reorder_flush(&r, UINT64_MAX, count_only, &bytes);
		CHECK(r.bytes_cap[0] + r.bytes_cap[1] <= (1u << 21));
		reorder_add(&r, "after", 6, 30000);
		reorder_flush(&r, UINT64_MAX, collect_text, &out);
		CHECK(out.n == 2 && !strcmp(out.got[1], "after") && r.n == 0);
	}
	/* In order already (one ring): as they came; only the last two swapped: sorted. */
	{
		struct seen in = { { 0 }, 0 };

		add(&r, 1, 1);
		add(&r, 2, 2);
		add(&r, 2, 3);
		add(&r, 4, 5);
		add(&r, 3, 4);
		reorder_flush(&r, UINT64_MAX, collect, &in);
		CHECK(in.n == 5);
		for (size_t i = 0; i < in.n; i++)
			CHECK_EQ_U64(in.v[i], i + 1);
	}
	/*
	 * Written in place: a reserved record, 8-aligned after an odd-sized
	 * one, kept as committed (a reservation not committed is dropped).
	 */
	{
		struct seen in = { { 0 }, 0 };
		struct texts out = { 0, { "" } };
		uint64_t *w;

		reorder_add(&r, "odd", 4, 7);
		w = reorder_reserve(&r, 4096);
		CHECK(((uintptr_t)w & 7) == 0);
		*w = 77;
		(void)reorder_reserve(&r, 4096);	/* the same room, not kept yet */
		reorder_commit(&r, sizeof(*w), 6);
		w = reorder_reserve(&r, 4096);
		*w = 99;				/* dropped: never committed */
		reorder_flush(&r, 7, collect, &in);
		CHECK(in.n == 1 && in.v[0] == 77);
		reorder_flush(&r, UINT64_MAX, collect_text, &out);
		CHECK(out.n == 1 && !strcmp(out.got[0], "odd") && r.n == 0);
	}
	/*
	 * Passes as a sampler makes them: each adds records, some stamped
	 * before the pass began, some held over several flushes; every
	 * record comes out once, in time order, its bytes whole.
	 */
	{
		struct order_check oc = { 0, 0, 0 };
		uint64_t t = 1000, seed = 12345;

		for (int pass = 0; pass < 200; pass++) {
			for (int k = 0; k < 20; k++) {
				uint64_t rec[3];

				seed = seed * 6364136223846793005ull + 1442695040888963407ull;
				/* Mostly new; one in eight from three passes back. */
				rec[0] = (seed >> 61) ? t + (seed >> 40) % 50 : t - 150 + (seed >> 40) % 50;
				rec[1] = ~rec[0];
				rec[2] = (uint64_t)pass;
				reorder_add(&r, rec, sizeof(rec), rec[0]);
				oc.added++;
			}
			reorder_flush(&r, t - 200, check_order, &oc);
			t += 50;
		}
		reorder_flush(&r, UINT64_MAX, check_order, &oc);
		CHECK_EQ_U64(oc.out, oc.added);
		CHECK(r.n == 0 && reorder_bytes(&r) == 0);
	}
	add(&r, 5, 5);
	reorder_free(&r);	/* what is left is freed (ASan checks) */
	return check_done("test_reorder");
}
