/* options.c - command-line parsing. */
#include "session/options.h"
#include "sampler/events.h"
#include "output_file.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
"shimtop - a live performance microscope for Linux: where a program's time\n"
"goes, sampled by perf events and by an observer thread reading counters\n"
"and the program's own signals every few hundred cycles.\n"
"\n"
"usage: shimtop [options] [-a | -p PID,... | -t TID,... | -u USER | --demo\n"
"                          | -i FILE | -- COMMAND [ARGS...]]\n"
"\n"
"With no target, shimtop samples the whole system, as perf top does.\n"
"\n"
"target:\n"
"  -a, --all-cpus         every process on every CPU (the default)\n"
"  -C, --cpu CPUS         only these CPUs (\"0-3,8\"); alone it implies -a\n"
"  -p, --pid PID[,PID...] every thread of running processes\n"
"  -t, --tid TID[,TID...] only these threads (with -p: threads of it)\n"
"  -u, --uid USER         every process a user (name or uid) runs now\n"
"      --demo             launch the bundled demo workload (shimtop-demo)\n"
"  -- COMMAND [ARGS]      launch COMMAND and sample from its first instruction\n"
"      --target-output FILE  a launched command's output (stdout and stderr) to\n"
"                         FILE; '-' the terminal (default: standard error in\n"
"                         batch, standard output being the report's, a new\n"
"                         file in $TMPDIR under the UI, named in its footer)\n"
"sampling:\n"
"  -e, --event EVENTS     perf's syntax: -e cpu-clock; -e '{cycles,instructions}'\n"
"                         a group (the first samples, the rest are counted);\n"
"                         -e a,b up to 8 events each sampled (4000 Hz unless\n"
"                         -F/-c; key e shows each one's shares; with -i, -e\n"
"                         NAME shows that recorded event); default\n"
"                         {cycles,instructions}, or cpu-clock without a PMU\n"
"      --list-events      the event names this machine offers, and exit\n"
"      --check            run each sampling path on this machine against an\n"
"                         independent figure: pass, skip (why) or fail, and\n"
"                         exit 1 if any failed (--json for a bug report)\n"
"      --off-cpu          also where threads wait: each switch off a CPU\n"
"                         (sched:sched_switch) with its chain, weighed by the\n"
"                         time until the thread ran again (event offcpu-time;\n"
"                         key e shows it); needs root or CAP_PERFMON; with\n"
"                         -i perf.data: its sched_switch samples as waits\n"
"      --ibs[=op|fetch]   sample with AMD IBS (ops by default) instead of\n"
"                         perf events: data cache misses, latencies, data\n"
"                         sources and pages; says why where IBS is missing\n"
"      --ibs-l3miss       IBS: only ops that missed L3 (Zen 4 and later)\n"
"      --ibs-ldlat CYCLES IBS: only loads slower than CYCLES, 128-2048 (Zen 5)\n"
"      --ibs-aggregate    IBS through shimtop's module: ops counted per thread\n"
"                         and RIP in the kernel (DCPI), far less traffic, no\n"
"                         per-op figures\n"
"      --ibs-dump FILE    print every IBS sample of a recording, decoded, and exit\n"
"  -F, --freq HZ          sample at HZ per thread (kernel-adjusted period)\n"
"  -c, --period N         sample every N events (ns for clocks)\n"
"      --no-randomize     keep the period fixed (default varies it +/-3%%)\n"
"  -g, --call-graph MODE  call chains for the call tree: auto[,SIZE] (the\n"
"                         default: frame pointers where the chain reaches\n"
"                         main, SIZE bytes of stack, default 8192 growing\n"
"                         to 32 KiB where walks need it, unwound with the\n"
"                         CFI where it stops early), fp (frame\n"
"                         pointers alone, as perf -g; -g alone), dwarf\n"
"                         [,SIZE] (every sample unwound), callerchain\n"
"                         [,SIZE] (the tree rebuilt from stack depth seen\n"
"                         in SIZE bytes, default 2048) or none\n"
"                         (--no-callchain)\n"
"output:\n"
"  -b, --batch            no UI: print the table at the end (or every -d s)\n"
"      --stdio            the same as --batch\n"
"      --duration S       stop after S seconds (default: when the target ends)\n"
"  -d, --delay S          batch print interval / UI refresh (default 1)\n"
"  -n, --iterations N     batch: print N tables, -d apart, then stop\n"
"  -E, --entries N        print the top N rows (default all)\n"
"      --format FMT       batch output: text (default), json, or folded (the\n"
"                         call tree as FlameGraph's folded stacks)\n"
"  -s, --sort KEYS        comma list: perf's names (overhead, dso, sym, comm,\n"
"                         pid) order by overhead, ties by the keys; ipc,\n"
"                         self, total (children), module, symbol, offcpu,\n"
"                         wall order by that column; comm\n"
"                         or pid make a row per process and symbol\n"
"  -H, --threads          batch text: also print the per-thread table\n"
"  -P, --processes        batch text: also print the per-process table\n"
"      --modules          batch text: also print the per-module table (perf\n"
"                         report --sort dso)\n"
"      --theme NAME|FILE  colour theme (default: default; NO_COLOR: mono)\n"
"observer (software signals sampled every few hundred cycles; one process):\n"
"      --observe          run the SHIM observer on the target's signal segment\n"
"                         (<shimtop/signals.h>) or on --signal variables\n"
"      --signal NAME[:tag]  read global variable NAME (a counter, or a tag)\n"
"                         with process_vm_readv; repeat for up to 4 + 1 tag\n"
"      --observer-cpu N   the observer's CPU (default: the SMT sibling of the\n"
"                         target's CPU, else another core)\n"
"      --observer-period CYCLES  TSC cycles between samples (default %d;\n"
"                         0: as fast as possible)\n"
"      --pin-target       pin the target's threads to the paired CPU\n"
"      --dte-tolerance X  accept a rate sample when |CPC - 1| <= X (0.01)\n"
"serve (headless, for Prometheus and pprof scrapers; until Ctrl-C or SIGTERM):\n"
"      --serve [ADDR:]PORT  answer HTTP on ADDR (default 127.0.0.1): /metrics\n"
"                         (Prometheus), /debug/pprof/profile?seconds=N (a pprof\n"
"                         profile of the next N s, 1-300), /healthz, /\n"
"      --serve-token FILE every page but /healthz asks for 'Authorization: Bearer\n"
"                         TOKEN' (or a URL's user:TOKEN@), TOKEN the file's first\n"
"                         line (a file only its owner can read; made if missing;\n"
"                         default ~/.config/shimtop/serve-token)\n"
"      --serve-top N      /metrics also counts the N heaviest symbols' samples\n"
"                         (0-50; default 0: no per-symbol series)\n"
"record and replay:\n"
"  -o, --record FILE      also save the raw record stream to FILE (0600: it may\n"
"                         hold the target's stack bytes)\n"
"  -i, --replay FILE      show a recorded stream instead of a live target\n"
"      --snapshot-on-exit FILE  at the end, save everything the session holds\n"
"                         to FILE (also s in the UI, SIGUSR1: a file named\n"
"                         by the time); -i opens a snapshot as a recording\n"
"      --diff FILE        with -i: compare it with FILE, per symbol and per\n"
"                         path: shares, IPC and the change, largest first\n"
"      --export FORMAT    with -i: write it for other tools instead of the\n"
"                         report, to -o FILE or stdout: folded, speedscope,\n"
"                         pprof (gzip protobuf: go tool pprof, Parca,\n"
"                         Pyroscope), csv (symbols), csv-tags, csv-timeline\n"
"      --follow-symlinks  write output files through a symbolic link and trust\n"
"                         every directory on the way (refused by default: as\n"
"                         root, a planted link could aim anywhere)\n"
"      --realtime         replay at the recorded speed (default: full speed)\n"
"      --symfs DIR        with -i perf.data: look for the recorded files under\n"
"                         DIR (copied from where it was recorded), as perf does\n"
"      --kallsyms FILE    with -i perf.data: the recorded kernel's functions from\n"
"                         FILE (its machine's /proc/kallsyms), as perf does\n"
"      --range A:B        with -i: print the tables of the samples taken A to\n"
"                         B seconds after the first (B empty: to the end)\n"
"      --history S        keep S seconds of samples for ranges (default %d;\n"
"                         50 to 65 bytes a sample: 4 MB a minute at 1 kHz,\n"
"                         30 MB a minute at 10 kHz; 256 MB at most; the oldest\n"
"                         go first); the rest grows with the functions and call\n"
"                         paths seen, not with time\n"
"      --memory MB        shimtop's own resident memory (not the files it maps)\n"
"                         at most MB (default %d): the history gives up its\n"
"                         oldest samples to stay within it, and the report says so\n"
"  -h, --help             this text\n"
"  -V, --version          version\n"
"\n"
"examples:\n"
"  shimtop                          the whole system, live\n"
"  shimtop -p 1234 -s pid,sym       one process (and its children)\n"
"  shimtop -b -d 1 -n 5 -E 10 -a    five reports of the top ten, a second apart\n"
"  shimtop -o run.rec -- make -j8   launch, show, and record\n"
"  shimtop -i run.rec -b            the recording's table again\n"
"  shimtop --observe --demo         the SHIM observer on the demo's signals\n"
"\n"
"environment:\n"
"  NO_COLOR          any value: the mono theme\n"
"  SHIMTOP_THEMES    a directory of .theme files searched before the installed one\n"
"  XDG_CONFIG_HOME   where F2's settings go (shimtop/shimtoprc; default ~/.config)\n"
"  DEBUGINFOD_URLS   servers libdw asks for debug info of stripped binaries\n"
"  DEBUGINFOD_MAXSIZE, DEBUGINFOD_MAXTIME  a download's most bytes (2 GiB) and\n"
"                    seconds (600)\n"
"  SHIMTOP_NO_PMU    1: behave as if the machine had no hardware PMU\n"
"  SHIMTOP_UI_STATS  a file: at the end, the UI's longest work between key reads\n"
"\n"
"exit status: 0 done; 1 the session could not start or failed (a message\n"
"says why); 2 bad command line; 130 stopped by Ctrl-C in the UI.\n"
"\n"
"Keys: F1 in the UI, the shimtop(1) man page, or the README's key table.\n";

enum {
	OPT_BATCH = 256, OPT_HISTORY, OPT_RANGE, OPT_DURATION, OPT_FORMAT, OPT_REALTIME, OPT_THEME,
	OPT_NO_RANDOM, OPT_NO_CHAIN, OPT_OBSERVE, OPT_SIGNAL, OPT_OBSERVER_CPU,
	OPT_OBSERVER_PERIOD, OPT_PIN_TARGET, OPT_DTE_TOLERANCE, OPT_DEMO, OPT_IBS,
	OPT_LIST_EVENTS, OPT_CALL_GRAPH, OPT_EXPORT, OPT_DIFF, OPT_SYMFS, OPT_KALLSYMS, OPT_SNAPSHOT_ON_EXIT,
	OPT_IBS_L3MISS, OPT_IBS_LDLAT, OPT_IBS_DUMP, OPT_IBS_AGGREGATE, OPT_FOLLOW_SYMLINKS,
	OPT_TARGET_OUTPUT,
	OPT_MEMORY, OPT_SERVE, OPT_SERVE_TOKEN, OPT_SERVE_TOP, OPT_MODULES, OPT_OFF_CPU,
	OPT_CHECK, OPT_JSON,
};

static const struct option long_options[] = {
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "cpu", required_argument, NULL, 'C' },
	{ "pid", required_argument, NULL, 'p' },
	{ "tid", required_argument, NULL, 't' },
	{ "uid", required_argument, NULL, 'u' },
	{ "demo", no_argument, NULL, OPT_DEMO },
	{ "ibs", optional_argument, NULL, OPT_IBS },
	{ "ibs-l3miss", no_argument, NULL, OPT_IBS_L3MISS },
	{ "ibs-ldlat", required_argument, NULL, OPT_IBS_LDLAT },
	{ "ibs-dump", required_argument, NULL, OPT_IBS_DUMP },
	{ "ibs-aggregate", no_argument, NULL, OPT_IBS_AGGREGATE },
	{ "event", required_argument, NULL, 'e' },
	{ "list-events", no_argument, NULL, OPT_LIST_EVENTS },
	{ "check", no_argument, NULL, OPT_CHECK },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "off-cpu", no_argument, NULL, OPT_OFF_CPU },
	{ "target-output", required_argument, NULL, OPT_TARGET_OUTPUT },
	{ "freq", required_argument, NULL, 'F' },
	{ "period", required_argument, NULL, 'c' },
	{ "no-randomize", no_argument, NULL, OPT_NO_RANDOM },
	{ "no-callchain", no_argument, NULL, OPT_NO_CHAIN },
	{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
	{ "batch", no_argument, NULL, 'b' },
	{ "stdio", no_argument, NULL, 'b' },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "delay", required_argument, NULL, 'd' },
	{ "iterations", required_argument, NULL, 'n' },
	{ "entries", required_argument, NULL, 'E' },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "export", required_argument, NULL, OPT_EXPORT },
	{ "diff", required_argument, NULL, OPT_DIFF },
	{ "snapshot-on-exit", required_argument, NULL, OPT_SNAPSHOT_ON_EXIT },
	{ "sort", required_argument, NULL, 's' },
	{ "threads", no_argument, NULL, 'H' },
	{ "processes", no_argument, NULL, 'P' },
	{ "modules", no_argument, NULL, OPT_MODULES },
	{ "theme", required_argument, NULL, OPT_THEME },
	{ "record", required_argument, NULL, 'o' },
	{ "replay", required_argument, NULL, 'i' },
	{ "realtime", no_argument, NULL, OPT_REALTIME },
	{ "serve", required_argument, NULL, OPT_SERVE },
	{ "serve-token", required_argument, NULL, OPT_SERVE_TOKEN },
	{ "serve-top", required_argument, NULL, OPT_SERVE_TOP },
	{ "symfs", required_argument, NULL, OPT_SYMFS },
	{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
	{ "follow-symlinks", no_argument, NULL, OPT_FOLLOW_SYMLINKS },
	{ "history", required_argument, NULL, OPT_HISTORY },
	{ "memory", required_argument, NULL, OPT_MEMORY },
	{ "range", required_argument, NULL, OPT_RANGE },
	{ "observe", no_argument, NULL, OPT_OBSERVE },
	{ "signal", required_argument, NULL, OPT_SIGNAL },
	{ "observer-cpu", required_argument, NULL, OPT_OBSERVER_CPU },
	{ "observer-period", required_argument, NULL, OPT_OBSERVER_PERIOD },
	{ "pin-target", no_argument, NULL, OPT_PIN_TARGET },
	{ "dte-tolerance", required_argument, NULL, OPT_DTE_TOLERANCE },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad(const char *fmt, ...)
{
	char line[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	st_error("%s; see shimtop --help", line);	/* made safe there */
	return -EINVAL;
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || v == 0 || s[0] == '-')
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0) || v > 1e7)
		return -EINVAL;
	*out = v;
	return 0;
}

/* --range A:B, A:  (0 <= A < B; no B: to the end). */
static int parse_range(const char *s, double *from, double *to)
{
	char *end;

	errno = 0;
	*from = strtod(s, &end);
	if (errno || end == s || *end != ':' || !(*from >= 0) || *from > 1e7)
		return -EINVAL;
	if (!end[1]) {
		*to = 1e9;
		return 0;
	}
	if (parse_seconds(end + 1, to) || !(*to > *from))
		return -EINVAL;
	return 0;
}

/* -p and -t: a comma list of ids, appended to o->pids. */
static int parse_ids(struct st_options *o, const char *list, const char *opt)
{
	const char *p = list;

	if (!*list)
		return bad("%s needs a list of ids (e.g. %s 1234,1240), not an empty one",
			   opt, opt);
	while (*p) {
		char id[16];
		size_t len = strcspn(p, ",");
		uint64_t v;

		if (len == 0 || len >= sizeof(id))
			return bad("%s: '%s' is not a comma list of ids", opt, list);
		memcpy(id, p, len);
		id[len] = '\0';
		if (parse_u64(id, &v) || v > 0x7fffffff)
			return bad("%s: '%s' is not a process or thread id", opt, id);
		if (o->npids == ST_MAX_TARGETS)
			return bad("%s: at most %d ids", opt, ST_MAX_TARGETS);
		o->pids[o->npids++] = (pid_t)v;
		p += len;
		if (*p == ',' && !*++p)
			return bad("%s: '%s' ends with a comma", opt, list);
	}
	return 0;
}

static const char *const export_names[ST_EXPORT_COUNT] = {
	"", "folded", "speedscope", "pprof", "csv", "csv-tags", "csv-timeline",
};

const char *st_export_name(enum st_export how)
{
	return how < ST_EXPORT_COUNT ? export_names[how] : "?";
}

/* The --sort names, in enum st_sort_key order. */
static const char *const sort_names[ST_SORT_COUNT] = {
	"self", "ipc", "module", "symbol", "comm", "offcpu", "total", "wall",
};

const char *sort_key_name(enum st_sort_key k)
{
	return k < ST_SORT_COUNT ? sort_names[k] : "?";
}

/*
 * One -s key: today's names (self, ipc, module, symbol, comm, offcpu, total, wall), perf's
 * (overhead, sample, dso, sym, pid, comm), *perf set for perf's.
 */
static int sort_key_of(const char *name, bool *perf)
{
	static const struct {
		const char *name;
		enum st_sort_key key;
	} perf_names[] = {
		{ "overhead", ST_SORT_SELF }, { "sample", ST_SORT_SELF },
		{ "dso", ST_SORT_MODULE }, { "sym", ST_SORT_SYMBOL },
		{ "pid", ST_SORT_PROCESS },
	};

	*perf = true;
	for (size_t i = 0; i < sizeof(perf_names) / sizeof(perf_names[0]); i++)
		if (!strcmp(name, perf_names[i].name))
			return perf_names[i].key;
	*perf = !strcmp(name, "comm");
	/* perf top --children's column, which it then orders by. */
	if (!strcmp(name, "children"))
		return ST_SORT_TOTAL;
	for (int k = 0; k < ST_SORT_COUNT; k++)
		if (!strcmp(name, sort_names[k]))
			return k;
	return -1;
}

/*
 * Whether a comma list ("cycles,", "overhead,,sym", "{a,}") holds an empty
 * item, which strtok would pass over unsaid.
 */
static bool list_has_empty_item(const char *list)
{
	char before = ',';

	for (const char *p = list;; p++) {
		char c = *p ? *p : ',';

		if ((c == ',' || c == '}') && (before == ',' || before == '{'))
			return true;
		if (!*p)
			return false;
		before = c;
	}
}

/*
 * perf's keys name what a row is and perf orders rows by overhead, ties
 * by the keys: a list that starts with one of perf's names does the same
 * (-s pid,sym: a row per process and symbol, heaviest first).  Today's
 * names order by their column (-s ipc, -s module).
 */
static int parse_sort(struct st_sort *sort, const char *list)
{
	char *copy = st_xstrdup(list), *save = NULL, *tok;
	int rc = 0;

	memset(sort, 0, sizeof(*sort));
	if (list_has_empty_item(list)) {
		free(copy);
		return bad("-s '%s' has an empty key: drop the extra comma", list);
	}
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		bool perf;
		int k = sort_key_of(tok, &perf);

		if (k >= 0 && sort->nkeys == 0 && perf && k != ST_SORT_SELF)
			sort->key[sort->nkeys++] = ST_SORT_SELF;

		if (k < 0) {
			rc = bad("unknown sort key '%s' (overhead, total, ipc, dso, sym, comm, pid)",
				 tok);
			break;
		}
		if (sort->nkeys == ST_MAX_SORT_KEYS) {
			rc = bad("-s takes at most %d keys", ST_MAX_SORT_KEYS - 1);
			break;
		}
		sort->key[sort->nkeys++] = (enum st_sort_key)k;
		/* pid splits processes; comm alone merges those of one command. */
		if (!strcmp(tok, "pid"))
			sort->split = ST_SPLIT_PID;
		else if (k == ST_SORT_PROCESS && sort->split == ST_SPLIT_NONE)
			sort->split = ST_SPLIT_COMM;
	}
	free(copy);
	if (!rc && !sort->nkeys)
		rc = bad("-s needs a key, e.g. -s %s", "overhead,sym");
	sort->given = true;
	return rc;
}

/* -a -C -p -t -u --demo:  0, -EINVAL, or 1: not one of these. */
static int target_option(struct st_options *o, int c, bool *tids)
{
	switch (c) {
	case 'a':
		o->target = ST_TARGET_SYSTEM;
		break;
	case 'C':
		if (!*optarg)
			return bad("%s", "-C needs a CPU list, e.g. -C 0-3,8");
		o->cpus = optarg;
		break;
	case 'p': {
		size_t before = o->npids;
		int rc;

		if (*tids)
			return bad("%s", "give -p before -t (-p PID -t TID: threads of PID)");
		rc = parse_ids(o, optarg, "-p");
		if (rc)
			return rc;
		if (!before)
			o->pid = o->pids[0];
		o->target = ST_TARGET_PIDS;
		break;
	}
	case 't': {
		int rc;

		/* -p P -t T: the threads T, which must be P's. */
		if (o->target == ST_TARGET_PIDS && !*tids) {
			if (o->npids > 1)
				return bad("%s", "with -t, -p names the one process the "
					   "threads belong to");
			o->npids = 0;
		}
		rc = parse_ids(o, optarg, "-t");
		if (rc)
			return rc;
		*tids = true;
		o->target = ST_TARGET_TIDS;
		break;
	}
	case 'u':
		if (!*optarg)
			return bad("%s", "-u needs a user name or uid");
		o->user = optarg;
		o->target = ST_TARGET_USER;
		break;
	case OPT_DEMO:
		o->target = ST_TARGET_DEMO;
		break;
	default:
		return 1;
	}
	return 0;
}

/*
 * --call-graph MODE[,SIZE], perf's spelling: the size after a comma is the
 * stack copy's, rounded up to 8 bytes as perf does, and small enough that
 * a sample with a full chain still fits one record.
 */
#define STACK_COPY_MAX	(48u * 1024u)
static int parse_call_graph(struct st_options *o, const char *arg)
{
	const char *comma = strchr(arg, ',');
	size_t len = comma ? (size_t)(comma - arg) : strlen(arg);
	uint64_t size = 0;
	bool dwarf = len == 5 && !strncmp(arg, "dwarf", 5);
	bool chaining = len == 11 && !strncmp(arg, "callerchain", 11);
	bool automatic = len == 4 && !strncmp(arg, "auto", 4);

	if (comma && !dwarf && !chaining && !automatic)
		return bad("--call-graph %.*s takes no size", (int)len, arg);
	if (comma && (parse_u64(comma + 1, &size) || size < 8 || size > STACK_COPY_MAX))
		return bad("--call-graph %.*s: the stack copy's size must be 8 to %u bytes, "
			   "not '%s'", (int)len, arg, STACK_COPY_MAX, comma + 1);
	o->callchain = o->callerchain = o->unwind_broken = false;
	o->stack_copy = o->chain_window = 0;
	o->stack_copy_grows = (dwarf || automatic) && !comma;
	if (dwarf) {
		o->stack_copy = comma ? (unsigned)((size + 7) & ~7ull) : 8192;
	} else if (automatic) {
		/* Both: the chain kept where whole, the copy unwound where not. */
		o->stack_copy = comma ? (unsigned)((size + 7) & ~7ull) : 8192;
		o->callchain = o->unwind_broken = true;
	} else if (chaining) {
		/*
		 * CallerChaining sees SIZE bytes (2048: a clang++ compile's big
		 * C++ frames put a caller past 512 bytes in a third of samples);
		 * the copy is 8 KiB at least, so that where the kernel's
		 * frame-pointer chain stops early (code without frame pointers)
		 * the copy unwound (DWARF) is the reference it is measured
		 * against.  The chain rides along: the reference where whole.
		 */
		o->chain_window = comma ? (unsigned)((size + 7) & ~7ull) : 2048;
		o->stack_copy = o->chain_window > 8192 ? o->chain_window : 8192;
		o->callerchain = o->callchain = true;
	} else if (len == 2 && !strncmp(arg, "fp", 2)) {
		o->callchain = true;
	} else if (len == 3 && !strncmp(arg, "lbr", 3)) {
		return bad("--call-graph lbr needs Intel's last-branch records, which shimtop "
			   "does not read: use fp or dwarf");
	} else if (!(len == 4 && !strncmp(arg, "none", 4))) {
		return bad("--call-graph takes fp, dwarf[,SIZE], auto[,SIZE], callerchain[,SIZE] "
			   "or none, not '%s'", arg);
	}
	return 0;
}

/* -e -F -c -d -n -E -s -g, --no-randomize, --no-callchain, --call-graph:  0, -EINVAL, or 1: not one of these. */
static int sampling_option(struct st_options *o, int c)
{
	uint64_t v;

	/* What only live sampling reads, for check_combinations to name with -i. */
	switch (c) {
	case 'e': case 'F': case 'c': case OPT_NO_RANDOM: case OPT_NO_CHAIN:
		/* One event's name with -i chooses which of the recorded ones is shown. */
		if (c == 'e' && !strpbrk(optarg, ",{}"))
			break;
		if (!o->sampling_given)
			o->sampling_given = c == 'e' ? "-e" : c == 'F' ? "-F" : c == 'c' ? "-c"
					    : c == OPT_NO_RANDOM ? "--no-randomize" : "--no-callchain";
		break;
	case OPT_CALL_GRAPH:
		/*
		 * callerchain and auto read a recording's stacks again, and fp
		 * (-g) is what a recording's chains are anyway; the others sample.
		 */
		if (!o->sampling_given && strncmp(optarg, "callerchain", 11) &&
		    strncmp(optarg, "auto", 4) && strcmp(optarg, "fp"))
			o->sampling_given = "--call-graph";
		break;
	default:
		break;
	}
	switch (c) {
	case 'e':
		if (list_has_empty_item(optarg))
			return bad("-e '%s' has an empty event name: drop the extra comma", optarg);
		o->events = optarg;
		break;
	case OPT_IBS:
		if (!optarg || !strcmp(optarg, "op"))
			o->ibs = ST_IBS_OP;
		else if (!strcmp(optarg, "fetch"))
			o->ibs = ST_IBS_FETCH;
		else
			return bad("--ibs takes op or fetch, not '%s'", optarg);
		break;
	case OPT_IBS_L3MISS:
		o->ibs_l3miss = true;
		break;
	case OPT_IBS_LDLAT:
		if (parse_u64(optarg, &v) || v < 128 || v > 2048)
			return bad("--ibs-ldlat needs a load latency of 128 to 2048 cycles, not '%s'",
				   optarg);
		o->ibs_ldlat = (unsigned)v;
		break;
	case OPT_IBS_DUMP:
		o->ibs_dump_path = optarg;
		break;
	case OPT_IBS_AGGREGATE:
		o->ibs_aggregate = true;
		break;
	case OPT_OFF_CPU:
		o->off_cpu = true;
		break;
	case 'F':
		if (parse_u64(optarg, &o->freq) || o->freq > 1000000)
			return bad("-F needs a rate in Hz (1 to 1000000), not '%s'", optarg);
		break;
	case 'c':
		if (parse_u64(optarg, &o->period))
			return bad("-c needs a positive period, not '%s'", optarg);
		break;
	case 'd':
		if (parse_seconds(optarg, &o->delay))
			return bad("-d needs a positive number of seconds, not '%s'", optarg);
		o->delay_set = true;
		break;
	case 'n':
		if (parse_u64(optarg, &v) || v > 1000000)
			return bad("-n needs a positive number of iterations, not '%s'", optarg);
		o->iterations = (unsigned)v;
		break;
	case 'E':
		if (parse_u64(optarg, &v) || v > 1000000)
			return bad("-E needs a positive row count, not '%s'", optarg);
		o->rows = (int)v;
		break;
	case 's':
		return parse_sort(&o->sort, optarg);
	case OPT_NO_RANDOM:
		o->randomize = false;
		break;
	case OPT_NO_CHAIN:
		o->call_graph_given = true;
		return parse_call_graph(o, "none");
	case 'g':
		o->call_graph_given = true;
		return parse_call_graph(o, "fp");
	case OPT_CALL_GRAPH:
		o->call_graph_given = true;
		return parse_call_graph(o, optarg);
	default:
		return 1;
	}
	return 0;
}

/* -b, --duration, --format, --theme, -o, -i, -H, -P:  0, -EINVAL, or 1: not one of these. */
static int output_option(struct st_options *o, int c)
{
	uint64_t v;

	switch (c) {
	case 'b':
		o->batch = o->batch_given = true;
		break;
	case OPT_DURATION:
		if (parse_seconds(optarg, &o->duration))
			return bad("--duration needs a positive number of seconds, not '%s'", optarg);
		break;
	case OPT_FORMAT:
		if (!strcmp(optarg, "text"))
			o->format = ST_FORMAT_TEXT;
		else if (!strcmp(optarg, "json"))
			o->format = ST_FORMAT_JSON;
		else if (!strcmp(optarg, "folded"))
			o->format = ST_FORMAT_FOLDED;
		else
			return bad("unknown format '%s' (text, json or folded)", optarg);
		break;
	case OPT_EXPORT: {
		int k;

		for (k = ST_EXPORT_FOLDED; k < ST_EXPORT_COUNT; k++)
			if (!strcmp(optarg, st_export_name((enum st_export)k)))
				break;
		if (k == ST_EXPORT_COUNT)
			return bad("unknown export format '%s' (folded, speedscope, pprof, csv, "
				   "csv-tags or csv-timeline)", optarg);
		o->export_format = (enum st_export)k;
		break;
	}
	case OPT_DIFF:
		o->diff_path = optarg;
		break;
	case OPT_TARGET_OUTPUT:
		if (!*optarg)
			return bad("%s", "--target-output needs a file name ('-': the terminal)");
		o->target_output = optarg;
		break;
	case OPT_FOLLOW_SYMLINKS:
		st_output_follow_symlinks(true);
		break;
	case OPT_SNAPSHOT_ON_EXIT:
		if (!*optarg)
			return bad("%s", "--snapshot-on-exit needs a file name");
		o->snapshot_path = optarg;
		break;
	case OPT_THEME:
		o->theme = optarg;
		break;
	case 'o':
		if (!*optarg)
			return bad("%s", "-o needs a file name ('-': standard output)");
		o->record_path = optarg;
		break;
	case 'i':
		if (o->replay_path)
			return bad("-i given twice ('%s', then '%s'): give one recording (--diff B "
				   "compares it with another)", o->replay_path, optarg);
		o->replay_path = optarg;
		break;
	case OPT_REALTIME:
		o->realtime = true;
		break;
	case OPT_SYMFS:
		if (!*optarg)
			return bad("%s", "--symfs needs a directory");
		o->symfs = optarg;
		break;
	case OPT_KALLSYMS:
		if (!*optarg)
			return bad("%s", "--kallsyms needs a file (a copy of /proc/kallsyms)");
		o->kallsyms = optarg;
		break;
	case OPT_HISTORY:
		if (parse_seconds(optarg, &o->history))
			return bad("--history needs a positive number of seconds, not '%s'", optarg);
		break;
	case OPT_SERVE:
		if (!*optarg)
			return bad("%s", "--serve needs [ADDRESS:]PORT, e.g. 127.0.0.1:9464");
		if (o->serve_address)
			return bad("--serve given twice ('%s', then '%s'): one server listens on "
				   "one address", o->serve_address, optarg);
		o->serve_address = optarg;
		o->batch = true;	/* headless */
		break;
	case OPT_SERVE_TOKEN:
		if (!*optarg)
			return bad("%s", "--serve-token needs a file holding the token");
		o->serve_token_path = optarg;
		break;
	case OPT_SERVE_TOP:
		if (parse_u64(optarg, &v) || v > ST_SERVE_TOP_MAX)
			return bad("--serve-top needs 0 to %d symbols, not '%s'", ST_SERVE_TOP_MAX,
				   optarg);
		o->serve_top = (unsigned)v;
		break;
	case OPT_MEMORY:
		if (parse_u64(optarg, &v) || v < ST_MEMORY_MIN_MB || v > (1u << 20))
			return bad("--memory needs %u to 1048576 MB (shimtop itself needs about "
				   "30), not '%s'", ST_MEMORY_MIN_MB, optarg);
		o->memory_mb = (unsigned)v;
		break;
	case OPT_RANGE:
		if (parse_range(optarg, &o->range_from, &o->range_to))
			return bad("--range needs START:END in seconds from the first sample, "
				   "START < END (e.g. 1.5:3, or 2: to the end), not '%s'", optarg);
		o->ranged = true;
		o->batch = true;	/* the batch form of a selection on the timeline */
		break;
	case 'H':
		o->per_thread = true;
		break;
	case 'P':
		o->per_process = true;
		break;
	case OPT_MODULES:
		o->per_module = true;
		break;
	default:
		return 1;
	}
	return 0;
}

/* --observe and the options that imply it:  0, -EINVAL, or 1: not one of these. */
static int observer_option(struct st_options *o, int c)
{
	uint64_t v;

	switch (c) {
	case OPT_OBSERVE:
		o->observe = true;
		break;
	case OPT_SIGNAL:
		if (o->nsignals == ST_MAX_SIGNALS)
			return bad("at most %d --signal options (four counters and a tag)",
				   ST_MAX_SIGNALS);
		o->signals[o->nsignals++] = optarg;
		o->observe = true;
		break;
	case OPT_OBSERVER_CPU:
		if (!strcmp(optarg, "0"))
			v = 0;
		else if (parse_u64(optarg, &v) || v > 65535)
			return bad("--observer-cpu needs a CPU number, not '%s'", optarg);
		o->observer_cpu = (int)v;
		o->observe = true;
		break;
	case OPT_OBSERVER_PERIOD:
		if (!strcmp(optarg, "0"))
			v = 0;
		else if (parse_u64(optarg, &v) || v > ST_OBSERVER_PERIOD_MAX)
			return bad("--observer-period needs TSC cycles (0 to 1e11), not '%s'",
				   optarg);
		o->observer_period = v;
		o->observe = true;
		break;
	case OPT_PIN_TARGET:
		o->pin_target = true;
		o->observe = true;
		break;
	case OPT_DTE_TOLERANCE: {
		char *end;

		errno = 0;
		o->dte_tolerance = strtod(optarg, &end);
		if (errno || end == optarg || *end || !(o->dte_tolerance > 0) ||
		    o->dte_tolerance >= 1)
			return bad("--dte-tolerance needs a fraction between 0 and 1 "
				   "(e.g. 0.01), not '%s'", optarg);
		break;
	}
	default:
		return 1;
	}
	return 0;
}

/* The target's kind for an option letter, or -1 (-p and -t are one kind). */
static int target_kind_of(int c)
{
	switch (c) {
	case 'a': return ST_TARGET_SYSTEM;
	case 'p': case 't': return ST_TARGET_PIDS;
	case 'u': return ST_TARGET_USER;
	case OPT_DEMO: return ST_TARGET_DEMO;
	case 'i': return ST_TARGET_REPLAY;
	default: return -1;
	}
}

/* At most one kind of target; -C and --observe only where they apply. */
static int check_target(struct st_options *o, unsigned given)
{
	if (__builtin_popcount(given) > 1)
		return bad("%s", "give one target: -a, -p (with -t), -u, --demo, -i, "
			   "or a command after --");
	if (o->command)
		o->target = ST_TARGET_COMMAND;
	if (o->replay_path)
		o->target = ST_TARGET_REPLAY;
	if (o->cpus && o->target != ST_TARGET_SYSTEM && o->target != ST_TARGET_PIDS &&
	    o->target != ST_TARGET_TIDS)
		return bad("%s", "-C restricts -a, -p or -t to some CPUs");
	if (o->target_output && o->target != ST_TARGET_COMMAND && o->target != ST_TARGET_DEMO)
		return bad("%s", "--target-output is where a launched command writes: give a "
			   "command after -- (or --demo)");
	if (o->observe && o->target != ST_TARGET_REPLAY &&
	    ((o->target != ST_TARGET_PIDS && o->target != ST_TARGET_COMMAND &&
	      o->target != ST_TARGET_DEMO) || o->npids > 1))
		return bad("%s", "the observer watches one process: give --observe with "
			   "-p PID, --demo or a command");
	return 0;
}

/* Options that cannot go together. */
static int check_combinations(const struct st_options *o)
{
	if ((o->ibs_l3miss || o->ibs_ldlat) && o->ibs == ST_IBS_NONE)
		return bad("%s", "--ibs-l3miss and --ibs-ldlat filter IBS samples: add --ibs");
	if (o->ibs_aggregate && o->ibs != ST_IBS_OP)
		return bad("%s", "--ibs-aggregate counts IBS op samples: add --ibs (or --ibs=op)");
	if (o->off_cpu && o->ibs != ST_IBS_NONE)
		return bad("%s", "--off-cpu samples beside perf events, not IBS: drop one of them");
	if (o->ibs != ST_IBS_NONE && o->replay_path)
		return bad("%s", "--ibs samples live; a recording's IBS samples replay with -i alone");
	if (o->freq && o->period)
		return bad("%s", "-F and -c both set the sampling rate: give one");
	if (o->diff_path && !o->replay_path)
		return bad("%s", "--diff compares two recordings: give -i A --diff B");
	if (o->diff_path && o->export_format)
		return bad("%s", "--diff and --export: export each recording on its own");
	if (o->export_format && !o->replay_path)
		return bad("%s", "--export reads a recording: give -i FILE (record a live "
			   "session with -o FILE first)");
	if (o->replay_path && o->record_path)
		return bad("%s", "-i shows a file: it takes no -o (with --export, -o names "
			   "the export)");
	if (o->ranged && o->callerchain)
		return bad("%s", "--call-graph callerchain rebuilds the whole session's tree: "
			   "--range does not cut it; drop one of them");
	if (o->realtime && !o->replay_path)
		return bad("%s", "--realtime applies to -i/--replay only");
	if (o->symfs && !o->replay_path)
		return bad("%s", "--symfs finds a recording's files: give -i perf.data with it");
	if (o->kallsyms && !o->replay_path)
		return bad("%s", "--kallsyms names a recording's kernel: give -i perf.data with it "
			   "(live, this kernel's /proc/kallsyms is read)");
	if (o->ranged && !o->replay_path)
		return bad("%s", "--range picks a window of a recording: give -i FILE "
			   "(live, select the window on the timeline)");
	if (o->replay_path && o->observe)
		return bad("%s", "-i shows a recording's observer samples; it runs no observer: "
			   "drop --observe and its options");
	if (o->replay_path && o->sampling_given)
		return bad("%s chooses how samples are taken; a recording (-i) was sampled "
			   "already: drop it", o->sampling_given);
	if (o->serve_address && o->batch_given)
		return bad("%s", "--serve draws nothing and prints no report: drop -b");
	if ((o->serve_token_path || o->serve_top) && !o->serve_address)
		return bad("%s", "--serve-token and --serve-top go with --serve ADDRESS:PORT");
	if (o->serve_address && (o->export_format || o->diff_path || o->iterations ||
				 o->delay_set || o->format != ST_FORMAT_TEXT))
		return bad("%s", "--serve answers HTTP instead of printing reports: it takes no "
			   "--export, --diff, -n, -d or --format");
	if (o->iterations && !o->batch)
		return bad("%s", "-n counts batch reports: give -b (or --batch) with it");
	return 0;
}

/* The long option whose value getopt_long returns as val, or NULL. */
static const struct option *long_option_of(int val)
{
	for (const struct option *l = long_options; l->name; l++)
		if (l->val == val)
			return l;
	return NULL;
}

/* Whether arg ("--serve", "--serve=9464") names a long option. */
static bool is_long_option(const char *arg)
{
	size_t n;

	if (strncmp(arg, "--", 2) || !arg[2])
		return false;
	n = strcspn(arg + 2, "=");
	for (const struct option *l = long_options; l->name; l++)
		if (strlen(l->name) == n && !strncmp(l->name, arg + 2, n))
			return true;
	return false;
}

static const char short_options[] = "+aC:p:t:u:e:F:c:d:n:E:s:bgo:i:HPhV";

/* What getopt_long refused (c '?'): an option missing its value, or unknown. */
static int refused_option(char **argv)
{
	const struct option *l = optopt >= 256 ? long_option_of(optopt) : NULL;
	const char *letter = optopt > 0 && optopt < 256 && optopt != ':' && optopt != '+'
			     ? strchr(short_options, optopt) : NULL;

	const char *arg = optind > 0 ? argv[optind - 1] : "";

	/* "--batch=1": getopt_long gives the option's letter, as if unknown. */
	if (!strncmp(arg, "--", 2) && strchr(arg, '=')) {
		size_t n = strcspn(arg + 2, "=");

		for (const struct option *k = long_options; k->name; k++)
			if (strlen(k->name) == n && !strncmp(k->name, arg + 2, n) &&
			    k->has_arg == no_argument)
				return bad("--%s takes no value: give it as --%s", k->name, k->name);
	}
	if (l)
		return bad("--%s needs a value", l->name);
	if (letter && letter[1] == ':')
		return bad("-%c needs a value", optopt);
	if (optopt > 0 && optopt < 256)
		return bad("unknown option -%c", optopt);
	return bad("unknown option '%s'", argv[optind - 1]);
}

int st_options_parse(struct st_options *o, int argc, char **argv)
{
	bool tids = false, sort_given = false;
	unsigned given = 0;
	int c, rc;

	memset(o, 0, sizeof(*o));
	o->target = ST_TARGET_SYSTEM;
	o->randomize = true;
	o->callchain = true;
	o->delay = 1.0;
	o->observer_cpu = -1;
	o->observer_period = ST_OBSERVER_PERIOD;
	o->dte_tolerance = 0.01;
	o->history = ST_HISTORY_SECONDS;
	o->memory_mb = ST_MEMORY_MB;
	o->sort.nkeys = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, short_options, long_options, NULL)) != -1) {
		/* "--serve-token --serve 9464": the value taken is the next option. */
		if (c != '?' && optarg && is_long_option(optarg)) {
			const struct option *l = c >= 256 ? long_option_of(c) : NULL;

			if (l)
				return bad("--%s needs a value, not the option '%s' after it",
					   l->name, optarg);
			return bad("-%c needs a value, not the option '%s' after it", c, optarg);
		}
		if (target_kind_of(c) >= 0)
			given |= 1u << target_kind_of(c);
		sort_given |= c == 's';
		if ((rc = target_option(o, c, &tids)) <= 0 ||
		    (rc = sampling_option(o, c)) <= 0 ||
		    (rc = output_option(o, c)) <= 0 ||
		    (rc = observer_option(o, c)) <= 0) {
			if (rc < 0)
				return rc;
			continue;
		}
		switch (c) {
		case 'h':
			printf(usage_text, ST_OBSERVER_PERIOD, ST_HISTORY_SECONDS, ST_MEMORY_MB);
			o->printed_only = true;
			return 0;
		case 'V':
			puts("shimtop " PACKAGE_VERSION);
			o->printed_only = true;
			return 0;
		case OPT_LIST_EVENTS:
			o->printed_only = true;
			return events_list(stdout) < 0 ? -EIO : 0;
		case OPT_CHECK:
			o->check = true;
			break;
		case OPT_JSON:
			o->format = ST_FORMAT_JSON;
			break;
		case '?':
			return refused_option(argv);
		default:
			return bad("unknown option '%s'", argv[optind - 1]);
		}
	}
	/* --check runs its own workload: nothing else to check here. */
	if (o->check)
		return optind < argc ? bad("--check takes no command; run shimtop --check alone")
				     : 0;
	if (optind < argc) {
		/* perf's -g takes no mode either: say where one goes. */
		if (!strcmp(argv[optind - 1], "-g"))
			return bad("-g takes no mode (it is fp); give --call-graph %s, or put a "
				   "command after --", argv[optind]);
		if (strcmp(argv[optind - 1], "--") != 0)
			return bad("unexpected argument '%s' (put a command after --)",
				   argv[optind]);
		o->command = argv + optind;
		given |= 1u << ST_TARGET_COMMAND;
	}
	rc = check_target(o, given);
	if (rc < 0)
		return rc;
	/*
	 * Right chains by default: frame pointers where they reach a start,
	 * the stack copy unwound where they stop early (--call-graph auto).
	 * A recording's chains are what it holds; IBS samples keep none
	 * unless asked for.
	 */
	if (!o->call_graph_given && !o->replay_path && o->ibs == ST_IBS_NONE)
		parse_call_graph(o, "auto");
	/* Several processes: a row per process and symbol unless -s says. */
	if (!sort_given && (o->target == ST_TARGET_SYSTEM ||
			    o->target == ST_TARGET_USER || o->npids > 1))
		o->sort.split = ST_SPLIT_PID;
	/* With --export, -o names the export, not a recording. */
	if (o->export_format && o->replay_path && o->record_path) {
		o->export_path = o->record_path;
		o->record_path = NULL;
	}
	if (o->export_format)
		o->batch = true;
	return check_combinations(o);
}
