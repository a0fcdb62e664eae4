/*
 * ibs_dump.h - --ibs-dump: a recording's IBS samples, each decoded field
 * by field (as perf report -D prints AMD's raw samples), for bug reports
 * and for checking what the hardware said against what the views show.
 */
#ifndef SHIMTOP_IBS_DUMP_H
#define SHIMTOP_IBS_DUMP_H

#include <stdio.h>

/*
 * Prints every IBS sample of the recording at path to out.  0, or after
 * a one-line error: -EBADMSG when the file holds no IBS samples or some
 * could not be decoded (those printed stay printed), -EIO when it cannot
 * be read.
 */
int ibs_dump_recording(const char *path, FILE *out);

#endif
