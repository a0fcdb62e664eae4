/*
 * test_kernel_cache.c - the kernel's functions saved once a boot: a copy
 * reads back as the table it was made from, less code made at run time;
 * which answers of a copy are unsure; and the copy is never read from,
 * nor written through, anything but a plain file of ours in a directory
 * only we may write (a planted link, a shared directory, another user's
 * file).  Last, the real /proc/kallsyms, where its addresses show.
 */
#include "check.h"
#include "symbols/symbols_internal.h"
#include "util.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

static const char kallsyms_text[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 t core_one\n"
	"ffffffff81000200 D some_data\n"
	"ffffffff81000300 T core_two\n"
	"ffffffff81000400 T _etext\n"
	"ffffffffc0000000 t mod_a_first\t[mod_a]\n"
	"ffffffffc0000100 t mod_a_last\t[mod_a]\n"
	"ffffffffc0100000 t bpf_prog_123_f\t[bpf]\n"
	"ffffffffc0200000 t ftrace_trampoline\t[__builtin__ftrace]\n"
	"ffffffffc0300000 t mod_b_only\t[mod_b]\n";

#define MAGIC_FOR_TEST	"shimtop kallsyms "

static char dir[64];

static void parse(struct range_table *t, const char *text)
{
	size_t len = strlen(text);
	char *copy = mmap(NULL, len + 1, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	memset(t, 0, sizeof(*t));
	memcpy(copy, text, len + 1);
	kernel_symbols_parse(t, copy, len);
	t->text = copy;
	t->text_size = len + 1;
}

static const char *name_at(const struct range_table *t, uint64_t addr)
{
	const struct range_entry *e = range_table_find(t, addr);

	return e ? e->name : "";
}

static char *path_of(const char *name)
{
	static char p[160];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return p;
}

static void write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	CHECK(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	if (fd >= 0)
		close(fd);
	chmod(path, mode);
}

/* Parsed: text functions only; the copy drops code made at run time. */
static void check_round_trip(void)
{
	struct range_table t, c;
	struct stat st;

	parse(&t, kallsyms_text);
	CHECK_EQ_U64(t.n, 9);		/* some_data is not a function */
	CHECK(!strcmp(name_at(&t, 0xffffffff81000250), "core_one"));
	CHECK(!strcmp(name_at(&t, 0xffffffffc0100010), "bpf_prog_123_f"));
	CHECK_EQ_U64(t.static_end, 0xffffffff81000400);
	kernel_cache_write("k1", &t);
	CHECK(stat(path_of("kallsyms-k1"), &st) == 0 && (st.st_mode & 0777) == 0600);
	memset(&c, 0, sizeof(c));
	CHECK(kernel_cache_read("k1", &c));
	CHECK(c.cached && c.text != NULL && !c.v && c.disk);
	CHECK_EQ_U64(c.n, 7);
	CHECK_EQ_U64(c.static_end, 0xffffffff81000400);
	for (size_t i = 0; i < t.n; i++) {
		const struct range_entry *e = &t.v[i];
		const char *m = e->module ? e->module : "";

		if (!strcmp(m, "bpf") || !strncmp(m, "__builtin__", 11)) {
			CHECK(strcmp(name_at(&c, e->start), e->name) != 0);
			continue;
		}
		CHECK(!strcmp(name_at(&c, e->start), e->name));
		CHECK(!strcmp(range_table_find(&c, e->start)->module ?
			      range_table_find(&c, e->start)->module : "", m));
	}
	/* Another key (another boot, other modules): nothing. */
	CHECK(!kernel_cache_read("k2", &c));
	/* A copy renamed by hand: its head says whose it is. */
	CHECK(rename(path_of("kallsyms-k1"), path_of("kallsyms-k3")) == 0);
	CHECK(!kernel_cache_read("k3", &c) && c.n == 7);
	/* Writing this boot's copy removes the others, nothing else. */
	write_file(path_of("unrelated"), "x", 0600);
	kernel_cache_write("k1", &t);
	CHECK(access(path_of("kallsyms-k3"), F_OK) != 0);
	CHECK(access(path_of("kallsyms-k1"), F_OK) == 0);
	CHECK(access(path_of("unrelated"), F_OK) == 0);

	/*
	 * Unsure: past the kernel's last function, where a module's last
	 * function ends, or nothing; never inside the kernel or a module,
	 * nor above the module space (a user frame's -4097).
	 */
	CHECK(!kernel_cache_unsure(&c, range_table_find(&c, 0xffffffff81000110), 0xffffffff81000110));
	CHECK(!kernel_cache_unsure(&c, range_table_find(&c, 0xffffffffc0000010), 0xffffffffc0000010));
	CHECK(kernel_cache_unsure(&c, range_table_find(&c, 0xffffffffc0000110), 0xffffffffc0000110));
	CHECK(kernel_cache_unsure(&c, range_table_find(&c, 0xffffffffc0100010), 0xffffffffc0100010));
	CHECK(kernel_cache_unsure(&c, range_table_find(&c, 0xffffffff81000410), 0xffffffff81000410));
	CHECK(!kernel_cache_unsure(&c, range_table_find(&c, 0xffffffffffffefff), 0xffffffffffffefff));
	CHECK(!kernel_cache_unsure(&c, NULL, 0xffff888000000000));
	range_table_clear(&c);
	range_table_clear(&t);
}

/* Links, shared directories, other users' files: never read, never written through. */
static void check_hostile(void)
{
	struct range_table t, c;
	char victim[160], linked[160];
	struct stat st;
	FILE *f;
	char buf[64] = "";

	parse(&t, kallsyms_text);
	memset(&c, 0, sizeof(c));
	snprintf(victim, sizeof(victim), "%s.victim", dir);
	write_file(victim, MAGIC_FOR_TEST "k1\nffffffff81000000 t planted\n", 0600);
	/* A link where the copy goes: not read; the write replaces the link. */
	unlink(path_of("kallsyms-k1"));
	CHECK(symlink(victim, path_of("kallsyms-k1")) == 0);
	CHECK(!kernel_cache_read("k1", &c));
	kernel_cache_write("k1", &t);
	CHECK(lstat(path_of("kallsyms-k1"), &st) == 0 && S_ISREG(st.st_mode));
	f = fopen(victim, "r");
	CHECK(f && fgets(buf, sizeof(buf), f) && !strncmp(buf, MAGIC_FOR_TEST "k1", 19));
	CHECK(f && fgets(buf, sizeof(buf), f) && strstr(buf, "planted"));
	if (f)
		fclose(f);
	/* Anyone may write the file: not read. */
	CHECK(chmod(path_of("kallsyms-k1"), 0622) == 0);
	CHECK(!kernel_cache_read("k1", &c));
	CHECK(chmod(path_of("kallsyms-k1"), 0600) == 0);
	/* Another user's file (root can make one): not read. */
	if (geteuid() == 0) {
		CHECK(chown(path_of("kallsyms-k1"), 65534, 65534) == 0);
		CHECK(!kernel_cache_read("k1", &c));
		CHECK(chown(path_of("kallsyms-k1"), 0, 0) == 0);
	}
	CHECK(kernel_cache_read("k1", &c));
	range_table_clear(&c);
	/* A directory others may write: neither read nor written. */
	CHECK(chmod(dir, 0777) == 0);
	CHECK(!kernel_cache_read("k1", &c));
	unlink(path_of("kallsyms-k1"));
	kernel_cache_write("k1", &t);
	CHECK(access(path_of("kallsyms-k1"), F_OK) != 0);
	CHECK(chmod(dir, 0700) == 0);
	/* The directory a link: not followed. */
	snprintf(linked, sizeof(linked), "%s.link", dir);
	CHECK(symlink(dir, linked) == 0);
	setenv("SHIMTOP_CACHE_DIR", linked, 1);
	kernel_cache_write("k1", &t);
	CHECK(access(path_of("kallsyms-k1"), F_OK) != 0);
	setenv("SHIMTOP_CACHE_DIR", dir, 1);
	unlink(linked);
	unlink(victim);
	/* Empty: no copy at all. */
	setenv("SHIMTOP_CACHE_DIR", "", 1);
	kernel_cache_write("k1", &t);
	CHECK(access(path_of("kallsyms-k1"), F_OK) != 0);
	setenv("SHIMTOP_CACHE_DIR", dir, 1);
	range_table_clear(&t);
}

/*
 * A copy's bytes damaged anywhere (cut, a bit flipped): refused whole, or
 * read with every name inside the copy and NUL-ended; never read past.
 */
static void check_damaged(void)
{
	struct range_table t, c;
	unsigned char *buf;
	size_t len, refused = 0;
	FILE *f;

	parse(&t, kallsyms_text);
	kernel_cache_write("k1", &t);
	f = fopen(path_of("kallsyms-k1"), "rb");
	buf = malloc(4096);
	len = f && buf ? fread(buf, 1, 4096, f) : 0;
	if (f)
		fclose(f);
	CHECK(len > 200 && len < 4096);
	memset(&c, 0, sizeof(c));
	CHECK(kernel_cache_from_bytes(&c, "k1", buf, len) && c.n == 7);
	range_table_clear(&c);
	for (size_t cut = 0; cut < len; cut++) {
		refused += !kernel_cache_from_bytes(&c, "k1", buf, cut);
		range_table_clear(&c);
	}
	CHECK_EQ_U64(refused, len);
	for (size_t at = 0; at < len; at++) {
		for (int bit = 0; bit < 8; bit += 3) {
			buf[at] ^= (unsigned char)(1u << bit);
			if (kernel_cache_from_bytes(&c, "k1", buf, len))
				for (size_t i = 0; i < c.n; i++) {
					struct range_entry e;

					range_table_entry(&c, i, &e);
					CHECK((const unsigned char *)e.name >= buf &&
					      (const unsigned char *)e.name + strlen(e.name) < buf + len);
				}
			range_table_clear(&c);
			buf[at] ^= (unsigned char)(1u << bit);
		}
	}
	free(buf);
	range_table_clear(&t);
}

/* The real thing: a second load reads the copy and names every function as the first. */
/*
 * A table's functions but BPF programs' (bpf_prog_..., the trampolines):
 * those come and go as any process loads one (another test's stack
 * walker), between two reads of /proc/kallsyms.
 */
static size_t lasting(const struct range_table *t)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n; i++) {
		const char *m = t->v[i].module ? t->v[i].module : "";

		n += strcmp(m, "bpf") && strncmp(m, "__builtin__", 11);
	}
	return n;
}

static void check_real(void)
{
	struct range_table fresh, saved;
	size_t named = 0, compared = 0;

	memset(&fresh, 0, sizeof(fresh));
	memset(&saved, 0, sizeof(saved));
	kernel_symbols_load(&fresh, false);
	if (!fresh.n) {
		printf("kernel symbols hidden (kptr_restrict): the real copy not checked\n");
		return;
	}
	CHECK(!fresh.cached);
	kernel_symbols_load(&saved, false);
	CHECK(saved.cached);
	for (size_t i = 0; i < fresh.n; i++) {
		const struct range_entry *e = &fresh.v[i], *s = range_table_find(&saved, e->start);
		const char *m = e->module ? e->module : "";

		if (!strcmp(m, "bpf") || !strncmp(m, "__builtin__", 11))
			continue;
		compared++;
		named += s && !strcmp(s->name, range_table_find(&fresh, e->start)->name);
	}
	CHECK(compared > 1000);
	CHECK_EQ_U64(named, compared);
	printf("%zu of %zu functions named alike from the copy\n", named, compared);
	/* fresh: the kernel's list in any case, and the copy not written again. */
	{
		char key[128], path[4096];
		struct stat before, after;

		CHECK(kernel_cache_key(key, sizeof(key)));
		snprintf(path, sizeof(path), "%s/kallsyms-%s", dir, key);
		CHECK(stat(path, &before) == 0);
		kernel_symbols_load(&saved, true);
		CHECK(!saved.cached && lasting(&saved) == lasting(&fresh));
		CHECK(stat(path, &after) == 0);
		CHECK(after.st_ino == before.st_ino && after.st_mtim.tv_nsec == before.st_mtim.tv_nsec &&
		      after.st_mtim.tv_sec == before.st_mtim.tv_sec);
	}
	/* What the kernel made at run time alone, each as the whole list names it. */
	{
		struct range_table made;
		size_t made_in_fresh = 0, lasting_made = 0;

		memset(&made, 0, sizeof(made));
		kernel_symbols_made_at_run_time(&made);
		for (size_t i = 0; i < saved.n; i++)
			made_in_fresh += kernel_made_at_run_time(saved.v[i].module) &&
					 strcmp(saved.v[i].module, "bpf");
		for (size_t i = 0; i < made.n; i++) {
			const struct range_entry *f = range_table_find(&saved, made.v[i].start);

			CHECK(kernel_made_at_run_time(made.v[i].module));
			/* BPF programs come and go between the two reads; trampolines stay. */
			if (!strcmp(made.v[i].module, "bpf"))
				continue;
			CHECK(f && f->start == made.v[i].start && !strcmp(f->name, made.v[i].name));
			lasting_made++;
		}
		CHECK_EQ_U64(lasting_made, made_in_fresh);
		printf("%zu functions made at run time (%zu not BPF, as the whole list)\n", made.n,
		       lasting_made);
		range_table_clear(&made);
	}
	range_table_clear(&saved);
	range_table_clear(&fresh);
}

/*
 * A perf.data's kernel: this machine's names only for this kernel (its
 * build-id, else its release); none named for another or for a file
 * that names no kernel; --kallsyms' in any case; a module of another
 * build unnamed by itself.
 */
static size_t after_recorded(const unsigned char *id, size_t id_len, const char *release,
			     const char *kallsyms, struct recorded_files *r)
{
	struct range_table t;
	size_t n;

	parse(&t, kallsyms_text);
	memset(r, 0, sizeof(*r));
	if (id)
		recorded_files_expect(r, "[kernel.kallsyms]", id, id_len, true);
	recorded_files_expect_kernel(r, release);
	if (kallsyms)
		recorded_files_set_kallsyms(r, kallsyms);
	recorded_kernel_symbols(r, &t);
	n = t.n;
	range_table_clear(&t);
	return n;
}

static void check_recorded(void)
{
	struct recorded_files r;
	struct utsname u;
	unsigned char other[20] = { 1, 2, 3 }, here[20];
	size_t here_len = 0, len = 0;
	char *notes = st_read_file("/sys/kernel/notes", &len), path[4096];
	const unsigned char id[4] = { 9, 9, 9, 9 };

	CHECK(uname(&u) == 0);
	CHECK_EQ_U64(after_recorded(NULL, 0, u.release, NULL, &r), 9);
	CHECK(!r.kernel_foreign);
	recorded_files_free(&r);
	CHECK_EQ_U64(after_recorded(NULL, 0, "2.6.32-not-this-one", NULL, &r), 0);
	CHECK(r.kernel_foreign);
	recorded_files_free(&r);
	/* A pipe of an old perf: no build-id, no release: this kernel's, as perf. */
	CHECK_EQ_U64(after_recorded(NULL, 0, NULL, NULL, &r), 9);
	recorded_files_free(&r);
	/* A build-id decides over a release that matches. */
	CHECK_EQ_U64(after_recorded(other, 20, u.release, NULL, &r), 0);
	recorded_files_free(&r);
	/* --kallsyms names another kernel's addresses. */
	snprintf(path, sizeof(path), "%s/given-kallsyms", dir);
	write_file(path, kallsyms_text, 0600);
	CHECK_EQ_U64(after_recorded(other, 20, "2.6.32-not-this-one", path, &r), 9);
	recorded_files_free(&r);
	/* This kernel's build-id, where /sys says it. */
	for (size_t at = 0; notes && at + 16 + 20 <= len; at += 4)
		if (!memcmp(notes + at + 12, "GNU", 4) && notes[at + 4] == 20 && notes[at + 8] == 3) {
			memcpy(here, notes + at + 16, 20);
			here_len = 20;
			break;
		}
	free(notes);
	if (here_len) {
		CHECK_EQ_U64(after_recorded(here, here_len, "2.6.32-not-this-one", NULL, &r), 9);
		recorded_files_free(&r);
	}
	/* Modules by their build-ids: one of another build (or not loaded) alone. */
	memset(&r, 0, sizeof(r));
	recorded_files_expect_kernel(&r, u.release);
	recorded_files_expect(&r, "/lib/modules/x/kernel/fs/no-such_mod.ko.xz", id, sizeof(id), true);
	recorded_files_expect(&r, "/usr/lib/libfoo.so", id, sizeof(id), false);
	CHECK(recorded_module_foreign(&r, "no_such_mod"));
	CHECK(!recorded_module_foreign(&r, "ext4"));
	CHECK_EQ_U64(r.nmodules, 1);
	recorded_files_free(&r);
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/shimtop-kcache.XXXXXX");
	if (!mkdtemp(dir))
		return 99;
	setenv("SHIMTOP_CACHE_DIR", dir, 1);
	check_round_trip();
	check_hostile();
	check_damaged();
	check_real();
	check_recorded();
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", dir);
	}
	return check_done("test_kernel_cache");
}
