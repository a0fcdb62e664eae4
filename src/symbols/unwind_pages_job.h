/*
 * unwind_pages_job.h - files' pages (unwind_pages.h) compiled on a
 * worker thread, taken by their owner when done.
 */
#ifndef SHIMTOP_UNWIND_PAGES_JOB_H
#define SHIMTOP_UNWIND_PAGES_JOB_H

#include <stdint.h>

struct pages_jobs;
struct unwind_pages;

struct pages_jobs *pages_jobs_create(void);
/* The pages of the ELF file open on fd (the descriptor is copied), known as file. */
void pages_jobs_add(struct pages_jobs *j, int fd, uint32_t file);
/* A file's compiled pages (to free), its number in *file; NULL while none is done. */
struct unwind_pages *pages_jobs_take(struct pages_jobs *j, uint32_t *file);
/* Waits for a compile under way; what is queued or done is dropped. */
void pages_jobs_destroy(struct pages_jobs *j);

#endif
