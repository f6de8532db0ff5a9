/* slice: one profile per benchmark the harness marked (hooks.h).
 *
 * The profile's markers (control.c: a name, a time range, the counters'
 * deltas over it) are grouped by name: a benchmark the harness ran several
 * times (Google Benchmark calls a benchmark function more than once) is
 * one benchmark, its profile the samples of all its time ranges
 * (bpi_profile_slice_ranges) and its counters summed over them.  Each
 * gets a directory of the run directory named after it
 * (bpi_control_dirnames: unlike any other and any of the run directory's
 * own files, bpi_rundir_reserved_names) holding the exporters' artifacts.
 * A merged profile's repetition markers (BP_MARKER_REPETITION) are no
 * benchmarks: they are passed over, so that a benchmark marked in every
 * repetition of benchprof run --repeat has the samples of all of them.
 * Benchmarks are sliced in order and written in batches on worker
 * threads (parallel.h; BENCHPROF_THREADS=1 writes them in order).
 * Not thread-safe: one call at a time per profile. */
#ifndef BP_LIB_SLICE_H
#define BP_LIB_SLICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "benchprof/benchprof.h"
#include "counters.h"
#include "export.h"
#include "profile.h"

/* A benchmark marked once or more: its segments' samples and summed
 * counters, in one directory. */
struct bp_marked {
  const char *name;            /* the marker's name (points into the
                                  profile: valid while it is) */
  char *dir;                   /* under the run directory (owned) */
  size_t nsegs;                /* how many times it ran */
  uint64_t samples;            /* in its time ranges */
  struct bp_counter *counters; /* summed over its segments (owned) */
  size_t ncounters;
  struct bp_export_record written; /* its artifacts, for the manifest */
};

/* Write each marked benchmark of p into dir/<its directory>/ (dir exists;
 * the benchmark directories are made under it without following links).
 * *out gets one entry per distinct marker name, in the order they first
 * began, *n how many (0 and NULL when p has no markers); on failure
 * what was done so far, which the caller frees all the same.  Errors:
 * BPE_NOMEM and those of the exporters and of bpi_file_mkdirs_under. */
bp_code bpi_slice_export(const struct bp_profile *p, const char *dir,
                         struct bp_marked **out, size_t *n,
                         struct bp_err *err);

/* The same; with note, the benchmarks' directory names are first
 * appended to dir's BP_RUNDIR_BENCH_DIRS (benchprof run: the next run in
 * dir removes them even when this one writes no manifest). */
bp_code bpi_slice_export_noted(const struct bp_profile *p, const char *dir,
                               bool note, struct bp_marked **out, size_t *n,
                               struct bp_err *err);

/* Free what bpi_slice_export gave (NULL is fine). */
void bpi_slice_free(struct bp_marked *m, size_t n);

#endif
