/*
 * kernel_walk_pages.h - files' compiled pages (symbols/unwind_pages.h)
 * given to the kernel's walker: one array map a file, and the rows they
 * index, shared, in one more.
 */
#ifndef SHIMTOP_KERNEL_WALK_PAGES_H
#define SHIMTOP_KERNEL_WALK_PAGES_H

#include <stdbool.h>
#include <stdint.h>

struct kw_dict_entry;
struct unwind_pages;

/* Files' maps made and not yet in kw_files: put there together (kw_pages_put). */
#define KW_HELD_MAX	64u

struct kw_pages {
	int files, dict;		/* the walker's kw_files and kw_dict */
	struct kw_dict_entry *by_row;	/* the rows in kw_dict, by their bytes */
	uint32_t ndict;
	uint32_t held_file[KW_HELD_MAX];
	int held_fd[KW_HELD_MAX];
	uint32_t nheld;
};

struct kw_row;
struct unwind_row;
/* row as the kernel applies it, its padding zero (a hash key here and there). */
struct kw_row kw_row_of(const struct unwind_row *row);

/* Over the walker's maps; false if its row of no CFI cannot be set. */
bool kw_pages_init(struct kw_pages *k, int files, int dict);
void kw_pages_clear(struct kw_pages *k);
/*
 * file's pages for the kernel: its map made and filled, held for
 * kw_files[file] until kw_pages_put; 0 or -errno.
 */
int kw_pages_give(struct kw_pages *k, uint32_t file, const struct unwind_pages *p);
/*
 * The maps held put in kw_files, in one update: each update of a map of
 * maps waits for a grace period of RCU, a sleep and a wake-up of its
 * own (20 files at a session's start, a sixth of its context switches).
 * 0 or -errno.
 */
int kw_pages_put(struct kw_pages *k);

#endif
