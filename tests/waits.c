/*
 * waits - a target whose off-CPU time is known, for --off-cpu's tests.
 *
 *   waits nap SECONDS    one thread: 10 ms computing in spin_here(), then
 *                        10 ms asleep in nap_here() (nanosleep), so half
 *                        its wall time on the CPU, half off it
 *   waits lock SECONDS   two threads on one mutex: holder() keeps it 10 ms
 *                        of every 11, so wait_lock()'s thread, which holds
 *                        it 50 us at a time, waits for it most of the time;
 *                        says "holder TID waiter TID" on stderr
 *   waits stuck SECONDS  holder_stuck() takes the mutex and naps the whole
 *                        time in nap_here(), so wait_lock()'s thread waits
 *                        for it the whole time: both blocked once, from the
 *                        start, for a test attaching after they blocked;
 *                        says "holder TID waiter TID" on stderr
 *   waits fsync SECONDS  write_sync(): a page written and fsync'd, again
 *   waits switch SECONDS RATE   two threads passing a byte over pipes,
 *                        paced to RATE switches off a CPU a second (each
 *                        blocks in read until the other writes), for the
 *                        off-CPU benchmark; prints the rate reached at its end
 *
 * Prints "ready" on stderr when its threads run (stdout stays a launching
 * shimtop's report's).  nap ends saying on stderr how the napping thread's
 * wall time went, by its own clock: "nap 0.498 spin 0.502" (fractions of
 * its life), what a busy machine's preemptions move off 50/50, so a test
 * compares with it.  Frame pointers, no inlining: the functions the tests
 * look for are in every chain.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static atomic_bool done;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile uint64_t sink;

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Computes for ns of wall time (CPU time where nothing else runs here). */
__attribute__((noinline)) static void spin_here(uint64_t ns)
{
	uint64_t end = now_ns() + ns;

	while (now_ns() < end)
		for (int i = 0; i < 1000; i++)
			sink += (uint64_t)i * 7;
}

__attribute__((noinline)) static void nap_here(uint64_t ns)
{
	struct timespec t = { .tv_sec = (time_t)(ns / 1000000000u),
			      .tv_nsec = (long)(ns % 1000000000u) };

	nanosleep(&t, NULL);
}

__attribute__((noinline)) static void wait_lock(void)
{
	pthread_mutex_lock(&lock);
	spin_here(50000);
	pthread_mutex_unlock(&lock);
}

static atomic_int holder_tid, waiter_tid;

static void *holder(void *arg)
{
	(void)arg;
	atomic_store(&holder_tid, (int)gettid());
	while (!atomic_load(&done)) {
		pthread_mutex_lock(&lock);
		spin_here(10000000);
		pthread_mutex_unlock(&lock);
		nap_here(1000000);	/* the waiter's turn */
	}
	return NULL;
}

static void *waiter(void *arg)
{
	(void)arg;
	atomic_store(&waiter_tid, (int)gettid());
	while (!atomic_load(&done))
		wait_lock();
	return NULL;
}

static uint64_t stuck_ns;

static void *holder_stuck(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	atomic_store(&holder_tid, (int)gettid());
	nap_here(stuck_ns);
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void *waiter_stuck(void *arg)
{
	(void)arg;
	while (!atomic_load(&holder_tid))	/* the mutex held first */
		usleep(1000);
	atomic_store(&waiter_tid, (int)gettid());
	wait_lock();
	return NULL;
}

__attribute__((noinline)) static void write_sync(int fd)
{
	static char page[4096];

	memset(page, (int)(sink & 0xff), sizeof(page));
	if (pwrite(fd, page, sizeof(page), 0) != (ssize_t)sizeof(page) || fsync(fd) < 0) {
		perror("waits: write");
		exit(1);
	}
	sink++;
}

static void *syncer(void *arg)
{
	const char *path = arg;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0) {
		perror(path);
		exit(1);
	}
	while (!atomic_load(&done))
		write_sync(fd);
	close(fd);
	unlink(path);
	return NULL;
}

static int ping[2], pong[2];
static double switch_rate;
static atomic_ullong passes;

/* Blocks in read until the other thread writes: a switch off the CPU each time. */
__attribute__((noinline)) static void pass_byte(int in, int out)
{
	char c = 0;

	if (read(in, &c, 1) != 1 || write(out, &c, 1) != 1)
		atomic_store(&done, true);
}

static void *ponger(void *arg)
{
	(void)arg;
	while (!atomic_load(&done))
		pass_byte(ping[0], pong[1]);
	return NULL;
}

static void *pinger(void *arg)
{
	uint64_t start = now_ns(), n = 0;
	char c = 0;

	(void)arg;
	while (!atomic_load(&done)) {
		/* Two switches a pass (each side blocks once): paced by spinning, not sleeping. */
		while (now_ns() - start < (uint64_t)((double)n * 2e9 / switch_rate))
			if (atomic_load(&done))
				break;
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			break;
		n++;
	}
	atomic_store(&passes, n);
	close(ping[1]);		/* the ponger's read ends */
	return NULL;
}

static uint64_t napped, spun, lived;

static void *napper(void *arg)
{
	uint64_t born = now_ns();

	(void)arg;
	while (!atomic_load(&done)) {
		uint64_t t0 = now_ns(), t1;

		spin_here(10000000);
		t1 = now_ns();
		nap_here(10000000);
		spun += t1 - t0;
		napped += now_ns() - t1;
	}
	lived = now_ns() - born;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];
	int n = 0;
	char path[64];

	if (argc < 3 || atof(argv[2]) <= 0 || (argc != 3 && strcmp(argv[1], "switch")) ||
	    (!strcmp(argv[1], "switch") && (argc != 4 || atof(argv[3]) <= 0))) {
		fprintf(stderr, "usage: waits nap|lock|stuck|fsync SECONDS, or waits switch SECONDS RATE\n");
		return 2;
	}
	if (!strcmp(argv[1], "nap")) {
		pthread_create(&t[n++], NULL, napper, NULL);
	} else if (!strcmp(argv[1], "lock")) {
		pthread_create(&t[n++], NULL, holder, NULL);
		pthread_create(&t[n++], NULL, waiter, NULL);
	} else if (!strcmp(argv[1], "stuck")) {
		stuck_ns = (uint64_t)(atof(argv[2]) * 1e9);
		pthread_create(&t[n++], NULL, holder_stuck, NULL);
		pthread_create(&t[n++], NULL, waiter_stuck, NULL);
	} else if (!strcmp(argv[1], "switch")) {
		switch_rate = atof(argv[3]);
		if (pipe(ping) < 0 || pipe(pong) < 0) {
			perror("waits: pipe");
			return 1;
		}
		pthread_create(&t[n++], NULL, ponger, NULL);
		pthread_create(&t[n++], NULL, pinger, NULL);
	} else if (!strcmp(argv[1], "fsync")) {
		snprintf(path, sizeof(path), "waits-fsync.%d", (int)getpid());
		pthread_create(&t[n++], NULL, syncer, path);
	} else {
		fprintf(stderr, "waits: no mode '%s' (nap, lock, stuck, fsync)\n", argv[1]);
		return 2;
	}
	/* Which thread is which: a busy machine's preemptions can make either wait most. */
	if (!strcmp(argv[1], "lock") || !strcmp(argv[1], "stuck")) {
		while (!atomic_load(&holder_tid) || !atomic_load(&waiter_tid))
			usleep(1000);
		fprintf(stderr, "holder %d waiter %d\n", atomic_load(&holder_tid),
			atomic_load(&waiter_tid));
	}
	fprintf(stderr, "ready\n");
	usleep((useconds_t)(atof(argv[2]) * 1e6));
	atomic_store(&done, true);
	if (!strcmp(argv[1], "switch"))
		if (write(pong[1], "", 1) < 0)	/* a pinger waiting for a byte that never comes */
			perror("waits: write");
	for (int i = n - 1; i >= 0; i--)
		pthread_join(t[i], NULL);
	if (!strcmp(argv[1], "switch"))
		printf("switches %.0f/s\n", 2.0 * (double)atomic_load(&passes) / atof(argv[2]));
	if (!strcmp(argv[1], "nap") && lived)
		fprintf(stderr, "nap %.4f spin %.4f\n", (double)napped / (double)lived,
			(double)spun / (double)lived);
	return 0;
}
