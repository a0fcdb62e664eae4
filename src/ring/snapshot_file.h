/*
 * snapshot_file.h - the snapshot container: named sections, each
 * compressed with zstd, behind a magic and a version.
 *
 *   "SHIMSNAP"  u32 version (3)  u32 sections
 *   per section: char name[16] (NUL-padded)  u32 flags (1: zstd)
 *                u32 reserved (0)  u64 stored bytes  u64 raw bytes
 *                then the stored bytes: with flag 1, one zstd frame that
 *                decompresses to exactly the raw bytes (version 1: its
 *                header declares them; from 2 it may not, when written
 *                as a stream)
 *   from version 3: "SHIMEND\0"  u32 CRC-32 (zlib's) of every byte before
 *                it  u32 0: a corrupt or truncated file is always refused
 *
 * All numbers little-endian (x86-64's own).  A reader skips sections it
 * does not know, so newer writers add sections without breaking older
 * readers; a new version number is for changes old readers must refuse.
 * What the sections hold is snapshot.h's business, not this file's.
 */
#ifndef SHIMTOP_SNAPSHOT_FILE_H
#define SHIMTOP_SNAPSHOT_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SNAPSHOT_MAGIC		"SHIMSNAP"
/*
 * 2: a zstd frame may leave its size undeclared (a streamed section); 3: the end check;
 * 4: stand-ins a symbol's code bound apart, samples at their offsets (symbols.h)
 */
#define SNAPSHOT_VERSION	4u
#define SNAPSHOT_NAME_LEN	16u
#define SNAPSHOT_MAX_SECTIONS	64u
#define SNAPSHOT_SECTION_MAX	(1ull << 30)	/* raw bytes of one section, at most */

struct snapshot_section {
	char name[SNAPSHOT_NAME_LEN];
	uint8_t *data;
	size_t size;
	uint64_t raw;		/* 0, or data is a zstd frame of raw bytes (still compressed) */
};

struct snapshot_file {
	struct snapshot_section sections[SNAPSHOT_MAX_SECTIONS];
	size_t nsections;
	uint32_t version;
};

/* Whether the bytes start as a snapshot does (at least 8 of them). */
bool snapshot_file_magic(const void *bytes, size_t len);

/*
 * Checks and decompresses a whole snapshot held in buf, except the
 * section called `kept` (NULL: none), which stays compressed (raw set)
 * to be read as a stream (snapshot_section_open): the history's records
 * are read once, never held whole.  Returns 0, or -EINVAL with what is
 * wrong in err (one line, no file name).
 */
int snapshot_file_parse(const uint8_t *buf, size_t len, const char *kept,
			struct snapshot_file *out, char *err, size_t errlen);

/* Reads path and parses it; 0, or -errno after a one-line error naming the file. */
int snapshot_file_read(const char *path, const char *kept, struct snapshot_file *out);

/*
 * A section's raw bytes as a stream, decompressed as they are read; s's
 * data must outlive it.  A frame that is corrupt (its checksum, when it
 * has one) or gives other than its raw bytes fails the read (ferror, errno
 * EBADMSG) where that shows.  NULL if out of memory.
 */
FILE *snapshot_section_open(const struct snapshot_section *s);

/* The section called name, or NULL. */
const struct snapshot_section *snapshot_file_section(const struct snapshot_file *f,
						     const char *name);

void snapshot_file_free(struct snapshot_file *f);

/*
 * Writes n sections, each compressed, to path through a temporary file
 * in its directory and a rename: a failure leaves no part of a file.
 * Returns 0 and the file's size in *bytes, or -errno (nothing printed);
 * -EFBIG for a section larger than SNAPSHOT_SECTION_MAX, which readers
 * refuse.
 */
int snapshot_file_write(const char *path, const struct snapshot_section *sections,
			size_t n, uint64_t *bytes);

/*
 * A section compressed as it is written, for one too large to hold raw
 * (the history's records): write to snapshot_stream_file's stream and
 * fclose it, then snapshot_stream_section hands the zstd frame over as a
 * section (raw set; free its data) and frees the stream.  0, -EFBIG past
 * SNAPSHOT_SECTION_MAX raw bytes, or -ENOMEM / -EIO.
 */
struct snapshot_stream;
struct snapshot_stream *snapshot_stream_new(void);
FILE *snapshot_stream_file(struct snapshot_stream *s);
int snapshot_stream_section(struct snapshot_stream *s, const char *name,
			    struct snapshot_section *out);

#endif
