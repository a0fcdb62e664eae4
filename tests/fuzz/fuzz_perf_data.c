/*
 * fuzz_perf_data.c - libFuzzer: a perf.data file (perf record's, file
 * mode) as shimtop -i reads it: the header and its sections, the
 * attributes, the feature sections, and every record of the data section
 * converted.  Whatever it holds is refused with a message or read to
 * its end, and each record handed out has the size it says.
 */
#include "fuzz.h"
#include "ring/record.h"
#include "sampler/perf_data.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct st_file_header h;
	struct perf_data *p;
	FILE *f;
	const void *rec;
	long n;

	if (!size || !(f = fmemopen((void *)(uintptr_t)data, size, "rb")))
		return 0;
	p = perf_data_on(f, "fuzz", &h);
	if (!p)
		return 0;
	while ((n = perf_data_next(p, &rec)) > 0)
		if ((size_t)n > ST_RECORD_MAX || ((const struct st_header *)rec)->size != (uint32_t)n)
			abort();
	perf_data_close(p);
	return 0;
}
