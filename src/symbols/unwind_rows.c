/*
 * unwind_rows.c - rows of a file's .eh_frame.  The first address asked
 * for in a function has all its FDE's rows worked out by libdw, from
 * the FDE's start: dwarf_cfi_addrframe runs the CIE's and FDE's
 * instructions up to an address and says where its row ends, which is
 * where the next row starts (the start it says is wrong after
 * DW_CFA_restore_state, so each row is asked for at its own start).
 * Every address asked for is then kept in an open-addressing table, a
 * look-up its fast path.  Only the rules compilers write for x86-64
 * code become rows an unwinder applies itself; anything else is
 * ROW_OTHER, for libdwfl.
 */
#include "symbols/unwind_rows_internal.h"
#include "symbols/symbols_internal.h"
#include "util.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct unwind_rows *unwind_rows_open(int fd)
{
	struct unwind_rows *r = st_xcalloc(1, sizeof(*r));

	r->fd = fd >= 0 ? fcntl(fd, F_DUPFD_CLOEXEC, 0) : -1;
	if (r->fd >= 0 && elf_version(EV_CURRENT) != EV_NONE)
		r->elf = elf_begin(r->fd, ELF_C_READ_MMAP, NULL);
	if (r->elf) {
		const void *id;
		ssize_t n = dwelf_elf_gnu_build_id(r->elf, &id);

		unwind_cfi_open(&r->cfi, r->fd, r->elf);
		if (n > 0 && (size_t)n <= sizeof(r->build_id)) {
			memcpy(r->build_id, id, (size_t)n);
			r->build_id_len = (size_t)n;
			unwind_rows_cache_load(r);
		}
	}
	return r;
}

void unwind_rows_free(struct unwind_rows *r)
{
	if (!r)
		return;
	if (r->dirty && !r->unsaved && (r->cached != ROWS_CACHE_READ || r->dirty >= ROWS_SAVE_FROM))
		unwind_rows_cache_save(r);
	unwind_cfi_close(&r->cfi);
	if (r->elf)
		elf_end(r->elf);
	if (r->fd >= 0)
		close(r->fd);
	free(r->slots);
	free(r->fdes);
	free(r->spans);
	free(r->alone);
	free(r);
}

void unwind_rows_unsaved(struct unwind_rows *r)
{
	r->unsaved = true;
}

enum unwind_rows_cached unwind_rows_cached(const struct unwind_rows *r)
{
	return r->cached;
}

/* The offset of a register saved at CFA + N: true with *off; false for other rules. */
static bool saved_at_cfa(const Dwarf_Op *ops, size_t nops, int64_t *off)
{
	if (nops < 1 || ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	if (nops == 1) {
		*off = 0;
		return true;
	}
	if (nops != 2 || ops[1].atom != DW_OP_plus_uconst)
		return false;
	*off = (int64_t)ops[1].number;
	return true;
}

/*
 * A PLT stub's CFA, as binutils writes it for .plt: rsp + N, and 8 more
 * once the stub has pushed (past byte T of each 16-byte entry):
 * breg7 N; breg16 0; lit15; and; litT; ge; lit3; shl; plus.
 */
static bool plt_rule(const Dwarf_Op *o, size_t n, struct unwind_row *row)
{
	if (n != 9 || o[0].atom != DW_OP_breg7 || o[1].atom != DW_OP_breg16 || o[1].number ||
	    o[2].atom != DW_OP_lit15 || o[3].atom != DW_OP_and || o[4].atom < DW_OP_lit0 ||
	    o[4].atom > DW_OP_lit15 || o[5].atom != DW_OP_ge || o[6].atom != DW_OP_lit3 ||
	    o[7].atom != DW_OP_shl || o[8].atom != DW_OP_plus ||
	    (int64_t)o[0].number < 0 || (int64_t)o[0].number > 4096)
		return false;
	row->kind = ROW_PLT;
	row->cfa_off = (int32_t)o[0].number;
	row->plt_at = (uint8_t)(o[4].atom - DW_OP_lit0);
	return true;
}

/* How the CFA is found, into row; false for a rule no row expresses. */
static bool take_cfa(Dwarf_Frame *frame, struct unwind_row *row)
{
	Dwarf_Op *ops;
	size_t nops;

	if (dwarf_frame_cfa(frame, &ops, &nops) != 0 || !nops)
		return false;
	if (nops == 1 && ops[0].atom == DW_OP_bregx &&
	    (ops[0].number == DWARF_RSP || ops[0].number == DWARF_RBP) &&
	    (int64_t)ops[0].number2 >= INT32_MIN && (int64_t)ops[0].number2 <= INT32_MAX) {
		row->kind = ops[0].number == DWARF_RSP ? ROW_CFA_RSP : ROW_CFA_RBP;
		row->cfa_off = (int32_t)(int64_t)ops[0].number2;
		return true;
	}
	/*
	 * ld.so's lazy-binding trampoline keeps its CFA in rbx, which a
	 * sample lacks but a callee's saved copy gives, as libdwfl finds.
	 */
	if (nops == 1 && ops[0].atom == DW_OP_bregx && ops[0].number == DWARF_RBX &&
	    (int64_t)ops[0].number2 >= INT32_MIN && (int64_t)ops[0].number2 <= INT32_MAX) {
		row->kind = ROW_CFA_RBX;
		row->cfa_off = (int32_t)(int64_t)ops[0].number2;
		return true;
	}
	return plt_rule(ops, nops, row);
}

/* The rules of frame, into row. */
static void take_rules(Dwarf_Frame *frame, struct unwind_row *row)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;
	int64_t off;
	bool signal = false;

	row->kind = ROW_OTHER;
	if (dwarf_frame_info(frame, NULL, NULL, &signal) < 0 || signal)
		return;
	if (dwarf_frame_register(frame, DWARF_RIP, mem, &ops, &nops) != 0)
		return;
	if (!nops && ops) {
		row->kind = ROW_OUTERMOST;	/* undefined: no caller */
		return;
	}
	if (!saved_at_cfa(ops, nops, &off) || off < INT16_MIN || off > INT16_MAX)
		return;
	row->ra_off = (int16_t)off;
	if (dwarf_frame_register(frame, DWARF_RBP, mem, &ops, &nops) != 0)
		return;
	if (!nops)
		row->rbp_lost = ops != NULL;	/* undefined; same value: unchanged */
	else if (!saved_at_cfa(ops, nops, &off) || !off || off < INT16_MIN || off > INT16_MAX)
		return;
	else
		row->rbp_off = (int16_t)off;
	/* rbx matters only to a trampoline's caller: a rule for it that is no row loses it. */
	if (dwarf_frame_register(frame, DWARF_RBX, mem, &ops, &nops) != 0 ||
	    (nops && (!saved_at_cfa(ops, nops, &off) || !off || off < INT16_MIN || off > INT16_MAX)))
		row->rbx_lost = true;
	else if (!nops)
		row->rbx_lost = ops != NULL;
	else
		row->rbx_off = (int16_t)off;
	if (!take_cfa(frame, row))
		row->kind = ROW_OTHER;
}

static size_t slot_of(const struct unwind_rows *r, uint64_t key)
{
	/* Fibonacci hashing: code addresses differ in their low bits. */
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 20) & (r->cap - 1);
}

static struct unwind_row *put(struct unwind_rows *r, const struct unwind_row *row)
{
	size_t i = slot_of(r, row->addr);

	while (r->slots[i].addr)
		i = (i + 1) & (r->cap - 1);
	r->slots[i] = *row;
	return &r->slots[i];
}

/* Room for one more row at most half full: false past ROWS_MAX. */
static bool room(struct unwind_rows *r)
{
	struct unwind_row *old = r->slots;
	size_t was = r->cap;

	if (r->n == ROWS_MAX)
		return false;
	if (2 * (r->n + 1) <= r->cap)
		return true;
	r->cap = was ? 2 * was : 1024;
	r->slots = st_xcalloc(r->cap, sizeof(*r->slots));
	for (size_t i = 0; i < was; i++)
		if (old[i].addr)
			put(r, &old[i]);
	free(old);
	return true;
}

void unwind_rows_reserve(struct unwind_rows *r, size_t n)
{
	struct unwind_row *old = r->slots;
	size_t was = r->cap, cap = was ? was : 1024;

	if (n > ROWS_MAX)
		n = ROWS_MAX;
	while (cap < 2 * n)
		cap *= 2;
	if (cap == was)
		return;
	r->cap = cap;
	r->slots = st_xcalloc(r->cap, sizeof(*r->slots));
	for (size_t i = 0; i < was; i++)
		if (old[i].addr)
			put(r, &old[i]);
	free(old);
}

static void add_fde(uint64_t start, uint64_t end, const struct cfi_program *prog, void *arg)
{
	struct unwind_rows *r = arg;
	bool known = prog->insns && prog->len <= UINT32_MAX;

	ST_GROW_BARE(r->fdes, r->fdes_cap, r->nfdes + 1);
	r->fdes[r->nfdes++] = (struct fde){ start, end, 0, NOT_MADE, false,
					    known ? (uint32_t)prog->len : 0, prog->cie,
					    known ? prog->insns : NULL };
}

static int by_start(const void *a, const void *b)
{
	const struct fde *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

/* The FDE holding addr, or NULL (its list read the first time). */
static struct fde *fde_of(struct unwind_rows *r, uint64_t addr)
{
	size_t i;

	if (!r->indexed) {
		r->indexed = true;
		r->dirty = ROWS_SAVE_FROM;	/* the index: the copy's first reason */
		if (r->elf)
			cfi_each_fde(r->elf, add_fde, r);
		if (r->nfdes > 1)
			qsort(r->fdes, r->nfdes, sizeof(*r->fdes), by_start);
	}
	i = st_after(r->fdes, r->nfdes, sizeof(*r->fdes), offsetof(struct fde, start), addr);
	return i && addr < r->fdes[i - 1].end ? &r->fdes[i - 1] : NULL;
}

/*
 * libdw's rule at addr (ROW_NONE where no CFI covers it) and, given end,
 * where its row ends if before *end: the next row's start.
 */
static struct unwind_row rule_from(struct unwind_rows *r, uint64_t addr, uint64_t *end)
{
	struct unwind_row row = { .kind = ROW_NONE };
	Dwarf_Frame *frame = NULL;
	Dwarf_Addr start, stop;

	if (!r->cfi.cfi || dwarf_cfi_addrframe(r->cfi.cfi, addr, &frame) != 0)
		return row;
	if (end && dwarf_frame_info(frame, &start, &stop, NULL) >= 0 && stop > addr && stop < *end)
		*end = stop;
	take_rules(frame, &row);
	free(frame);
	return row;
}

/* f's rows, each asked for at its own start; what libdw cannot read ends them as ROW_NONE. */
static void make_rows(struct unwind_rows *r, struct fde *f)
{
	uint64_t at = f->start;

	f->at = (uint32_t)r->nspans;
	f->n = 0;
	r->dirty++;
	while (at < f->end) {
		struct span sp = { at, f->end, { .kind = ROW_OTHER } };

		if (f->n < FDE_ROWS_MAX)
			sp.rule = rule_from(r, at, &sp.end);
		ST_GROW_BARE(r->spans, r->spans_cap, r->nspans + 1);
		r->spans[r->nspans++] = sp;
		f->n++;
		at = sp.end;
	}
}


/* The rule at addr: from its FDE's rows, made the first time, or alone in a long function. */
static struct unwind_row rule_at(struct unwind_rows *r, uint64_t addr)
{
	struct unwind_row none = { .kind = ROW_NONE };
	struct fde *f = fde_of(r, addr);
	const struct span *sp;
	size_t i;

	if (!f)
		return none;
	if (f->end - f->start > FDE_MADE_WHOLE) {
		struct unwind_row row = rule_from(r, addr, NULL);

		/* Kept for the cache, which cannot make it again cheaply. */
		if (r->nalone < ROWS_MAX) {
			ST_GROW_BARE(r->alone, r->alone_cap, r->nalone + 1);
			r->alone[r->nalone] = row;
			r->alone[r->nalone++].addr = addr + 1;
			r->dirty++;
		}
		return row;
	}
	if (f->n == NOT_MADE)
		make_rows(r, f);
	sp = r->spans + f->at;
	i = st_after(sp, f->n, sizeof(*sp), offsetof(struct span, start), addr);
	return i && addr < sp[i - 1].end ? sp[i - 1].rule : none;
}

const struct unwind_row *unwind_rows_keep(struct unwind_rows *r, const struct unwind_row *row)
{
	if (!room(r)) {
		r->scratch = *row;
		return &r->scratch;
	}
	r->n++;
	return put(r, row);
}

const struct unwind_row *unwind_rows_find(struct unwind_rows *r, uint64_t addr)
{
	struct unwind_row row;
	size_t i;

	if (r->cap)
		for (i = slot_of(r, addr + 1); r->slots[i].addr; i = (i + 1) & (r->cap - 1))
			if (r->slots[i].addr == addr + 1)
				return &r->slots[i];
	row = rule_at(r, addr);
	row.addr = addr + 1;
	return unwind_rows_keep(r, &row);
}

bool unwind_rows_block_shares(struct unwind_rows *r, uint64_t addr, uint64_t size)
{
	uint64_t lo = addr & ~(size - 1), hi = lo + size;
	const struct span *sp;
	const struct fde *f;
	size_t i;

	i = st_after(r->fdes, r->nfdes, sizeof(*r->fdes), offsetof(struct fde, start), addr);
	if (!i || addr >= r->fdes[i - 1].end)
		return false;
	f = &r->fdes[i - 1];
	if (lo < f->start || hi > f->end)
		return false;
	if (f->end - f->start > FDE_MADE_WHOLE) {
		/* A long function's rows are not made: libdw's row at the block's start, and its end. */
		Dwarf_Frame *frame = NULL;
		Dwarf_Addr start, stop;
		bool whole;

		if (!r->cfi.cfi || dwarf_cfi_addrframe(r->cfi.cfi, lo, &frame) != 0)
			return false;
		whole = dwarf_frame_info(frame, &start, &stop, NULL) >= 0 && stop >= hi;
		free(frame);
		return whole;
	}
	if (f->n == NOT_MADE)
		return false;
	sp = r->spans + f->at;
	i = st_after(sp, f->n, sizeof(*sp), offsetof(struct span, start), addr);
	return i && lo >= sp[i - 1].start && hi <= sp[i - 1].end;
}

/*
 * fn for each block of sp: big ones where aligned and whole, small ones
 * in the rest; n counts them, up to max.
 */
static void span_blocks(const struct span *sp, uint64_t big, uint64_t small, size_t max,
			size_t *n, void (*fn)(void *arg, uint64_t block, uint64_t size,
					      const struct unwind_row *row),
			void *arg)
{
	uint64_t b = (sp->start + small - 1) & ~(small - 1);

	while (b + small <= sp->end && *n < max) {
		uint64_t size = !(b & (big - 1)) && b + big <= sp->end ? big : small;

		fn(arg, b, size, &sp->rule);
		(*n)++;
		b += size;
	}
}

size_t unwind_rows_blocks(struct unwind_rows *r, uint64_t addr, uint64_t big, uint64_t small,
			  void (*fn)(void *arg, uint64_t block, uint64_t size,
				     const struct unwind_row *row),
			  void *arg)
{
	struct fde *f = fde_of(r, addr);
	size_t n = 0;

	if (!f || f->blocks_taught || f->end - f->start > FDE_MADE_WHOLE)
		return 0;
	f->blocks_taught = true;
	if (f->n == NOT_MADE)
		make_rows(r, f);
	for (uint32_t i = 0; i < f->n; i++)
		span_blocks(&r->spans[f->at + i], big, small, SIZE_MAX, &n, fn, arg);
	return n;
}

size_t unwind_rows_each_known(struct unwind_rows *r, uint64_t big, uint64_t small, size_t max,
			      void (*fn)(void *arg, uint64_t addr, uint64_t size,
					 const struct unwind_row *row),
			      void *arg)
{
	size_t n = 0;

	/* Long functions' rows first: each cost libdw the most. */
	for (size_t i = 0; i < r->nalone && n < max; i++, n++)
		fn(arg, r->alone[i].addr - 1, 0, &r->alone[i]);
	for (size_t i = 0; i < r->nfdes && n < max; i++) {
		struct fde *f = &r->fdes[i];

		if (f->n == NOT_MADE || f->blocks_taught)
			continue;
		f->blocks_taught = true;
		for (uint32_t j = 0; j < f->n && n < max; j++)
			span_blocks(&r->spans[f->at + j], big, small, max, &n, fn, arg);
	}
	return n;
}

bool unwind_rows_first_lesson(struct unwind_rows *r, const struct unwind_row *row)
{
	struct unwind_row *mine;

	/* Only the table's own rows are marked; the scratch row is taught each time. */
	if (row < r->slots || row >= r->slots + r->cap)
		return row == &r->scratch;
	mine = r->slots + (row - r->slots);
	if (mine->taught)
		return false;
	mine->taught = true;
	return true;
}

struct unwind_row unwind_rows_alone(struct unwind_rows *r, uint64_t addr)
{
	return rule_from(r, addr, NULL);
}

void unwind_rows_each_function(struct unwind_rows *r,
			       void (*fn)(uint64_t start, uint64_t end, void *arg), void *arg)
{
	fde_of(r, 0);
	for (size_t i = 0; i < r->nfdes; i++)
		fn(r->fdes[i].start, r->fdes[i].end, arg);
}

/*
 * Rows of FDEs with the same program (CIE, instructions, length) are the
 * same rows at another start: libLLVM's 95,000 FDEs have 40,000
 * programs, libclang-cpp's 83,000 have 23,000, and each row costs libdw
 * a look-up and a run of its FDE's instructions.  The whole file's walk
 * makes the rows of a program that comes again once, kept relative to
 * their FDE's start; those of a program alone are not kept.
 */
#define MEMO_SPANS_MAX	(1u << 19)	/* 16 MiB of rows at most */
#define MEMO_ROWS_MAX	16u		/* rows of a program kept: the short ones repeat */

struct rel_span {
	uint32_t off, end;
	struct unwind_row rule;
};

struct memo {
	uint32_t *slots;	/* FDE index + 1 of each program's first, 0 free */
	size_t cap, n;
	struct rel_span *spans;	/* programs' rows, at their first FDE's first_at, count */
	size_t nspans, spans_cap;
	/* By FDE index: its program's rows in spans (count NOT_KEPT: made, not kept). */
	uint32_t *first_at, *count;
	uint32_t *twin;		/* by FDE index: the first FDE of its program + 1, or 0 */
	bool *again;		/* by FDE index: a later FDE has its program */
};

#define NOT_KEPT	UINT32_MAX

static uint64_t program_hash(const struct fde *f)
{
	uint64_t h = 0xcbf29ce484222325ull ^ f->cie ^ ((f->end - f->start) << 32);

	for (uint32_t i = 0; i < f->prog_len; i++)
		h = (h ^ f->insns[i]) * 0x100000001b3ull;
	return h;
}

static bool same_program(const struct fde *a, const struct fde *b)
{
	return a->cie == b->cie && a->end - a->start == b->end - b->start &&
	       a->prog_len == b->prog_len && !memcmp(a->insns, b->insns, a->prog_len);
}

/* The slot of f's program: its first FDE's, or the free one to keep it in. */
static uint32_t *memo_slot(struct memo *m, const struct unwind_rows *r, const struct fde *f)
{
	size_t i = (size_t)program_hash(f) & (m->cap - 1);

	while (m->slots[i] && !same_program(&r->fdes[m->slots[i] - 1], f))
		i = (i + 1) & (m->cap - 1);
	return &m->slots[i];
}

static bool emit_span(struct memo *m, const struct fde *f, uint64_t at, uint64_t end,
		      const struct unwind_row *row)
{
	if (m->nspans == MEMO_SPANS_MAX)
		return false;
	ST_GROW_BARE(m->spans, m->spans_cap, m->nspans + 1);
	m->spans[m->nspans++] = (struct rel_span){ (uint32_t)(at - f->start),
						   (uint32_t)(end - f->start), *row };
	return true;
}

bool unwind_rows_each_span(struct unwind_rows *r,
			   bool (*fn)(void *arg, uint64_t start, uint64_t end,
				      const struct unwind_row *row),
			   void *arg)
{
	struct memo m = { 0 };
	bool ok = true;

	fde_of(r, 0);
	m.cap = 1024;
	while (m.cap < 2 * r->nfdes)
		m.cap *= 2;
	m.slots = st_xcalloc(m.cap, sizeof(*m.slots));
	m.first_at = st_xcalloc(r->nfdes ? r->nfdes : 1, sizeof(*m.first_at));
	m.count = st_xcalloc(r->nfdes ? r->nfdes : 1, sizeof(*m.count));
	m.twin = st_xcalloc(r->nfdes ? r->nfdes : 1, sizeof(*m.twin));
	m.again = st_xcalloc(r->nfdes ? r->nfdes : 1, sizeof(*m.again));
	/* Which programs come again: only theirs are kept. */
	for (size_t i = 0; i < r->nfdes; i++) {
		uint32_t *slot;

		if (r->fdes[i].n != NOT_MADE || !r->fdes[i].insns)
			continue;
		slot = memo_slot(&m, r, &r->fdes[i]);
		if (*slot) {
			m.twin[i] = *slot;
			m.again[*slot - 1] = true;
		} else {
			*slot = (uint32_t)i + 1;
		}
	}
	for (size_t i = 0; i < r->nfdes && ok; i++) {
		const struct fde *f = &r->fdes[i];
		uint64_t at = f->start;
		bool keep;

		if (f->n != NOT_MADE) {
			for (uint32_t j = 0; j < f->n && ok; j++) {
				const struct span *sp = &r->spans[f->at + j];

				ok = fn(arg, sp->start, sp->end, &sp->rule);
			}
			continue;
		}
		if (m.twin[i] && m.count[m.twin[i] - 1] != NOT_KEPT) {
			/* Its program's rows, made for an FDE before it. */
			uint32_t from = m.first_at[m.twin[i] - 1], to = from + m.count[m.twin[i] - 1];

			for (uint32_t j = from; j < to && ok; j++)
				ok = fn(arg, f->start + m.spans[j].off, f->start + m.spans[j].end,
					&m.spans[j].rule);
			continue;
		}
		keep = m.again[i];
		m.first_at[i] = (uint32_t)m.nspans;
		if (m.n && !(m.n % CFI_RENEW_EVERY))
			unwind_cfi_renew(&r->cfi);
		m.n++;
		/* Made as make_rows makes them, and not kept: libLLVM's would be 40 MB. */
		for (uint32_t n = 0; at < f->end && ok; n++) {
			uint64_t end = f->end;
			struct unwind_row row = { .kind = ROW_OTHER };

			if (n < FDE_ROWS_MAX)
				row = rule_from(r, at, &end);
			/* A long program is its function's own: not kept. */
			if (keep && n >= MEMO_ROWS_MAX) {
				m.nspans = m.first_at[i];
				keep = false;
			}
			keep = keep && emit_span(&m, f, at, end, &row);
			ok = fn(arg, at, end, &row);
			at = end;
		}
		/* Not kept: its twins make their rows themselves. */
		m.count[i] = keep ? (uint32_t)m.nspans - m.first_at[i] : NOT_KEPT;
		if (!keep)
			m.nspans = m.first_at[i];
	}
	free(m.slots);
	free(m.spans);
	free(m.first_at);
	free(m.count);
	free(m.twin);
	free(m.again);
	return ok;
}
