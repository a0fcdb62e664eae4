/*
 * late_jit.c - a JIT that writes its perf map late, as a JVM does with
 * -XX:+DumpPerfMapAtExit or jcmd PID Compiler.perfmap: two functions of
 * machine code in anonymous executable memory, jit_alpha running three
 * times as long as jit_beta, and /tmp/perf-PID.map naming them written
 * at exit, halfway through, or never.
 *
 * late_jit [--seconds S] [--map-at exit|half|never]
 *
 * S seconds of its own CPU time, not the clock's: a loaded machine gives
 * as many samples (996 of the 1,000 t-late-jit wants, beside a stress run).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define BETA_AT		0x100u
#define CODE_SIZE	0x40u

/* mov ecx, N; 1: dec ecx; jnz 1b; ret */
static void emit_loop(unsigned char *at, uint32_t n)
{
	static const unsigned char tail[] = { 0xff, 0xc9, 0x75, 0xfc, 0xc3 };

	at[0] = 0xb9;
	memcpy(at + 1, &n, sizeof(n));
	memcpy(at + 5, tail, sizeof(tail));
}

static double since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static int write_map(const unsigned char *code)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "%lx %x jit_alpha\n", (unsigned long)(uintptr_t)code, CODE_SIZE);
	fprintf(f, "%lx %x jit_beta\n", (unsigned long)(uintptr_t)(code + BETA_AT), CODE_SIZE);
	return fclose(f);
}

__attribute__((noinline)) void run_jit(void (*alpha)(void), void (*beta)(void));
__attribute__((noinline)) void run_jit(void (*alpha)(void), void (*beta)(void))
{
	alpha();
	beta();
}

int main(int argc, char **argv)
{
	const char *map_at = "exit";
	double seconds = 2;
	struct timespec t0;
	unsigned char *code;
	void (*alpha)(void), (*beta)(void);
	int written = 0;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--seconds"))
			seconds = atof(argv[i + 1]);
		else if (!strcmp(argv[i], "--map-at"))
			map_at = argv[i + 1];
	}
	code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);
	if (code == MAP_FAILED) {
		perror("late_jit: mmap");
		return 1;
	}
	emit_loop(code, 300000);
	emit_loop(code + BETA_AT, 100000);
	alpha = (void (*)(void))(uintptr_t)code;
	beta = (void (*)(void))(uintptr_t)(code + BETA_AT);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	while (since(&t0) < seconds) {
		run_jit(alpha, beta);
		if (!written && !strcmp(map_at, "half") && since(&t0) >= seconds / 2)
			written = write_map(code) == 0;
	}
	if (!strcmp(map_at, "exit") && write_map(code) < 0) {
		perror("late_jit: the map");
		return 1;
	}
	return 0;
}
