/*
 * snapshot_sections.c - prints each section of a snapshot, a line each:
 * its name, size and an FNV-1a hash of its bytes, so the tests compare
 * two snapshots' contents (the round trip) without a zstd of their own;
 * with a section's name after the file, that section's bytes; with a
 * section, a length and an output file, the snapshot written again with
 * that section cut to the length (a damaged section in a sound container).
 */
#include "ring/snapshot_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	struct snapshot_file f;

	if (argc != 2 && argc != 3 && argc != 5) {
		fputs("usage: snapshot_sections FILE [SECTION [LENGTH OUT]]\n", stderr);
		return 2;
	}
	if (snapshot_file_read(argv[1], NULL, &f) < 0)
		return 1;
	if (argc == 5) {
		uint64_t bytes;
		size_t cut = strtoul(argv[3], NULL, 0);
		int rc, found = 0;

		for (size_t i = 0; i < f.nsections; i++)
			if (!strcmp(f.sections[i].name, argv[2]) && cut < f.sections[i].size) {
				f.sections[i].size = cut;
				found = 1;
			}
		rc = found ? snapshot_file_write(argv[4], f.sections, f.nsections, &bytes) : -1;
		snapshot_file_free(&f);
		return rc ? 1 : 0;
	}
	if (argc == 3) {
		const struct snapshot_section *s = snapshot_file_section(&f, argv[2]);

		if (s)
			fwrite(s->data, 1, s->size, stdout);
		snapshot_file_free(&f);
		return s ? 0 : 1;
	}
	for (size_t i = 0; i < f.nsections; i++) {
		uint64_t h = 1469598103934665603ull;

		for (size_t k = 0; k < f.sections[i].size; k++)
			h = (h ^ f.sections[i].data[k]) * 1099511628211ull;
		printf("%s %zu %016llx\n", f.sections[i].name, f.sections[i].size,
		       (unsigned long long)h);
	}
	snapshot_file_free(&f);
	return 0;
}
