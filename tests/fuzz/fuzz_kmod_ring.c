/*
 * fuzz_kmod_ring.c - libFuzzer: the IBS module's rings as shimtop maps
 * them, with any bytes in them (heads, tails, drop counts, records).  The
 * reader never reads past a ring, hands on only records that check, and
 * leaves every tail at its ring's head.
 */
#include "fuzz.h"
#include "ring/record.h"
#include "sampler/kmod_ring.h"

#include <stdlib.h>
#include <string.h>

#define RINGS	2u
#define NREC	64u

static void taken(const void *rec, void *arg)
{
	const struct st_header *h = rec;

	if (h->type != ST_REC_IBS && h->type != ST_REC_SAMPLE)
		abort();
	++*(size_t *)arg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct shimtop_ibs_info in = { .version = SHIMTOP_IBS_VERSION, .rings = RINGS,
				       .nrec = NREC };
	struct kmod_ring_cursor cur[RINGS];
	struct kmod_ring_stats st;
	size_t handed = 0;
	uint8_t *map;

	in.ring_stride = sizeof(struct shimtop_ibs_ring) + NREC * sizeof(struct shimtop_ibs_record);
	in.map_size = in.ring_stride * RINGS;
	if (kmod_info_check(&in, NULL, 0) < 0)
		abort();
	/* Exactly the mapping's size: ASan sees any read past it. */
	map = malloc(in.map_size);
	memset(map, 0, in.map_size);
	memcpy(map, data, size < in.map_size ? size : in.map_size);
	memset(cur, 0, sizeof(cur));
	memset(&st, 0, sizeof(st));
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t r = 0; r < RINGS; r++) {
			struct shimtop_ibs_ring *rg = (void *)(map + in.ring_stride * r);

			handed += kmod_ring_drain(map, &in, r, &cur[r], 0x19, 0x11, 0x10000, UINT64_MAX,
						  taken, &handed, &st);
			if (rg->tail != rg->head)
				abort();
		}
	if (handed != 2 * st.records || st.records > 2 * RINGS * NREC)
		abort();
	free(map);
	return 0;
}
