/*
 * test_sideband.c - perf's dummy event as the side band of another
 * source (perf_sideband_create, what the IBS module's source reads its
 * target's maps, forks and exits from): on a child that maps a file
 * executable, forks and exits, the ring gets the map, the fork and the
 * exits, no sample, and the source finishes when the child is gone.
 * Its complete_ns, which the module's reader merges samples by, holds:
 * no record stamped at or before it arrives after it was said.
 * Skips (77) where this kernel refuses perf events to us.
 */
#include "check.h"
#include "ring/record.h"
#include "ring/ring.h"
#include "sampler/perf_source.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAPPED	"/bin/true"

/* The child: waits for the word, maps MAPPED executable, forks, exits. */
static void child(int go)
{
	char c;
	int fd;
	pid_t kid;

	if (read(go, &c, 1) != 1)
		_exit(2);
	fd = open(MAPPED, O_RDONLY);
	if (fd < 0 || mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED)
		_exit(3);
	kid = fork();
	if (kid == 0)
		_exit(0);
	waitpid(kid, NULL, 0);
	/* Alive for some passes of the side band's reader: complete_ns moves. */
	nanosleep(&(struct timespec){ 0, 200000000 }, NULL);
	_exit(0);
}

int main(void)
{
	struct perf_source_config cfg;
	struct st_source_info info;
	struct ring *ring = ring_create(1u << 20);
	struct st_source *sb;
	int go[2], status = 0;
	pid_t pid, grandchild = 0;
	bool mapped = false, exited = false, grandchild_exited = false;
	size_t samples = 0, late = 0, said = 0;
	uint64_t deadline, complete = 0;

	if (!ring || pipe(go) < 0)
		return 99;
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		child(go[0]);
	}
	close(go[0]);
	memset(&cfg, 0, sizeof(cfg));
	cfg.scope = PERF_SCOPE_PROCESSES;
	cfg.pids[0] = pid;
	cfg.npids = 1;
	sched_getaffinity(0, sizeof(cfg.cpus), &cfg.cpus);
	/* What --ibs would have left in it: none of it reaches the dummy event. */
	cfg.ibs = true;
	cfg.period = 0x10000;
	cfg.stack_copy = 8192;
	sb = perf_sideband_create(&cfg, ring, &status);
	if (!sb) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		printf("test_sideband: perf events refused here (%s): skipped\n",
		       strerror(-status));
		return status == -EACCES || status == -EPERM || status == -ENOSYS ||
		       status == -ENOENT ? 77 : 1;
	}
	CHECK(source_start(sb) == 0);
	CHECK(write(go[1], "x", 1) == 1);
	deadline = st_now_ns() + 10000000000ull;
	do {
		const void *rec;
		size_t len;

		source_info(sb, &info);
		while ((rec = ring_peek(ring, &len))) {
			const struct st_header *h = rec;
			const struct st_mmap *m = rec;
			const struct st_task *t = rec;
			uint64_t time = st_record_time(rec);

			/* Not in the ring when the last complete_ns was read. */
			late += time && time <= complete;

			if (h->type == ST_REC_MMAP && m->pid == (uint32_t)pid &&
			    strstr(m->filename, "true"))
				mapped = true;
			if (h->type == ST_REC_FORK && t->ppid == (uint32_t)pid &&
			    t->pid != (uint32_t)pid)
				grandchild = (pid_t)t->pid;
			if (h->type == ST_REC_EXIT && t->pid == (uint32_t)pid && t->tid == t->pid)
				exited = true;
			if (h->type == ST_REC_EXIT && grandchild && t->pid == (uint32_t)grandchild)
				grandchild_exited = true;
			samples += h->type == ST_REC_SAMPLE || h->type == ST_REC_IBS;
			ring_release(ring);
		}
		CHECK(info.complete_ns >= complete);
		said += info.complete_ns > 0 && info.complete_ns < UINT64_MAX;
		complete = info.complete_ns;
		if (!info.finished)
			nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
	} while (!(info.finished && exited) && st_now_ns() < deadline);
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(mapped);
	CHECK(grandchild > 0 && grandchild_exited);
	CHECK(exited);
	CHECK(info.finished);
	CHECK(samples == 0);
	CHECK(late == 0);
	CHECK(said > 0 && complete == UINT64_MAX);
	source_destroy(sb);
	ring_destroy(ring);
	return check_done("test_sideband");
}
