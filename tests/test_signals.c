/*
 * test_signals.c - the signal API and shimtop's reader: what a thread
 * publishes is what the reader sees; a missing segment, one owned by
 * another user, one open to others, one of another version and one
 * left by an earlier process with the same PID are each refused with a
 * message that says so; a segment not yet finished is waited for,
 * briefly.
 */
#include "check.h"
#include "util.h"
#include "sampler/signal_segment.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct shimtop_signals *sig;

static void *worker(void *arg)
{
	struct shimtop_slot *me = shimtop_signals_thread(sig);

	(void)arg;
	shimtop_tag(me, 77, 5);
	for (int i = 0; i < 1000; i++)
		shimtop_count(me, 1, 2);
	return NULL;
}

/* The creator's last step, 20 ms late: the magic. */
static void *finish_header(void *arg)
{
	(void)arg;
	usleep(20000);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memcpy(sig->header.magic, SHIMTOP_SIGNALS_MAGIC, 8);
	return NULL;
}

/* The creator's middle step, 20 ms late: sizing the empty segment. */
struct sizing {
	int fd;
	const void *header;	/* the page it then writes */
};

static void *size_segment(void *arg)
{
	const struct sizing *z = arg;

	usleep(20000);
	if (ftruncate(z->fd, SHIMTOP_SIGNALS_SIZE) != 0 ||
	    pwrite(z->fd, z->header, SHIMTOP_SIGNALS_HEADER_SIZE, 0) !=
	    (ssize_t)SHIMTOP_SIGNALS_HEADER_SIZE)
		abort();
	return NULL;
}

/*
 * A segment caught between shm_open() and its sizing is empty: waited
 * for, as one without its magic (a launched program raced the observer
 * into that window in CI).
 */
static void while_created(const char **names)
{
	struct signal_segment seg;
	struct sizing z;
	pthread_t late;
	char name[64], err[512];
	void *page = malloc(SHIMTOP_SIGNALS_HEADER_SIZE);

	sig = shimtop_signals_open("phase", names, 2);
	CHECK(sig != NULL && page != NULL);
	if (!sig || !page)
		return;
	memcpy(page, sig, SHIMTOP_SIGNALS_HEADER_SIZE);
	shimtop_signals_name(name, sizeof(name), getpid());
	z.fd = shm_open(name, O_RDWR, 0);
	z.header = page;
	CHECK(z.fd >= 0 && ftruncate(z.fd, 0) == 0);
	pthread_create(&late, NULL, size_segment, &z);
	CHECK(signal_segment_attach(&seg, getpid(), err, sizeof(err)) == 0);
	CHECK(!strcmp(seg.header.tag_name, "phase"));
	signal_segment_detach(&seg);
	pthread_join(late, NULL);
	close(z.fd);
	free(page);
	shimtop_signals_close();
}

static int slot_of(const struct shimtop_signals *s, uint32_t tag)
{
	for (unsigned i = 0; i < SHIMTOP_SIGNALS_SLOTS; i++)
		if (s->slot[i].tid && s->slot[i].tag == tag)
			return (int)i;
	return -1;
}

/*
 * What the program does after shimtop attached is checked per read, never
 * trusted: a counter count rewritten to 4000 stays the one validated, names
 * left unterminated are cut, and a segment truncated to nothing reads as
 * zeros and says so instead of killing the reader with SIGBUS.
 */
static void after_attach(const char **names)
{
	struct signal_segment seg;
	char err[512], name[64];
	int fd;

	sig = shimtop_signals_open("phase", names, 2);
	CHECK(sig != NULL);
	if (!sig)
		return;
	CHECK(signal_segment_attach(&seg, getpid(), err, sizeof(err)) == 0);
	CHECK_EQ_U64(seg.header.ncounters, 2);
	sig->header.ncounters = 4000;
	sig->header.tag_kind = 77;
	memset(sig->header.counter_name[0], 'x', SHIMTOP_SIGNALS_NAME_LEN);
	CHECK(signal_segment_refresh(&seg));
	CHECK_EQ_U64(seg.header.ncounters, 2);
	CHECK_EQ_U64(seg.header.tag_kind, SHIMTOP_TAG_VALUE);
	CHECK_EQ_U64(strlen(seg.header.counter_name[0]), SHIMTOP_SIGNALS_NAME_LEN - 1);

	/* Truncated: the reader's next load reads 0, and the flag is up. */
	shimtop_signals_name(name, sizeof(name), getpid());
	fd = shm_open(name, O_RDWR, 0);
	CHECK(fd >= 0 && ftruncate(fd, 0) == 0);
	CHECK_EQ_U64(seg.sig->slot[3].counter[1], 0);
	CHECK_EQ_U64(seg.sig->header.version, 0);
	CHECK(seg.truncated);
	CHECK(!signal_segment_refresh(&seg));	/* zeros are no names */
	CHECK(!strcmp(seg.header.tag_name, "phase"));
	signal_segment_detach(&seg);
	/* Attaching to the truncated segment is refused as too small. */
	CHECK(signal_segment_attach(&seg, getpid(), err, sizeof(err)) == -EPROTO);
	CHECK(strstr(err, "is 0 bytes, too small") != NULL);
	if (fd >= 0)
		close(fd);
	/* The writer's mapping is past the end now too: unmap, never write. */
	munmap(sig, SHIMTOP_SIGNALS_SIZE);
	shm_unlink(name);

	/* A FIFO where the segment should be is refused, not waited on. */
	{
		char path[96];

		snprintf(path, sizeof(path), "/dev/shm%s", name);
		CHECK(mkfifo(path, 0600) == 0);
		CHECK(signal_segment_attach(&seg, getpid(), err, sizeof(err)) == -EPERM);
		CHECK(strstr(err, "is not a regular file") != NULL);
		unlink(path);
	}
}

int main(void)
{
	const char *names[] = { "items", "bytes" };
	struct signal_segment seg;
	char err[512], path[64];
	struct shimtop_slot *me;
	pthread_t t;
	int w;

	/* Missing. */
	shimtop_signals_close();
	CHECK(signal_segment_attach(&seg, getpid(), err, sizeof(err)) == -ENOENT);
	CHECK(strstr(err, "publishes no signal segment") != NULL);
	CHECK(strstr(err, "shimtop_signals_open()") != NULL);

	sig = shimtop_signals_open("phase", names, 2);
	CHECK(sig != NULL);
	if (!sig)
		return check_done("test_signals");
	me = shimtop_signals_thread(sig);
	CHECK(me == shimtop_signals_thread(sig));	/* one slot per thread */
	shimtop_tag(me, 3, 1);
	shimtop_count(me, 0, 41);
	shimtop_count(me, 0, 1);
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);

	CHECK(signal_segment_attach(&seg, getpid(), err, sizeof(err)) == 0);
	if (seg.sig) {
		CHECK(!strcmp(seg.sig->header.tag_name, "phase"));
		CHECK(!strcmp(seg.sig->header.counter_name[1], "bytes"));
		CHECK(seg.sig->header.ncounters == 2);
		CHECK(slot_of(seg.sig, 3) >= 0);
		CHECK_EQ_U64(seg.sig->slot[slot_of(seg.sig, 3)].counter[0], 42);
		w = slot_of(seg.sig, 77);
		CHECK(w >= 0 && w != slot_of(seg.sig, 3));
		if (w >= 0) {
			CHECK_EQ_U64(seg.sig->slot[w].counter[1], 2000);
			CHECK(seg.sig->slot[w].depth == 5);
		}
		/* A live update shows through the reader's mapping. */
		shimtop_tag(me, 9, 2);
		CHECK(slot_of(seg.sig, 9) >= 0);
		signal_segment_detach(&seg);
	}

	snprintf(path, sizeof(path), "/dev/shm/shimtop-%d", (int)getpid());
	/* Open to other users. */
	CHECK(chmod(path, 0644) == 0);
	CHECK(signal_segment_attach(&seg, getpid(), err, sizeof(err)) == -EPERM);
	CHECK(strstr(err, "open to other users (mode 644)") != NULL);
	CHECK(chmod(path, 0600) == 0);

	/* Caught before the creator wrote its magic: waited for. */
	{
		pthread_t late;

		memset(sig->header.magic, 0, 8);
		pthread_create(&late, NULL, finish_header, NULL);
		CHECK(signal_segment_attach(&seg, getpid(), err, sizeof(err)) == 0);
		signal_segment_detach(&seg);
		pthread_join(late, NULL);
		/* ... but not for ever. */
		memset(sig->header.magic, 0, 8);
		CHECK(signal_segment_attach(&seg, getpid(), err, sizeof(err)) == -EPROTO);
		CHECK(strstr(err, "not a signal segment") != NULL);
		memcpy(sig->header.magic, SHIMTOP_SIGNALS_MAGIC, 8);
	}

	/* Another version. */
	sig->header.version = 99;
	CHECK(signal_segment_attach(&seg, getpid(), err, sizeof(err)) == -EPROTO);
	CHECK(strstr(err, "is version 99, not 1") != NULL);
	sig->header.version = SHIMTOP_SIGNALS_VERSION;
	/* The right version with another field rewritten: that field is named. */
	{
		struct { uint32_t *field, bad; const char *want; } rewritten[] = {
			{ &sig->header.header_size, 100, "has a 100-byte header, not 4096" },
			{ &sig->header.slot_size, 32, "has 32-byte slots, not 64" },
			{ &sig->header.nslots, 7, "has 7 slots, not" },
			{ &sig->header.ncounters, 99, "claims 99 counters, more than" },
		};

		for (size_t i = 0; i < sizeof(rewritten) / sizeof(rewritten[0]); i++) {
			uint32_t keep = *rewritten[i].field;

			*rewritten[i].field = rewritten[i].bad;
			CHECK(signal_segment_attach(&seg, getpid(), err, sizeof(err)) == -EPROTO);
			CHECK(strstr(err, rewritten[i].want) != NULL);
			CHECK(strstr(err, "is version") == NULL);
			*rewritten[i].field = keep;
		}
	}

	/*
	 * The creator's start time is this process's, and a segment whose
	 * start time is another's was left by an earlier process with this
	 * PID: refused as no segment.
	 */
	CHECK(sig->header.start_time != 0);
	CHECK_EQ_U64(sig->header.start_time, (uint32_t)st_proc_stat_field(getpid(), 22));
	/* Where scripts (t-container.sh) find it. */
	CHECK_EQ_U64(offsetof(struct shimtop_signals_header, start_time), 196);
	sig->header.start_time += 1;
	CHECK(signal_segment_attach(&seg, getpid(), err, sizeof(err)) == -ENOENT);
	CHECK(strstr(err, "publishes no signal segment") != NULL &&
	      strstr(err, "left by an earlier process with the same id") != NULL);
	sig->header.start_time = 0;	/* unknown: accepted */
	CHECK(signal_segment_attach(&seg, getpid(), err, sizeof(err)) == 0);
	signal_segment_detach(&seg);
	sig->header.start_time = (uint32_t)st_proc_stat_field(getpid(), 22);

	/* Another owner (needs root to give it away). */
	if (geteuid() == 0) {
		CHECK(chown(path, 65534, 65534) == 0);
		CHECK(signal_segment_attach(&seg, getpid(), err, sizeof(err)) == -EPERM);
		CHECK(strstr(err, "belongs to uid 65534") != NULL);
	} else {
		printf("not root: the wrong-owner case is not checked\n");
	}
	shimtop_signals_close();
	CHECK(signal_segment_attach(&seg, 999999, err, sizeof(err)) == -ESRCH);
	CHECK(strstr(err, "no process with id 999999") != NULL);
	after_attach(names);
	while_created(names);
	return check_done("test_signals");
}
