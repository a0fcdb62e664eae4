/*
 * shimtop-demo - the bundled workload: four phases a user can tell apart
 * in shimtop's table, run in turn, 100 ms each, until killed or for
 * --seconds N.
 *
 *   phase_compute        floating-point arithmetic, high IPC
 *   phase_pointer_chase  dependent loads over a 64 MiB random cycle
 *   phase_branchy        branches on random data, mispredicted half the time
 *   phase_recursive      a call tree eight levels deep (recurse_tree)
 *
 * --threads N starts N more threads running the same phases after
 * --thread-delay S seconds, to show that threads born later are followed.
 * --weights C,P,B,R runs the phases for times in that ratio (1,1,1,1).
 * --rounds N runs N whole rounds of the phases and exits, each slice
 * timed in the thread's CPU time: the phases' shares of cpu-clock
 * samples are then the weights' exactly, however busy the machine (a
 * test's ground truth).
 *
 * It publishes software signals (<shimtop/signals.h>): each thread's
 * current phase (1-4, 0 when not in one) as its tag, and its work items
 * (small fixed batches of each phase's inner loop, a few microseconds
 * each) as counter 0.  --no-signals turns that off.  The same counts are
 * kept in plain globals (shimtop_demo_items, shimtop_demo_phase) for
 * `shimtop --signal`, which reads unmodified programs.
 *
 * --tsc-steps D runs no phases: the main thread adds one to its work
 * counter at most once per D TSC cycles (x86), timing each step from the
 * previous one so that it never catches up, for --seconds: a counter
 * whose rate has a physical bound (1/D per cycle), which shimtop --check
 * holds DTE's accepted rates against.
 *
 * --report-work prints, at exit, the work items done, the seconds spent
 * in phases and the wall time under each phase's tag (phase_wall): the ground truth the observer's rates are tested
 * against.  Where the CPU counts them, also the main thread's own user
 * cycles and instructions, counted as one group from its start (as perf
 * stat -e '{cycles:u,instructions:u}' counts): shimtop --check's figure
 * for IPC; and where the pointer chase's array lies (chase=ADDRESS+BYTES),
 * which its IBS load samples' data addresses must fall in.
 */
#include <getopt.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <shimtop/signals.h>

#define SLICE_NS	100000000ull
#define CHASE_ENTRIES	(8u << 20)	/* 8 Mi entries of 8 bytes */
#define BRANCH_BYTES	(1u << 16)

static size_t *chase;
static unsigned char *branch_data;
static volatile uint64_t sink;		/* keeps results alive */
static double run_seconds;
/* --weights: each phase's slice in SLICE_NS units (a phase of weight 0 is skipped). */
static unsigned phase_weight[4] = { 1, 1, 1, 1 };
static struct shimtop_signals *signals;
static char segment_path[64];

/*
 * Killed, the demo still removes its segment's name (unlink is safe in
 * a handler), so a later process given the same PID finds none.
 */
static void remove_segment_and_die(int sig)
{
	unlink(segment_path);
	signal(sig, SIG_DFL);
	raise(sig);
}
static _Thread_local struct shimtop_slot *my_slot;

enum { PHASE_NONE, PHASE_COMPUTE, PHASE_CHASE, PHASE_BRANCHY, PHASE_RECURSIVE };

/* For --signal: globals an unmodified program might keep. */
volatile uint64_t shimtop_demo_items;
volatile uint64_t shimtop_demo_phase;
uint64_t shimtop_demo_phase_items[PHASE_RECURSIVE + 1];
/* Wall time under each tag, tag write to tag write: what the observer's tag time measures. */
static uint64_t phase_wall_ns[PHASE_RECURSIVE + 1];

static inline void work_done(void)
{
	shimtop_count(my_slot, 0, 1);
	__atomic_fetch_add(&shimtop_demo_items, 1, __ATOMIC_RELAXED);
	shimtop_demo_phase_items[shimtop_demo_phase <= PHASE_RECURSIVE ?
				 shimtop_demo_phase : 0]++;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* What a phase's slice is timed in: wall time, or (--rounds) the thread's CPU time. */
static clockid_t slice_clock = CLOCK_MONOTONIC;
static unsigned rounds;

static uint64_t slice_now(void)
{
	struct timespec ts;

	clock_gettime(slice_clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * A phase keeps its own name in every profile: never inlined, nor cloned
 * under another (GCC's .constprop; clang makes no such clones and knows
 * no noclone).
 */
#ifdef __clang__
#define PHASE_FN __attribute__((noinline))
#else
#define PHASE_FN __attribute__((noinline, noclone))
#endif

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Sattolo's shuffle: one cycle through every entry, so no shortcut. */
static PHASE_FN void build_chase(void)
{
	uint64_t seed = 88172645463325252ull;

	chase = malloc(CHASE_ENTRIES * sizeof(*chase));
	branch_data = malloc(BRANCH_BYTES);
	if (!chase || !branch_data) {
		fputs("shimtop-demo: out of memory\n", stderr);
		exit(1);
	}
	for (size_t i = 0; i < CHASE_ENTRIES; i++)
		chase[i] = i;
	for (size_t i = CHASE_ENTRIES - 1; i > 0; i--) {
		size_t j = xorshift(&seed) % i, t = chase[i];

		chase[i] = chase[j];
		chase[j] = t;
	}
	for (size_t i = 0; i < BRANCH_BYTES; i++)
		branch_data[i] = (unsigned char)xorshift(&seed);
}

static PHASE_FN void phase_compute(uint64_t until)
{
	double a = 1.0001, b = 0.9999, c = 0.5;

	while (slice_now() < until) {
		for (int k = 0; k < 100; k++) {
			for (int i = 0; i < 1000; i++) {
				a = a * b + c;
				b = b * 0.99999 + 0.00001;
				c = c * a - b * 0.5;
			}
			work_done();
		}
	}
	sink += (uint64_t)(a + b + c);
}

static PHASE_FN void phase_pointer_chase(uint64_t until)
{
	static size_t at;
	size_t p = at;

	while (slice_now() < until) {
		for (int k = 0; k < 20; k++) {
			for (int i = 0; i < 100; i++)
				p = chase[p];
			work_done();
		}
	}
	at = p;
	sink += p;
}

static PHASE_FN void phase_branchy(uint64_t until)
{
	uint64_t hist[8] = { 0 }, x = 1;

	while (slice_now() < until) {
		for (size_t i = 0; i < BRANCH_BYTES; i++) {
			unsigned v = branch_data[i];

			if (v & 1)
				hist[v & 7]++;
			else if (v & 2)
				x = x * 31 + v;
			else
				x ^= v << 3;
			if ((i & 4095) == 4095)
				work_done();
		}
	}
	sink += x + hist[1] + hist[3];
}

static PHASE_FN uint64_t recurse_tree(int depth, uint64_t seed)
{
	uint64_t sum = seed;

	if (depth == 0) {
		for (int i = 0; i < 200; i++)
			sum = sum * 6364136223846793005ull + 1442695040888963407ull;
		work_done();
		return sum;
	}
	for (int child = 0; child < 3; child++)
		sum += recurse_tree(depth - 1, sum + (uint64_t)child);
	return sum;
}

static PHASE_FN void phase_recursive(uint64_t until)
{
	uint64_t s = 1;

	while (slice_now() < until)
		s += recurse_tree(8, s);
	sink += s;
}

/* Tags the thread with phase p, adding the time since the last tag to that one's. */
static void tag_phase(unsigned p, unsigned *in, uint64_t *since)
{
	uint64_t now = now_ns();

	__atomic_fetch_add(&phase_wall_ns[*in], now - *since, __ATOMIC_RELAXED);
	*in = p;
	*since = now;
	shimtop_tag(my_slot, p, 0);
	shimtop_demo_phase = p;
}

static void *run_phases(void *arg)
{
	uint64_t end = *(const uint64_t *)arg, since = now_ns();
	unsigned in = PHASE_NONE;

	if (!my_slot)
		my_slot = shimtop_signals_thread(signals);
	for (unsigned round = 0;; round++) {
		void (*phase[])(uint64_t) = { phase_compute, phase_pointer_chase,
					      phase_branchy, phase_recursive };

		for (size_t i = 0; i < sizeof(phase) / sizeof(phase[0]); i++) {
			uint64_t t = slice_now();

			if ((end && now_ns() >= end) || (rounds && round == rounds)) {
				tag_phase(PHASE_NONE, &in, &since);
				return NULL;
			}
			if (!phase_weight[i])
				continue;
			tag_phase(PHASE_COMPUTE + (unsigned)i, &in, &since);
			phase[i](t + SLICE_NS * phase_weight[i]);
		}
	}
}

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>

/* --tsc-steps: one step of the counter at most every d TSC cycles until end. */
static void step_by_tsc(uint64_t end, uint64_t d)
{
	uint64_t next = __rdtsc() + d;

	my_slot = shimtop_signals_thread(signals);
	shimtop_tag(my_slot, PHASE_COMPUTE, 0);
	while (now_ns() < end)
		for (int i = 0; i < 10000; i++) {
			uint64_t t = __rdtsc();

			if (t >= next) {
				shimtop_count(my_slot, 0, 1);
				shimtop_demo_items++;
				next = t + d;
			}
		}
	shimtop_tag(my_slot, PHASE_NONE, 0);
}
#else
static void step_by_tsc(uint64_t end, uint64_t d)
{
	(void)end;
	(void)d;
}
#endif

/* The phase tag and the work counter; without a segment the calls do nothing. */
static void publish_signals(void)
{
	static const char *const phase_name[] = {
		"none", "compute", "pointer_chase", "branchy", "recursive"
	};
	const char *counters[] = { "work items" };

	signals = shimtop_signals_open("phase", counters, 1);
	for (unsigned i = 0; signals && i <= PHASE_RECURSIVE; i++)
		shimtop_signals_name_tag(signals, i, phase_name[i]);
	if (signals) {
		atexit(shimtop_signals_close);
		snprintf(segment_path, sizeof(segment_path),
			 "/dev/shm/shimtop-%ld", (long)getpid());
		signal(SIGTERM, remove_segment_and_die);
		signal(SIGINT, remove_segment_and_die);
		signal(SIGHUP, remove_segment_and_die);
	}
}

/* The main thread's user cycles and instructions, one group: its leader, or -1 (no PMU). */
static int count_own(void)
{
	struct perf_event_attr a;
	int lead, member;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_CPU_CYCLES;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
			PERF_FORMAT_TOTAL_TIME_RUNNING;
	lead = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (lead < 0)
		return -1;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	member = (int)syscall(SYS_perf_event_open, &a, 0, -1, lead, PERF_FLAG_FD_CLOEXEC);
	if (member < 0) {
		close(lead);
		return -1;
	}
	return lead;		/* the member stays open with it until exit */
}

/* Appended to the work report: the counts, and the share of time the group ran. */
static void report_own_counts(int lead)
{
	uint64_t v[5];		/* nr, time enabled, time running, cycles, instructions */

	if (lead < 0 || read(lead, v, sizeof(v)) != (ssize_t)sizeof(v) || v[0] != 2) {
		fprintf(stderr, " user_cycles=- user_instructions=-");
		return;
	}
	fprintf(stderr, " user_cycles=%llu user_instructions=%llu group_running=%.4f",
		(unsigned long long)v[3], (unsigned long long)v[4],
		v[1] ? (double)v[2] / (double)v[1] : 0.0);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seconds", required_argument, NULL, 's' },
		{ "threads", required_argument, NULL, 't' },
		{ "thread-delay", required_argument, NULL, 'D' },
		{ "no-signals", no_argument, NULL, 'N' },
		{ "report-work", no_argument, NULL, 'R' },
		{ "ready-file", required_argument, NULL, 'r' },
		{ "weights", required_argument, NULL, 'w' },
		{ "rounds", required_argument, NULL, 'n' },
		{ "tsc-steps", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int threads = 0, c, publish = 1, report = 0, counter = -1;
	uint64_t tsc_steps = 0;
	const char *ready = NULL;
	double delay = 0.5;
	uint64_t end = 0, began;
	pthread_t *tid;

	while ((c = getopt_long(argc, argv, "s:t:D:NRr:w:n:T:h", opts, NULL)) != -1) {
		switch (c) {
		case 'T':
			tsc_steps = strtoull(optarg, NULL, 10);
#if !defined(__x86_64__) && !defined(__i386__)
			fputs("shimtop-demo: --tsc-steps counts TSC cycles: x86 only\n", stderr);
			return 2;
#endif
			if (tsc_steps < 100 || tsc_steps > 1000000000) {
				fputs("shimtop-demo: --tsc-steps takes TSC cycles, 100 to 1e9\n", stderr);
				return 2;
			}
			break;
		case 's':
			run_seconds = atof(optarg);
			break;
		case 't':
			threads = atoi(optarg);
			break;
		case 'D':
			delay = atof(optarg);
			break;
		case 'N':
			publish = 0;
			break;
		case 'R':
			report = 1;
			break;
		case 'r':
			ready = optarg;
			break;
		case 'n':
			rounds = (unsigned)atoi(optarg);
			if (rounds < 1 || rounds > 1000) {
				fputs("shimtop-demo: --rounds takes 1..1000\n", stderr);
				return 2;
			}
			slice_clock = CLOCK_THREAD_CPUTIME_ID;
			break;
		case 'w': {
			unsigned w[4];
			char end_char;

			if (sscanf(optarg, "%u,%u,%u,%u%c", &w[0], &w[1], &w[2], &w[3],
				   &end_char) != 4 || w[0] > 100 || w[1] > 100 || w[2] > 100 ||
			    w[3] > 100 || !(w[0] + w[1] + w[2] + w[3])) {
				fputs("shimtop-demo: --weights takes four numbers 0..100, not all 0, "
				      "e.g. 1,1,1,4\n", stderr);
				return 2;
			}
			memcpy(phase_weight, w, sizeof(w));
			break;
		}
		default:
			fputs("usage: shimtop-demo [--seconds N] [--threads N] "
			      "[--thread-delay S] [--no-signals] [--report-work] "
			      "[--ready-file FILE] [--weights C,P,B,R] [--rounds N] "
			      "[--tsc-steps D]\n",
			      stderr);
			return c == 'h' ? 0 : 2;
		}
	}
	if (threads < 0 || threads > 64 || run_seconds < 0 || delay < 0) {
		fputs("shimtop-demo: --threads takes 0..64, times are >= 0\n", stderr);
		return 2;
	}
	if (tsc_steps && (threads || rounds || !(run_seconds > 0))) {
		fputs("shimtop-demo: --tsc-steps goes with --seconds, and neither --threads nor "
		      "--rounds\n", stderr);
		return 2;
	}
	if (rounds && (threads || run_seconds > 0)) {
		fputs("shimtop-demo: --rounds goes with neither --threads nor --seconds\n", stderr);
		return 2;
	}
	if (report)
		counter = count_own();
	if (publish)
		publish_signals();
	if (!tsc_steps)
		build_chase();
	/* Tests attach once the set-up is done, however long it took. */
	if (ready) {
		FILE *f = fopen(ready, "w");

		if (f)
			fclose(f);
	}
	began = now_ns();
	if (run_seconds > 0)
		end = began + (uint64_t)(run_seconds * 1e9);
	tid = calloc((size_t)threads + 1, sizeof(*tid));
	if (threads) {
		uint64_t start = now_ns() + (uint64_t)(delay * 1e9);

		/* The main thread works until the others are due. */
		run_phases(&start);
		for (int i = 0; i < threads; i++)
			pthread_create(&tid[i], NULL, run_phases, &end);
	}
	if (tsc_steps)
		step_by_tsc(end, tsc_steps);
	else
		run_phases(&end);
	for (int i = 0; i < threads; i++)
		pthread_join(tid[i], NULL);
	free(tid);
	if (report) {
		struct timespec cpu;

		/* The scheduler's exact CPU time, what cpu-clock samples count. */
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
		fprintf(stderr, "shimtop-demo: work_items=%llu seconds=%.6f "
			"phase_items=%llu,%llu,%llu,%llu phase_wall=%.6f,%.6f,%.6f,%.6f "
			"cpu_seconds=%.6f",
			(unsigned long long)shimtop_demo_items,
			(double)(now_ns() - began) / 1e9,
			(unsigned long long)shimtop_demo_phase_items[PHASE_COMPUTE],
			(unsigned long long)shimtop_demo_phase_items[PHASE_CHASE],
			(unsigned long long)shimtop_demo_phase_items[PHASE_BRANCHY],
			(unsigned long long)shimtop_demo_phase_items[PHASE_RECURSIVE],
			(double)phase_wall_ns[PHASE_COMPUTE] / 1e9,
			(double)phase_wall_ns[PHASE_CHASE] / 1e9,
			(double)phase_wall_ns[PHASE_BRANCHY] / 1e9,
			(double)phase_wall_ns[PHASE_RECURSIVE] / 1e9,
			(double)cpu.tv_sec + (double)cpu.tv_nsec / 1e9);
		report_own_counts(counter);
		/* Where phase_pointer_chase's loads go: --check's range for IBS's addresses. */
		fprintf(stderr, " chase=0x%llx+%llu\n", (unsigned long long)(uintptr_t)chase,
			(unsigned long long)(chase ? CHASE_ENTRIES * sizeof(*chase) : 0));
	}
	return 0;
}
