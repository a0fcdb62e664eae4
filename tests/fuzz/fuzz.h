/* fuzz.h - what the fuzz targets share. */
#ifndef SHIMTOP_FUZZ_H
#define SHIMTOP_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "symbols/symbols.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * One replay symbolizer for 256 inputs: opening the ELF files an input
 * names is most of a run's cost.  A crash input run alone gets a fresh one.
 */
static inline struct symbolizer *fuzz_symbolizer(void)
{
	static struct symbolizer *s;
	static unsigned runs;

	if (runs++ % 256 == 0) {
		symbolizer_destroy(s);
		s = symbolizer_create(false);
	}
	return s;
}

#endif
