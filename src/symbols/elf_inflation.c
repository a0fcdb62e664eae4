/* elf_inflation.c - compressed sections measured, and passed by past their cap. */
#include "symbols/elf_inflation.h"
#include "util.h"

#include <errno.h>
#include <gelf.h>
#include <lzma.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

enum {
	REFUSED_MAX = 64,	/* past this many, the file is read from nowhere */
	XZ_MEMORY = 64 << 20,	/* xz -9's dictionary needs 65 MB */
	XZ_SECONDS = 2,
	XZ_CHUNK = 1 << 20,
};

struct refusal {
	size_t index[REFUSED_MAX];
	size_t n;
	char why[256];		/* the first one */
};

/*
 * Whether the file st names was said before: each libdwfl session (the
 * symbolizer's, the unwinder's, the table worker's) asks for a debug
 * file again.
 */
static bool said_before(const struct stat *st)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static struct {
		dev_t dev;
		ino_t ino;
	} said[64];
	static size_t n;
	bool before = false;

	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < n && !before; i++)
		before = said[i].dev == st->st_dev && said[i].ino == st->st_ino;
	if (!before && n < sizeof(said) / sizeof(said[0])) {
		said[n].dev = st->st_dev;
		said[n].ino = st->st_ino;
		n++;
	}
	pthread_mutex_unlock(&lock);
	return before;
}

uint64_t elf_inflation_cap(uint64_t packed)
{
	uint64_t cap = packed > ELF_INFLATION_MAX / ELF_INFLATION_RATIO ?
		       ELF_INFLATION_MAX : packed * ELF_INFLATION_RATIO;

	return cap < ELF_INFLATION_FLOOR ? ELF_INFLATION_FLOOR : cap;
}

static void refuse(struct refusal *r, size_t index, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void refuse(struct refusal *r, size_t index, const char *fmt, ...)
{
	va_list ap;

	if (!r->n) {
		va_start(ap, fmt);
		vsnprintf(r->why, sizeof(r->why), fmt, ap);
		va_end(ap);
	}
	if (r->n < REFUSED_MAX)
		r->index[r->n] = index;
	r->n++;
}

static void check_image(Elf *elf, struct refusal *r, bool inner);

/*
 * The xz stream of section index (p, n bytes) inflated to its cap and for
 * XZ_SECONDS at most; the ELF file it holds judged too (libdwfl reads its
 * symbol table).
 */
static void check_xz(const uint8_t *p, size_t n, size_t index, const char *name,
		     struct refusal *r)
{
	uint64_t cap = elf_inflation_cap(n), deadline = st_now_ns() + XZ_SECONDS * 1000000000ull;
	lzma_stream z = LZMA_STREAM_INIT;
	uint8_t *out = NULL;
	size_t have = 0, room = 0;
	lzma_ret rc;

	if (lzma_stream_decoder(&z, XZ_MEMORY, 0) != LZMA_OK) {
		refuse(r, index, "%s cannot be inflated (no memory)", name);
		return;
	}
	z.next_in = p;
	z.avail_in = n;
	do {
		if (have == room) {
			if (room >= cap) {
				refuse(r, index, "%s would inflate to more than %llu KB from %zu bytes",
				       name, (unsigned long long)(cap >> 10), n);
				break;
			}
			room = room + XZ_CHUNK < cap ? room + XZ_CHUNK : cap;
			out = st_xrealloc(out, room);
		}
		z.next_out = out + have;
		z.avail_out = room - have;
		rc = lzma_code(&z, LZMA_FINISH);
		have = room - z.avail_out;
		if (rc != LZMA_OK && rc != LZMA_STREAM_END) {
			/* libdwfl would give up on it too; the memory limit is ours. */
			if (rc == LZMA_MEMLIMIT_ERROR)
				refuse(r, index, "%s needs more than %d MB to inflate", name,
				       XZ_MEMORY >> 20);
			break;
		}
		if (rc == LZMA_OK && st_now_ns() > deadline) {
			refuse(r, index, "%s took more than %d s to inflate", name, XZ_SECONDS);
			break;
		}
		if (rc == LZMA_STREAM_END) {
			Elf *inner = elf_memory((char *)out, have);
			struct refusal in = { .n = 0 };

			if (inner && elf_kind(inner) == ELF_K_ELF)
				check_image(inner, &in, true);
			if (inner)
				elf_end(inner);
			if (in.n)
				refuse(r, index, "%s holds an ELF file whose %s", name, in.why);
		}
	} while (rc == LZMA_OK);
	lzma_end(&z);
	free(out);
}

/* A GNU .zdebug section's declared size: "ZLIB", then 8 bytes big-endian. */
static bool zdebug_size(const uint8_t *p, size_t n, uint64_t *size)
{
	if (n < 12 || memcmp(p, "ZLIB", 4))
		return false;
	*size = 0;
	for (int i = 4; i < 12; i++)
		*size = *size << 8 | p[i];
	return true;
}

/*
 * Each section of elf that would inflate past its cap, into r.  Headers
 * and raw bytes only: nothing here asks libelf to inflate.  In an inner
 * file (MiniDebugInfo's) no .gnu_debugdata is read: libdwfl reads none.
 */
static void check_image(Elf *elf, struct refusal *r, bool inner)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;		/* libelf will find no section by name either */
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		GElf_Chdr ch;
		Elf_Data *raw;
		const char *name;
		uint64_t size;
		size_t index = elf_ndxscn(scn);

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name)
			name = "(unnamed)";
		if (sh.sh_flags & SHF_COMPRESSED) {
			if (!gelf_getchdr(scn, &ch))
				continue;	/* libelf cannot inflate it either */
			if (ch.ch_size > elf_inflation_cap(sh.sh_size))
				refuse(r, index, "section %.40s declares %llu KB inflated from %llu bytes",
				       name, (unsigned long long)(ch.ch_size >> 10),
				       (unsigned long long)sh.sh_size);
			continue;
		}
		if (strncmp(name, ".zdebug", 7) && (inner || strcmp(name, ".gnu_debugdata")))
			continue;
		raw = elf_rawdata(scn, NULL);
		if (!raw || !raw->d_buf)
			continue;
		if (!strncmp(name, ".zdebug", 7)) {
			if (zdebug_size(raw->d_buf, raw->d_size, &size) &&
			    size > elf_inflation_cap(raw->d_size))
				refuse(r, index, "section %.40s declares %llu KB inflated from %zu bytes",
				       name, (unsigned long long)(size >> 10), raw->d_size);
		} else {
			check_xz(raw->d_buf, raw->d_size, index, "section .gnu_debugdata", r);
		}
	}
}

/* A copy of fd's file in memory, to be changed and read: its descriptor or -errno. */
static int copy_of(int fd, const struct stat *st)
{
	off_t at = 0;
	int copy;

	if ((uint64_t)st->st_size > ELF_COPY_MAX)
		return -EFBIG;
	copy = memfd_create("shimtop-elf", MFD_CLOEXEC);
	if (copy < 0)
		return -errno;
	while (at < st->st_size) {
		ssize_t n = sendfile(copy, fd, &at, (size_t)(st->st_size - at));

		if (n <= 0) {
			int err = n < 0 ? errno : EIO;	/* EIO: shrunk meanwhile */

			close(copy);
			return -err;
		}
	}
	return copy;
}

/* Each refused section of the copy nameless: sh_name 0 is "". */
static int unname(int copy, Elf *elf, const struct refusal *r)
{
	GElf_Ehdr eh;
	static const uint8_t zero[4];

	if (!gelf_getehdr(elf, &eh))
		return -EINVAL;
	for (size_t i = 0; i < r->n && i < REFUSED_MAX; i++) {
		/* sh_name is the first word of either class's header. */
		off_t at = (off_t)(eh.e_shoff + r->index[i] * eh.e_shentsize);

		if (pwrite(copy, zero, sizeof(zero), at) != (ssize_t)sizeof(zero))
			return -EIO;
	}
	return 0;
}

int elf_inflation_guard(int fd, const char *path)
{
	struct refusal r = { .n = 0 };
	struct stat st;
	bool theirs;
	int copy = -1, rc = 0;
	Elf *elf;

	if (fstat(fd, &st) < 0 || elf_version(EV_CURRENT) == EV_NONE) {
		close(fd);
		return -1;
	}
	theirs = st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH));
	if (theirs && (copy = copy_of(fd, &st)) < 0) {
		rc = copy;
		goto fail;
	}
	elf = elf_begin(copy >= 0 ? copy : fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF)
		check_image(elf, &r, false);
	if (r.n && r.n <= REFUSED_MAX && copy < 0 && (copy = copy_of(fd, &st)) < 0)
		rc = copy;
	else if (r.n > REFUSED_MAX)
		rc = -E2BIG;
	else if (r.n)
		rc = unname(copy, elf, &r);
	if (elf)
		elf_end(elf);
	if (rc)
		goto fail;
	if (r.n && !said_before(&st))
		st_warn("%s: %s, past its cap: not read (%zu section%s); its other names are",
			path, r.why, r.n, r.n == 1 ? "" : "s");
	if (copy < 0)
		return fd;
	close(fd);
	return copy;
fail:
	if (copy >= 0)
		close(copy);
	close(fd);
	if (said_before(&st))
		return -1;
	if (rc == -E2BIG)
		st_warn("%s: %s, and %zu sections more would inflate past their caps: "
			"none of its names read", path, r.why, r.n - 1);
	else
		st_warn("%s: cannot copy it to read it safely (%s): none of its names read",
			path, rc == -EFBIG ? "larger than 1 GB" : strerror(-rc));
	return -1;
}
