/*
 * unwind_rows_internal.h - what a file's rows are made of, shared by
 * their making (unwind_rows.c) and their copy on disk
 * (unwind_rows_cache.c).
 */
#ifndef SHIMTOP_UNWIND_ROWS_INTERNAL_H
#define SHIMTOP_UNWIND_ROWS_INTERNAL_H

#include "symbols/unwind_cfi.h"
#include "symbols/unwind_rows.h"

#include <elfutils/libdw.h>
#include <libelf.h>

/* Addresses kept per file (a slot 24 bytes); past it, worked out and not kept. */
#define ROWS_MAX	(1u << 22)
/* Rows of one FDE worked out (a function's prologue, epilogues, calls): past it, ROW_OTHER. */
#define FDE_ROWS_MAX	4096u
/*
 * A function longer than this has only the addresses asked for worked
 * out: each row costs a run of its FDE's instructions from the start,
 * and sqlite3's or libLLVM's longest have hundreds of rows.
 */
#define FDE_MADE_WHOLE	4096u
#define NOT_MADE	UINT32_MAX
#define BUILD_ID_MAX	64u
/*
 * Rows made since a copy was read that are worth writing it again for:
 * the whole copy is written (libLLVM's, 3 MiB, cost a compile's session
 * 5% of its CPU), and a row costs a libdw look-up to make again.
 */
#define ROWS_SAVE_FROM	256u
/*
 * FDEs a walk over a whole file asks libdw for through one handle: its
 * tree of the FDEs seen would otherwise hold them all (unwind_cfi_renew),
 * and each row's look-up searches it.  A fresh handle (the search table
 * read again) costs less than a tree of 1,024: libLLVM's and
 * libclang-cpp's compile 336-342 ms renewed every 1,024, 280-286 every 8.
 */
#define CFI_RENEW_EVERY	8u

/* One FDE: its addresses, and its rows in spans[at .. at + n) once made. */
struct fde {
	uint64_t start, end;
	uint32_t at, n;
	bool blocks_taught;	/* unwind_rows_blocks gave its blocks once (not kept on disk) */
	/* Its CIE and instructions in the file's mapping (insns NULL: unknown, as from the cache). */
	uint32_t prog_len;
	uint64_t cie;
	const uint8_t *insns;
};

/* A row over [start, end). */
struct span {
	uint64_t start, end;
	struct unwind_row rule;
};

struct unwind_rows {
	int fd;
	Elf *elf;
	struct unwind_cfi cfi;
	struct unwind_row *slots;	/* a power of two of them, at most half used */
	size_t n, cap;
	struct unwind_row scratch;	/* a row not kept */
	bool indexed;			/* fdes read */
	struct fde *fdes;		/* by start */
	size_t nfdes, fdes_cap;
	struct span *spans;
	size_t nspans, spans_cap;
	/* Rows of long functions, worked out address by address: kept for the cache. */
	struct unwind_row *alone;
	size_t nalone, alone_cap;
	/* The file's build-id (the cache's key) and what the cache did. */
	unsigned char build_id[BUILD_ID_MAX];
	size_t build_id_len;
	enum unwind_rows_cached cached;
	uint32_t dirty;			/* rows made since the cache was read */
	bool unsaved;			/* a scratch copy's rows: never written */
};

/* row (its addr set) kept in r's table by address: the kept copy. */
const struct unwind_row *unwind_rows_keep(struct unwind_rows *r, const struct unwind_row *row);
/* r's table sized for n rows at once (at most ROWS_MAX), as a cache's are read. */
void unwind_rows_reserve(struct unwind_rows *r, size_t n);

/* The cache's file for r, read into r (unwind_rows_open); r's rows written back (free). */
void unwind_rows_cache_load(struct unwind_rows *r);
void unwind_rows_cache_save(struct unwind_rows *r);

#endif
