/* mapped.c - large arrays straight from the kernel (see mapped.h). */
#include "mapped.h"

#include <stdint.h>
#include <sys/mman.h>

#define HUGE_PAGE	((size_t)2 << 20)

static bool small_pages;

void st_map_small_pages(void)
{
	small_pages = true;
}

bool st_map_huge_ok(void)
{
	return !small_pages;
}

void *st_map_zeroed(size_t len, bool small_first)
{
	size_t span, head, tail, first = small_first ? HUGE_PAGE : 0;
	char *p, *at;

	if (!len || len > SIZE_MAX - 2 * HUGE_PAGE)
		return NULL;
	len = (len + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	span = len + HUGE_PAGE;	/* room to align the start */
	p = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		 -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	at = (char *)(((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
	head = (size_t)(at - p);
	tail = span - head - len;
	if (head)
		(void)munmap(p, head);
	if (tail)
		(void)munmap(at + len, tail);
	if (len > first && st_map_huge_ok())
		(void)madvise(at + first, len - first, MADV_HUGEPAGE);
	return at;
}

void st_map_not_inherited(void *p, size_t len)
{
	if (p)
		(void)madvise(p, (len + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1), MADV_DONTFORK);
}

void st_unmap(void *p, size_t len)
{
	if (p)
		(void)munmap(p, (len + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1));
}
