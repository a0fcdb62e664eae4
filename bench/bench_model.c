/* bench_model.c - the model benchmarks' shared set-up (see bench_model.h). */
#include "bench_model.h"
#include "model/model.h"
#include "ring/record.h"
#include "symbols/symbols.h"

#include <string.h>
#include <unistd.h>

struct maps {
	struct model *m;
	uint64_t start, len;
};

static void take_map(uint64_t start, uint64_t len, uint64_t pgoff,
		     const char *path, void *arg)
{
	struct maps *mp = arg;
	_Alignas(8) unsigned char buf[4096];

	if (st_mmap_make(buf, sizeof(buf), (uint32_t)getpid(), 0, start, len,
			 pgoff, path))
		model_ingest(mp->m, buf);
	/* libc's largest mapping is its text. */
	if (strstr(path, "libc.so") && len > mp->len) {
		mp->start = start;
		mp->len = len;
	}
}

int bench_model_maps(struct model *m, uint64_t *libc_start, uint64_t *libc_len)
{
	struct maps mp = { m, 0, 0 };

	symbols_read_proc_maps(getpid(), take_map, &mp);
	*libc_start = mp.start;
	*libc_len = mp.len;
	return mp.len ? 0 : -1;
}
