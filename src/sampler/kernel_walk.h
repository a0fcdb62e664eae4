/*
 * kernel_walk.h - user stacks walked in the kernel, where each sample is
 * taken, by a BPF program attached to the sampling events
 * (kernel_walk.bpf.c): no stack copy leaves the kernel for a walked
 * sample; its chain comes back on a bpf-output event per CPU.  The
 * program walks with what shimtop's own walks taught it (a process's
 * code mappings, the rows of the addresses they met: the unwinder's
 * teacher, symbols/unwind.h) and lets every other sample out with its
 * stack copy, for the walk in user space, which teaches it more.
 *
 * Needs the kernel's leave (CAP_BPF and CAP_PERFMON, or root) and a
 * shimtop built with libbpf; without either, copies are walked in user
 * space as before and kernel_walk_open says why.
 */
#ifndef SHIMTOP_KERNEL_WALK_H
#define SHIMTOP_KERNEL_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ring/record.h"
#include "sampler/kernel_walk_abi.h"

struct kernel_walk;
struct unwind_teacher;
struct perf_event_header;

/*
 * The program loaded and its maps made; NULL with why (one line) if not.
 * off_cpu: the switches' and wakes' programs too (--off-cpu), which a
 * session without it does not pay for (the kernel's BTF parsed, more
 * verified).
 */
struct kernel_walk *kernel_walk_open(bool off_cpu, char *why, size_t len);
void kernel_walk_close(struct kernel_walk *kw);

/* check: each walked sample is let out with its copy too, for the two walks compared. */
void kernel_walk_set_check(struct kernel_walk *kw, bool on);
bool kernel_walk_checking(const struct kernel_walk *kw);

/* The program on a sampling event (its leader); 0 or -errno. */
int kernel_walk_attach(struct kernel_walk *kw, int fd);

/*
 * --off-cpu's switches walked too: each switch on the machine noted (a
 * raw tracepoint on sched_switch, from the first call to close), so
 * that the program on a thread's software event context-switches sends
 * its chain with its state.  0, or -errno where this kernel cannot
 * (before 5.18 the tracepoint gives no state): sched_switch is then
 * sampled with copies, as without the walker.
 */
int kernel_walk_note_switches(struct kernel_walk *kw);
/*
 * Whether the wakeups of walked processes' threads are sent too (with
 * the switches, where the kernel has BTF and sched_waking): kernel_walk_convert
 * makes each an st_wake.
 */
bool kernel_walk_notes_wakes(const struct kernel_walk *kw);
/*
 * The processes sampled (on: as the session starts and as one forks; off:
 * as one exits), or every process (-a): their wakeups are sent from the
 * first, not only once the walker holds their mappings.
 */
void kernel_walk_watch(struct kernel_walk *kw, pid_t pid, bool on);
void kernel_walk_watch_all(struct kernel_walk *kw);
/* The switches' program on a thread's context-switches event; 0 or -errno. */
int kernel_walk_attach_switches(struct kernel_walk *kw, int fd);

/* A walked switch's reason (enum st_offcpu_reason) from kw_chain.switched. */
enum st_offcpu_reason kernel_walk_switch_reason(uint32_t switched);

/*
 * cpu's bpf-output event, where chains walked there come out, its
 * poll woken each wake_bytes; its fd or -errno.
 */
int kernel_walk_open_output(struct kernel_walk *kw, int cpu, uint32_t wake_bytes);

/*
 * The sampler read an exec (len 0) or a code mapping [start, start +
 * len) of pid at time: what the kernel holds of pid's mappings is taken
 * back if the mapping covers any of it.  An exec, or code mapped over
 * code mapped since the exec, lets only a walk of a sample at or after
 * time (which saw it) teach pid's mappings again.
 */
void kernel_walk_mapped(struct kernel_walk *kw, pid_t pid, uint64_t time, uint64_t start,
			uint64_t len);
/* Whether the kernel holds pid's mappings (walks its samples). */
bool kernel_walk_holds(struct kernel_walk *kw, pid_t pid);

/* What the unwinder teaches through (symbols/unwind.h). */
const struct unwind_teacher *kernel_walk_teacher(struct kernel_walk *kw);

/* Samples by what the program did with them (enum kw_count), summed over CPUs. */
void kernel_walk_counts(const struct kernel_walk *kw, uint64_t counts[KW_COUNTS]);

/* Whether a bpf-output sample is a row asked for (kept for the unwinder) rather than a chain. */
bool kernel_walk_take_need(struct kernel_walk *kw, const struct perf_event_header *ev);
/* The row a bpf-output sample asks for; false if it is no such request (or malformed). */
struct unwind_need;
bool kernel_walk_read_need(const struct perf_event_header *ev, struct unwind_need *out);

/*
 * What a bpf-output ring's PERF_RECORD_LOST says the kernel could not
 * write there (chains, rows asked for); 0 for any other record.
 */
uint64_t kernel_walk_lost(const struct perf_event_header *ev);

/*
 * A bpf-output sample (pid, tid, time, cpu, then the chain as raw data)
 * as an st_sample with that chain, flagged ST_SAMPLE_KERNEL_WALKED (and
 * for a switch out, with its reason: the sampler says which event it
 * is; a switch's state alone, whose sample comes with its copy after
 * it, as an st_switch flagged ST_SWITCH_TOLD; a thread woken, as an
 * st_wake),
 * written to out (room bytes); after the chain, two words: the user
 * stack pointer the walk started from, and how many of the chain's
 * first frames are the kernel's (a sample taken there).  Returns its
 * size, 0 if malformed.
 */
size_t kernel_walk_convert(const struct perf_event_header *ev, void *out, size_t room);

#endif
