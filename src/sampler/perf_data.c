/*
 * perf_data.c - reading perf record's perf.data (file mode).  The layout
 * is perf's tools/perf/Documentation/perf.data-file-format.txt: a
 * header of sections (attributes, data), a bitmap of features whose
 * sections follow the data, and the data section's records, which are
 * the kernel's ring records that perf_parse already converts.
 */
#include "sampler/perf_data.h"
#include "sampler/perf_parse.h"
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
#define FEAT_HOSTNAME		3
#define FEAT_VERSION		5
#define FEAT_CMDLINE		11
#define FEAT_EVENT_DESC		12

#define ATTRS_MAX		64u
#define FEATURE_MAX		(1u << 20)	/* a feature section read whole */

struct perf_data {
	FILE *f;
	char *name;
	uint64_t file_size;
	uint64_t at, end;		/* the data section left to read */
	bool positioned;		/* the stream is at `at` (the features were read first) */
	uint64_t declared;		/* where the data should end, past the file's end; 0 if it fits */
	struct perf_layout layout;
	struct perf_group_state gs;
	uint64_t fixed_period;		/* each sample's, when it does not carry one */
	uint64_t skipped;
	char error[256];
	_Alignas(8) unsigned char rec[65536];
	_Alignas(8) unsigned char out[ST_RECORD_MAX];
};

bool perf_data_is(const unsigned char *first, size_t len)
{
	return len >= 8 && !memcmp(first, PERF_DATA_MAGIC, 8);
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

/* Feature section feat (nth of the set bits), read whole; NULL if absent, too big or cut. */
static unsigned char *feature(struct perf_data *p, const struct file_header *fh,
			      unsigned feat, size_t *len)
{
	struct file_section s;
	unsigned nth = 0;
	unsigned char *buf;

	if (!(fh->features[feat / 64] >> (feat % 64) & 1))
		return NULL;
	for (unsigned b = 0; b < feat; b++)
		nth += (unsigned)(fh->features[b / 64] >> (b % 64) & 1);
	if (!read_at(p, fh->data.offset + fh->data.size + (uint64_t)nth * sizeof(s), &s,
		     sizeof(s)) || !section_fits(p, &s) || s.size > FEATURE_MAX)
		return NULL;
	buf = st_xmalloc(s.size + 1);
	if (!read_at(p, s.offset, buf, s.size)) {
		free(buf);
		return NULL;
	}
	*len = s.size;
	return buf;
}

/* The first event's name as perf record described it (EVENT_DESC), if given. */
static bool described_name(struct perf_data *p, const struct file_header *fh, char *out,
			   size_t room)
{
	size_t len = 0, at;
	unsigned char *buf = feature(p, fh, FEAT_EVENT_DESC, &len);
	uint32_t nevents = 0, attr_size = 0;
	bool ok = false;

	if (buf && len >= 2 * sizeof(uint32_t)) {
		memcpy(&nevents, buf, sizeof(nevents));
		memcpy(&attr_size, buf + sizeof(nevents), sizeof(attr_size));
		/* nr, attr_size; then the first event: its attr, its id count, its name. */
		if (nevents && attr_size <= len && len - 2 * sizeof(uint32_t) >= attr_size) {
			at = 2 * sizeof(uint32_t) + attr_size + sizeof(uint32_t);
			ok = at <= len && take_string(buf, len, &at, out, room) && out[0];
		}
	}
	free(buf);
	return ok;
}

/* "perf 6.1, host H: perf record -g ..." from the features there are. */
static void describe(struct perf_data *p, const struct file_header *fh, char *out, size_t room)
{
	char version[64] = "", host[64] = "", cmd[512] = "", word[256];
	size_t len = 0, at = 0;
	unsigned char *buf;

	if ((buf = feature(p, fh, FEAT_VERSION, &len)))
		take_string(buf, len, &at, version, sizeof(version));
	free(buf);
	at = 0;
	if ((buf = feature(p, fh, FEAT_HOSTNAME, &len)))
		take_string(buf, len, &at, host, sizeof(host));
	free(buf);
	if ((buf = feature(p, fh, FEAT_CMDLINE, &len)) && len >= sizeof(uint32_t)) {
		uint32_t n;

		memcpy(&n, buf, sizeof(n));
		at = sizeof(n);
		for (uint32_t i = 0; i < n && take_string(buf, len, &at, word, sizeof(word)); i++) {
			size_t used = strlen(cmd);

			snprintf(cmd + used, sizeof(cmd) - used, "%s%s", used ? " " : "", word);
		}
	}
	free(buf);
	snprintf(out, room, "perf.data%s%s%s%s%s%s", version[0] ? " from perf " : "", version,
		 host[0] ? " on " : "", host, cmd[0] ? ": " : "", cmd);
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

/*
 * The event sampled, into *main: the one attribute that is not perf's
 * dummy (-a and --switch-events add one for side-band records), whose
 * records end as the main one's do.  -1 after refuse (p is closed).
 */
static int take_attrs(struct perf_data *p, const struct file_header *fh, size_t n,
		      struct perf_event_attr *main)
{
	size_t mains = 0;
	struct perf_event_attr a, dummy;

	memset(&dummy, 0, sizeof(dummy));
	for (size_t i = 0; i < n; i++) {
		/* perf_event_attr as perf wrote it (older or newer), then its ids' section. */
		memset(&a, 0, sizeof(a));
		if (!read_at(p, fh->attrs.offset + i * fh->attr_size, &a,
			     fh->attr_size - 16 < sizeof(a) ? fh->attr_size - 16 : sizeof(a))) {
			refuse(p, "the file is corrupt: an attribute cannot be read; record it again");
			return -1;
		}
		if (is_dummy(&a)) {
			dummy = a;
			continue;
		}
		*main = a;
		mains++;
	}
	if (mains != 1) {
		refuse(p, mains ? "it holds several events; shimtop reads files of one event yet "
		       "(perf record -e EVENT)" : "it holds no event that samples");
		return -1;
	}
	if (n > 1 && ((dummy.sample_type ^ main->sample_type) & SAMPLE_ID_BITS ||
		      dummy.sample_id_all != main->sample_id_all)) {
		refuse(p, "its side-band records are laid out unlike its samples; shimtop reads "
		       "perf record's usual files");
		return -1;
	}
	return 0;
}

struct perf_data *perf_data_on(FILE *f, const char *name, struct st_file_header *h)
{
	struct perf_data *p = st_xcalloc(1, sizeof(*p));
	struct perf_event_attr attr = { 0 };
	struct file_header fh;
	size_t nattrs;
	off_t size;

	p->f = f;
	p->name = st_xstrdup(name);
	memset(h, 0, sizeof(*h));
	if (fseeko(f, 0, SEEK_END) != 0 || (size = ftello(f)) < 0)
		return refuse(p, "it cannot be read as a file; give a file, not a pipe");
	p->file_size = (uint64_t)size;
	if (!read_at(p, 0, &fh, sizeof(fh)) || memcmp(fh.magic, PERF_DATA_MAGIC, 8))
		return refuse(p, "not a perf.data file (bad header); make one with perf record");
	if (fh.size != sizeof(fh) || fh.attr_size < sizeof(uint64_t) * 2 + PERF_ATTR_SIZE_VER0 ||
	    fh.attr_size > 4096 || !section_fits(p, &fh.attrs) || fh.data.offset > p->file_size)
		return refuse(p, "the file is corrupt: its header's sizes do not fit it; record it again");
	nattrs = (size_t)(fh.attrs.size / fh.attr_size);
	if (!nattrs || fh.attrs.size % fh.attr_size)
		return refuse(p, "the file is corrupt: its attribute section is not whole entries; "
			      "record it again");
	if (nattrs > ATTRS_MAX)
		return refuse(p, "the file is corrupt: it lists more than 64 events; record it again");
	if (take_attrs(p, &fh, nattrs, &attr) < 0)
		return NULL;
	p->layout = (struct perf_layout){ .sample_type = attr.sample_type,
					  .read_format = attr.read_format,
					  .sample_id_all = (int)attr.sample_id_all,
					  .regs_user = attr.sample_regs_user };
	if (!(attr.sample_type & PERF_SAMPLE_IP) || !(attr.sample_type & PERF_SAMPLE_TID))
		return refuse(p, "its samples carry no address or thread; record it with perf "
			      "record's defaults");
	if (!attr.freq && !(attr.sample_type & PERF_SAMPLE_PERIOD))
		p->fixed_period = attr.sample_period;
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

	/* The header a recording has: what was sampled, how often, where from. */
	memcpy(h->magic, ST_FILE_MAGIC, sizeof(h->magic));
	h->version = ST_FILE_VERSION;
	h->header_size = sizeof(*h);
	h->pid = 0;		/* any process: rows split by process */
	h->ipc_cycles = h->ipc_instructions = -1;
	snprintf(h->comm, sizeof(h->comm), "%s", st_basename(name));
	st_text_safe(h->comm);
	if (!described_name(p, &fh, h->events, sizeof(h->events)))
		event_name(&attr, h->events, sizeof(h->events));
	h->period_value = attr.freq ? attr.sample_freq : attr.sample_period;
	h->period_unit = attr.freq ? ST_PERIOD_HZ
		: attr.type == PERF_TYPE_SOFTWARE && attr.config <= PERF_COUNT_SW_TASK_CLOCK
		? ST_PERIOD_NS : ST_PERIOD_EVENTS;
	describe(p, &fh, h->note, sizeof(h->note));
	return p;
}

long perf_data_next(struct perf_data *p, const void **rec)
{
	struct perf_event_header ev;

	while (p->at < p->end) {
		size_t size;

		if (!p->positioned)
			p->positioned = fseeko(p->f, (off_t)p->at, SEEK_SET) == 0;
		if (p->end - p->at < sizeof(ev) || !p->positioned ||
		    fread(&ev, sizeof(ev), 1, p->f) != 1 ||
		    ev.size < sizeof(ev) || ev.size > p->end - p->at) {
			snprintf(p->error, sizeof(p->error),
				 "perf.data '%s' stops at byte %llu of its data (a record %s): "
				 "what came before is shown", p->name, (unsigned long long)p->at,
				 p->end - p->at < sizeof(ev) || ev.size >= sizeof(ev)
				 ? "cut short" : "of no size");
			p->at = p->end;
			return -EBADMSG;
		}
		if (fread(p->rec + sizeof(ev), ev.size - sizeof(ev), 1, p->f) != 1 &&
		    ev.size > sizeof(ev)) {
			snprintf(p->error, sizeof(p->error),
				 "perf.data '%s' cannot be read at byte %llu: what came before "
				 "is shown", p->name, (unsigned long long)p->at);
			p->at = p->end;
			return -EBADMSG;
		}
		memcpy(p->rec, &ev, sizeof(ev));
		p->at += ev.size;
		size = perf_convert(&p->layout, &p->gs, (const struct perf_event_header *)p->rec,
				    p->out);
		if (!size) {
			p->skipped++;
			continue;
		}
		if (p->fixed_period && ((const struct st_header *)p->out)->type == ST_REC_SAMPLE)
			((struct st_sample *)(void *)p->out)->period = p->fixed_period;
		*rec = p->out;
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
	return 0;
}

const char *perf_data_error(const struct perf_data *p)
{
	return p->error;
}

uint64_t perf_data_skipped(const struct perf_data *p)
{
	return p->skipped;
}

void perf_data_close(struct perf_data *p)
{
	if (!p)
		return;
	if (p->f)
		fclose(p->f);
	free(p->name);
	free(p);
}
