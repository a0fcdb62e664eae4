/* ibs_dump.c - decoding a recording's IBS samples (ibs_dump.h). */
#include "output/ibs_dump.h"
#include "ring/record.h"
#include "ring/record_file.h"
#include "sampler/ibs.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>

int ibs_dump_recording(const char *path, FILE *out)
{
	struct st_file_header h;
	struct record_reader *r = record_reader_open(path, &h);
	uint64_t n = 0, bad = 0, first_bad = 0;
	char why[160] = "";
	const void *rec;
	long len;

	if (!r)
		return -EIO;
	while ((len = record_reader_next(r, &rec)) > 0) {
		const struct st_ibs *b = rec;
		struct ibs_sample s;
		char err[160];

		if (b->h.type != ST_REC_IBS)
			continue;
		n++;
		fprintf(out, "sample %" PRIu64 ": time %" PRIu64 " ns, pid %u tid %u, cpu %u, "
			"ip %#" PRIx64 " (%s), period %" PRIu64 ", family %#x model %#x\n", n,
			b->time, b->pid, b->tid, b->cpu, b->ip,
			b->cpumode == ST_MODE_KERNEL ? "kernel" : "user", b->period, b->family,
			b->model);
		if (ibs_from_record(b, &s, err, sizeof(err)) < 0) {
			fprintf(out, "  not decoded: %s\n", err);
			if (!bad++) {
				first_bad = n;
				snprintf(why, sizeof(why), "%s", err);
			}
			continue;
		}
		ibs_dump(&s, b->family, b->model, out);
	}
	if (len < 0) {
		st_error("%s", record_reader_error(r));
		record_reader_close(r);
		return -EBADMSG;
	}
	record_reader_close(r);
	if (fflush(out) != 0)
		return -EIO;
	if (bad) {
		st_error("%s: %" PRIu64 " of %" PRIu64 " IBS samples could not be decoded, the "
			 "first (sample %" PRIu64 ") because: %s", path, bad, n, first_bad, why);
		return -EBADMSG;
	}
	if (!n) {
		st_error("%s holds no IBS samples: it was recorded without --ibs", path);
		return -EBADMSG;
	}
	return 0;
}
