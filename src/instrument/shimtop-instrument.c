/*
 * shimtop-instrument.c - function-level tags without source changes.
 *
 * Build the program (or some of its files) with -finstrument-functions
 * and either link this library or LD_PRELOAD it: every instrumented
 * function entry and exit then publishes, in the calling thread's slot of
 * the <shimtop/signals.h> segment, the address of the function now
 * running as the tag and the instrumented stack depth with it (SHIM's
 * method-id signal plus the depth CallerChaining rebuilds trees from).
 * Each hook is two plain stores and a few instructions.  The segment
 * declares its tags to be code addresses, so shimtop shows them as
 * function names.
 *
 * The program must not open a segment of its own as well (one per PID).
 */
#include <shimtop/signals.h>

#include <stdbool.h>
#include <stdint.h>

#define NOINST __attribute__((no_instrument_function))
#define STACK_MAX 128	/* entries remembered to restore the caller's tag */

struct frame_state {
	struct shimtop_slot *slot;
	bool no_slot;		/* all slots taken, or no segment */
	uint32_t depth;
	uintptr_t stack[STACK_MAX];
};

static struct shimtop_signals *segment;
static __thread struct frame_state state __attribute__((tls_model("initial-exec")));

NOINST __attribute__((constructor)) static void instrument_open(void)
{
	segment = shimtop_signals_open("function", NULL, 0);
	shimtop_signals_tag_kind(segment, SHIMTOP_TAG_ADDRESS);
}

NOINST __attribute__((destructor)) static void instrument_close(void)
{
	if (segment)
		shimtop_signals_close();
}

NOINST static struct shimtop_slot *my_slot(void)
{
	if (!state.slot && !state.no_slot) {
		state.slot = shimtop_signals_thread(segment);
		state.no_slot = !state.slot;
	}
	return state.slot;
}

NOINST void __cyg_profile_func_enter(void *fn, void *call_site);
NOINST void __cyg_profile_func_exit(void *fn, void *call_site);

void __cyg_profile_func_enter(void *fn, void *call_site)
{
	struct shimtop_slot *slot = my_slot();

	(void)call_site;
	if (state.depth < STACK_MAX)
		state.stack[state.depth] = (uintptr_t)fn;
	state.depth++;
	shimtop_tag(slot, (uintptr_t)fn, state.depth);
}

void __cyg_profile_func_exit(void *fn, void *call_site)
{
	struct shimtop_slot *slot = my_slot();
	uintptr_t caller = 0;

	(void)fn;
	(void)call_site;
	if (state.depth)
		state.depth--;
	if (state.depth && state.depth <= STACK_MAX)
		caller = state.stack[state.depth - 1];
	shimtop_tag(slot, caller, state.depth);
}
