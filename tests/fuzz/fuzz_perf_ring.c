/*
 * fuzz_perf_ring.c - libFuzzer: a perf mmap ring the kernel filled with
 * whatever the target caused.  The first 16 bytes choose the sample and
 * read formats and where the tail starts (byte 8 bit 0: an IBS PMU's
 * events, bit 1 fetch; bytes 9-10 the CPU's family and model; bytes 11-12
 * where --off-cpu reads sched_switch's prev_state); the rest is the data
 * area.  Every converted record must pass the record check and feed the
 * model, through the pairing of off-CPU samples as live.
 */
#include "fuzz.h"
#include "model/model.h"
#include "ring/record.h"
#include "sampler/offcpu.h"
#include "sampler/perf_parse.h"
#include "symbols/symbols.h"

#include <stdlib.h>
#include <string.h>


struct ctx {
	struct perf_layout layout;
	struct perf_group_state gs;
	struct model *model;
	struct offcpu_pairs pairs;
	_Alignas(8) unsigned char out[ST_RECORD_MAX];
};

static void to_model(void *arg, const void *rec, size_t len)
{
	struct ctx *c = arg;

	/* A paired wait is the sample it was, with a new time and period. */
	if (st_record_check(rec, len) != len)
		abort();
	model_ingest(c->model, rec);
}

static void on_record(const struct perf_event_header *ev, void *arg)
{
	struct ctx *c = arg;
	size_t n = perf_convert(&c->layout, &c->gs, ev, c->out);

	if (!n)
		return;
	/* What the sampler pushes, the model trusts: it must be well formed. */
	if (st_record_check(c->out, n) != n)
		abort();
	offcpu_pairs_take(&c->pairs, c->out, n, to_model, c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static _Alignas(8) unsigned char scratch[ST_RECORD_MAX];
	static struct ctx c;
	struct perf_event_mmap_page page;
	struct symbolizer *sy;
	struct model m;
	unsigned char *ring;
	size_t dsize = 4096;
	uint64_t tail;

	if (size < 16)
		return 0;
	memset(&c.layout, 0, sizeof(c.layout));
	memcpy(&c.layout.sample_type, data, 4);
	c.layout.sample_type &= PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		PERF_SAMPLE_ADDR | PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN |
		PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
		PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_IDENTIFIER |
		PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | PERF_SAMPLE_RAW;
	c.layout.ibs = data[8] & 1;
	c.layout.ibs_kind = data[8] >> 1 & 1;
	c.layout.family = data[9];
	c.layout.model = data[10];
	/* The registers shimtop asks for, or (a kernel that differs) others. */
	c.layout.regs_user = data[6] & 1 ? PERF_STACK_REGS : data[7];
	c.layout.read_format = data[4] & (PERF_FORMAT_TOTAL_TIME_ENABLED |
		PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID | PERF_FORMAT_GROUP);
	c.layout.sample_id_all = data[5] & 1;
	c.layout.switch_state_at = data[11];
	c.layout.switch_state_size = data[12] & 0xc;	/* 4 and 8 read, 0 and 12 not */
	memset(&c.gs, 0, sizeof(c.gs));
	data += 16;
	size -= 16;
	while (dsize < size && dsize < (1u << 20))
		dsize *= 2;
	ring = calloc(1, dsize);
	memcpy(ring, data, size < dsize ? size : dsize);
	memset(&page, 0, sizeof(page));
	/* Tail anywhere (records may wrap), head after everything written. */
	tail = size ? (uint64_t)data[0] * 8 % dsize : 0;
	page.data_tail = tail;
	page.data_head = tail + (size < dsize ? size : dsize);
	sy = fuzz_symbolizer();
	model_init(&m, sy);
	m.ipc_cycles = 0;
	m.ipc_instructions = 1;
	c.model = &m;
	perf_mmap_drain(&page, ring, dsize, scratch, on_record, &c);
	offcpu_pairs_split(&c.pairs, UINT64_MAX, 0, to_model, &c);
	offcpu_pairs_free(&c.pairs);
	model_flush(&m);
	model_free(&m);
	free(ring);
	return 0;
}
