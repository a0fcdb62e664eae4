/*
 * model_tree.c - samples' call chains into the calling context tree:
 * each frame symbolized (a caller's return address less one, so a call
 * that ends its function is not taken for the next one), root first.
 * A sample with a stack copy is unwound here first, and its frames'
 * depths feed CallerChaining.
 */
#include "model/model_internal.h"
#include "symbols/stack_needs.h"
#include "symbols/symbols.h"
#include "symbols/unwind.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

const char *model_frame_name(const struct model *m, uint32_t sym)
{
	/* The tree CallerChaining rebuilt marks callers it never saw. */
	if (sym == CCT_SYM_TRUNCATED)
		return m->callerchain_mode ? "[callers not seen]" : "[truncated chain]";
	if (sym == CCT_SYM_BROKEN)
		return "[callers past a broken chain]";
	return symbolizer_symbol(m->symbols, sym)->name;
}

void model_set_call_graph(struct model *m, uint32_t window, bool rebuilt)
{
	m->chain_window = window;
	m->callerchain_mode = rebuilt;
}

const struct unwind_stats *model_unwind_stats(const struct model *m)
{
	static const struct unwind_stats none;

	return m->unwinder ? unwinder_stats(m->unwinder) : &none;
}

void model_set_unwind_broken(struct model *m, bool on)
{
	m->unwind_broken = on;
}

/* Where a whole chain ends: a process's or a thread's start. */
static bool is_start(const char *name)
{
	static const char *const starts[] = {
		"_start", "__libc_start_main", "__libc_start_call_main", "start_thread",
		"clone", "clone3", "__clone", "__clone3", "thread_start", "_dl_start_user",
	};

	/* A versioned name (__libc_start_main@@GLIBC_2.34) is its base name's. */
	size_t len = strcspn(name, "@");

	for (size_t i = 0; i < sizeof(starts) / sizeof(starts[0]); i++)
		if (strlen(starts[i]) == len && !strncmp(name, starts[i], len))
			return true;
	return false;
}

/*
 * A start: by name, or a frame of the C library's that no symbol names (a
 * stripped libc, Debian's without libc6-dbg: the outermost frame there is
 * __libc_start_call_main or start_thread, which call the program's code).
 * Such a frame is [unknown], or has only bounds from .eh_frame (libc.so.6+0x271d0).
 */
static bool is_start_frame(const struct model *m, uint32_t sym)
{
	const struct st_symbol *st;
	const char *base;

	if (sym == CCT_SYM_TRUNCATED)
		return false;
	st = symbolizer_symbol(m->symbols, sym);
	if (is_start(st->name))
		return true;
	base = strrchr(st->module, '/');
	base = base ? base + 1 : st->module;
	return (st->unknown || st->named_by == NAMED_BY_EH_FRAME) && !strncmp(base, "libc.so.", 8);
}

size_t model_start_symbols(const struct model *m, uint32_t **ids)
{
	size_t n = 0, count = symbolizer_count(m->symbols);
	uint32_t *v = st_xmalloc((count ? count : 1) * sizeof(*v));

	for (uint32_t id = 0; id < count; id++)
		if (is_start_frame(m, id) || !strcmp(symbolizer_symbol(m->symbols, id)->name, "main"))
			v[n++] = id;	/* in order: ids ascend */
	*ids = v;
	return n;
}

/*
 * The path down to node holds callers: it starts at a start, in the
 * kernel or where a long chain was cut, or no frame above node is one
 * no symbol explains (where a frame-pointer chain broke, it mostly
 * lands in no mapped code).
 */
static bool path_trusted(const struct cct *t, uint32_t node, void *arg)
{
	const struct model *m = arg;
	bool unknown = false;
	uint32_t at = cct_node(t, node)->parent, top = at;

	for (; at != CCT_ROOT; at = cct_node(t, at)->parent) {
		uint32_t sym = cct_node(t, at)->sym;

		top = at;
		unknown |= sym < CCT_SYM_BROKEN && symbolizer_symbol(m->symbols, sym)->unknown;
	}
	top = cct_node(t, top)->sym;
	return !unknown || top == CCT_SYM_TRUNCATED || is_start_frame(m, top) ||
	       symbolizer_symbol(m->symbols, top)->named_by == NAMED_BY_KERNEL;
}

uint64_t model_links(const struct model *m, const struct cct *tree, uint32_t sym,
		     struct cct_link **callers, size_t *ncallers, struct cct_link **callees,
		     size_t *ncallees)
{
	char note[8];
	bool broken = model_chains_broken(m, note, sizeof(note));

	return cct_links_trusting(tree, sym, broken ? path_trusted : NULL, (void *)m, callers,
				  ncallers, callees, ncallees);
}

/* Whether a chain whose outermost frame is root reached a start (cached by symbol). */
static bool chain_is_whole(struct model *m, uint32_t root)
{
	if (root >= m->root_kind_cap) {
		size_t was = m->root_kind_cap;

		ST_GROW(m->root_kind, m->root_kind_cap, (size_t)root + 1);
		memset(m->root_kind + was, 0, m->root_kind_cap - was);
	}
	if (!m->root_kind[root])
		m->root_kind[root] = is_start_frame(m, root) ? 1 : 2;
	return m->root_kind[root] == 1;
}

/* Counts a user sample's frame-pointer chain, whole or ended early. */
static void count_fp_chain(struct model *m, uint32_t root)
{
	m->fp_user_chains++;
	m->fp_rootless += !chain_is_whole(m, root);
}

/* A plain chain counted by where it came from: the kernel's CFI walk, or its frame pointers. */
static void count_plain_chain(struct model *m, const struct st_sample *s, uint32_t root)
{
	if (s->flags & ST_SAMPLE_KERNEL_WALKED)
		m->kernel_walked++;
	else if (s->cpumode == ST_MODE_USER)
		count_fp_chain(m, root);
}

/* Whether chains were unwound where frame pointers stopped (a share worth saying). */
static bool unwound_some(const struct model *m)
{
	uint64_t unwound = m->auto_dwarf + m->kernel_walked;

	return m->unwind_broken && unwound && unwound * 100 >= unwound + m->auto_fp;
}

bool model_chains_broken(const struct model *m, char *buf, size_t len)
{
	double rootless = m->fp_user_chains ? (double)m->fp_rootless / (double)m->fp_user_chains : 0;

	/* CallerChaining's tree is not made of those chains: its own line measures it. */
	if (m->callerchain_mode || unwound_some(m) || m->fp_user_chains < 100 || rootless < 0.25)
		return false;
	snprintf(buf, len, "%.0f%% of call chains stop before main or a thread's start: "
		 "code without frame pointers (as Debian builds); %s",
		 100 * rootless, model_unwind_hint(m));
	return true;
}

bool model_chain_note(const struct model *m, char *buf, size_t len)
{
	uint64_t unwound = m->auto_dwarf + m->kernel_walked;

	if (unwound_some(m)) {
		const struct unwind_stats *u = model_unwind_stats(m);
		uint64_t walks = u->by_rows + u->by_dwfl, cut = u->stops[STOP_COPY_END];
		const struct stack_needs *sn = m->stack_needs;
		uint32_t first = sn ? atomic_load(&sn->copy_first) : 0;
		uint32_t now = sn ? atomic_load(&sn->copy_now) : 0;
		int n = snprintf(buf, len, "%.0f%% of call chains unwound by DWARF where frame "
				 "pointers stop early, the rest by frame pointers (--call-graph auto)",
				 100.0 * (double)unwound / (double)(unwound + m->auto_fp));

		/* Where they were walked: in the kernel as samples were taken, or here from copies. */
		if (n > 0 && (size_t)n < len && m->kernel_walked)
			n += snprintf(buf + n, len - (size_t)n, "; %.0f%% walked in the kernel",
				      100.0 * (double)m->kernel_walked / (double)unwound);
		else if (n > 0 && (size_t)n < len && m->kernel_walk_off[0])
			n += snprintf(buf + n, len - (size_t)n, "; %s", m->kernel_walk_off);

		/* Walks cut by the copy lose callers: say so, and that copies grew. */
		if (n > 0 && (size_t)n < len && walks && cut * 100 >= walks)
			n += snprintf(buf + n, len - (size_t)n, "; %.0f%% cut at the stack copy's end",
				      100.0 * (double)cut / (double)walks);
		if (n > 0 && (size_t)n < len && now > first)
			n += snprintf(buf + n, len - (size_t)n, "; copies grown to %u KiB", now / 1024);
		if (n > 0 && (size_t)n < len && sn && atomic_load(&sn->copy_held))
			snprintf(buf + n, len - (size_t)n, "; copies kept at %u KiB: larger ones would "
				 "copy over %llu MiB/s", now / 1024, STACK_COPY_BUDGET >> 20);
		return true;
	}
	return model_chains_broken(m, buf, len);
}

const char *model_unwind_hint(const struct model *m)
{
	return m->unwind_hint ? m->unwind_hint : "--call-graph auto (the UI's U) unwinds it";
}

/* A caller's function; counted in the tree's gauge when it goes into the tree. */
static uint32_t caller_sym(struct model *m, pid_t pid, uint64_t ip, bool in_tree)
{
	const struct st_symbol *sym = symbolizer_lookup(m->symbols, pid, ip ? ip - 1 : 0,
							ip >= ST_KERNEL_START);

	if (in_tree) {
		m->tree_frames++;
		m->tree_unknown += sym->unknown;
	}
	return sym->id;
}

/* Bytes from the stack's base down to a frame's CFA; false if unknown. */
static bool depth_of(const struct st_stack *k, uint64_t cfa, uint32_t *depth)
{
	if (!k->base || !cfa || cfa > k->base || k->base - cfa > UINT32_MAX)
		return false;
	*depth = (uint32_t)(k->base - cfa);
	return true;
}

/*
 * CallerChaining's input from one unwound user sample: its (function,
 * depth), the calls between frames a chain_window-byte copy would
 * reach, and its callers as the reference.  syms[i] is frame i's.
 */
static void feed_chaining(struct model *m, const struct st_stack *k,
			  const struct unwound_frame *f, const uint32_t *syms, size_t n,
			  const uint32_t *reference, size_t nreference)
{
	struct cc_frame path[CC_PATH];
	size_t npath = 0;

	if (n < 2 || !depth_of(k, f[1].sp, &path[0].depth)) {
		m->chaining.no_depth++;
		return;
	}
	path[npath++].sym = syms[0];
	/* The callers this sample's own copy reaches, and their calls. */
	for (size_t i = 0; i + 2 < n && f[i + 2].sp - k->sp <= m->chain_window; i++) {
		uint32_t d, dc;

		if (!depth_of(k, f[i + 1].sp, &d) || !depth_of(k, f[i + 2].sp, &dc))
			break;
		callerchain_add_call(&m->chaining, syms[i], d, syms[i + 1], dc, 1);
		if (npath < CC_PATH)
			path[npath++] = (struct cc_frame){ syms[i + 1], dc };
	}
	callerchain_add_sample(&m->chaining, path, npath, reference, nreference, 1);
}

/* A frame-pointer chain's callers as perf gives them, innermost first; *n of them. */
static const uint64_t *raw_callers(const struct st_sample *s, size_t *n)
{
	const uint64_t *chain = st_sample_chain(s);
	size_t first = s->nchain && (chain[0] == s->ip || (s->flags & ST_SAMPLE_LBR_LEAF));

	*n = s->nchain - first;
	return chain + first;
}

/*
 * The kernel's frame-pointer chain: frames[] root first, leaf not
 * included; kernel_only: its kernel frames (under a stack unwound here).
 */
static size_t take_kernel_chain(struct model *m, const struct st_sample *s, uint32_t *frames,
				bool kernel_only)
{
	size_t n, k = 0;
	const uint64_t *chain = raw_callers(s, &n);

	/*
	 * The chain's last few addresses and their functions: recursion, or a
	 * frame pointer's loop through data (127 frames of two or three
	 * addresses, alternating), costs a lookup per address, not per frame.
	 */
	uint64_t seen_ip[4] = { 0 };
	uint32_t seen_sym[4] = { 0 };
	bool seen_unknown[4] = { false };
	unsigned nseen = 0;

	for (size_t i = n; i-- > 0;) {
		unsigned j;

		if (kernel_only && chain[i] < ST_KERNEL_START)
			continue;
		for (j = 0; j < nseen && j < 4 && seen_ip[j] != chain[i]; j++)
			;
		if (j < nseen && j < 4) {
			frames[k++] = seen_sym[j];
			m->tree_frames++;
			m->tree_unknown += seen_unknown[j];
			continue;
		}
		frames[k] = caller_sym(m, (pid_t)s->pid, chain[i], true);
		seen_ip[nseen % 4] = chain[i];
		seen_sym[nseen % 4] = frames[k];
		seen_unknown[nseen % 4] = symbolizer_symbol(m->symbols, frames[k])->unknown;
		nseen++;
		k++;
	}
	return k;
}

static struct unwinder *model_unwinder(struct model *m);

/* The most frames a system call's wrappers take before a frame pointer's caller. */
#define WAIT_WRAPPERS	6

/*
 * A wait's whole-looking frame-pointer chain (k frames, root first, leaf
 * not in it) leaves user code from a system call's libc wrappers, which
 * keep no frame pointer (clock_nanosleep under __nanosleep), so it goes
 * from the innermost wrapper to the first caller that keeps one.  Those
 * frames, unwound from the copy by their CFI (a row each), are put back
 * in their place.  Returns the frames; 0 where the CFI's walk does not
 * meet the chain (the copy unwound whole instead); k where there is no
 * copy or nothing was skipped.
 */
static size_t wait_callers_back(struct model *m, const struct st_sample *s, uint32_t *frames,
				size_t k)
{
	struct unwound_frame f[WAIT_WRAPPERS + 1];
	enum unwind_end end;
	size_t n, j = 0, at, got, meet = 1;
	const uint64_t *chain = raw_callers(s, &n);

	if (!(s->flags & ST_SAMPLE_HAS_STACK) || k != n || k + WAIT_WRAPPERS >= ST_CHAIN_MAX)
		return k;
	while (j < n && chain[j] >= ST_KERNEL_START)
		j++;
	if (j + 1 >= n)
		return k;
	got = unwinder_walk(model_unwinder(m), (pid_t)s->pid, (pid_t)s->tid, s->time,
			    st_sample_stack(s), f, WAIT_WRAPPERS + 1, &end);
	while (meet < got && f[meet].pc != chain[j + 1])
		meet++;
	if (!got || f[0].pc != chain[j] || meet == got)
		return 0;
	/* chain[i] is frames[n - 1 - i]: the skipped go between the wrapper and the chain's next. */
	at = n - 1 - j;
	memmove(frames + at + meet - 1, frames + at, (k - at) * sizeof(*frames));
	for (size_t i = 1; i < meet; i++)
		frames[at + meet - 1 - i] = caller_sym(m, (pid_t)s->pid, f[i].pc, true);
	return k + meet - 1;
}

/* The model's unwinder, made at its first use. */
static struct unwinder *model_unwinder(struct model *m)
{
	if (!m->unwinder) {
		m->unwinder = unwinder_create(m->symbols);
		unwinder_check(m->unwinder, m->unwind_check);
		unwinder_set_needs(m->unwinder, m->stack_needs);
		unwinder_set_teacher(m->unwinder, m->unwind_teacher);
	}
	return m->unwinder;
}

/*
 * A stack copy's frames, root first, into frames (the leaf not
 * included; NULL: CallerChaining's input only); also CallerChaining's
 * input, its reference the kernel's chain fp[0..nfp-1] (root first) when
 * given, else these frames.  Returns how many; *cut: the walk ended
 * before the outermost frame.
 */
static size_t take_unwound(struct model *m, const struct st_sample *s,
			   uint32_t leaf, uint32_t *frames, bool *cut,
			   const uint32_t *fp, size_t nfp)
{
	struct unwound_frame f[ST_CHAIN_MAX];
	uint32_t syms[ST_CHAIN_MAX], reference[ST_CHAIN_MAX];
	const struct st_stack *k = st_sample_stack(s);
	bool kernel = s->cpumode == ST_MODE_KERNEL;
	enum unwind_end end;
	size_t n, nref = 0, out = 0, max = ST_CHAIN_MAX;

	/* A kernel sample's own chain goes after the unwound frames: room for it. */
	if (kernel && frames)
		max = s->nchain < ST_CHAIN_MAX ? ST_CHAIN_MAX - s->nchain : 0;
	model_unwinder(m);
	n = unwinder_walk(m->unwinder, (pid_t)s->pid, (pid_t)s->tid, s->time, k, f, max, &end);
	m->unwound++;
	m->unwind_cut += end == UNWIND_CUT;
	m->unwind_lost += end == UNWIND_LOST;
	*cut = end != UNWIND_COMPLETE;
	if (m->unwind_check && m->unwind_teacher)
		/* A return address past the copy ends a walk as complete; to the check it is cut. */
		model_check_kernel_walk(m, s, f, n, end == UNWIND_CUT ||
					unwinder_last_stop(m->unwinder) == STOP_COPY_END);
	/* Frame 0 is where user code was: the leaf, or under a kernel leaf. */
	syms[0] = kernel ? symbolizer_lookup(m->symbols, (pid_t)s->pid, k->ip, false)->id
			 : leaf;
	for (size_t i = 1; i < n; i++)
		syms[i] = caller_sym(m, (pid_t)s->pid, f[i].pc, frames != NULL);
	for (size_t i = n; frames && i-- > (kernel ? 0 : 1);)
		frames[out++] = syms[i];
	if (kernel) {
		/* The kernel's own chain (kernel frames only, in dwarf mode) below. */
		if (frames && !fp)
			out += take_kernel_chain(m, s, frames + out, true);
		/*
		 * CallerChaining knows user frames: the sample counts at its user
		 * context, the function that entered the kernel, at its depth.
		 */
		if (!m->unwind_broken || m->chaining_wanted) {
			for (size_t i = 1; i < n; i++)
				reference[nref++] = syms[i];
			feed_chaining(m, k, f, syms, n, reference, nref);
		}
		return out;
	}
	if (fp) {
		for (size_t i = nfp; i-- > 0;)
			reference[nref++] = fp[i];
	} else {
		for (size_t i = 1; i < n; i++)
			reference[nref++] = syms[i];
	}
	if (!m->unwind_broken || m->chaining_wanted)
		feed_chaining(m, k, f, syms, n, reference, nref);
	return out;
}

/*
 * A sample waiting for its symbols (the UI builds tables on threads)
 * while its process is not yet known to the kernel's walker: taught now,
 * so the samples after it are walked in the kernel instead of filling
 * the ring with copies while the tables build.
 */
void model_teach_ahead(struct model *m, const void *rec)
{
	const struct st_sample *s = rec;

	if (s->h.type != ST_REC_SAMPLE || !(s->flags & ST_SAMPLE_HAS_STACK) || !m->unwind_teacher)
		return;
	unwinder_prepare(model_unwinder(m), (pid_t)s->pid, s->time);
}

/*
 * s's callers' key in generation gen (callers_seen_key): the one
 * model_prefetch made for this record, if it did in this generation.
 */
/* A frame-pointer chain's key in callers seen (0: none kept for it). */
static uint64_t chain_key(struct model *m, const struct st_sample *s, uint64_t gen)
{
	const uint64_t *ips;
	size_t n;

	ips = raw_callers(s, &n);
	return callers_seen_key(&m->callers_seen, gen, ips, n,
				(s->flags & ST_SAMPLE_CHAIN_TRUNC) != 0);
}

/* The key the look-ahead made for this sample, else made now. */
static uint64_t callers_key(struct model *m, const struct st_sample *s, uint64_t gen)
{
	for (unsigned i = m->key_memo_take; i != m->key_memo_put; i++) {
		const struct model_key_memo *k = &m->key_memo[i % MODEL_KEY_MEMO];

		if (k->rec == s && k->time == s->time && k->tid == s->tid) {
			m->key_memo_take = i + 1;	/* older ones' records went by */
			if (k->gen == gen)
				return k->key;
			break;
		}
	}
	return chain_key(m, s, gen);
}

/* A frame-pointer chain whose callers were seen in this generation: the leaf under their node. */
static bool take_seen_callers(struct model *m, const struct st_sample *s, uint32_t leaf,
			      uint64_t key, uint64_t gen, bool truncated, uint32_t *node)
{
	const struct callers_seen_entry *e = callers_seen_find(&m->callers_seen, key, gen);

	if (!e || e->node >= m->tree.n)
		return false;
	m->tree_frames += e->frames;
	m->tree_unknown += e->unknown;
	count_plain_chain(m, s, e->root);
	*node = cct_add_under(&m->tree, e->node, leaf, (size_t)e->frames + 1, truncated,
			      s->period ? s->period : 1);
	return true;
}

/* After cct_add of a frame-pointer chain's k callers and leaf: its callers' node, kept. */
static void remember_callers(struct model *m, uint64_t key, uint64_t gen, uint32_t root,
			     size_t k, uint32_t node, uint64_t unknown)
{
	struct callers_seen_entry e;

	if (!k || k > CALLERS_SEEN_MAX || !node || (unknown && !symbolizer_keeps_unknown(m->symbols)))
		return;
	e = (struct callers_seen_entry){
		.gen = gen, .node = m->tree.nodes[node].parent, .root = root,
		.frames = (uint16_t)k, .unknown = (uint16_t)unknown,
	};
	/* The plain path takes every frame: the k frames are the chain's addresses. */
	if (e.node != CCT_ROOT)
		callers_seen_put(&m->callers_seen, key, &e);
}

/*
 * A thread's last chain as it went into the tree: its callers root
 * first and the hash of each path from the root (paths_seen_step).  The
 * next chain of the thread mostly shares its outer frames (a deep stack
 * changes near its leaf): those are not hashed again, and the deepest
 * path it shared is probed first.  Valid for one generation.
 */
#define PATH_MEMO_MAX	128u	/* callers; deeper chains take the whole path */
#define PATH_MEMOS_MAX	4096u	/* threads remembered; past it, all forgotten */

struct path_memo {
	UT_hash_handle hh;
	uint32_t tid;
	uint64_t gen;
	bool truncated;
	uint32_t n;
	uint64_t ips[PATH_MEMO_MAX];
	uint64_t hashes[PATH_MEMO_MAX];
};

_Static_assert(PATH_MEMO_MAX <= PATHS_SEEN_MAX_DEPTH, "a memo's unknown frames fit paths seen");

void model_free_path_memos(struct model *m)
{
	struct path_memo *p, *tmp;

	HASH_ITER(hh, m->path_memos, p, tmp) {
		HASH_DEL(m->path_memos, p);
		free(p);
	}
	m->npath_memos = 0;
}

void model_tree_bound(struct model *m, size_t bytes)
{
	size_t memos = bytes / 4 / sizeof(struct path_memo);

	m->path_memos_max = memos < 64 ? 64 : memos < PATH_MEMOS_MAX ? memos : PATH_MEMOS_MAX;
	paths_seen_bound(&m->paths_seen, bytes);
}

static struct path_memo *path_memo_of(struct model *m, uint32_t tid)
{
	struct path_memo *p;

	HASH_FIND(hh, m->path_memos, &tid, sizeof(tid), p);
	if (p)
		return p;
	if (m->npath_memos >= (m->path_memos_max ? m->path_memos_max : PATH_MEMOS_MAX))
		model_free_path_memos(m);
	p = st_xcalloc(1, sizeof(*p));
	p->tid = tid;
	HASH_ADD(hh, m->path_memos, tid, sizeof(p->tid), p);
	m->npath_memos++;
	return p;
}

/*
 * A plain chain (no copy) into the tree from the deepest of its paths
 * seen before (paths_seen): false where that cannot be (too deep, the
 * tree nearly full), for the whole path's way.  *root: the outermost
 * caller's function; *k: callers; *unknown: unknown frames among them.
 */
static bool take_from_last(struct model *m, const struct st_sample *s, uint32_t leaf,
			   uint64_t gen, bool truncated, uint32_t *node, uint32_t *root, size_t *k,
			   uint64_t *unknown)
{
	size_t n, same = 0, deep;
	const uint64_t *ips = raw_callers(s, &n);
	struct paths_seen_entry e = { 0 };
	struct path_memo *p;
	uint64_t h;
	uint32_t at;

	if (!n || n > PATH_MEMO_MAX || m->tree.n + n + 2 >= cct_max_nodes(&m->tree))
		return false;
	p = path_memo_of(m, s->tid);
	h = paths_seen_start(&m->paths_seen, gen, truncated);
	if (p->gen == gen && p->truncated == truncated)
		while (same < p->n && same < n && p->ips[same] == ips[n - 1 - same])
			same++;
	for (size_t i = same; i < n; i++) {
		h = paths_seen_step(i ? p->hashes[i - 1] : h, ips[n - 1 - i]);
		p->ips[i] = ips[n - 1 - i];
		p->hashes[i] = h;
	}
	p->n = (uint32_t)n;
	p->gen = gen;
	p->truncated = truncated;
	paths_seen_reserve(&m->paths_seen, n);
	deep = paths_seen_deepest(&m->paths_seen, p->hashes, n, same, &e);
	if (deep) {
		at = e.node;
		m->tree_frames += deep;
		m->tree_unknown += e.unknown;
	} else {
		at = truncated ? cct_child(&m->tree, CCT_ROOT, CCT_SYM_TRUNCATED) : CCT_ROOT;
	}
	for (size_t i = deep; i < n; i++) {
		uint64_t before = m->tree_unknown;
		uint32_t sym = caller_sym(m, (pid_t)s->pid, p->ips[i], true);

		if (!i)
			e.root = sym;
		at = cct_child(&m->tree, at, sym);
		e.node = at;
		e.unknown += (uint32_t)(m->tree_unknown - before);
		paths_seen_put(&m->paths_seen, p->hashes[i], e);
	}
	*node = cct_add_under(&m->tree, at, leaf, n + 1, truncated, s->period ? s->period : 1);
	*root = e.root;
	*k = n;
	*unknown = e.unknown;
	return true;
}

void model_prefetch_chain(struct model *m, const struct st_sample *s)
{
	uint64_t gen, key;

	if (s->flags & ST_SAMPLE_HAS_STACK)
		return;
	gen = symbolizer_generation(m->symbols, (pid_t)s->pid);
	key = chain_key(m, s, gen);
	if (!key)
		return;
	if (m->key_memo_put - m->key_memo_take == MODEL_KEY_MEMO)
		m->key_memo_take++;
	m->key_memo[m->key_memo_put++ % MODEL_KEY_MEMO] = (struct model_key_memo){
		.rec = s, .time = s->time, .gen = gen, .key = key, .tid = s->tid,
	};
	callers_seen_prefetch(&m->callers_seen, key);
}

uint32_t model_take_chain(struct model *m, const struct st_sample *s,
			  uint32_t leaf, const uint64_t *counters)
{
	uint32_t node;

	uint32_t frames[ST_CHAIN_MAX + 1];
	bool truncated = (s->flags & ST_SAMPLE_CHAIN_TRUNC) != 0, cut, plain = false;
	uint64_t unknown = m->tree_unknown, capped = m->tree.capped, key = 0, gen = 0;
	size_t k;

	/* The call stack's leaf, where a branch record made it (a call target: no -1). */
	if ((s->flags & ST_SAMPLE_LBR_LEAF) && s->nchain)
		leaf = symbolizer_lookup(m->symbols, (pid_t)s->pid, st_sample_chain(s)[0], false)->id;
	/*
	 * In callerchain mode the copy is small and only feeds CallerChaining;
	 * the tree kept live is the kernel's chains, also the reference.
	 */
	if ((s->flags & ST_SAMPLE_HAS_STACK) && m->unwind_broken && s->nchain) {
		/* auto: the chain where whole (its outermost frame), else the copy unwound. */
		const uint64_t *chain = st_sample_chain(s);
		uint32_t root = s->nchain > 1 || chain[0] != s->ip
			? caller_sym(m, (pid_t)s->pid, chain[s->nchain - 1], false) : leaf;

		bool whole = chain_is_whole(m, root);

		if (whole) {
			k = take_kernel_chain(m, s, frames, false);
			/* A wait's: the callers of its system call's wrappers, which the chain skips. */
			if (ST_SAMPLE_OFFCPU(s->flags))
				whole = (k = wait_callers_back(m, s, frames, k)) != 0;
		}
		if (whole) {
			m->auto_fp++;
		} else {
			k = take_unwound(m, s, leaf, frames, &truncated, NULL, 0);
			m->auto_dwarf++;
		}
	} else if ((s->flags & ST_SAMPLE_HAS_STACK) && !(m->callerchain_mode && s->nchain)) {
		/* auto with the kernel's walker: the samples it let out come without a user chain. */
		k = take_unwound(m, s, leaf, frames, &truncated, NULL, 0);
		m->auto_dwarf += m->unwind_broken;
	} else {
		/* Callers seen before: no lookup, no probe per frame. */
		plain = !(s->flags & ST_SAMPLE_HAS_STACK);
		if (plain) {
			uint32_t root;
			uint64_t u;

			gen = symbolizer_generation(m->symbols, (pid_t)s->pid);
			key = callers_key(m, s, gen);
			if (take_seen_callers(m, s, leaf, key, gen, truncated, &node))
				goto counters;
			if (take_from_last(m, s, leaf, gen, truncated, &node, &root, &k, &u)) {
				count_plain_chain(m, s, root);
				remember_callers(m, key, gen, root, k, node, u);
				goto counters;
			}
		}
		k = take_kernel_chain(m, s, frames, false);
		if (s->nchain)
			count_plain_chain(m, s, k ? frames[0] : leaf);
		/*
		 * CallerChaining's reference: the kernel's chain where it is
		 * whole, else (no frame pointers) the copy unwound by its CFI.
		 */
		if ((s->flags & ST_SAMPLE_HAS_STACK) && chain_is_whole(m, k ? frames[0] : leaf)) {
			take_unwound(m, s, leaf, NULL, &cut, frames, k);
			m->chaining_fp_reference++;
		} else if (s->flags & ST_SAMPLE_HAS_STACK) {
			take_unwound(m, s, leaf, NULL, &cut, NULL, 0);
			m->chaining_dwarf_reference++;
		}
	}
	frames[k++] = leaf;
	node = cct_add(&m->tree, frames, k, truncated, s->period ? s->period : 1);
	if (plain && m->tree.capped == capped)
		remember_callers(m, key, gen, frames[0], k - 1, node, m->tree_unknown - unknown);
counters:
	if (counters)
		cct_add_counters(&m->tree, node, counters[0], counters[1]);
	return node;
}
