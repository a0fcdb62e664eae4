/* tsc_clock.c - the observer's TSC frequency, read in tight brackets. */
#include "sampler/tsc_clock.h"

#include <stdbool.h>

#define ORIGIN_TRIES	16
#define UPDATE_TRIES	4
#define LOOSE_FACTOR	8	/* a bracket past 8x the origin's is preempted */
#define LOOSE_FLOOR	2000	/* ticks: never stricter than about 1 us */

struct tsc_pair tsc_pair_read(tsc_clock_read tsc, tsc_clock_read mono, unsigned tries)
{
	struct tsc_pair best = { 0, 0, UINT64_MAX };

	/* Past tries only while no pair at all was had, and never past 4x. */
	for (unsigned i = 0; i < 4 * tries && (i < tries || best.bracket == UINT64_MAX); i++) {
		uint64_t t0 = tsc(), m = mono(), t1 = tsc();

		if (t1 < t0)
			continue;	/* a clock that ran back is no pair */
		if (t1 - t0 < best.bracket) {
			best.tsc = t0 + (t1 - t0) / 2;
			best.mono = m;
			best.bracket = t1 - t0;
		}
	}
	return best;
}

void tsc_clock_start(struct tsc_clock *c, tsc_clock_read tsc, tsc_clock_read mono)
{
	c->origin = tsc_pair_read(tsc, mono, ORIGIN_TRIES);
	c->hz = 0;
}

bool tsc_clock_update(struct tsc_clock *c, tsc_clock_read tsc, tsc_clock_read mono)
{
	struct tsc_pair now = tsc_pair_read(tsc, mono, UPDATE_TRIES);
	uint64_t loose = c->origin.bracket > UINT64_MAX / LOOSE_FACTOR ? UINT64_MAX :
			 c->origin.bracket * LOOSE_FACTOR;

	if (loose < LOOSE_FLOOR)
		loose = LOOSE_FLOOR;
	if (now.bracket > loose || now.mono <= c->origin.mono + 1000000 ||
	    now.tsc <= c->origin.tsc)
		return false;
	c->hz = (uint64_t)((double)(now.tsc - c->origin.tsc) * 1e9 /
			   (double)(now.mono - c->origin.mono));
	return true;
}
