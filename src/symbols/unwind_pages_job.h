/*
 * unwind_pages_job.h - files' pages (unwind_pages.h) compiled on a
 * worker thread and given, on that thread, to whoever takes them.
 */
#ifndef SHIMTOP_UNWIND_PAGES_JOB_H
#define SHIMTOP_UNWIND_PAGES_JOB_H

#include <stdint.h>

struct pages_jobs;
struct unwind_pages;

/* give(arg, file, pages) on the worker for each file's pages, freed after. */
struct pages_jobs *pages_jobs_create(void (*give)(void *arg, uint32_t file,
						  const struct unwind_pages *p),
				     void *arg);
/* The pages of the ELF file open on fd (the descriptor is copied), known as file. */
void pages_jobs_add(struct pages_jobs *j, int fd, uint32_t file);
/* Waits for a compile under way; what is queued is dropped. */
void pages_jobs_destroy(struct pages_jobs *j);

#endif
