/* settings.c - F2's settings file (see settings.h). */
#include "ui/settings.h"
#include "output_file.h"
#include "util.h"

#include <errno.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

void settings_defaults(struct ui_settings *s)
{
	memset(s, 0, sizeof(*s));
	s->delay = 1.0;
	s->sort = ST_SORT_SELF;
}

bool settings_path(char *buf, size_t len)
{
	return st_config_path("shimtoprc", buf, len);
}

static const struct {
	const char *name;
	unsigned bit;
} hideable[] = {
	{ "samples", SETTINGS_HIDE_SAMPLES },
	{ "ipc", SETTINGS_HIDE_IPC },
	{ "module", SETTINGS_HIDE_MODULE },
};

struct read_ctx {
	struct ui_settings *s;
	char *err;
	size_t len;
};

static int flag(const char *v, bool *out)
{
	if (!strcasecmp(v, "true") || !strcmp(v, "1") || !strcasecmp(v, "yes"))
		*out = true;
	else if (!strcasecmp(v, "false") || !strcmp(v, "0") || !strcasecmp(v, "no"))
		*out = false;
	else
		return -1;
	return 0;
}

uint32_t settings_table_hidden(const struct ui_settings *s, const struct table_def *t)
{
	for (size_t i = 0; i < NDECLARED_TABLES; i++)
		if (declared_tables[i] == t)
			return s->table_hidden[i];
	return 0;
}

/* "threads.ipc = false": the column F2 hid, by its table's name and JSON key. */
static int table_column_entry(struct ui_settings *s, const char *key, const char *v)
{
	const char *dot = strchr(key, '.');
	bool shown;

	if (!dot || flag(v, &shown))
		return -1;
	for (size_t i = 0; i < NDECLARED_TABLES; i++) {
		const struct table_def *t = declared_tables[i];

		if (strlen(t->name) != (size_t)(dot - key) || strncmp(key, t->name, dot - key))
			continue;
		for (size_t c = 0; c < t->n; c++) {
			if (!table_column_hideable(t, c) || strcmp(dot + 1, t->cols[c].key))
				continue;
			if (shown)
				s->table_hidden[i] &= ~(UINT32_C(1) << c);
			else
				s->table_hidden[i] |= UINT32_C(1) << c;
			return 0;
		}
	}
	return -1;
}

static int display_entry(struct ui_settings *s, const char *key, const char *v)
{
	char *end;

	if (!strcmp(key, "theme")) {
		if (strlen(v) >= sizeof(s->theme) || strchr(v, '/'))
			return -1;
		snprintf(s->theme, sizeof(s->theme), "%s", v);
	} else if (!strcmp(key, "delay")) {
		double d = strtod(v, &end);

		if (end == v || *end || !(d >= 0.1) || d > 3600)
			return -1;
		s->delay = d;
	} else if (!strcmp(key, "sort")) {
		int k;

		for (k = 0; k < ST_SORT_COUNT; k++)
			if (!strcmp(v, sort_key_name((enum st_sort_key)k)))
				break;
		if (k == ST_SORT_COUNT)
			return -1;
		s->sort = (enum st_sort_key)k;
	} else if (!strcmp(key, "invert")) {
		return flag(v, &s->invert);
	} else if (!strcmp(key, "header")) {
		if (strcmp(v, "full") && strcmp(v, "brief"))
			return -1;
		s->brief_header = !strcmp(v, "brief");
	} else {
		return -1;
	}
	return 0;
}

static int on_entry(void *arg, const char *section, const char *key, const char *v)
{
	struct read_ctx *c = arg;
	int bad = -1;

	if (!strcmp(section, "display")) {
		bad = display_entry(c->s, key, v);
	} else if (!strcmp(section, "columns")) {
		if (strchr(key, '.'))
			bad = table_column_entry(c->s, key, v);
		for (size_t i = 0; i < sizeof(hideable) / sizeof(hideable[0]); i++) {
			bool shown;

			if (strcmp(key, hideable[i].name) || flag(v, &shown))
				continue;
			c->s->hidden = shown ? c->s->hidden & ~hideable[i].bit
					     : c->s->hidden | hideable[i].bit;
			bad = 0;
		}
	}
	if (bad && !c->err[0])
		snprintf(c->err, c->len, "[%s] %s = %s is not a setting shimtop knows",
			 section, key, v);
	return 1;	/* read on: one bad line costs only itself */
}

int settings_read(struct ui_settings *s, const char *path, char *err, size_t len)
{
	struct read_ctx c = { s, err, len };
	FILE *f;
	int rc;

	err[0] = '\0';
	f = fopen(path, "r");
	if (!f)
		return 0;
	rc = ini_parse_file(f, on_entry, &c);
	fclose(f);
	if (rc > 0 && !err[0])
		snprintf(err, len, "line %d is not an INI line", rc);
	return err[0] ? -EINVAL : 0;
}

int settings_write(const struct ui_settings *s, const char *path, char *err,
		   size_t len)
{
	struct st_output out;
	FILE *f;
	int rc = st_output_make_parents(path, 0755);

	if (rc < 0) {
		snprintf(err, len, "cannot make the directory of %s: %s", path, strerror(-rc));
		return rc;
	}
	rc = st_output_replace(&out, path, 0);
	if (rc) {
		snprintf(err, len, "cannot write %s: %s", path, st_output_strerror(rc));
		return rc;
	}
	f = out.f;
	fprintf(f, "# shimtop settings, written by F2 (shimtop(1), FILES)\n"
		"[display]\ntheme = %s\ndelay = %g\nsort = %s\ninvert = %s\nheader = %s\n"
		"\n[columns]\n", s->theme, s->delay, sort_key_name(s->sort),
		s->invert ? "true" : "false", s->brief_header ? "brief" : "full");
	for (size_t i = 0; i < sizeof(hideable) / sizeof(hideable[0]); i++)
		fprintf(f, "%s = %s\n", hideable[i].name,
			s->hidden & hideable[i].bit ? "false" : "true");
	for (size_t i = 0; i < NDECLARED_TABLES; i++)
		for (size_t c = 0; c < declared_tables[i]->n; c++)
			if (table_column_hideable(declared_tables[i], c))
				fprintf(f, "%s.%s = %s\n", declared_tables[i]->name,
					declared_tables[i]->cols[c].key,
					s->table_hidden[i] >> c & 1 ? "false" : "true");
	rc = st_output_finish(&out, 0);
	if (rc) {
		snprintf(err, len, "cannot write %s: %s", path, st_output_strerror(rc));
		return rc;
	}
	return 0;
}
