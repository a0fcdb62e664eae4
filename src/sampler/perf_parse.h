/*
 * perf_parse.h - reading perf's mmap ring and turning its records into
 * shimtop records.  No system calls here, so tests drive it with a
 * constructed perf_event_mmap_page and hand-built records.
 */
#ifndef SHIMTOP_PERF_PARSE_H
#define SHIMTOP_PERF_PARSE_H

#include <asm/perf_regs.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sampler/events.h"

/* How the events were opened, which fixes the record layout. */
struct perf_layout {
	uint64_t sample_type;
	uint64_t read_format;
	int sample_id_all;
	/*
	 * The kernel's limit on a chain's frames (perf_event_max_stack), 0 if
	 * unknown: a chain that reaches it was cut, and is marked so.
	 */
	unsigned max_stack;
	/* PERF_SAMPLE_REGS_USER's mask: PERF_STACK_REGS (bp, sp, ip) or 0. */
	uint64_t regs_user;
	/* A branch stack (PERF_SAMPLE_BRANCH_STACK) carries its hardware index. */
	bool branch_hw_index;
	/*
	 * --call-graph lbr: the branch stack is the hardware's call stack
	 * (PERF_SAMPLE_BRANCH_CALL_STACK), the user chain's callers; the
	 * frame-pointer walk the kernel also wrote is not read.
	 */
	bool lbr_callstack;
	/*
	 * An IBS PMU's events: samples carry PERF_SAMPLE_RAW registers and
	 * become st_ibs records of ibs_kind (ST_IBS_OP_KIND ...), stamped
	 * with the CPU's family and model for their decoding.
	 */
	bool ibs;
	uint8_t ibs_kind;
	uint8_t family, model;
	/*
	 * --off-cpu: where sched_switch's prev_state lies in its raw data
	 * (the tracepoint's format), which makes its samples off-CPU ones;
	 * state_size 0: raw data is not read.
	 */
	uint32_t switch_state_at, switch_state_size;
	/*
	 * Optional: how much of thread tid's stack copy (sp up, size bytes
	 * the kernel wrote) to keep, so what is not wanted is never copied.
	 */
	size_t (*stack_keep)(void *arg, uint32_t tid, uint64_t sp, size_t size);
	void *stack_keep_arg;
};

/* The user registers --call-graph dwarf asks for: what CFI rules use. */
#define PERF_STACK_REGS	((1ull << PERF_REG_X86_BP) | (1ull << PERF_REG_X86_SP) | \
			 (1ull << PERF_REG_X86_IP))

/* Per-buffer state: the previous group values, for per-interval deltas. */
struct perf_group_state {
	uint64_t prev[ST_MAX_EVENTS];
	uint64_t prev_enabled;
	uint64_t prev_running;
	int have_prev;
};

typedef void (*perf_record_fn)(const struct perf_event_header *ev, void *arg);

/*
 * Calls fn for every complete record between data_tail and data_head,
 * then advances data_tail.  Records that wrap are copied to `scratch`
 * (at least data_size bytes... records are at most 64 KiB, so 64 KiB
 * suffices).  Returns the number of records, or -EBADMSG if the ring
 * is corrupt (a zero or oversize record); the tail then jumps to the head.
 */
long perf_mmap_drain(struct perf_event_mmap_page *page,
		     const unsigned char *data, size_t data_size,
		     unsigned char *scratch, perf_record_fn fn, void *arg);

/*
 * Converts one perf record into a shimtop record written to out (room
 * for ST_RECORD_MAX bytes).  Returns its size, or 0 for a record shimtop
 * does not use or cannot parse.
 */
size_t perf_convert(const struct perf_layout *l, struct perf_group_state *gs,
		    const struct perf_event_header *ev, void *out);

/* Why a thread left its CPU, from sched_switch's prev_state (any kernel since 4.14, and before). */
enum st_offcpu_reason perf_offcpu_reason(uint64_t prev_state);

#endif
