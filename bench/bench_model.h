/*
 * bench_model.h - what the model benchmarks share: a model that knows
 * this process's mappings, and libc's text to spread sample addresses
 * over (thousands of real symbols).
 */
#ifndef SHIMTOP_BENCH_MODEL_H
#define SHIMTOP_BENCH_MODEL_H

#include <stddef.h>
#include <stdint.h>

struct model;

/* Feeds m this process's mappings; sets libc's text.  -1 if no libc. */
int bench_model_maps(struct model *m, uint64_t *libc_start, uint64_t *libc_len);

/* The next of a xorshift64 sequence: the benchmarks' reproducible randomness. */
static inline uint64_t bench_random(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

/*
 * The distinct start addresses of the functions a file's symbol tables
 * name (with a size), plus base, ascending, into *out (malloc'd).
 */
size_t bench_function_starts(const char *path, uint64_t base, uint64_t **out);

#endif
