/*
 * mapped.h - large arrays straight from the kernel, on huge pages.
 *
 * A call tree of a C++ compile grows by tens of megabytes: doubled by
 * realloc it is copied into fresh pages each time, and the interior
 * of a block malloc placed anywhere is only partly coverable by 2 MiB
 * pages, so the rest faults 4 KiB at a time (microseconds each in a
 * VM).  These blocks are 2 MiB aligned and zeroed by the kernel.
 */
#ifndef SHIMTOP_MAPPED_H
#define SHIMTOP_MAPPED_H

#include <stdbool.h>
#include <stddef.h>

/*
 * len bytes of zeroes, 2 MiB aligned, on huge pages (past the first
 * 2 MiB where small_first: an array that may stay small stays small);
 * address space only until touched (MAP_NORESERVE): a reservation an
 * array grows into without moving.  NULL where the kernel refuses.
 */
void *st_map_zeroed(size_t len, bool small_first);
/*
 * From now on, st_map_zeroed's blocks, st_table_alloc's tables and
 * st_hint_huge's arrays on 4 KiB pages only: under a tight
 * --memory a huge page is 2 MiB of the bound at a stroke, and the rings,
 * reorder buffers, tables and tree held 26 MB in 13 of them where --memory
 * 40 was asked (the history had what was left, RssAnon peaking past 40).
 */
void st_map_small_pages(void);
/* Whether huge pages may be asked for (not after st_map_small_pages). */
bool st_map_huge_ok(void);
/*
 * The block [p, p + len) (from st_map_zeroed) is left out of the
 * process's forked copies: for what a snapshot's writer never reads
 * (rings, reorder buffers).  Shared with the copy, each page the session
 * wrote while the copy lived was copied first, a fault and a flush of
 * the other CPU's TLB each (10-50 us in a VM).
 */
void st_map_not_inherited(void *p, size_t len);
/* Gives back what st_map_zeroed(len) returned (NULL: nothing). */
void st_unmap(void *p, size_t len);

#endif
