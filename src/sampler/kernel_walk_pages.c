/*
 * kernel_walk_pages.c - a file's pages in the kernel.  Its map is made
 * as large as they are, filled through a mapping of it (megabytes for
 * libLLVM, one copy, no call a row) and put in kw_files at the file's
 * number, where the walker looks a page up before any row taught by
 * address.  The rows the entries index are one table for every file:
 * each distinct row once, the first the row of no CFI.
 */
#include "sampler/kernel_walk_pages.h"
#include "sampler/kernel_walk_abi.h"
#include "symbols/unwind_pages.h"
#include "util.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <uthash.h>

struct kw_dict_entry {
	UT_hash_handle hh;
	struct kw_row row;
	uint32_t index;
};

_Static_assert(UNWIND_PAGE_SHIFT == KW_PAGE_SHIFT, "pages are the walker's pages");
_Static_assert(UNWIND_PAGE_NONE == 0, "the walker's first row is the row of no CFI");
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "a page's even word is its element's low half");

struct kw_row kw_row_of(const struct unwind_row *r)
{
	struct kw_row k;

	/* Whole bytes, padding too: the row is a hash key. */
	memset(&k, 0, sizeof(k));
	k.cfa_off = r->cfa_off;
	k.ra_off = r->ra_off;
	k.rbp_off = r->rbp_off;
	k.rbx_off = r->rbx_off;
	k.kind = r->kind;
	k.plt_at = r->plt_at;
	k.rbp_lost = r->rbp_lost;
	k.rbx_lost = r->rbx_lost;
	return k;
}

/* row's index in kw_dict, given to the kernel the first time; UINT32_MAX when full. */
static uint32_t dict_index(struct kw_pages *k, const struct unwind_row *r)
{
	struct kw_row row = kw_row_of(r);
	struct kw_dict_entry *e;

	HASH_FIND(hh, k->by_row, &row, sizeof(row), e);
	if (e)
		return e->index;
	if (k->ndict >= KW_DICT_MAX || bpf_map_update_elem(k->dict, &k->ndict, &row, BPF_ANY))
		return UINT32_MAX;
	e = st_xcalloc(1, sizeof(*e));
	e->row = row;
	e->index = k->ndict++;
	HASH_ADD(hh, k->by_row, row, sizeof(e->row), e);
	return e->index;
}

bool kw_pages_init(struct kw_pages *k, int files, int dict)
{
	const struct unwind_row none = { .kind = ROW_NONE };

	memset(k, 0, sizeof(*k));
	k->files = files;
	k->dict = dict;
	return dict_index(k, &none) == 0;
}

void kw_pages_clear(struct kw_pages *k)
{
	struct kw_dict_entry *e, *tmp;

	for (uint32_t i = 0; i < k->nheld; i++)
		close(k->held_fd[i]);
	k->nheld = 0;

	HASH_ITER(hh, k->by_row, e, tmp) {
		HASH_DEL(k->by_row, e);
		free(e);
	}
}

int kw_pages_give(struct kw_pages *k, uint32_t file, const struct unwind_pages *p)
{
	struct bpf_map_create_opts opts = {
		.sz = sizeof(opts), .map_flags = BPF_F_MMAPABLE | BPF_F_INNER_MAP,
	};
	uint64_t first, span, words, base;
	uint32_t *index, *mem;
	size_t bytes;
	int fd, err = 0;

	if (file >= KW_FILES_MAX || !p->npages)
		return -EINVAL;
	first = p->pages[0].page;
	span = p->pages[p->npages - 1].page - first + 1;
	base = KW_PAGES_INDEX + 2 * span;
	words = base + p->nentries;
	/* Page numbers and entries' places are 32 bits in the kernel. */
	if (p->pages[p->npages - 1].page > UINT32_MAX || words > UINT32_MAX / 4)
		return -E2BIG;
	index = st_xcalloc(p->nrows, sizeof(*index));
	for (size_t i = 0; i < p->nrows; i++) {
		index[i] = dict_index(k, &p->rows[i]);
		if (index[i] == UINT32_MAX) {
			free(index);
			return -ENOSPC;
		}
	}
	/* Two words an element: the kernel lays an array's elements 8 bytes apart. */
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "kw_pages", sizeof(uint32_t), sizeof(uint64_t),
			    (uint32_t)((words + 1) / 2), &opts);
	if (fd < 0) {
		free(index);
		return -errno;
	}
	bytes = (size_t)(words + 1) / 2 * sizeof(uint64_t);
	bytes = (bytes + (size_t)getpagesize() - 1) & ~((size_t)getpagesize() - 1);
	mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (mem == MAP_FAILED) {
		err = -errno;
	} else {
		/* A new map is zero: pages not listed have no entries. */
		mem[KW_PAGES_FIRST] = (uint32_t)first;
		mem[KW_PAGES_SPAN] = (uint32_t)span;
		for (size_t i = 0; i < p->npages; i++) {
			const struct unwind_page *pg = &p->pages[i];
			uint64_t at = KW_PAGES_INDEX + 2 * (pg->page - first);

			mem[at] = (uint32_t)(base + pg->first);
			mem[at + 1] = pg->n;
		}
		for (size_t i = 0; i < p->nentries; i++)
			mem[base + i] = (uint32_t)UNWIND_ENTRY_OFF(p->entries[i]) << 16 |
					index[UNWIND_ENTRY_ROW(p->entries[i])];
		munmap(mem, bytes);
		if (k->nheld == KW_HELD_MAX)
			err = kw_pages_put(k);
		k->held_file[k->nheld] = file;
		k->held_fd[k->nheld++] = fd;
		fd = -1;
	}
	if (fd >= 0)
		close(fd);
	free(index);
	return err;
}

int kw_pages_put(struct kw_pages *k)
{
	struct bpf_map_batch_opts opts = { .sz = sizeof(opts), .elem_flags = BPF_ANY };
	uint32_t n = k->nheld;
	int err = 0;

	if (!n)
		return 0;
	/* A kernel without batches for maps of maps (before 5.7) takes them one by one. */
	if (bpf_map_update_batch(k->files, k->held_file, k->held_fd, &n, &opts))
		n = 0;
	for (uint32_t i = n; i < k->nheld; i++)
		if (bpf_map_update_elem(k->files, &k->held_file[i], &k->held_fd[i], BPF_ANY))
			err = -errno;
	for (uint32_t i = 0; i < k->nheld; i++)
		close(k->held_fd[i]);
	k->nheld = 0;
	return err;
}
