/*
 * bench_ibs.c - the IBS decoder's rate: raw op samples as perf hands
 * them over (caps and nine registers, Zen 4 layout), varied so no branch
 * is predicted for free, each parsed and read for what the model will
 * take of it (RIP, data address, source, page size, latency).
 *
 * Then decode and ingest together: st_ibs records as the ibs source
 * pushes them (RIPs in this program's text, data in 4096 pages, a
 * quarter of the loads missing), each taken by the model: symbolized,
 * counted, and fed to the IBS figures, pages and timeline.
 *
 *   bench_ibs [SAMPLES]     (default 20,000,000; best of 3 runs each)
 *
 * Target: 5 million samples/s, decoding and ingest together (issue 14).
 */
#include "model/model.h"
#include "ring/record.h"
#include "sampler/ibs.h"
#include "symbols/symbols.h"

#include <limits.h>
#include <unistd.h>

#include <stdbool.h>
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

/* This program's text mapping, as the sampler would report it. */
static int own_text(struct model *m, uint64_t *start, uint64_t *len)
{
	char exe[PATH_MAX], line[PATH_MAX + 128], path[PATH_MAX];
	_Alignas(8) unsigned char buf[PATH_MAX + 128];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *f = fopen("/proc/self/maps", "r");
	int found = -1;

	if (n <= 0 || !f) {
		if (f)
			fclose(f);
		return -1;
	}
	exe[n] = '\0';
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi, pgoff;
		char perms[8];

		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %4095s", &lo, &hi, perms, &pgoff,
			   path) == 5 && perms[2] == 'x' && !strcmp(path, exe) &&
		    st_mmap_make(buf, sizeof(buf), 1, 1, lo, hi - lo, pgoff, exe)) {
			model_ingest(m, buf);
			*start = lo;
			*len = hi - lo;
			found = 0;
		}
	}
	fclose(f);
	return found;
}

static int ingest(unsigned long n)
{
	static _Alignas(8) unsigned char recs[DISTINCT][sizeof(struct st_ibs) + 8 * 8];
	uint64_t x = 88172645463325252ull, text = 0, textlen = 0;
	double best = 0;

	for (int run = 0; run < 3; run++) {
		struct symbolizer *sy = symbolizer_create(false);
		struct model m;
		double t0, rate;

		model_init(&m, sy);
		if (own_text(&m, &text, &textlen) < 0) {
			fprintf(stderr, "bench_ibs: cannot find this program's text mapping\n");
			return -1;
		}
		for (unsigned i = 0; i < DISTINCT; i++) {
			struct st_ibs *b = (void *)recs[i];
			bool miss;

			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			miss = x % 4 == 0;
			memset(b, 0, sizeof(recs[i]));
			b->h = (struct st_header){ ST_REC_IBS, ST_SOURCE_IBS, sizeof(recs[i]) };
			b->pid = b->tid = 1;
			b->ip = text + x % textlen;
			b->period = 0x10000;
			b->caps = 0x8f5;	/* Zen 4: eight registers */
			b->nregs = 8;
			b->family = 0x19;
			b->model = 0x11;
			b->reg[0] = 1ull << 18 | 1ull << 19 | 0x1000;
			b->reg[1] = b->ip;
			b->reg[2] = (x >> 8 & 0xff) << 16 | (x % 7 == 0 ? 1ull << 37 : 0);
			b->reg[3] = miss ? (x >> 16) % 4 : 0;
			b->reg[4] = (x % 3 ? 1u : 2u) | 1ull << 17 |
				(miss ? 1ull << 7 | 1ull << 20 | (x >> 24 & 0x3ff) << 32 : 0);
			b->reg[5] = 0x7f0000000000ull + (x >> 12) % (DISTINCT * 4096ull);
		}
		t0 = now();
		for (unsigned long i = 0; i < n; i++) {
			struct st_ibs *b = (void *)recs[i % DISTINCT];

			b->time = 1000000000ull + i * 1000;	/* 1 MHz of samples */
			model_ingest(&m, b);
		}
		rate = n / (now() - t0);
		if (rate > best)
			best = rate;
		if (m.ibs.total.ops != n) {
			fprintf(stderr, "bench_ibs: the model took %llu of %lu samples\n",
				(unsigned long long)m.ibs.total.ops, n);
			return -1;
		}
		model_free(&m);
		symbolizer_destroy(sy);
	}
	printf("ibs decode + ingest: %.2f M samples/s (best of 3 runs of %lu)\n", best / 1e6, n);
	/* The IBS share alone: the record checked and decoded, its figures added. */
	best = 0;
	for (int run = 0; run < 3; run++) {
		struct ibs_model im;
		double t0 = now(), rate;
		char err[160];

		ibs_model_init(&im);
		for (unsigned long i = 0; i < n; i++) {
			const struct st_ibs *b = (const void *)recs[i % DISTINCT];
			struct ibs_sample smp;

			if (ibs_from_record(b, &smp, err, sizeof(err)) < 0)
				return -1;
			ibs_model_add(&im, &smp, b->family, b->model, 1, (uint32_t)(b->ip & 1023),
				      i / 100000);
		}
		rate = n / (now() - t0);
		if (rate > best)
			best = rate;
		ibs_model_free(&im);
	}
	printf("ibs decode + IBS figures only: %.2f M samples/s (best of 3 runs of %lu)\n",
	       best / 1e6, n);
	return 0;
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
	return ingest(n / 4) < 0;
}
