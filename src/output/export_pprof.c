/*
 * export_pprof.c - the call tree as a pprof profile (profile.proto),
 * packed by protobuf-c and gzip-compressed by zlib, as go tool pprof,
 * Parca and Pyroscope read it.  A Sample per calling context that
 * samples ended in (its location ids leaf first), with its sample count
 * and its weight (ns of cpu-clock, or the event's count); a Location and
 * a Function per function, a Mapping per module.  Functions carry no
 * addresses or lines: shimtop's tree keeps functions, not instructions.
 */
#include "output/export.h"
#include "model/model.h"
#include "output/profile.pb-c.h"
#include "session.h"
#include "symbols/symbols.h"
#include "util.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>
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
	ValueType types[2], period_type;
	ValueType *type_ptrs[2];
};

static int64_t intern(struct pprof *x, const char *s)
{
	struct interned *e;

	HASH_FIND_STR(x->strings, s, e);
	if (e)
		return e->index;
	e = st_xcalloc(1, sizeof(*e));
	e->s = s;
	e->index = (int64_t)x->p.n_string_table;
	HASH_ADD_KEYPTR(hh, x->strings, e->s, strlen(e->s), e);
	ST_GROW(x->p.string_table, x->strings_cap, x->p.n_string_table + 1);
	x->p.string_table[x->p.n_string_table++] = (char *)s;
	return e->index;
}

static uint64_t mapping_of(struct pprof *x, const char *module)
{
	int64_t name = intern(x, module);
	Mapping *m;

	for (size_t i = 0; i < x->p.n_mapping; i++)
		if (x->p.mapping[i]->filename == name)
			return x->p.mapping[i]->id;
	m = st_xcalloc(1, sizeof(*m));
	perftools__profiles__mapping__init(m);
	m->id = x->p.n_mapping + 1;
	m->filename = name;
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
	f->name = intern(x, model_frame_name(&s->model, sym));
	if (slot < x->nsyms) {
		const struct st_symbol *st = symbolizer_symbol(s->symbols, sym);

		f->system_name = intern(x, st->raw ? st->raw : st->name);
		f->filename = intern(x, st->module);
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
	l->id = x->p.n_location + 1;
	if (slot < x->nsyms)
		l->mapping_id = mapping_of(x, symbolizer_symbol(s->symbols, sym)->module);
	l->n_line = 1;
	l->line = (Line **)(line + 1);
	l->line[0] = line;
	ST_GROW(x->p.location, x->locations_cap, x->p.n_location + 1);
	x->p.location[x->p.n_location++] = l;
	x->location_of[slot] = l->id;
	return l->id;
}

static void add_sample(struct pprof *x, const struct session *s, const struct cct *t,
		       uint32_t node, uint32_t *path)
{
	const struct cct_node *n = cct_node(t, node);
	size_t k = cct_path(t, node, path);
	Sample *smp;

	if (!k)
		return;
	smp = st_xcalloc(1, sizeof(*smp) + k * sizeof(uint64_t) + 2 * sizeof(int64_t));
	perftools__profiles__sample__init(smp);
	smp->location_id = (uint64_t *)(smp + 1);
	smp->value = (int64_t *)(smp->location_id + k);
	/* Leaf first, as pprof wants; path is root first. */
	for (size_t i = 0; i < k; i++)
		smp->location_id[i] = location_of(x, s, path[k - 1 - i]);
	smp->n_location_id = k;
	smp->value[0] = (int64_t)n->self;
	smp->value[1] = (int64_t)n->self_weight;
	smp->n_value = x->p.n_sample_type;
	ST_GROW(x->p.sample, x->samples_cap, x->p.n_sample + 1);
	x->p.sample[x->p.n_sample++] = smp;
}

/* What the values are: a count, and the weight in the event's unit. */
static void sample_types(struct pprof *x, const struct session *s)
{
	const struct st_period *p = &s->info.period;
	bool clock = p->unit == ST_PERIOD_NS;

	perftools__profiles__value_type__init(&x->types[0]);
	perftools__profiles__value_type__init(&x->types[1]);
	perftools__profiles__value_type__init(&x->period_type);
	x->types[0].type = intern(x, "samples");
	x->types[0].unit = intern(x, "count");
	x->type_ptrs[0] = &x->types[0];
	x->type_ptrs[1] = &x->types[1];
	x->p.sample_type = x->type_ptrs;
	/* -e a,b: the weights are of different units; only the counts add up. */
	x->p.n_sample_type = s->info.nsampled >= 2 ? 1 : 2;
	if (x->p.n_sample_type == 1)
		return;
	x->types[1].type = intern(x, clock ? "cpu" : s->info.events[0] ? s->info.events
				  : "events");
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

	if (!s->is_snapshot || !s->snap.meta)
		return 0;
	meta = json_tokener_parse(s->snap.meta);
	if (meta && json_object_object_get_ex(meta, "first_sample_unix_ns", &v) &&
	    json_object_is_type(v, json_type_int))
		ns = json_object_get_int64(v);
	json_object_put(meta);
	return ns > 0 ? ns : 0;
}

int export_pprof(struct session *s, FILE *out)
{
	const struct model *m = session_tables(s);
	const struct cct *t = &m->tree;
	struct pprof x;
	uint32_t *path = st_xcalloc(CCT_MAX_DEPTH + 1, sizeof(*path));
	uint8_t *packed;
	size_t len;
	int rc;

	memset(&x, 0, sizeof(x));
	perftools__profiles__profile__init(&x.p);
	x.nsyms = symbolizer_count(s->symbols);
	x.location_of = st_xcalloc(x.nsyms + 1, sizeof(*x.location_of));
	intern(&x, "");		/* string_table[0] is "" */
	sample_types(&x, s);
	for (uint32_t i = 1; i < t->n; i++)
		if (cct_node(t, i)->self)
			add_sample(&x, s, t, i, path);
	x.p.time_nanos = first_sample_unix_ns(s);
	if (m->first_time && m->last_time > m->first_time)
		x.p.duration_nanos = (int64_t)(m->last_time - m->first_time);
	x.p.comment = st_xcalloc(1, sizeof(*x.p.comment));
	x.p.comment[x.p.n_comment++] = intern(&x, "shimtop " PACKAGE_VERSION);
	len = perftools__profiles__profile__get_packed_size(&x.p);
	packed = st_xcalloc(1, len ? len : 1);
	perftools__profiles__profile__pack(&x.p, packed);
	rc = write_gzip(packed, len, out);
	free(packed);
	free(path);
	free_profile(&x);
	return rc ? rc : ferror(out) ? -EIO : 0;
}
