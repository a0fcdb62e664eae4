/*
 * fuzz_signal_header.c - libFuzzer: the first page of a signal segment,
 * as a target may write it.  A header the check accepts has terminated
 * strings, a counter count the observer's arrays hold, and a known tag
 * kind.
 */
#include "fuzz.h"
#include "sampler/signal_segment.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct shimtop_signals_header h;
	char err[512];

	memset(&h, 0, sizeof(h));
	memcpy(&h, data, size < sizeof(h) ? size : sizeof(h));
	if (signal_header_check(&h, "/shimtop-fuzz", err, sizeof(err)) < 0) {
		if (!memchr(err, '\0', sizeof(err)) || !err[0])
			abort();
		return 0;
	}
	if (h.ncounters > SHIMTOP_SIGNALS_COUNTERS ||
	    strlen(h.tag_name) >= SHIMTOP_SIGNALS_NAME_LEN ||
	    (h.tag_kind != SHIMTOP_TAG_VALUE && h.tag_kind != SHIMTOP_TAG_ADDRESS))
		abort();
	for (unsigned i = 0; i < SHIMTOP_SIGNALS_COUNTERS; i++)
		if (strlen(h.counter_name[i]) >= SHIMTOP_SIGNALS_NAME_LEN)
			abort();
	for (unsigned i = 0; i < SHIMTOP_SIGNALS_TAG_NAMES; i++)
		if (strlen(h.tag_value_name[i]) >= SHIMTOP_SIGNALS_NAME_LEN)
			abort();
	return 0;
}
