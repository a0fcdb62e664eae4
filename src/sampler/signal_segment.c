/* signal_segment.c - validating and mapping a program's signal segment. */
#include "sampler/signal_segment.h"
#include "sampler/bus_guard.h"
#include "text_safe.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * shimtop_signals_open() creates the segment empty, sizes it, fills the
 * header and writes the magic last: a segment caught between those steps
 * (empty, or without its magic) is given this long to finish.
 */
#define CREATING_MS	200

/*
 * The process's PID in its own PID namespace (the last NSpid field of
 * /proc/PID/status): the name it gave its segment.  pid if unknown.
 */
static long namespace_pid(pid_t pid)
{
	char path[64], line[256];
	long ns = pid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return pid;
	while (fgets(line, sizeof(line), f)) {
		char *p = line + 6, *end;

		if (strncmp(line, "NSpid:", 6))
			continue;
		for (long v = strtol(p, &end, 10); end != p; v = strtol(p, &end, 10)) {
			ns = v;
			p = end;
		}
		break;
	}
	fclose(f);
	return ns;
}

/* Strings the program wrote: terminated here whatever it left in them. */
static void terminate_names(struct shimtop_signals_header *h)
{
	h->tag_name[SHIMTOP_SIGNALS_NAME_LEN - 1] = '\0';
	st_text_safe(h->tag_name);
	for (unsigned i = 0; i < SHIMTOP_SIGNALS_COUNTERS; i++) {
		h->counter_name[i][SHIMTOP_SIGNALS_NAME_LEN - 1] = '\0';
		st_text_safe(h->counter_name[i]);
	}
	for (unsigned i = 0; i < SHIMTOP_SIGNALS_TAG_NAMES; i++) {
		h->tag_value_name[i][SHIMTOP_SIGNALS_NAME_LEN - 1] = '\0';
		st_text_safe(h->tag_value_name[i]);
	}
	if (h->tag_kind != SHIMTOP_TAG_VALUE && h->tag_kind != SHIMTOP_TAG_ADDRESS)
		h->tag_kind = SHIMTOP_TAG_VALUE;
}

int signal_header_check(struct shimtop_signals_header *h, const char *name,
			char *err, size_t errlen)
{
	char what[96] = "";

	/* Name the field that differs: "version 1, not 1" helped no one. */
	if (memcmp(h->magic, SHIMTOP_SIGNALS_MAGIC, 8) != 0)
		snprintf(what, sizeof(what), "is not a signal segment (no magic)");
	else if (h->version != SHIMTOP_SIGNALS_VERSION)
		snprintf(what, sizeof(what), "is version %u, not %u", h->version,
			 SHIMTOP_SIGNALS_VERSION);
	else if (h->header_size != SHIMTOP_SIGNALS_HEADER_SIZE)
		snprintf(what, sizeof(what), "has a %u-byte header, not %u", h->header_size,
			 (unsigned)SHIMTOP_SIGNALS_HEADER_SIZE);
	else if (h->slot_size != sizeof(struct shimtop_slot))
		snprintf(what, sizeof(what), "has %u-byte slots, not %zu", h->slot_size,
			 sizeof(struct shimtop_slot));
	else if (h->nslots != SHIMTOP_SIGNALS_SLOTS)
		snprintf(what, sizeof(what), "has %u slots, not %u", h->nslots,
			 (unsigned)SHIMTOP_SIGNALS_SLOTS);
	else if (h->ncounters > SHIMTOP_SIGNALS_COUNTERS)
		snprintf(what, sizeof(what), "claims %u counters, more than %u", h->ncounters,
			 (unsigned)SHIMTOP_SIGNALS_COUNTERS);
	if (what[0]) {
		snprintf(err, errlen,
			 "signal segment /dev/shm%s %s (a rewritten or foreign header): "
			 "rebuild the program with this shimtop's <shimtop/signals.h>",
			 name, what);
		return -EPROTO;
	}
	terminate_names(h);
	return 0;
}

/* Opens the segment file, refusing one the process does not own alone. */
static int open_segment(pid_t pid, const char *name, char *err, size_t errlen)
{
	char proc[64], path[160];
	struct stat st, owner;
	int fd;

	snprintf(proc, sizeof(proc), "/proc/%d", (int)pid);
	if (stat(proc, &owner) < 0) {
		snprintf(err, errlen, "no process with id %d", (int)pid);
		return -ESRCH;
	}
	/*
	 * Through the process's own root, under its own PID: a program in a
	 * container made the segment in its /dev/shm, named after the PID it
	 * sees.  For everyone else this is just /dev/shm/shimtop-PID.  Never
	 * a FIFO or device, never through a symbolic link the program planted
	 * (st_open_untrusted).  Where /proc/PID/root cannot be read, our own
	 * /dev/shm.
	 */
	snprintf(path, sizeof(path), "/proc/%d/root/dev/shm%s", (int)pid, name);
	fd = st_open_untrusted(-1, path, 1);
	if (fd < 0 && fd != -ENOENT && fd != -ELOOP && fd != -EINVAL) {
		snprintf(path, sizeof(path), "/dev/shm%s", name);
		fd = st_open_untrusted(-1, path, 1);
	}
	if (fd == -EINVAL) {
		snprintf(err, errlen, "/dev/shm%s is not a regular file: refusing "
			 "it as process %d's signal segment", name, (int)pid);
		return -EPERM;
	}
	if (fd < 0 || fstat(fd, &st) < 0) {
		snprintf(err, errlen,
			 "process %d publishes no signal segment (/dev/shm%s): it must "
			 "call shimtop_signals_open() from <shimtop/signals.h>, or read "
			 "a global variable with --signal NAME", (int)pid, name);
		if (fd >= 0)
			close(fd);
		return -ENOENT;
	}
	if (st.st_uid != owner.st_uid) {
		snprintf(err, errlen,
			 "signal segment /dev/shm%s belongs to uid %u, but process %d "
			 "runs as uid %u: refusing a segment its process does not own",
			 name, (unsigned)st.st_uid, (int)pid, (unsigned)owner.st_uid);
		close(fd);
		return -EPERM;
	}
	if (st.st_mode & 0077) {
		snprintf(err, errlen,
			 "signal segment /dev/shm%s is open to other users (mode %o): "
			 "refusing it; the program must create it 0600", name,
			 (unsigned)(st.st_mode & 0777));
		close(fd);
		return -EPERM;
	}
	for (int i = 0; i < CREATING_MS && st.st_size == 0; i++)
		if (usleep(1000) < 0 || fstat(fd, &st) < 0)
			break;
	if ((size_t)st.st_size < SHIMTOP_SIGNALS_SIZE) {
		snprintf(err, errlen,
			 "signal segment /dev/shm%s is %lld bytes, too small for "
			 "version %u (%zu bytes): rebuild the program with this "
			 "shimtop's <shimtop/signals.h>", name, (long long)st.st_size,
			 SHIMTOP_SIGNALS_VERSION, (size_t)SHIMTOP_SIGNALS_SIZE);
		close(fd);
		return -EPROTO;
	}
	return fd;
}

int signal_segment_attach(struct signal_segment *seg, pid_t pid, char *err,
			  size_t errlen)
{
	const struct shimtop_signals *s;
	long long start;
	int fd;

	memset(seg, 0, sizeof(*seg));
	shimtop_signals_name(seg->name, sizeof(seg->name), namespace_pid(pid));
	fd = open_segment(pid, seg->name, err, errlen);
	if (fd < 0)
		return fd;
	s = mmap(NULL, SHIMTOP_SIGNALS_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (s == MAP_FAILED) {
		int e = errno;

		snprintf(err, errlen, "cannot map signal segment /dev/shm%s: %s",
			 seg->name, strerror(e));
		return -e;
	}
	seg->sig = s;
	if (bus_guard_add(s, SHIMTOP_SIGNALS_SIZE, &seg->truncated) < 0) {
		snprintf(err, errlen, "too many signal segments mapped at once");
		signal_segment_detach(seg);
		return -EMFILE;
	}
	/* Its magic not written yet: the creator is still at it (CREATING_MS). */
	for (int i = 0; i < CREATING_MS && !memcmp(s->header.magic, "\0\0\0\0\0\0\0\0", 8) &&
	     !seg->truncated; i++)
		usleep(1000);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	memcpy(&seg->header, (const void *)&s->header, sizeof(seg->header));
	if (seg->truncated) {
		snprintf(err, errlen, "process %d truncated its signal segment "
			 "/dev/shm%s while shimtop read it; run again", (int)pid,
			 seg->name);
		signal_segment_detach(seg);
		return -EIO;
	}
	if (signal_header_check(&seg->header, seg->name, err, errlen) < 0) {
		signal_segment_detach(seg);
		return -EPROTO;
	}
	start = st_proc_stat_field((int)pid, 22);
	if (seg->header.start_time && start >= 0 &&
	    seg->header.start_time != (uint32_t)start) {
		/* Its creator died without removing it, and the PID came round. */
		snprintf(err, errlen,
			 "process %d publishes no signal segment (/dev/shm%s was left "
			 "by an earlier process with the same id): it must call "
			 "shimtop_signals_open() from <shimtop/signals.h>, or read a "
			 "global variable with --signal NAME", (int)pid, seg->name);
		signal_segment_detach(seg);
		return -ENOENT;
	}
	seg->pid = pid;
	return 0;
}

bool signal_segment_refresh(struct signal_segment *seg)
{
	struct shimtop_signals_header h = seg->header;
	const struct shimtop_signals_header *live = &seg->sig->header;
	bool changed;

	memcpy(h.tag_name, live->tag_name, sizeof(h.tag_name));
	memcpy(h.counter_name, live->counter_name, sizeof(h.counter_name));
	memcpy(h.tag_value_name, live->tag_value_name, sizeof(h.tag_value_name));
	h.tag_kind = live->tag_kind;
	if (seg->truncated)
		return false;	/* zeros, not the program's names */
	terminate_names(&h);
	changed = memcmp(&h, &seg->header, sizeof(h)) != 0;
	seg->header = h;
	return changed;
}

void signal_segment_detach(struct signal_segment *seg)
{
	if (seg->sig) {
		bus_guard_remove(seg->sig);
		munmap((void *)seg->sig, SHIMTOP_SIGNALS_SIZE);
	}
	seg->sig = NULL;
}
