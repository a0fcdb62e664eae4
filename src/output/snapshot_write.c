/*
 * snapshot_write.c - a session frozen to a file (snapshot.h): the label,
 * the meta data (json-c), the symbols in id order, the history's samples
 * as a record stream (each at its symbol's stand-in address, its call
 * path as a chain, so replaying it builds the same tables, tree and
 * history) and the report as JSON, through snapshot_file_write.
 */
#include "output/report.h"
#include "output/snapshot_write.h"
#include "model/model.h"
#include "ring/record.h"
#include "ring/packed.h"
#include "ring/record_file.h"
#include "ring/snapshot_file.h"
#include "output_file.h"
#include "sampler/events.h"
#include "session/session.h"
#include "session/snapshot.h"
#include "symbols/symbols.h"
#include "util.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define CALLER_OFFSET	8u	/* a caller's address: inside its stand-in, past ip - 1 */

void snapshot_default_name(char *buf, size_t len)
{
	time_t now = time(NULL);
	char stamp[32];
	struct stat st;
	struct tm tm;

	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	snprintf(buf, len, "shimtop-%s.snap", stamp);
	/* Two in one second (s, then SIGUSR1): the second is another file. */
	for (int n = 2; n < 1000 && lstat(buf, &st) == 0; n++)
		snprintf(buf, len, "shimtop-%s-%d.snap", stamp, n);
}

static void symbols_section(const struct symbolizer *sy, struct packed_out *b)
{
	uint32_t count = (uint32_t)symbolizer_count(sy);

	packed_put(b, &count, 4);
	for (uint32_t id = 0; id < count; id++) {
		const struct st_symbol *sym = symbolizer_symbol(sy, id);
		const char *raw = sym->raw && strcmp(sym->raw, sym->name) ? sym->raw : "";
		const char *s[4] = { sym->module, sym->name, raw, sym->aliases ? sym->aliases : "" };
		uint8_t flags[4] = { sym->unknown, sym->aliases != NULL, sym->named_by, 0 };
		uint32_t lens[4];

		for (int k = 0; k < 4; k++)
			lens[k] = (uint32_t)strlen(s[k]);
		packed_put(b, flags, 4);
		packed_put(b, lens, sizeof(lens));
		for (int k = 0; k < 4; k++)
			packed_put(b, s[k], lens[k]);
	}
}

/*
 * The code section: the hottest functions' machine code as it was read,
 * so a snapshot's detail disassembles on any machine.  u32 count; per
 * function u32 its id, u32 its length, u64 its address in its file, u8
 * truncated, three zero bytes, then its bytes.  Bounded: CODE_FUNCTIONS
 * functions, CODE_BYTES in all.
 */
#define CODE_FUNCTIONS	256u
#define CODE_BYTES	(8u << 20)

static int by_samples(const void *a, const void *b, void *arg)
{
	const struct model *m = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint64_t sx = m->per_sym[x].samples, sy = m->per_sym[y].samples;

	return sx > sy ? -1 : sx < sy ? 1 : (x > y) - (x < y);
}

static void code_section(const struct model *m, struct symbolizer *sy, struct packed_out *b)
{
	size_t n = 0, bytes = 0, count_at;
	uint32_t *ids = st_xmalloc((m->per_sym_cap ? m->per_sym_cap : 1) * sizeof(*ids));
	uint32_t count = 0;

	for (uint32_t id = 0; id < m->per_sym_cap; id++)
		if (m->per_sym[id].samples)
			ids[n++] = id;
	qsort_r(ids, n, sizeof(*ids), by_samples, (void *)m);
	count_at = b->n;
	packed_put(b, &count, 4);
	for (size_t i = 0; i < n && count < CODE_FUNCTIONS; i++) {
		struct symbol_code c;
		uint8_t flags[4] = { 0 };
		uint32_t head[2];

		if (symbolizer_code(sy, ids[i], &c) < 0)
			continue;
		if (c.len > CODE_BYTES - bytes) {
			symbol_code_free(&c);
			break;
		}
		head[0] = ids[i];
		head[1] = (uint32_t)c.len;
		flags[0] = c.truncated;
		packed_put(b, head, sizeof(head));
		packed_put(b, &c.start, 8);
		packed_put(b, flags, 4);
		packed_put(b, c.bytes, c.len);
		bytes += c.len;
		count++;
		symbol_code_free(&c);
	}
	memcpy(b->p + count_at, &count, 4);
	free(ids);
}

struct record_maker {
	struct record_writer *w;
	const struct model *m;
	uint32_t path[CCT_MAX_DEPTH + 1];
	_Alignas(8) uint8_t buf[ST_RECORD_MAX];
	int rc;
};

/* One history sample as the record that makes it again. */
static void sample_record(uint64_t time, const struct history_entry *e, void *arg)
{
	struct record_maker *r = arg;
	struct st_sample *s = (struct st_sample *)r->buf;
	size_t k = e->node && e->node < r->m->tree.n ? cct_path(&r->m->tree, e->node, r->path) : 0;
	size_t first = 0, nchain = 0, nc = (e->flags & HISTORY_COUNTERS) ? 2 : 0;
	uint64_t *chain;

	memset(s, 0, sizeof(*s));
	s->h.type = ST_REC_SAMPLE;
	s->h.source = ST_SOURCE_PERF;
	s->pid = e->pid;
	s->tid = e->tid;
	s->time = time;
	/* At its offset, so the detail counts its instructions again (JIT's: none). */
	s->ip = symbol_standin_address_at(e->sym, e->flags & HISTORY_JIT ? SYMBOL_NO_OFFSET
								     : e->offset);
	s->period = e->weight;
	s->cpumode = e->cpumode;
	s->ncounters = (uint8_t)nc;
	if (e->flags & HISTORY_MULTIPLEXED)
		s->flags |= ST_SAMPLE_MULTIPLEXED;
	if (e->flags & HISTORY_EVENT)
		s->flags |= (uint32_t)(e->event & 0xf) << ST_SAMPLE_EVENT_SHIFT;
	/* A wait: its reason, and its period is its time off the CPU. */
	if (e->flags & HISTORY_WAIT_MASK)
		s->flags |= ST_SAMPLE_WAITED | (uint32_t)((e->flags & HISTORY_WAIT_MASK) >>
							  HISTORY_WAIT_SHIFT) << ST_SAMPLE_OFFCPU_SHIFT |
			    (e->flags & HISTORY_WAIT_GOES_ON ? ST_SAMPLE_WAIT_GOES_ON : 0);
	if (nc) {
		s->flags |= ST_SAMPLE_HAS_COUNTERS;
		s->data[0] = e->cycles;
		s->data[1] = e->instructions;
	}
	/* The path root first, the leaf last; a cut chain's marker is a flag. */
	if (k && r->path[0] == CCT_SYM_TRUNCATED) {
		s->flags |= ST_SAMPLE_CHAIN_TRUNC;
		first = 1;
	}
	chain = s->data + nc;
	if (k > first + 1) {
		chain[nchain++] = s->ip;
		for (size_t i = k - 1; i-- > first;)
			chain[nchain++] = symbol_standin_address(r->path[i]) + CALLER_OFFSET;
	}
	s->nchain = (uint16_t)nchain;
	s->h.size = (uint32_t)(sizeof(*s) + (nc + nchain) * sizeof(uint64_t));
	if (!r->rc && record_writer_append(r->w, s) < 0)
		r->rc = -EIO;
}

static void thread_records(struct record_maker *r, bool exits)
{
	const struct model *m = r->m;

	for (const struct model_thread *t = m->threads; t; t = t->hh.next) {
		if (!t->pid || (exits && !t->exited))
			continue;
		if (exits) {
			struct st_task x = { { ST_REC_EXIT, ST_SOURCE_PERF, sizeof(x) },
					     (uint32_t)t->pid, (uint32_t)t->tid, (uint32_t)t->pid,
					     (uint32_t)t->pid, m->last_time };

			if (record_writer_append(r->w, &x) < 0)
				r->rc = -EIO;
		} else {
			struct st_comm c = { { ST_REC_COMM, ST_SOURCE_PERF, sizeof(c) },
					     (uint32_t)t->pid, (uint32_t)t->tid,
					     m->first_time ? m->first_time : 1, { 0 } };

			memcpy(c.comm, t->comm, sizeof(c.comm));
			if (record_writer_append(r->w, &c) < 0)
				r->rc = -EIO;
		}
	}
}

static void loss_record(struct record_maker *r, uint16_t type, uint64_t count)
{
	struct st_lost l = { { type, ST_SOURCE_PERF, sizeof(l) }, count, r->m->last_time };

	if (count && record_writer_append(r->w, &l) < 0)
		r->rc = -EIO;
}

/*
 * The records section: a record file compressed as it is made, never
 * held whole (ten minutes at 10 kHz would be 500 MB of records).
 */
static int records_section(struct session *s, struct snapshot_section *out)
{
	struct record_maker *r = st_xcalloc(1, sizeof(*r));
	struct st_file_header h;
	struct snapshot_stream *z = snapshot_stream_new();
	FILE *f = snapshot_stream_file(z);
	int rc;

	r->m = session_whole(s);
	record_header_from_info(&h, session_info(s), session_pid(s), session_comm(s));
	/* The records' own first time, not the clock now: saved again, the same bytes. */
	h.start_time = session_whole(s)->first_time;
	/*
	 * The session's time as it showed it, which the samples' span is not
	 * where they began late (a loaded machine: 5.68 s of 5.85).
	 */
	h.elapsed_ms = (uint32_t)(session_shown_elapsed(s) * 1e3 + 0.5);
	/* The history keeps cycles and instructions alone, first and second. */
	memset(h.counters, 0, sizeof(h.counters));
	if (session_whole(s)->ipc_cycles >= 0 && session_whole(s)->ipc_instructions >= 0) {
		h.ncounters = 2;
		h.ipc_cycles = 0;
		h.ipc_instructions = 1;
		snprintf(h.counters[0], sizeof(h.counters[0]), "cycles");
		snprintf(h.counters[1], sizeof(h.counters[1]), "instructions");
	} else {
		h.ncounters = 0;
		h.ipc_cycles = h.ipc_instructions = -1;
	}
	r->w = f ? record_writer_on(f, "the snapshot's records", &h) : NULL;
	if (!r->w) {
		free(r);
		memset(out, 0, sizeof(*out));
		return snapshot_stream_section(z, "records", out) ?: -ENOMEM;
	}
	thread_records(r, false);
	history_each(&session_whole(s)->history, 0, UINT64_MAX, sample_record, r);
	loss_record(r, ST_REC_LOST, session_whole(s)->kernel_lost);
	loss_record(r, ST_REC_THROTTLE, session_whole(s)->throttled);
	thread_records(r, true);
	rc = record_writer_close(r->w) < 0 ? -EIO : r->rc;
	free(r);
	/* The stream's own failure (-EFBIG, -ENOMEM) says more than -EIO. */
	return snapshot_stream_section(z, "records", out) ?: rc;
}

static void iso_time(char *buf, size_t len, time_t t)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* The first "model name" of /proc/cpuinfo, or "". */
static void cpu_model(char *buf, size_t len)
{
	size_t n;
	char *text = st_read_file("/proc/cpuinfo", &n), *line, *colon;

	buf[0] = '\0';
	line = text ? strstr(text, "model name") : NULL;
	colon = line ? strchr(line, ':') : NULL;
	if (colon) {
		colon += strspn(colon + 1, " \t") + 1;
		snprintf(buf, len, "%.*s", (int)strcspn(colon, "\n"), colon);
	}
	free(text);
}

static void module_json(const char *path, const char *build_id, void *arg)
{
	struct json_object *m = json_object_new_object();

	json_object_object_add(m, "path", json_object_new_string(path));
	json_object_object_add(m, "build_id", json_object_new_string(build_id));
	json_object_array_add(arg, m);
}

/*
 * The options that shaped what was sampled and kept; unwinding where
 * chains broke (the UI's U asks for it while sampling) counts as auto.
 */
static struct json_object *options_json(const struct st_options *o, bool unwind_broken)
{
	struct json_object *j = json_object_new_object();

	json_object_object_add(j, "events", json_object_new_string(o->events ? o->events : ""));
	json_object_object_add(j, "frequency", json_object_new_uint64(o->freq));
	json_object_object_add(j, "period", json_object_new_uint64(o->period));
	json_object_object_add(j, "randomized", json_object_new_boolean(o->randomize));
	json_object_object_add(j, "call_graph", json_object_new_string(
		o->unwind_broken || unwind_broken ? "auto" : o->callerchain ? "callerchain"
		: o->stack_copy ? "dwarf" : o->callchain ? "fp" : "none"));
	json_object_object_add(j, "stack_copy", json_object_new_int((int)o->stack_copy));
	json_object_object_add(j, "history_seconds", json_object_new_double(o->history));
	json_object_object_add(j, "observe", json_object_new_boolean(o->observe));
	json_object_object_add(j, "replay", o->replay_path ? json_object_new_string(o->replay_path)
			       : NULL);
	return j;
}

static char *meta_section(struct session *s, time_t taken)
{
	struct json_object *o = json_object_new_object(), *h = json_object_new_object();
	const struct history *hist = &session_whole(s)->history;
	struct utsname u;
	char buf[256];
	double running = session_elapsed(s);
	/* One reading of both clocks: the times below agree with each other. */
	struct timespec wall;
	uint64_t mono = st_now_ns();
	char *text;

	clock_gettime(CLOCK_REALTIME, &wall);
	json_object_object_add(o, "format", json_object_new_string("shimtop snapshot"));
	json_object_object_add(o, "version", json_object_new_int(SNAPSHOT_VERSION));
	json_object_object_add(o, "shimtop", json_object_new_string(PACKAGE_VERSION));
	iso_time(buf, sizeof(buf), taken);
	json_object_object_add(o, "taken", json_object_new_string(buf));
	/* Rounded down, the second the session started in. */
	iso_time(buf, sizeof(buf), (time_t)floor((double)wall.tv_sec + wall.tv_nsec / 1e9 - running));
	json_object_object_add(o, "started", json_object_new_string(buf));
	/* The first sample's wall-clock time (pprof's time_nanos): live samples only. */
	if (!session_options(s)->replay_path && session_whole(s)->first_time
	    && mono >= session_whole(s)->first_time)
		json_object_object_add(o, "first_sample_unix_ns", json_object_new_int64(
			(int64_t)wall.tv_sec * 1000000000 + wall.tv_nsec -
			(int64_t)(mono - session_whole(s)->first_time)));
	if (!uname(&u)) {
		json_object_object_add(o, "host", json_object_new_string(u.nodename));
		json_object_object_add(o, "kernel", json_object_new_string(u.release));
		json_object_object_add(o, "machine", json_object_new_string(u.machine));
	}
	cpu_model(buf, sizeof(buf));
	json_object_object_add(o, "cpu", json_object_new_string(buf));
	json_object_object_add(o, "hardware_pmu", json_object_new_boolean(
		session_is_snapshot(s) ? false : events_have_hardware_pmu()));
	session_target_name(s, buf, sizeof(buf));
	json_object_object_add(o, "target", json_object_new_string(buf));
	json_object_object_add(o, "pid", json_object_new_int(session_pid(s)));
	json_object_object_add(o, "comm", json_object_new_string(session_comm(s)));
	json_object_object_add(o, "events", json_object_new_string(session_info(s)->events));
	json_object_object_add(o, "period", report_period_json(&session_info(s)->period));
	json_object_object_add(o, "note", json_object_new_string(session_info(s)->note));
	json_object_object_add(o, "elapsed", json_object_new_double(running));
	report_add_u64(o, "samples", session_whole(s)->samples);
	report_add_u64(h, "samples", hist->entries);
	report_add_u64(h, "dropped", hist->dropped);
	json_object_object_add(h, "keep_seconds", json_object_new_double((double)hist->keep_ns / 1e9));
	json_object_object_add(o, "history", h);
	json_object_object_add(o, "options", options_json(session_options(s),
							  session_whole(s)->unwind_broken));
	{
		/* The module map: which build of each file the names came from. */
		struct json_object *mods = json_object_new_array();

		symbolizer_each_file(session_symbols(s), module_json, mods);
		json_object_object_add(o, "modules", mods);
	}
	text = st_xstrdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
							 JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return text;
}

static char *report_section(struct session *s)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return st_xstrdup("");
	report_print_json(s, f);
	fclose(f);
	return text;
}

int snapshot_write(struct session *s, const char *path, uint64_t *bytes)
{
	struct packed_out sym = { 0 }, obs = { 0 }, chaining = { 0 }, ibs = { 0 }, code = { 0 };
	struct snapshot_section sec[8];
	size_t n = 6;
	struct utsname u;
	time_t taken = time(NULL);
	char label[SNAPSHOT_LABEL_MAX], when[64], *meta, *report;
	struct tm tm;
	int rc;

	*bytes = 0;
	/* Names from JIT maps written since the last look: perf report reads them at its time. */
	session_name_jit(s);
	/* A snapshot of a snapshot keeps the first one's moment and host. */
	if (session_is_snapshot(s) && session_snapshot(s)->label[0]) {
		snprintf(label, sizeof(label), "%s", session_snapshot(s)->label);
	} else {
		gmtime_r(&taken, &tm);
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
		snprintf(label, sizeof(label), "%s on %.64s", when,
			 uname(&u) ? "an unknown host" : u.nodename);
	}
	memset(sec, 0, sizeof(sec));
	symbols_section(session_symbols(s), &sym);
	rc = records_section(s, &sec[3]);
	if (rc < 0) {
		free(sym.p);
		free(sec[3].data);
		return rc;
	}
	/* A snapshot of a snapshot keeps the meta data of the session it was taken from. */
	if (session_is_snapshot(s) && session_snapshot(s)->meta)
		meta = st_xstrdup(session_snapshot(s)->meta);
	else
		meta = meta_section(s, taken);
	report = report_section(s);
	snprintf(sec[0].name, SNAPSHOT_NAME_LEN, "label");
	sec[0].data = (uint8_t *)label;
	sec[0].size = strlen(label);
	snprintf(sec[1].name, SNAPSHOT_NAME_LEN, "meta");
	sec[1].data = (uint8_t *)meta;
	sec[1].size = strlen(meta);
	snprintf(sec[2].name, SNAPSHOT_NAME_LEN, "symbols");
	sec[2].data = sym.p;
	sec[2].size = sym.n;
	snprintf(sec[4].name, SNAPSHOT_NAME_LEN, "report");
	sec[4].data = (uint8_t *)report;
	sec[4].size = strlen(report);
	code_section(session_whole(s), session_symbols(s), &code);
	snprintf(sec[5].name, SNAPSHOT_NAME_LEN, "code");
	sec[5].data = code.p;
	sec[5].size = code.n;
	/* The observer's samples are not kept: what they added up to is. */
	if (session_whole(s)->obs.active) {
		obs_model_save(&session_whole(s)->obs, &obs);
		snprintf(sec[n].name, SNAPSHOT_NAME_LEN, "observer");
		sec[n].data = obs.p;
		sec[n++].size = obs.n;
	}
	/* Stack depths are not in the records: CallerChaining's input is kept whole. */
	if (session_whole(s)->chaining.samples || session_whole(s)->chaining.nedges) {
		packed_u8(&chaining, session_whole(s)->callerchain_mode);
		callerchain_save(&session_whole(s)->chaining, &chaining);
		snprintf(sec[n].name, SNAPSHOT_NAME_LEN, "chaining");
		sec[n].data = chaining.p;
		sec[n++].size = chaining.n;
	}
	/* The records carry no IBS registers: what they added up to is kept. */
	if (ibs_model_active(&session_whole(s)->ibs)) {
		ibs_model_save(&session_whole(s)->ibs, &ibs);
		snprintf(sec[n].name, SNAPSHOT_NAME_LEN, "ibs");
		sec[n].data = ibs.p;
		sec[n++].size = ibs.n;
	}
	rc = snapshot_file_write(path, sec, n, bytes);
	free(sym.p);
	free(sec[3].data);
	free(obs.p);
	free(chaining.p);
	free(ibs.p);
	free(code.p);
	free(meta);
	free(report);
	return rc;
}

int snapshot_save(struct session *s, const char *path, char *msg, size_t len)
{
	char name[64];
	uint64_t bytes, t0;
	int rc;

	if (!path) {
		snapshot_default_name(name, sizeof(name));
		path = name;
	}
	t0 = st_now_ns();
	rc = snapshot_write(s, path, &bytes);
	if (rc == -EFBIG)
		snprintf(msg, len, "cannot write snapshot %s: the history is larger than a "
			 "snapshot holds (1 GiB a section); keep less with --history", path);
	else if (rc < 0)
		snprintf(msg, len, "cannot write snapshot %s: %s; choose another path", path,
			 st_output_strerror(rc));
	else
		snprintf(msg, len, "snapshot %s (%.1f %s in %.2f s)", path,
			 bytes < 1000000 ? (double)bytes / 1e3 : (double)bytes / 1e6,
			 bytes < 1000000 ? "kB" : "MB", (double)(st_now_ns() - t0) / 1e9);
	/* Its tables are rebuilt from the history: say when that lost the oldest. */
	if (!rc && session_whole(s)->history.dropped) {
		size_t at = strlen(msg);

		snprintf(msg + at, len - at, "; it holds the newest %llu of %llu samples "
			 "(the history keeps %.0f s, at most %zu MiB)",
			 (unsigned long long)session_whole(s)->history.entries,
			 (unsigned long long)(session_whole(s)->history.entries + session_whole(s)->history.dropped),
			 (double)session_whole(s)->history.keep_ns / 1e9,
			 session_whole(s)->history.max_bytes >> 20);
	}
	return rc;
}

int snapshot_on_exit(struct session *s)
{
	char msg[512];
	int rc;

	if (!session_options(s)->snapshot_path)
		return 0;
	rc = snapshot_save(s, session_options(s)->snapshot_path, msg, sizeof(msg));
	if (rc < 0)
		st_error("%s", msg);
	else
		st_note("%s", msg);
	return rc;
}
