/*
 * test_text_safe.c - what a terminal would act on becomes '?', one for
 * each bad byte or C1 control; valid UTF-8 passes; a sequence cut between two writes
 * of the stream is kept whole.
 */
#include "check.h"
#include "text_safe.h"

#include <string.h>

static void safe_is(const char *in, const char *want)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "%s", in);
	st_text_safe(buf);
	CHECK(strcmp(buf, want) == 0);
	if (strcmp(buf, want))
		fprintf(stderr, "  got '%s', wanted '%s'\n", buf, want);
}

int main(void)
{
	char *out = NULL;
	size_t len = 0;
	FILE *m, *safe;
	char line[] = "a\033b\nc\td";

	safe_is("\033]0;PWNED\007\033[2Jhot", "?]0;PWNED??[2Jhot");
	safe_is("plain_name(int, char*)", "plain_name(int, char*)");
	safe_is("caf\303\251 \342\202\254 \360\237\230\200", "caf\303\251 \342\202\254 \360\237\230\200");
	/* C1 CSI as UTF-8 and raw, DEL, an overlong '/', a lone continuation, 0xff. */
	safe_is("a\302\233[2Jb", "a?[2Jb");
	safe_is("a\233b\177c", "a?b?c");
	safe_is("\300\257x\200y\377", "??x?y?");
	/* A sequence cut at the end of the string: no sequence. */
	safe_is("end\342\202", "end??");
	safe_is("new\nline\rtab\t", "new?line?tab?");
	/* Newlines kept when asked (a report's own lines). */
	CHECK(st_text_safe_n(line, strlen(line), true, NULL, NULL) == 7);
	CHECK(memcmp(line, "a?b\nc?d", 7) == 0);
	/* The stream: a euro sign written a byte at a time comes out whole. */
	m = open_memstream(&out, &len);
	safe = st_text_safe_stream(m);
	if (!safe) {
		CHECK(!"st_text_safe_stream");
		return check_done("test_text_safe");
	}
	setvbuf(safe, NULL, _IONBF, 0);
	fputs("x\342", safe);
	fputs("\202", safe);
	fputs("\254\033y\n", safe);
	fclose(safe);
	fclose(m);
	CHECK(len == 7 && memcmp(out, "x\342\202\254?y\n", 7) == 0);
	free(out);
	return check_done("test_text_safe");
}
