/*
 * fuzz_record_file.c - libFuzzer: a --record file, replayed through the
 * reader, the model (perf and observer records) and both reports, with
 * `z` before the first record and after the last.
 */
#include "fuzz.h"
#include "model/model.h"
#include "session/options.h"
#include "ring/record_file.h"
#include "output/report.h"
#include "session/session_state.h"
#include "symbols/symbols.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct st_options opt;
	struct st_file_header h;
	struct record_reader *r;
	struct session s;
	const void *rec;
	char path[64];
	FILE *out;
	int fd = memfd_create("rec", MFD_CLOEXEC);

	if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	r = record_reader_open(path, &h);
	if (!r) {
		close(fd);
		return 0;
	}
	memset(&s, 0, sizeof(s));
	opt.format = size % 2 ? ST_FORMAT_JSON : ST_FORMAT_TEXT;
	opt.rows = 20;
	s.opt = &opt;
	s.pid = h.pid;
	snprintf(s.comm, sizeof(s.comm), "%s", h.comm);
	s.symbols = fuzz_symbolizer();
	model_init(&s.model, s.symbols);
	s.model.ipc_cycles = h.ipc_cycles;
	s.model.ipc_instructions = h.ipc_instructions;
	model_zero(&s.model);
	while (record_reader_next(r, &rec) > 0)
		model_ingest(&s.model, rec);
	model_flush(&s.model);
	out = fopen("/dev/null", "w");
	if (out) {
		report_print(&s, out);
		fclose(out);
	}
	model_zero(&s.model);
	record_reader_close(r);
	model_free(&s.model);
	close(fd);
	return 0;
}
