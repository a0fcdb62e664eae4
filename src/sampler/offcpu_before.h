/*
 * offcpu_before.h - threads already blocked when off-CPU sampling starts.
 * They left the CPU before sched_switch was sampled, so no sample says
 * where they wait, though their switch in will come.  Each is given its
 * wait from the start: its state from /proc, its user registers at the
 * system call from /proc/PID/task/TID/syscall, a copy of its stack read
 * while it sleeps, so that the model unwinds it as it unwinds any copy.
 */
#ifndef SHIMTOP_OFFCPU_BEFORE_H
#define SHIMTOP_OFFCPU_BEFORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ring/record.h"

/* Where a thread stopped in the kernel: its system call (-1: none) and user sp, pc. */
struct offcpu_at {
	long nr;
	uint64_t sp, pc;
};

/*
 * The kernel's text of /proc/PID/task/TID/syscall: true with at filled
 * when the thread is blocked ("nr args... sp pc", or "-1 sp pc"), false
 * when it runs or the text is not the kernel's.
 */
bool offcpu_at_parse(const char *text, struct offcpu_at *at);

/*
 * Why a thread in state (its letter in /proc/.../stat) and system call nr
 * waits: ST_OFFCPU_NONE when it does not (R: it runs or will at once;
 * Z, X: it is gone).
 */
enum st_offcpu_reason offcpu_before_reason(char state, long nr);

/* A process's executable mappings, sorted: where return addresses may point. */
struct offcpu_code {
	uint64_t (*range)[2];		/* start, end */
	size_t n, cap;
};

/* From /proc/PID/maps: 0, or -errno (c then empty). */
int offcpu_code_read(pid_t pid, struct offcpu_code *c);
void offcpu_code_free(struct offcpu_code *c);

/*
 * The frame pointer a thread blocked in a system call most likely holds:
 * libc's wrappers keep none, so rbp is still the innermost frame record
 * of code that keeps one, the lowest slot of the copy (bytes from sp)
 * whose word points higher into the copy, beside a return address (into
 * code's mappings, or any user address where code is NULL).  0 when the
 * copy holds none (the unwinder then needs no rbp, or stops).
 */
uint64_t offcpu_frame_guess(const unsigned char *bytes, size_t len, uint64_t sp,
			    const struct offcpu_code *code);

/*
 * Thread tid of process pid as an off-CPU sample, its wait counted from
 * now: nchain 0, its user registers and up to copy bytes of its stack in
 * a struct st_stack (base 0).  The record's size in out (room bytes), or
 * 0 when the thread does not wait or cannot be read (gone, or not ours
 * to read: ptrace's rules).  proc: "/proc", or a test's tree; code: the
 * process's, for offcpu_frame_guess.
 */
size_t offcpu_before_sample(const char *proc, pid_t pid, pid_t tid, uint64_t now, size_t copy,
			    const struct offcpu_code *code, void *out, size_t room);

#endif
