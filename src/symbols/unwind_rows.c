/*
 * unwind_rows.c - rows of a file's .eh_frame, worked out by libdw
 * (dwarf_cfi_addrframe runs the CIE's and FDE's instructions up to the
 * address) and kept in an open-addressing table by address.  Only the
 * rules compilers write for x86-64 code become rows an unwinder applies
 * itself; anything else is ROW_OTHER, for libdwfl.
 */
#include "symbols/unwind_rows.h"
#include "util.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* x86-64's DWARF register numbers. */
#define DWARF_RBP	6
#define DWARF_RSP	7
#define DWARF_RIP	16

/* Rows kept per file (a slot 24 bytes); past it, worked out and not kept. */
#define ROWS_MAX	(1u << 22)

struct unwind_rows {
	int fd;
	Elf *elf;
	Dwarf_CFI *cfi;
	struct unwind_row *slots;	/* a power of two of them, at most half used */
	size_t n, cap;
	struct unwind_row scratch;	/* a row not kept */
};

struct unwind_rows *unwind_rows_open(int fd)
{
	struct unwind_rows *r = st_xcalloc(1, sizeof(*r));

	r->fd = fd >= 0 ? fcntl(fd, F_DUPFD_CLOEXEC, 0) : -1;
	if (r->fd >= 0 && elf_version(EV_CURRENT) != EV_NONE)
		r->elf = elf_begin(r->fd, ELF_C_READ_MMAP, NULL);
	if (r->elf)
		r->cfi = dwarf_getcfi_elf(r->elf);
	return r;
}

void unwind_rows_free(struct unwind_rows *r)
{
	if (!r)
		return;
	if (r->cfi)
		dwarf_cfi_end(r->cfi);
	if (r->elf)
		elf_end(r->elf);
	if (r->fd >= 0)
		close(r->fd);
	free(r->slots);
	free(r);
}

size_t unwind_rows_made(const struct unwind_rows *r)
{
	return r ? r->n : 0;
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
	if (!take_cfa(frame, row))
		row->kind = ROW_OTHER;
}

static size_t slot_of(const struct unwind_rows *r, uint64_t key)
{
	/* Fibonacci hashing: code addresses differ in their low bits. */
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 20) & (r->cap - 1);
}

static void put(struct unwind_rows *r, const struct unwind_row *row)
{
	size_t i = slot_of(r, row->addr);

	while (r->slots[i].addr)
		i = (i + 1) & (r->cap - 1);
	r->slots[i] = *row;
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

const struct unwind_row *unwind_rows_find(struct unwind_rows *r, uint64_t addr)
{
	struct unwind_row row = { .addr = addr + 1, .kind = ROW_NONE };
	Dwarf_Frame *frame = NULL;
	size_t i;

	if (r->cap)
		for (i = slot_of(r, row.addr); r->slots[i].addr; i = (i + 1) & (r->cap - 1))
			if (r->slots[i].addr == row.addr)
				return &r->slots[i];
	if (r->cfi && dwarf_cfi_addrframe(r->cfi, addr, &frame) == 0) {
		take_rules(frame, &row);
		free(frame);
	}
	if (!room(r)) {
		r->scratch = row;
		return &r->scratch;
	}
	put(r, &row);
	r->n++;
	for (i = slot_of(r, row.addr); r->slots[i].addr != row.addr; i = (i + 1) & (r->cap - 1))
		;
	return &r->slots[i];
}
