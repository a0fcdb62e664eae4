// test_signals_cxx.cc - <shimtop/signals.h> from C++: it compiles with
// g++ -Wall -Wextra -pedantic, and a segment made from C++ has the
// version-1 layout the observer reads (offsets checked, values read back
// through a second mapping of the shared-memory object).
#include <shimtop/signals.h>

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

static int failed;

#define CHECK(c) do { if (!(c)) { \
	std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); \
	failed++; } } while (0)

// The layout Rust or Go bindings rely on.
static_assert(sizeof(struct shimtop_slot) == 64, "one cache line per slot");
static_assert(offsetof(struct shimtop_slot, tag) == 8, "tag at 8");
static_assert(offsetof(struct shimtop_slot, counter) == 16, "counters at 16");
static_assert(offsetof(struct shimtop_signals, slot) == SHIMTOP_SIGNALS_HEADER_SIZE,
	      "slots after the header page");
static_assert(offsetof(struct shimtop_signals_header, tag_name) == 32, "tag name at 32");

int main()
{
	const char *names[] = { "requests", "bytes" };
	struct shimtop_signals *sig = shimtop_signals_open("phase", names, 2);
	char name[64];

	CHECK(sig != nullptr);
	if (!sig)
		return 1;
	shimtop_signals_name_tag(sig, 3, "parse");
	struct shimtop_slot *me = shimtop_signals_thread(sig);
	CHECK(me != nullptr);
	shimtop_tag(me, 3, 7);
	shimtop_count(me, 1, 4096);
	shimtop_count(me, 1, 1);

	// What another process (shimtop) sees through its own mapping.
	shimtop_signals_name(name, sizeof(name), (long)getpid());
	int fd = shm_open(name, O_RDONLY, 0);
	CHECK(fd >= 0);
	auto *seen = static_cast<const struct shimtop_signals *>(
		mmap(nullptr, SHIMTOP_SIGNALS_SIZE, PROT_READ, MAP_SHARED, fd, 0));
	CHECK(seen != MAP_FAILED);
	if (seen != MAP_FAILED) {
		CHECK(!std::memcmp(seen->header.magic, SHIMTOP_SIGNALS_MAGIC, 8));
		CHECK(seen->header.version == SHIMTOP_SIGNALS_VERSION);
		CHECK(seen->header.ncounters == 2);
		CHECK(!std::strcmp(seen->header.counter_name[1], "bytes"));
		CHECK(!std::strcmp(seen->header.tag_value_name[3], "parse"));
		CHECK(seen->slot[0].tid == static_cast<uint32_t>(gettid()));
		CHECK(seen->slot[0].tag == 3 && seen->slot[0].depth == 7);
		CHECK(seen->slot[0].counter[1] == 4097);
	}
	shimtop_signals_close();
	std::printf("test_signals_cxx: %d failed\n", failed);
	return failed ? 1 : 0;
}
