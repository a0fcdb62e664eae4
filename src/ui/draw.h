/*
 * draw.h - text into curses windows: UTF-8 in, wide characters out
 * (wcwidth decides how many columns each takes), and the glyphs views
 * draw with, falling back to ASCII when the locale is not UTF-8.
 */
#ifndef SHIMTOP_DRAW_H
#define SHIMTOP_DRAW_H

#include <curses.h>
#include <stdbool.h>
#include <stddef.h>

/* Whether the terminal's locale is UTF-8 (after setlocale). */
bool draw_locale_is_utf8(void);

/*
 * Puts at most `width` columns of the UTF-8 string s at (y, x) of w,
 * padding with spaces.  Bytes that are not printable characters show
 * as '?'.  Returns the columns written before padding.
 */
int draw_text(WINDOW *w, int y, int x, int width, chtype attr, const char *s);

/*
 * A bar `width` columns wide, filled to frac (0..1): eighth-block glyphs
 * in UTF-8, '#' otherwise.  Returns buf.
 */
const char *draw_bar(char *buf, size_t len, double frac, int width, bool utf8);

/*
 * A column `level` + 1 eighths high (0..7; below 0 a space): lower
 * eighth blocks in UTF-8, `_.:-=+*#` otherwise.
 */
const char *draw_block(int level, bool utf8);

/*
 * The glyph of a column value/top high: one to eight eighths of a block
 * in UTF-8, `_.:-=+*#` otherwise; a space for 0 or less.
 */
const char *draw_level_glyph(double value, double top, bool utf8);

/*
 * n values as a row of such glyphs (a sparkline) into buf, top their full
 * height (0: the largest of them).  Returns buf.
 */
const char *draw_spark(char *buf, size_t len, const double *v, int n, double top,
		       bool utf8);

/*
 * Where to break UTF-8 text to fit `width` columns: the bytes of its
 * first line (broken after a space, or inside a word wider than the
 * line); *next is where the next line starts (the spaces skipped), at the
 * terminating NUL when none follows.
 */
size_t draw_wrap(const char *text, int width, const char **next);

#endif
