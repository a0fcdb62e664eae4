/*
 * fuzz_snapshot_model.c - libFuzzer: the model sections of a snapshot
 * (snapshot.h) as they come out of the container, the first byte saying
 * which, modulo 3: 0 "observer" (obs_model_load), 1 "chaining"
 * (callerchain_load), 2 "ibs" (ibs_model_load).  Refused with a one-line
 * reason, or read; an observer or ibs section read and saved reads back
 * and saves to the same bytes, and a chaining section builds its tree.
 */
#include "fuzz.h"
#include "model/callerchain.h"
#include "model/ibs_model.h"
#include "model/obs_model.h"
#include "ring/packed.h"

#include <stdlib.h>
#include <string.h>

/* A snapshot of 4096 symbols: ids past them name none. */
static uint32_t known(uint32_t id, void *arg)
{
	(void)arg;
	return id < 4096 ? id : UINT32_MAX;
}

static void refused_well(const char *err)
{
	if (!err[0] || strchr(err, '\n'))
		abort();
}

/* Read and saved again: 0 and the bytes in *o, or -EINVAL. */
static int reread(const uint8_t *p, size_t n, struct packed_out *o, char *err, size_t len)
{
	struct obs_model m;
	const struct obs_tag **tags;
	int rc;

	obs_model_init(&m, 0.01);
	rc = obs_model_load(&m, p, n, err, len);
	if (rc == 0) {
		obs_model_tags(&m, &tags);
		free(tags);
		obs_model_save(&m, o);
	}
	obs_model_free(&m);
	return rc;
}

/*
 * The first reading makes the bytes canonical (strings terminated, flags
 * 0 or 1); from then on, reading and saving changes nothing.
 */
static void observer(const uint8_t *p, size_t n)
{
	struct packed_out once = { 0 }, twice = { 0 };
	char err[256] = "";

	if (reread(p, n, &once, err, sizeof(err)) < 0) {
		refused_well(err);
		return;
	}
	if (reread(once.p, once.n, &twice, err, sizeof(err)) < 0 || twice.n != once.n ||
	    memcmp(twice.p, once.p, once.n))
		abort();
	free(once.p);
	free(twice.p);
}

static void chaining(const uint8_t *p, size_t n)
{
	struct callerchain c;
	struct cc_result r;
	char err[256] = "";

	callerchain_init(&c);
	if (callerchain_load(&c, p, n, known, NULL, err, sizeof(err)) < 0) {
		refused_well(err);
	} else {
		callerchain_build(&c, &r);
		callerchain_result_free(&r);
	}
	callerchain_free(&c);
}

/* An ibs section read, its pages listed, and saved: 0 and the bytes, or -EINVAL. */
static int ibs_reread(const uint8_t *p, size_t n, struct packed_out *o, char *err, size_t len)
{
	struct ibs_model m;
	struct ibs_page *pages;
	int rc;

	ibs_model_init(&m);
	rc = ibs_model_load(&m, p, n, known, NULL, err, len);
	if (rc == 0) {
		ibs_model_pages(&m, &pages);
		free(pages);
		for (uint32_t id = 0; id < 4096; id++) {
			const struct ibs_stats *st = ibs_model_symbol(&m, id);
			double share;

			if (st)
				(void)(ibs_latency_quantile(st, 0.9) + ibs_mean_latency(st) +
				       ibs_miss_pct(st) + ibs_main_source(st, &share));
		}
		ibs_model_save(&m, o);
	}
	ibs_model_free(&m);
	return rc;
}

/* Pages come back in hash order: the second reading's bytes are the first's. */
static void ibs(const uint8_t *p, size_t n)
{
	struct packed_out once = { 0 }, twice = { 0 }, thrice = { 0 };
	char err[256] = "";

	if (ibs_reread(p, n, &once, err, sizeof(err)) < 0) {
		refused_well(err);
		return;
	}
	if (ibs_reread(once.p, once.n, &twice, err, sizeof(err)) < 0 ||
	    ibs_reread(twice.p, twice.n, &thrice, err, sizeof(err)) < 0 ||
	    thrice.n != twice.n || memcmp(thrice.p, twice.p, twice.n))
		abort();
	free(once.p);
	free(twice.p);
	free(thrice.p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	switch (data[0] % 3) {
	case 0:
		observer(data + 1, size - 1);
		break;
	case 1:
		chaining(data + 1, size - 1);
		break;
	default:
		ibs(data + 1, size - 1);
		break;
	}
	return 0;
}
