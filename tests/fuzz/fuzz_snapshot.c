/*
 * fuzz_snapshot.c - libFuzzer: a snapshot file someone handed us (-i).
 * The container parses or is refused with a one-line reason; a symbols
 * section that parses hands over only NUL-terminated strings, as many as
 * it claims; the records section, kept compressed, reads as a stream to
 * its end or to an error, never past its raw size; a code section hands
 * over only functions of those symbols, their bytes inside it.
 */
#include "fuzz.h"
#include "ring/snapshot_file.h"
#include "session/snapshot.h"
#include "symbols/symbols.h"

#include <stdlib.h>
#include <string.h>

static void take(const char *module, const char *name, const char *raw, const char *aliases,
		 int unknown, int named_by, void *arg)
{
	size_t *n = arg;

	/* Each string is read through: a missing NUL would run off here. */
	if (!strlen(module) || !strlen(name) || strlen(raw) > 1u << 30 ||
	    (aliases && strlen(aliases) > 1u << 30) || (unknown != 0 && unknown != 1) ||
	    named_by < 0 || named_by > NAMED_BY_KERNEL)
		abort();
	(*n)++;
}

/* A function's code: its bytes are inside the section, read through. */
static void take_code(uint32_t id, uint64_t start, const uint8_t *bytes, size_t len,
		      bool truncated, void *arg)
{
	uint32_t *nsymbols = arg;
	volatile uint8_t sum = 0;

	if (id >= *nsymbols || !len || len > SYMBOL_CODE_MAX || start > UINT64_MAX - len ||
	    (truncated != 0 && truncated != 1))
		abort();
	for (size_t i = 0; i < len; i++)
		sum ^= bytes[i];
	(void)sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct snapshot_file f;
	char err[256];
	const struct snapshot_section *s;
	uint32_t nsymbols = 0;

	if (snapshot_file_parse(data, size, "records", &f, err, sizeof(err)) < 0) {
		if (!err[0] || strchr(err, '\n'))
			abort();
		return 0;
	}
	s = snapshot_file_section(&f, "symbols");
	if (s) {
		size_t n = 0;
		uint32_t claimed = 0;

		if (snapshot_parse_symbols(s->data, s->size, take, &n, err, sizeof(err)) == 0) {
			memcpy(&claimed, s->data, sizeof(claimed));
			if (n != claimed)
				abort();
			nsymbols = claimed;
		}
	}
	/* The code section, checked against the symbols there are (none: every id refused). */
	s = snapshot_file_section(&f, "code");
	if (s && snapshot_parse_code(s->data, s->size, nsymbols, take_code, &nsymbols, err,
				     sizeof(err)) < 0 && (!err[0] || strchr(err, '\n')))
		abort();
	s = snapshot_file_section(&f, "records");
	if (s && s->raw) {
		FILE *in = snapshot_section_open(s);
		char buf[4096];
		uint64_t got = 0;
		size_t n;

		while (in && (n = fread(buf, 1, sizeof(buf), in)) > 0)
			got += n;
		if (in && ((!ferror(in) && got != s->raw) || got > s->raw))
			abort();
		if (in)
			fclose(in);
	}
	snapshot_file_free(&f);
	return 0;
}
