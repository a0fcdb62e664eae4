/*
 * tsc_signal.c - a test program whose counter has a physical bound: it
 * adds one to counter 0 at most once per D TSC cycles (D = argv[2],
 * default 1000), timing each step from the moment it took the previous
 * one, so an interrupted counter never catches up.  Between any two
 * moments t0 < t1 the counter grows by at most (t1 - t0) / D + 1.  Runs
 * argv[1] seconds (default 3).
 */
#include <shimtop/signals.h>

#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

int main(int argc, char **argv)
{
	const char *names[] = { "ticks" };
	struct shimtop_signals *sig = shimtop_signals_open("none", names, 1);
	struct shimtop_slot *me = shimtop_signals_thread(sig);
	time_t end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 3);
	uint64_t d = argc > 2 ? strtoull(argv[2], NULL, 10) : 1000, next, x = 0;

	if (!me || d == 0)
		return 1;
	shimtop_tag(me, 1, 0);
	next = __rdtsc() + d;
	while (time(NULL) < end) {
		for (int i = 0; i < 10000; i++) {
			uint64_t now = __rdtsc();

			if (now >= next) {
				me->counter[0] = ++x;
				next = now + d;
			}
		}
	}
	shimtop_signals_close();
	return 0;
}
