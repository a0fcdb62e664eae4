/*
 * fuzz_snapshot_model.c - libFuzzer: the model sections of a snapshot
 * (snapshot.h) as they come out of the container, the first byte saying
 * which: even, "observer" (obs_model_load); odd, "chaining"
 * (callerchain_load).  Refused with a one-line reason, or read; an
 * observer section read and saved reads back and saves to the same
 * bytes, and a chaining section builds its tree.
 */
#include "fuzz.h"
#include "model/callerchain.h"
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	if (data[0] & 1)
		chaining(data + 1, size - 1);
	else
		observer(data + 1, size - 1);
	return 0;
}
