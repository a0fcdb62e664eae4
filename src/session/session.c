/* session.c - wiring target, source, ring, symbols and model together. */
#include "session/session_state.h"
#include "session/output_keeper.h"
#include "ring/record.h"
#include "ring/record_file.h"
#include "ring/ring.h"
#include "sampler/observer.h"
#include "sampler/perf_source.h"
#include "sampler/kmod_source.h"
#include "sampler/perf_data.h"
#include "sampler/perf_gunzip.h"
#include "sampler/replay_source.h"
#include "symbols/stack_needs.h"
#include "sampler/kernel_walk.h"
#include "symbols/symbols.h"
#include "stop_signal.h"
#include "sampler/target.h"
#include "mapped.h"
#include "output_file.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/eventfd.h>
#include <time.h>

#define RING_BYTES	(8u << 20)
/* Records held while a snapshot is written, without --memory: a minute at 10 kHz and more. */
#define HELD_BYTES	((size_t)256 << 20)
#define OUTPUT_KEEP	(4u << 20)	/* a launched command's output under the UI: 4-8 MiB kept */
#define RING_COPIES	1024u		/* first copies the ring holds, at least */
#define KW_FIRST_COPY	(16u << 10)	/* a let-out sample's first copy, walker on */
/* The front's longest wait while copies flow (a batch pass is 0.5 s otherwise). */
#define TEACHING_WAIT_NS	100000000u
/* A batch session's sampler drains at least this often once copies are few. */
#define BATCH_POLL_MS		500
#define OBS_RING_BYTES	(32u << 20)	/* ~0.3 s of the fastest observer */
/*
 * A pump returns after PUMP_NS whatever the backlog, so the UI answers
 * keys and --duration ends on time; the stop drains for at most STOP_NS,
 * and what is left then is counted as dropped, not waited for.
 */
#define PUMP_NS		(50u * 1000 * 1000)
#define STOP_NS		(500u * 1000 * 1000)
/*
 * Records between clock reads: one record can cost 100 ms (its library's
 * first symbol table), so the clock is read often; a read is tens of ns.
 * The UI's pumps read it after every record (a process's first unwind
 * can take 20 ms).
 */
#define CLOCK_EVERY	8u
#define CLOCK_EVERY_OBS	1u	/* observer batches: hundreds of samples each */

/*
 * What already runs is told to the model as records, as perf synthesizes
 * them: each thread's command (COMM) and each process's executable
 * mappings (MMAP), so a recording has them too.
 */
struct map_ctx {
	struct session *s;
	pid_t pid;
	_Alignas(8) unsigned char buf[ST_RECORD_MAX];
};

static void model_events_from_info(struct session *s);

static void take(struct session *s, const void *rec)
{
	const struct st_sample *sm = rec;

	/*
	 * W took effect: the source said so (its info) before its first
	 * off-CPU sample, which must not count as the on-CPU event's.
	 */
	if (s->waits_asked && sm->h.type == ST_REC_SAMPLE && ST_SAMPLE_OFFCPU(sm->flags) &&
	    (int)ST_SAMPLE_EVENT(sm->flags) >= s->model.nsampled) {
		source_info(s->source, &s->info);
		model_events_from_info(s);
		s->waits_asked = false;
	}
	if (s->recorder)
		record_writer_append(s->recorder, rec);
	model_ingest(&s->model, rec);
}

static void initial_map(uint64_t start, uint64_t len, uint64_t pgoff,
			const char *path, void *arg)
{
	struct map_ctx *c = arg;

	if (st_mmap_make(c->buf, sizeof(c->buf), (uint32_t)c->pid, st_now_ns(),
			 start, len, pgoff, path))
		take(c->s, c->buf);
}

static void synthesize_process(struct session *s, struct map_ctx *c, pid_t pid)
{
	pid_t *tids = NULL;
	size_t n = 0;

	if (target_list_threads(pid, &tids, &n) < 0)
		return;
	for (size_t i = 0; i < n; i++) {
		struct st_comm cm;
		char name[64] = { 0 };

		target_comm(tids[i] == pid ? pid : tids[i], name, sizeof(name));
		memset(&cm, 0, sizeof(cm));
		cm.h = (struct st_header){ ST_REC_COMM, ST_SOURCE_PERF, sizeof(cm) };
		cm.pid = (uint32_t)pid;
		cm.tid = (uint32_t)tids[i];
		cm.time = st_now_ns();
		memcpy(cm.comm, name, sizeof(cm.comm) - 1);	/* the kernel's 15 at most */
		take(s, &cm);
	}
	free(tids);
	c->pid = pid;
	symbols_read_proc_maps(pid, initial_map, c);
}

static void synthesize_existing(struct session *s, const struct perf_source_config *cfg)
{
	struct map_ctx *c = st_xmalloc(sizeof(*c));
	pid_t *pids = NULL, last = 0;
	size_t n = 0;

	c->s = s;
	if (cfg->scope == PERF_SCOPE_SYSTEM) {
		if (target_list_processes(true, 0, &pids, &n) == 0)
			for (size_t i = 0; i < n; i++)
				synthesize_process(s, c, pids[i]);
		free(pids);
	} else {
		for (size_t i = 0; i < cfg->npids; i++) {
			pid_t pid = cfg->scope == PERF_SCOPE_THREADS
				? target_thread_process(cfg->pids[i]) : cfg->pids[i];

			if (pid > 0 && pid != last)
				synthesize_process(s, c, pid);
			last = pid;
		}
	}
	free(c);
}

/*
 * A recording: shimtop's, or perf record's perf.data, told apart by their
 * magic; "-" is perf record -o -'s stream on stdin.
 */
static void expect_build_id(const char *path, const unsigned char *id, size_t len, bool kernel,
			    void *arg)
{
	symbolizer_expect_build_id(arg, path, id, len, kernel);
}

/* A perf.data's source, its files' build-ids told to the symbolizer. */
static struct st_source *open_perf_data(struct perf_data *p, const char *path, bool realtime,
					struct ring *ring, struct st_file_header *h,
					struct symbolizer *symbols, bool off_cpu)
{
	if (p && !perf_data_read_switches(p, off_cpu) && off_cpu)
		st_warn("--off-cpu reads a perf.data's sched:sched_switch samples as off-CPU time: "
			"'%s' has none with their states (record with -e sched:sched_switch)", path);
	if (p) {
		char release[128];

		perf_data_build_ids(p, expect_build_id, symbols);
		symbolizer_expect_kernel(symbols, perf_data_osrelease(p, release, sizeof(release))
					 ? release : NULL);
	}
	if (perf_data_missing(p))
		st_warn("perf.data '%s' is cut short in its feature sections, which held its %s: "
			"its samples are all here (its files are found by their paths alone)",
			path, perf_data_missing(p));
	return replay_source_perf_data(p, realtime, ring, h);
}

static struct st_source *open_recording(const char *path, const char *event, bool realtime,
					struct ring *ring, struct st_file_header *h,
					struct symbolizer *symbols, bool *perf_data, bool off_cpu)
{
	unsigned char first[8];
	char damage[256] = "";
	struct perf_data *p;
	bool whole;
	FILE *f;

	*perf_data = true;
	if (!strcmp(path, "-"))
		return open_perf_data(perf_data_on(stdin, "-", h, event), path, realtime, ring, h, symbols,
				      off_cpu);
	f = fopen(path, "rbe");
	whole = f && fread(first, 1, sizeof(first), f) == sizeof(first);
	if (whole && perf_gzipped(first, sizeof(first))) {
		if (!(f = perf_gunzip(f, path, damage, sizeof(damage))))
			return NULL;
		if (fread(first, 1, sizeof(first), f) != sizeof(first) ||
		    !perf_data_is(first, sizeof(first))) {
			st_error("'%s' is gzip'd, and what it holds is not a perf.data file: gunzip "
				 "it to read a recording or snapshot of shimtop's", path);
			fclose(f);
			return NULL;
		}
	}
	if (whole && perf_data_is(first, sizeof(first)) && fseeko(f, 0, SEEK_SET) == 0) {
		p = perf_data_on(f, path, h, event);
		perf_data_damaged(p, damage);
		return open_perf_data(p, path, realtime, ring, h, symbols, off_cpu);
	}
	*perf_data = false;
	if (f)
		fclose(f);
	return replay_source_create(path, realtime, ring, h);
}

static int open_replay(struct session *s, const struct st_options *o)
{
	struct st_file_header h;

	const char *path = o->replay_path;

	s->symbols = symbolizer_create(false);
	model_init(&s->model, s->symbols);
	/* A snapshot: its symbols stand in for the files, its records replay. */
	if (snapshot_is(path)) {
		/* Said why; a file that cannot be read (exit 1, as a recording's). */
		if (snapshot_open(path, s->symbols, &s->snap) < 0)
			return -EIO;
		s->is_snapshot = true;
		if (s->snap.skipped[0])
			st_warn("snapshot '%s': sections %s are newer than this shimtop and "
				"were skipped", path, s->snap.skipped);
	}
	if (s->is_snapshot) {
		FILE *f = snapshot_records(&s->snap);

		s->source = replay_source_from(f ? record_reader_on(f, "the snapshot's records", &h)
					       : NULL, o->realtime, s->ring, &h);
		if (!f)
			st_error("snapshot '%s' has an empty records section: the file is corrupt",
				 path);
	} else {
		if (o->symfs) {
			struct stat st;

			if (stat(o->symfs, &st) < 0 || !S_ISDIR(st.st_mode)) {
				st_error("--symfs '%s' is not a directory: give the directory that "
					 "holds the recorded files under their paths", o->symfs);
				return -EINVAL;
			}
			symbolizer_set_symfs(s->symbols, o->symfs);
		}
		if (o->kallsyms) {
			int fd = st_open_untrusted(-1, o->kallsyms, 0);

			if (fd < 0) {
				st_error("--kallsyms '%s' cannot be read (%s): give a copy of "
					 "/proc/kallsyms, read as root, of the machine that recorded",
					 o->kallsyms, strerror(errno));
				return -EINVAL;
			}
			close(fd);
			symbolizer_set_kallsyms(s->symbols, o->kallsyms);
		}
		s->source = open_recording(path, o->events, o->realtime, s->ring, &h, s->symbols,
					   &s->is_perf_data, o->off_cpu);
	}
	if (!s->source)
		return -EIO;	/* said why; a file that cannot be read */
	if (o->off_cpu && !s->is_perf_data) {
		st_error("--off-cpu with -i reads a perf.data's sched:sched_switch samples as off-CPU "
			 "time; '%s' is shimtop's own, whose waits show as recorded: drop --off-cpu",
			 path);
		return -EINVAL;
	}
	if (s->is_perf_data && o->callerchain) {
		st_error("--call-graph callerchain needs each sample's stack depth, which perf.data "
			 "does not hold (perf records no stack base): drop it to see the file's "
			 "own chains");
		return -EINVAL;
	}
	s->pid = h.pid;
	snprintf(s->comm, sizeof(s->comm), "%s", h.comm);
	if (s->is_snapshot)
		s->file_elapsed = h.elapsed_ms / 1e3;
	s->model.recorded = true;
	s->model.unwind_hint = s->is_perf_data
		? "perf record --call-graph dwarf records what unwinds it"
		: "record with --call-graph auto to unwind it";
	/* Several processes were recorded (-a, -u, a -p list): rows per process. */
	if (h.pid == 0 && !o->sort.given)
		s->sort.split = ST_SPLIT_PID;
	source_info(s->source, &s->info);
	return 0;
}

/* The threads of -t, checked: each exists and belongs to -p's process if given. */
static int resolve_threads(struct session *s, const struct st_options *o,
			   struct perf_source_config *cfg)
{
	cfg->scope = PERF_SCOPE_THREADS;
	for (size_t i = 0; i < o->npids; i++) {
		pid_t owner = target_thread_process(o->pids[i]);

		if (owner < 0) {
			st_error("-t: no thread with id %d; list a process's threads "
				 "with ls /proc/PID/task", (int)o->pids[i]);
			return -ESRCH;
		}
		if (o->pid && owner != o->pid) {
			st_error("-t: thread %d belongs to process %d, not to %d (-p)",
				 (int)o->pids[i], (int)owner, (int)o->pid);
			return -EINVAL;
		}
		if (i == 0)
			s->pid = owner;
		cfg->pids[cfg->npids++] = o->pids[i];
	}
	target_comm(s->pid, s->comm, sizeof(s->comm));
	if (o->npids > 1) {
		char comm[16];

		memcpy(comm, s->comm, sizeof(comm) - 1);
		comm[sizeof(comm) - 1] = '\0';
		snprintf(s->comm, sizeof(s->comm), "%zu threads of %d (%s)",
			 o->npids, (int)s->pid, comm);
		s->pid = 0;
	}
	return 0;
}

/* -u: the user's processes now. */
static int resolve_user(struct session *s, const struct st_options *o,
			struct perf_source_config *cfg)
{
	pid_t *pids = NULL;
	size_t n = 0;
	uid_t uid;
	int rc = target_resolve_user(o->user, &uid);

	if (rc < 0)
		return rc;
	if (target_list_processes(false, uid, &pids, &n) < 0 || n == 0) {
		free(pids);
		st_error("-u: user '%s' runs no process now; start one, or use -a", o->user);
		return -ESRCH;
	}
	if (n > ST_MAX_TARGETS) {
		free(pids);
		st_error("-u: user '%s' runs %zu processes, more than the %d shimtop "
			 "follows; use -a (every process) instead", o->user, n,
			 ST_MAX_TARGETS);
		return -E2BIG;
	}
	cfg->scope = PERF_SCOPE_PROCESSES;
	memcpy(cfg->pids, pids, n * sizeof(*pids));
	cfg->npids = n;
	free(pids);
	snprintf(s->comm, sizeof(s->comm), "user %s: %zu processes", o->user, n);
	return 0;
}

/* Attaches (-p), launches (command, --demo), or lists what is sampled. */
/* Whether a live session writes standard output at its end (the server never does). */
static bool report_on_stdout(const struct st_options *o)
{
	return o->batch && !o->serve_address;
}

/*
 * A launched command's output.  Under the UI its screen is the UI's (what
 * the command prints would overwrite it): a new file in $TMPDIR, named in
 * the footer, and its input /dev/null (the UI reads the terminal).
 * --target-output FILE there (written as shimtop's files are: no link
 * followed, nothing truncated in place); '-' leaves the terminal to it.
 * In batch the command keeps shimtop's input; its output goes to
 * standard error where standard output holds the report, as perf stat's
 * report does (a JSON report after a query's rows does not parse).
 */
static int launch(struct session *s, const struct st_options *o, char *const argv[])
{
	struct st_output out;
	const char *dir = getenv("TMPDIR");
	int fd = -1, rc;

	memset(&out, 0, sizeof(out));
	s->target_output[0] = '\0';
	if (o->target_output && strcmp(o->target_output, "-")) {
		rc = st_output_stream(&out, o->target_output, 0);
		if (rc < 0) {
			st_error("cannot write the command's output to '%s': %s", o->target_output,
				 st_output_strerror(rc));
			return rc;
		}
		fd = st_output_fd(&out);
		snprintf(s->target_output, sizeof(s->target_output), "%s", o->target_output);
	} else if (!o->target_output && !o->batch) {
		dir = dir && dir[0] == '/' ? dir : "/tmp";
		snprintf(s->target_output, sizeof(s->target_output), "%s/shimtop-output-XXXXXX", dir);
		fd = mkostemp(s->target_output, O_CLOEXEC);
		s->target_output_made = fd >= 0;
		if (fd < 0) {
			int e = errno;

			st_error("cannot make a file in %s for the command's output: %s; give "
				 "--target-output FILE (or - for the terminal)", dir, strerror(e));
			s->target_output[0] = '\0';
			return -e;
		}
		/* Through the keeper, which bounds it (or, where it cannot start, unbounded). */
		s->keeper = output_keeper_start(fd, OUTPUT_KEEP);
		if (s->keeper)
			fd = output_keeper_fd(s->keeper);
	} else if (!o->target_output && report_on_stdout(o) && o->target == ST_TARGET_COMMAND) {
		fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
		s->target_output_stderr = fd >= 0;	/* said after the report (session.h) */
	}
	rc = target_launch(&s->target, argv, fd, !o->batch);
	if (out.f)
		st_output_finish(&out, 0);
	else if (s->keeper)
		output_keeper_launched(s->keeper);	/* the file is the keeper's */
	else if (fd >= 0)
		close(fd);
	return rc;
}

const char *session_target_output(const struct session *s)
{
	return s->target_output[0] ? s->target_output : NULL;
}

bool session_target_output_on_stderr(const struct session *s)
{
	return s->target_output_stderr;
}

bool session_target_output_kept(const struct session *s, struct output_kept *out)
{
	if (!s->keeper)
		return false;
	output_keeper_read(s->keeper, out);
	return true;
}

static int resolve_target(struct session *s, const struct st_options *o,
			  struct perf_source_config *cfg)
{
	char *demo[] = { (char *)target_demo_path(), NULL };
	int status = 0;

	switch (o->target) {
	case ST_TARGET_SYSTEM:
		cfg->scope = PERF_SCOPE_SYSTEM;
		snprintf(s->comm, sizeof(s->comm), "system-wide%s%s",
			 o->cpus ? ", CPUs " : "", o->cpus ? o->cpus : "");
		return 0;
	case ST_TARGET_TIDS:
		return resolve_threads(s, o, cfg);
	case ST_TARGET_USER:
		return resolve_user(s, o, cfg);
	case ST_TARGET_PIDS:
		for (size_t i = o->npids; i-- > 0;) {
			status = target_attach(&s->target, o->pids[i]);
			if (status < 0)
				return status;
			cfg->pids[i] = o->pids[i];
		}
		cfg->npids = o->npids;
		break;
	case ST_TARGET_COMMAND:
	default:
		status = launch(s, o, o->target == ST_TARGET_COMMAND ? o->command : demo);
		break;
	}
	if (status < 0)
		return status;
	cfg->scope = PERF_SCOPE_PROCESSES;
	if (!cfg->npids)
		cfg->pids[cfg->npids++] = s->target.pid;
	s->pid = s->target.pid;
	snprintf(s->comm, sizeof(s->comm), "%s", s->target.comm);
	if (cfg->npids > 1) {
		snprintf(s->comm, sizeof(s->comm), "%zu processes", cfg->npids);
		s->pid = 0;
	}
	return 0;
}

static int open_live(struct session *s, const struct st_options *o)
{
	struct perf_source_config *cfg = st_xcalloc(1, sizeof(*cfg));
	int status;

	/* Live stacks (now, or after U): copies cut to what the walks read. */
	s->stack_needs = st_xcalloc(1, sizeof(*s->stack_needs));
	/* A size given stays; else (and after U) copies grow where walks run off them. */
	s->stack_needs->grow_max = o->stack_copy && !o->stack_copy_grows ? 0 : STACK_COPY_GROW_MAX;

	/*
	 * --call-graph auto (the default): copies walked in the kernel first
	 * where it allows (SHIMTOP_KERNEL_WALK=0: never, for comparisons).
	 * dwarf and callerchain keep a copy a sample, as perf's dwarf does:
	 * CallerChaining and its reports read them.
	 */
	if (o->stack_copy && o->unwind_broken && !o->callerchain && !o->ibs &&
	    !(getenv("SHIMTOP_KERNEL_WALK") && !strcmp(getenv("SHIMTOP_KERNEL_WALK"), "0")))
		s->kernel_walk = kernel_walk_open(o->off_cpu, s->kernel_walk_why,
						  sizeof(s->kernel_walk_why));
	if (s->kernel_walk && getenv("SHIMTOP_UNWIND_CHECK"))
		kernel_walk_set_check(s->kernel_walk, true);

	/*
	 * With the kernel's walker a copy goes out only with a sample it did
	 * not walk (a tenth or less, most before it is taught): copies twice
	 * perf's 8 KiB then cost little, and the first samples of a program
	 * that starts deep (sqlite3's recursive query) reach its entry.
	 */
	unsigned stack_copy = s->kernel_walk && o->stack_copy_grows && o->stack_copy < KW_FIRST_COPY
			      ? KW_FIRST_COPY : o->stack_copy;
	const struct perf_source_request rq = {
		.cpus = o->cpus, .events = o->events, .freq = o->freq, .period = o->period,
		.randomize = o->randomize, .callchain = o->callchain, .stack_copy = stack_copy,
		.stack_needs = s->stack_needs, .kernel_walk = s->kernel_walk,
		.ibs = o->ibs == ST_IBS_OP ? PERF_IBS_OP : o->ibs == ST_IBS_FETCH ? PERF_IBS_FETCH
		       : PERF_IBS_NONE,
		.ibs_l3miss = o->ibs_l3miss, .ibs_ldlat = o->ibs_ldlat,
		.ibs_aggregate = o->ibs_aggregate, .off_cpu = o->off_cpu,
	};

	s->has_target = true;
	status = perf_source_configure(&rq, o->target == ST_TARGET_COMMAND ||
				       o->target == ST_TARGET_DEMO, cfg);
	/*
	 * Nobody watches a batch session's model between reports: fewer
	 * wake-ups.  Not under a --memory below the default: the reorder
	 * holds a pass's records, 3 MB of them in 0.5 s of a churning host.
	 */
	if (o->batch && (!o->memory_mb || o->memory_mb >= ST_MEMORY_MB))
		cfg->poll_ms = BATCH_POLL_MS;
	if (status == 0)
		status = resolve_target(s, o, cfg);
	if (status == 0) {
		/* --ibs: shimtop's own module where it is loaded, else perf's ibs_op. */
		if (cfg->ibs && cfg->ibs_kind == ST_IBS_OP_KIND && kmod_source_available()) {
			s->source = kmod_source_create(cfg, s->ring, &status);
		} else if (cfg->ibs_aggregate) {
			st_error("--ibs-aggregate counts in shimtop's IBS module, and %s is not "
				 "there: load it (src/kmod/README.md) or drop --ibs-aggregate",
				 SHIMTOP_IBS_DEVICE);
			status = -ENODEV;
		} else {
			s->source = perf_source_create(cfg, s->ring, &status);
		}
		if (s->source)
			status = 0;
	}
	if (status < 0) {
		free(cfg);
		return status;
	}
	source_info(s->source, &s->info);
	if (o->observe) {
		struct observer_config oc;
		const struct observer_request orq = {
			.cpu = o->observer_cpu, .pin_target = o->pin_target,
			.period = o->observer_period, .signals = o->signals,
			.nsignals = o->nsignals,
		};

		status = observer_configure(&orq, s->pid, s->target.launched, &oc);
		if (status < 0)
			goto out;
		s->obs_ring = ring_create(OBS_RING_BYTES);
		if (!s->obs_ring) {
			st_error("out of memory for the observer's ring");
			status = -ENOMEM;
			goto out;
		}
		s->observer = observer_source_create(&oc, s->obs_ring, &status);
		if (!s->observer)
			goto out;
		source_info(s->observer, &s->obs_info);
	}
	s->symbols = symbolizer_create(true);
	model_init(&s->model, s->symbols);
	if (o->record_path) {
		struct st_file_header h;

		record_header_from_info(&h, &s->info, s->pid, s->comm);
		s->recorder = record_writer_open(o->record_path, &h);
		if (!s->recorder) {
			status = -EIO;
			goto out;
		}
	}
	/* A launched target has no map of its own until exec: MMAP2 tells. */
	if (!s->target.launched)
		synthesize_existing(s, cfg);
	status = 0;
out:
	free(cfg);
	return status;
}

void session_show_event(struct session *s, int e)
{
	if (e < 0 || e >= s->model.nsampled)
		e = 0;
	s->model.shown_event = e;
	s->range.shown_event = e;
}

/* -i FILE -e EVENT: the recorded event the tables, tree and exports show. */
static int show_recorded_event(struct session *s, const struct st_options *o)
{
	for (int e = 0; e < s->info.nsampled; e++)
		if (!strcmp(s->info.sampled[e], o->events)) {
			session_show_event(s, e);
			return 0;
		}
	/* One event, or a group whose leader sampled. */
	if (!s->info.nsampled && !strncmp(s->info.events, o->events, strlen(o->events)) &&
	    strchr(",", s->info.events[strlen(o->events)]))
		return 0;
	st_error("-e %s: '%s' sampled %s; with -i, -e names one of them to show",
		 o->events, o->replay_path, s->info.events);
	return -EINVAL;
}

/*
 * The shared ring holds RING_COPIES samples with their first copies: a
 * quarter second at 4 kHz of a model still starting (every sample comes
 * with its copy until the kernel's walker is taught the process).  At 8
 * MiB, 16 KiB copies filled it in half that, and the demo dropped
 * samples in its first second on CI's machine.  Four times that at most.
 */
static size_t ring_bytes(const struct st_options *o)
{
	size_t copy = o->stack_copy_grows && o->stack_copy && o->stack_copy < KW_FIRST_COPY
		      ? KW_FIRST_COPY : o->stack_copy;

	size_t bytes = RING_COPIES * copy, most = 4 * RING_BYTES;

	/*
	 * Under --memory an eighth of it at most (a power of two: the ring's
	 * size), RING_BYTES at least: a replay's reader waits for room, and
	 * at 4 MB a 12 s replay took 27 s, not 0.1 (t-memory 815 s in CI).
	 */
	while (o->memory_mb && most > RING_BYTES && most > ((size_t)o->memory_mb << 20) / 8)
		most /= 2;
	/*
	 * A live session's reader never waits: under --memory below 64 MB
	 * (the ring a tenth of it) half, 0.2 s at 10 kHz on two CPUs, where
	 * the 8 MB ring was a fifth of what --memory 40 allows.
	 */
	if (!o->replay_path && o->memory_mb && o->memory_mb < 64 && most > RING_BYTES / 2)
		most = RING_BYTES / 2;
	bytes = bytes < RING_BYTES ? RING_BYTES : bytes;
	return bytes > most ? most : bytes;
}

static void session_release(struct session *s);

/* The events sampled each on its own, as the model counts them: the off-CPU and clock ones. */
static void model_events_from_info(struct session *s)
{
	model_set_sampled(&s->model, s->info.nsampled);
	for (int e = 0; e < s->info.nsampled; e++) {
		/* A perf.data's switches read one sample each are no waits. */
		if (s->info.switches_counted && !strcmp(s->info.sampled[e], "sched:sched_switch"))
			continue;
		if (event_is_waits(s->info.sampled[e])) {
			s->model.offcpu_event = e;
			s->model.offcpu_folded_us = !strcmp(s->info.sampled[e], OFFCPU_EVENT);
		}
		else if (event_is_clock(s->info.sampled[e]))
			s->model.clock_event = e;
	}
	/* A recording of waits alone. */
	if (!s->info.nsampled && event_is_waits(s->info.events) && !s->info.switches_counted) {
		s->model.offcpu_event = 0;
		s->model.offcpu_folded_us = !strcmp(s->info.events, OFFCPU_EVENT);
	}
}

static int open_session(struct session *s, const struct st_options *o)
{
	int status;

	s->opt = o;
	s->sort = o->sort;
	/*
	 * Under a --memory below the default, the helper threads (kernel
	 * symbols, symbol tables, unwind rows) share one arena beside the
	 * main one: each thread's own kept up to 6 MB freed but held.
	 */
	if (o->memory_mb && o->memory_mb < ST_MEMORY_MB)
		mallopt(M_ARENA_MAX, o->memory_mb < 64 ? 1 : 2);
	/* Below 128 MB a huge page's 2 MiB are too coarse a step of the bound. */
	if (o->memory_mb && o->memory_mb < 128)
		st_map_small_pages();
	s->ring = ring_create(ring_bytes(o));
	record_queue_init(&s->held, o->memory_mb ? ((size_t)o->memory_mb << 20) / 8 : HELD_BYTES);
	if (!s->ring) {
		st_error("out of memory for the sample ring");
		return -ENOMEM;
	}
	/* Live: the front sleeps until an eighth of the ring waits (session_wait). */
	if (!o->replay_path) {
		s->bell = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (s->bell >= 0)
			ring_set_bell(s->ring, s->bell, ring_capacity(s->ring) / 8);
	}
	status = o->replay_path ? open_replay(s, o) : open_live(s, o);
	if (status < 0)
		return status;
	s->model.stack_needs = s->stack_needs;
	s->model.unwind_teacher = s->kernel_walk ? kernel_walk_teacher(s->kernel_walk) : NULL;
	snprintf(s->model.kernel_walk_off, sizeof(s->model.kernel_walk_off), "%s",
		 s->kernel_walk_why);
	s->model.ipc_cycles = s->info.ipc_cycles;
	s->model.ipc_instructions = s->info.ipc_instructions;
	model_events_from_info(s);
	model_set_history(&s->model, (uint64_t)(o->history * 1e9));
	model_set_memory(&s->model, (size_t)o->memory_mb << 20);
	if (s->symbols && o->memory_mb) {
		symbolizer_bound(s->symbols, ((size_t)o->memory_mb << 20) / 64);
		symbolizer_bound_names(s->symbols, ((size_t)o->memory_mb << 20) / 8);
	}
	model_set_call_graph(&s->model, o->callerchain ? o->chain_window : MODEL_CHAIN_WINDOW,
			     o->callerchain);
	model_set_unwind_broken(&s->model, o->unwind_broken);
	/* For tests and bug reports: each walk by rows checked against libdwfl's. */
	s->model.unwind_check = getenv("SHIMTOP_UNWIND_CHECK") != NULL;
	session_show_event(s, 0);
	if (o->replay_path && o->events && (status = show_recorded_event(s, o)) < 0)
		return status;
	model_set_dte_tolerance(&s->model, o->dte_tolerance);
	/* What the snapshot's records cannot replay: said why (exit 1). */
	if (s->is_snapshot && snapshot_load_model(&s->snap, &s->model, s->symbols,
						  o->replay_path) < 0)
		return -EIO;
	return 0;
}

int session_start(struct session *s)
{
	int rc;

	if (!s->opt->replay_path && !s->info.kernel_excluded)
		symbolizer_prefetch_kernel(s->symbols);
	rc = source_start(s->source);
	if (rc < 0)
		return rc;
	/*
	 * --duration counts from here, every target's events on: -u or -a
	 * enable thousands of them, which took a loaded machine most of a
	 * second, and a session of one second sampled a few milliseconds.
	 */
	s->start_ns = st_now_ns();
	if (s->has_target && s->target.launched) {
		rc = target_release(&s->target);
		if (rc < 0)
			return rc;
	}
	/* After exec: --signal looks its variables up in the new image. */
	return s->observer ? source_start(s->observer) : 0;
}

/* Sampling ended at `end` (ns): what is drained after it is not sampling time. */
static void finish(struct session *s, const char *why, uint64_t end)
{
	if (s->finished)
		return;
	s->finished = true;
	s->end_ns = end;
	model_flush(&s->model);
	/* A JIT's map written at its exit names what waited, before any report. */
	model_jit_name(&s->model, true);
	snprintf(s->status, sizeof(s->status), "%.300s after %.1f s", why,
		 session_shown_elapsed(s));
}

/* Ingests records until the ring is empty or the clock passes deadline. */
/*
 * rec taken, unless the UI's pump finds its file's symbols still being
 * built: then false, and it waits where it is while a worker builds them.
 */
static bool take_ready(struct session *s, const void *rec)
{
	if (s->interactive && !model_ready(&s->model, rec)) {
		model_teach_ahead(&s->model, rec);
		s->behind = s->waiting = true;
		return false;
	}
	take(s, rec);
	return true;
}

/* While held (session_hold): the ring's records into the queue, in order, until it is full. */
static size_t hold(struct session *s, struct ring *r)
{
	size_t n = 0, len;
	const void *rec;

	while ((rec = ring_peek(r, &len))) {
		if (!record_queue_add(&s->held, rec, len)) {
			/* Full: taken from here on, the held ones first. */
			s->holding = false;
			s->behind = true;
			break;
		}
		ring_release(r);
		n++;
	}
	return n;
}

/* The held records into the model, as drain does the ring's; false while some wait. */
static bool take_held(struct session *s, uint64_t deadline, size_t *n)
{
	const void *rec;
	size_t len;

	while ((rec = record_queue_peek(&s->held, &len))) {
		if (!take_ready(s, rec))
			return false;
		record_queue_release(&s->held);
		if (++*n % CLOCK_EVERY == 0 && st_now_ns() >= deadline) {
			s->behind = record_queue_pending(&s->held);
			return !s->behind;
		}
	}
	return true;
}

static size_t drain(struct session *s, struct ring *r, uint64_t deadline)
{
	size_t n = 0, len, every = r == s->obs_ring || s->interactive ? CLOCK_EVERY_OBS
								      : CLOCK_EVERY;
	const void *rec, *later;

	/* A replay's reader waits for room: nothing to hold, nothing lost. */
	if (s->holding)
		return s->opt->replay_path ? 0 : hold(s, r);
	/* What was held goes first: the model takes records in the order they came. */
	if (!take_held(s, deadline, &n))
		return n;
	for (;;) {
		while ((later = ring_peek_ahead(r, MODEL_PREFETCH_AHEAD)))
			model_prefetch(&s->model, later);
		if (!(rec = ring_peek(r, &len)))
			break;
		/* Records in the ring are whole and aligned: we wrote them. */
		if (!take_ready(s, rec))
			break;
		ring_release(r);
		if (++n % every == 0 && st_now_ns() >= deadline) {
			s->behind = true;
			break;
		}
	}
	return n;
}

/*
 * At the stop deadline: the rest goes to the recording (nothing
 * collected is lost there) but not into the model; counted as dropped,
 * the held ones by the ring they came from.
 */
static void abandon(struct session *s, struct ring *r, uint64_t *count)
{
	const void *rec;
	size_t len;

	while ((rec = record_queue_peek(&s->held, &len))) {
		const struct st_header *h = rec;

		if (s->recorder)
			record_writer_append(s->recorder, rec);
		(*(h->source == ST_SOURCE_OBSERVER ? &s->obs_abandoned : &s->abandoned))++;
		record_queue_release(&s->held);
	}
	while ((rec = ring_peek(r, &len))) {
		if (s->recorder)
			record_writer_append(s->recorder, rec);
		ring_release(r);
		(*count)++;
	}
}

/*
 * Once a second: the files no process maps any more are let go, at once
 * when --memory is what bounds the history (it takes whatever the rest
 * leaves), and the heap's free pages given back so the history can have
 * them: under churn a quarter of the heap was freed but held (pages
 * between live blocks, which only malloc_trim returns).
 */
static void keep_within_memory(struct session *s)
{
	bool short_of_memory = s->model.history.rss_capped;

	symbolizer_let_go(s->symbols, short_of_memory);
	if (short_of_memory)
		malloc_trim(0);
	/* A second of the rest's growth, not a chunk's (1.6 s at 10 kHz, minutes at 100 Hz). */
	history_fit(&s->model.history);
}

static size_t pump_until(struct session *s, uint64_t deadline)
{
	size_t n, len;

	s->behind = s->waiting = false;
	if (s->symbols)
		symbolizer_set_time(s->symbols, st_now_ns());
	n = drain(s, s->ring, deadline);

	if (s->obs_ring)
		n += drain(s, s->obs_ring, deadline);
	if (s->observer)
		source_info(s->observer, &s->obs_info);
	if (!s->source)
		return n;
	source_info(s->source, &s->info);
	if (s->info.walk_note[0])
		snprintf(s->model.kernel_walk_off, sizeof(s->model.kernel_walk_off), "%s",
			 s->info.walk_note);
	/* The kernel's walker's counts: a look-up per count and CPU, so once a second. */
	if (s->kernel_walk && st_now_ns() - s->kernel_walk_read_at >= 1000000000u) {
		kernel_walk_counts(s->kernel_walk, s->model.kernel_walk_counts);
		s->kernel_walk_read_at = st_now_ns();
	}
	if (s->symbols && st_now_ns() - s->swept_at >= 1000000000u) {
		keep_within_memory(s);
		s->swept_at = st_now_ns();
	}
	if (s->has_target)
		target_reap(&s->target);
	if (s->info.finished && !ring_peek(s->ring, &len) && !record_queue_pending(&s->held))
		finish(s, s->info.finish_reason, st_now_ns());
	return n;
}

size_t session_pump(struct session *s)
{
	uint64_t began = st_now_ns();
	size_t n = pump_until(s, began + (s->interactive ? UI_PUMP_NS : PUMP_NS));

	if (s->pumped_at && began > s->pumped_at) {
		s->pump_rate = (double)n * 1e9 / (double)(began - s->pumped_at);
		/* The sampler's count of copies, read by the pump (source_info). */
		s->copy_rate = (double)(s->info.stack_copied - s->copied_then) * 1e9 /
			       (double)(began - s->pumped_at);
	}
	s->copied_then = s->info.stack_copied;
	s->pumped_at = began;
	if (!s->front_reading && s->source) {
		s->front_reading = true;
		source_front_reading(s->source);
	}
	return n;
}

/*
 * A live session's passes were 10 ms apart whatever came: 100 wake-ups a
 * second of an idle attach, where perf record wakes when its buffers
 * are a quarter full (15 a second).  Now the front sleeps until the
 * ring holds an eighth of its size (a burst of 16 KiB stack copies
 * fills that in 32 samples) or max_ns pass, or a signal comes.  Past
 * 5,000 records a second while stack copies flow, 10 ms as before: each
 * pass teaches the kernel's walker what the samples it let out needed,
 * and at 10 kHz a 200 ms pass let so many out with their copies that 273
 * of 48,000 were dropped.  Once few come (the walker taught), the bell:
 * 10 ms passes at 10 kHz were 100 wake-ups a second, most of the three
 * times perf record's context switches.  The observer's ring fills in
 * milliseconds: with it, 10 ms.
 */
void session_wait_for(struct session *s, uint64_t max_ns, int fd)
{
	const uint64_t tick = 10 * 1000 * 1000;
	struct pollfd p[2] = { { .fd = fd, .events = POLLIN }, { .fd = s->bell, .events = POLLIN } };
	bool teaching = s->copy_rate > ST_COPIES_FLOW_BYTES;
	struct timespec t;
	uint64_t rung;

	/* Each pass teaches what the copies needed (the walker, the copies' cut): 0.1 s at most. */
	if (teaching && max_ns > TEACHING_WAIT_NS)
		max_ns = TEACHING_WAIT_NS;
	t = (struct timespec){ (time_t)(max_ns / 1000000000u), (long)(max_ns % 1000000000u) };
	if (s->bell < 0 || s->obs_ring || max_ns <= tick || (s->pump_rate > 5000 && teaching)) {
		t = (struct timespec){ 0, (long)(max_ns < tick ? max_ns : tick) };
		(void)ppoll(p, 1, &t, NULL);
		return;
	}
	if (!ring_sleep(s->ring))
		return;
	(void)ppoll(p, 2, &t, NULL);
	if (read(s->bell, &rung, sizeof(rung)) < 0) {
		/* Not rung: the time passed, or fd has something. */
	}
	ring_woken(s->ring);
}

void session_wait(struct session *s, uint64_t max_ns)
{
	session_wait_for(s, max_ns, -1);
}

void session_hold(struct session *s, bool on)
{
	s->holding = on && !s->finished;
}

bool session_holding(const struct session *s)
{
	return s->holding;
}

void session_set_interactive(struct session *s, bool on)
{
	s->interactive = on;
	if (s->symbols)
		symbolizer_set_async(s->symbols, on);
}

uint64_t session_dropped(const struct session *s)
{
	return (s->ring ? ring_dropped(s->ring) : 0) + s->abandoned;
}

uint64_t session_observer_dropped(const struct session *s)
{
	return (s->obs_ring ? ring_dropped(s->obs_ring) : 0) + s->obs_abandoned;
}

void session_set_observer_period(struct session *s, uint64_t cycles)
{
	if (s->observer)
		observer_set_period(s->observer, cycles);
}

int session_change_period(struct session *s, int step, char *msg, size_t len)
{
	const struct st_period was_p = s->info.period, *p = &was_p;
	uint64_t v = p->value;
	char was[64], why[160];
	int rc;

	if (!s->source || s->info.kind == ST_SOURCE_REPLAY) {
		snprintf(msg, len, "%s", s->source ? "a recording's period was fixed when it was made"
						  : "sampling has ended");
		return -ENOTSUP;
	}
	period_format(p, was, sizeof(was));
	why[0] = '\0';
	if (step && p->unit == ST_PERIOD_HZ)
		v = step < 0 ? v * 2 : v / 2;
	else if (step)
		v = step < 0 ? v / 2 : v * 2;
	rc = source_set_period(s->source, v, step ? -1 : !p->randomized, why, sizeof(why));
	if (rc < 0) {
		snprintf(msg, len, "period unchanged: %s", why);
		return rc;
	}
	source_info(s->source, &s->info);
	if (step) {
		struct st_period now = *p;
		char to[64];

		now.value = s->info.period.value;	/* what the source took */
		period_format(&now, to, sizeof(to));
		snprintf(msg, len, "period %s (was %s)%s%s", to, was, why[0] ? ": " : "", why);
	} else {
		snprintf(msg, len, "period randomization %s",
			 p->unit == ST_PERIOD_HZ ? "does not apply to a frequency (-F)"
			 : p->randomized ? "off" : "on (+/-3%, as DCPI)");
	}
	return 0;
}

/* A change to what is sampled needs a live source: else msg says why not (what: fixed). */
static bool sampling_live(const struct session *s, const char *what, char *msg, size_t len)
{
	if (s->source && s->info.kind != ST_SOURCE_REPLAY)
		return true;
	if (s->source)
		snprintf(msg, len, "a recording's %s were fixed when it was made", what);
	else
		snprintf(msg, len, "sampling has ended");
	return false;
}

int session_unwind_broken_chains(struct session *s, char *msg, size_t len)
{
	char why[160] = "";
	int rc;

	if (!sampling_live(s, "call chains", msg, len)) {
		/* A recording: how to make one whose chains are whole. */
		if (s->model.recorded) {
			size_t at = strlen(msg);

			snprintf(msg + at, len - at, "; %s", s->model.unwind_hint);
		}
		return -ENOTSUP;
	}
	if (s->model.unwind_broken) {
		snprintf(msg, len, "call chains are unwound by DWARF where they stop early already");
		return -EALREADY;
	}
	if (s->opt->stack_copy || !s->opt->callchain) {
		snprintf(msg, len, "%s", s->opt->stack_copy
			 ? "samples are unwound from their stack copies already (--call-graph)"
			 : "no call chains are sampled (--call-graph none)");
		return -ENOTSUP;
	}
	rc = source_set_unwind(s->source, SESSION_AUTO_STACK, why, sizeof(why));
	if (rc < 0) {
		snprintf(msg, len, "call chains unchanged: %s", why);
		return rc;
	}
	model_set_unwind_broken(&s->model, true);
	snprintf(msg, len, "--call-graph auto: a %u-byte stack copy per sample, unwound by DWARF "
		 "where its frame-pointer chain stops early (costs more a sample)",
		 SESSION_AUTO_STACK);
	return 0;
}

int session_sample_waits(struct session *s, char *msg, size_t len)
{
	char why[320] = "";
	int rc;

	if (!sampling_live(s, "samples", msg, len))
		return -ENOTSUP;
	if (s->model.offcpu_event >= 0) {
		snprintf(msg, len, "off-CPU samples are taken already: e shows them");
		return -EALREADY;
	}
	/* A record file names its events at its start: one more would be misread. */
	if (s->opt->record_path) {
		snprintf(msg, len, "-o's file names its events at its start: start with --off-cpu "
			 "to record waits");
		return -ENOTSUP;
	}
	rc = source_set_offcpu(s->source, why, sizeof(why));
	if (rc < 0) {
		snprintf(msg, len, "no off-CPU samples: %s", why);
		return rc;
	}
	s->waits_asked = true;
	snprintf(msg, len, "--off-cpu: every switch off a CPU sampled, weighed by its wait "
		 "(e shows offcpu-time; H each thread's)");
	return 0;
}

int session_change_observer_period(struct session *s, int step, char *msg, size_t len)
{
	uint64_t was = s->obs_info.period.value, v;

	if (!s->observer) {
		snprintf(msg, len, "no observer in this session: run with --observe");
		return -ENOTSUP;
	}
	if (!step) {
		snprintf(msg, len, "the observer's period is not randomized: it reads "
			 "as soon as its period has passed");
		return -ENOTSUP;
	}
	/* From 0 (as fast as it can), ] starts at 64 cycles. */
	v = step < 0 ? was / 2 : was ? was * 2 : 64;
	if (v > ST_OBSERVER_PERIOD_MAX)
		v = ST_OBSERVER_PERIOD_MAX;
	observer_set_period(s->observer, v);
	source_info(s->observer, &s->obs_info);
	snprintf(msg, len, "observer period %llu cycles (was %llu)%s", (unsigned long long)v,
		 (unsigned long long)was, v ? "" : ": as fast as it can read");
	return 0;
}

void session_target_name(const struct session *s, char *buf, size_t len)
{
	/* The name its COMM records give now: a shim's exec (sh, then python3) renames it. */
	const struct model_thread *t = s->pid > 0 ? model_thread_of(&s->model, s->pid) : NULL;

	if (s->pid > 0)
		snprintf(buf, len, "pid %d (%s)", (int)s->pid, t && t->comm[0] ? t->comm : s->comm);
	else
		snprintf(buf, len, "%s", s->comm);
}

double session_elapsed(const struct session *s)
{
	uint64_t end = s->end_ns ? s->end_ns : st_now_ns();

	return s->start_ns ? (double)(end - s->start_ns) / 1e9 : 0;
}

double session_shown_elapsed(const struct session *s)
{
	/* A file's time is its samples', not how long reading it took; a snapshot's, its session's. */
	double span = s->has_target ? 0 : s->file_elapsed > 0 ? s->file_elapsed : session_span(s);

	return span > 0 ? span : session_elapsed(s);
}

const struct model *session_tables(const struct session *s)
{
	return s->ranged ? &s->range : &s->model;
}

const struct model *session_whole(const struct session *s)
{
	return &s->model;
}

void session_zero(struct session *s)
{
	model_zero(&s->model);
}

bool session_want_chaining(struct session *s)
{
	if (s->model.chaining_wanted || !s->model.unwind_broken)
		return false;
	s->model.chaining_wanted = true;
	return true;
}

void session_name_jit(struct session *s)
{
	model_jit_name(&s->model, true);
}

void session_settle(struct session *s)
{
	cct_settle(&s->model.tree);
	if (s->ranged)
		cct_settle(&s->range.tree);
}

double session_span(const struct session *s)
{
	const struct model *m = &s->model;
	const struct obs_model *o = &m->obs;

	if (m->last_time > m->first_time)
		return (double)(m->last_time - m->first_time) / 1e9;
	/* The observer's samples alone: their TSC span, not how long the reading took. */
	return o->tsc_hz && o->last_tsc > o->first_tsc
	       ? (double)(o->last_tsc - o->first_tsc) / (double)o->tsc_hz : 0;
}

void session_period_text(const struct session *s, char *buf, size_t len)
{
	const struct st_source_info *in = &s->info;
	uint64_t want = in->period_expected, seen = in->period_seen;
	char p[128];

	period_format(&in->period, p, sizeof(p));
	/*
	 * The effect, not the request: a second after a change, samples still
	 * taken with another period (beyond the +/-3% randomization) mean it
	 * did not take, and the header says so.
	 */
	if (want && seen && st_now_ns() > in->period_asked_ns + 1000000000u &&
	    (seen > want + want / 8 || seen < want - want / 8)) {
		snprintf(buf, len, "%s NOT APPLIED: samples still every %llu %s", p,
			 (unsigned long long)seen,
			 in->period.unit == ST_PERIOD_EVENTS ? "events" : "ns");
		return;
	}
	/* The +/-3% does not reach threads sampled through inherited copies: say where. */
	if (in->period.randomized && in->period_fixed_threads) {
		size_t at = strlen(p);

		snprintf(p + at, sizeof(p) - at, ", not randomized in %llu newer thread%s",
			 (unsigned long long)in->period_fixed_threads,
			 in->period_fixed_threads == 1 ? "" : "s");
	}
	if (in->period.unit == ST_PERIOD_NS && in->period.value)
		snprintf(buf, len, "%s (%.0f/s a busy thread)", p, 1e9 / (double)in->period.value);
	else if (in->period.unit == ST_PERIOD_HZ)
		snprintf(buf, len, "%s (a busy thread)", p);
	else
		snprintf(buf, len, "%s", p);
}

void session_period_brief(const struct session *s, char *buf, size_t len)
{
	period_format(&s->info.period, buf, len);
}

bool session_history_note(const struct session *s, char *buf, size_t len)
{
	const struct history *h = &s->model.history;
	char bound[48];

	if (!h->dropped_for_bytes)
		return false;
	if (h->rss_capped)
		snprintf(bound, sizeof(bound), "--memory %zu MB", h->rss_cap >> 20);
	else
		snprintf(bound, sizeof(bound), "the history's %zu MB", h->max_bytes >> 20);
	snprintf(buf, len, "history: %llu oldest samples dropped to stay within %s; "
		 "ranges reach back to %.1f s", (unsigned long long)h->dropped_for_bytes, bound,
		 h->complete_from > s->model.first_time
		 ? (double)(h->complete_from - s->model.first_time) / 1e9 : 0.0);
	/* Past the bound with the least history: the rest alone is over it, said with what it took. */
	if (h->rss_capped && h->rest_most + 2 * HISTORY_CHUNK_BYTES > h->rss_cap) {
		size_t at = strlen(buf), mb = (h->rest_most + 2 * HISTORY_CHUNK_BYTES + (1u << 20) - 1) >> 20;

		snprintf(buf + at, len - at, "; the rest of shimtop (rings, symbols, tables) took "
			 "up to %zu MB, over the bound: give --memory %zu or more", mb, mb + mb / 4);
	}
	return true;
}

bool session_names_note(const struct session *s, char *buf, size_t len)
{
	struct symbolizer_stats st;

	if (!s->symbols)
		return false;
	symbolizer_stats(s->symbols, &st);
	if (!st.names_folded)
		return false;
	snprintf(buf, len, "names: %llu look-ups of functions first seen past the room for names "
		 "counted as their module's %s (names and their rows took their %zu MB, "
		 "an eighth of --memory; raise it to name them)",
		 (unsigned long long)st.names_folded, SYMBOL_PAST_MEMORY,
		 symbolizer_names_most(s->symbols) >> 20);
	return true;
}

void session_clear_range(struct session *s)
{
	if (s->ranged)
		model_free(&s->range);
	s->ranged = false;
}

void session_range_ns(const struct session *s, uint64_t *from, uint64_t *to)
{
	const struct model *m = &s->model;

	*from = 0;
	*to = UINT64_MAX;
	if (!s->ranged)
		return;
	/*
	 * A window from the recording's start, or to its end, holds what lies
	 * before its first sample or after its last: the observer's samples,
	 * taken beside (two windows that tile the recording lost 2,244 of its
	 * 392,985 on a loaded machine, which started the observer first).
	 */
	if (s->range_from > 0)
		*from = m->first_time + (uint64_t)(s->range_from * 1e9);
	if (s->range_to < (double)(m->last_time - m->first_time) / 1e9)
		*to = m->first_time + (uint64_t)(s->range_to * 1e9);
}

void session_counted_ns(const struct session *s, uint64_t *from, uint64_t *to)
{
	session_range_ns(s, from, to);
	if (!s->ranged && *from < s->model.zeroed_at)
		*from = s->model.zeroed_at;
}

int session_select_range(struct session *s, double from, double to)
{
	const struct model *m = &s->model;
	struct model r;
	bool complete;

	if (!m->samples)
		return -ENODATA;
	complete = model_range(m, m->first_time + (uint64_t)(from * 1e9),
			       m->first_time + (uint64_t)(to * 1e9), &r);
	if (!r.samples) {
		model_free(&r);
		return -ENODATA;
	}
	session_clear_range(s);
	s->range = r;
	s->ranged = true;
	s->range_from = from;
	s->range_to = to;
	s->range_complete = complete;
	return 0;
}

void session_metrics(const struct session *s, struct session_metrics *out)
{
	const struct model *m = session_tables(s);

	memset(out, 0, sizeof(*out));
	out->elapsed = session_shown_elapsed(s);
	out->samples = m->samples;
	out->rate = model_rate(m);
	out->dropped = session_dropped(s);
	out->threads_live = model_live_threads(m);
	out->threads_seen = model_seen_threads(m);
	out->unknown = m->unknown;
	out->unknown_pct = model_unknown_pct(m);
	/* Lost records and the observer are the session's: no range splits them. */
	out->lost = s->model.kernel_lost;
	out->observing = s->model.obs.active;
	if (out->observing && out->elapsed > 0)
		out->observer_rate = (double)s->obs_info.produced / out->elapsed;
	out->dte_accepted_pct = dte_share(&s->model.obs.dte, s->model.obs.dte.accepted);
}

int session_read_all(struct session *s)
{
	const struct timespec tick = { 0, 5 * 1000 * 1000 };
	int rc = session_start(s);

	if (rc < 0)
		return rc;
	while (!s->finished && !stop_signal_received()) {
		if (!session_pump(s) || !s->behind)
			nanosleep(&tick, NULL);
	}
	return session_stop(s);
}

bool session_cut_short(const struct session *s, char *buf, size_t len)
{
	if (!s->opt->replay_path || s->info.finished)
		return false;
	snprintf(buf, len, "%s, at %.1f s of it", s->info.finish_reason,
		 session_shown_elapsed(s));
	return true;
}

int session_stop(struct session *s)
{
	uint64_t stopped = st_now_ns(), deadline = stopped + STOP_NS;
	int rc = 0;

	/* What is left is taken whole: lookups wait for their tables now. */
	session_set_interactive(s, false);
	s->holding = false;
	if (s->observer) {
		/* The observer first: it flushes its last batch, taken below. */
		source_stop(s->observer);
		source_info(s->observer, &s->obs_info);
	}
	if (s->source) {
		source_stop(s->source);
		while (pump_until(s, deadline) && st_now_ns() < deadline)
			;
		abandon(s, s->ring, &s->abandoned);
		if (s->kernel_walk)
			kernel_walk_counts(s->kernel_walk, s->model.kernel_walk_counts);
		/*
		 * A replay read to its end but left in the ring is no more
		 * whole than one stopped before its end: an export of it
		 * would pass a part off as the recording.
		 */
		if (s->opt->replay_path && s->abandoned && !s->info.failed)
			s->info.finished = false;
		if (!s->info.finished) {
			int sig = stop_signal_received();
			const char *name = sig ? sigabbrev_np(sig) : NULL;

			snprintf(s->info.finish_reason, sizeof(s->info.finish_reason),
				 "stopped%s%s%s", name ? " by SIG" : "", name ? name : "",
				 s->opt->replay_path ? " before the end of the recording" : "");
		}
		finish(s, s->info.finish_reason, stopped);
		source_destroy(s->source);
		s->source = NULL;
	}
	if (s->observer) {
		while (drain(s, s->obs_ring, deadline) && st_now_ns() < deadline)
			;
		abandon(s, s->obs_ring, &s->obs_abandoned);
		source_destroy(s->observer);
		s->observer = NULL;
	}
	if (s->has_target)
		target_stop(&s->target);
	if (record_writer_close(s->recorder) < 0)
		rc = -EIO;
	s->recorder = NULL;
	return rc;
}

int session_open(struct session **out, const struct st_options *o)
{
	struct session *s = st_xcalloc(1, sizeof(*s));
	int rc;

	s->bell = -1;
	/* Until a pump measures it: a session starts by teaching its walks. */
	s->copy_rate = ST_COPIES_FLOW_BYTES + 1.0;
	rc = open_session(s, o);

	if (rc < 0) {
		session_close(s);
		s = NULL;
	}
	*out = s;
	return rc;
}

void session_close(struct session *s)
{
	if (!s)
		return;
	session_release(s);
	free(s);
}

/* The file made for a launched command's output, if it said nothing: not left in $TMPDIR. */
static void forget_empty_output(struct session *s)
{
	struct stat st;

	if (s->target_output_made && stat(s->target_output, &st) == 0 && S_ISREG(st.st_mode) &&
	    !st.st_size)
		unlink(s->target_output);
}

static void session_release(struct session *s)
{
	session_stop(s);
	output_keeper_stop(s->keeper);
	s->keeper = NULL;
	forget_empty_output(s);
	session_clear_range(s);
	model_free(&s->model);
	free(s->stack_needs);
	s->stack_needs = NULL;
	kernel_walk_close(s->kernel_walk);
	s->kernel_walk = NULL;
	symbolizer_destroy(s->symbols);
	s->symbols = NULL;
	ring_destroy(s->ring);
	s->ring = NULL;
	record_queue_free(&s->held);
	if (s->bell >= 0)
		close(s->bell);
	s->bell = -1;
	ring_destroy(s->obs_ring);
	s->obs_ring = NULL;
	if (s->is_snapshot)
		snapshot_opened_close(&s->snap);
}
