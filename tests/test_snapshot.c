/*
 * test_snapshot.c - the snapshot container and its symbols section:
 * sections written and read back alike; every damage a file can carry
 * (empty, foreign, truncated anywhere, a newer version, unknown flags, a
 * duplicate or nameless section, bytes after the end, a zstd frame that
 * lies about its size) refused with its own one-line reason; a section
 * streamed (its size undeclared in its frame) read back, and refused in
 * a version 1 file; the symbols section's lengths, flags and NULs checked.
 */
#include "check.h"
#include "ring/snapshot_file.h"
#include "session/snapshot.h"
#include "symbols/symbols.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

static char dir[] = "/tmp/test_snapshot.XXXXXX";

/* A snapshot of two sections, written and read back whole. */
static uint8_t *sample_file(size_t *len)
{
	static char big[100000];
	struct snapshot_section sec[2];
	char path[256];
	uint64_t bytes;
	uint8_t *buf;

	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (char)('a' + i % 7);
	memset(sec, 0, sizeof(sec));
	snprintf(sec[0].name, sizeof(sec[0].name), "label");
	sec[0].data = (uint8_t *)"taken now";
	sec[0].size = 9;
	snprintf(sec[1].name, sizeof(sec[1].name), "future-part");
	sec[1].data = (uint8_t *)big;
	sec[1].size = sizeof(big);
	snprintf(path, sizeof(path), "%s/a.snap", dir);
	CHECK(snapshot_file_write(path, sec, 2, &bytes) == 0);
	buf = (uint8_t *)st_read_file(path, len);
	CHECK(buf && *len == bytes);
	/* Compressed: 100,000 repetitive bytes take far less. */
	CHECK(bytes < 2000);
	return buf;
}

static void round_trip(const uint8_t *buf, size_t len)
{
	struct snapshot_file f;
	const struct snapshot_section *s;
	char err[256];

	CHECK(snapshot_file_parse(buf, len, NULL, &f, err, sizeof(err)) == 0);
	CHECK(f.nsections == 2 && f.version == SNAPSHOT_VERSION);
	s = snapshot_file_section(&f, "label");
	CHECK(s && s->size == 9 && !memcmp(s->data, "taken now", 9));
	s = snapshot_file_section(&f, "future-part");
	CHECK(s && s->size == 100000 && s->data[99999] == 'a' + 99999 % 7);
	CHECK(!snapshot_file_section(&f, "records"));
	snapshot_file_free(&f);
}

/* buf (len bytes) refused, the reason containing want. */
static void refused(const uint8_t *buf, size_t len, const char *want)
{
	struct snapshot_file f;
	char err[256] = "";
	int rc = snapshot_file_parse(buf, len, NULL, &f, err, sizeof(err));

	CHECK(rc == -EINVAL);
	CHECK(strstr(err, want) != NULL);
	CHECK(!strchr(err, '\n'));
	if (!strstr(err, want))
		fprintf(stderr, "wanted '%s', got '%s'\n", want, err);
}

/*
 * The end check made to agree again after a change, so that what lies
 * behind it (each section's own checks) is what a damage meets.
 */
static void reseal(uint8_t *b, size_t len)
{
	uint32_t crc = (uint32_t)crc32(0, b, (uInt)(len - 16));

	memcpy(b + len - 8, &crc, 4);
}

/* Every bit of the file flipped, one at a time: always refused. */
static void every_flip(const uint8_t *good, size_t len)
{
	uint8_t *b = st_xmalloc(len);
	struct snapshot_file f;
	char err[256];
	size_t accepted = 0;

	for (size_t i = 0; i < len * 8; i++) {
		memcpy(b, good, len);
		b[i / 8] ^= (uint8_t)(1u << (i % 8));
		if (snapshot_file_parse(b, len, NULL, &f, err, sizeof(err)) == 0) {
			accepted++;
			snapshot_file_free(&f);
		}
	}
	CHECK(accepted == 0);
	free(b);
}

static void damaged(const uint8_t *good, size_t len)
{
	uint8_t *b = st_xmalloc(len + 16);
	char want[96];
	uint32_t v;

	refused(good, 0, "empty");
	refused((const uint8_t *)"PK\3\4 not ours at all", 21, "not a shimtop snapshot");
	refused(good, 12, "truncated inside its header");
	/* Cut anywhere inside a section: truncated, never read past the end. */
	for (size_t cut = 16; cut < len; cut += 7)
		refused(good, cut, "trunc");
	/* A byte changed or the end marker lost: corrupt, truncated. */
	memcpy(b, good, len);
	b[len / 2] ^= 0x10;
	refused(b, len, "corrupt: its checksum disagrees");
	memcpy(b, good, len);
	b[len - 16] = 'X';
	refused(b, len, "truncated: it ends without its end marker");
	memcpy(b, good, len);
	v = SNAPSHOT_VERSION + 1;
	memcpy(b + 8, &v, 4);
	snprintf(want, sizeof(want), "snapshot version %u is newer than this shimtop reads (%u)",
		 SNAPSHOT_VERSION + 1, SNAPSHOT_VERSION);
	refused(b, len, want);
	v = 0;
	memcpy(b + 8, &v, 4);
	refused(b, len, "version 0");
	memcpy(b, good, len);
	v = 1000;
	memcpy(b + 12, &v, 4);
	reseal(b, len);
	refused(b, len, "1000 sections");
	/* The first section's flags, name, and the second's name made the first's. */
	memcpy(b, good, len);
	b[16 + 16] = 0x6;
	reseal(b, len);
	refused(b, len, "unknown flags");
	memcpy(b, good, len);
	b[16] = '\0';
	reseal(b, len);
	refused(b, len, "no valid name");
	memcpy(b, good, len);
	b[16 + 3] = '\t';
	reseal(b, len);
	refused(b, len, "no valid name");
	/* Bytes between the last section and the end marker. */
	memcpy(b, good, len - 16);
	memset(b + len - 16, 0, 16);
	memcpy(b + len, good + len - 16, 16);
	reseal(b, len + 16);
	refused(b, len + 16, "16 bytes follow its last section");
	/* A lie about the raw size: zstd's frame says otherwise. */
	memcpy(b, good, len);
	b[16 + 32] ^= 1;
	reseal(b, len);
	refused(b, len, "does not decompress");
	/* A raw size beyond what shimtop reads. */
	memcpy(b, good, len);
	b[16 + 32 + 5] = 0x40;
	reseal(b, len);
	refused(b, len, "more than shimtop reads");
	/* Compressed bytes damaged. */
	memcpy(b, good, len);
	b[16 + 40 + 6] ^= 0xff;
	reseal(b, len);
	refused(b, len, "section 'label'");
	free(b);
}

static void duplicate(void)
{
	struct snapshot_section sec[2];
	char path[256];
	uint64_t bytes;
	size_t len;
	uint8_t *buf;

	memset(sec, 0, sizeof(sec));
	for (int i = 0; i < 2; i++) {
		snprintf(sec[i].name, sizeof(sec[i].name), "meta");
		sec[i].data = (uint8_t *)"{}";
		sec[i].size = 2;
	}
	snprintf(path, sizeof(path), "%s/dup.snap", dir);
	CHECK(snapshot_file_write(path, sec, 2, &bytes) == 0);
	buf = (uint8_t *)st_read_file(path, &len);
	refused(buf, len, "section 'meta' appears twice");
	free(buf);
	/* A section no reader would take is not written (its bytes are never read). */
	sec[0].size = SNAPSHOT_SECTION_MAX + 1;
	snprintf(path, sizeof(path), "%s/big.snap", dir);
	CHECK(snapshot_file_write(path, sec, 1, &bytes) == -EFBIG);
	CHECK(access(path, F_OK) != 0);
	sec[0].size = 2;
	/* A directory that does not exist: an error, and no file anywhere. */
	snprintf(path, sizeof(path), "%s/none/x.snap", dir);
	CHECK(snapshot_file_write(path, sec, 1, &bytes) == -ENOENT);
}

/* A section compressed as written: read back alike, beside an ordinary one. */
/* The kept section's stream read to its end: its bytes, and whether it failed. */
static uint64_t read_kept(const uint8_t *buf, size_t len, int *failed)
{
	struct snapshot_file f;
	char err[256], line[32], got[32];
	uint64_t n = 0;
	FILE *in;

	*failed = -1;
	if (snapshot_file_parse(buf, len, "records", &f, err, sizeof(err)) < 0)
		return 0;
	in = snapshot_section_open(snapshot_file_section(&f, "records"));
	CHECK(in != NULL);
	for (int i = 0; in && fgets(got, sizeof(got), in); i++) {
		snprintf(line, sizeof(line), "record %d\n", i % 1000);
		if (strcmp(got, line))
			break;
		n += strlen(got);
	}
	*failed = in ? ferror(in) != 0 : -1;
	if (*failed)
		CHECK(errno == EBADMSG);
	if (in)
		fclose(in);
	snapshot_file_free(&f);
	return n;
}

/*
 * Kept compressed (-i's records), the section reads as a stream: all of
 * it; a damaged frame, or one short of or past its raw size, fails the
 * read where it shows, after the bytes before it.
 */
static void kept_stream(const uint8_t *good, size_t len, uint64_t raw)
{
	uint8_t *buf = st_xmalloc(len);
	uint64_t more = raw + 1, less = raw - 1;
	int failed;

	memcpy(buf, good, len);
	CHECK(read_kept(buf, len, &failed) == raw && failed == 0);
	/* The section's data: after the file's 16 bytes and its 40, before the end check. */
	buf[56 + (len - 16 - 56) / 2] ^= 0x55;
	reseal(buf, len);
	CHECK(read_kept(buf, len, &failed) < raw && failed == 1);
	memcpy(buf, good, len);
	memcpy(buf + 48, &more, 8);
	reseal(buf, len);
	CHECK(read_kept(buf, len, &failed) == raw && failed == 1);
	memcpy(buf + 48, &less, 8);
	reseal(buf, len);
	CHECK(read_kept(buf, len, &failed) < raw && failed == 1);
	free(buf);
}

static void streamed(void)
{
	struct snapshot_stream *z = snapshot_stream_new();
	FILE *f = snapshot_stream_file(z);
	struct snapshot_section sec[2];
	struct snapshot_file back;
	char path[256], err[256];
	uint64_t bytes;
	size_t len;
	uint8_t *buf;
	uint32_t one = 1;
	int ok = 1;

	CHECK(f != NULL);
	for (int i = 0; f && i < 200000; i++)
		fprintf(f, "record %d\n", i % 1000);
	if (f)
		fclose(f);
	memset(sec, 0, sizeof(sec));
	CHECK(snapshot_stream_section(z, "records", &sec[0]) == 0);
	CHECK(sec[0].raw > 2000000 && sec[0].size < sec[0].raw / 20);
	snprintf(sec[1].name, sizeof(sec[1].name), "label");
	sec[1].data = (uint8_t *)"now";
	sec[1].size = 3;
	snprintf(path, sizeof(path), "%s/streamed.snap", dir);
	CHECK(snapshot_file_write(path, sec, 2, &bytes) == 0);
	buf = (uint8_t *)st_read_file(path, &len);
	CHECK(buf && snapshot_file_parse(buf, len, NULL, &back, err, sizeof(err)) == 0);
	if (buf && back.nsections == 2) {
		const struct snapshot_section *r = snapshot_file_section(&back, "records");
		char line[32];

		CHECK(r && r->size == sec[0].raw);
		for (int i = 0, at = 0; r && i < 200000 && ok; i++) {
			int n = snprintf(line, sizeof(line), "record %d\n", i % 1000);

			ok = !memcmp(r->data + at, line, (size_t)n);
			at += n;
		}
		CHECK(ok);
		snapshot_file_free(&back);
	}
	if (buf) {
		kept_stream(buf, len, sec[0].raw);
		/* A version 1 reader's file must declare every frame's size. */
		memcpy(buf + 8, &one, 4);
		reseal(buf, len);
		refused(buf, len, "section 'records' does not decompress to its");
		CHECK(snapshot_file_parse(buf, len, "records", &back, err, sizeof(err)) == -EINVAL);
	}
	free(buf);
	free(sec[0].data);
}

struct names {
	char got[256];
	int n;
};

static void collect(const char *module, const char *name, const char *raw,
		    const char *aliases, int unknown, int named_by, void *arg)
{
	struct names *w = arg;

	snprintf(w->got + strlen(w->got), sizeof(w->got) - strlen(w->got), "%s|%s|%s|%s|%d|%s;",
		 module, name, raw, aliases ? aliases : "-", unknown,
		 st_named_by_word((enum st_named_by)named_by));
	w->n++;
}

static size_t symbol(uint8_t *p, int unknown, int has_aliases, const char *m,
		     const char *n, const char *r, const char *a)
{
	uint32_t lens[4] = { (uint32_t)strlen(m), (uint32_t)strlen(n), (uint32_t)strlen(r),
			     (uint32_t)strlen(a) };
	size_t at = 20;

	p[0] = (uint8_t)unknown;
	p[1] = (uint8_t)has_aliases;
	p[2] = (uint8_t)(unknown ? NAMED_BY_NONE : NAMED_BY_DEBUGINFOD);
	p[3] = 0;
	memcpy(p + 4, lens, sizeof(lens));
	memcpy(p + at, m, lens[0]);
	at += lens[0];
	memcpy(p + at, n, lens[1]);
	at += lens[1];
	memcpy(p + at, r, lens[2]);
	at += lens[2];
	memcpy(p + at, a, lens[3]);
	return at + lens[3];
}

static void symbols(void)
{
	uint8_t buf[512];
	uint32_t two = 2;
	size_t len = 4;
	struct names w;
	char err[256];

	memcpy(buf, &two, 4);
	len += symbol(buf + len, 0, 1, "libc.so.6", "malloc", "", "__libc_malloc");
	len += symbol(buf + len, 1, 0, "[anon]", "[unknown]", "", "");
	memset(&w, 0, sizeof(w));
	CHECK(snapshot_parse_symbols(buf, len, collect, &w, err, sizeof(err)) == 0);
	CHECK(w.n == 2);
	CHECK(!strcmp(w.got, "libc.so.6|malloc|malloc|__libc_malloc|0|debuginfod;"
		      "[anon]|[unknown]|[unknown]|-|1|-;"));
	/* Every cut is refused, never read past. */
	for (size_t cut = 0; cut < len; cut++)
		CHECK(snapshot_parse_symbols(buf, cut, collect, &w, err, sizeof(err)) == -EINVAL);
	/* More symbols claimed than bytes could hold. */
	two = 1000;
	memcpy(buf, &two, 4);
	CHECK(snapshot_parse_symbols(buf, len, collect, &w, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "claims 1000 symbols") != NULL);
	two = 2;
	memcpy(buf, &two, 4);
	/* Bad flags, a NUL inside a name, an empty module, bytes after the last. */
	buf[4] = 2;
	CHECK(snapshot_parse_symbols(buf, len, collect, &w, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "bad flags") != NULL);
	buf[4] = 0;
	buf[4 + 2] = NAMED_BY_KERNEL + 1;	/* no such source */
	CHECK(snapshot_parse_symbols(buf, len, collect, &w, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "bad flags") != NULL);
	buf[4 + 2] = NAMED_BY_DEBUGINFOD;
	buf[4 + 20 + 3] = '\0';
	CHECK(snapshot_parse_symbols(buf, len, collect, &w, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "NUL") != NULL);
	buf[4 + 20 + 3] = 'c';
	CHECK(snapshot_parse_symbols(buf, len + 3, collect, &w, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "3 bytes follow") != NULL);
	len = 4;
	two = 1;
	memcpy(buf, &two, 4);
	len += symbol(buf + len, 0, 0, "", "x", "", "");
	CHECK(snapshot_parse_symbols(buf, len, collect, &w, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "no module") != NULL);
}

static void one_count(uint8_t *buf)
{
	uint32_t one = 1;

	memcpy(buf, &one, 4);
}

/* The code parser's findings, as text: "id@start+len(t);" for each. */
static void collect_code(uint32_t id, uint64_t start, const uint8_t *bytes, size_t len,
			 bool truncated, void *arg)
{
	struct names *w = arg;
	size_t at = strlen(w->got);

	snprintf(w->got + at, sizeof(w->got) - at, "%u@%#llx+%zu%s:%02x;", id,
		 (unsigned long long)start, len, truncated ? "t" : "", bytes[len - 1]);
	w->n++;
}

/* One function's code in the section's layout: 20 bytes of head, then its bytes. */
static size_t code_entry(uint8_t *p, uint32_t id, uint32_t len, uint64_t start, uint8_t flag)
{
	memcpy(p, &id, 4);
	memcpy(p + 4, &len, 4);
	memcpy(p + 8, &start, 8);
	p[16] = flag;
	p[17] = p[18] = p[19] = 0;
	for (uint32_t i = 0; i < len; i++)
		p[20 + i] = (uint8_t)(0x90 + i);
	return 20 + len;
}

/*
 * The code section (version 4): two functions' code handed over whole;
 * every cut refused; a count past the bytes, a symbol past the symbols,
 * bad flags, a zero or overlong length, an address that wraps, and bytes
 * after the last are each refused with what is wrong.
 */
static void code(void)
{
	uint8_t buf[256];
	uint32_t two = 2, big;
	size_t len = 4;
	struct names w;
	char err[256];

	memcpy(buf, &two, 4);
	len += code_entry(buf + len, 0, 3, 0x1fc0, 0);
	len += code_entry(buf + len, 5, 2, 0x400000, 1);
	memset(&w, 0, sizeof(w));
	CHECK(snapshot_parse_code(buf, len, 6, collect_code, &w, err, sizeof(err)) == 0);
	CHECK(w.n == 2 && !strcmp(w.got, "0@0x1fc0+3:92;5@0x400000+2t:91;"));
	for (size_t cut = 0; cut < len; cut++)
		CHECK(snapshot_parse_code(buf, cut, 6, collect_code, &w, err, sizeof(err)) ==
		      -EINVAL);
	CHECK(snapshot_parse_code(buf, len, 5, collect_code, &w, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "symbol 5, past the 5 symbols") != NULL);
	big = 1000;
	memcpy(buf, &big, 4);
	CHECK(snapshot_parse_code(buf, len, 6, collect_code, &w, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "claims 1000 functions") != NULL);
	memcpy(buf, &two, 4);
	buf[4 + 16] = 2;
	CHECK(snapshot_parse_code(buf, len, 6, collect_code, &w, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "bad flags") != NULL);
	buf[4 + 16] = 0;
	CHECK(snapshot_parse_code(buf, len + 2, 6, collect_code, &w, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "2 bytes follow") != NULL);
	len = 4 + code_entry(buf + 4, 0, 0, 0x10, 0);
	one_count(buf);
	CHECK(snapshot_parse_code(buf, len, 6, collect_code, &w, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "bad length (0)") != NULL);
	big = SYMBOL_CODE_MAX + 1;
	memcpy(buf + 8, &big, 4);
	CHECK(snapshot_parse_code(buf, len, 6, collect_code, &w, err, sizeof(err)) == -EINVAL);
	len = 4 + code_entry(buf + 4, 0, 4, UINT64_MAX - 2, 0);
	one_count(buf);
	CHECK(snapshot_parse_code(buf, len, 6, collect_code, &w, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "bad length (4)") != NULL);
}

int main(void)
{
	size_t len = 0;
	uint8_t *good;

	if (!mkdtemp(dir))
		return 99;
	good = sample_file(&len);
	if (good) {
		round_trip(good, len);
		damaged(good, len);
		every_flip(good, len);
		free(good);
	}
	duplicate();
	streamed();
	symbols();
	code();
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", dir);
	}
	return check_done("test_snapshot");
}
