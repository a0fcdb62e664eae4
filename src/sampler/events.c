/* events.c - libpfm4 names, close matches, and PMU detection. */
#include "sampler/events.h"
#include "lazy_lib.h"
#include "util.h"

#include <errno.h>
#include <ctype.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
			int group_fd, unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd,
			    flags);
}

/* libpfm4's functions, opened when an event's name is first looked up. */
_Static_assert(LIBPFM_VERSION >> 16 == 4, "libpfm.so.4 is the library of these headers");
static pfm_err_t (*initialize_p)(void);
static pfm_err_t (*pmu_info_p)(pfm_pmu_t pmu, pfm_pmu_info_t *output);
static int (*event_next_p)(int idx);
static pfm_err_t (*event_info_p)(int idx, pfm_os_t os, pfm_event_info_t *output);
static pfm_err_t (*encoding_p)(const char *str, int dfl_plm, pfm_os_t os, void *args);
static const struct lazy_fn pfm_fns[] = {
	{ "pfm_initialize", (void **)&initialize_p },
	{ "pfm_get_pmu_info", (void **)&pmu_info_p },
	{ "pfm_get_event_next", (void **)&event_next_p },
	{ "pfm_get_event_info", (void **)&event_info_p },
	{ "pfm_get_os_event_encoding", (void **)&encoding_p },
};
static struct lazy_lib pfm = {
	.soname = "libpfm.so.4", .package = "Debian's libpfm4 package",
	.fns = pfm_fns, .n = sizeof(pfm_fns) / sizeof(pfm_fns[0]),
};

static void pfm_not_ready(void)
{
	if (pfm.why[0])
		st_error("event names: %s", pfm.why);
	else
		st_error("libpfm4 failed to initialize; reinstall the libpfm4 package");
}

static bool pfm_ready(void)
{
	static int state;	/* 0 untried, 1 ready, -1 failed */

	if (!state)
		state = lazy_lib_ready(&pfm) && initialize_p() == PFM_SUCCESS ? 1 : -1;
	return state == 1;
}

bool event_is_waits(const char *name)
{
	/* shimtop's and perf record --off-cpu's, and perf.data's switches (paired). */
	return !strcmp(name, "offcpu-time") || !strcmp(name, "sched:sched_switch");
}

bool event_is_clock(const char *name)
{
	/* perf's terms and modifiers kept: "cpu-clock/freq=1000/", "task-clock:u". */
	size_t n = strcspn(name, "/:");

	return (n == 9 && !strncmp(name, "cpu-clock", n)) ||
	       (n == 10 && !strncmp(name, "task-clock", n));
}

bool event_weighs_ns(const char *name)
{
	return event_is_clock(name) || event_is_waits(name);
}

bool event_is_hardware(const struct perf_event_attr *attr)
{
	return attr->type == PERF_TYPE_HARDWARE ||
	       attr->type == PERF_TYPE_HW_CACHE || attr->type == PERF_TYPE_RAW;
}

bool event_is_cycles(const struct perf_event_attr *attr)
{
	return attr->type == PERF_TYPE_HARDWARE &&
	       attr->config == PERF_COUNT_HW_CPU_CYCLES;
}

bool event_is_instructions(const struct perf_event_attr *attr)
{
	return attr->type == PERF_TYPE_HARDWARE &&
	       attr->config == PERF_COUNT_HW_INSTRUCTIONS;
}

/*
 * The events shimtop picks itself (no -e), encoded as libpfm4 encodes
 * them (test_events compares): a session that names none loads no
 * libpfm4, whose start (its PMU tables) was 2-9 ms and 300 page faults
 * of every attach.
 */
static bool encode_default(const char *name, struct perf_event_attr *attr)
{
	static const struct {
		const char *name;
		uint32_t type;
		uint64_t config;
	} own[] = {
		{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
		{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
		{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	};

	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
		if (strcmp(name, own[i].name))
			continue;
		memset(attr, 0, sizeof(*attr));
		attr->type = own[i].type;
		attr->config = own[i].config;
		attr->exclude_hv = 1;
		attr->exclude_guest = 1;
		attr->size = sizeof(*attr);
		return true;
	}
	return false;
}

int event_encode_with_libpfm(const char *name, struct perf_event_attr *attr)
{
	pfm_perf_encode_arg_t arg;

	if (!pfm_ready())
		return -ENOSYS;
	memset(attr, 0, sizeof(*attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = attr;
	arg.size = sizeof(arg);
	if (encoding_p(name, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg) != PFM_SUCCESS)
		return -EINVAL;
	attr->size = sizeof(*attr);
	return 0;
}

int event_encode(const char *name, struct perf_event_attr *attr)
{
	return encode_default(name, attr) ? 0 : event_encode_with_libpfm(name, attr);
}

/* Whether every name of list is one shimtop encodes itself. */
static bool all_default(const char *list)
{
	char name[32];

	while (*list) {
		size_t n = strcspn(list, ",");
		struct perf_event_attr attr;

		if (n == 0 || n >= sizeof(name))
			return false;
		memcpy(name, list, n);
		name[n] = '\0';
		if (!encode_default(name, &attr))
			return false;
		list += n + (list[n] == ',');
	}
	return true;
}

int events_parse(const char *list, struct st_event *out, size_t *n)
{
	char *copy, *save = NULL, *tok;
	int rc = 0;

	*n = 0;
	if (!all_default(list) && !pfm_ready()) {
		pfm_not_ready();
		return -ENOSYS;
	}
	copy = st_xstrdup(list);
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char close[5][64];
		size_t k;

		/* A sample carries ST_MAX_EVENTS counters of a group, as many as are sampled apart. */
		if (*n == ST_MAX_SAMPLED) {
			st_error("at most %d events in -e; drop some", ST_MAX_SAMPLED);
			rc = -EINVAL;
			break;
		}
		if (strlen(tok) >= sizeof(out->name) ||
		    event_encode(tok, &out[*n].attr) < 0) {
			char line[1024];
			size_t at;

			k = events_suggest(tok, close, 5);
			at = (size_t)snprintf(line, sizeof(line), "unknown event '%.200s'", tok);
			for (size_t i = 0; i < k && at < sizeof(line); i++)
				at += (size_t)snprintf(line + at, sizeof(line) - at, "%s%s",
						       i ? ", " : "; did you mean: ", close[i]);
			st_error("%s%s", line, k ? "? (shimtop --list-events lists all names)"
				 : "; shimtop --list-events lists the names");
			rc = -EINVAL;
			break;
		}
		snprintf(out[*n].name, sizeof(out->name), "%s", tok);
		(*n)++;
	}
	free(copy);
	if (!rc && *n == 0) {
		st_error("-e names no event; give e.g. -e cpu-clock");
		rc = -EINVAL;
	}
	return rc;
}

int events_parse_spec(const char *spec, struct st_event *out, size_t *n,
		      bool *grouped)
{
	size_t len = strlen(spec);
	char *inner;
	int rc;

	*grouped = spec[0] == '{';
	if (spec[0] == '{') {
		if (len < 2 || spec[len - 1] != '}' || strpbrk(spec + 1, "{") ||
		    strchr(spec, '}') != spec + len - 1) {
			st_error("-e '%s': shimtop samples one group, written {a,b,...}; "
				 "split other groups into another run", spec);
			return -EINVAL;
		}
		inner = st_xstrdup(spec + 1);
		inner[len - 2] = '\0';
		rc = events_parse(inner, out, n);
		free(inner);
		return rc;
	}
	if (strpbrk(spec, "{}")) {
		st_error("-e '%s': a group is written {a,b,...} and must be the whole -e", spec);
		return -EINVAL;
	}
	return events_parse(spec, out, n);
}

/* Whether the kernel opens the event, counting this process. */
static bool event_opens(const struct perf_event_attr *attr)
{
	struct perf_event_attr a = *attr;
	int fd;

	a.size = sizeof(a);
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = sys_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

int events_list(FILE *out)
{
	size_t total = 0, usable = 0;

	if (!pfm_ready()) {
		pfm_not_ready();
		return -ENOSYS;
	}
	for (int p = PFM_PMU_NONE; p < PFM_PMU_MAX; p++) {
		pfm_pmu_info_t pinfo;

		memset(&pinfo, 0, sizeof(pinfo));
		pinfo.size = sizeof(pinfo);
		/* perf_raw's one "event" is the rNNNN syntax, not a name. */
		if (pmu_info_p(p, &pinfo) != PFM_SUCCESS || !pinfo.is_present ||
		    !strcmp(pinfo.name, "perf_raw"))
			continue;
		fprintf(out, "%s: %s\n", pinfo.name, pinfo.desc ? pinfo.desc : "");
		for (int e = pinfo.first_event; e != -1; e = event_next_p(e)) {
			pfm_event_info_t einfo;
			struct perf_event_attr attr;
			char name[64];
			bool ok;

			memset(&einfo, 0, sizeof(einfo));
			einfo.size = sizeof(einfo);
			if (event_info_p(e, PFM_OS_NONE, &einfo) != PFM_SUCCESS)
				continue;
			/* As perf users type them; libpfm4 matches either case. */
			snprintf(name, sizeof(name), "%s", einfo.name);
			for (char *c = name; *c; c++)
				*c = (char)tolower((unsigned char)*c);
			ok = event_encode(name, &attr) == 0 && event_opens(&attr);
			fprintf(out, "  %-32s %-11s %.80s\n", name,
				ok ? "available" : "unavailable", einfo.desc ? einfo.desc : "");
			total++;
			usable += ok;
		}
	}
	fprintf(out, "\n%zu events, %zu available here (\"unavailable\": the kernel "
		"refused to open it, e.g. no hardware PMU in a VM).\n"
		"Use a name with -e; -e '{a,b}' samples a and counts b with it.\n",
		total, usable);
	return 0;
}

/* Edit distance, case-insensitive, with '-' and '_' treated alike. */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t *row, best;

	if (la > 63 || lb > 63)
		return 1000;
	row = st_xcalloc(lb + 1, sizeof(*row));
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			int ca = tolower((unsigned char)a[i - 1]);
			int cb = tolower((unsigned char)b[j - 1]);
			size_t up = row[j];
			size_t sub = diag + !(ca == cb || (ca == '-' && cb == '_') ||
					     (ca == '_' && cb == '-'));
			size_t v = row[j - 1] + 1 < up + 1 ? row[j - 1] + 1 : up + 1;

			row[j] = sub < v ? sub : v;
			diag = up;
		}
	}
	best = row[lb];
	free(row);
	return best;
}

struct candidate {
	char name[64];
	size_t score;
};

static void consider(struct candidate *c, size_t max, size_t *n,
		     const char *name, size_t score)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (!strcmp(c[i].name, name))
			return;
	if (*n < max)
		(*n)++;
	else if (score >= c[max - 1].score)
		return;
	for (i = *n - 1; i > 0 && c[i - 1].score > score; i--)
		c[i] = c[i - 1];
	snprintf(c[i].name, sizeof(c[i].name), "%s", name);
	c[i].score = score;
}

size_t events_suggest(const char *name, char out[][64], size_t max)
{
	struct candidate *c;
	size_t n = 0, limit = strlen(name) / 3 + 2;

	if (!pfm_ready() || max == 0)
		return 0;
	c = st_xcalloc(max, sizeof(*c));
	for (int p = PFM_PMU_NONE; p < PFM_PMU_MAX; p++) {
		pfm_pmu_info_t pinfo;

		memset(&pinfo, 0, sizeof(pinfo));
		pinfo.size = sizeof(pinfo);
		if (pmu_info_p(p, &pinfo) != PFM_SUCCESS || !pinfo.is_present)
			continue;
		for (int e = pinfo.first_event; e != -1; e = event_next_p(e)) {
			pfm_event_info_t einfo;
			size_t d;

			memset(&einfo, 0, sizeof(einfo));
			einfo.size = sizeof(einfo);
			if (event_info_p(e, PFM_OS_NONE, &einfo) != PFM_SUCCESS)
				continue;
			d = distance(name, einfo.name);
			if (strcasestr(einfo.name, name) && strlen(name) >= 3)
				d = d < 2 ? d : 2;
			if (d <= limit)
				consider(c, max, &n, einfo.name, d);
		}
	}
	/* libpfm4 matches names case-insensitively; perf users type lower case. */
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < 64 && c[i].name[j]; j++)
			c[i].name[j] = (char)tolower((unsigned char)c[i].name[j]);
		memcpy(out[i], c[i].name, 64);
	}
	free(c);
	return n;
}

static bool sysfs_has(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

bool events_have_hardware_pmu(void)
{
	struct perf_event_attr attr;
	const char *force = getenv("SHIMTOP_NO_PMU");
	int fd;

	if (force && *force && strcmp(force, "0"))
		return false;
	if (!sysfs_has("/sys/bus/event_source/devices/cpu") &&
	    !sysfs_has("/sys/bus/event_source/devices/cpu_core"))
		return false;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}
