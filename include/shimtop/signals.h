/*
 * shimtop/signals.h - publish software signals for shimtop's observer.
 *
 * A program includes this header (no library needed) and publishes:
 *   tag      one value per thread, e.g. the current phase or function,
 *            with the stack depth it runs at;
 *   counter  values that only grow, e.g. requests done, bytes allocated.
 * Every write is a plain store to one fixed location per signal in a
 * shared-memory segment, so publishing costs the program a store.
 * shimtop finds the segment from the PID alone.
 *
 *     struct shimtop_signals *sig = shimtop_signals_open("phase", names, 1);
 *     struct shimtop_slot *me = shimtop_signals_thread(sig);   per thread
 *     shimtop_tag(me, PHASE_PARSE, depth);
 *     shimtop_count(me, 0, 1);
 *
 * The layout below is a stable interface, versioned by
 * SHIMTOP_SIGNALS_VERSION (a change of any offset or size bumps it and
 * shimtop refuses segments of a version it does not know), so programs
 * in other languages (Rust, Go, ...) can write it without this header.
 * The header compiles as C (C99 on) and C++.
 *
 * Segment layout, version 1 (native byte order).  The POSIX shared memory
 * object "/shimtop-PID" (Linux: /dev/shm/shimtop-PID), mode 0600, owned by
 * the program's user:
 *
 *   offset 0     struct shimtop_signals_header (one 4096-byte page):
 *                magic "SHIMSIG1", version 1, header size, slot size,
 *                number of slots, pid, counter count, names, what the
 *                tag holds (a value, or a code address to symbolize),
 *                the creator's start time, and names for tag values 0-15
 *                (e.g. phase names)
 *   offset 4096  struct shimtop_slot[nslots], 64 bytes each: one cache
 *                line per thread, so threads never share a line
 *
 * A slot is free while its tid is 0; a thread claims one with a
 * compare-and-swap of its tid and then is its only writer.  Readers treat
 * tag and depth as one sample of the period they were read in (SHIM's
 * tags); counters are read in order, before the tags.
 */
#ifndef SHIMTOP_SIGNALS_H
#define SHIMTOP_SIGNALS_H

#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SHIMTOP_SIGNALS_MAGIC		"SHIMSIG1"
#define SHIMTOP_SIGNALS_VERSION		1u
#define SHIMTOP_SIGNALS_HEADER_SIZE	4096u
#define SHIMTOP_SIGNALS_SLOTS		256u
#define SHIMTOP_SIGNALS_COUNTERS	4u
#define SHIMTOP_SIGNALS_NAME_LEN	32u
#define SHIMTOP_SIGNALS_TAG_NAMES	16u

/* What a tag holds, in shimtop_signals_header.tag_kind. */
#define SHIMTOP_TAG_VALUE	0u	/* a number: phase, request kind, ... */
#define SHIMTOP_TAG_ADDRESS	1u	/* a code address in the program */

struct shimtop_slot {
	volatile uint32_t tid;		/* 0: free */
	volatile uint32_t depth;	/* stack depth that goes with the tag */
	volatile uint64_t tag;
	volatile uint64_t counter[SHIMTOP_SIGNALS_COUNTERS];
	uint64_t reserved[2];
} __attribute__((aligned(64)));

struct shimtop_signals_header {
	char magic[8];
	uint32_t version;
	uint32_t header_size;
	uint32_t slot_size;
	uint32_t nslots;
	uint32_t pid;
	uint32_t ncounters;
	char tag_name[SHIMTOP_SIGNALS_NAME_LEN];
	char counter_name[SHIMTOP_SIGNALS_COUNTERS][SHIMTOP_SIGNALS_NAME_LEN];
	uint32_t tag_kind;
	uint32_t start_time;	/* the creator's start, clock ticks after boot
				   (/proc/PID/stat field 22, low 32 bits; 0 if
				   unknown): tells a segment left by an earlier
				   process with the same PID */
	char tag_value_name[SHIMTOP_SIGNALS_TAG_NAMES][SHIMTOP_SIGNALS_NAME_LEN];
};

struct shimtop_signals {
	struct shimtop_signals_header header;
	char pad[SHIMTOP_SIGNALS_HEADER_SIZE - sizeof(struct shimtop_signals_header)];
	struct shimtop_slot slot[SHIMTOP_SIGNALS_SLOTS];
};

#define SHIMTOP_SIGNALS_SIZE sizeof(struct shimtop_signals)

static inline void shimtop_signals_name(char *buf, size_t len, long pid)
{
	snprintf(buf, len, "/shimtop-%ld", pid);
}

/* This process's start time for the header (see start_time); 0 if unknown. */
static inline uint32_t shimtop_signals_start_time(void)
{
	char buf[1024];
	const char *p;
	unsigned field = 2;
	FILE *f = fopen("/proc/self/stat", "r");

	if (!f)
		return 0;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	/* Fields count from after the command name's last ')'. */
	p = p ? strrchr(buf, ')') : NULL;
	if (!p)
		return 0;
	for (p++; *p && field < 22; p++)
		if (*p == ' ')
			field++;
	return field == 22 ? (uint32_t)strtoull(p, NULL, 10) : 0;
}

/*
 * Creates the segment for this process; NULL (errno set) on failure.
 * counter_names may be NULL when ncounters is 0.
 */
static inline struct shimtop_signals *
shimtop_signals_open(const char *tag_name, const char *const *counter_names,
		     unsigned ncounters)
{
	char name[64];
	struct shimtop_signals *s;
	uint32_t start = shimtop_signals_start_time();
	int fd;

	if (ncounters > SHIMTOP_SIGNALS_COUNTERS)
		ncounters = SHIMTOP_SIGNALS_COUNTERS;
	shimtop_signals_name(name, sizeof(name), (long)getpid());
	shm_unlink(name);	/* a stale one from an earlier process */
	fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return NULL;
	if (ftruncate(fd, SHIMTOP_SIGNALS_SIZE) < 0) {
		close(fd);
		shm_unlink(name);
		return NULL;
	}
	s = (struct shimtop_signals *)mmap(NULL, SHIMTOP_SIGNALS_SIZE,
					    PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if ((void *)s == MAP_FAILED) {
		shm_unlink(name);
		return NULL;
	}
	s->header.version = SHIMTOP_SIGNALS_VERSION;
	s->header.header_size = SHIMTOP_SIGNALS_HEADER_SIZE;
	s->header.slot_size = sizeof(struct shimtop_slot);
	s->header.nslots = SHIMTOP_SIGNALS_SLOTS;
	s->header.pid = (uint32_t)getpid();
	s->header.ncounters = ncounters;
	s->header.start_time = start;
	snprintf(s->header.tag_name, SHIMTOP_SIGNALS_NAME_LEN, "%s",
		 tag_name ? tag_name : "tag");
	for (unsigned i = 0; i < ncounters; i++)
		snprintf(s->header.counter_name[i], SHIMTOP_SIGNALS_NAME_LEN, "%s",
			 counter_names[i]);
	/* The magic goes last: a reader never sees a half-made header. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memcpy(s->header.magic, SHIMTOP_SIGNALS_MAGIC, 8);
	return s;
}

/* Names tag value v (< 16) for display, e.g. 1 -> "parse". */
static inline void shimtop_signals_name_tag(struct shimtop_signals *s,
					    unsigned v, const char *name)
{
	if (s && v < SHIMTOP_SIGNALS_TAG_NAMES)
		snprintf(s->header.tag_value_name[v], SHIMTOP_SIGNALS_NAME_LEN,
			 "%s", name);
}

/* Declares tags to be code addresses (function-level instrumentation). */
static inline void shimtop_signals_tag_kind(struct shimtop_signals *s,
					    uint32_t kind)
{
	if (s)
		s->header.tag_kind = kind;
}

/* Removes the segment's name (call at exit; the mapping stays valid). */
static inline void shimtop_signals_close(void)
{
	char name[64];

	shimtop_signals_name(name, sizeof(name), (long)getpid());
	shm_unlink(name);
}

/* The calling thread's slot, claimed on first use; NULL if all are taken. */
static inline struct shimtop_slot *shimtop_signals_thread(struct shimtop_signals *s)
{
	uint32_t tid = (uint32_t)syscall(SYS_gettid);

	if (!s)
		return NULL;
	for (unsigned i = 0; i < SHIMTOP_SIGNALS_SLOTS; i++) {
		uint32_t expect = 0;

		if (s->slot[i].tid == tid)
			return &s->slot[i];
		if (s->slot[i].tid == 0 &&
		    __atomic_compare_exchange_n(&s->slot[i].tid, &expect, tid, 0,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return &s->slot[i];
	}
	return NULL;
}

/* A plain store each: the observer reads them without synchronising. */
static inline void shimtop_tag(struct shimtop_slot *slot, uint64_t tag,
			       uint32_t depth)
{
	if (slot) {
		slot->depth = depth;
		slot->tag = tag;
	}
}

static inline void shimtop_count(struct shimtop_slot *slot, unsigned i,
				 uint64_t n)
{
	if (slot && i < SHIMTOP_SIGNALS_COUNTERS)
		slot->counter[i] = slot->counter[i] + n;
}

#ifdef __cplusplus
}
#endif

#endif
