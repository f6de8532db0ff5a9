/* export: the table of artifact writers.  Each exporter turns a finished,
 * symbolized profile (read-only) into the bytes of one file; export.c
 * writes them atomically into the output directory, gzipped when the
 * exporter says so.  Exporters never touch records, rings or libdw. */
#ifndef BP_LIB_EXPORT_H
#define BP_LIB_EXPORT_H

#include <stdbool.h>

#include "benchprof/benchprof.h"
#include "buf.h"
#include "fileio.h"
#include "profile.h"

struct bp_exporter {
  const char *name;  /* "gecko", "pprof", "folded", "svg", "summary" */
  const char *file;  /* file name in the output directory */
  bool gzip;         /* compress the bytes before writing */
  bp_code (*write)(const struct bp_profile *p, struct bp_buf *out,
                   struct bp_err *err);
  /* NULL: always written; else whether this profile has the artifact
   * (the off-CPU ones: only with --off-cpu) */
  bool (*wanted)(const struct bp_profile *p);
};

/* The artifacts' file names: the only place they are spelled (rundir.h
 * names the run directory's other files). */
#define BP_FILE_GECKO "profile.json.gz"
#define BP_FILE_PPROF "profile.pb.gz"
#define BP_FILE_FOLDED "profile.folded"
/* The folded stacks' line for CPU time in no sample (kernel time that was
 * not permitted): this frame alone, weighted in samples. */
#define BP_FOLDED_UNSAMPLED "[not sampled: kernel time]"
#define BP_FILE_SVG "flamegraph.svg"
#define BP_FILE_SUMMARY "summary.json"
#define BP_FILE_OFFCPU_FOLDED "profile.offcpu.folded"
#define BP_FILE_OFFCPU_SVG "flamegraph.offcpu.svg"
/* The last frame of off-CPU time a thread spent preempted (runnable) in
 * BP_FILE_OFFCPU_FOLDED; the other lines are time it blocked. */
#define BP_FOLDED_PREEMPTED "[preempted]"

extern const struct bp_exporter bpi_export_gecko;   /* BP_FILE_GECKO */
extern const struct bp_exporter bpi_export_pprof;   /* BP_FILE_PPROF */
extern const struct bp_exporter bpi_export_folded;  /* BP_FILE_FOLDED */
extern const struct bp_exporter bpi_export_svg;     /* BP_FILE_SVG */
extern const struct bp_exporter bpi_export_summary; /* BP_FILE_SUMMARY */
/* off-CPU stacks in microseconds: BP_FILE_OFFCPU_FOLDED */
extern const struct bp_exporter bpi_export_offcpu_folded;
extern const struct bp_exporter bpi_export_offcpu_svg; /* BP_FILE_OFFCPU_SVG */

/* Whether the profile has off-CPU time (the off-CPU exporters' wanted). */
bool bpi_export_has_off_cpu(const struct bp_profile *p);

/* All exporters, NULL-terminated, in the order they are written. */
extern const struct bp_exporter *const bpi_exporters[];

/* What an export wrote, for the manifest (rundir.h): each artifact's
 * exporter (its kind, and its file name relative to the directory it went
 * to) and the size and SHA-256 of the bytes that landed on disk, hashed
 * as they were written, so that nobody reads the files back for them. */
#define BP_EXPORTERS_MAX 8    /* bpi_exporters fits (export.c checks) */
struct bp_export_written {
  const struct bp_exporter *exporter;
  struct bp_file_digest digest;
};
struct bp_export_record {
  struct bp_export_written files[BP_EXPORTERS_MAX];  /* in table order */
  size_t n;
  bool complete;   /* every artifact p has was written */
};

/* Write every artifact of p into dir (created when missing); record:
 * NULL, or where what was written goes (complete only on success). */
bp_code bpi_export_all(const struct bp_profile *p, const char *dir,
                       struct bp_export_record *record, struct bp_err *err);

/* Write one exporter's artifact into dir; digest: NULL, or where the
 * file's size and SHA-256 go. */
bp_code bpi_export_one(const struct bp_exporter *e,
                       const struct bp_profile *p, const char *dir,
                       struct bp_file_digest *digest, struct bp_err *err);

/* export_svg.c: the flame graphs' embedded script (zoom, search, reset),
 * shared with the differential flame graphs of compare. */
extern const char bpi_flamegraph_script[];

#endif
