/*
 * test_output_keeper.c - a command's output through the keeper: small
 * output kept whole; 1.2 MB through a 64 KiB keeper leaves at most twice
 * that, starting at a line and ending with the last line written, every
 * byte counted; stopped while another process holds the pipe open, it
 * keeps what came and returns.
 */
#include "check.h"
#include "session/output_keeper.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define KEEP	(64u << 10)

static int temp_file(char *path, size_t len)
{
	snprintf(path, len, "%s/keeper-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	return mkostemp(path, O_CLOEXEC);
}

/* Waits (10 s at most) until the keeper has counted bytes written. */
static void wait_written(struct output_keeper *k, uint64_t bytes, struct output_kept *out)
{
	for (int i = 0; i < 10000; i++) {
		output_keeper_read(k, out);
		if (out->written >= bytes)
			return;
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	}
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = malloc(4 * KEEP + 1);

	*len = f ? fread(buf, 1, 4 * KEEP, f) : 0;
	buf[*len] = '\0';
	if (f)
		fclose(f);
	return buf;
}

/* A keeper of a new file, *w the command's end of its pipe: -1 if none started. */
static struct output_keeper *start(char *path, size_t len, int *w)
{
	struct output_keeper *k = output_keeper_start(temp_file(path, len), KEEP);

	CHECK(k != NULL);
	*w = k ? dup(output_keeper_fd(k)) : -1;
	if (k)
		output_keeper_launched(k);
	return k;
}

static void test_small(void)
{
	char path[256], *got;
	int w;
	struct output_keeper *k = start(path, sizeof(path), &w);
	struct output_kept kept;
	size_t len;

	if (!k)
		return;
	CHECK(write(w, "row 1\nrow 2\n", 12) == 12);
	close(w);
	wait_written(k, 12, &kept);
	output_keeper_stop(k);
	got = slurp(path, &len);
	CHECK(len == 12 && !strcmp(got, "row 1\nrow 2\n"));
	CHECK(kept.written == 12 && kept.kept == 12 && !kept.cut);
	free(got);
	unlink(path);
}

static void test_bounded(void)
{
	char path[256], line[160], last[160] = "", *got;
	int w;
	struct output_keeper *k = start(path, sizeof(path), &w);
	struct output_kept kept;
	uint64_t total = 0;
	size_t len;

	if (!k)
		return;
	for (int i = 0; i < 20000; i++) {
		int n = snprintf(line, sizeof(line), "line %05d of the command's noise%.*s\n", i,
				 i % 50, "..................................................");

		CHECK(write(w, line, (size_t)n) == n);
		total += (uint64_t)n;
		memcpy(last, line, (size_t)n + 1);
	}
	close(w);
	wait_written(k, total, &kept);
	output_keeper_stop(k);
	got = slurp(path, &len);
	CHECK(kept.written == total && kept.cut);
	CHECK(len == kept.kept && len <= 2 * KEEP && len >= KEEP - 4096);
	CHECK(!strncmp(got, "line ", 5));
	CHECK(len >= strlen(last) && !strcmp(got + len - strlen(last), last));
	free(got);
	unlink(path);
}

static void test_stop_held_open(void)
{
	char path[256], *got;
	int file = temp_file(path, sizeof(path));
	struct output_keeper *k = output_keeper_start(file, KEEP);
	struct output_kept kept;
	size_t len;
	pid_t child;

	CHECK(k != NULL);
	if (!k)
		return;
	child = fork();
	if (child == 0) {
		int w = dup(output_keeper_fd(k));

		if (write(w, "started\n", 8) != 8)
			_exit(1);
		sleep(30);	/* the pipe held open, as a daemon the command started */
		_exit(0);
	}
	output_keeper_launched(k);
	wait_written(k, 8, &kept);
	output_keeper_stop(k);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	got = slurp(path, &len);
	CHECK(kept.written == 8 && len == 8 && !strcmp(got, "started\n"));
	free(got);
	unlink(path);
}

int main(void)
{
	test_small();
	test_bounded();
	test_stop_held_open();
	return check_done("test_output_keeper");
}
