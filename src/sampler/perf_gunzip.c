/* perf_gunzip.c - a gzip'd perf.data inflated into an unnamed temporary file. */
#include "sampler/perf_gunzip.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

bool perf_gzipped(const unsigned char *first, size_t len)
{
	return len >= 2 && first[0] == 0x1f && first[1] == 0x8b;
}

/* A file without a name, in $TMPDIR or /tmp: nobody can open or replace it. */
static int temp_file(void)
{
	const char *dir = getenv("TMPDIR");
	int fd = dir && dir[0] ? open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600) : -1;

	return fd >= 0 ? fd : open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
}

static int write_all(int fd, const unsigned char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Inflates f into fd: 0, with damage (size 128) saying how the stream
 * broke partway, or ""; <0 said.
 */
static int inflate_into(FILE *f, const char *name, int fd, char *damage,
			uint64_t *at, uint64_t *made)
{
	static unsigned char in[1 << 16], out[1 << 16];
	uint64_t taken = 0;
	z_stream z;
	int rc = Z_OK, err = 0;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
		st_error("perf.data '%s': zlib cannot start (out of memory?)", name);
		return -ENOMEM;
	}
	for (;;) {
		size_t got;

		if (!z.avail_in) {
			size_t n = fread(in, 1, sizeof(in), f);

			if (!n) {
				snprintf(damage, 128, "%s", ferror(f) ? "cannot be read"
					 : rc != Z_STREAM_END ? "is cut short" : "");
				break;
			}
			taken += n;
			z.next_in = in;
			z.avail_in = (uInt)n;
		}
		/* Another member (gzip -c a b): it goes on where the last ended. */
		if (rc == Z_STREAM_END && inflateReset(&z) != Z_OK)
			break;
		z.next_out = out;
		z.avail_out = sizeof(out);
		rc = inflate(&z, Z_NO_FLUSH);
		got = sizeof(out) - z.avail_out;
		if (got && (err = write_all(fd, out, got)) < 0) {
			st_error("perf.data '%s' is gzip'd, and the temporary file that holds it "
				 "inflated cannot be written (%s): gunzip it where there is room, "
				 "and read that", name, strerror(-err));
			break;
		}
		*made += got;
		if (*made > (uint64_t)GUNZIP_RATIO * taken + (1u << 20)) {
			st_error("perf.data '%s' inflates past %u times its size (a compression "
				 "bomb?): if it is a real recording, gunzip it and read that",
				 name, GUNZIP_RATIO);
			err = -EFBIG;
			break;
		}
		if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
			snprintf(damage, 128, "is damaged (zlib: %s)", z.msg ? z.msg : zError(rc));
			break;
		}
	}
	*at = taken - z.avail_in;
	inflateEnd(&z);
	return err;
}

FILE *perf_gunzip(FILE *f, const char *name, char *why, size_t room)
{
	char damage[128] = "";
	uint64_t at = 0, made = 0;
	int fd = temp_file();
	FILE *t;

	if (fd < 0) {
		st_error("perf.data '%s' is gzip'd, and no temporary file can hold it inflated "
			 "(%s in $TMPDIR and /tmp): gunzip it, and read that", name, strerror(errno));
		fclose(f);
		return NULL;
	}
	if (fseeko(f, 0, SEEK_SET) != 0 || inflate_into(f, name, fd, damage, &at, &made) < 0) {
		fclose(f);
		close(fd);
		return NULL;
	}
	fclose(f);
	if (damage[0] && !made) {
		st_error("perf.data '%s' is gzip'd, and its gzip data %s at byte %llu before "
			 "anything: gzip -t says more", name, damage, (unsigned long long)at);
		close(fd);
		return NULL;
	}
	why[0] = '\0';
	if (damage[0]) {
		st_warn("perf.data '%s': its gzip data %s at byte %llu; what the %llu bytes "
			"before held is read", name, damage, (unsigned long long)at,
			(unsigned long long)made);
		snprintf(why, room, "perf.data '%s': its gzip data %s at byte %llu: what came "
			 "before is shown", name, damage, (unsigned long long)at);
	}
	t = fdopen(fd, "rb");
	if (!t || fseeko(t, 0, SEEK_SET) != 0) {
		st_error("perf.data '%s': its inflated copy cannot be read: %s", name,
			 strerror(errno));
		if (t)
			fclose(t);
		else
			close(fd);
		return NULL;
	}
	return t;
}
