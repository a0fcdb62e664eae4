/* text_safe.c - bytes a terminal would act on, made '?'. */
#include "text_safe.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/*
 * The length of the valid, printable UTF-8 sequence at p (avail bytes), 0
 * if it is none, or -1 if it may be one cut short at the end.
 */
static int sequence(const unsigned char *p, size_t avail)
{
	unsigned c = p[0];
	int n = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 :
		(c & 0xf8) == 0xf0 ? 4 : 0;

	if (n == 1)
		return c >= 0x20 && c != 0x7f ? 1 : 0;
	if (!n)
		return 0;
	for (int i = 1; i < n; i++) {
		if ((size_t)i >= avail)
			return -1;
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	}
	/* Two bytes: U+0080 to U+009F are C1 controls, below is overlong. */
	if (n == 2 && ((c & 0x1fu) << 6 | (p[1] & 0x3fu)) < 0xa0)
		return 0;
	return n;
}

size_t st_text_safe_n(char *buf, size_t len, bool keep_newlines, char *carry, size_t *ncarry)
{
	unsigned char *b = (unsigned char *)buf;
	size_t r = 0, w = 0;

	if (ncarry)
		*ncarry = 0;
	while (r < len) {
		int n;

		/* Printable ASCII, nearly every byte of every name: in place. */
		if (b[r] >= 0x20 && b[r] < 0x7f) {
			b[w++] = b[r++];
			continue;
		}
		n = b[r] == '\n' && keep_newlines ? 1 : sequence(b + r, len - r);

		if (n < 0 && carry) {
			*ncarry = len - r;
			memcpy(carry, b + r, *ncarry);
			break;
		}
		if (n <= 0) {
			/* A C1 control is one character: one '?' for its two bytes. */
			bool c1 = b[r] == 0xc2 && r + 1 < len && b[r + 1] >= 0x80 && b[r + 1] < 0xa0;

			b[w++] = '?';
			r += c1 ? 2 : 1;
			continue;
		}
		if (w != r)
			memmove(b + w, b + r, (size_t)n);
		w += (size_t)n;
		r += (size_t)n;
	}
	return w;
}

char *st_text_safe(char *s)
{
	s[st_text_safe_n(s, strlen(s), false, NULL, NULL)] = '\0';
	return s;
}

struct safe_stream {
	FILE *out;
	char carry[4];
	size_t ncarry;
};

static ssize_t safe_write(void *cookie, const char *p, size_t n)
{
	struct safe_stream *k = cookie;
	char *buf = st_xmalloc(k->ncarry + n);
	size_t len;

	memcpy(buf, k->carry, k->ncarry);
	memcpy(buf + k->ncarry, p, n);
	len = st_text_safe_n(buf, k->ncarry + n, true, k->carry, &k->ncarry);
	len = fwrite(buf, 1, len, k->out) == len ? n : 0;
	free(buf);
	/* 0 on failure: a cookie's write must not return -1 (output_file.c). */
	return (ssize_t)len;
}

static int safe_close(void *cookie)
{
	struct safe_stream *k = cookie;
	int rc = 0;

	/* A sequence still cut short at the end is no sequence. */
	if (k->ncarry) {
		size_t len = st_text_safe_n(k->carry, k->ncarry, true, NULL, NULL);

		rc = fwrite(k->carry, 1, len, k->out) == len ? 0 : -1;
	}
	free(k);
	return rc;
}

FILE *st_text_safe_stream(FILE *out)
{
	cookie_io_functions_t io = { NULL, safe_write, NULL, safe_close };
	struct safe_stream *k = st_xcalloc(1, sizeof(*k));
	FILE *f;

	k->out = out;
	f = fopencookie(k, "w", io);

	if (!f)
		free(k);
	return f;
}
