/*
 * fuzz_kernel_walk.c - libFuzzer: what the kernel's stack walker sends
 * back on its bpf-output events (kernel_walk.c), as the ring holds it:
 * whatever the bytes, a record is a chain (converted to a sample that
 * st_record_check accepts whole), a row asked for, a count of lost
 * records, or refused.
 */
#include "fuzz.h"
#include "sampler/kernel_walk.h"
#include "symbols/unwind.h"
#include "ring/record.h"

#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned char out[ST_RECORD_MAX];
	struct perf_event_header *ev;
	struct unwind_need need;
	size_t n;

	/* The ring hands over whole records: a header whose size is what follows. */
	if (size < sizeof(*ev) || size > 0xffff)
		return 0;
	ev = malloc(size);
	if (!ev)
		return 0;
	memcpy(ev, data, size);
	ev->size = (uint16_t)size;
	n = kernel_walk_convert(ev, out, sizeof(out));
	if (n && st_record_check(out, n) != n)
		abort();
	if (n && kernel_walk_read_need(ev, &need))
		abort();	/* a chain is never also a request */
	if (kernel_walk_lost(ev) && (n || ev->type != PERF_RECORD_LOST))
		abort();	/* nor a loss */
	free(ev);
	return 0;
}
