/*
 * bus_guard.h - surviving a shared mapping whose owner truncates it.
 *
 * shimtop maps the target's signal segment and reads it without system
 * calls.  If the target shrinks the file, the next load from a page past
 * the new end raises SIGBUS, which by default kills shimtop, running as
 * root, at the will of an unprivileged process.  A guarded mapping is
 * replaced by zero pages when that happens and a flag is raised, so the
 * faulting load completes (reading 0) and the reader stops at its next
 * check of the flag.  Any other SIGBUS goes to the handler that was there
 * before, or kills the process as usual.
 */
#ifndef SHIMTOP_BUS_GUARD_H
#define SHIMTOP_BUS_GUARD_H

#include <signal.h>
#include <stddef.h>

/*
 * Guards [base, base + len), a whole mapping.  *faulted is set to 1 by
 * a fault inside it.  Returns 0, or -ENOSPC when too many are guarded.
 */
int bus_guard_add(const void *base, size_t len, volatile sig_atomic_t *faulted);

/* Stops guarding the mapping at base; call before unmapping it. */
void bus_guard_remove(const void *base);

#endif
