/* profile_merge: several recordings of one command (benchprof run
 * --repeat) into one profile.  Each source's libraries, functions,
 * frames, stacks, threads, samples and markers (the benchmarks its
 * harness marked) are interned into the destination, which gains a
 * repetition marker per source (BP_MARKER_REPETITION: "repetition N",
 * its time range and counters) and the sum of their counters and loss
 * counts; the run's end is the last one's.  Times are kept: the
 * recordings follow each other on one clock, so every marker still spans
 * its own samples, and slicing the merged profile (slice.h) gives each
 * marked benchmark the samples of all repetitions.  Each source's
 * markers, its repetition marker among them, name its own main thread
 * (bp_marker.thread): a repetition is a process of its own, and its
 * markers show on its track.  The sources are left
 * as they were (their timelines are read through). */
#ifndef BP_LIB_PROFILE_MERGE_H
#define BP_LIB_PROFILE_MERGE_H

#include "profile.h"

/* Add src to dst under a repetition marker called marker.  dst is the
 * first recording (its metadata describes them all; give it its own
 * repetition marker with bpi_profile_add_marker_kind).  BPE_NOMEM, BPE_IO
 * (the timeline). */
bp_code bpi_profile_merge(struct bp_profile *dst,
                          const struct bp_profile *src, const char *marker);

#endif
