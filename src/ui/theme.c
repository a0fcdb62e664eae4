/* theme.c - INI theme files (parsed by inih) and the built-in default. */
#include "ui/theme.h"
#include "util.h"

#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static const char *const element_names[TH_COUNT] = {
	"header", "value", "warning", "columns", "row", "selected",
	"module", "unknown", "key", "key_label", "search", "offcpu",
};

static const char *const colour_names[] = {
	"black", "red", "green", "yellow", "blue", "magenta", "cyan", "white",
};

static const struct { const char *name; unsigned bit; } attr_names[] = {
	{ "bold", THEME_BOLD }, { "dim", THEME_DIM },
	{ "reverse", THEME_REVERSE }, { "underline", THEME_UNDERLINE },
};

void theme_builtin(struct theme *t)
{
	static const struct theme_style def[TH_COUNT] = {
		[TH_HEADER] = { 6, -1, 0 },
		[TH_VALUE] = { -1, -1, THEME_BOLD },
		[TH_WARNING] = { 3, -1, THEME_BOLD },
		[TH_COLUMNS] = { 0, 2, 0 },
		[TH_ROW] = { -1, -1, 0 },
		[TH_SELECTED] = { 0, 6, 0 },
		[TH_MODULE] = { 4, -1, THEME_BOLD },
		[TH_UNKNOWN] = { 1, -1, 0 },
		[TH_KEY] = { -1, -1, THEME_BOLD },
		[TH_KEY_LABEL] = { 0, 6, 0 },
		[TH_SEARCH] = { 0, 3, 0 },
		[TH_OFFCPU] = { 4, -1, 0 },
	};

	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "default");
	memcpy(t->style, def, sizeof(def));
}

static int colour(const char *word, short *out)
{
	if (!strcasecmp(word, "default")) {
		*out = -1;
		return 0;
	}
	for (size_t i = 0; i < sizeof(colour_names) / sizeof(colour_names[0]); i++)
		if (!strcasecmp(word, colour_names[i])) {
			*out = (short)i;
			return 0;
		}
	return -EINVAL;
}

struct parse_ctx {
	struct theme *t;
	const char *path;
	char error[256];
	bool sections;		/* a [theme] or [colors] seen */
};

static int on_entry(void *user, const char *section, const char *key,
		    const char *value)
{
	struct parse_ctx *c = user;
	struct theme_style st = { -1, -1, 0 };
	char buf[128], *save = NULL, *w;
	int words = 0, e;

	/* Not a theme (/etc/shadow's "name:..." lines): its lines are not echoed. */
	if (!section[0]) {
		snprintf(c->error, sizeof(c->error), "%s",
			 "an entry before any [theme] or [colors] section: not a theme file");
		return 0;
	}
	if (!strcasecmp(section, "theme") || !strcasecmp(section, "colors"))
		c->sections = true;
	if (!strcasecmp(section, "theme")) {
		if (!strcasecmp(key, "name"))
			snprintf(c->t->name, sizeof(c->t->name), "%s", value);
		else if (!strcasecmp(key, "mono"))
			c->t->mono = !strcasecmp(value, "yes") || !strcmp(value, "1");
		return 1;
	}
	if (strcasecmp(section, "colors") != 0)
		return 1;	/* other sections belong to later versions */
	for (e = 0; e < TH_COUNT; e++)
		if (!strcasecmp(key, element_names[e]))
			break;
	if (e == TH_COUNT) {
		snprintf(c->error, sizeof(c->error), "unknown element '%s'", key);
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", value);
	for (w = strtok_r(buf, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save)) {
		size_t a;

		if (words == 0 && colour(w, &st.fg) == 0) {
			words++;
			continue;
		}
		if (words == 1 && colour(w, &st.bg) == 0) {
			words++;
			continue;
		}
		for (a = 0; a < sizeof(attr_names) / sizeof(attr_names[0]); a++)
			if (!strcasecmp(w, attr_names[a].name))
				break;
		if (a == sizeof(attr_names) / sizeof(attr_names[0])) {
			snprintf(c->error, sizeof(c->error),
				 "'%s' in '%s' is not a colour or attribute", w, key);
			return 0;
		}
		st.attrs |= attr_names[a].bit;
		words = 2;
	}
	c->t->style[e] = st;
	return 1;
}

int theme_read_file(struct theme *t, const char *path)
{
	struct parse_ctx c = { .t = t, .path = path };
	int rc = ini_parse(path, on_entry, &c);

	if (rc == -1) {
		st_error("cannot open theme file '%s'; see themes/ for examples", path);
		return -ENOENT;
	}
	if (rc != 0) {
		st_error("theme file '%s' line %d: %s", path, rc,
			 c.error[0] ? c.error : "not an INI line");
		return -EINVAL;
	}
	if (!c.sections) {
		st_error("theme file '%s' has no [theme] or [colors] section: not a theme file; "
			 "see themes/ for examples", path);
		return -EINVAL;
	}
	return 0;
}

/* Where a theme called `name` may live, first match wins. */
static bool find_theme(const char *name, char *path, size_t len)
{
	const char *env = getenv("SHIMTOP_THEMES");
	const char *home = getenv("HOME");

	if (env && *env) {
		snprintf(path, len, "%s/%s.theme", env, name);
		if (access(path, R_OK) == 0)
			return true;
	}
	if (home && *home) {
		snprintf(path, len, "%s/.config/shimtop/themes/%s.theme", home, name);
		if (access(path, R_OK) == 0)
			return true;
	}
	snprintf(path, len, "%s/%s.theme", SHIMTOP_THEMEDIR, name);
	return access(path, R_OK) == 0;
}

int theme_load(struct theme *t, const char *name)
{
	char path[PATH_MAX];
	const char *no_color = getenv("NO_COLOR");

	theme_builtin(t);
	if (!name)
		name = no_color && *no_color ? "mono" : "default";
	if (strchr(name, '/'))
		return theme_read_file(t, name);
	if (find_theme(name, path, sizeof(path)))
		return theme_read_file(t, path);
	if (!strcmp(name, "default"))
		return 0;	/* not installed: the built-in copy is the same */
	if (!strcmp(name, "mono")) {
		t->mono = true;
		snprintf(t->name, sizeof(t->name), "mono");
		return 0;
	}
	st_error("no theme named '%s'; put %s.theme in ~/.config/shimtop/themes "
		 "or give a file path", name, name);
	return -ENOENT;
}
