/* rdpmc.c - the perf mmap page read loop. */
#include "sampler/rdpmc.h"

#define barrier() __asm__ __volatile__("" ::: "memory")

uint64_t rdpmc_instruction(uint32_t idx, void *arg)
{
	uint32_t lo, hi;

	(void)arg;
	__asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(idx));
	return (uint64_t)hi << 32 | lo;
}

bool rdpmc_allowed(const volatile struct perf_event_mmap_page *pc)
{
	return pc->cap_user_rdpmc;
}

enum rdpmc_result rdpmc_read(const volatile struct perf_event_mmap_page *pc,
			     rdpmc_fn rd, void *arg, uint64_t *value,
			     unsigned *retries)
{
	uint32_t seq, idx;
	uint64_t count;
	bool used;

	*retries = 0;
	for (;;) {
		seq = pc->lock;
		barrier();
		idx = pc->index;
		count = (uint64_t)pc->offset;
		used = pc->cap_user_rdpmc && idx;
		if (used) {
			uint16_t width = pc->pmc_width;
			uint64_t pmc = rd(idx - 1, arg);

			/* The counter is width bits, signed: extend it. */
			if (width && width < 64) {
				pmc <<= 64 - width;
				pmc = (uint64_t)((int64_t)pmc >> (64 - width));
			}
			count += pmc;
		}
		barrier();
		if (pc->lock == seq)
			break;
		(*retries)++;
	}
	if (!used)
		return RDPMC_USE_READ;
	*value = count;
	return RDPMC_OK;
}
