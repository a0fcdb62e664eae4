/*
 * unwind.c - libdwfl's unwinder over a sample's registers and stack copy.
 *
 * libdwfl wants a Dwfl whose modules sit at the process's addresses, so
 * each process gets one, built from the symbolizer's map of it and built
 * again when that map changes.  Its thread callbacks serve one thread:
 * the sample being unwound, whose registers and stack the walk reads.
 */
#include "symbols/unwind.h"
#include "symbols/symbols.h"
#include "symbols/symbols_internal.h"
#include "util.h"

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

/* x86-64's DWARF register numbers: 16 is the return address column (rip). */
#define DWARF_RBP	6
#define DWARF_RSP	7
#define DWARF_RIP	16

struct process_unwinder {
	UT_hash_handle hh;
	pid_t pid;
	uint64_t gen;		/* the symbolizer's map generation it reflects */
	Dwfl *dwfl;
	bool attached;
};

/* What the callbacks read: the sample in hand. */
struct walk {
	pid_t tid;
	bool thread_given;
	const struct st_stack *k;
	bool ran_off;		/* a read fell outside the copy */
	struct unwound_frame *frames;
	size_t n, max;
};

struct unwinder {
	struct symbolizer *symbols;
	Dwfl_Callbacks callbacks;
	struct process_unwinder *procs;
	struct walk walk;
};

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_arg)
{
	struct walk *w = arg;

	(void)dwfl;
	if (w->thread_given)
		return 0;
	w->thread_given = true;
	*thread_arg = w;
	return w->tid;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct walk *w = arg;
	const struct st_stack *k = w->k;

	(void)dwfl;
	if (addr < k->sp || addr - k->sp > k->size || k->size - (addr - k->sp) < 8) {
		w->ran_off = true;
		return false;
	}
	memcpy(result, k->bytes + (addr - k->sp), 8);
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	const struct walk *w = arg;
	Dwarf_Word regs[2] = { w->k->bp, w->k->sp }, rip = w->k->ip;

	/*
	 * rip as a register too, not only as the pc: a PLT stub's CFA is an
	 * expression of it (.plt's FDE: rsp + 8, more past the push), and
	 * without it the walk ended in the stub (sqlite3: 2.6% of samples).
	 */
	if (!dwfl_thread_state_registers(thread, DWARF_RBP, 2, regs) ||
	    !dwfl_thread_state_registers(thread, DWARF_RIP, 1, &rip))
		return false;
	dwfl_thread_state_register_pc(thread, w->k->ip);
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static int take_frame(Dwfl_Frame *state, void *arg)
{
	struct walk *w = arg;
	Dwarf_Addr pc;
	Dwarf_Word sp = 0;

	if (!dwfl_frame_pc(state, &pc, NULL))
		return DWARF_CB_ABORT;
	if (dwfl_frame_reg(state, DWARF_RSP, &sp) != 0)
		sp = 0;
	w->frames[w->n++] = (struct unwound_frame){ pc, sp };
	return w->n < w->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

struct unwinder *unwinder_create(struct symbolizer *s)
{
	struct unwinder *u = st_xcalloc(1, sizeof(*u));

	u->symbols = s;
	/* Modules are reported with their descriptors: nothing to find. */
	u->callbacks.find_elf = dwfl_build_id_find_elf;
	u->callbacks.find_debuginfo = elf_find_debuginfo;
	return u;
}

static void process_free(struct process_unwinder *p)
{
	if (p->dwfl)
		dwfl_end(p->dwfl);
	free(p);
}

void unwinder_forget(struct unwinder *u, pid_t pid)
{
	struct process_unwinder *p;

	HASH_FIND(hh, u->procs, &pid, sizeof(pid), p);
	if (p) {
		HASH_DEL(u->procs, p);
		process_free(p);
	}
}

void unwinder_destroy(struct unwinder *u)
{
	struct process_unwinder *p, *tmp;

	if (!u)
		return;
	HASH_ITER(hh, u->procs, p, tmp) {
		HASH_DEL(u->procs, p);
		process_free(p);
	}
	free(u);
}

/* pid's Dwfl, rebuilt when its map has changed since; NULL if none. */
static struct process_unwinder *process_of(struct unwinder *u, pid_t pid)
{
	uint64_t gen = symbolizer_generation(u->symbols, pid);
	struct process_unwinder *p;

	HASH_FIND(hh, u->procs, &pid, sizeof(pid), p);
	if (p && p->gen == gen)
		return p->attached ? p : NULL;
	if (p) {
		HASH_DEL(u->procs, p);
		process_free(p);
	}
	p = st_xcalloc(1, sizeof(*p));
	p->pid = pid;
	p->gen = gen;
	HASH_ADD(hh, u->procs, pid, sizeof(p->pid), p);
	if (!gen || !(p->dwfl = dwfl_begin(&u->callbacks)))
		return NULL;
	dwfl_report_begin(p->dwfl);
	symbolizer_report_modules(u->symbols, pid, p->dwfl);
	dwfl_report_end(p->dwfl, NULL, NULL);
	p->attached = dwfl_attach_state(p->dwfl, NULL, pid, &thread_callbacks, &u->walk);
	return p->attached ? p : NULL;
}

size_t unwinder_walk(struct unwinder *u, pid_t pid, pid_t tid, const struct st_stack *k,
		     struct unwound_frame *frames, size_t max, enum unwind_end *end)
{
	struct process_unwinder *p;
	struct walk *w = &u->walk;
	int rc;

	*end = UNWIND_LOST;
	if (!max)
		return 0;
	p = process_of(u, pid);
	if (!p) {
		frames[0] = (struct unwound_frame){ k->ip, k->sp };
		return 1;
	}
	*w = (struct walk){ .tid = tid > 0 ? tid : pid, .k = k, .frames = frames, .max = max };
	rc = dwfl_getthread_frames(p->dwfl, w->tid, take_frame, w);
	if (!w->n)
		frames[w->n++] = (struct unwound_frame){ k->ip, k->sp };
	if (rc == 0)
		*end = UNWIND_COMPLETE;
	else if (w->ran_off || w->n == max)
		*end = UNWIND_CUT;
	return w->n;
}
