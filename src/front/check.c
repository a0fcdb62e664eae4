/*
 * check.c - shimtop --check (check.h).  Each path runs this very shimtop
 * in batch on shimtop-demo for about a second of the workload's CPU time
 * (its phases' slices timed so: a busy machine shares no less of it to
 * each phase), on the installed demo beside it, or
 * SHIMTOP_CHECK_WORKLOAD) and reads its JSON report (an IBS recording
 * too); the independent figure is the workload's own: its CPU time, its
 * functions by name, main at the root of its calls, its own count of
 * cycles and instructions, the array its loads walk, a counter of known
 * bound; or measured here (the observer's floor).
 */
#include "front/check.h"
#include "kmod/uapi/shimtop_ibs.h"
#include "ring/record.h"
#include "ring/record_file.h"
#include "sampler/ibs.h"
#include "sampler/tsc.h"
#include "sampler/events.h"
#include "session/options.h"
#include "util.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <gelf.h>
#include <libelf.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

/* GCC says so by a macro, clang by a feature. */
#if defined(__SANITIZE_ADDRESS__)
#define SHIMTOP_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SHIMTOP_ASAN 1
#endif
#endif

#define CHECK_ROWS	12
#define CLOCK_HZ	4000.0		/* the default period, 250 us of CPU */

static const char *const phases[] = {
	"phase_compute", "phase_pointer_chase", "phase_branchy", "recurse_tree",
};

enum check_result check_sampling(double samples, double cpu_seconds, double hz, char *detail,
				 size_t len)
{
	double want = cpu_seconds * hz;

	if (!(cpu_seconds > 0)) {
		snprintf(detail, len, "the workload reported no CPU time: nothing to compare "
			 "%.0f samples with", samples);
		return CHECK_FAIL;
	}
	snprintf(detail, len, "%.0f samples for %.2f s of the workload's CPU at %.0f/s "
		 "(%.0f expected, +/-15%%)", samples, cpu_seconds, hz, want);
	return fabs(samples - want) <= 0.15 * want ? CHECK_PASS : CHECK_FAIL;
}

enum check_result check_chains(double share, const char *how, char *detail, size_t len)
{
	snprintf(detail, len, "%.1f%% of samples' chains reach main (%s; at least 90%%)",
		 100 * share, how);
	return share >= 0.9 ? CHECK_PASS : CHECK_FAIL;
}

enum check_result check_symbols(int found, int n, const char *missing, char *detail,
				size_t len)
{
	if (found == n)
		snprintf(detail, len, "the workload's %d functions named, each with its share", n);
	else
		snprintf(detail, len, "%d of the workload's %d functions named with >= 5%% "
			 "(missing: %s)", found, n, missing);
	return found == n ? CHECK_PASS : CHECK_FAIL;
}

enum check_result check_ipc(double ipc, double multiplexed, double own_ipc, double own_running,
			    char *detail, size_t len)
{
	double apart = own_ipc > 0 ? fabs(ipc - own_ipc) / own_ipc : 0;
	char how[120];

	if (!(own_ipc > 0)) {
		snprintf(detail, len, "the workload counted no cycles of its own (perf_event_open "
			 "refused it, or the PMU has no free counter): nothing to compare IPC %.3f "
			 "with", ipc);
		return CHECK_FAIL;
	}
	if (!(ipc > 0)) {
		snprintf(detail, len, "no sample carried usable counters (%.1f%% multiplexed): "
			 "no IPC to compare with the workload's own %.3f", 100 * multiplexed,
			 own_ipc);
		return CHECK_FAIL;
	}
	if (multiplexed > 0 || own_running < 0.999)
		snprintf(how, sizeof(how), "multiplexed: %.1f%% of samples (kept out of IPC), the "
			 "workload's group ran %.1f%% of its time", 100 * multiplexed,
			 100 * own_running);
	else
		snprintf(how, sizeof(how), "both groups scheduled throughout");
	snprintf(detail, len, "IPC %.3f from shimtop's group against %.3f counted by the workload "
		 "itself (%.1f%% apart, at most 2%%); %s", ipc, own_ipc, 100 * apart, how);
	return apart <= 0.02 ? CHECK_PASS : CHECK_FAIL;
}

void check_ibs_count(const struct ibs_sample *s, uint64_t lo, uint64_t hi,
		     struct check_ibs_loads *n)
{
	uint64_t at, lat;

	if (s->kind != IBS_OP)
		return;
	n->ops++;
	n->caps = s->caps;
	if (!ibs_get(s, IBS_F_LD_OP))
		return;
	n->loads++;
	if (ibs_get(s, IBS_F_DC_LIN_VALID)) {
		at = ibs_get(s, IBS_F_DC_LIN_AD);
		n->addressed++;
		n->in_array += at >= lo && at < hi;
	}
	if (ibs_get(s, IBS_F_DC_MISS)) {
		lat = ibs_get(s, IBS_F_DC_MISS_LAT);
		n->misses++;
		n->with_latency += lat > 0;
		n->latency_sum += lat;
	}
}

enum check_result check_ibs_loads(const struct check_ibs_loads *n, char *detail, size_t len)
{
	double in = n->addressed ? (double)n->in_array / (double)n->addressed : 0;
	double lat = n->misses ? (double)n->with_latency / (double)n->misses : 0;

	if (n->addressed < 20) {
		snprintf(detail, len, "family %u, caps 0x%x: %llu op samples, %llu loads, %llu with "
			 "a data address: too few to judge (at least 20)", n->family,
			 (unsigned)n->caps, (unsigned long long)n->ops,
			 (unsigned long long)n->loads, (unsigned long long)n->addressed);
		return CHECK_FAIL;
	}
	snprintf(detail, len, "family %u, caps 0x%x: %llu of %llu sampled loads' data addresses "
		 "in the loop's array (%.1f%%, at least 80%%); %llu of %llu misses with a latency "
		 "(%.1f%%, at least 90%%), mean %.0f cycles", n->family, (unsigned)n->caps,
		 (unsigned long long)n->in_array,
		 (unsigned long long)n->addressed, 100 * in,
		 (unsigned long long)n->with_latency, (unsigned long long)n->misses, 100 * lat,
		 n->with_latency ? (double)n->latency_sum / (double)n->with_latency : 0);
	return in >= 0.8 && n->misses >= 10 && lat >= 0.9 ? CHECK_PASS : CHECK_FAIL;
}

enum check_result check_observer_period(double fastest, double floor, char *detail, size_t len)
{
	if (!(floor > 0) || !(fastest > 0)) {
		snprintf(detail, len, "no %s to compare (fastest period %.0f, floor %.0f TSC cycles)",
			 floor > 0 ? "period" : "floor", fastest, floor);
		return CHECK_FAIL;
	}
	snprintf(detail, len, "fastest period %.0f TSC cycles against a floor of %.0f (two "
		 "rdtscp around a load of a line another core writes): %.2fx, at most 1.3x",
		 fastest, floor, fastest / floor);
	return fastest <= 1.3 * floor ? CHECK_PASS : CHECK_FAIL;
}

static double number(struct json_object *o, const char *key);

/* A histogram's samples in buckets reaching above bound, and those over its range. */
static double over_bound(struct json_object *hist, double bound)
{
	struct json_object *buckets;
	double n = number(hist, "over");

	if (!json_object_object_get_ex(hist, "buckets", &buckets))
		return n;
	for (size_t i = 0; i < json_object_array_length(buckets); i++) {
		struct json_object *b = json_object_array_get_idx(buckets, i);

		if (json_object_array_length(b) == 3 &&
		    json_object_get_double(json_object_array_get_idx(b, 1)) > bound)
			n += json_object_get_double(json_object_array_get_idx(b, 2));
	}
	return n;
}

enum check_result check_dte(struct json_object *observer, double d, double p, char *detail,
			    size_t len)
{
	struct json_object *counters, *c, *acc = NULL, *period = NULL;
	double tsc_hz = number(observer, "tsc_hz"), bound, n, over, allowed, taken, min;

	if (!json_object_object_get_ex(observer, "counters", &counters) ||
	    !(c = json_object_array_get_idx(counters, 0)) ||
	    !json_object_object_get_ex(c, "rate_samples", &acc) || !(tsc_hz > 0)) {
		snprintf(detail, len, "the observer gave no rates of the workload's counter");
		return CHECK_FAIL;
	}
	json_object_object_get_ex(observer, "period", &period);
	/* Rates are per second; the bound per TSC cycle (t-observer-dte.sh's reasoning). */
	bound = (1 / d + 4 / p) * tsc_hz;
	n = number(acc, "n");
	over = over_bound(acc, bound);
	allowed = 2e-5 * n > 2 ? 2e-5 * n : 2;
	taken = number(observer, "taken");
	min = number(period, "min");
	snprintf(detail, len, "DTE accepted %.0f of %.0f samples (%.1f%%); %.0f accepted rates "
		 "over the counter's bound (at most %.0f); period %.0f TSC cycles (median) for "
		 "%.0f asked, none under it: %s", n, taken, taken > 0 ? 100 * n / taken : 0, over,
		 allowed, number(period, "p50"), p, min >= p ? "yes" : "no");
	return n >= 1000 && over <= allowed && min >= p ? CHECK_PASS : CHECK_FAIL;
}

enum check_result check_rdpmc(double counted, double own, char *detail, size_t len)
{
	double apart = own > 0 ? fabs(counted - own) / own : 1;

	if (!(own > 0) || !(counted > 0)) {
		snprintf(detail, len, "nothing to compare: %.0f instructions read by rdpmc, %.0f "
			 "counted by the workload", counted, own);
		return CHECK_FAIL;
	}
	snprintf(detail, len, "%.4g instructions read by rdpmc on the target's core against "
		 "%.4g the workload counted itself (%.1f%% apart, at most 10%%)", counted, own,
		 100 * apart);
	return apart <= 0.1 ? CHECK_PASS : CHECK_FAIL;
}

/*
 * One shimtop run on the workload: its JSON report, and the workload's
 * own figures (its CPU seconds; user cycles and instructions, 0 if not
 * counted, and the share of time its group ran).
 */
struct run {
	struct json_object *report;
	double cpu_seconds;
	double own_cycles, own_instructions, own_running;
	uint64_t array, array_bytes;	/* where its pointer chase loads */
	char error[200];		/* why it gave no report */
};

/* key=VALUE in the workload's report line: the number, or 0. */
static double reported(const char *text, const char *key)
{
	const char *at = text ? strstr(text, key) : NULL;

	return at ? strtod(at + strlen(key), NULL) : 0;
}

static void first_line(const char *path, char *buf, size_t len)
{
	char *text = st_read_file(path, NULL);

	snprintf(buf, len, "%.*s", text ? (int)strcspn(text, "\n") : 0, text ? text : "");
	free(text);
}

/* run_on_workload's: perf's ibs_op even where shimtop's module is loaded. */
#define RUN_NO_KMOD	0x1u

static void run_on_workload(const char *self, const char *workload, const char *const *opts,
			    const char *const *wargs, unsigned flags, struct run *r)
{
	char out[PATH_MAX], err[PATH_MAX];
	const char *tmp = getenv("TMPDIR");
	const char *argv[28];
	int n = 0, fo, fe, status = 0;
	const char *at;
	char *text;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	snprintf(out, sizeof(out), "%s/shimtop-check-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	snprintf(err, sizeof(err), "%s", out);
	fo = mkstemp(out);
	fe = fo >= 0 ? mkstemp(err) : -1;
	if (fo < 0 || fe < 0) {
		snprintf(r->error, sizeof(r->error), "cannot make a file in %s: %s",
			 tmp && *tmp ? tmp : "/tmp", strerror(errno));
		if (fo >= 0) {
			close(fo);
			unlink(out);
		}
		return;
	}
	argv[n++] = self;
	argv[n++] = "--batch";
	argv[n++] = "--format";
	argv[n++] = "json";
	for (size_t i = 0; opts[i] && n < 16; i++)
		argv[n++] = opts[i];
	argv[n++] = "--";
	argv[n++] = workload;
	argv[n++] = "--report-work";
	for (size_t i = 0; wargs && wargs[i] && n < 23; i++)
		argv[n++] = wargs[i];
	argv[n] = NULL;
	pid = fork();
	if (pid == 0) {
		int in = open("/dev/null", O_RDONLY);

		dup2(in, STDIN_FILENO);
		dup2(fo, STDOUT_FILENO);
		dup2(fe, STDERR_FILENO);
		if (flags & RUN_NO_KMOD)
			setenv("SHIMTOP_NO_KMOD", "1", 1);
		execv(self, (char *const *)argv);
		_exit(127);
	}
	close(fo);
	close(fe);
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		char line[160];

		first_line(err, line, sizeof(line));
		snprintf(r->error, sizeof(r->error), "%s", line[0] ? line : "shimtop failed");
	} else if (!(r->report = json_object_from_file(out))) {
		snprintf(r->error, sizeof(r->error), "its report could not be read");
	}
	text = st_read_file(err, NULL);
	r->cpu_seconds = reported(text, "cpu_seconds=");
	r->own_cycles = reported(text, "user_cycles=");
	r->own_instructions = reported(text, "user_instructions=");
	r->own_running = reported(text, "group_running=");
	if (text && (at = strstr(text, " chase=0x"))) {
		char *end;

		r->array = strtoull(at + strlen(" chase=0x"), &end, 16);
		r->array_bytes = *end == '+' ? strtoull(end + 1, NULL, 10) : 0;
	}
	free(text);
	unlink(out);
	unlink(err);
}

bool check_ibs_recording(const char *path, uint64_t lo, uint64_t hi, struct check_ibs_loads *n,
			 char *why, size_t len)
{
	struct st_file_header h;
	struct record_reader *rd = record_reader_open(path, &h);
	const void *rec;
	long k;

	if (!rd) {
		snprintf(why, len, "its recording could not be read");
		return false;
	}
	while ((k = record_reader_next(rd, &rec)) > 0) {
		const struct st_ibs *b = rec;
		struct ibs_sample s;
		char err[160];

		if (b->h.type != ST_REC_IBS || b->cpumode != ST_MODE_USER ||
		    ibs_from_record(b, &s, err, sizeof(err)) < 0)
			continue;
		n->family = b->family;
		check_ibs_count(&s, lo, hi, n);
	}
	if (k < 0)
		snprintf(why, len, "its recording is cut short: %s", record_reader_error(rd));
	record_reader_close(rd);
	return k == 0;
}

static double number(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_double(v) : 0;
}

/* The share of the report's samples whose call path reaches main. */
static double share_through_main(struct json_object *report)
{
	struct json_object *tree, *nodes;
	double through = 0, samples = number(report, "samples");

	if (!json_object_object_get_ex(report, "tree", &tree) ||
	    !json_object_object_get_ex(tree, "nodes", &nodes))
		return 0;
	for (size_t i = 0; i < json_object_array_length(nodes); i++) {
		struct json_object *n = json_object_array_get_idx(nodes, i), *name;

		if (json_object_object_get_ex(n, "name", &name) &&
		    !strcmp(json_object_get_string(name), "main"))
			through += number(n, "total");
	}
	return samples > 0 ? through / samples : 0;
}

/* How many of the workload's phases have >= 5% of the samples; the others named in missing. */
static int phases_found(struct json_object *report, char *missing, size_t len)
{
	struct json_object *rows;
	double samples = number(report, "samples");
	int found = 0;

	missing[0] = '\0';
	if (!json_object_object_get_ex(report, "rows", &rows))
		rows = NULL;
	for (size_t p = 0; p < sizeof(phases) / sizeof(phases[0]); p++) {
		bool here = false;

		for (size_t i = 0; rows && i < json_object_array_length(rows) && !here; i++) {
			struct json_object *r = json_object_array_get_idx(rows, i), *sym;

			here = json_object_object_get_ex(r, "symbol", &sym) &&
			       !strcmp(json_object_get_string(sym), phases[p]) &&
			       number(r, "samples") >= 0.05 * samples;
		}
		if (here)
			found++;
		else
			snprintf(missing + strlen(missing), len - strlen(missing), "%s%s",
				 missing[0] ? ", " : "", phases[p]);
	}
	return found;
}

static struct check_row *row(struct check_row *rows, size_t *n, const char *name)
{
	struct check_row *r = &rows[(*n)++];

	memset(r, 0, sizeof(*r));
	r->name = name;
	return r;
}

static void skip(struct check_row *r, const char *why)
{
	r->result = CHECK_SKIP;
	snprintf(r->detail, sizeof(r->detail), "%s", why);
}

/* A run that gave no report fails its row with why. */
static bool ran(struct check_row *r, const struct run *run)
{
	if (run->report)
		return true;
	r->result = CHECK_FAIL;
	snprintf(r->detail, sizeof(r->detail), "no report: %s", run->error);
	return false;
}

/* ---- the machine, as a bug report needs it ---- */

struct machine {
	char cpu[128], vendor[32], family[16], kernel[128], paranoid[16], pmu[64];
	bool hypervisor;
};

static void cpuinfo_field(const char *text, const char *key, char *buf, size_t len)
{
	const char *at = text ? strstr(text, key) : NULL, *colon = at ? strchr(at, ':') : NULL;

	buf[0] = '\0';
	if (colon) {
		colon += 1 + strspn(colon + 1, " \t");
		snprintf(buf, len, "%.*s", (int)strcspn(colon, "\n"), colon);
	}
}

static void machine_of(struct machine *m)
{
	char *info = st_read_file("/proc/cpuinfo", NULL), *p;
	char flags[4096];
	struct utsname u;

	memset(m, 0, sizeof(*m));
	cpuinfo_field(info, "model name", m->cpu, sizeof(m->cpu));
	cpuinfo_field(info, "vendor_id", m->vendor, sizeof(m->vendor));
	cpuinfo_field(info, "cpu family", m->family, sizeof(m->family));
	cpuinfo_field(info, "\nflags", flags, sizeof(flags));
	m->hypervisor = strstr(flags, " hypervisor") != NULL;
	free(info);
	if (!uname(&u))
		snprintf(m->kernel, sizeof(m->kernel), "%s", u.release);
	p = st_read_file("/proc/sys/kernel/perf_event_paranoid", NULL);
	snprintf(m->paranoid, sizeof(m->paranoid), "%.*s", p ? (int)strcspn(p, "\n") : 1,
		 p ? p : "?");
	free(p);
	p = st_read_file("/sys/bus/event_source/devices/cpu/caps/pmu_name", NULL);
	if (events_have_hardware_pmu())
		snprintf(m->pmu, sizeof(m->pmu), "%.*s", p ? (int)strcspn(p, "\n") : 3,
			 p ? p : "cpu");
	else
		snprintf(m->pmu, sizeof(m->pmu), "none");
	free(p);
}

/* ---- the checks ---- */

/* Whether a report's samples came through shimtop's IBS module. */
static bool took_module(struct json_object *report)
{
	struct json_object *source, *events;

	return json_object_object_get_ex(report, "source", &source) &&
	       json_object_object_get_ex(source, "events", &events) &&
	       strstr(json_object_get_string(events), "shimtop module");
}

/*
 * IBS op on the pointer chase alone (weights 0,1,0,0): recorded, and its
 * load samples' decoded data addresses held against the array the
 * workload says it walks.  Through perf's ibs_op PMU, or through
 * shimtop's module (its device opened, its ring mapped).
 */
static void check_ibs_op(const char *self, const char *workload, bool module,
			 struct check_row *r)
{
	const char *tmp = getenv("TMPDIR");
	char dir[PATH_MAX], rec[PATH_MAX + 16], why[200];
	static const char *const chase_alone[] = { "--weights", "0,1,0,0", "--rounds", "10", NULL };
	const char *opts[] = { "--ibs", "-o", rec, NULL };
	struct check_ibs_loads c;
	struct run run;

	snprintf(dir, sizeof(dir), "%s/shimtop-check-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		r->result = CHECK_FAIL;
		snprintf(r->detail, sizeof(r->detail), "cannot make a directory in %s: %s",
			 tmp && *tmp ? tmp : "/tmp", strerror(errno));
		return;
	}
	snprintf(rec, sizeof(rec), "%s/ibs.rec", dir);
	run_on_workload(self, workload, opts, chase_alone, module ? 0 : RUN_NO_KMOD, &run);
	memset(&c, 0, sizeof(c));
	if (!ran(r, &run)) {
		/* said by ran() */
	} else if (module != took_module(run.report)) {
		r->result = CHECK_FAIL;
		snprintf(r->detail, sizeof(r->detail), "--ibs went %s", module
			 ? "through perf's ibs_op, not the module, though its device is there"
			 : "through the module though SHIMTOP_NO_KMOD asked for perf's ibs_op");
	} else if (!run.array_bytes) {
		r->result = CHECK_FAIL;
		snprintf(r->detail, sizeof(r->detail), "the workload did not say where its array "
			 "lies (an older shimtop-demo?)");
	} else if (!check_ibs_recording(rec, run.array, run.array + run.array_bytes, &c, why,
					sizeof(why))) {
		r->result = CHECK_FAIL;
		snprintf(r->detail, sizeof(r->detail), "%s", why);
	} else {
		r->result = check_ibs_loads(&c, r->detail, sizeof(r->detail));
	}
	json_object_put(run.report);
	unlink(rec);
	rmdir(dir);
}

#define FLOOR_N		100000
/* A load counts while the writer wrote within this many TSC cycles (8 of its steps). */
#define FLOOR_FRESH	8000

static atomic_bool floor_stop;
/* The line the floor loads: its count, and when the writer last wrote it. */
static struct {
	volatile uint64_t count, written_at;
} __attribute__((aligned(64))) floor_line;

static bool pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
}

/*
 * The target's part in the floor: the line written as the workload
 * writes its counter (--tsc-steps 1000: at most once per 1,000 TSC
 * cycles), so that it moves between the cores as often as the observed one.
 */
static void *floor_writer(void *arg)
{
	uint64_t next = 0;

	if (!pin_to(*(int *)arg))
		return NULL;
	while (!atomic_load_explicit(&floor_stop, memory_order_relaxed)) {
		uint64_t t = tsc_end();

		if (t >= next) {
			floor_line.written_at = t;
			floor_line.count = floor_line.count + 1;
			next = t + 1000;
		}
	}
	return NULL;
}

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The observer's floor (SHIM, ISCA 2015, §3): the median TSC cycles from
 * one rdtscp-bracketed load of a line to the next, on cpu, while a thread
 * on other writes it at the workload's pace.  Loads while the writer is
 * off its CPU (a busy machine) are not counted: a line nobody writes
 * stays in the cache, and the floor read 84 cycles for 105.  0 when
 * either CPU cannot be had, or the writer hardly ran.
 */
static uint64_t observer_floor(int cpu, int other)
{
	uint64_t *d = st_xcalloc(FLOOR_N, sizeof(*d)), prev, sink = 0, floor = 0;
	size_t kept = 0;
	cpu_set_t was;
	pthread_t w;

	if (pthread_getaffinity_np(pthread_self(), sizeof(was), &was) != 0 || !pin_to(cpu)) {
		free(d);
		return 0;
	}
	atomic_store(&floor_stop, false);
	if (pthread_create(&w, NULL, floor_writer, &other) == 0) {
		prev = tsc_start();
		for (size_t i = 0; i < 20 * FLOOR_N && kept < FLOOR_N; i++) {
			uint64_t t = tsc_start(), at;

			sink += floor_line.count;
			at = floor_line.written_at;
			(void)tsc_end();
			if (at + FLOOR_FRESH >= t)
				d[kept++] = t - prev;
			prev = t;
		}
		atomic_store(&floor_stop, true);
		pthread_join(w, NULL);
		qsort(d, kept, sizeof(*d), by_value);
		floor = kept >= FLOOR_N / 10 ? d[kept / 2] + (sink & 0) : 0;
	}
	pthread_setaffinity_np(pthread_self(), sizeof(was), &was);
	free(d);
	return floor;
}

/* A CPU this process may run on other than cpu, or -1. */
static int other_cpu(int cpu)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return -1;
	for (int i = 0; i < CPU_SETSIZE; i++)
		if (i != cpu && CPU_ISSET(i, &set))
			return i;
	return -1;
}

/*
 * The observer on the workload's counter stepped every 1,000 TSC cycles
 * (shimtop-demo --tsc-steps): as fast as it can, against the floor; at
 * 10,000 cycles, DTE's accepted rates against the counter's bound; and,
 * where it reads the core's counters, their instructions against the
 * workload's own count.
 */
static void check_observer(const char *self, const char *workload, bool pmu,
			   struct check_row *rows, size_t *n)
{
	static const char *const fastest[] = { "--observe", "--observer-period", "0",
					       "--pin-target", NULL };
	static const char *const throttled[] = { "--observe", "--observer-period", "10000",
						 "--pin-target", NULL };
	static const char *const steps[] = { "--tsc-steps", "1000", "--seconds", "1", NULL };
	struct check_row *period = row(rows, n, "observer period"), *dte = row(rows, n, "DTE");
	struct check_row *hw = row(rows, n, "rdpmc observer");
	struct json_object *o = NULL, *h = NULL;
	cpu_set_t allowed;
	struct run run;
	int cpu, other;

	if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0 || CPU_COUNT(&allowed) < 2) {
		skip(period, "the observer needs a CPU of its own beside the target's: one CPU here");
		skip(dte, "the observer needs two CPUs");
		skip(hw, "the observer needs two CPUs");
		return;
	}
	run_on_workload(self, workload, fastest, steps, 0, &run);
	if (ran(period, &run) && json_object_object_get_ex(run.report, "observer", &o)) {
		cpu = (int)number(o, "cpu");
		other = other_cpu(cpu);
		json_object_object_get_ex(o, "period", &h);
		period->result = check_observer_period(number(h, "p50"),
						       (double)observer_floor(cpu, other),
						       period->detail, sizeof(period->detail));
	} else if (run.report) {
		period->result = CHECK_FAIL;
		snprintf(period->detail, sizeof(period->detail), "the report has no observer");
	}
	json_object_put(run.report);
#ifdef SHIMTOP_ASAN
	/* Each of the loop's loads checked against its shadow: the period is a release build's question. */
	skip(period, "this shimtop is built with AddressSanitizer, which slows the observer's loop "
	     "(a release build's period is the one to check)");
#endif

	run_on_workload(self, workload, throttled, steps, 0, &run);
	o = NULL;
	if (ran(dte, &run) && json_object_object_get_ex(run.report, "observer", &o)) {
		dte->result = check_dte(o, 1000, 10000, dte->detail, sizeof(dte->detail));
	} else if (run.report) {
		dte->result = CHECK_FAIL;
		snprintf(dte->detail, sizeof(dte->detail), "the report has no observer");
	}
	if (!pmu) {
		skip(hw, "no hardware PMU: no counter to read in user space");
	} else if (access("/sys/bus/event_source/devices/cpu/rdpmc", R_OK)) {
		skip(hw, "rdpmc's setting is not readable (/sys/bus/event_source/devices/cpu/rdpmc)");
	} else if (!o || !json_object_object_get_ex(o, "hardware", &h)) {
		skip(hw, "the observer read no counters (rdpmc not allowed: echo 1 > "
		     "/sys/bus/event_source/devices/cpu/rdpmc, or perf_event_paranoid)");
	} else {
		/* The target's: the core's less the observer's own (obs_model's app). */
		hw->result = check_rdpmc(number(h, "instructions"), run.own_instructions,
					 hw->detail, sizeof(hw->detail));
	}
	json_object_put(run.report);
}

bool check_module_vermagic(const char *path, char *out, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool found = false;
	Elf_Scn *scn = NULL;
	size_t shstr;
	Elf *e;

	out[0] = '\0';
	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && elf_kind(e) == ELF_K_ELF && elf_getshdrstrndx(e, &shstr) == 0)
		while (!found && (scn = elf_nextscn(e, scn))) {
			GElf_Shdr sh;
			const char *name;
			Elf_Data *d;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
			    !(name = elf_strptr(e, shstr, sh.sh_name)) || strcmp(name, ".modinfo") ||
			    !(d = elf_getdata(scn, NULL)) || !d->d_buf)
				continue;
			/* NUL-separated key=value strings; the last one may lack its NUL. */
			for (size_t at = 0; at < d->d_size && !found;) {
				const char *str = (const char *)d->d_buf + at;
				size_t n = strnlen(str, d->d_size - at);

				if (n > 9 && !strncmp(str, "vermagic=", 9)) {
					snprintf(out, len, "%.*s", (int)strcspn(str + 9, " "), str + 9);
					found = out[0] != '\0';
				}
				at += n + 1;
			}
		}
	if (e)
		elf_end(e);
	close(fd);
	return found;
}

/*
 * Where a shimtop_ibs.ko was built (beside this shimtop's source, or
 * installed for the running kernel), and whether for this kernel: a
 * sentence for the module's row when it is not loaded.
 */
static void module_built(const char *self, char *out, size_t len)
{
	static const char *const installed[] = { "extra", "updates" };
	char path[PATH_MAX], dir[PATH_MAX], magic[128];
	struct utsname u;
	const char *slash = strrchr(self, '/');
	size_t k = 0;
	char *paths[4];

	snprintf(out, len, "shimtop_ibs is not loaded, and no build of it was found: "
		 "src/kmod/README.md builds and loads it (as root)");
	if (uname(&u) < 0)
		return;
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - self) : 1, slash ? self : ".");
	for (size_t i = 0; i < 2; i++)
		if (snprintf(path, sizeof(path), "%s/%ssrc/kmod/shimtop_ibs.ko", dir,
			     i ? "../" : "") < (int)sizeof(path))
			paths[k++] = st_xstrdup(path);
	for (size_t i = 0; i < 2; i++)
		if (snprintf(path, sizeof(path), "/lib/modules/%s/%s/shimtop_ibs.ko", u.release,
			     installed[i]) < (int)sizeof(path))
			paths[k++] = st_xstrdup(path);
	/* The first one found speaks. */
	for (size_t i = 0; i < k; i++) {
		if (!check_module_vermagic(paths[i], magic, sizeof(magic)))
			continue;
		if (!strcmp(magic, u.release))
			snprintf(out, len, "shimtop_ibs is not loaded; built for this kernel at "
				 "%.160s: load it as root (src/kmod/load.sh FILE)", paths[i]);
		else
			snprintf(out, len, "shimtop_ibs is not loaded; %.160s was built for kernel "
				 "%.40s, this is %.40s: build it again", paths[i], magic, u.release);
		break;
	}
	for (size_t i = 0; i < k; i++)
		free(paths[i]);
}

static size_t run_checks(const char *self, const char *workload, struct check_row *rows)
{
	static const char *const clock[] = { "-e", "cpu-clock", "--call-graph", "fp", NULL };
	static const char *const dwarf[] = { "-e", "cpu-clock", "--call-graph", "dwarf", NULL };
	static const char *const cycles[] = { "-e", "cycles", "-c", "1000000", NULL };
	/* Two rounds of the phases, each slice 100 ms of the workload's CPU time. */
	static const char *const rounds[] = { "--rounds", "2", NULL };
	/* User space alone on both sides: the workload counts its own that way. */
	static const char *const group[] = { "-e", "{cycles:u,instructions:u}", "-c", "1000000",
					     NULL };
	bool pmu = events_have_hardware_pmu();
	struct check_row *r;
	struct run run;
	char missing[160];
	size_t n = 0;

	run_on_workload(self, workload, clock, rounds, 0, &run);
	r = row(rows, &n, "sampling, cpu-clock");
	if (ran(r, &run))
		r->result = check_sampling(number(run.report, "samples"), run.cpu_seconds, CLOCK_HZ,
					   r->detail, sizeof(r->detail));
	r = row(rows, &n, "symbols");
	if (ran(r, &run)) {
		int found = phases_found(run.report, missing, sizeof(missing));

		r->result = check_symbols(found, (int)(sizeof(phases) / sizeof(phases[0])),
					  missing, r->detail, sizeof(r->detail));
	}
	r = row(rows, &n, "call chains, frame pointers");
	if (ran(r, &run))
		r->result = check_chains(share_through_main(run.report), "--call-graph fp",
					 r->detail, sizeof(r->detail));
	json_object_put(run.report);

	run_on_workload(self, workload, dwarf, rounds, 0, &run);
	r = row(rows, &n, "call chains, unwound");
	if (ran(r, &run))
		r->result = check_chains(share_through_main(run.report),
					 "--call-graph dwarf, by the CFI", r->detail,
					 sizeof(r->detail));
	json_object_put(run.report);

	r = row(rows, &n, "sampling, cycles");
	if (!pmu) {
		skip(r, "no hardware PMU (a VM without a virtual PMU, or none exposed): run on "
		     "bare metal, or give the VM its PMU (KVM: -cpu host,pmu=on)");
	} else {
		run_on_workload(self, workload, cycles, rounds, 0, &run);
		if (ran(r, &run)) {
			int found = phases_found(run.report, missing, sizeof(missing));

			r->result = check_symbols(found, (int)(sizeof(phases) / sizeof(phases[0])),
						  missing, r->detail, sizeof(r->detail));
		}
		json_object_put(run.report);
	}
	r = row(rows, &n, "IPC, counter group");
	if (!pmu) {
		skip(r, "no hardware PMU: cycles and instructions are not counted");
	} else {
		run_on_workload(self, workload, group, rounds, 0, &run);
		if (ran(r, &run)) {
			struct json_object *c = NULL;

			json_object_object_get_ex(run.report, "counters", &c);
			r->result = check_ipc(number(c, "ipc"),
					      number(run.report, "samples") > 0
					      ? number(c, "multiplexed_samples") /
						number(run.report, "samples") : 0,
					      run.own_cycles > 0
					      ? run.own_instructions / run.own_cycles : 0,
					      run.own_running, r->detail, sizeof(r->detail));
		}
		json_object_put(run.report);
	}
	check_observer(self, workload, pmu, rows, &n);
	r = row(rows, &n, "IBS op");
	if (access("/sys/bus/event_source/devices/ibs_op", F_OK))
		skip(r, "no ibs_op PMU: not an AMD CPU with IBS, or a VM that hides it");
	else
		check_ibs_op(self, workload, false, r);
	r = row(rows, &n, "IBS kernel module");
	if (access("/sys/module/shimtop_ibs", F_OK)) {
		module_built(self, r->detail, sizeof(r->detail));
		r->result = CHECK_SKIP;
	} else if (access(SHIMTOP_IBS_DEVICE, F_OK)) {
		r->result = CHECK_FAIL;
		snprintf(r->detail, sizeof(r->detail), "shimtop_ibs is loaded but %s is not there "
			 "(a selftest build, or udev removed it)", SHIMTOP_IBS_DEVICE);
	} else {
		check_ibs_op(self, workload, true, r);
	}
	return n;
}

static const char *result_name(enum check_result r)
{
	return r == CHECK_PASS ? "pass" : r == CHECK_SKIP ? "skip" : "fail";
}

static void print_json(const struct machine *m, const struct check_row *rows, size_t n,
		       const int *count)
{
	struct json_object *o = json_object_new_object(), *mj = json_object_new_object();
	struct json_object *checks = json_object_new_array();

	json_object_object_add(mj, "cpu", json_object_new_string(m->cpu));
	json_object_object_add(mj, "vendor", json_object_new_string(m->vendor));
	json_object_object_add(mj, "family", json_object_new_string(m->family));
	json_object_object_add(mj, "kernel", json_object_new_string(m->kernel));
	json_object_object_add(mj, "perf_event_paranoid", json_object_new_string(m->paranoid));
	json_object_object_add(mj, "pmu", json_object_new_string(m->pmu));
	json_object_object_add(mj, "hypervisor", json_object_new_boolean(m->hypervisor));
	json_object_object_add(o, "shimtop", json_object_new_string(PACKAGE_VERSION));
	json_object_object_add(o, "machine", mj);
	for (size_t i = 0; i < n; i++) {
		struct json_object *c = json_object_new_object();

		json_object_object_add(c, "name", json_object_new_string(rows[i].name));
		json_object_object_add(c, "result",
				       json_object_new_string(result_name(rows[i].result)));
		json_object_object_add(c, "detail", json_object_new_string(rows[i].detail));
		json_object_array_add(checks, c);
	}
	json_object_object_add(o, "checks", checks);
	json_object_object_add(o, "passed", json_object_new_int(count[CHECK_PASS]));
	json_object_object_add(o, "skipped", json_object_new_int(count[CHECK_SKIP]));
	json_object_object_add(o, "failed", json_object_new_int(count[CHECK_FAIL]));
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
					    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

int check_run(const struct st_options *o, const char *self)
{
	struct check_row rows[CHECK_ROWS];
	char workload[PATH_MAX];
	const char *given = getenv("SHIMTOP_CHECK_WORKLOAD");
	struct machine m;
	int count[3] = { 0 };
	size_t n;

	if (given && *given) {
		snprintf(workload, sizeof(workload), "%s", given);
	} else {
		const char *slash = strrchr(self, '/');

		snprintf(workload, sizeof(workload), "%.*sshimtop-demo",
			 slash ? (int)(slash - self + 1) : 0, self);
	}
	if (access(workload, X_OK)) {
		st_error("--check runs its workload, %s, and cannot: %s; install shimtop-demo "
			 "beside shimtop", workload, strerror(errno));
		return 2;
	}
	machine_of(&m);
	n = run_checks(self, workload, rows);
	for (size_t i = 0; i < n; i++)
		count[rows[i].result]++;
	if (o->format == ST_FORMAT_JSON) {
		print_json(&m, rows, n, count);
	} else {
		printf("shimtop %s --check on %s (%s family %s), kernel %s, perf_event_paranoid %s, "
		       "PMU %s%s\n", PACKAGE_VERSION, m.cpu[0] ? m.cpu : "an unknown CPU",
		       m.vendor, m.family, m.kernel, m.paranoid, m.pmu,
		       m.hypervisor ? ", under a hypervisor" : "");
		for (size_t i = 0; i < n; i++)
			printf("%-4s  %-28s %s\n", rows[i].result == CHECK_PASS ? "PASS"
			       : rows[i].result == CHECK_SKIP ? "SKIP" : "FAIL", rows[i].name,
			       rows[i].detail);
		printf("%d passed, %d skipped, %d failed%s\n", count[CHECK_PASS], count[CHECK_SKIP],
		       count[CHECK_FAIL], count[CHECK_FAIL] ? "" : " (skips are not failures)");
	}
	return count[CHECK_FAIL] ? 1 : 0;
}
