/* signal_segment.c - validating and mapping a program's signal segment. */
#include "signal_segment.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

int signal_segment_attach(struct signal_segment *seg, pid_t pid, char *err,
			  size_t errlen)
{
	char name[64], proc[64], path[160];
	struct stat st, owner;
	const struct shimtop_signals *s;
	long long start;
	int fd;

	memset(seg, 0, sizeof(*seg));
	snprintf(proc, sizeof(proc), "/proc/%d", (int)pid);
	if (stat(proc, &owner) < 0) {
		snprintf(err, errlen, "no process with id %d", (int)pid);
		return -1;
	}
	/*
	 * Through the process's own root, under its own PID: a program in a
	 * container made the segment in its /dev/shm, named after the PID it
	 * sees.  For everyone else this is just /dev/shm/shimtop-PID.
	 */
	shimtop_signals_name(name, sizeof(name), namespace_pid(pid));
	snprintf(path, sizeof(path), "/proc/%d/root/dev/shm%s", (int)pid, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && errno != ENOENT)
		fd = shm_open(name, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, errlen,
			 "process %d publishes no signal segment (/dev/shm%s): it must "
			 "call shimtop_signals_open() from <shimtop/signals.h>, or read "
			 "a global variable with --signal NAME", (int)pid, name);
		return -1;
	}
	if (fstat(fd, &st) < 0 || st.st_uid != owner.st_uid) {
		snprintf(err, errlen,
			 "signal segment /dev/shm%s belongs to uid %u, but process %d "
			 "runs as uid %u: refusing a segment its process does not own",
			 name, (unsigned)st.st_uid, (int)pid, (unsigned)owner.st_uid);
		close(fd);
		return -1;
	}
	if (st.st_mode & 0077) {
		snprintf(err, errlen,
			 "signal segment /dev/shm%s is open to other users (mode %o): "
			 "refusing it; the program must create it 0600", name,
			 (unsigned)(st.st_mode & 0777));
		close(fd);
		return -1;
	}
	if ((size_t)st.st_size < SHIMTOP_SIGNALS_SIZE) {
		snprintf(err, errlen,
			 "signal segment /dev/shm%s is %lld bytes, too small for "
			 "version %u (%zu bytes): rebuild the program with this "
			 "shimtop's <shimtop/signals.h>", name, (long long)st.st_size,
			 SHIMTOP_SIGNALS_VERSION, (size_t)SHIMTOP_SIGNALS_SIZE);
		close(fd);
		return -1;
	}
	s = mmap(NULL, SHIMTOP_SIGNALS_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (s == MAP_FAILED) {
		snprintf(err, errlen, "cannot map signal segment /dev/shm%s: %s",
			 name, strerror(errno));
		return -1;
	}
	/*
	 * The creator writes the magic last: a segment caught between its
	 * creation and that store is given 100 ms to finish.
	 */
	for (int i = 0; i < 100 && !memcmp(s->header.magic, "\0\0\0\0\0\0\0\0", 8); i++)
		usleep(1000);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (memcmp(s->header.magic, SHIMTOP_SIGNALS_MAGIC, 8) != 0 ||
	    s->header.version != SHIMTOP_SIGNALS_VERSION ||
	    s->header.header_size != SHIMTOP_SIGNALS_HEADER_SIZE ||
	    s->header.slot_size != sizeof(struct shimtop_slot) ||
	    s->header.nslots != SHIMTOP_SIGNALS_SLOTS ||
	    s->header.ncounters > SHIMTOP_SIGNALS_COUNTERS) {
		snprintf(err, errlen,
			 "signal segment /dev/shm%s is version %u, not %u (or not a "
			 "signal segment): rebuild the program with this shimtop's "
			 "<shimtop/signals.h>", name, s->header.version,
			 SHIMTOP_SIGNALS_VERSION);
		munmap((void *)s, SHIMTOP_SIGNALS_SIZE);
		return -1;
	}
	start = st_proc_stat_field((int)pid, 22);
	if (s->header.start_time && start >= 0 &&
	    s->header.start_time != (uint32_t)start) {
		/* Its creator died without removing it, and the PID came round. */
		snprintf(err, errlen,
			 "process %d publishes no signal segment (/dev/shm%s was left "
			 "by an earlier process with the same id): it must call "
			 "shimtop_signals_open() from <shimtop/signals.h>, or read a "
			 "global variable with --signal NAME", (int)pid, name);
		munmap((void *)s, SHIMTOP_SIGNALS_SIZE);
		return -1;
	}
	seg->sig = s;
	seg->pid = pid;
	return 0;
}

void signal_segment_detach(struct signal_segment *seg)
{
	if (seg->sig)
		munmap((void *)seg->sig, SHIMTOP_SIGNALS_SIZE);
	seg->sig = NULL;
}
