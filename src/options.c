/* options.c - command-line parsing. */
#include "options.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
"usage: shimtop [options] [-p PID | -- COMMAND [ARGS...]]\n"
"\n"
"With neither -p nor a command, shimtop launches its demo workload.\n"
"\n"
"target:\n"
"  -p, --pid PID          attach to every thread of a running process\n"
"  -- COMMAND [ARGS]      launch COMMAND and sample from its first instruction\n"
"sampling:\n"
"  -e, --event EV[,EV]    events by libpfm4 name (default: cycles+instructions\n"
"                         group, or cpu-clock without a hardware PMU)\n"
"  -F, --freq HZ          sample at HZ per thread (kernel-adjusted period)\n"
"  -c, --period N         sample every N events (ns for clocks)\n"
"      --no-randomize     keep the period fixed (default varies it +/-3%%)\n"
"      --no-callchain     do not collect call chains\n"
"output:\n"
"      --batch            no UI: print the table at the end (or every -d s)\n"
"      --duration S       stop after S seconds (default: when the target ends)\n"
"  -d, --delay S          batch print interval / UI refresh (default 1)\n"
"      --format FMT       batch output: text (default) or json\n"
"  -n, --rows N           batch: print the top N rows (default all)\n"
"  -s, --sort KEY         self (default), ipc, module or symbol\n"
"  -H, --threads          batch text: also print the per-thread table\n"
"      --theme NAME|FILE  colour theme (default: default; NO_COLOR: mono)\n"
"observer (software signals sampled every few hundred cycles):\n"
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
"record and replay:\n"
"      --record FILE      also save the raw record stream to FILE\n"
"      --replay FILE      show a recorded stream instead of a live target\n"
"      --realtime         replay at the recorded speed (default: full speed)\n"
"  -h, --help             this text\n"
"  -V, --version          version\n";

enum {
	OPT_BATCH = 256, OPT_DURATION, OPT_FORMAT, OPT_RECORD, OPT_REPLAY,
	OPT_REALTIME, OPT_THEME, OPT_NO_RANDOM, OPT_NO_CHAIN, OPT_OBSERVE,
	OPT_SIGNAL, OPT_OBSERVER_CPU, OPT_OBSERVER_PERIOD, OPT_PIN_TARGET,
	OPT_DTE_TOLERANCE,
};

static const struct option long_options[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "event", required_argument, NULL, 'e' },
	{ "freq", required_argument, NULL, 'F' },
	{ "period", required_argument, NULL, 'c' },
	{ "no-randomize", no_argument, NULL, OPT_NO_RANDOM },
	{ "no-callchain", no_argument, NULL, OPT_NO_CHAIN },
	{ "batch", no_argument, NULL, OPT_BATCH },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "delay", required_argument, NULL, 'd' },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "rows", required_argument, NULL, 'n' },
	{ "sort", required_argument, NULL, 's' },
	{ "threads", no_argument, NULL, 'H' },
	{ "theme", required_argument, NULL, OPT_THEME },
	{ "record", required_argument, NULL, OPT_RECORD },
	{ "replay", required_argument, NULL, OPT_REPLAY },
	{ "realtime", no_argument, NULL, OPT_REALTIME },
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
	va_list ap;

	fputs("shimtop: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("; see shimtop --help\n", stderr);
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

/* The --sort names, in enum st_sort_key order. */
static const char *const sort_names[ST_SORT_COUNT] = {
	"self", "ipc", "module", "symbol",
};

/* -p -e -F -c -d -n -s, --no-randomize, --no-callchain:  0, -EINVAL, or 1: not one of these. */
static int sampling_option(struct st_options *o, int c)
{
	uint64_t v;

	switch (c) {
	case 'p':
		if (parse_u64(optarg, &v) || v > 0x7fffffff)
			return bad("-p needs a process id, not '%s'", optarg);
		o->pid = (pid_t)v;
		break;
	case 'e':
		o->events = optarg;
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
			return bad("-n needs a positive row count, not '%s'", optarg);
		o->rows = (int)v;
		break;
	case 's': {
		int k;

		for (k = 0; k < ST_SORT_COUNT; k++)
			if (!strcmp(optarg, sort_names[k]))
				break;
		if (k == ST_SORT_COUNT)
			return bad("unknown sort key '%s' (self, ipc, module, symbol)", optarg);
		o->sort = (enum st_sort_key)k;
		break;
	}
	case OPT_NO_RANDOM:
		o->randomize = false;
		break;
	case OPT_NO_CHAIN:
		o->callchain = false;
		break;
	default:
		return 1;
	}
	return 0;
}

/* --batch, --duration, --format, --theme, --record, --replay:  0, -EINVAL, or 1: not one of these. */
static int output_option(struct st_options *o, int c)
{
	switch (c) {
	case OPT_BATCH:
		o->batch = true;
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
		else
			return bad("unknown format '%s' (text or json)", optarg);
		break;
	case OPT_THEME:
		o->theme = optarg;
		break;
	case OPT_RECORD:
		o->record_path = optarg;
		break;
	case OPT_REPLAY:
		o->replay_path = optarg;
		break;
	case OPT_REALTIME:
		o->realtime = true;
		break;
	case 'H':
		o->per_thread = true;
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
		else if (parse_u64(optarg, &v) || v > 100000000000ull)
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

/* Options that cannot go together. */
static int check_combinations(const struct st_options *o)
{
	if (o->freq && o->period)
		return bad("%s", "-F and -c both set the sampling rate: give one");
	if (o->pid && o->command)
		return bad("%s", "give -p PID or a command after --, not both");
	if (o->replay_path && (o->pid || o->command || o->record_path))
		return bad("%s", "--replay shows a file: it takes no -p, command or --record");
	if (o->realtime && !o->replay_path)
		return bad("%s", "--realtime applies to --replay only");
	if (o->replay_path && o->observe && (o->nsignals || o->pin_target ||
					      o->observer_cpu >= 0))
		return bad("%s", "--replay shows recorded observer samples; it runs no observer");
	return 0;
}

int st_options_parse(struct st_options *o, int argc, char **argv)
{
	int c, rc;

	memset(o, 0, sizeof(*o));
	o->randomize = true;
	o->callchain = true;
	o->delay = 1.0;
	o->observer_cpu = -1;
	o->observer_period = ST_OBSERVER_PERIOD;
	o->dte_tolerance = 0.01;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+p:e:F:c:d:n:s:HhV", long_options,
				NULL)) != -1) {
		if ((rc = sampling_option(o, c)) <= 0 ||
		    (rc = output_option(o, c)) <= 0 ||
		    (rc = observer_option(o, c)) <= 0) {
			if (rc < 0)
				return rc;
			continue;
		}
		switch (c) {
		case 'h':
			printf(usage_text, ST_OBSERVER_PERIOD);
			o->printed_only = true;
			return 0;
		case 'V':
			puts("shimtop " PACKAGE_VERSION);
			o->printed_only = true;
			return 0;
		case '?':
			if (optopt) {
				char opt[3] = { '-', (char)optopt, '\0' };

				return bad("option %s needs a value or is unknown", opt);
			}
			return bad("unknown option '%s'", argv[optind - 1]);
		default:
			return bad("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc) {
		if (strcmp(argv[optind - 1], "--") != 0)
			return bad("unexpected argument '%s' (put a command after --)",
				   argv[optind]);
		o->command = argv + optind;
	}
	rc = check_combinations(o);
	if (rc < 0)
		return rc;
	if (!o->pid && !o->command && !o->replay_path)
		o->demo = true;
	return 0;
}
