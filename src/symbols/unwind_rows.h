/*
 * unwind_rows.h - a file's call frame information as rows an unwinder
 * applies with a few loads: at an address, where the CFA is (rsp or rbp
 * plus an offset, or a PLT stub's rule), where the return address and
 * rbp were saved.  A row is worked out by libdw the first time its
 * address is asked for, and kept by address: a profile asks for the
 * same few thousand addresses (its hot code, its call sites) again and
 * again.  Kept by address, not by range: the range libdw reports for a
 * row starts wrong after DW_CFA_restore_state (libc's epilogues).
 */
#ifndef SHIMTOP_UNWIND_ROWS_H
#define SHIMTOP_UNWIND_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* x86-64's DWARF register numbers: 16 is the return address column (rip). */
#define DWARF_RBX	3
#define DWARF_RBP	6
#define DWARF_RSP	7
#define DWARF_RIP	16

enum unwind_row_kind {
	ROW_CFA_RSP,		/* CFA = rsp + cfa_off */
	ROW_CFA_RBP,		/* CFA = rbp + cfa_off */
	ROW_CFA_RBX,		/* CFA = rbx + cfa_off (ld.so's lazy-binding trampoline) */
	ROW_PLT,		/* CFA = rsp + cfa_off, + 8 where (rip & 15) >= plt_at */
	ROW_OUTERMOST,		/* the return address is undefined: the chain's end */
	ROW_OTHER,		/* a rule no row expresses (an expression, a signal frame) */
	ROW_NONE,		/* no CFI covers the address */
};

struct unwind_row {
	uint64_t addr;		/* the file address it is for, + 1 (0: an empty slot) */
	int32_t cfa_off;
	int16_t ra_off;		/* the return address is at CFA + ra_off */
	int16_t rbp_off;	/* rbp saved at CFA + rbp_off; 0: unchanged */
	int16_t rbx_off;	/* the same of rbx, which no sample carries */
	uint8_t kind;		/* enum unwind_row_kind */
	uint8_t plt_at;
	bool rbp_lost;		/* rbp is undefined in the caller */
	bool rbx_lost;		/* rbx is undefined, or saved where no row says */
	bool taught;		/* given to another walker (unwind.h's teacher); not kept on disk */
};

struct unwind_rows;

/*
 * The rows of the ELF file open on fd (the descriptor is not kept); never
 * NULL.  Rows a session worked out are kept on disk by the file's
 * build-id (unwind_rows_cache.c), and the next session's start from them.
 */
struct unwind_rows *unwind_rows_open(int fd);
void unwind_rows_free(struct unwind_rows *r);
/* r's rows are a scratch copy's: never written to the cache. */
void unwind_rows_unsaved(struct unwind_rows *r);

/* What the cache on disk gave a file's rows. */
enum unwind_rows_cached {
	ROWS_CACHE_NONE,	/* no copy (or no build-id, or no cache directory) */
	ROWS_CACHE_READ,	/* rows read from the copy */
	ROWS_CACHE_REFUSED,	/* a copy that is corrupt, or another file's: not used */
};
enum unwind_rows_cached unwind_rows_cached(const struct unwind_rows *r);

/*
 * The cache's bytes: r's rows as a copy on disk holds them (*out, to
 * free; its length), and such bytes taken into r, checked whole first
 * (false: refused, r unchanged).  Keyed by id (the file's build-id).
 */
size_t unwind_rows_to_bytes(const struct unwind_rows *r, unsigned char **out);
bool unwind_rows_from_bytes(struct unwind_rows *r, const unsigned char *id, size_t id_len,
			    const unsigned char *buf, size_t len);

/* The row for file address addr (a ROW_NONE row when no CFI covers it). */
const struct unwind_row *unwind_rows_find(struct unwind_rows *r, uint64_t addr);
/*
 * fn(arg, start, size, row) for each block of the function holding addr
 * that lies in one of its rows: big (a power of two) where aligned and
 * whole, small in the rest; once a function, for short functions (rows
 * made whole).  How many.
 */
size_t unwind_rows_blocks(struct unwind_rows *r, uint64_t addr, uint64_t big, uint64_t small,
			  void (*fn)(void *arg, uint64_t block, uint64_t size,
				     const struct unwind_row *row),
			  void *arg);
/*
 * fn(arg, addr, size, row) for what r knows already (from the cache, or
 * worked out so far): long functions' rows by address (size 0), then the
 * blocks of functions whose rows were made; max calls at most.  How many.
 */
size_t unwind_rows_each_known(struct unwind_rows *r, uint64_t big, uint64_t small, size_t max,
			      void (*fn)(void *arg, uint64_t addr, uint64_t size,
					 const struct unwind_row *row),
			      void *arg);
/*
 * Whether row (as unwind_rows_find just gave it) is yet to be taught to
 * another walker: true once, the row then marked taught.
 */
bool unwind_rows_first_lesson(struct unwind_rows *r, const struct unwind_row *row);

/*
 * Whether every address of the size-byte block (a power of two) holding
 * addr has addr's row: the block lies in one row of a function whose
 * rows were made whole, or (a long function's) libdw's row at its start
 * runs past its end.
 */
bool unwind_rows_block_shares(struct unwind_rows *r, uint64_t addr, uint64_t size);

/* The rule at addr as libdw gives it for that address alone, not kept: what rows are checked by. */
struct unwind_row unwind_rows_alone(struct unwind_rows *r, uint64_t addr);

/*
 * fn(arg, start, end, row) for every row of the file's CFI, by address,
 * as a table of all of them is compiled (unwind_pages.h): those of
 * functions not made yet are made as they would be, and not kept.  fn
 * returning false stops it (false returned).
 */
bool unwind_rows_each_span(struct unwind_rows *r,
			   bool (*fn)(void *arg, uint64_t start, uint64_t end,
				      const struct unwind_row *row),
			   void *arg);

/* fn(start, end, arg) for each function the file's .eh_frame describes. */
void unwind_rows_each_function(struct unwind_rows *r,
			       void (*fn)(uint64_t start, uint64_t end, void *arg), void *arg);

#endif
