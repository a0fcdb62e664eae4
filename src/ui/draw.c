/* draw.c - wide-character text and glyphs (see draw.h). */
#include "ui/draw.h"

#include <langinfo.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

bool draw_locale_is_utf8(void)
{
	const char *cs = nl_langinfo(CODESET);

	return cs && (!strcmp(cs, "UTF-8") || !strcmp(cs, "utf8"));
}

/* The next character of s (n bytes left) and its length; '?' if bad. */
static wchar_t next_char(const char *s, size_t n, size_t *used, mbstate_t *st)
{
	wchar_t wc;
	size_t r = mbrtowc(&wc, s, n, st);

	if (r == (size_t)-1 || r == (size_t)-2 || r == 0) {
		memset(st, 0, sizeof(*st));
		*used = 1;
		return L'?';
	}
	*used = r;
	return wc;
}

int draw_text(WINDOW *w, int y, int x, int width, chtype attr, const char *s)
{
	mbstate_t st;
	size_t n = strlen(s);
	int col = 0, maxy, maxx;

	getmaxyx(w, maxy, maxx);
	if (y >= maxy || x >= maxx || width <= 0)
		return 0;
	if (width > maxx - x)
		width = maxx - x;
	memset(&st, 0, sizeof(st));
	wattrset(w, attr);
	wmove(w, y, x);
	while (n) {
		size_t used;
		wchar_t wc = next_char(s, n, &used, &st);
		int cw = wcwidth(wc);

		if (cw < 0) {
			wc = L'?';
			cw = 1;
		}
		if (col + cw > width)
			break;
		waddnwstr(w, &wc, 1);
		col += cw;
		s += used;
		n -= used;
	}
	for (int c = col; c < width; c++)
		waddch(w, ' ');
	return col;
}

const char *draw_bar(char *buf, size_t len, double frac, int width, bool utf8)
{
	/* U+2588 full block, then U+2589..U+258F: seven eighths to one. */
	static const char *const eighth[8] = {
		"", "\u258f", "\u258e", "\u258d", "\u258c", "\u258b", "\u258a", "\u2589",
	};
	size_t at = 0;
	int units, full;

	if (!(frac > 0))
		frac = 0;
	if (frac > 1)
		frac = 1;
	units = (int)(frac * width * (utf8 ? 8 : 1) + 0.5);
	full = utf8 ? units / 8 : units;
	buf[0] = '\0';
	for (int i = 0; i < full && at + 4 < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s", utf8 ? "\u2588" : "#");
	if (utf8 && units % 8 && at + 4 < len)
		at += (size_t)snprintf(buf + at, len - at, "%s", eighth[units % 8]);
	return buf;
}

const char *draw_block(int level, bool utf8)
{
	static const char *const blocks[8] = {
		"\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586", "\u2587", "\u2588",
	};
	static const char *const ascii[8] = { "_", ".", ":", "-", "=", "+", "*", "#" };

	if (level < 0)
		return " ";
	if (level > 7)
		level = 7;
	return utf8 ? blocks[level] : ascii[level];
}

const char *draw_level_glyph(double value, double top, bool utf8)
{
	return draw_block(top > 0 && value > 0 ? (int)ceil(value / top * 8) - 1 : -1, utf8);
}

const char *draw_spark(char *buf, size_t len, const double *v, int n, double top,
		       bool utf8)
{
	size_t at = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	if (top <= 0)
		for (int i = 0; i < n; i++)
			if (v[i] > top)
				top = v[i];
	for (int i = 0; i < n; i++) {
		const char *g = draw_level_glyph(v[i], top, utf8);
		size_t l = strlen(g);

		if (at + l >= len)
			break;
		memcpy(buf + at, g, l + 1);
		at += l;
	}
	return buf;
}

size_t draw_wrap(const char *text, int width, const char **next)
{
	size_t fit = 0, brk = 0;
	int cols = 0;

	/* A character a column (continuation bytes take none): help and gauge text. */
	for (size_t i = 0; text[i]; i++) {
		if (((unsigned char)text[i] & 0xc0) == 0x80)
			continue;
		if (cols == width)
			break;
		cols++;
		if (text[i] == ' ' && i && text[i - 1] != ' ')
			brk = i;	/* the end of a word, not an indent */
		fit = i + 1;
		while (((unsigned char)text[fit] & 0xc0) == 0x80)
			fit++;
	}
	if (!text[fit] || width <= 0) {
		*next = text + strlen(text);
		return strlen(text);
	}
	if (text[fit] == ' ' || !brk)
		brk = fit;	/* the line ends at a space, or a word fills it */
	*next = text + brk;
	while (**next == ' ')
		(*next)++;
	while (brk && text[brk - 1] == ' ')
		brk--;
	return brk;
}
