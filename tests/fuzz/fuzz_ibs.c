/*
 * fuzz_ibs.c - libFuzzer: an IBS raw sample as perf hands it over (the
 * first byte picks op or fetch and the CPU family, the rest is the raw
 * bytes).  It parses or is refused in one line; parsed, every field reads
 * within its width, the dump and the derived figures run on any bits.
 */
#include "fuzz.h"
#include "sampler/ibs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned families[4] = { 0x10, 0x17, 0x19, 0x1a };
	struct ibs_sample s;
	char err[256];
	enum ibs_kind kind;
	unsigned family;
	uint64_t v;
	FILE *sink;

	if (size < 1)
		return 0;
	kind = data[0] & 1 ? IBS_FETCH : IBS_OP;
	family = families[data[0] >> 1 & 3];
	if (ibs_parse(kind, data + 1, size - 1, &s, err, sizeof(err)) < 0) {
		if (!err[0] || strchr(err, '\n'))
			abort();
		return 0;
	}
	if (4 + 8 * (size_t)s.nregs != size - 1 || s.nregs > IBS_MAX_REGS)
		abort();
	for (unsigned f = 0; f < IBS_NFIELDS; f++) {
		const struct ibs_field_info *i = ibs_field_info((enum ibs_field)f);

		v = ibs_get(&s, (enum ibs_field)f);
		if (i->width < 64 && v >> i->width)
			abort();
		if (v && !ibs_has(&s, (enum ibs_field)f))
			abort();
	}
	if ((unsigned)ibs_data_source(&s, family, data[0] >> 3) >= IBS_NSOURCES)
		abort();
	(void)ibs_data_page_size(&s);
	(void)ibs_op_period(&s);
	(void)ibs_data_address(&s, &v);
	(void)ibs_op_rip(&s, &v);
	sink = fopen("/dev/null", "w");
	if (sink) {
		ibs_dump(&s, family, data[0] >> 3, sink);
		fclose(sink);
	}
	return 0;
}
