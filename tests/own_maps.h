/*
 * own_maps.h - for model tests that sample their own functions: the
 * callback of symbols_read_proc_maps that tells the model (arg) each of
 * this process's executable mappings, as the sampler's MMAP records would.
 */
#ifndef SHIMTOP_TESTS_OWN_MAPS_H
#define SHIMTOP_TESTS_OWN_MAPS_H

#include "model/model.h"
#include "ring/record.h"

#include <stdint.h>
#include <unistd.h>

static inline void ingest_own_map(uint64_t start, uint64_t len, uint64_t pgoff,
				  const char *path, void *arg)
{
	_Alignas(8) unsigned char buf[4096];

	if (st_mmap_make(buf, sizeof(buf), (uint32_t)getpid(), 0, start, len, pgoff, path))
		model_ingest(arg, buf);
}

#endif
