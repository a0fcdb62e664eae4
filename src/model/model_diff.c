/*
 * model_diff.c - two profiles compared (model_diff.h).  Each side's rows
 * and paths go into one table keyed by name; what one side lacks stays
 * at zero share and is marked absent.
 */
#include "model/model_diff.h"
#include "model/model.h"
#include "symbols/symbols.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

struct keyed {
	UT_hash_handle hh;
	char *key;
	size_t at;		/* index into the rows or paths */
};

static size_t find_or_add(struct keyed **table, char *key, size_t next, bool *added)
{
	struct keyed *k;

	HASH_FIND_STR(*table, key, k);
	*added = !k;
	if (k) {
		free(key);
		return k->at;
	}
	k = st_xcalloc(1, sizeof(*k));
	k->key = key;
	k->at = next;
	HASH_ADD_KEYPTR(hh, *table, k->key, strlen(k->key), k);
	return next;
}

static void free_table(struct keyed **table)
{
	struct keyed *k, *next;

	for (k = *table; k; k = next) {
		next = k->hh.next;
		HASH_DEL(*table, k);
		free(k->key);
		free(k);
	}
}

static void add_rows(struct model_diff *d, struct keyed **table, size_t *cap,
		     const struct model *m, int side)
{
	struct model_row *rows;
	size_t n = model_rows(m, ST_SORT_SELF, false, &rows);

	for (size_t i = 0; i < n; i++) {
		const struct st_symbol *sym = rows[i].sym;
		size_t len = strlen(sym->module) + strlen(sym->name) + 2;
		char *key = st_xcalloc(1, len);
		bool added;
		size_t at;

		/* Module and name apart by a byte no name holds. */
		snprintf(key, len, "%s\x1f%s", sym->module, sym->name);
		at = find_or_add(table, key, d->nrows, &added);
		if (added) {
			ST_GROW(d->rows, *cap, d->nrows + 1);
			d->rows[d->nrows++] = (struct diff_row){
				.module = sym->module, .name = sym->name, .ipc = { NAN, NAN },
				.offcpu = { NAN, NAN } };
		}
		/* Two symbols of one name in a module (overloads): one row, summed. */
		if (side == 0 && !d->rows[at].sides.present[0])
			d->rows[at].sym_a = sym->id;	/* its heaviest: A's detail opens it */
		d->rows[at].sides.present[side] = true;
		d->rows[at].sides.samples[side] += rows[i].samples;
		d->rows[at].sides.share[side] += rows[i].self;
		if (!isnan(rows[i].ipc))
			d->rows[at].ipc[side] = rows[i].ipc;
		if (!isnan(rows[i].waited_under))
			d->rows[at].offcpu[side] = (isnan(d->rows[at].offcpu[side]) ? 0 :
						    d->rows[at].offcpu[side]) + rows[i].waited_under;
	}
	model_rows_free(rows);
}

/* node's path as folded stacks spell it (root first, ';' between). */
static char *path_text(const struct model *m, const struct cct *t, uint32_t node,
		       uint32_t *frames)
{
	size_t k = cct_path(t, node, frames), len = 1;
	char *text, *at;

	for (size_t i = 0; i < k; i++)
		len += strlen(model_frame_name(m, frames[i])) + 1;
	text = at = st_xcalloc(1, len);
	for (size_t i = 0; i < k; i++)
		at += sprintf(at, i ? ";%s" : "%s", model_frame_name(m, frames[i]));
	return text;
}

static void add_paths(struct model_diff *d, struct keyed **table, size_t *cap,
		      const struct model *m, int side)
{
	const struct cct *t = &m->tree;
	uint32_t *frames = st_xcalloc(CCT_MAX_DEPTH + 1, sizeof(*frames));

	for (uint32_t i = 1; i < t->n; i++) {
		const struct cct_node *n = cct_node(t, i);
		char *key;
		bool added;
		size_t at;

		if (!n->self)
			continue;
		key = path_text(m, t, i, frames);
		at = find_or_add(table, key, d->npaths, &added);
		if (added) {
			ST_GROW(d->paths, *cap, d->npaths + 1);
			d->paths[d->npaths++] = (struct diff_path){ .path = st_xstrdup(key) };
		}
		d->paths[at].sides.present[side] = true;
		d->paths[at].sides.samples[side] += n->self;
		d->paths[at].sides.share[side] += t->samples ? 100.0 * (double)n->self /
					    (double)t->samples : 0;
	}
	free(frames);
}

static int bigger_row(const void *x, const void *y)
{
	const struct diff_row *a = x, *b = y;
	double da = fabs(a->sides.delta), db = fabs(b->sides.delta);

	if (da != db)
		return da < db ? 1 : -1;
	return strcmp(a->name, b->name);
}

static int bigger_path(const void *x, const void *y)
{
	const struct diff_path *a = x, *b = y;
	double da = fabs(a->sides.delta), db = fabs(b->sides.delta);

	if (da != db)
		return da < db ? 1 : -1;
	return strcmp(a->path, b->path);
}

/*
 * The change of waits: a side that recorded them and lacks the row waited
 * 0 there; one that recorded none has nothing to compare ("-").
 */
static void settle_waits(struct diff_row *r, const bool waits[2])
{
	for (int side = 0; side < 2; side++)
		if (waits[side] && isnan(r->offcpu[side]))
			r->offcpu[side] = 0;
	r->offcpu_change = waits[0] && waits[1] ? r->offcpu[1] - r->offcpu[0] : NAN;
}

/* The change, then a side's share NAN where it has none ("-", not "0.00%"). */
static void settle(struct diff_sides *d)
{
	d->delta = d->share[1] - d->share[0];
	for (int side = 0; side < 2; side++)
		if (!d->present[side])
			d->share[side] = NAN;
}

void model_diff(const struct model *a, const struct model *b, struct model_diff *d)
{
	struct keyed *rows = NULL, *paths = NULL;
	size_t rows_cap = 0, paths_cap = 0;
	const bool waits[2] = { a->offcpu_event >= 0, b->offcpu_event >= 0 };

	memset(d, 0, sizeof(*d));
	d->samples[0] = a->samples;
	d->samples[1] = b->samples;
	add_rows(d, &rows, &rows_cap, a, 0);
	add_rows(d, &rows, &rows_cap, b, 1);
	add_paths(d, &paths, &paths_cap, a, 0);
	add_paths(d, &paths, &paths_cap, b, 1);
	free_table(&rows);
	free_table(&paths);
	for (size_t i = 0; i < d->nrows; i++) {
		settle(&d->rows[i].sides);
		settle_waits(&d->rows[i], waits);
	}
	for (size_t i = 0; i < d->npaths; i++)
		settle(&d->paths[i].sides);
	if (d->nrows)
		qsort(d->rows, d->nrows, sizeof(*d->rows), bigger_row);
	if (d->npaths)
		qsort(d->paths, d->npaths, sizeof(*d->paths), bigger_path);
}

void model_diff_free(struct model_diff *d)
{
	for (size_t i = 0; i < d->npaths; i++)
		free(d->paths[i].path);
	free(d->paths);
	free(d->rows);
	memset(d, 0, sizeof(*d));
}
