/*
 * fuzz_text_safe.c - libFuzzer: any bytes a target names things with.
 * What st_text_safe_n keeps holds no control byte (but newlines when
 * asked), no C1 control and no invalid UTF-8, is never longer, and the
 * stream gives the same bytes however the input is cut into writes.
 */
#include "fuzz.h"
#include "text_safe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_safe(const unsigned char *b, size_t n, int newlines)
{
	for (size_t i = 0; i < n;) {
		unsigned c = b[i];
		size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : 4;

		if ((c < 0x20 && !(newlines && c == '\n')) || c == 0x7f || (c >= 0x80 && c < 0xc2) ||
		    c > 0xf7 || i + len > n)
			abort();
		for (size_t k = 1; k < len; k++)
			if ((b[i + k] & 0xc0) != 0x80)
				abort();
		if (len == 2 && c == 0xc2 && b[i + 1] < 0xa0)
			abort();
		i += len;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *a = malloc(size + 1), *whole = NULL, *streamed = NULL;
	size_t n, wlen = 0, slen = 0;
	FILE *m, *safe;

	memcpy(a, data, size);
	n = st_text_safe_n(a, size, false, NULL, NULL);
	if (n > size)
		abort();
	check_safe((unsigned char *)a, n, 0);
	/* Whole, then in pieces of 1 to 7 bytes: the same output. */
	m = open_memstream(&whole, &wlen);
	safe = st_text_safe_stream(m);
	fwrite(data, 1, size, safe);
	fclose(safe);
	fclose(m);
	check_safe((unsigned char *)whole, wlen, 1);
	m = open_memstream(&streamed, &slen);
	safe = st_text_safe_stream(m);
	setvbuf(safe, NULL, _IONBF, 0);
	for (size_t at = 0, step = 1; at < size; at += step, step = step % 7 + 1)
		fwrite(data + at, 1, at + step > size ? size - at : step, safe);
	fclose(safe);
	fclose(m);
	if (slen != wlen || memcmp(whole, streamed, wlen))
		abort();
	free(a);
	free(whole);
	free(streamed);
	return 0;
}
