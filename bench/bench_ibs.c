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
 * With a recording, a real program's locality: its perf samples, and
 * the same samples as IBS ops, through the same model (their ratio is
 * what an IBS sample costs beside a perf sample).
 *
 *   bench_ibs [SAMPLES [RECORDING]]   (default 20,000,000; best of 3 runs each)
 *
 * Target: 5 million samples/s, decoding and ingest together (issue 14).
 */
#include "model/model.h"
#include "ring/record.h"
#include "ring/record_file.h"
#include "sampler/ibs.h"
#include "symbols/symbols.h"
#include "util.h"

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

static uint64_t next(uint64_t x)
{
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return x;
}

/*
 * An op sample as the ibs source records it (Zen 4, eight registers):
 * a load (two in three) or a store at data, a quarter of them missing
 * the DC to L2, L3 or DRAM with a latency, some retired branches.
 */
static void make_op(struct st_ibs *b, uint64_t x, uint64_t ip, uint64_t data)
{
	bool miss = x % 4 == 0;

	memset(b, 0, sizeof(*b) + 8 * 8);
	b->h = (struct st_header){ ST_REC_IBS, ST_SOURCE_IBS, sizeof(*b) + 8 * 8 };
	b->pid = b->tid = 1;
	b->ip = ip;
	b->period = 0x10000;
	b->caps = 0x8f5;	/* Zen 4: eight registers */
	b->nregs = 8;
	b->family = 0x19;
	b->model = 0x11;
	b->reg[0] = 1ull << 18 | 1ull << 19 | 0x1000;
	b->reg[1] = ip;
	b->reg[2] = (x >> 8 & 0xff) << 16 | (x % 7 == 0 ? 1ull << 37 : 0);
	b->reg[3] = miss ? (x >> 16) % 4 : 0;
	b->reg[4] = (x % 3 ? 1u : 2u) | 1ull << 17 |
		(miss ? 1ull << 7 | 1ull << 20 | (x >> 24 & 0x3ff) << 32 : 0);
	b->reg[5] = data;
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
			x = next(x);
			make_op((void *)recs[i], x, text + x % textlen,
				0x7f0000000000ull + (x >> 12) % (DISTINCT * 4096ull));
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
			struct ibs_op op;
			bool fetch;

			if (ibs_decode_record(b, &op, &fetch, err, sizeof(err)) < 0)
				return -1;
			ibs_model_add(&im, fetch ? NULL : &op, b->family, b->model, 1,
				      (uint32_t)(b->ip & 1023), i / 100000);
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

/* A recording in memory: its other records, then its samples. */
struct recording {
	unsigned char *setup, *samples;
	size_t setup_len, samples_len, nsamples;
};

static void append(unsigned char **buf, size_t *len, const void *rec, size_t size)
{
	*buf = st_xrealloc(*buf, *len + size);
	memcpy(*buf + *len, rec, size);
	*len += size;
}

static int load_recording(const char *path, struct recording *rc)
{
	struct st_file_header h;
	struct record_reader *r = record_reader_open(path, &h);
	const void *rec;
	long len;

	memset(rc, 0, sizeof(*rc));
	if (!r)
		return -1;
	while ((len = record_reader_next(r, &rec)) > 0) {
		const struct st_header *hd = rec;

		if (hd->type != ST_REC_SAMPLE) {
			append(&rc->setup, &rc->setup_len, rec, (size_t)len);
			continue;
		}
		append(&rc->samples, &rc->samples_len, rec, (size_t)len);
		rc->nsamples++;
	}
	record_reader_close(r);
	if (len < 0 || !rc->nsamples) {
		fprintf(stderr, "bench_ibs: %s: %s\n", path, len < 0 ? "unreadable" : "no samples");
		return -1;
	}
	return 0;
}

/*
 * The recording's samples, lap after lap (each lap later by the
 * recording's span), through a fresh model after its maps: best of 3.
 */
static double replay_rate(const struct recording *rc, unsigned char *samples,
			  unsigned long n)
{
	double best = 0;

	for (int run = 0; run < 3; run++) {
		struct symbolizer *sy = symbolizer_create(false);
		uint64_t first = 0, last = 0, span;
		unsigned long done = 0;
		struct model m;
		double t0;

		model_init(&m, sy);
		for (size_t off = 0; off < rc->setup_len;) {
			const struct st_header *hd = (const void *)(rc->setup + off);

			model_ingest(&m, hd);
			off += hd->size;
		}
		for (size_t off = 0; off < rc->samples_len;) {
			const struct st_sample *smp = (const void *)(samples + off);

			first = off ? first : smp->time;
			last = smp->time;
			off += smp->h.size;
		}
		span = last - first + 1000000;
		t0 = now();
		for (uint64_t lap = 0; done < n; lap++)
			for (size_t off = 0; off < rc->samples_len && done < n; done++) {
				struct st_sample *smp = (void *)(samples + off);
				uint64_t was = smp->time;

				/* st_ibs starts as st_sample does: header, pid, tid, time */
				smp->time += lap * span;
				model_ingest(&m, smp);
				smp->time = was;
				off += smp->h.size;
			}
		if (n / (now() - t0) > best)
			best = n / (now() - t0);
		model_free(&m);
		symbolizer_destroy(sy);
	}
	return best;
}

/*
 * A real program's locality: RECORDING's perf samples, and the same
 * samples as IBS op samples of the same thread, time and RIP (the memory
 * fields as above, each RIP's data in a page of its own among 4096:
 * an instruction walks the same data), through the same model.
 */
static int recorded(const char *path, unsigned long n)
{
	struct recording rc;
	unsigned char *ops = NULL;
	size_t ops_len = 0;
	uint64_t x = 0x9e3779b97f4a7c15ull;
	double perf_rate, ibs_rate;

	if (load_recording(path, &rc) < 0)
		return -1;
	for (size_t off = 0; off < rc.samples_len;) {
		const struct st_sample *smp = (const void *)(rc.samples + off);
		_Alignas(8) unsigned char buf[sizeof(struct st_ibs) + 8 * 8];
		struct st_ibs *b = (void *)buf;
		uint64_t page = (smp->ip * 0x9e3779b97f4a7c15ull >> 52) % DISTINCT;

		x = next(x);
		make_op(b, x, smp->ip, 0x7f0000000000ull + page * 4096 + (x >> 40) % 4096);
		b->pid = smp->pid;
		b->tid = smp->tid;
		b->time = smp->time;
		b->cpumode = smp->cpumode;
		append(&ops, &ops_len, b, b->h.size);
		off += smp->h.size;
	}
	{
		struct recording as_ibs = rc;

		as_ibs.samples = ops;
		as_ibs.samples_len = ops_len;
		ibs_rate = replay_rate(&as_ibs, ops, n);
	}
	perf_rate = replay_rate(&rc, rc.samples, n);
	printf("%s (%zu samples, %lu in all, lap after lap): perf samples %.2f M/s, the same as IBS ops "
	       "%.2f M/s (IBS %.2fx the time of a perf sample)\n", path, rc.nsamples, n,
	       perf_rate / 1e6, ibs_rate / 1e6, perf_rate / ibs_rate);
	free(ops);
	free(rc.setup);
	free(rc.samples);
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

		for (unsigned r = 0; r < 9; r++)
			regs[r] = x = next(x);
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
	if (ingest(n / 4) < 0)
		return 1;
	return argc > 2 && recorded(argv[2], n / 4) < 0;
}
