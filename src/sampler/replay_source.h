/*
 * replay_source.h - a recorded stream fed back through a ring, at full
 * speed or at the recorded pace.  Unlike a live source it waits when the
 * ring is full: a recording has no deadline, and nothing may be lost.
 */
#ifndef SHIMTOP_REPLAY_SOURCE_H
#define SHIMTOP_REPLAY_SOURCE_H

#include <stdbool.h>

#include "ring/record_file.h"
#include "sampler/source.h"

/* NULL after a one-line error (missing file, not a recording, version). */
struct st_source *replay_source_create(const char *path, bool realtime,
				       struct ring *ring,
				       struct st_file_header *header);
/* The same from a reader already open (a snapshot's records); NULL if reader is. */
struct st_source *replay_source_from(struct record_reader *reader, bool realtime,
				     struct ring *ring, const struct st_file_header *header);
/* The same from a perf.data opened (perf_data_on); NULL if it is. */
struct perf_data;
struct st_source *replay_source_perf_data(struct perf_data *perf, bool realtime,
					  struct ring *ring, const struct st_file_header *header);

#endif
