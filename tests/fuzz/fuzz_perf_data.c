/*
 * fuzz_perf_data.c - libFuzzer: a perf.data file (perf record's, file
 * mode) as shimtop -i reads it: the header and its sections, the
 * attributes, the feature sections (the build-ids listed), and every
 * record of the data section converted and put in time order.  Whatever
 * it holds is refused with a message or read to its end, and each record
 * handed out has the size it says; each build-id a path and 1-20 bytes.
 * Gzip'd (1f 8b), it is inflated first, as -i does.
 */
#include "fuzz.h"
#include "ring/record.h"
#include "sampler/perf_data.h"
#include "sampler/perf_gunzip.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void build_id(const char *path, const unsigned char *id, size_t len, bool kernel,
		     void *arg)
{
	(void)arg;
	(void)kernel;
	if (!path[0] || strlen(path) >= 4096 || !len || len > 20)
		abort();
	(void)id[len - 1];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct st_file_header h;
	struct perf_data *p;
	FILE *f;
	const void *rec;
	char damage[256];
	long n;

	if (!size || !(f = fmemopen((void *)(uintptr_t)data, size, "rb")))
		return 0;
	damage[0] = '\0';
	if (perf_gzipped(data, size) && !(f = perf_gunzip(f, "fuzz", damage, sizeof(damage))))
		return 0;
	p = perf_data_on(f, "fuzz", &h, NULL);
	if (!p)
		return 0;
	perf_data_damaged(p, damage);
	perf_data_build_ids(p, build_id, NULL);
	{
		char release[128];

		if (perf_data_osrelease(p, release, sizeof(release)) && strlen(release) >= sizeof(release))
			abort();
	}
	while ((n = perf_data_next(p, &rec)) > 0)
		if ((size_t)n > ST_RECORD_MAX || ((const struct st_header *)rec)->size != (uint32_t)n)
			abort();
	perf_data_close(p);
	return 0;
}
