/*
 * export_pprof.c - the call tree as a pprof profile (profile.proto),
 * packed by protobuf-c and gzip-compressed by zlib, as go tool pprof,
 * Parca and Pyroscope read it.  A Sample per calling context that
 * samples ended in (its location ids leaf first), with its sample count
 * and its weight (ns of cpu-clock, or the event's count); a Location and
 * a Function per function (its source file and first line where the
 * file's DWARF says), a Mapping per module (its GNU build-id where the
 * file has one).  Locations carry no addresses: shimtop's tree keeps
 * functions, not instructions.  A window (--serve's profile of the next
 * N seconds) is the tree's counts now less those at its start.  With
 * events sampled each on its own (-e a,b) their weights do not add up:
 * each event has its sample types, its count and its weight, from the
 * history (one no longer whole from the start pools the counts, and the
 * profile's comment says so).  --serve's windows of a session with waits
 * hold its on-CPU events or its waits, apart (as Go serves CPU and
 * blocking profiles apart).
 */
#include "output/export.h"
#include "model/model.h"
#include "output/profile.pb-c.h"
#include "sampler/events.h"
#include "session/session.h"
#include "symbols/symbols.h"
#include "util.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>
#include <time.h>
#include <zlib.h>

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__ValueType ValueType;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;
typedef Perftools__Profiles__Mapping Mapping;

struct interned {
	UT_hash_handle hh;
	const char *s;		/* the key: strings the model keeps */
	int64_t index;
};

struct pprof {
	Profile p;
	struct interned *strings;	/* by content */
	size_t strings_cap;
	size_t nsyms;
	uint64_t *location_of;		/* by slot (sym, the truncated marker last): id, 0 none */
	size_t locations_cap, functions_cap, mappings_cap, samples_cap;
	Line *lines;			/* one per location, allocated with it */
	ValueType types[2 * ST_MAX_SAMPLED], period_type;
	ValueType *type_ptrs[2 * ST_MAX_SAMPLED];
	struct build_id *build_ids;	/* by file path and by base name */
};

struct build_id {
	UT_hash_handle hh;
	char *file;		/* the key */
	char *id;		/* hex, in the string table */
	int64_t index;
};

/* s's index in the string table; copy: a string of the export's making, kept with its entry. */
static int64_t interned(struct pprof *x, const char *s, bool copy)
{
	struct interned *e;
	size_t len = strlen(s);

	HASH_FIND(hh, x->strings, s, len, e);
	if (e)
		return e->index;
	e = st_xcalloc(1, sizeof(*e) + (copy ? len + 1 : 0));
	e->s = copy ? memcpy(e + 1, s, len + 1) : s;
	e->index = (int64_t)x->p.n_string_table;
	HASH_ADD_KEYPTR(hh, x->strings, e->s, len, e);
	ST_GROW(x->p.string_table, x->strings_cap, x->p.n_string_table + 1);
	x->p.string_table[x->p.n_string_table++] = (char *)e->s;
	return e->index;
}

/* Strings the model keeps, which outlive the export. */
static int64_t intern(struct pprof *x, const char *s)
{
	return interned(x, s, false);
}

static void note_build_id(const char *path, const char *build_id, void *arg)
{
	struct pprof *x = arg;
	const char *base = strrchr(path, '/');
	const char *keys[2] = { path, base ? base + 1 : path };
	struct build_id *e;

	if (!build_id[0])
		return;
	for (int i = 0; i < 2; i++) {
		HASH_FIND_STR(x->build_ids, keys[i], e);
		if (e)
			continue;
		e = st_xcalloc(1, sizeof(*e));
		e->file = st_xstrdup(keys[i]);
		e->id = st_xstrdup(build_id);
		e->index = intern(x, e->id);
		HASH_ADD_KEYPTR(hh, x->build_ids, e->file, strlen(e->file), e);
	}
}

static uint64_t mapping_of(struct pprof *x, const char *module)
{
	int64_t name = intern(x, module);
	struct build_id *id;
	Mapping *m;

	for (size_t i = 0; i < x->p.n_mapping; i++)
		if (x->p.mapping[i]->filename == name)
			return x->p.mapping[i]->id;
	m = st_xcalloc(1, sizeof(*m));
	perftools__profiles__mapping__init(m);
	m->id = x->p.n_mapping + 1;
	m->filename = name;
	HASH_FIND_STR(x->build_ids, module, id);
	if (id)
		m->build_id = id->index;
	m->has_functions = true;
	ST_GROW(x->p.mapping, x->mappings_cap, x->p.n_mapping + 1);
	x->p.mapping[x->p.n_mapping++] = m;
	return m->id;
}

/* The location (and function) of a frame, made on first use. */
static uint64_t location_of(struct pprof *x, const struct session *s, uint32_t sym)
{
	size_t slot = sym == CCT_SYM_TRUNCATED || sym >= x->nsyms ? x->nsyms : sym;
	Location *l;
	Function *f;
	Line *line;

	if (x->location_of[slot])
		return x->location_of[slot];
	f = st_xcalloc(1, sizeof(*f));
	perftools__profiles__function__init(f);
	f->id = x->p.n_function + 1;
	f->name = intern(x, model_frame_name(session_whole(s), sym));
	if (slot < x->nsyms) {
		const struct st_symbol *st = symbolizer_symbol(session_symbols(s), sym);
		const char *file;
		int at;

		f->system_name = intern(x, st->raw ? st->raw : st->name);
		f->filename = intern(x, st->module);
		/* Where the DWARF knows it: the function's source file and first line. */
		if (symbolizer_source_line(session_symbols(s), sym, 0, &file, &at) && file[0]
		    && at > 0) {
			f->filename = intern(x, file);
			f->start_line = at;
		}
	} else {
		f->system_name = f->name;
	}
	ST_GROW(x->p.function, x->functions_cap, x->p.n_function + 1);
	x->p.function[x->p.n_function++] = f;

	l = st_xcalloc(1, sizeof(*l) + sizeof(*line) + sizeof(Line *));
	perftools__profiles__location__init(l);
	line = (Line *)(l + 1);
	perftools__profiles__line__init(line);
	line->function_id = f->id;
	line->line = f->start_line;
	l->id = x->p.n_location + 1;
	if (slot < x->nsyms)
		l->mapping_id = mapping_of(x, symbolizer_symbol(session_symbols(s), sym)->module);
	l->n_line = 1;
	l->line = (Line **)(line + 1);
	l->line[0] = line;
	ST_GROW(x->p.location, x->locations_cap, x->p.n_location + 1);
	x->p.location[x->p.n_location++] = l;
	x->location_of[slot] = l->id;
	return l->id;
}

/* values: one a sample type. */
static void add_sample(struct pprof *x, const struct session *s, const struct cct *t,
		       uint32_t node, uint32_t *path, const uint64_t *values)
{
	size_t k = cct_path(t, node, path);
	Sample *smp;

	if (!k)
		return;
	smp = st_xcalloc(1, sizeof(*smp) + k * sizeof(uint64_t) +
			 x->p.n_sample_type * sizeof(int64_t));
	perftools__profiles__sample__init(smp);
	smp->location_id = (uint64_t *)(smp + 1);
	smp->value = (int64_t *)(smp->location_id + k);
	/* Leaf first, as pprof wants; path is root first. */
	for (size_t i = 0; i < k; i++)
		smp->location_id[i] = location_of(x, s, path[k - 1 - i]);
	smp->n_location_id = k;
	for (size_t v = 0; v < x->p.n_sample_type; v++)
		smp->value[v] = (int64_t)values[v];
	smp->n_value = x->p.n_sample_type;
	ST_GROW(x->p.sample, x->samples_cap, x->p.n_sample + 1);
	x->p.sample[x->p.n_sample++] = smp;
}

/* A clock's weights are nanoseconds; another event's, its count. */
/*
 * By event: "EVENT_samples/count" and "EVENT/nanoseconds" (a clock) or
 * "EVENT/count", for each event; the first event's weight the period
 * type and the default.
 */
static void sample_types_by_event(struct pprof *x, const struct session *s, const bool *kept)
{
	char name[96];
	size_t k = 0;

	perftools__profiles__value_type__init(&x->period_type);
	for (int e = 0; e < session_info(s)->nsampled; e++) {
		ValueType *c = &x->types[2 * k], *w = &x->types[2 * k + 1];
		const char *event = session_info(s)->sampled[e];

		if (!kept[e])
			continue;
		perftools__profiles__value_type__init(c);
		perftools__profiles__value_type__init(w);
		snprintf(name, sizeof(name), "%s_samples", event);
		c->type = interned(x, name, true);
		c->unit = intern(x, "count");
		w->type = intern(x, event);
		w->unit = intern(x, event_weighs_ns(event) ? "nanoseconds" : "count");
		x->type_ptrs[2 * k] = c;
		x->type_ptrs[2 * k + 1] = w;
		k++;
	}
	x->p.sample_type = x->type_ptrs;
	x->p.n_sample_type = 2 * k;
	x->period_type = x->types[1];
	x->p.period_type = &x->period_type;
	x->p.default_sample_type = x->types[1].type;
}

/* What the values are: a count, and the weight in the event's unit. */
static void sample_types(struct pprof *x, const struct session *s)
{
	const struct st_period *p = &session_info(s)->period;
	bool clock = p->unit == ST_PERIOD_NS;
	const char *events;

	perftools__profiles__value_type__init(&x->types[0]);
	perftools__profiles__value_type__init(&x->types[1]);
	perftools__profiles__value_type__init(&x->period_type);
	x->types[0].type = intern(x, "samples");
	x->types[0].unit = intern(x, "count");
	x->type_ptrs[0] = &x->types[0];
	x->type_ptrs[1] = &x->types[1];
	x->p.sample_type = x->type_ptrs;
	/* -e a,b: the weights are of different units; only the counts add up. */
	x->p.n_sample_type = session_info(s)->nsampled >= 2 ? 1 : 2;
	if (x->p.n_sample_type == 1)
		return;
	events = session_info(s)->events;
	x->types[1].type = intern(x, clock ? "cpu" : events[0] ? events : "events");
	x->types[1].unit = intern(x, clock ? "nanoseconds" : "count");
	x->period_type = x->types[1];
	x->p.period_type = &x->period_type;
	/* A fixed period (-c, or cpu-clock's): pprof's period; -F varies it. */
	if (p->unit == ST_PERIOD_NS || p->unit == ST_PERIOD_EVENTS)
		x->p.period = (int64_t)p->value;
	x->p.default_sample_type = x->types[1].type;
}

/* gzip (RFC 1952) of buf, written to out. */
static int write_gzip(const uint8_t *buf, size_t len, FILE *out)
{
	unsigned char chunk[65536];
	z_stream z;
	int rc;

	memset(&z, 0, sizeof(z));
	/* 15 window bits, +16: a gzip header and trailer rather than zlib's. */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	z.next_in = (unsigned char *)buf;
	z.avail_in = (uInt)len;
	do {
		z.next_out = chunk;
		z.avail_out = sizeof(chunk);
		rc = deflate(&z, Z_FINISH);
		if (rc == Z_STREAM_ERROR)
			break;
		if (fwrite(chunk, 1, sizeof(chunk) - z.avail_out, out) != sizeof(chunk) - z.avail_out)
			rc = Z_ERRNO;
	} while (rc == Z_OK);
	deflateEnd(&z);
	return rc == Z_STREAM_END ? 0 : -EIO;
}

static void free_profile(struct pprof *x)
{
	struct interned *e, *next;

	for (e = x->strings; e; e = next) {
		next = e->hh.next;
		HASH_DEL(x->strings, e);
		free(e);
	}
	for (struct build_id *b = x->build_ids, *nb; b; b = nb) {
		nb = b->hh.next;
		HASH_DEL(x->build_ids, b);
		free(b->file);
		free(b->id);
		free(b);
	}
	for (size_t i = 0; i < x->p.n_sample; i++)
		free(x->p.sample[i]);
	for (size_t i = 0; i < x->p.n_location; i++)
		free(x->p.location[i]);
	for (size_t i = 0; i < x->p.n_function; i++)
		free(x->p.function[i]);
	for (size_t i = 0; i < x->p.n_mapping; i++)
		free(x->p.mapping[i]);
	free(x->p.sample);
	free(x->p.location);
	free(x->p.function);
	free(x->p.mapping);
	free(x->p.string_table);
	free(x->p.comment);
	free(x->location_of);
}

/* When the first sample was taken, from a snapshot's meta data; 0: unknown. */
static int64_t first_sample_unix_ns(const struct session *s)
{
	struct json_object *meta, *v;
	int64_t ns = 0;

	if (!session_is_snapshot(s) || !session_snapshot(s)->meta)
		return 0;
	meta = json_tokener_parse(session_snapshot(s)->meta);
	if (meta && json_object_object_get_ex(meta, "first_sample_unix_ns", &v) &&
	    json_object_is_type(v, json_type_int))
		ns = json_object_get_int64(v);
	json_object_put(meta);
	return ns > 0 ? ns : 0;
}

void pprof_window_begin(const struct session *s, struct pprof_window *w)
{
	const struct cct *t = &session_tables(s)->tree;
	struct timespec now;

	w->n = t->n;
	w->self = st_xcalloc(t->n ? t->n : 1, sizeof(*w->self));
	w->weight = st_xcalloc(t->n ? t->n : 1, sizeof(*w->weight));
	for (size_t i = 0; i < t->n; i++) {
		w->self[i] = cct_node(t, (uint32_t)i)->self;
		w->weight[i] = cct_node(t, (uint32_t)i)->self_weight;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	w->start_unix_ns = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
	w->start_ns = st_now_ns();
	w->from_time = session_whole(s)->last_time + 1;
}

void pprof_window_free(struct pprof_window *w)
{
	free(w->self);
	free(w->weight);
	memset(w, 0, sizeof(*w));
}

/* What a node gained since the window's start (all of it without one). */
static uint64_t since(const uint64_t *at_start, size_t n, uint32_t node, uint64_t now)
{
	uint64_t then = at_start && node < n ? at_start[node] : 0;

	/* A count moved to another node (a late name) is not taken twice. */
	return now > then ? now - then : 0;
}

/* A Sample per node with samples of any event in [from, to), its values each event's. */
static void add_by_event(struct pprof *x, struct session *s, const struct cct *t, uint32_t *path,
			 uint64_t from, uint64_t to, const bool *kept)
{
	size_t ne = (size_t)session_info(s)->nsampled;
	uint64_t *values, v[2 * ST_MAX_SAMPLED];

	values = history_node_events(&session_whole(s)->history, from, to, t->n, ne);
	for (uint32_t i = 1; i < t->n; i++) {
		const uint64_t *all = values + (size_t)i * ne * 2;
		size_t k = 0;
		bool any = false;

		for (size_t e = 0; e < ne; e++) {
			if (!kept[e])
				continue;
			v[k++] = all[2 * e];
			v[k++] = all[2 * e + 1];
			any = any || all[2 * e];
		}
		if (any)
			add_sample(x, s, t, i, path, v);
	}
	free(values);
}

/*
 * The events a profile of part holds: all, or (with waits sampled) the
 * off-CPU event alone or the others alone.  Whether any was left out.
 */
static bool events_kept(const struct session *s, enum pprof_part part, bool *kept)
{
	int off = session_whole(s)->offcpu_event;
	bool out = false;

	for (int e = 0; e < session_info(s)->nsampled; e++) {
		kept[e] = part == PPROF_ALL || off < 0 || (e == off) == (part == PPROF_WAITS);
		out = out || !kept[e];
	}
	return out;
}

int export_pprof_window(struct session *s, const struct pprof_window *w, FILE *out)
{
	const struct model *m = session_tables(s);
	const struct cct *t = &m->tree;
	struct pprof x;
	uint64_t from, to;
	bool by_event, kept[ST_MAX_SAMPLED], some_out;
	uint32_t *path = st_xcalloc(CCT_MAX_DEPTH + 1, sizeof(*path));
	uint8_t *packed;
	size_t len;
	int rc;

	memset(&x, 0, sizeof(x));
	perftools__profiles__profile__init(&x.p);
	x.nsyms = symbolizer_count(session_symbols(s));
	x.location_of = st_xcalloc(x.nsyms + 1, sizeof(*x.location_of));
	intern(&x, "");		/* string_table[0] is "" */
	symbolizer_each_file(session_symbols(s), note_build_id, &x);
	/*
	 * Events apart need the history (its samples say whose); its nodes
	 * are the session's tree's.  A window: the samples after its start.
	 */
	session_range_ns(s, &from, &to);
	if (w) {
		from = w->from_time;
		to = UINT64_MAX;
	}
	some_out = events_kept(s, w ? w->part : PPROF_ALL, kept);
	by_event = session_info(s)->nsampled >= 2 &&
		   history_holds_from(&session_whole(s)->history, from > session_whole(s)->first_time ? from
				      : session_whole(s)->first_time);
	if (by_event) {
		t = &session_whole(s)->tree;
		sample_types_by_event(&x, s, kept);
		add_by_event(&x, s, t, path, from, to, kept);
	} else {
		sample_types(&x, s);
	}
	for (uint32_t i = 1; i < t->n && !by_event; i++) {
		const struct cct_node *n = cct_node(t, i);
		uint64_t v[2] = { since(w ? w->self : NULL, w ? w->n : 0, i, n->self),
				  since(w ? w->weight : NULL, w ? w->n : 0, i, n->self_weight) };

		if (v[0])
			add_sample(&x, s, t, i, path, v);
	}
	if (w) {
		x.p.time_nanos = w->start_unix_ns;
		x.p.duration_nanos = (int64_t)(st_now_ns() - w->start_ns);
	} else {
		x.p.time_nanos = first_sample_unix_ns(s);
		if (m->first_time && m->last_time > m->first_time)
			x.p.duration_nanos = (int64_t)(m->last_time - m->first_time);
	}
	x.p.comment = st_xcalloc(2, sizeof(*x.p.comment));
	x.p.comment[x.p.n_comment++] = intern(&x, "shimtop " PACKAGE_VERSION);
	if (!by_event && session_info(s)->nsampled >= 2)
		x.p.comment[x.p.n_comment++] = intern(&x, some_out
			? "samples of every event pooled, waits and CPU alike: the history no "
			  "longer holds where this starts"
			: "samples of every event pooled: the history no longer holds where this "
			  "starts");
	len = perftools__profiles__profile__get_packed_size(&x.p);
	packed = st_xcalloc(1, len ? len : 1);
	perftools__profiles__profile__pack(&x.p, packed);
	rc = write_gzip(packed, len, out);
	free(packed);
	free(path);
	free_profile(&x);
	return rc ? rc : ferror(out) ? -EIO : 0;
}

int export_pprof(struct session *s, FILE *out)
{
	return export_pprof_window(s, NULL, out);
}
