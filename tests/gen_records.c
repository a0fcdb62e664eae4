/*
 * gen_records.c - record files a target could cause, written with
 * shimtop's own writer, for the end-to-end tests of hostile input:
 *
 *   gen_records empty FILE        a header and no records
 *   gen_records pids FILE N       N samples, each of its own process
 *   gen_records path FILE PATH    a mapping of PATH (e.g. a FIFO) and a
 *                                 sample in it
 *   gen_records fork FILE PATH    PATH mapped in process 1, a sample of
 *                                 child 2 before its FORK record, its exit
 *   gen_records observe FILE      observer batches of three threads
 *   gen_records observe-idle FILE the same, two of the threads' counters
 *                                 never moving (intervals at rate 0)
 *   gen_records corewide FILE     2 s of perf samples and of observer
 *                                 batches with the core's counters and the
 *                                 observer's own (as on an Intel SMT pair):
 *                                 phases 1 and 2 every 500 ms, the target's
 *                                 IPC 1.5 then 0.5, the observer's 2.0
 *   gen_records observer-first FILE  corewide's, its perf samples 20 ms late
 *   gen_records lossy FILE        100 samples no symbol explains, 50
 *                                 lost by the kernel, 3 throttles
 *   gen_records chains FILE       this program's text mapped, and samples
 *                                 with call chains and counters (as a
 *                                 PMU gives): 300 on gen_fn_main >
 *                                 gen_fn_a > gen_fn_b at IPC 3, 100 on
 *                                 gen_fn_main > gen_fn_a at IPC 1
 *   gen_records noted FILE        the chains mode's samples, cpu-clock, with
 *                                 the long note of a non-root run on a VM
 *   gen_records stripped-start FILE LIBC  400 samples whose chains end in
 *                                 an unnamed frame of LIBC (a stripped
 *                                 libc.so.6, its start code) above gen_fn_main
 *   gen_records stalled FILE      the chains mode's samples, then one at
 *                                 1000 s (a replay at the recorded speed
 *                                 holds still, unfinished)
 *   gen_records exec FILE         pid 1 named sh, the chains mode's samples,
 *                                 then an exec naming it python3
 *   gen_records steady FILE S HZ  the chains mode's samples and paths for
 *                                 S seconds at HZ (a long session, for
 *                                 the snapshot benchmark)
 *   gen_records compile FILE N [ELF]  N samples at 10 kHz shaped as a
 *                                 compiler's: chains 20-52 deep, 8 fixed
 *                                 frames above, each caller with 3
 *                                 callees of 4,096 places in the text of
 *                                 ELF (mapped at 0x7f0000000000; default
 *                                 this program's), so of its functions
 *   gen_records ibs FILE          IBS op samples of a Zen 4 (family 0x19
 *                                 model 0x11), this program's text mapped:
 *                                 gen_fn_a 400 loads in page 0x7f0000001000
 *                                 at 1.0-1.4 s, every 4th a DC miss from DRAM
 *                                 of 256 cycles; gen_fn_b 100 stores to
 *                                 page 0x7f0000002000 and 100 retired
 *                                 branches, 25 mispredicted, tag-to-retire
 *                                 40 cycles, at 1.4-1.6 s; gen_fn_main 100
 *                                 loads in page 0x7f0000003000 at 2.0-2.1 s,
 *                                 each an L1 DTLB and DC miss served by L3
 *                                 in 64 cycles; then one sample whose
 *                                 capabilities promise a register it lacks
 *   gen_records ibs-fetch FILE    IBS fetch samples of the same CPU: 100 in
 *                                 gen_fn_a, 50 in gen_fn_b
 *   gen_records waits FILE        offcpu-time's waits (--off-cpu), this
 *                                 program's text mapped: thread 2 asleep
 *                                 100 times 10 ms under gen_fn_main >
 *                                 gen_fn_a > gen_fn_b, each woken by
 *                                 thread 3 ("holder"); 50 times 15 ms under
 *                                 gen_fn_main > gen_fn_a, woken by interrupts
 *   gen_records ibs-from IN OUT   the recording IN with each sample turned
 *                                 into an IBS op sample of the same thread,
 *                                 time, RIP and stack copy (--call-graph
 *                                 dwarf or callerchain): what the ibs
 *                                 source records on a machine with IBS
 */
#include "ring/record.h"
#include "ring/record_file.h"
#include "sampler/source.h"

#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void sample(struct record_writer *w, uint32_t pid, uint64_t ip,
		   uint64_t time)
{
	struct st_sample s;

	memset(&s, 0, sizeof(s));
	s.h = (struct st_header){ ST_REC_SAMPLE, ST_SOURCE_PERF, sizeof(s) };
	s.pid = s.tid = pid;
	s.time = time;
	s.ip = ip;
	s.period = 250000;
	record_writer_append(w, &s);
}

static void mapping(struct record_writer *w, uint32_t pid, const char *path)
{
	_Alignas(8) unsigned char buf[4096];

	if (st_mmap_make(buf, sizeof(buf), pid, 1000, 0x400000, 0x10000, 0, path))
		record_writer_append(w, buf);
}

static void task(struct record_writer *w, uint16_t type, uint32_t pid,
		 uint32_t ppid, uint64_t time)
{
	struct st_task t = { { type, ST_SOURCE_PERF, sizeof(t) }, pid, pid,
			     ppid, ppid, time };

	record_writer_append(w, &t);
}

/* pid's own thread names itself (exec: a new program), as perf's COMM record says. */
static void comm(struct record_writer *w, uint16_t type, uint32_t pid, const char *name,
		 uint64_t time)
{
	struct st_comm c = { { type, ST_SOURCE_PERF, sizeof(c) }, pid, pid, time, "" };

	snprintf(c.comm, sizeof(c.comm), "%s", name);
	record_writer_append(w, &c);
}

/*
 * A meta record and two batches of 3 threads, 1 counter, 4 samples; the
 * first `idle` threads' counters never move (their rate is 0).
 */
static void observe(struct record_writer *w, unsigned idle)
{
	_Alignas(8) unsigned char buf[4096];
	struct st_observe_meta meta;
	struct st_observe *r = (void *)buf;
	unsigned nt = 3, nc = 1;
	size_t words = st_observe_words(nt, nc, 0);

	memset(&meta, 0, sizeof(meta));
	meta.h = (struct st_header){ ST_REC_OBSERVE_META, ST_SOURCE_OBSERVER,
				     sizeof(meta) };
	meta.pid = 1;
	meta.mode = ST_OBS_SHARED_MEMORY;
	meta.ncounters = nc;
	meta.width[0] = 64;
	snprintf(meta.counter_name[0], ST_OBS_NAME_LEN, "items");
	snprintf(meta.tag_value_name[1], ST_OBS_NAME_LEN, "parse");
	record_writer_append(w, &meta);
	for (uint32_t seq = 0; seq < 2; seq++) {
		memset(buf, 0, sizeof(buf));
		r->h = (struct st_header){ ST_REC_OBSERVE, ST_SOURCE_OBSERVER, 0 };
		r->pid = 1;
		r->seq = seq;
		r->flags = seq ? ST_OBS_CONTINUES : 0;
		r->nsamples = 4;
		r->nthreads = (uint8_t)nt;
		r->ncounters = (uint8_t)nc;
		r->tsc_hz = 1000000000;
		for (unsigned i = 0; i < 4; i++) {
			uint64_t *p = r->data + i * words, n = seq * 3 + i;

			p[0] = 1000 * n;
			p[1] = 1000 * n + 100;
			for (unsigned t = 0; t < nt; t++) {
				p[st_observe_counters_at(0, nc, t)] = t < idle ? 7 : n * (t + 1);
				p[st_observe_tag_at(0, nt, nc, t)] = t + 1;
				p[st_observe_tag_at(0, nt, nc, t) + 1] = t;
			}
		}
		r->h.size = (uint32_t)(sizeof(*r) + 4 * words * 8);
		record_writer_append(w, r);
	}
}

/*
 * Observer samples every 100 us for 2 s (TSC 1 GHz, on perf's clock from
 * 1 s) and a perf sample every millisecond beside them, from late ms on
 * (the observer started first, as on a loaded machine).
 */
static void corewide(struct record_writer *w, uint64_t late)
{
	_Alignas(8) unsigned char buf[16384];
	struct st_observe_meta meta;
	struct st_observe *r = (void *)buf;
	const uint32_t flags = ST_OBS_HARDWARE | ST_OBS_SELF;
	const unsigned per = 100;
	size_t words = st_observe_words(1, 1, flags);
	uint64_t acc[4] = { 0 }, items = 0, n = 0;

	memset(&meta, 0, sizeof(meta));
	meta.h = (struct st_header){ ST_REC_OBSERVE_META, ST_SOURCE_OBSERVER, sizeof(meta) };
	meta.pid = 1;
	meta.mode = ST_OBS_SHARED_MEMORY;
	meta.ncounters = 1;
	meta.width[0] = 64;
	snprintf(meta.counter_name[0], ST_OBS_NAME_LEN, "items");
	snprintf(meta.tag_name, ST_OBS_NAME_LEN, "phase");
	snprintf(meta.tag_value_name[1], ST_OBS_NAME_LEN, "fast");
	snprintf(meta.tag_value_name[2], ST_OBS_NAME_LEN, "slow");
	record_writer_append(w, &meta);
	for (uint32_t seq = 0; n < 20000; seq++) {
		unsigned first = seq ? 1 : 0;

		memset(buf, 0, sizeof(buf));
		r->h = (struct st_header){ ST_REC_OBSERVE, ST_SOURCE_OBSERVER, 0 };
		r->pid = 1;
		r->seq = seq;
		r->flags = flags | (seq ? ST_OBS_CONTINUES : 0);
		r->nsamples = (uint16_t)per;
		r->nthreads = 1;
		r->ncounters = 1;
		r->tsc_hz = 1000000000;
		r->tsc_base = 0;
		r->mono_base = 1000000000;
		r->tid[0] = 1;
		/* A continuing batch repeats the last sample of the one before. */
		if (first)
			n--;
		for (unsigned i = 0; i < per; i++, n++) {
			uint64_t *p = r->data + i * words, tag = n / 5000 % 2 ? 2 : 1;

			if (n && !(first && i == 0)) {
				acc[0] += 100000;
				acc[1] += tag == 1 ? 150000 : 50000;
				acc[2] += 100000;
				acc[3] += 200000;
				items += tag == 1 ? 30 : 10;
			}
			p[0] = 100000 * n;
			p[1] = 100000 * n + 100;
			memcpy(&p[2], acc, sizeof(acc));
			p[st_observe_counters_at(flags, 1, 0)] = items;
			p[st_observe_tag_at(flags, 1, 1, 0)] = tag;
		}
		r->h.size = (uint32_t)(sizeof(*r) + per * words * 8);
		record_writer_append(w, r);
	}
	for (uint64_t ms = late; ms < 2000; ms++)
		sample(w, 1, 0x401000, 1000000000 + ms * 1000000);
}

/*
 * The functions the chains mode samples in; never called.  gen_fn_a
 * calls gen_fn_b and jumps within itself after its sampled nop (at +2),
 * for the detail to follow.
 */
__attribute__((noinline, used)) void gen_fn_main(void);
__attribute__((noinline, used)) void gen_fn_main(void) { __asm__ volatile("nop; nop; nop; nop; nop; nop"); }
__attribute__((noinline, used)) void gen_fn_b(void);
__attribute__((noinline, used)) void gen_fn_a(void);
__attribute__((noinline, used)) void gen_fn_a(void)
{
	__asm__ volatile("nop; nop; nop; call gen_fn_b; jmp 1f; nop; 1: nop" ::: "memory");
}
__attribute__((noinline, used)) void gen_fn_b(void) { __asm__ volatile("nop; nop; nop; nop; nop; nop"); }

/* This program's executable mappings, as the kernel would report them. */
static uint64_t text_start, text_end;	/* the first of them */

static void own_mappings(struct record_writer *w)
{
	char exe[PATH_MAX], line[PATH_MAX + 128], path[PATH_MAX];
	_Alignas(8) unsigned char buf[PATH_MAX + 128];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *f = fopen("/proc/self/maps", "r");

	if (n <= 0 || !f) {
		if (f)
			fclose(f);
		return;
	}
	exe[n] = '\0';
	while (fgets(line, sizeof(line), f)) {
		unsigned long start, end, pgoff;
		char perms[8];

		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %4095s", &start, &end, perms, &pgoff,
			   path) == 5 && perms[2] == 'x' && !strcmp(path, exe) &&
		    st_mmap_make(buf, sizeof(buf), 1, 1000, start, end - start, pgoff, exe)) {
			record_writer_append(w, buf);
			if (!text_end) {
				text_start = start;
				text_end = end;
			}
		}
	}
	fclose(f);
}

static void chain_sample(struct record_writer *w, uint64_t time, const uint64_t *chain,
			 unsigned n, uint64_t cycles, uint64_t instructions)
{
	_Alignas(8) unsigned char buf[sizeof(struct st_sample) + 66 * 8];
	struct st_sample *s = (void *)buf;

	if (n > 64)
		n = 64;
	memset(buf, 0, sizeof(buf));
	s->h = (struct st_header){ ST_REC_SAMPLE, ST_SOURCE_PERF,
				   (uint32_t)(sizeof(*s) + (2 + n) * 8) };
	s->pid = s->tid = 1;
	s->time = time;
	s->ip = chain[0];
	s->period = 250000;
	s->ncounters = 2;
	s->nchain = (uint16_t)n;
	s->flags = ST_SAMPLE_HAS_COUNTERS;
	s->data[0] = cycles;
	s->data[1] = instructions;
	memcpy(s->data + 2, chain, n * 8);
	record_writer_append(w, s);
}

static void chains(struct record_writer *w)
{
	const uint64_t fmain = (uint64_t)(uintptr_t)&gen_fn_main + 2;
	const uint64_t fa = (uint64_t)(uintptr_t)&gen_fn_a + 2, fb = (uint64_t)(uintptr_t)&gen_fn_b + 2;
	const uint64_t mab[] = { fb, fa, fmain }, ma[] = { fa, fmain };

	own_mappings(w);
	for (uint64_t i = 0; i < 400; i++) {
		if (i % 4)
			chain_sample(w, 1000000000 + i * 1000000, mab, 3, 100, 300);
		else
			chain_sample(w, 1000000000 + i * 1000000, ma, 2, 100, 100);
	}
}

/* A wait of thread 2 that ended at end after ns, and who woke it (waker 0: an interrupt). */
static void woken_wait(struct record_writer *w, uint64_t end, uint64_t ns, const uint64_t *chain,
		       unsigned n, uint32_t waker)
{
	_Alignas(8) unsigned char buf[256];
	struct st_sample *s = (void *)buf;
	struct st_wake k = { { ST_REC_WAKE, ST_SOURCE_PERF, sizeof(k) }, 1, 2, end, ns,
			     waker ? 1 : 0, waker, waker ? 0 : ST_WAKE_INTERRUPT, 0, "" };

	if (waker)
		memcpy(k.waker_comm, "holder", 7);
	record_writer_append(w, &k);
	memset(buf, 0, sizeof(buf));
	s->h = (struct st_header){ ST_REC_SAMPLE, ST_SOURCE_PERF, (uint32_t)(sizeof(*s) + n * 8) };
	s->pid = 1;
	s->tid = 2;
	s->time = end;
	s->ip = chain[0];
	s->period = ns;
	s->nchain = (uint16_t)n;
	s->flags = ST_SAMPLE_WAITED | ST_OFFCPU_SLEEP << ST_SAMPLE_OFFCPU_SHIFT;
	memcpy(s->data, chain, n * 8);
	record_writer_append(w, s);
}

static void waits(struct record_writer *w)
{
	const uint64_t fmain = (uint64_t)(uintptr_t)&gen_fn_main + 2;
	const uint64_t fa = (uint64_t)(uintptr_t)&gen_fn_a + 2, fb = (uint64_t)(uintptr_t)&gen_fn_b + 2;
	const uint64_t mab[] = { fb, fa, fmain }, ma[] = { fa, fmain };
	uint64_t t = 1000000000;

	own_mappings(w);
	for (int i = 0; i < 150; i++) {
		t += 30000000;
		if (i % 3 == 2)
			woken_wait(w, t, 15000000, ma, 2, 0);
		else
			woken_wait(w, t, 10000000, mab, 3, 3);
	}
}

static void steady(struct record_writer *w, double seconds, double hz)
{
	const uint64_t fmain = (uint64_t)(uintptr_t)&gen_fn_main + 2;
	const uint64_t fa = (uint64_t)(uintptr_t)&gen_fn_a + 2, fb = (uint64_t)(uintptr_t)&gen_fn_b + 2;
	const uint64_t mab[] = { fb, fa, fmain }, ma[] = { fa, fmain }, m[] = { fmain };
	uint64_t n = (uint64_t)(seconds * hz), step = (uint64_t)(1e9 / hz);

	own_mappings(w);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t t = 1000000000 + i * step;

		if (i % 4 == 0)
			chain_sample(w, t, ma, 2, 100, 100);
		else if (i % 8 == 1)
			chain_sample(w, t, m, 1, 100, 200);
		else
			chain_sample(w, t, mab, 3, 100, 300);
	}
}

/*
 * A compiler's shape, for a session of its size: most samples deep, few
 * paths shared below the driver's frames.  Each frame's callee is one of
 * three places fixed by the caller's, so paths repeat as a program's do.
 * Return addresses 2 bytes into a place: never a function's first byte.
 */
/* ELF's executable segment mapped at 0x7f0000000000 (a shared object's or PIE's place). */
static bool elf_text_mapping(struct record_writer *w, const char *path)
{
	_Alignas(8) unsigned char buf[PATH_MAX + 128];
	int fd = open(path, O_RDONLY);
	Elf *e;
	GElf_Ehdr eh;
	size_t n = 0;
	bool found = false;

	elf_version(EV_CURRENT);
	e = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	if (e && gelf_getehdr(e, &eh) && elf_getphdrnum(e, &n) == 0) {
		for (size_t i = 0; i < n && !found; i++) {
			GElf_Phdr ph;
			uint64_t bias = eh.e_type == ET_DYN ? 0x7f0000000000ull : 0, page;

			if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
				continue;
			page = ph.p_vaddr & ~0xfffull;
			text_start = bias + ph.p_vaddr;
			text_end = text_start + ph.p_filesz;
			found = st_mmap_make(buf, sizeof(buf), 1, 1000, bias + page,
					     ph.p_vaddr + ph.p_filesz - page, ph.p_offset & ~0xfffull, path);
			if (found)
				record_writer_append(w, buf);
		}
	}
	if (e)
		elf_end(e);
	if (fd >= 0)
		close(fd);
	return found;
}

static void compile_like(struct record_writer *w, uint64_t n, const char *elf)
{
	enum { PLACES = 4096, DRIVER = 8, DEEPEST = 44 };
	uint64_t chain[DRIVER + DEEPEST], rng = 88172645463325252ull;	/* xorshift64 */

	if (elf ? !elf_text_mapping(w, elf) : (own_mappings(w), false))
		fprintf(stderr, "gen_records: no executable segment in %s\n", elf);
	if (text_end - text_start < PLACES * 4)
		return;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t place = 0, depth;
		uint64_t outer[DRIVER + DEEPEST];

		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		depth = DRIVER + 12 + rng % (DEEPEST - 12 + 1);
		for (uint64_t k = 0, r = rng; k < depth; k++) {
			/* Mostly the first callee; one frame in eight another. */
			r = r * 6364136223846793005ull + 1442695040888963407ull;
			place = k < DRIVER ? k : (place * 3 + 1 + (r >> 61 ? 0 : 1 + (r >> 33) % 2)) % PLACES;
			/* A return address within the text, a place every 1/4096th of it. */
			outer[k] = text_start + place * ((text_end - text_start) / PLACES) + 2;
		}
		for (uint64_t k = 0; k < depth; k++)
			chain[k] = outer[depth - 1 - k];
		chain_sample(w, 1000000000 + i * 100000, chain, (unsigned)depth, 100, 150 + i % 200);
	}
}

/* IbsOpData3's bits and IbsOpCtl's, as ibs.c's table has them. */
#define OP_VAL		(1ull << 18)
#define OP_CNT_CTL	(1ull << 19)
#define LD_OP		(1ull << 0)
#define ST_OP		(1ull << 1)
#define L1TLB_MISS	(1ull << 2)
#define DC_MISS		(1ull << 7)
#define LIN_VALID	(1ull << 17)
#define L2_MISS		(1ull << 20)
#define BRN_MISP	(1ull << 36)
#define BRN_RET		(1ull << 37)
/* AVAIL, OPSAM, OPCNT, BRNTRGT, OPCNTEXT, RIPINVALIDCHK, ZEN4: 8 registers */
#define ZEN4_CAPS	0x8f5u

static void ibs_op(struct record_writer *w, uint64_t time, uint64_t rip, uint64_t data,
		   uint64_t data2, uint64_t data3, uint64_t lin, unsigned nregs)
{
	_Alignas(8) unsigned char buf[sizeof(struct st_ibs) + ST_IBS_MAX_REGS * 8];
	struct st_ibs *b = (void *)buf;

	memset(buf, 0, sizeof(buf));
	b->h = (struct st_header){ ST_REC_IBS, ST_SOURCE_IBS,
				   (uint32_t)(sizeof(*b) + nregs * 8u) };
	b->pid = b->tid = 1;
	b->time = time;
	b->ip = rip;
	b->period = 0x100000;
	b->caps = ZEN4_CAPS;
	b->nregs = (uint8_t)nregs;
	b->family = 0x19;
	b->model = 0x11;
	b->reg[0] = OP_VAL | OP_CNT_CTL | (0x100000 >> 4 & 0xffff);
	b->reg[1] = rip;
	b->reg[2] = data;
	b->reg[3] = data2;
	b->reg[4] = data3;
	b->reg[5] = lin;
	record_writer_append(w, b);
}

static void ibs(struct record_writer *w)
{
	const uint64_t fmain = (uint64_t)(uintptr_t)&gen_fn_main + 2;
	const uint64_t fa = (uint64_t)(uintptr_t)&gen_fn_a + 2, fb = (uint64_t)(uintptr_t)&gen_fn_b + 2;
	const uint64_t lat256 = 256ull << 32, lat64 = 64ull << 32;

	own_mappings(w);
	for (uint64_t i = 0; i < 400; i++) {
		bool miss = i % 4 == 0;

		/* Zen 4 DataSrc 3: DRAM */
		ibs_op(w, 1000000000 + i * 1000000, fa, 0, miss ? 3 : 0,
		       LD_OP | LIN_VALID | (miss ? DC_MISS | L2_MISS | lat256 : 0),
		       0x7f0000001000 + i % 64 * 8, 8);
	}
	for (uint64_t i = 0; i < 200; i++) {
		uint64_t data = 40ull << 16;

		if (i % 2 == 0) {
			ibs_op(w, 1400000000 + i * 1000000, fb, data, 0, ST_OP | LIN_VALID,
			       0x7f0000002000 + i % 64 * 8, 8);
			continue;
		}
		data |= BRN_RET | (i % 8 == 1 ? BRN_MISP : 0);
		ibs_op(w, 1400000000 + i * 1000000, fb, data, 0, 0, 0, 8);
	}
	for (uint64_t i = 0; i < 100; i++)	/* Zen 4 DataSrc 1: local L3 */
		ibs_op(w, 2000000000 + i * 1000000, fmain, 0, 1,
		       LD_OP | LIN_VALID | L1TLB_MISS | DC_MISS | L2_MISS | lat64,
		       0x7f0000003000 + i % 64 * 8, 8);
	/* BrnTrgt promised, seven registers given: the model must refuse it. */
	ibs_op(w, 2200000000, fmain, 0, 0, 0, 0, 7);
}

/*
 * IBS fetch samples (Zen 4's capabilities: three registers): 100 fetches
 * in gen_fn_a, 50 in gen_fn_b, each completed, every fourth an IC miss.
 */
static void ibs_fetch(struct record_writer *w)
{
	const uint64_t fa = (uint64_t)(uintptr_t)&gen_fn_a + 2, fb = (uint64_t)(uintptr_t)&gen_fn_b + 2;
	_Alignas(8) unsigned char buf[sizeof(struct st_ibs) + ST_IBS_MAX_REGS * 8];
	struct st_ibs *b = (void *)buf;

	own_mappings(w);
	for (uint64_t i = 0; i < 150; i++) {
		uint64_t at = i < 100 ? fa : fb;

		memset(buf, 0, sizeof(buf));
		b->h = (struct st_header){ ST_REC_IBS, ST_SOURCE_IBS, sizeof(*b) + 3 * 8 };
		b->pid = b->tid = 1;
		b->time = 1000000000 + i * 1000000;
		b->ip = at;
		b->period = 0x10000;
		b->caps = ZEN4_CAPS;
		b->kind = ST_IBS_FETCH_KIND;
		b->nregs = 3;
		b->family = 0x19;
		b->model = 0x11;
		/* FetchVal, FetchComp, IcMiss; latency 30 cycles; MaxCnt 0x1000 */
		b->reg[0] = 1ull << 49 | 1ull << 50 | (i % 4 == 0 ? 1ull << 51 : 0) |
			    30ull << 32 | 0x1000;
		b->reg[1] = at;
		record_writer_append(w, b);
	}
}

/* A recording's samples as IBS op samples (non-memory ops) with their stacks. */
static int ibs_from(const char *in, const char *out)
{
	static _Alignas(8) unsigned char buf[ST_RECORD_MAX];
	struct st_file_header h;
	struct record_reader *r = record_reader_open(in, &h);
	struct record_writer *w;
	const void *rec;
	long len;

	if (!r)
		return 1;
	w = record_writer_open(out, &h);
	if (!w)
		return 1;
	while ((len = record_reader_next(r, &rec)) > 0) {
		const struct st_sample *s = rec;
		struct st_ibs *b = (void *)buf;
		size_t size = sizeof(*b) + 8 * 8, stack = 0;

		if (s->h.type != ST_REC_SAMPLE) {
			record_writer_append(w, rec);
			continue;
		}
		memset(buf, 0, size);
		if (s->flags & ST_SAMPLE_HAS_STACK) {
			stack = sizeof(struct st_stack) + st_align8(st_sample_stack(s)->size);
			memcpy(buf + size, st_sample_stack(s), stack);
			b->flags = ST_IBS_HAS_STACK;
		}
		b->h = (struct st_header){ ST_REC_IBS, ST_SOURCE_IBS, (uint32_t)(size + stack) };
		b->pid = s->pid;
		b->tid = s->tid;
		b->time = s->time;
		b->ip = s->ip;
		b->period = 0x10000;
		b->cpumode = s->cpumode;
		b->caps = ZEN4_CAPS;
		b->nregs = 8;
		b->family = 0x19;
		b->model = 0x11;
		b->reg[0] = OP_VAL | OP_CNT_CTL | 0x1000;
		b->reg[1] = s->ip;
		b->reg[2] = 20ull << 16;
		record_writer_append(w, b);
	}
	record_reader_close(r);
	return record_writer_close(w) < 0 || len < 0;
}

int main(int argc, char **argv)
{
	struct st_source_info info;
	struct st_file_header h;
	struct record_writer *w;

	if (argc < 3) {
		fputs("usage: gen_records empty|pids|path|fork|observe|corewide|observer-first|lossy|chains|"
		      "noted|exec|steady|compile|ibs|ibs-fetch|waits FILE, ibs-from IN OUT [ARG...]\n", stderr);
		return 2;
	}
	if (!strcmp(argv[1], "ibs-from"))
		return argc > 3 ? ibs_from(argv[2], argv[3]) : 2;
	memset(&info, 0, sizeof(info));
	info.kind = ST_SOURCE_PERF;
	info.period = (struct st_period){ 250000, ST_PERIOD_NS, false };
	snprintf(info.events, sizeof(info.events), "cpu-clock");
	info.ipc_cycles = info.ipc_instructions = -1;
	if (!strcmp(argv[1], "chains") || !strcmp(argv[1], "steady") ||
	    !strcmp(argv[1], "stalled") || !strcmp(argv[1], "compile")) {
		/* A {cycles,instructions} group: the counters ride with each sample. */
		info.ncounters = 2;
		info.ipc_cycles = 0;
		info.ipc_instructions = 1;
		snprintf(info.events, sizeof(info.events), "cycles,instructions");
	}
	if (!strcmp(argv[1], "waits")) {
		info.period = (struct st_period){ 1, ST_PERIOD_NS, false };
		snprintf(info.events, sizeof(info.events), "offcpu-time");
	}
	if (!strcmp(argv[1], "noted"))
		/* What a non-root run on a VM writes: the header's caveat is long. */
		snprintf(info.note, sizeof(info.note), "no hardware PMU: IPC unavailable, "
			 "sampling cpu-clock; kernel samples excluded (perf_event_paranoid)");
	if (!strcmp(argv[1], "ibs") || !strcmp(argv[1], "ibs-fetch")) {
		info.kind = ST_SOURCE_IBS;
		info.period = (struct st_period){ 0x100000, ST_PERIOD_EVENTS, false };
		snprintf(info.events, sizeof(info.events), "%s",
			 argv[1][3] ? "ibs_fetch" : "ibs_op");
	}
	record_header_from_info(&h, &info, 1, "gen_records");
	w = record_writer_open(argv[2], &h);
	if (!w)
		return 1;
	if (!strcmp(argv[1], "pids") && argc > 3) {
		long n = atol(argv[3]);

		for (long i = 0; i < n; i++)
			sample(w, (uint32_t)(100000 + i), 0x401000 + (uint64_t)i % 64,
			       1000000 + (uint64_t)i * 1000);
	} else if (!strcmp(argv[1], "fork") && argc > 3) {
		mapping(w, 1, argv[3]);
		sample(w, 2, 0x401000, 3000);
		task(w, ST_REC_FORK, 2, 1, 3100);
		sample(w, 2, 0x401010, 3200);
		task(w, ST_REC_EXIT, 2, 1, 3300);
	} else if (!strcmp(argv[1], "lossy")) {
		struct st_lost lost = { { ST_REC_LOST, ST_SOURCE_PERF, sizeof(lost) }, 50, 5000 };

		for (int i = 0; i < 100; i++)
			sample(w, 1, 0x7000 + (uint64_t)i, 1000 + (uint64_t)i);
		record_writer_append(w, &lost);
		for (int i = 0; i < 3; i++) {
			struct st_lost t = { { ST_REC_THROTTLE, ST_SOURCE_PERF, sizeof(t) }, 1,
					     6000 + (uint64_t)i };

			record_writer_append(w, &t);
		}
	} else if (!strcmp(argv[1], "observe")) {
		observe(w, 0);
	} else if (!strcmp(argv[1], "observe-idle")) {
		observe(w, 2);
	} else if (!strcmp(argv[1], "corewide")) {
		corewide(w, 0);
	} else if (!strcmp(argv[1], "observer-first")) {
		corewide(w, 20);
	} else if (!strcmp(argv[1], "waits")) {
		waits(w);
	} else if (!strcmp(argv[1], "chains") || !strcmp(argv[1], "noted")) {
		chains(w);
	} else if (!strcmp(argv[1], "stripped-start") && argc > 3) {
		/* Chains whose outermost frame is an unnamed one of a stripped libc. */
		const uint64_t fmain = (uint64_t)(uintptr_t)&gen_fn_main + 2;
		const uint64_t fa = (uint64_t)(uintptr_t)&gen_fn_a + 2;
		const uint64_t mab[] = { fa, fmain, 0x401234 };

		own_mappings(w);
		mapping(w, 1, argv[3]);
		for (uint64_t i = 0; i < 400; i++)
			chain_sample(w, 1000000000 + i * 1000000, mab, 3, 100, 100);
	} else if (!strcmp(argv[1], "stalled")) {
		const uint64_t late[] = { (uint64_t)(uintptr_t)&gen_fn_main + 2 };

		chains(w);
		chain_sample(w, 1000000000000, late, 1, 100, 100);
	} else if (!strcmp(argv[1], "exec")) {
		/* A shim: the target starts as sh and execs python3, as `sq.sh` runs sqlite3. */
		comm(w, ST_REC_COMM, 1, "sh", 500);
		chains(w);
		comm(w, ST_REC_EXEC, 1, "python3", 600000000);
	} else if (!strcmp(argv[1], "ibs")) {
		ibs(w);
	} else if (!strcmp(argv[1], "ibs-fetch")) {
		ibs_fetch(w);
	} else if (!strcmp(argv[1], "steady") && argc > 4) {
		steady(w, atof(argv[3]), atof(argv[4]));
	} else if (!strcmp(argv[1], "compile") && argc > 3) {
		compile_like(w, strtoull(argv[3], NULL, 10), argc > 4 ? argv[4] : NULL);
	} else if (!strcmp(argv[1], "path") && argc > 3) {
		mapping(w, 1, argv[3]);
		sample(w, 1, 0x401000, 2000);
	}
	return record_writer_close(w) < 0;
}
