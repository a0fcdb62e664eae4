/*
 * unwind.c - a sample's registers and stack copy unwound by its files'
 * CFI.  Each frame's rule is a row (unwind_rows.c) applied here with a
 * look-up and two loads; a frame whose rule no row expresses (an
 * expression, a signal frame, code without CFI) has the whole sample
 * walked by libdwfl instead, whose result it is by definition.
 *
 * libdwfl wants a Dwfl whose modules sit at the process's addresses, so
 * each process gets one when first needed, built from the symbolizer's
 * map of it and built again when that map changes.  Its thread callbacks
 * serve one thread: the sample being unwound, whose registers and stack
 * the walk reads.
 */
#include "symbols/unwind.h"
#include "symbols/unwind_pages.h"
#include "symbols/unwind_pages_job.h"
#include "symbols/symbols.h"
#include "symbols/symbols_internal.h"
#include "symbols/stack_needs.h"
#include "symbols/unwind_rows.h"
#include "util.h"

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

struct process_unwinder {
	UT_hash_handle hh;
	pid_t pid;
	uint64_t gen;		/* the symbolizer's map generation the Dwfl reflects */
	Dwfl *dwfl;
	bool attached, made;
	uint64_t maps_gen;	/* the same, of maps */
	struct code_map *maps;	/* its ELF mappings, sorted */
	size_t nmaps;
};

/* What the callbacks read: the sample in hand. */
struct walk {
	pid_t tid;
	bool thread_given;
	const struct st_stack *k;
	bool ran_off;		/* a read fell outside the copy */
	struct unwound_frame *frames;
	size_t n, max;
};

struct unwinder {
	struct symbolizer *symbols;
	Dwfl_Callbacks callbacks;
	struct process_unwinder *procs;
	struct walk walk;
	struct unwind_stats stats;
	bool check;		/* every sample walked both ways, compared */
	bool dwfl_only;		/* SHIMTOP_UNWINDER=libdwfl: the rows not used (benchmarks) */
	struct stack_needs *needs;
	enum unwind_stop last_stop;
	const struct unwind_teacher *teacher;
	uint32_t files;		/* numbers given to files for the teacher */
	struct pages_jobs *jobs;	/* files' whole CFI compiled for the teacher */
	struct elf_file **numbered;	/* by number - 1 */
	size_t numbered_cap;
	/* The walk by rows in hand: each frame's file, address and row, for the teacher. */
	struct taught {
		struct elf_file *file;
		uint64_t addr;
		struct unwind_row row;	/* a copy: the table may move before it is taught */
	} *taught;
	size_t ntaught;
};

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_arg)
{
	struct walk *w = arg;

	(void)dwfl;
	if (w->thread_given)
		return 0;
	w->thread_given = true;
	*thread_arg = w;
	return w->tid;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct walk *w = arg;
	const struct st_stack *k = w->k;

	(void)dwfl;
	if (addr < k->sp || addr - k->sp > k->size || k->size - (addr - k->sp) < 8) {
		w->ran_off = true;
		return false;
	}
	memcpy(result, k->bytes + (addr - k->sp), 8);
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	const struct walk *w = arg;
	Dwarf_Word regs[2] = { w->k->bp, w->k->sp }, rip = w->k->ip;

	/*
	 * rip as a register too, not only as the pc: a PLT stub's CFA is an
	 * expression of it (.plt's FDE: rsp + 8, more past the push), and
	 * without it the walk ended in the stub (sqlite3: 2.6% of samples).
	 */
	if (!dwfl_thread_state_registers(thread, DWARF_RBP, 2, regs) ||
	    !dwfl_thread_state_registers(thread, DWARF_RIP, 1, &rip))
		return false;
	dwfl_thread_state_register_pc(thread, w->k->ip);
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static int take_frame(Dwfl_Frame *state, void *arg)
{
	struct walk *w = arg;
	Dwarf_Addr pc;
	Dwarf_Word sp = 0;

	if (!dwfl_frame_pc(state, &pc, NULL))
		return DWARF_CB_ABORT;
	if (dwfl_frame_reg(state, DWARF_RSP, &sp) != 0)
		sp = 0;
	w->frames[w->n++] = (struct unwound_frame){ pc, sp };
	return w->n < w->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

struct unwinder *unwinder_create(struct symbolizer *s)
{
	struct unwinder *u = st_xcalloc(1, sizeof(*u));

	u->symbols = s;
	u->dwfl_only = getenv("SHIMTOP_UNWINDER") && !strcmp(getenv("SHIMTOP_UNWINDER"), "libdwfl");
	/* Modules are reported with their descriptors: nothing to find. */
	u->callbacks.find_elf = dwfl_build_id_find_elf;
	u->callbacks.find_debuginfo = elf_find_debuginfo;
	return u;
}

static void process_free(struct process_unwinder *p)
{
	if (p->dwfl)
		dwfl_end(p->dwfl);
	free(p->maps);
	free(p);
}

void unwinder_forget(struct unwinder *u, pid_t pid)
{
	struct process_unwinder *p;

	HASH_FIND(hh, u->procs, &pid, sizeof(pid), p);
	if (p) {
		HASH_DEL(u->procs, p);
		process_free(p);
	}
	if (u->teacher)
		u->teacher->forget(u->teacher->arg, pid);
}

void unwinder_destroy(struct unwinder *u)
{
	struct process_unwinder *p, *tmp;

	if (!u)
		return;
	HASH_ITER(hh, u->procs, p, tmp) {
		HASH_DEL(u->procs, p);
		process_free(p);
	}
	pages_jobs_destroy(u->jobs);
	free(u->taught);
	free(u->numbered);
	free(u);
}

static struct process_unwinder *process_find(struct unwinder *u, pid_t pid)
{
	struct process_unwinder *p;

	HASH_FIND(hh, u->procs, &pid, sizeof(pid), p);
	if (!p) {
		p = st_xcalloc(1, sizeof(*p));
		p->pid = pid;
		HASH_ADD(hh, u->procs, pid, sizeof(p->pid), p);
	}
	return p;
}

/* p's Dwfl, rebuilt when its map has changed since (gen); false if none. */
static bool dwfl_ready(struct unwinder *u, struct process_unwinder *p, uint64_t gen)
{
	if (p->made && p->gen == gen)
		return p->attached;
	if (p->dwfl)
		dwfl_end(p->dwfl);
	p->dwfl = NULL;
	p->attached = false;
	p->made = true;
	p->gen = gen;
	if (!gen || !(p->dwfl = dwfl_begin(&u->callbacks)))
		return false;
	dwfl_report_begin(p->dwfl);
	symbolizer_report_modules(u->symbols, p->pid, p->dwfl);
	dwfl_report_end(p->dwfl, NULL, NULL);
	p->attached = dwfl_attach_state(p->dwfl, NULL, p->pid, &thread_callbacks, &u->walk);
	return p->attached;
}

static size_t walk_dwfl(struct unwinder *u, struct process_unwinder *p, uint64_t gen, pid_t tid,
			const struct st_stack *k, struct unwound_frame *frames, size_t max,
			enum unwind_end *end)
{
	struct walk *w = &u->walk;
	int rc;

	*end = UNWIND_LOST;
	if (!dwfl_ready(u, p, gen)) {
		frames[0] = (struct unwound_frame){ k->ip, k->sp };
		return 1;
	}
	*w = (struct walk){ .tid = tid > 0 ? tid : p->pid, .k = k, .frames = frames, .max = max };
	rc = dwfl_getthread_frames(p->dwfl, w->tid, take_frame, w);
	if (!w->n)
		frames[w->n++] = (struct unwound_frame){ k->ip, k->sp };
	if (rc == 0)
		*end = UNWIND_COMPLETE;
	else if (w->ran_off || w->n == max)
		*end = UNWIND_CUT;
	return w->n;
}

/* The mapping holding pc, or NULL. */
static const struct code_map *map_at(const struct process_unwinder *p, uint64_t pc)
{
	size_t i = st_after(p->maps, p->nmaps, sizeof(*p->maps), offsetof(struct code_map, start), pc);

	return i && pc < p->maps[i - 1].end ? &p->maps[i - 1] : NULL;
}

/* 8 bytes of the copy at addr; false outside it.  *hi: past the highest byte read. */
static bool copy_read(const struct st_stack *k, uint64_t addr, uint64_t *v, uint64_t *hi)
{
	if (addr < k->sp || addr - k->sp > k->size || k->size - (addr - k->sp) < 8)
		return false;
	memcpy(v, k->bytes + (addr - k->sp), 8);
	if (addr + 8 > *hi)
		*hi = addr + 8;
	return true;
}

/*
 * A frame no CFI describes is stepped over by rbp, as libdwfl does: the
 * return address above the saved rbp.  An rbp of zero marks the
 * outermost frame (the ABI's convention; ld.so's _start has no CFI,
 * and libdwfl calls the walk lost there); an unknown one, or a return
 * address past the copy, ends the walk as libdwfl's would.
 */
static bool step_by_rbp(const struct st_stack *k, uint64_t *sp, uint64_t *bp, bool *bp_known,
			uint64_t *pc, enum unwind_end *end, enum unwind_stop *stop, uint64_t *hi)
{
	uint64_t ra, saved;

	if (*bp_known && !*bp) {
		*end = UNWIND_COMPLETE;
		*stop = STOP_RBP_ZERO;
		return false;
	}
	/* A frame's rbp below its sp is no frame of a caller: garbage, which would loop. */
	if (*bp_known && *bp < *sp) {
		*end = UNWIND_LOST;
		*stop = STOP_NO_RULE;
		return false;
	}
	if (!*bp_known || !copy_read(k, *bp + 8, &ra, hi)) {
		*end = *bp_known ? UNWIND_CUT : UNWIND_LOST;
		*stop = *bp_known ? STOP_COPY_END : STOP_NO_RULE;
		return false;
	}
	if (!copy_read(k, *bp, &saved, hi))
		saved = 0;
	*sp = *bp + 16;
	*bp = saved;
	*pc = ra;
	return true;
}

/*
 * The walk by rows: its frames, or 0 where a frame needs libdwfl.  As
 * libdwfl: frame 0's row is its pc's, a caller's the row of the byte
 * before its return address (the call); a return address that cannot
 * be read ends the walk, an rbp that cannot is unknown after.
 */
static size_t walk_rows(struct process_unwinder *p, const struct st_stack *k,
			struct unwound_frame *frames, size_t max, enum unwind_end *end,
			enum unwind_stop *stop, uint64_t *hi, enum unwind_fallback *why,
			struct unwind_stats *st, struct taught *taught, size_t *ntaught)
{
	static const struct unwind_row no_cfi = { .kind = ROW_NONE };
	uint64_t pc = k->ip, sp = k->sp, bp = k->bp, rbx = 0;
	bool bp_known = true, rbx_known = false;
	const struct code_map *m = NULL;
	size_t n = 0;

	for (;;) {
		const struct unwind_pages *pages;
		const struct unwind_row *row;
		uint64_t at, cfa, ra, saved;

		frames[n++] = (struct unwound_frame){ pc, sp };
		if (n == max) {
			*end = UNWIND_CUT;
			*stop = STOP_MAX_FRAMES;
			return n;
		}
		at = n == 1 ? pc : pc - 1;
		/* Callers are mostly in the callee's file: its mapping first. */
		if (!m || at < m->start || at >= m->end)
			m = map_at(p, at);
		if (!m)
			row = &no_cfi;
		else if ((pages = elf_file_walk_pages(m->file))) {
			/* The kernel has them too, or will: nothing of the file to teach. */
			row = unwind_pages_find(pages, at - m->start + m->vaddr);
			if (!row)
				row = &no_cfi;
			st->frames_by_pages++;
		} else {
			if (!m->file->rows) {
				m->file->rows = unwind_rows_open(m->file->fd);
				st->rows_files[unwind_rows_cached(m->file->rows)]++;
			}
			row = unwind_rows_find(m->file->rows, at - m->start + m->vaddr);
			if (taught && unwind_rows_first_lesson(m->file->rows, row))
				taught[(*ntaught)++] = (struct taught){ m->file, at - m->start + m->vaddr,
									 *row };
		}
		switch (row->kind) {
		case ROW_OUTERMOST:
			*end = UNWIND_COMPLETE;
			*stop = STOP_OUTERMOST;
			return n;
		case ROW_CFA_RSP:
			cfa = sp + (uint64_t)(int64_t)row->cfa_off;
			break;
		case ROW_CFA_RBP:
			if (!bp_known) {
				*why = FALLBACK_RBP;
				return 0;
			}
			cfa = bp + (uint64_t)(int64_t)row->cfa_off;
			break;
		case ROW_PLT:
			cfa = sp + (uint64_t)(int64_t)row->cfa_off + ((pc & 15) >= row->plt_at ? 8 : 0);
			break;
		case ROW_CFA_RBX:
			/* Unknown in frame 0: libdwfl calls it the outermost, it is only unknowable. */
			if (!rbx_known) {
				*end = UNWIND_LOST;
				*stop = STOP_NO_RULE;
				return n;
			}
			cfa = rbx + (uint64_t)(int64_t)row->cfa_off;
			break;
		case ROW_NONE:
			if (!step_by_rbp(k, &sp, &bp, &bp_known, &pc, end, stop, hi))
				return n;
			rbx_known = false;	/* libdwfl's rbp step sets no more */
			continue;
		default:
			*why = FALLBACK_RULE;
			return 0;
		}
		/* A caller's frame is above its callee's: a CFA at or below sp is garbage. */
		if (cfa <= sp) {
			*end = UNWIND_LOST;
			*stop = STOP_NO_RULE;
			return n;
		}
		/*
		 * A return address past the copy: the walk's end, which
		 * libdwfl calls complete (the address is undefined to it).
		 */
		if (!copy_read(k, cfa + (uint64_t)(int64_t)row->ra_off, &ra, hi)) {
			*end = UNWIND_COMPLETE;
			*stop = STOP_COPY_END;
			return n;
		}
		if (row->rbx_lost)
			rbx_known = false;
		else if (row->rbx_off)
			rbx_known = copy_read(k, cfa + (uint64_t)(int64_t)row->rbx_off, &rbx, hi);
		if (row->rbp_lost)
			bp_known = false;
		else if (row->rbp_off) {
			bp_known = copy_read(k, cfa + (uint64_t)(int64_t)row->rbp_off, &saved, hi);
			if (bp_known)
				bp = saved;
		}
		/* A zero return address: libdwfl's outermost frame too. */
		if (!ra) {
			*end = UNWIND_COMPLETE;
			*stop = STOP_OUTERMOST;
			return n;
		}
		sp = cfa;
		pc = ra;
	}
}

/* One line on stderr of where two walks of a sample part (the check's first ten). */
static void say_difference(const struct process_unwinder *p,
			   const struct unwound_frame *a, size_t na, enum unwind_end ea,
			   const struct unwound_frame *b, size_t nb, enum unwind_end eb)
{
	size_t i = 0;
	const struct code_map *m;
	uint64_t at;

	while (i < na && i < nb && a[i].pc == b[i].pc)
		i++;
	/* The frame before the parting: whose rule made it. */
	at = i ? a[i - 1].pc - (i > 1) : a[0].pc;
	m = map_at(p, at);
	fprintf(stderr, "shimtop: unwind check: pid %d from pc %#llx, rows give %zu frames (end %d), "
		"libdwfl %zu (end %d); frame %zu: %#llx against %#llx, after %s+%#llx\n",
		(int)p->pid, (unsigned long long)a[0].pc, na, (int)ea, nb, (int)eb, i,
		(unsigned long long)(i < na ? a[i].pc : 0), (unsigned long long)(i < nb ? b[i].pc : 0),
		m ? m->file->path : "[no file]",
		(unsigned long long)(m ? at - m->start + m->vaddr : at));
}

/*
 * Whether two walks gave the same frames and end.  Where the rows end
 * a walk on purpose (an rbp of zero, a CFA in a register no sample
 * carries), libdwfl names the end otherwise: only frames count there.
 */
static bool same_walk(const struct unwound_frame *a, size_t na, enum unwind_end ea,
		      enum unwind_stop stop,
		      const struct unwound_frame *b, size_t nb, enum unwind_end eb)
{
	if (na != nb || (ea != eb && stop != STOP_RBP_ZERO && stop != STOP_NO_RULE))
		return false;
	for (size_t i = 0; i < na; i++)
		if (a[i].pc != b[i].pc)
			return false;
	return true;
}

/* A file's number for the teacher, given at its first lesson. */
static uint32_t file_number(struct unwinder *u, struct elf_file *f)
{
	if (!f->taught_as) {
		ST_GROW(u->numbered, u->numbered_cap, (size_t)u->files + 1);
		u->numbered[u->files] = f;
		f->taught_as = ++u->files;
	}
	return f->taught_as;
}

struct block_lesson {
	const struct unwind_teacher *t;
	uint32_t file;
};

static void teach_block(void *arg, uint64_t block, uint64_t size, const struct unwind_row *row)
{
	const struct block_lesson *l = arg;

	l->t->row(l->t->arg, l->file, block, (unsigned)size, row);
}

/* A row of one address, and the block around it where the block has it throughout. */
static void teach_address(struct unwinder *u, uint32_t file, struct unwind_rows *rows,
			  uint64_t addr, const struct unwind_row *row)
{
	const struct unwind_teacher *t = u->teacher;
	unsigned block = unwind_rows_block_shares(rows, addr, UNWIND_TEACH_BLOCK)
			 ? UNWIND_TEACH_BLOCK
			 : unwind_rows_block_shares(rows, addr, UNWIND_TEACH_SMALL)
			 ? UNWIND_TEACH_SMALL : 0;

	t->row(t->arg, file, addr, 0, row);
	if (block)
		t->row(t->arg, file, addr & ~(uint64_t)(block - 1), block, row);
}

/*
 * The rows the other walker asked for, worked out and taught, with every
 * block of their functions: a walk here seldom reaches the frames past
 * its copy, and the kernel asks for one row a sample.
 */
static void teach_needs(struct unwinder *u)
{
	const struct unwind_teacher *t = u->teacher;
	struct unwind_need need[64];
	size_t n = t->needs(t->arg, need, 64);

	for (size_t i = 0; i < n; i++) {
		const struct unwind_row *row;
		struct elf_file *f;

		if (!need[i].file || need[i].file > u->files)
			continue;
		f = u->numbered[need[i].file - 1];
		if (f->let_go)
			continue;	/* no process maps it now */
		/* Asked before the file's pages reached the kernel: it has them now, or soon. */
		if (elf_file_walk_pages(f))
			continue;
		if (!f->rows) {
			f->rows = unwind_rows_open(f->fd);
			u->stats.rows_files[unwind_rows_cached(f->rows)]++;
		}
		row = unwind_rows_find(f->rows, need[i].addr);
		/* Asked for again (a request before the first was answered): taught once. */
		if (!unwind_rows_first_lesson(f->rows, row))
			continue;
		teach_address(u, need[i].file, f->rows, need[i].addr, row);
		unwind_rows_blocks(f->rows, need[i].addr, UNWIND_TEACH_BLOCK, UNWIND_TEACH_SMALL,
				   teach_block, &(struct block_lesson){ t, need[i].file });
	}
}

/*
 * A file's pages, compiled: given to the teacher, on the worker's thread,
 * and kept for walks here once it has them.  Walked by libdw's rows
 * instead, a session's let-out samples cost a tenth of shimtop's CPU on
 * a compile in libdw's FDE searches, and as much again freeing them.
 */
static bool give_pages(void *arg, void *owner, uint32_t file, struct unwind_pages *p)
{
	const struct unwind_teacher *t = arg;
	struct elf_file *f = owner;
	bool taken = t->pages(t->arg, file, p), read_here = atomic_load(&f->pages) == p;

	if (!taken)
		atomic_store_explicit(&f->pages_refused, true, memory_order_release);
	if (taken && !read_here)
		atomic_store_explicit(&f->pages, p, memory_order_release);
	atomic_store_explicit(&f->pages_giving, false, memory_order_release);
	return taken || read_here;	/* walks here may be reading them */
}

static void settle_pages(void *arg)
{
	const struct unwind_teacher *t = arg;

	if (t->pages_settle)
		t->pages_settle(t->arg);
}

/*
 * f's whole CFI for a teacher that takes pages, once: a copy in the cache
 * is read here and walks use it at once, then the worker gives it; else
 * the worker compiles it.  Left to the worker, the first walks came
 * before the copy and read libclang-cpp's 2.7 MB of rows instead (7% of
 * a 4 s attach to a compile at 1 kHz), and taught the kernel row by row.
 */
static void ask_pages(struct unwinder *u, struct elf_file *f, uint32_t file)
{
	struct unwind_pages *cached;

	if (f->pages_asked || !u->teacher->pages || f->fd < 0)
		return;
	f->pages_asked = true;
	if (!u->jobs)
		u->jobs = pages_jobs_create(give_pages, settle_pages, (void *)(uintptr_t)u->teacher);
	cached = unwind_pages_cached(f->fd);
	if (cached) {
		atomic_store(&f->pages_giving, true);
		atomic_store_explicit(&f->pages, cached, memory_order_release);
		if (!pages_jobs_give(u->jobs, cached, file, f)) {
			/* No worker: the kernel never has them, walks teach it by rows. */
			atomic_store(&f->pages_refused, true);
			atomic_store(&f->pages_giving, false);
		}
		return;
	}
	pages_jobs_add(u->jobs, f->fd, file, f);
}

/* The process's maps, for the teacher (which keeps each generation once). */
static void teach_maps(struct unwinder *u, struct process_unwinder *p, uint64_t time)
{
	const struct unwind_teacher *t = u->teacher;
	struct unwind_map *m = st_xcalloc(p->nmaps ? p->nmaps : 1, sizeof(*m));

	for (size_t i = 0; i < p->nmaps; i++)
		m[i] = (struct unwind_map){ p->maps[i].start, p->maps[i].end, p->maps[i].vaddr,
					    file_number(u, p->maps[i].file) };
	t->maps(t->arg, p->pid, time, p->maps_gen, m, p->nmaps);
	free(m);
}

/*
 * A process's maps as they change, before its walk: taught, and every
 * file's pages asked for.  Asked for only as walks met them, libLLVM's
 * waited 80 ms behind the first walk's loading of libclang-cpp's rows,
 * while each sample of a compile went out with its copy.
 */
static void teach_new_maps(struct unwinder *u, struct process_unwinder *p, uint64_t time)
{
	teach_maps(u, p, time);
	for (size_t i = 0; i < p->nmaps; i++)
		ask_pages(u, p->maps[i].file, file_number(u, p->maps[i].file));
}

/* What the walk by rows just used, for the teacher: the process's maps, each frame's row. */
static void teach(struct unwinder *u, struct process_unwinder *p, uint64_t time)
{
	const struct unwind_teacher *t = u->teacher;

	teach_maps(u, p, time);
	/*
	 * Each new row.  A function's blocks wait for the kernel to ask for
	 * one of its rows (a hot function): taught for every function a walk
	 * meets, they were a tenth of shimtop's CPU on a compile, in bpf().
	 */
	for (size_t i = 0; i < u->ntaught; i++) {
		const struct taught *w = &u->taught[i];
		uint32_t file = file_number(u, w->file);

		teach_address(u, file, w->file->rows, w->addr, &w->row);
		ask_pages(u, w->file, file);
		/* A file's first lesson: what its rows know (a second session: the cache). */
		if (!w->file->taught_known) {
			w->file->taught_known = true;
			unwind_rows_each_known(w->file->rows, UNWIND_TEACH_BLOCK, UNWIND_TEACH_SMALL,
					       UNWIND_TEACH_KNOWN, teach_block,
					       &(struct block_lesson){ t, file });
		}
	}
	teach_needs(u);
	t->flush(t->arg);
}

/* p's maps as the symbolizer has them in generation gen; the teacher told of a change. */
static void maps_now(struct unwinder *u, struct process_unwinder *p, uint64_t gen, uint64_t time)
{
	if (p->maps_gen == gen && p->maps)
		return;
	free(p->maps);
	p->nmaps = symbolizer_code_maps(u->symbols, p->pid, &p->maps, &p->maps_gen);
	if (u->teacher)
		teach_new_maps(u, p, time);
}

void unwinder_prepare(struct unwinder *u, pid_t pid, uint64_t time)
{
	if (u->teacher)
		maps_now(u, process_find(u, pid), symbolizer_generation(u->symbols, pid), time);
}

size_t unwinder_walk(struct unwinder *u, pid_t pid, pid_t tid, uint64_t time,
		     const struct st_stack *k, struct unwound_frame *frames, size_t max,
		     enum unwind_end *end)
{
	struct process_unwinder *p;
	uint64_t gen = symbolizer_generation(u->symbols, pid);
	enum unwind_stop stop = STOP_BY_LIBDWFL;
	enum unwind_fallback why = FALLBACK_RULE;
	uint64_t t0, hi = 0;
	size_t n;

	*end = UNWIND_LOST;
	if (!max)
		return 0;
	p = process_find(u, pid);
	maps_now(u, p, gen, time);
	t0 = u->check ? st_now_ns() : 0;
	if (u->teacher && !u->taught)
		u->taught = st_xcalloc(ST_CHAIN_MAX, sizeof(*u->taught));
	u->ntaught = 0;
	n = u->dwfl_only ? 0 : walk_rows(p, k, frames, max, end, &stop, &hi, &why, &u->stats,
					  u->teacher ? u->taught : NULL, &u->ntaught);
	/*
	 * Rows are marked taught as the walk meets them: they go out even
	 * when a later frame hands the walk to libdwfl, or none would again.
	 */
	if (u->teacher)
		teach(u, p, time);
	if (n) {
		u->stats.by_rows++;
		if (u->check) {
			struct unwound_frame *other = st_xcalloc(max, sizeof(*other));
			enum unwind_end e2;
			uint64_t t1 = st_now_ns();
			size_t n2 = walk_dwfl(u, p, gen, tid, k, other, max, &e2);

			u->stats.check_rows_ns += t1 - t0;
			u->stats.check_dwfl_ns += st_now_ns() - t1;
			/* With no module libdwfl cannot start (a process caught mid-exec). */
			if (!p->attached)
				u->stats.check_unable++;
			else if (same_walk(frames, n, *end, stop, other, n2, e2))
				u->stats.check_same++;
			else if (++u->stats.check_differ <= 10)
				say_difference(p, frames, n, *end, other, n2, e2);
			free(other);
		}
	} else {
		u->stats.by_dwfl++;
		if (!u->dwfl_only)
			u->stats.fallbacks[why]++;
		n = walk_dwfl(u, p, gen, tid, k, frames, max, end);
	}
	u->stats.stops[stop]++;
	u->last_stop = stop;
	/*
	 * A walk to the outermost frame read what every walk of the thread
	 * needs; one the copy cut short may have been cut to what was learned.
	 */
	if (u->needs)
		stack_needs_walked(u->needs, stop == STOP_COPY_END, k->size);
	if (u->needs && stop == STOP_OUTERMOST && hi)
		stack_needs_learn(u->needs, tid, hi);
	else if (u->needs && stop == STOP_COPY_END)
		stack_needs_forget(u->needs, tid);
	return n;
}

void unwinder_check(struct unwinder *u, bool on)
{
	u->check = on;
}

void unwinder_set_teacher(struct unwinder *u, const struct unwind_teacher *t)
{
	u->teacher = t;
}

void unwinder_set_needs(struct unwinder *u, struct stack_needs *n)
{
	u->needs = n;
}

enum unwind_stop unwinder_last_stop(const struct unwinder *u)
{
	return u->last_stop;
}

const struct unwind_stats *unwinder_stats(const struct unwinder *u)
{
	return &u->stats;
}
