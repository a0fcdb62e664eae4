/*
 * rdpmc.h - reading a perf counter from user space through its mmap page
 * (linux/perf_event.h, "perf_event_mmap_page"): the seqlock loop, the
 * rdpmc instruction where the kernel allows it, sign extension to
 * pmc_width bits, and the read() fallback when the event is not on a
 * counter right now (index 0).  Only meaningful on the CPU that counts.
 */
#ifndef SHIMTOP_RDPMC_H
#define SHIMTOP_RDPMC_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>

/* Reads hardware counter idx (0-based); tests substitute their own. */
typedef uint64_t (*rdpmc_fn)(uint32_t idx, void *arg);

enum rdpmc_result {
	RDPMC_OK,		/* *value holds the count */
	RDPMC_USE_READ,		/* no counter now, or rdpmc not allowed: read() */
};

/*
 * Reads the count of the event whose page is pc.  Retries while the
 * kernel updates the page (lock changes); *retries counts those.
 */
enum rdpmc_result rdpmc_read(const volatile struct perf_event_mmap_page *pc,
			     rdpmc_fn rd, void *arg, uint64_t *value,
			     unsigned *retries);

/* The real instruction (x86-64). */
uint64_t rdpmc_instruction(uint32_t idx, void *arg);

/* Whether the kernel lets this event's counter be read from user space. */
bool rdpmc_allowed(const volatile struct perf_event_mmap_page *pc);

#endif
