/*
 * tsc.h - the observer's clock: the time-stamp counter, read with
 * rdtscp (which waits for earlier instructions to finish) and fenced so
 * later reads do not start before it (SHIM, ISCA 2015, §3).  Other architectures get
 * CLOCK_MONOTONIC nanoseconds so the code still builds and runs, slower.
 */
#ifndef SHIMTOP_TSC_H
#define SHIMTOP_TSC_H

#include <stdint.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>

static inline uint64_t tsc_start(void)
{
	unsigned aux;
	uint64_t t = __rdtscp(&aux);

	_mm_lfence();
	return t;
}

static inline uint64_t tsc_end(void)
{
	unsigned aux;

	return __rdtscp(&aux);
}

static inline void tsc_pause(void)
{
	_mm_pause();
}
#else
#include <time.h>

static inline uint64_t tsc_end(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t tsc_start(void)
{
	return tsc_end();
}

static inline void tsc_pause(void)
{
}
#endif

#endif
