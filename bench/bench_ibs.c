/*
 * bench_ibs.c - the IBS decoder's rate: raw op samples as perf hands
 * them over (caps and nine registers, Zen 4 layout), varied so no branch
 * is predicted for free, each parsed and read for what the model will
 * take of it (RIP, data address, source, page size, latency).
 *
 *   bench_ibs [SAMPLES]     (default 20,000,000; best of 3 runs)
 *
 * Target: 5 million samples/s, decoding and ingest together (issue 14);
 * this is the decoding half, the ingest comes with the ibs source.
 */
#include "sampler/ibs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DISTINCT 4096u

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 20000000ul;
	static uint8_t raw[DISTINCT][4 + 8 * 9];
	uint64_t sum = 0, x = 88172645463325252ull;
	double best = 0;
	char err[256];

	for (unsigned i = 0; i < DISTINCT; i++) {
		uint32_t caps = 0xfff;
		uint64_t regs[9];

		for (unsigned r = 0; r < 9; r++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			regs[r] = x;
		}
		memcpy(raw[i], &caps, 4);
		memcpy(raw[i] + 4, regs, sizeof(regs));
	}
	for (int run = 0; run < 3; run++) {
		double t0 = now(), rate;

		for (unsigned long i = 0; i < n; i++) {
			struct ibs_sample s;
			uint64_t v = 0;

			if (ibs_parse(IBS_OP, raw[i % DISTINCT], sizeof(raw[0]), &s, err,
				      sizeof(err)) < 0)
				return 1;
			if (ibs_op_rip(&s, &v))
				sum += v;
			if (ibs_data_address(&s, &v))
				sum += v >> 12;
			sum += ibs_data_source(&s, 0x19, 0x61) + ibs_data_page_size(&s) +
			       ibs_get(&s, IBS_F_DC_MISS_LAT) + ibs_get(&s, IBS_F_TAG_TO_RET);
		}
		rate = n / (now() - t0);
		if (rate > best)
			best = rate;
	}
	printf("ibs decode: %.2f M samples/s (best of 3 runs of %lu; checksum %llu)\n",
	       best / 1e6, n, (unsigned long long)(sum & 0xffff));
	return 0;
}
