/* profile_merge: several recordings of one command (benchprof run
 * --repeat) into one profile.  Each source's libraries, functions,
 * frames, stacks, threads and samples are interned into the destination,
 * which gains a marker per source ("repetition N", its time range and
 * counters) and the sum of their counters and loss counts; the run's
 * end is the last one's.  The sources
 * are left as they were (their timelines are read through). */
#ifndef BP_LIB_PROFILE_MERGE_H
#define BP_LIB_PROFILE_MERGE_H

#include "profile.h"

/* Add src to dst under a marker called marker.  dst is the first
 * recording (its metadata describes them all; give it its own marker
 * with bpi_profile_add_marker).  BPE_NOMEM, BPE_IO (the timeline). */
bp_code bpi_profile_merge(struct bp_profile *dst,
                          const struct bp_profile *src, const char *marker);

#endif
