/*
 * unwind_pages_job.h - files' pages (unwind_pages.h) compiled on a
 * worker thread and given, on that thread, to whoever takes them.
 */
#ifndef SHIMTOP_UNWIND_PAGES_JOB_H
#define SHIMTOP_UNWIND_PAGES_JOB_H

#include <stdbool.h>
#include <stdint.h>

struct pages_jobs;
struct unwind_pages;

/*
 * give(arg, owner, file, pages) on the worker for each file's pages:
 * true when it keeps them (and frees them later), else they are freed.
 */
typedef bool (*pages_give_fn)(void *arg, void *owner, uint32_t file, struct unwind_pages *p);
/*
 * settle(arg), if not NULL, on the worker once the pages given so far
 * must be in use: when nothing more is queued, or only compiles, which
 * take a while.  The taker may gather what it is given until then.
 */
typedef void (*pages_settle_fn)(void *arg);
struct pages_jobs *pages_jobs_create(pages_give_fn give, pages_settle_fn settle, void *arg);
/*
 * The pages of the ELF file open on fd (the descriptor is copied), known
 * as file, for owner (given back to give).
 */
void pages_jobs_add(struct pages_jobs *j, int fd, uint32_t file, void *owner);
/*
 * Pages already made (unwind_pages_cached) given on the worker; false if
 * it could not start.  They stay the caller's, never freed here.
 */
bool pages_jobs_give(struct pages_jobs *j, struct unwind_pages *p, uint32_t file, void *owner);
/* The cache's copy of the pages of the ELF file open on fd, read on this thread; NULL if none. */
struct unwind_pages *unwind_pages_cached(int fd);
/* Waits for a compile under way; what is queued is dropped. */
void pages_jobs_destroy(struct pages_jobs *j);

#endif
