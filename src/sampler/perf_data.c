/*
 * perf_data.c - reading perf record's perf.data (file mode).  The layout
 * is perf's tools/perf/Documentation/perf.data-file-format.txt: a
 * header of sections (attributes, data), a bitmap of features whose
 * sections follow the data, and the data section's records, which are
 * the kernel's ring records that perf_parse already converts.
 */
#include "sampler/perf_data.h"
#include "sampler/offcpu.h"
#include "sampler/perf_inflate.h"
#include "sampler/perf_parse.h"
#include "sampler/perf_tracing.h"
#include "sampler/reorder.h"
#include "sampler/source.h"
#include "ring/record.h"
#include "text_safe.h"
#include "util.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

struct file_section {
	uint64_t offset, size;
};

struct file_header {
	char magic[8];
	uint64_t size;			/* of this header */
	uint64_t attr_size;		/* of one attribute entry: perf_event_attr and its ids */
	struct file_section attrs, data, event_types;
	uint64_t features[4];		/* a bit a feature section */
};

/* Feature sections read for the header line (perf's header.h numbers). */
#define FEAT_TRACING_DATA	1	/* tracepoints' formats: their names, their fields */
#define FEAT_BUILD_ID		2
#define FEAT_HOSTNAME		3
#define FEAT_OSRELEASE		4	/* the recording kernel's uname -r */
#define FEAT_VERSION		5
#define FEAT_CMDLINE		11
#define FEAT_EVENT_DESC		12
#define FEAT_AUXTRACE		18	/* an AUX area trace: Intel PT, CoreSight, SPE */

/* What to say of an AUX area trace, which shimtop does not decode. */
#define AUX_REFUSAL	"it holds an AUX area trace (Intel PT, CoreSight, SPE), which " \
			"shimtop does not decode: perf inject --itrace=i100us -i FILE -o OUT " \
			"makes samples of it for shimtop"

#define ATTRS_MAX		64u
#define IDS_MAX			(1u << 20)	/* ids of all events (one a CPU or thread each) */
#define FEATURE_MAX		(1u << 20)	/* a feature section read whole */
/* Tracing data: old perf put all of /proc/kallsyms in it, not read but read past. */
#define TRACING_MAX		(64u << 20)

struct perf_data {
	FILE *f;
	char *name;
	char origin[PERF_DATA_ORIGIN];	/* describe()'s, whole */
	uint64_t file_size;
	uint64_t at, end;		/* the data section left to read */
	bool positioned;		/* the stream is at `at` (the features were read first) */
	uint64_t declared;		/* where the data should end, past the file's end; 0 if it fits */
	bool pipe;			/* perf record -o -: a stream with its attributes inside */
	bool v1;			/* "PERFFILE": no feature sections */
	bool held;			/* pipe: rec holds the first record past the attributes */
	bool featured;			/* pipe: it carried feature records (perf 5.x on) */
	struct feature_kept {
		unsigned char *buf;
		size_t len;
	} feat[6];			/* by feature_slot */
	struct perf_tracing *tracing;	/* the tracepoints' formats, if the file has them */
	/*
	 * Several events (-e a,b): each sample's id says whose it is, as
	 * the attributes list them; sorted by id.  nevents 1: no lookup.
	 */
	unsigned nevents;
	struct event_id {
		uint64_t id;
		unsigned event;
	} *ids;
	size_t nids, ids_cap;
	uint64_t unowned;		/* samples whose id no event read claims: left out */
	const char *only;		/* -e NAME: the one event read of more than 8 */
	bool chosen;			/* only chose: every sample's id is looked up */
	struct perf_layout layout;	/* the first event's: every record's unless mixed */
	/*
	 * Events laid out apart (-e cpu-clock -e sched:sched_switch: the
	 * tracepoint's raw data, its CPU): each sample's and side-band
	 * record's identifier says whose layout it has.
	 */
	bool mixed;
	struct perf_layout layouts[ST_MAX_SAMPLED];
	uint64_t fixed_period_of[ST_MAX_SAMPLED];	/* each sample's, when it carries none */
	/*
	 * Off-CPU time: sched_switch's samples (their prev_state read) wait
	 * in pairs for their thread to run again, as live (offcpu.h);
	 * perf record --off-cpu's offcpu-time samples carry their wait.
	 */
	bool pair_waits;
	bool can_pair;			/* a sched_switch whose state the tracing data places */
	bool on_cpu_event;		/* an event not a tracepoint: the off-CPU recipe's other half */
	struct offcpu_pairs pairs;
	bool weighed_waits[ST_MAX_SAMPLED];
	struct perf_group_state gs;
	/*
	 * A group read with each sample ({a,b}:S): the members count and do
	 * not sample; their values are the samples' counters.  Each event
	 * instance (an id: a thread or CPU) reads its own counts, so the
	 * change since its previous sample is kept by id (group_of, by the
	 * index in ids, allocated at its first sample).
	 */
	bool group_read;
	unsigned ncounted;
	size_t counted_of[ST_MAX_EVENTS];
	struct perf_group_state **group_of;
	/* Records back in time order (perf_data_next), and those ready to go. */
	struct reorder order;
	uint64_t newest, round_start;
	unsigned char *queue;
	size_t queued, queue_at, queue_cap;
	bool finished;
	long finish_rc;
	struct perf_inflate *inflate;	/* perf record -z: made at the first compressed record */
	uint64_t skipped;
	/* Pipe mode: samples read since the last round ended (or since the start). */
	uint64_t unrounded;
	char error[256];
	char damaged[256];		/* its bytes' copy was damaged before we read it, or "" */
	char missing[256];		/* features a file cut short lost, in words, or "" */
	char ending[192];		/* how a whole recording ended unlike perf's end, or "" */
	_Alignas(8) unsigned char rec[65536];
	_Alignas(8) unsigned char out[ST_RECORD_MAX];
};

bool perf_data_is(const unsigned char *first, size_t len)
{
	return len >= 8 && (!memcmp(first, PERF_DATA_MAGIC, 8) || !memcmp(first, PERF_DATA_MAGIC_V1, 8));
}

static bool read_at(struct perf_data *p, uint64_t offset, void *buf, size_t len)
{
	return offset <= p->file_size && len <= p->file_size - offset &&
	       fseeko(p->f, (off_t)offset, SEEK_SET) == 0 && fread(buf, len, 1, p->f) == 1;
}

static bool section_fits(const struct perf_data *p, const struct file_section *s)
{
	return s->offset <= p->file_size && s->size <= p->file_size - s->offset;
}

/* perf's names for the events it records most, else type and config. */
static void event_name(const struct perf_event_attr *a, char *buf, size_t len)
{
	static const char *const hw[] = {
		"cycles", "instructions", "cache-references", "cache-misses",
		"branch-instructions", "branch-misses", "bus-cycles",
		"stalled-cycles-frontend", "stalled-cycles-backend", "ref-cycles",
	};
	static const char *const sw[] = {
		"cpu-clock", "task-clock", "page-faults", "context-switches",
		"cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
		"emulation-faults", "dummy",
	};

	if (a->type == PERF_TYPE_HARDWARE && a->config < sizeof(hw) / sizeof(hw[0]))
		snprintf(buf, len, "%s", hw[a->config]);
	else if (a->type == PERF_TYPE_SOFTWARE && a->config < sizeof(sw) / sizeof(sw[0]))
		snprintf(buf, len, "%s", sw[a->config]);
	else
		snprintf(buf, len, "type %u config 0x%llx", a->type, (unsigned long long)a->config);
}

/* One of perf's strings (u32 length, then the bytes) at *at in buf[0..len), made printable. */
static bool take_string(const unsigned char *buf, size_t len, size_t *at, char *out,
			size_t room)
{
	uint32_t n;
	size_t copy;

	if (len - *at < sizeof(n))
		return false;
	memcpy(&n, buf + *at, sizeof(n));
	*at += sizeof(n);
	if (n > len - *at)
		return false;
	copy = strnlen((const char *)buf + *at, n);
	if (copy >= room)
		copy = room - 1;
	memcpy(out, buf + *at, copy);
	out[copy] = '\0';
	st_text_safe(out);
	*at += n;
	return true;
}

/* The features read (the header line's and the build-ids), by their place in perf_data.feat. */
static int feature_slot(uint64_t feat)
{
	switch (feat) {
	case FEAT_HOSTNAME:
		return 0;
	case FEAT_VERSION:
		return 1;
	case FEAT_CMDLINE:
		return 2;
	case FEAT_EVENT_DESC:
		return 3;
	case FEAT_BUILD_ID:
		return 4;
	case FEAT_OSRELEASE:
		return 5;
	default:
		return -1;
	}
}

/* Keeps a copy of feature feat's bytes, if one read for the header line. */
static void keep_feature(struct perf_data *p, uint64_t feat, const unsigned char *buf, size_t len)
{
	int slot = feature_slot(feat);

	if (slot < 0 || len > FEATURE_MAX || p->feat[slot].buf)
		return;
	p->feat[slot].buf = st_xmalloc(len + 1);
	memcpy(p->feat[slot].buf, buf, len);
	p->feat[slot].len = len;
}

/* Feature feat's section, if the file has it whole; its place in *sec. */
static bool feature_section(struct perf_data *p, const struct file_header *fh, unsigned feat,
			    struct file_section *sec)
{
	unsigned nth = 0;

	if (!(fh->features[feat / 64] >> (feat % 64) & 1))
		return false;
	for (unsigned b = 0; b < feat; b++)
		nth += (unsigned)(fh->features[b / 64] >> (b % 64) & 1);
	return read_at(p, fh->data.offset + fh->data.size + (uint64_t)nth * sizeof(*sec), sec,
		       sizeof(*sec)) && section_fits(p, sec);
}

/*
 * simpleperf's own kinds (32768 on): a 32-bit size, its high half where
 * perf keeps misc; its tracepoints' formats in one of them.
 */
#define RECORD_SIMPLEPERF_FIRST		32768u
#define RECORD_SIMPLEPERF_TRACING	32777u

static uint64_t record_size(const struct perf_event_header *ev)
{
	return ev->type >= RECORD_SIMPLEPERF_FIRST ? (uint64_t)ev->misc << 16 | ev->size : ev->size;
}

/* The tracing data's formats, parsed from a copy. */
static void take_tracing(struct perf_data *p, const unsigned char *buf, size_t len)
{
	if (!p->tracing)
		p->tracing = perf_tracing_parse(buf, len);
}

/* The tracing data of len bytes at offset in the file, parsed. */
static void tracing_at(struct perf_data *p, uint64_t offset, size_t len)
{
	unsigned char *buf = st_xmalloc(len + 1);

	if (read_at(p, offset, buf, len))
		take_tracing(p, buf, len);
	free(buf);
}

static void load_tracing(struct perf_data *p, const struct file_header *fh)
{
	struct file_section sec;

	if (feature_section(p, fh, FEAT_TRACING_DATA, &sec) && sec.size <= TRACING_MAX)
		tracing_at(p, sec.offset, (size_t)sec.size);
}

/*
 * simpleperf writes its tracepoints' formats as a record of its own at
 * the data's start, not as the tracing-data feature: looked for among
 * the records before the first sample, so its events have their names
 * before any sample is read.
 */
static void load_simpleperf_tracing(struct perf_data *p, const struct file_header *fh)
{
	uint64_t at = fh->data.offset, end = section_fits(p, &fh->data) && fh->data.size
					     ? fh->data.offset + fh->data.size : p->file_size;

	for (unsigned i = 0; i < 256 && !p->tracing && at <= end && end - at >= 8; i++) {
		struct perf_event_header ev;
		uint64_t size;
		uint32_t n;

		if (!read_at(p, at, &ev, sizeof(ev)) || ev.type == PERF_RECORD_SAMPLE)
			return;
		size = record_size(&ev);
		if (size < sizeof(ev) || size > end - at)
			return;
		if (ev.type == RECORD_SIMPLEPERF_TRACING && size >= sizeof(ev) + sizeof(n) &&
		    read_at(p, at + sizeof(ev), &n, sizeof(n)) && n <= size - sizeof(ev) - sizeof(n) &&
		    n <= TRACING_MAX)
			tracing_at(p, at + sizeof(ev) + sizeof(n), n);
		at += size;
	}
}

/*
 * File mode: the feature sections (one a set bit, their table after the
 * data) kept.  One the file no longer holds (cut short) is named in
 * p->missing: the header line and the symbols' build-ids do without it.
 */
static void load_features(struct perf_data *p, const struct file_header *fh)
{
	static const struct {
		unsigned feat;
		const char *what;
	} wanted[] = {
		{ FEAT_HOSTNAME, "host name" }, { FEAT_OSRELEASE, "kernel release" },
		{ FEAT_VERSION, "perf version" }, { FEAT_CMDLINE, "command line" },
		{ FEAT_EVENT_DESC, "event names" }, { FEAT_BUILD_ID, "build-ids" },
	};
	size_t at = 0;

	p->missing[0] = '\0';
	for (size_t w = 0; w < sizeof(wanted) / sizeof(wanted[0]); w++) {
		unsigned feat = wanted[w].feat;
		struct file_section sec;
		unsigned char *buf;
		bool got = false;

		if (!(fh->features[feat / 64] >> (feat % 64) & 1))
			continue;
		if (feature_section(p, fh, feat, &sec) && sec.size <= FEATURE_MAX) {
			buf = st_xmalloc(sec.size + 1);
			got = read_at(p, sec.offset, buf, sec.size);
			if (got)
				keep_feature(p, feat, buf, sec.size);
			free(buf);
		}
		if (!got && at < sizeof(p->missing))
			at += (size_t)snprintf(p->missing + at, sizeof(p->missing) - at, "%s%s",
					       at ? ", " : "", wanted[w].what);
	}
	load_tracing(p, fh);
	if (!p->tracing)
		load_simpleperf_tracing(p, fh);
}

void perf_data_damaged(struct perf_data *p, const char *why)
{
	if (p)
		snprintf(p->damaged, sizeof(p->damaged), "%s", why);
}

const char *perf_data_missing(const struct perf_data *p)
{
	return p && p->missing[0] ? p->missing : NULL;
}

/* Attribute n's event name as perf record described it (EVENT_DESC), if given. */
static bool described_name(const struct perf_data *p, size_t n, char *out, size_t room)
{
	const unsigned char *buf = p->feat[3].buf;
	size_t len = p->feat[3].len, at = 2 * sizeof(uint32_t);
	uint32_t nevents = 0, attr_size = 0, nids;

	if (!buf || len < at)
		return false;
	memcpy(&nevents, buf, sizeof(nevents));
	memcpy(&attr_size, buf + sizeof(nevents), sizeof(attr_size));
	/* Each event: its attribute, its id count, its name, its ids. */
	for (size_t i = 0; i < nevents && i <= n; i++) {
		if (attr_size > len - at || len - at - attr_size < sizeof(nids))
			return false;
		at += attr_size;
		memcpy(&nids, buf + at, sizeof(nids));
		at += sizeof(nids);
		if (!take_string(buf, len, &at, out, room))
			return false;
		if (i == n)
			return out[0] != '\0';
		if (nids > (len - at) / sizeof(uint64_t))
			return false;
		at += (size_t)nids * sizeof(uint64_t);
	}
	return false;
}

/*
 * Attribute n's name: as perf record described it, else a tracepoint's
 * from its format (a pipe of perf before 5.x has no description), else
 * from its type and config.
 */
static void name_of(const struct perf_data *p, const struct perf_event_attr *v, size_t n,
		    char *out, size_t room)
{
	if (described_name(p, n, out, room))
		return;
	if (v[n].type == PERF_TYPE_TRACEPOINT && perf_tracing_name(p->tracing, v[n].config, out, room))
		return;
	event_name(&v[n], out, room);
}

/*
 * "perf.data from perf 6.1 on HOST: perf record -g ..." from the features
 * there are: whole (a long path's command too) up to PERF_DATA_ORIGIN.
 */
static void describe(const struct perf_data *p, char *out, size_t room)
{
	char version[64] = "", host[64] = "", cmd[PERF_DATA_ORIGIN], word[1024];
	size_t at = 0;

	cmd[0] = '\0';
	if (p->feat[1].buf)
		take_string(p->feat[1].buf, p->feat[1].len, &at, version, sizeof(version));
	at = 0;
	if (p->feat[0].buf)
		take_string(p->feat[0].buf, p->feat[0].len, &at, host, sizeof(host));
	if (p->feat[2].buf && p->feat[2].len >= sizeof(uint32_t)) {
		uint32_t n;

		memcpy(&n, p->feat[2].buf, sizeof(n));
		at = sizeof(n);
		for (uint32_t i = 0; i < n && take_string(p->feat[2].buf, p->feat[2].len, &at, word,
							  sizeof(word)); i++) {
			size_t used = strlen(cmd);

			snprintf(cmd + used, sizeof(cmd) - used, "%s%s", used ? " " : "", word);
		}
	}
	if (p->v1) {
		snprintf(out, room, "perf.data version 1 (perf of Linux 2.6.36 or before: it "
			 "names no perf version, host or command)");
		return;
	}
	snprintf(out, room, "perf.data%s%s%s%s%s%s", version[0] ? " from perf " : "", version,
		 host[0] ? " on " : "", host, cmd[0] ? ": " : "", cmd);
}

const char *perf_data_origin(const struct perf_data *p)
{
	return p->origin;
}

/* One line naming the problem and what to do; NULL. */
static struct perf_data *refuse(struct perf_data *p, const char *problem)
{
	st_error("perf.data '%s': %s", p->name, problem);
	perf_data_close(p);
	return NULL;
}

/* What a record other than a sample carries at its end (sample_id_all). */
#define SAMPLE_ID_BITS	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | \
			 PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

static bool is_dummy(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_DUMMY;
}

/* The same layout: records of one read as the other's. */
static bool same_layout(const struct perf_event_attr *a, const struct perf_event_attr *b)
{
	return a->sample_type == b->sample_type && a->read_format == b->read_format &&
	       a->sample_id_all == b->sample_id_all && a->sample_regs_user == b->sample_regs_user;
}

/*
 * The events sampled, into *main (the first) and p->nevents: those of the
 * n attributes that are not perf's dummy (-a and --switch-events add one
 * for side-band records); all laid out alike, and told apart by an id
 * when several.  which[k] is the attribute of event k.  -1 after refuse
 * (p closed).
 */
static int choose_events(struct perf_data *p, const struct perf_event_attr *v, size_t n,
			 struct perf_event_attr *main, size_t *which)
{
	const struct perf_event_attr *dummy = NULL;
	unsigned sampling = 0;
	char names[256] = "", one[64], why[512];

	/* More events sample than are read at once: -e NAME reads one of them. */
	for (size_t i = 0; i < n; i++)
		if (!is_dummy(&v[i]) && (v[i].freq || v[i].sample_period)) {
			size_t used = strlen(names);

			name_of(p, v, i, one, sizeof(one));
			snprintf(names + used, sizeof(names) - used, "%s%s", sampling ? ", " : "", one);
			sampling++;
		}
	if (sampling > ST_MAX_SAMPLED && !p->only) {
		snprintf(why, sizeof(why), "it samples %u events (%s), more than the 8 shimtop "
			 "reads at once: choose one with -e NAME", sampling, names);
		refuse(p, why);
		return -1;
	}
	p->chosen = sampling > ST_MAX_SAMPLED;
	p->nevents = 0;
	p->ncounted = 0;
	for (size_t i = 0; i < n; i++) {
		if (is_dummy(&v[i])) {
			dummy = &v[i];
			continue;
		}
		/* A group member that only counts ({a,b}:S): read with its leader's samples. */
		if (!v[i].freq && !v[i].sample_period) {
			if (p->ncounted == ST_MAX_EVENTS - 1) {
				refuse(p, "its group counts more than 8 events; shimtop reads up to 8");
				return -1;
			}
			p->counted_of[++p->ncounted] = i;
			continue;
		}
		if (p->chosen && (name_of(p, v, i, one, sizeof(one)), strcmp(one, p->only)))
			continue;
		if (p->nevents == ST_MAX_SAMPLED) {
			refuse(p, "it holds more than 8 sampled events; shimtop reads up to 8");
			return -1;
		}
		/* Laid out apart, an identifier first and last says whose each record is. */
		if (p->nevents && !same_layout(&v[i], main) &&
		    (!(v[i].sample_type & main->sample_type & PERF_SAMPLE_IDENTIFIER) ||
		     v[i].sample_id_all != main->sample_id_all)) {
			refuse(p, "its events' samples are laid out differently, without the "
			       "identifier that says whose each is (perf before 3.12?); shimtop "
			       "reads such events recorded alike (perf record -e a,b)");
			return -1;
		}
		if (!p->nevents)
			*main = v[i];
		which[p->nevents++] = i;
	}
	if (!p->nevents && p->chosen) {
		snprintf(why, sizeof(why), "-e %s: it sampled %s; -e names one of them to read",
			 p->only, names);
		refuse(p, why);
		return -1;
	}
	if (!p->nevents) {
		refuse(p, "it holds no event that samples");
		return -1;
	}
	if (p->nevents > 1 && !(main->sample_type & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER))) {
		refuse(p, "its events' samples carry no id to tell them apart; record them "
		       "with perf record -e a,b");
		return -1;
	}
	if (dummy && (((dummy->sample_type ^ main->sample_type) & SAMPLE_ID_BITS) ||
		      dummy->sample_id_all != main->sample_id_all)) {
		refuse(p, "its side-band records are laid out unlike its samples; shimtop reads "
		       "perf record's usual files");
		return -1;
	}
	if (p->ncounted && (p->nevents > 1 || !(main->sample_type & PERF_SAMPLE_READ) ||
			    !(main->read_format & PERF_FORMAT_GROUP))) {
		refuse(p, "it holds events that count without sampling outside one group read "
		       "with its leader's samples; shimtop reads perf record -e '{a,b}:S'");
		return -1;
	}
	if (!(main->sample_type & PERF_SAMPLE_IP) || !(main->sample_type & PERF_SAMPLE_TID)) {
		refuse(p, "its samples carry no address or thread; record it with perf record's "
		       "defaults");
		return -1;
	}
	return 0;
}

/* Event k's ids (nbytes of u64s at bytes). */
static void add_ids(struct perf_data *p, unsigned k, const unsigned char *bytes, size_t nbytes)
{
	for (size_t at = 0; at + sizeof(uint64_t) <= nbytes && p->nids < IDS_MAX;
	     at += sizeof(uint64_t)) {
		ST_GROW(p->ids, p->ids_cap, p->nids + 1);
		memcpy(&p->ids[p->nids].id, bytes + at, sizeof(uint64_t));
		p->ids[p->nids++].event = k;
	}
}

static int by_id(const void *a, const void *b)
{
	const struct event_id *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

static bool sample_id(const struct perf_data *p, const unsigned char *rec, size_t size,
		      uint64_t *id);

/* Where id is in ids; -1 if nowhere. */
static long id_index(const struct perf_data *p, uint64_t id)
{
	size_t lo = 0, hi = p->nids;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->nids && p->ids[lo].id == id ? (long)lo : -1;
}

/* The event a sample's id belongs to; -1 if none. */
static int event_of(const struct perf_data *p, uint64_t id)
{
	long i = id_index(p, id);

	return i < 0 ? -1 : (int)p->ids[i].event;
}

/*
 * The layout rec has: a sample's is its event's; another record's, with
 * events laid out apart, the event its identifier (the trailer's last
 * word) names, else the first event's (perf's own side-band).
 */
static const struct perf_layout *layout_of(const struct perf_data *p, const unsigned char *rec,
					   int event)
{
	const struct perf_event_header *h = (const void *)rec;
	uint64_t id;
	int e;

	if (!p->mixed)
		return &p->layout;
	if (h->type == PERF_RECORD_SAMPLE)
		return &p->layouts[event];
	if (!p->layout.sample_id_all || h->size < sizeof(*h) + sizeof(id))
		return &p->layout;
	memcpy(&id, rec + h->size - sizeof(id), sizeof(id));
	e = event_of(p, id);
	return e < 0 ? &p->layout : &p->layouts[e];
}

/* The group state of the instance that took the sample in rec (any if it has no id). */
static struct perf_group_state *group_state(struct perf_data *p, const unsigned char *rec,
					    size_t size)
{
	uint64_t id;
	long i;

	if (!p->group_of || !sample_id(p, rec, size, &id) || (i = id_index(p, id)) < 0)
		return &p->gs;
	if (!p->group_of[i])
		p->group_of[i] = st_xcalloc(1, sizeof(*p->group_of[i]));
	return p->group_of[i];
}

/* A sample record's id: first (IDENTIFIER), or after ip, tid, time and addr (ID). */
static bool sample_id(const struct perf_data *p, const unsigned char *rec, size_t size,
		      uint64_t *id)
{
	uint64_t t = p->layout.sample_type;
	size_t at = sizeof(struct perf_event_header);

	if (!(t & PERF_SAMPLE_IDENTIFIER)) {
		at += ((t & PERF_SAMPLE_IP) ? 8 : 0) + ((t & PERF_SAMPLE_TID) ? 8 : 0) +
		      ((t & PERF_SAMPLE_TIME) ? 8 : 0) + ((t & PERF_SAMPLE_ADDR) ? 8 : 0);
	}
	if (at + sizeof(*id) > size)
		return false;
	memcpy(id, rec + at, sizeof(*id));
	return true;
}

/* The group its leader's samples read ({a,b}:S): the counters, IPC's where there are both. */
static void take_counters(struct perf_data *p, const struct perf_event_attr *v, size_t leader,
			  struct st_file_header *h)
{
	const struct perf_event_attr *a = &v[leader];

	if (!(a->sample_type & PERF_SAMPLE_READ) || !(a->read_format & PERF_FORMAT_GROUP))
		return;
	p->group_read = true;
	p->counted_of[0] = leader;
	h->ncounters = (int32_t)p->ncounted + 1;
	for (unsigned i = 0; i < (unsigned)h->ncounters; i++) {
		const struct perf_event_attr *c = &v[p->counted_of[i]];

		name_of(p, v, p->counted_of[i], h->counters[i], sizeof(h->counters[i]));
		if (c->type == PERF_TYPE_HARDWARE && c->config == PERF_COUNT_HW_CPU_CYCLES &&
		    h->ipc_cycles < 0)
			h->ipc_cycles = (int32_t)i;
		if (c->type == PERF_TYPE_HARDWARE && c->config == PERF_COUNT_HW_INSTRUCTIONS &&
		    h->ipc_instructions < 0)
			h->ipc_instructions = (int32_t)i;
	}
	if (h->ipc_cycles < 0 || h->ipc_instructions < 0)
		h->ipc_cycles = h->ipc_instructions = -1;
	/* perf's notation for what was recorded: {leader,member,...}. */
	h->events[0] = '{';
	h->events[1] = '\0';
	for (int i = 0; i < h->ncounters; i++) {
		size_t used = strlen(h->events);

		snprintf(h->events + used, sizeof(h->events) - used, "%s%s", i ? "," : "",
			 h->counters[i]);
	}
	if (strlen(h->events) + 1 < sizeof(h->events))
		strcat(h->events, "}");
	if (p->nids)
		p->group_of = st_xcalloc(p->nids, sizeof(*p->group_of));
}

/*
 * Event k's off-CPU samples: sched_switch's, whose prev_state the file's
 * tracing data places, are paired; offcpu-time's (perf record --off-cpu,
 * BPF) weigh their wait already, its state not recorded.
 */
static void take_waits(struct perf_data *p, const struct perf_event_attr *v, size_t n, unsigned k)
{
	char name[64];

	if (v[n].type == PERF_TYPE_TRACEPOINT &&
	    perf_tracing_switch_state(p->tracing, v[n].config, &p->layouts[k].switch_state_at,
				      &p->layouts[k].switch_state_size) &&
	    (v[n].sample_type & PERF_SAMPLE_RAW))
		p->can_pair = true;
	else if (v[n].type != PERF_TYPE_TRACEPOINT)
		p->on_cpu_event = true;
	name_of(p, v, n, name, sizeof(name));
	p->weighed_waits[k] = !strcmp(name, OFFCPU_EVENT);
}

/*
 * The layout the events' records have, which ids are whose, and the
 * header a recording has: what was sampled (each event, when several),
 * how often, where from.  attr_of[k]: event k's attribute in v.
 */
static void take_events(struct perf_data *p, const struct perf_event_attr *v,
			const size_t *attr_of, const char *name, struct st_file_header *h)
{
	const struct perf_event_attr *a = &v[attr_of[0]];
	size_t kept = 0;

	for (unsigned k = 0; k < p->nevents; k++) {
		const struct perf_event_attr *e = &v[attr_of[k]];

		p->layouts[k] = (struct perf_layout){
			.sample_type = e->sample_type, .read_format = e->read_format,
			.sample_id_all = (int)e->sample_id_all, .regs_user = e->sample_regs_user,
			.branch_hw_index = !!(e->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX),
			.lbr_callstack = (e->sample_type & PERF_SAMPLE_CALLCHAIN) &&
				(e->branch_sample_type & PERF_SAMPLE_BRANCH_CALL_STACK) };
		if (!e->freq && !(e->sample_type & PERF_SAMPLE_PERIOD))
			p->fixed_period_of[k] = e->sample_period;
		p->mixed |= !same_layout(e, a);
		take_waits(p, v, attr_of[k], k);
	}
	p->layout = p->layouts[0];
	/* The ids were kept by attribute: now by event, the dummy's dropped. */
	for (size_t i = 0; i < p->nids; i++)
		for (unsigned k = 0; k < p->nevents; k++)
			if (p->ids[i].event == attr_of[k]) {
				p->ids[kept].id = p->ids[i].id;
				p->ids[kept++].event = k;
			}
	p->nids = kept;
	if (p->nids > 1)
		qsort(p->ids, p->nids, sizeof(*p->ids), by_id);
	memcpy(h->magic, ST_FILE_MAGIC, sizeof(h->magic));
	h->version = ST_FILE_VERSION;
	h->header_size = sizeof(*h);
	h->pid = 0;		/* any process: rows split by process */
	h->ipc_cycles = h->ipc_instructions = -1;
	snprintf(h->comm, sizeof(h->comm), "%s", strcmp(name, "-") ? st_basename(name) : "perf");
	st_text_safe(h->comm);
	for (unsigned k = 0; k < p->nevents; k++) {
		char one[64];
		size_t used = strlen(h->events);

		name_of(p, v, attr_of[k], one, sizeof(one));
		snprintf(h->events + used, sizeof(h->events) - used, "%s%s", k ? "," : "", one);
		if (p->nevents > 1)
			snprintf(h->sampled[k], sizeof(h->sampled[k]), "%s", one);
	}
	h->nsampled = p->nevents > 1 ? (int32_t)p->nevents : 0;
	take_counters(p, v, attr_of[0], h);
	h->period_value = a->freq ? a->sample_freq : a->sample_period;
	h->period_unit = a->freq ? ST_PERIOD_HZ
		: a->type == PERF_TYPE_SOFTWARE && a->config <= PERF_COUNT_SW_TASK_CLOCK
		? ST_PERIOD_NS : ST_PERIOD_EVENTS;
	describe(p, p->origin, sizeof(p->origin));
	/* Counted otherwise than perf report, which makes a sample of each member's read. */
	if (p->group_read) {
		size_t at = strlen(p->origin);

		snprintf(p->origin + at, sizeof(p->origin) - at, "; group read (%s...:S): each "
			 "sample is the leader's, its members' counts in it (perf report counts "
			 "one more sample a member)", h->counters[0]);
	}
	snprintf(h->note, sizeof(h->note), "%.*s", (int)sizeof(h->note) - 1, p->origin);
}

/* An attribute as perf wrote it (older or newer than ours): its known part, the rest zero. */
static void attr_from(struct perf_event_attr *a, const unsigned char *bytes, size_t len)
{
	memset(a, 0, sizeof(*a));
	memcpy(a, bytes, len < sizeof(*a) ? len : sizeof(*a));
}

static struct perf_data *open_file(struct perf_data *p, const char *name,
				   struct st_file_header *h)
{
	struct perf_event_attr v[ATTRS_MAX], attr;
	struct file_header fh;
	unsigned char raw[sizeof(struct perf_event_attr)];
	size_t nattrs, attr_of[ST_MAX_SAMPLED];
	off_t size;

	if (fseeko(p->f, 0, SEEK_END) != 0 || (size = ftello(p->f)) < 0)
		return refuse(p, "it cannot be read as a file (perf record -o - writes pipe mode)");
	p->file_size = (uint64_t)size;
	if (!read_at(p, 0, &fh, sizeof(fh)) || !perf_data_is((const unsigned char *)fh.magic, 8))
		return refuse(p, "not a perf.data file (bad header); make one with perf record");
	/* Version 1's header ends before the feature bitmap: it has none. */
	if (!memcmp(fh.magic, PERF_DATA_MAGIC_V1, 8) &&
	    fh.size == offsetof(struct file_header, features)) {
		memset(fh.features, 0, sizeof(fh.features));
		fh.size = sizeof(fh);
		p->v1 = true;
	}
	if (fh.size != sizeof(fh) || fh.attr_size < sizeof(uint64_t) * 2 + PERF_ATTR_SIZE_VER0 ||
	    fh.attr_size > 4096 || !section_fits(p, &fh.attrs) || fh.data.offset > p->file_size)
		return refuse(p, "the file is corrupt: its header's sizes do not fit it; record it again");
	nattrs = (size_t)(fh.attrs.size / fh.attr_size);
	if (!nattrs || fh.attrs.size % fh.attr_size)
		return refuse(p, "the file is corrupt: its attribute section is not whole entries; "
			      "record it again");
	if (nattrs > ATTRS_MAX)
		return refuse(p, "the file is corrupt: it lists more than 64 events; record it again");
	for (size_t i = 0; i < nattrs; i++) {
		size_t len = fh.attr_size - 16 < sizeof(raw) ? fh.attr_size - 16 : sizeof(raw);
		struct file_section ids;

		if (!read_at(p, fh.attrs.offset + i * fh.attr_size, raw, len) ||
		    !read_at(p, fh.attrs.offset + (i + 1) * fh.attr_size - sizeof(ids), &ids,
			     sizeof(ids)))
			return refuse(p, "the file is corrupt: an attribute cannot be read; "
				      "record it again");
		attr_from(&v[i], raw, len);
		/* Its ids, by which its samples are told from another event's. */
		if (section_fits(p, &ids) && ids.size <= IDS_MAX * sizeof(uint64_t)) {
			unsigned char *buf = st_xmalloc(ids.size + 1);

			if (read_at(p, ids.offset, buf, ids.size))
				add_ids(p, (unsigned)i, buf, ids.size);
			free(buf);
		}
	}
	if (fh.features[FEAT_AUXTRACE / 64] >> (FEAT_AUXTRACE % 64) & 1)
		return refuse(p, AUX_REFUSAL);
	/* The events' names (their descriptions, tracepoints' formats) choose among them. */
	load_features(p, &fh);
	if (choose_events(p, v, nattrs, &attr, attr_of) < 0)
		return NULL;
	p->at = fh.data.offset;
	p->end = fh.data.offset + fh.data.size;
	/*
	 * A file cut short (copied in part) is read to its end, and says so
	 * there; one perf record never finished (killed) says its data is
	 * empty: its records are read to the end of the file.
	 */
	if (!section_fits(p, &fh.data) || !fh.data.size) {
		p->declared = fh.data.size ? p->end : 0;
		p->end = p->file_size;
	}
	if (!fh.data.size)
		snprintf(p->ending, sizeof(p->ending), "read to the file's end: perf record "
			 "never closed it, killed?");
	take_events(p, v, attr_of, name, h);
	return p;
}

/* perf's records past the kernel's, and the bytes some carry after their size. */
#define RECORD_HEADER_ATTR		64
#define RECORD_HEADER_TRACING_DATA	66
#define RECORD_AUXTRACE_INFO		70
#define RECORD_AUXTRACE			71
#define RECORD_HEADER_FEATURE		80
#define RECORD_FINISHED_ROUND		68
#define RECORD_COMPRESSED		81
#define RECORD_COMPRESSED2		83
#define RECORD_FINISHED_INIT		82

/* Skips n bytes of a stream that cannot seek. */
static bool skip_bytes(struct perf_data *p, uint64_t n)
{
	while (n) {
		size_t k = n < sizeof(p->out) ? (size_t)n : sizeof(p->out);

		if (fread(p->out, k, 1, p->f) != 1)
			return false;
		n -= k;
	}
	return true;
}

/* A pipe's tracing data, the payload after its record: kept parsed. */
static bool read_tracing(struct perf_data *p, size_t len)
{
	unsigned char *buf = st_xmalloc(len);
	bool got = fread(buf, len, 1, p->f) == 1;

	if (got)
		take_tracing(p, buf, len);
	free(buf);
	return got;
}

/* A record's payload past its size: a pipe's tracing data kept, the rest skipped. */
static bool take_payload(struct perf_data *p, uint32_t type, uint64_t extra)
{
	if (type == RECORD_HEADER_TRACING_DATA && p->pipe && !p->tracing && extra <= TRACING_MAX)
		return read_tracing(p, (size_t)extra);
	if (!p->pipe && extra > p->end - p->at)
		return false;
	return skip_bytes(p, extra);
}

/*
 * The next record into p->rec, read where the stream is: 1, 0 at its
 * (or the data section's) end, -1 with p->error set.
 */
static int read_record(struct perf_data *p)
{
	struct perf_event_header ev;
	uint64_t left = p->end - p->at, extra = 0;
	bool cut = false;
	size_t got;

	if (!p->pipe && left == 0)
		return 0;
	got = fread(&ev, 1, sizeof(ev), p->f);
	if (got == 0 && p->pipe && feof(p->f))
		return 0;
	/*
	 * Bytes that are no record (no kind is 0 or past 127) after a whole
	 * round: something written after perf's stream, as its messages are
	 * by 2>&1.  Every record is here; what follows is not perf's.
	 */
	if (p->pipe && !p->unrounded && got == sizeof(ev) && (!ev.type || ev.type > 127)) {
		snprintf(p->ending, sizeof(p->ending), "bytes from %llu on are no record, "
			 "left: perf's messages by 2>&1?", (unsigned long long)p->at);
		return 0;
	}
	/* simpleperf's own: its header kept alone, the rest skipped (the formats read at the open). */
	if (got == sizeof(ev) && ev.type >= RECORD_SIMPLEPERF_FIRST) {
		uint64_t whole = record_size(&ev);

		cut = whole < sizeof(ev) || (!p->pipe && whole > left);
		extra = cut ? 0 : whole - sizeof(ev);
		ev.misc = 0;
		ev.size = whole < sizeof(ev) ? 0 : sizeof(ev);
	}
	if (got != sizeof(ev) || ev.size < sizeof(ev) || (!p->pipe && ev.size > left) || cut ||
	    (ev.size > sizeof(ev) && fread(p->rec + sizeof(ev), ev.size - sizeof(ev), 1, p->f) != 1)) {
		snprintf(p->error, sizeof(p->error),
			 "perf.data '%s' stops at byte %llu of its data (a record %s): what came "
			 "before is shown", p->name, (unsigned long long)p->at,
			 got == sizeof(ev) && ev.size < sizeof(ev) ? "of no size" : "cut short");
		return -1;
	}
	memcpy(p->rec, &ev, sizeof(ev));
	p->at += ev.size;
	/* Two kinds carry their payload after the size the header says. */
	if (ev.type == RECORD_HEADER_TRACING_DATA && ev.size >= sizeof(ev) + sizeof(uint32_t)) {
		uint32_t n;

		memcpy(&n, p->rec + sizeof(ev), sizeof(n));
		extra = n;
	} else if (ev.type == RECORD_AUXTRACE && ev.size >= sizeof(ev) + sizeof(uint64_t)) {
		memcpy(&extra, p->rec + sizeof(ev), sizeof(extra));
	}
	if (extra && !take_payload(p, ev.type, extra)) {
		snprintf(p->error, sizeof(p->error), "perf.data '%s' stops at byte %llu of its data "
			 "(a record's payload cut short): what came before is shown", p->name,
			 (unsigned long long)p->at);
		return -1;
	}
	p->at += extra;
	return 1;
}

/*
 * The next record, from the file or from inside perf record -z's
 * compressed records (their payloads one zstd stream): 1 (in p->rec),
 * 0 at the end, -1 after saying why in p->error.
 */
static int next_raw(struct perf_data *p)
{
	for (;;) {
		const struct perf_event_header *ev = (const void *)p->rec;
		char why[160];
		size_t skip;
		int rc = 1;

		if (p->inflate && (rc = perf_inflate_next(p->inflate, p->rec, sizeof(p->rec), why,
							   sizeof(why))) != 0) {
			if (rc > 0)
				return 1;
			snprintf(p->error, sizeof(p->error), "perf.data '%s' at byte %llu: %s; what "
				 "came before is shown", p->name, (unsigned long long)p->at, why);
			return -1;
		}
		rc = 1;
		if (p->held)
			p->held = false;
		else
			rc = read_record(p);
		if (rc <= 0 || (ev->type != RECORD_COMPRESSED && ev->type != RECORD_COMPRESSED2)) {
			if (rc == 0 && p->inflate && perf_inflate_partial(p->inflate)) {
				snprintf(p->error, sizeof(p->error), "perf.data '%s' at byte %llu: a "
					 "compressed record's last record is cut short; what came "
					 "before is shown", p->name, (unsigned long long)p->at);
				return -1;
			}
			return rc;
		}
		/* COMPRESSED2 says its data's size, then pads to 8 bytes. */
		skip = sizeof(*ev) + (ev->type == RECORD_COMPRESSED2 ? sizeof(uint64_t) : 0);
		if (ev->size < skip)
			continue;
		if (!p->inflate)
			p->inflate = perf_inflate_new();
		if (ev->type == RECORD_COMPRESSED2) {
			uint64_t n;

			memcpy(&n, p->rec + sizeof(*ev), sizeof(n));
			perf_inflate_feed(p->inflate, p->rec + skip,
					  n < ev->size - skip ? (size_t)n : ev->size - skip);
		} else {
			perf_inflate_feed(p->inflate, p->rec + skip, ev->size - skip);
		}
	}
}

/*
 * perf record -o -: a 16-byte header, then the attributes and features
 * as records before the kernel's.  Read up to the first of those (held
 * for perf_data_next) or the end of the init.
 */
static struct perf_data *open_pipe(struct perf_data *p, const char *name,
				   struct st_file_header *h)
{
	struct perf_event_attr v[ATTRS_MAX], attr;
	size_t nattrs = 0, attr_of[ST_MAX_SAMPLED];
	int rc;

	p->pipe = true;
	p->at = 16;
	p->end = UINT64_MAX;
	while ((rc = read_record(p)) > 0) {
		const struct perf_event_header *ev = (const void *)p->rec;
		size_t body = ev->size - sizeof(*ev);

		if (ev->type < RECORD_HEADER_ATTR) {
			p->held = true;
			break;
		}
		if (ev->type == RECORD_FINISHED_INIT)
			break;
		if (ev->type == RECORD_AUXTRACE_INFO || ev->type == RECORD_AUXTRACE)
			return refuse(p, AUX_REFUSAL);
		if (ev->type == RECORD_HEADER_ATTR && body >= PERF_ATTR_SIZE_VER0) {
			uint32_t size;

			if (nattrs == ATTRS_MAX)
				return refuse(p, "the stream is corrupt: it lists more than 64 events");
			/* The attribute's own size says where its ids start. */
			memcpy(&size, p->rec + sizeof(*ev) + offsetof(struct perf_event_attr, size),
			       sizeof(size));
			if (size < PERF_ATTR_SIZE_VER0 || size > body)
				size = (uint32_t)body;
			attr_from(&v[nattrs], p->rec + sizeof(*ev), size);
			/* Its ids follow it to the record's end. */
			add_ids(p, (unsigned)nattrs++, p->rec + sizeof(*ev) + size, body - size);
		} else if (ev->type == RECORD_HEADER_FEATURE && body >= sizeof(uint64_t)) {
			uint64_t feat;

			memcpy(&feat, p->rec + sizeof(*ev), sizeof(feat));
			if (feat == FEAT_AUXTRACE)
				return refuse(p, AUX_REFUSAL);
			p->featured = true;
			keep_feature(p, feat, p->rec + sizeof(*ev) + sizeof(feat), body - sizeof(feat));
		}
	}
	if (rc < 0) {
		st_error("%s", p->error);
		perf_data_close(p);
		return NULL;
	}
	if (!nattrs)
		return refuse(p, "the stream ends before it says what was sampled; give perf "
			      "record -o -'s whole output");
	if (choose_events(p, v, nattrs, &attr, attr_of) < 0)
		return NULL;
	take_events(p, v, attr_of, name, h);
	return p;
}

struct perf_data *perf_data_on(FILE *f, const char *name, struct st_file_header *h,
			       const char *only)
{
	struct perf_data *p = st_xcalloc(1, sizeof(*p));
	struct { char magic[8]; uint64_t size; } head;

	p->f = f;
	p->name = st_xstrdup(name);
	p->only = only;
	memset(h, 0, sizeof(*h));
	/* Read, not sought: a pipe's first bytes say it is one (perf_pipe_file_header). */
	if (fread(&head, sizeof(head), 1, f) != 1 || !perf_data_is((const unsigned char *)head.magic, 8))
		return refuse(p, "not a perf.data file (bad header); make one with perf record");
	if (head.size == sizeof(head))
		return open_pipe(p, name, h);
	return open_file(p, name, h);
}

/* perf's map of the kernel's text or a module's (pid -1). */
static bool kernel_map(const unsigned char *rec)
{
	const struct perf_event_header *h = (const void *)rec;
	int32_t pid;

	if ((h->type != PERF_RECORD_MMAP && h->type != PERF_RECORD_MMAP2) ||
	    h->size < sizeof(*h) + sizeof(pid))
		return false;
	memcpy(&pid, rec + sizeof(*h), sizeof(pid));
	return pid == -1;
}

/*
 * The next record of the file converted, in p->out: >0 its size, 0 at the
 * end, -EBADMSG where the file is damaged, ROUND_ENDS at perf's end of a
 * round (every buffer read once: what came before the round's start is
 * complete).
 */
#define ROUND_ENDS	(-1)
static long convert_next(struct perf_data *p)
{
	for (;;) {
		struct perf_group_state *gs;
		size_t size;
		int rc = 1, event;

		if (!p->pipe && !p->positioned &&
		    !(p->positioned = fseeko(p->f, (off_t)p->at, SEEK_SET) == 0)) {
			snprintf(p->error, sizeof(p->error), "perf.data '%s' cannot be read at byte "
				 "%llu", p->name, (unsigned long long)p->at);
			return -EBADMSG;
		}
		rc = next_raw(p);
		if (rc < 0) {
			p->end = p->at;		/* nothing more */
			p->pipe = false;
			return -EBADMSG;
		}
		if (rc == 0)
			break;
		/* A pipe's AUX area trace shows itself by its records (a file's, by its feature). */
		if (((const struct perf_event_header *)p->rec)->type == RECORD_AUXTRACE_INFO ||
		    ((const struct perf_event_header *)p->rec)->type == RECORD_AUXTRACE ||
		    ((const struct perf_event_header *)p->rec)->type == PERF_RECORD_AUX) {
			snprintf(p->error, sizeof(p->error), "perf.data '%s': %s", p->name,
				 AUX_REFUSAL);
			p->end = p->at;
			p->pipe = false;
			return -EBADMSG;
		}
		if (((const struct perf_event_header *)p->rec)->type == RECORD_FINISHED_ROUND) {
			p->unrounded = 0;
			return ROUND_ENDS;
		}
		p->unrounded += ((const struct perf_event_header *)p->rec)->type ==
				PERF_RECORD_SAMPLE;
		event = 0;
		if ((p->nevents > 1 || p->chosen) &&
		    ((const struct perf_event_header *)p->rec)->type == PERF_RECORD_SAMPLE) {
			uint64_t id;

			if (!sample_id(p, p->rec, ((const struct perf_event_header *)p->rec)->size,
				       &id) || (event = event_of(p, id)) < 0) {
				p->unowned++;
				continue;
			}
		}
		gs = &p->gs;
		if (p->group_read && ((const struct perf_event_header *)p->rec)->type ==
		    PERF_RECORD_SAMPLE)
			gs = group_state(p, p->rec, ((const struct perf_event_header *)p->rec)->size);
		size = perf_convert(layout_of(p, p->rec, event), gs,
				    (const struct perf_event_header *)p->rec, p->out);
		if (!size) {
			/*
			 * The kernel's kinds not read.  Not news: perf's own
			 * bookkeeping (64 on), and the kernel text's map perf
			 * writes (pid -1: kallsyms names the kernel here).
			 */
			if (((const struct perf_event_header *)p->rec)->type < RECORD_HEADER_ATTR &&
			    !kernel_map(p->rec))
				p->skipped++;
			continue;
		}
		if (event > 0 && ((const struct st_header *)p->out)->type == ST_REC_SAMPLE)
			((struct st_sample *)(void *)p->out)->flags |=
				(uint32_t)event << ST_SAMPLE_EVENT_SHIFT;
		if (p->fixed_period_of[event] &&
		    ((const struct st_header *)p->out)->type == ST_REC_SAMPLE)
			((struct st_sample *)(void *)p->out)->period = p->fixed_period_of[event];
		if (p->weighed_waits[event] &&
		    ((const struct st_header *)p->out)->type == ST_REC_SAMPLE)
			((struct st_sample *)(void *)p->out)->flags |= ST_SAMPLE_WAITED |
				(uint32_t)ST_OFFCPU_OTHER << ST_SAMPLE_OFFCPU_SHIFT;
		return (long)size;
	}
	if (p->declared) {
		snprintf(p->error, sizeof(p->error),
			 "perf.data '%s' is cut short: its data ends at byte %llu of the %llu it "
			 "declares; what came before is shown", p->name,
			 (unsigned long long)p->file_size, (unsigned long long)p->declared);
		p->declared = 0;
		return -EBADMSG;
	}
	/*
	 * Samples come only from perf record's reads of its buffers, and it
	 * ends a round after each read that wrote any, the last at its end:
	 * samples after the last round mean the stream was cut off.  Perf
	 * before 5.x (a stream with no feature records) wrote no round at
	 * its end: such a stream ends whole there.
	 */
	if (p->pipe && p->unrounded && p->featured) {
		snprintf(p->error, sizeof(p->error),
			 "perf.data stream '%s' stops inside a round, %llu samples after the last "
			 "(perf record was cut off before its end: killed?): what came before is "
			 "shown", p->name, (unsigned long long)p->unrounded);
		p->unrounded = 0;
		return -EBADMSG;
	}
	/* Read whole, yet its copy lost bytes past what it holds (a gzip stream cut). */
	if (p->damaged[0]) {
		snprintf(p->error, sizeof(p->error), "%s", p->damaged);
		p->damaged[0] = '\0';
		return -EBADMSG;
	}
	return 0;
}

static void queue_out(void *arg, const void *rec, size_t len)
{
	struct perf_data *p = arg;

	ST_GROW_BARE(p->queue, p->queue_cap, p->queued + len);
	memcpy(p->queue + p->queued, rec, len);
	p->queued += len;
}

/*
 * reorder_flush's: the record goes to the queue perf_data_next hands out,
 * through the pairs of switches and waits where the file has them.  A
 * switch record (--switch-events) pairs; without waits it is not read.
 */
static void queue_record(void *arg, const void *rec, size_t len)
{
	struct perf_data *p = arg;

	if (p->pair_waits)
		offcpu_pairs_take(&p->pairs, rec, len, queue_out, p);
	else if (((const struct st_header *)rec)->type == ST_REC_SWITCH)
		p->skipped++;
	else
		queue_out(p, rec, len);
}

/*
 * perf writes each CPU's buffer in turn, so a sample can come before the
 * mmap that explains it (on another CPU, a moment earlier): records go
 * out in time order, as perf report's ordered events do.  At the end of a
 * round, what is older than the previous round's newest record is
 * complete; a file without rounds is held to REORDER_MAX bytes.
 */
#define REORDER_MAX	(64u << 20)
long perf_data_next(struct perf_data *p, const void **rec)
{
	for (;;) {
		long n;

		if (p->queue_at < p->queued) {
			const struct st_header *h = (const void *)(p->queue + p->queue_at);

			*rec = h;
			p->queue_at += h->size;
			return (long)h->size;
		}
		p->queue_at = p->queued = 0;
		if (p->finished)
			return p->finish_rc;
		n = convert_next(p);
		if (n > 0) {
			uint64_t t = st_record_time(p->out);

			reorder_add(&p->order, p->out, (size_t)n, t);
			if (t > p->newest)
				p->newest = t;
			if (reorder_bytes(&p->order) > REORDER_MAX)
				reorder_flush(&p->order, UINT64_MAX, queue_record, p);
		} else if (n == ROUND_ENDS) {
			reorder_flush(&p->order, p->round_start, queue_record, p);
			p->round_start = p->newest;
		} else {
			/* The end, or damage: what was read goes out first. */
			reorder_flush(&p->order, UINT64_MAX, queue_record, p);
			/* Threads waiting as the recording ended: their waits to its last record. */
			if (p->pair_waits)
				offcpu_pairs_split(&p->pairs, p->newest, 0, queue_out, p);
			p->finished = true;
			p->finish_rc = n;
		}
	}
}

/*
 * The build-id feature: one entry per file with samples, perf's
 * build_id_event (a record header, a pid, 20 bytes of id and 4 that
 * say its size where the header's misc says so, then the file name,
 * NUL-padded).
 */
#define BUILD_ID_SIZE_GIVEN	(1u << 15)	/* perf's PERF_RECORD_MISC_BUILD_ID_SIZE */
#define BUILD_ID_ENTRY_HEAD	(sizeof(struct perf_event_header) + sizeof(int32_t) + 24)

void perf_data_build_ids(const struct perf_data *p, perf_data_build_id_fn fn, void *arg)
{
	const unsigned char *buf = p->feat[4].buf;
	size_t len = p->feat[4].len, at = 0;

	while (buf && len - at >= BUILD_ID_ENTRY_HEAD) {
		struct perf_event_header eh;
		const unsigned char *id = buf + at + sizeof(eh) + sizeof(int32_t);
		size_t idlen = 20, namelen;
		char path[4096];

		memcpy(&eh, buf + at, sizeof(eh));
		if (eh.size < BUILD_ID_ENTRY_HEAD || eh.size > len - at)
			return;		/* damaged: the entries before it stand */
		if (eh.misc & BUILD_ID_SIZE_GIVEN && id[20] >= 1 && id[20] <= 20)
			idlen = id[20];
		namelen = strnlen((const char *)buf + at + BUILD_ID_ENTRY_HEAD,
				  eh.size - BUILD_ID_ENTRY_HEAD);
		if (namelen && namelen < sizeof(path)) {
			memcpy(path, buf + at + BUILD_ID_ENTRY_HEAD, namelen);
			path[namelen] = '\0';
			fn(path, id, idlen, (eh.misc & PERF_RECORD_MISC_CPUMODE_MASK) ==
			   PERF_RECORD_MISC_KERNEL, arg);
		}
		at += eh.size;
	}
}

/*
 * sched_switch samples are waits only in the off-CPU recipe (beside an
 * on-CPU event, as perf's GUIs record them) or when asked (--off-cpu):
 * recorded alone (perf record -e sched:sched_switch -a) each is one
 * sample, as perf report counts it.  The reading is said in the note.
 */
bool perf_data_read_switches(struct perf_data *p, bool as_waits)
{
	size_t at = strlen(p->origin);
	const char *how;

	if (!p->can_pair)
		return false;
	p->pair_waits = as_waits || p->on_cpu_event;
	how = p->pair_waits ? (as_waits ? "off-CPU time (--off-cpu)"
			       : "off-CPU time (recorded beside an on-CPU event, the off-CPU recipe)")
		: "one sample each, as perf report (--off-cpu reads them as off-CPU time)";
	snprintf(p->origin + at, sizeof(p->origin) - at, "; sched:sched_switch read as %s", how);
	return p->pair_waits;
}

bool perf_data_switches_counted(const struct perf_data *p)
{
	return p->can_pair && !p->pair_waits;
}

bool perf_data_osrelease(const struct perf_data *p, char *out, size_t room)
{
	size_t at = 0;

	out[0] = '\0';
	return p->feat[5].buf && take_string(p->feat[5].buf, p->feat[5].len, &at, out, room) &&
	       out[0];
}

const char *perf_data_error(const struct perf_data *p)
{
	return p->error;
}

const char *perf_data_ending(const struct perf_data *p)
{
	return p->ending;
}

uint64_t perf_data_skipped(const struct perf_data *p)
{
	return p->skipped;
}

uint64_t perf_data_waits_unpaired(const struct perf_data *p)
{
	return p->pairs.unpaired;
}

uint64_t perf_data_left_out(const struct perf_data *p)
{
	return p->unowned;
}

void perf_data_close(struct perf_data *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < sizeof(p->feat) / sizeof(p->feat[0]); i++)
		free(p->feat[i].buf);
	perf_tracing_free(p->tracing);
	offcpu_pairs_free(&p->pairs);
	for (size_t i = 0; p->group_of && i < p->nids; i++)
		free(p->group_of[i]);
	free(p->group_of);
	reorder_free(&p->order);
	perf_inflate_free(p->inflate);
	free(p->queue);
	free(p->ids);
	if (p->f)
		fclose(p->f);
	free(p->name);
	free(p);
}
