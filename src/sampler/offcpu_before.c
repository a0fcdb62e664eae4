/*
 * offcpu_before.c - threads already blocked when off-CPU sampling starts
 * (offcpu_before.h): their waits from /proc and a copy of their stacks.
 */
#include "sampler/offcpu_before.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "symbols/symbols.h"
#include "util.h"

/* One token of the kernel's "0x%llx": true with its value, p past it. */
static bool take_hex(const char **p, uint64_t *v)
{
	const char *s = *p;
	char *end;

	if (s[0] != ' ' || s[1] != '0' || s[2] != 'x' || !strchr("0123456789abcdef", s[3]) ||
	    !s[3])
		return false;
	errno = 0;
	*v = strtoull(s + 3, &end, 16);
	if (errno || end - (s + 3) > 16)
		return false;
	*p = end;
	return true;
}

bool offcpu_at_parse(const char *text, struct offcpu_at *at)
{
	const char *p = text;
	uint64_t v[8];
	size_t n;
	char *end;
	long nr;

	if ((*p != '-' && (*p < '0' || *p > '9')))
		return false;		/* "running", or not the kernel's */
	errno = 0;
	nr = strtol(p, &end, 10);
	if (errno || end == p || nr < -1 || nr > INT_MAX)
		return false;
	p = end;
	/* In a system call: its six arguments, then sp and pc; else sp and pc alone. */
	n = nr >= 0 ? 8 : 2;
	for (size_t i = 0; i < n; i++)
		if (!take_hex(&p, &v[i]))
			return false;
	if (*p == '\n')
		p++;
	if (*p)
		return false;
	at->nr = nr;
	at->sp = v[n - 2];
	at->pc = v[n - 1];
	return true;
}

static bool is_futex(long nr)
{
#ifdef SYS_futex_waitv
	if (nr == SYS_futex_waitv)
		return true;
#endif
	return nr == SYS_futex;
}

enum st_offcpu_reason offcpu_before_reason(char state, long nr)
{
	switch (state) {
	case 'S':
		return is_futex(nr) ? ST_OFFCPU_FUTEX : ST_OFFCPU_SLEEP;
	case 'D':
		return ST_OFFCPU_DISK;
	case 'T':
	case 't':
		return ST_OFFCPU_STOPPED;
	default:
		return ST_OFFCPU_NONE;
	}
}

static uint64_t word(const unsigned char *bytes, size_t i)
{
	uint64_t w;

	memcpy(&w, bytes + 8 * i, sizeof(w));
	return w;
}

static void add_code(uint64_t start, uint64_t len, uint64_t pgoff, const char *path, void *arg)
{
	struct offcpu_code *c = arg;

	(void)pgoff;
	(void)path;
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 64;
		c->range = st_xrealloc(c->range, c->cap * sizeof(*c->range));
	}
	c->range[c->n][0] = start;
	c->range[c->n++][1] = start + len;
}

static int by_start(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

int offcpu_code_read(pid_t pid, struct offcpu_code *c)
{
	int err;

	memset(c, 0, sizeof(*c));
	err = symbols_read_proc_maps(pid, add_code, c);
	if (err < 0)
		offcpu_code_free(c);
	else if (c->n)
		qsort(c->range, c->n, sizeof(*c->range), by_start);
	return err < 0 ? err : 0;
}

void offcpu_code_free(struct offcpu_code *c)
{
	free(c->range);
	memset(c, 0, sizeof(*c));
}

/* Could w be a return address: user code, not the stack in the copy, not a small number. */
static bool code_like(uint64_t w, uint64_t sp, size_t len, const struct offcpu_code *code)
{
	size_t lo = 0, hi;

	/* A user address (47 bits: no code is mapped above without asking). */
	if (w < 4096 || w >= 1ull << 47 || (w >= sp && w < sp + len))
		return false;
	if (!code)
		return true;
	for (hi = code->n; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;

		if (w < code->range[mid][0])
			hi = mid;
		else if (w >= code->range[mid][1])
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

uint64_t offcpu_frame_guess(const unsigned char *bytes, size_t len, uint64_t sp,
			    const struct offcpu_code *code)
{
	size_t nwords = len / 8;

	if (sp & 7 || sp > UINT64_MAX - len)
		return 0;
	for (size_t i = 0; i + 1 < nwords; i++) {
		uint64_t next = word(bytes, i), at = sp + 8 * i, j, outer;

		if (next <= at || next >= sp + 8 * nwords || next & 7 ||
		    !code_like(word(bytes, i + 1), sp, len, code))
			continue;
		/*
		 * The record it points to: beside code too, and its own saved rbp
		 * no lower in the copy (a chain only goes up; code without frame
		 * pointers above it may have left any value there).
		 */
		j = (next - sp) / 8;
		if (j + 1 >= nwords)
			return at;
		outer = word(bytes, j);
		if ((outer > next || outer < sp) && code_like(word(bytes, j + 1), sp, len, code))
			return at;
	}
	return 0;
}

/* The state letter of /proc/.../stat: after the last ')', the command may hold one. */
static char state_of(const char *stat)
{
	const char *paren = strrchr(stat, ')');

	return paren && paren[1] == ' ' ? paren[2] : '\0';
}

size_t offcpu_before_sample(const char *proc, pid_t pid, pid_t tid, uint64_t now, size_t copy,
			    const struct offcpu_code *code, void *out, size_t room)
{
	struct st_sample *s = out;
	struct st_stack *k;
	struct offcpu_at at;
	enum st_offcpu_reason why;
	char path[PATH_MAX], *text;
	size_t head = sizeof(*s) + sizeof(*k);
	struct iovec local, remote;
	ssize_t got;
	char state;

	if (room < head + 8)
		return 0;
	snprintf(path, sizeof(path), "%s/%d/task/%d/stat", proc, (int)pid, (int)tid);
	text = st_read_file(path, NULL);
	state = text ? state_of(text) : '\0';
	free(text);
	snprintf(path, sizeof(path), "%s/%d/task/%d/syscall", proc, (int)pid, (int)tid);
	text = st_read_file(path, NULL);
	/* Read after the state: a thread that ran between says "running" here. */
	if (!text || !offcpu_at_parse(text, &at) || at.sp & 7) {
		free(text);
		return 0;
	}
	free(text);
	why = offcpu_before_reason(state, at.nr);
	if (why == ST_OFFCPU_NONE)
		return 0;
	if (copy > room - head)
		copy = room - head;
	copy &= ~(size_t)7;
	memset(s, 0, head);
	k = (struct st_stack *)(void *)s->data;
	local = (struct iovec){ k->bytes, copy };
	remote = (struct iovec){ (void *)(uintptr_t)at.sp, copy };
	/*
	 * It sleeps: its stack holds still.  A copy past the stack's mapping
	 * ends there.  Read through the process, not the thread's id, which
	 * another process may have by now.
	 */
	got = copy ? process_vm_readv(pid, &local, 1, &remote, 1, 0) : 0;
	if (got < 0)
		return 0;
	s->pid = (uint32_t)pid;
	s->tid = (uint32_t)tid;
	s->time = now;
	s->ip = at.pc;
	s->period = 1;
	s->cpumode = ST_MODE_USER;
	s->flags = ST_SAMPLE_HAS_STACK | (uint32_t)why << ST_SAMPLE_OFFCPU_SHIFT;
	k->ip = at.pc;
	k->sp = at.sp;
	k->size = (uint32_t)((size_t)got & ~(size_t)7);
	k->bp = offcpu_frame_guess(k->bytes, k->size, at.sp, code);
	s->h.type = ST_REC_SAMPLE;
	s->h.source = ST_SOURCE_PERF;
	s->h.size = (uint32_t)(head + k->size);
	return s->h.size;
}
