/* rundir: the run directory of `benchprof run` and its manifest.json, the
 * one owner of both.
 *
 * A run directory holds:
 *   manifest.json       what the run was and which files belong to it
 *   report.json         the benchmark report (BMF)
 *   the artifacts       the exporters' files (export.h), once for the
 *                       whole invocation and once per benchmark directory
 *   harness-output.txt  the harness's raw output, when it could not be read
 *   .benchmark-dirs     the benchmark directories the run made, noted
 *                       before they were made (BP_RUNDIR_BENCH_DIRS)
 *   compare/            on a pull request: compare.json, comment.md and per
 *                       benchmark diff.folded, diff.svg, diff-negated.svg
 *                       (and diff.offcpu.svg: both sides --off-cpu)
 * Every file name is a constant below; no other file spells one.
 *
 * struct bp_manifest is manifest.json as a struct: the run's facts, its
 * artifacts (file, kind, size, SHA-256), one entry per benchmark (its
 * profile directory, facts and artifacts) and the publication state.
 * bpi_manifest_read is its one parser, bpi_manifest_write (and
 * bpi_manifest_print for the stored copy) its one writer; what the struct
 * does not type (counters, Bencher ids, the publication, the stored
 * report) is kept as the JSON it was, so read -> write keeps it.  The
 * struct owns every string and JSON tree in it.  Not thread-safe. */
#ifndef BP_LIB_RUNDIR_H
#define BP_LIB_RUNDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "benchprof/benchprof.h"
#include "buf.h"
#include "export.h"
#include "hash.h"

/* ------------------------------------------------------ file names */
#define BP_RUNDIR_MANIFEST "manifest.json"
#define BP_RUNDIR_REPORT "report.json"
#define BP_RUNDIR_RAW "harness-output.txt"
/* a previous run's manifest.json that benchprof-wrap --new-job moved
 * aside: the next run's bpi_rundir_clear still removes the benchmark
 * directories it lists */
#define BP_RUNDIR_PREVIOUS ".previous-manifest.json"
/* the benchmark directories a run makes, one name a line, appended
 * before they are made ("." before the artifacts at the top of the
 * directory are written): the next run's bpi_rundir_clear removes them
 * even when this run wrote no manifest (results it could not read, a
 * SIGKILL while it wrote their profiles).  A benchmark directory of
 * --each has its own, for the benchmarks its harness marked in it. */
#define BP_RUNDIR_BENCH_DIRS ".benchmark-dirs"
/* the artifacts: BP_FILE_GECKO ... BP_FILE_SUMMARY, the exporter table's
 * (export.h) */
/* a comparison (compare.h) */
#define BP_RUNDIR_COMPARE "compare"        /* the run's compare directory */
#define BP_RUNDIR_SIDES ".sides"           /* sides fetched from a store */
#define BP_FILE_COMPARE_JSON "compare.json"
#define BP_FILE_COMMENT "comment.md"
/* the identity the comment was written for (`benchprof ci --json`'s
 * form): the runner hooks post comment.md only on its pull request */
#define BP_FILE_COMMENT_IDENTITY "identity.json"
/* why no comment was written when the base could not be read (one line,
 * for the runner hooks): a base the store could not give is not a missing
 * one, and an earlier comment must not be replaced by "no base" */
#define BP_FILE_NO_COMMENT "no-comment.txt"
#define BP_FILE_DIFF_FOLDED "diff.folded"
#define BP_FILE_DIFF_SVG "diff.svg"
#define BP_FILE_DIFF_NEG_SVG "diff-negated.svg"
/* the off-CPU stacks' differential flame graph, when both sides have
 * them (run --off-cpu): a benchmark slower because it waits longer shows
 * no change in diff.svg, which is on-CPU time only */
#define BP_FILE_DIFF_OFFCPU_SVG "diff.offcpu.svg"
/* A run with a suite (run --suite, BENCHPROF_SUITE) into the configured
 * output directory writes into its subdirectory "suite=NAME", so that the
 * steps of one job keep each its own run and comparison.  '=' is in no
 * benchmark's directory name (bpi_control_dirnames: [A-Za-z0-9._-]) nor
 * in a file benchprof writes, so it never meets either. */
#define BP_RUNDIR_SUITE_PREFIX "suite="

/* How the run ended (manifest "outcome"): only a passed run is published
 * unless `benchprof run --allow-failure`. */
#define BP_OUTCOME_PASSED "passed"          /* the command exited 0 */
#define BP_OUTCOME_FAILED "failed"          /* it exited non-zero or died */
#define BP_OUTCOME_INTERRUPTED "interrupted" /* a signal stopped the run */

/* An artifact's kind in the manifest, by what reads it. */
#define BP_KIND_GECKO "firefox-profiler"
#define BP_KIND_PPROF "pprof"
#define BP_KIND_FOLDED "folded-stacks"
#define BP_KIND_SVG "flamegraph"
#define BP_KIND_SUMMARY "summary"
#define BP_KIND_OFFCPU_FOLDED "offcpu-folded-stacks"  /* --off-cpu only */
#define BP_KIND_OFFCPU_SVG "offcpu-flamegraph"

/* --off-cpu --repeat: the slug, in a benchmark's "repetitions", of the ns
 * it spent blocked per run in each repetition (not a report measure). */
#define BP_OFF_CPU_SLUG "off-cpu"

/* The name of a signal that interrupts a run ("SIGTERM"), for the
 * manifest's "signal"; NULL for 0 or one benchprof does not pass on. */
const char *bpi_rundir_signal_name(int sig);

/* The kind of the exporter named name ("gecko", ...): its BP_KIND_*. */
const char *bpi_rundir_kind(const char *exporter_name);

/* The files benchprof writes at the top of a run directory,
 * NULL-terminated: no benchmark's directory may take one of these names. */
extern const char *const bpi_rundir_reserved_names[];

/* ------------------------------------------------------ the manifest */
struct cJSON;

struct bp_manifest_artifact {
  char *file;         /* relative to the run directory */
  char *kind;         /* BP_KIND_* */
  int64_t bytes;      /* -1: not given */
  char *sha256;       /* hex, or NULL */
  /* a stored manifest's (publish.c), else NULL */
  char *key, *url, *firefox_url;
};

enum bp_manifest_facts {
  BP_FACTS_NONE = 0,
  BP_FACTS_OWN,       /* its own invocation: exit_status, samples, lost */
  BP_FACTS_MARKED     /* marked by the harness: runs, samples, lost_in_run */
};

struct bp_manifest_bench {
  char *name;
  char *profile;      /* its profile directory, "." for the invocation's */
  enum bp_manifest_facts facts;
  int exit_status;    /* BP_FACTS_OWN */
  uint64_t runs;      /* BP_FACTS_MARKED */
  uint64_t samples;
  uint64_t lost;      /* "lost", or "lost_in_run" (the whole run's) */
  struct cJSON *counters;   /* as bpi_counters_json writes them, or NULL */
  struct bp_manifest_artifact *arts;
  size_t narts;
  struct cJSON *bencher;    /* Bencher's uuids (publish.c), or NULL */
  /* run --repeat: every repetition's value of each measure,
   * {SLUG: [v1, ..., vN]}, or NULL */
  struct cJSON *repetitions;
  /* the iterations the harness measured (Google Benchmark's, summed
   * over repetitions) and the CPU time of one, ns, for function costs per
   * iteration; 0: unknown */
  double iterations, iteration_cpu_ns;
};

struct bp_manifest {
  char *version;      /* benchprof's */
  char *command;
  bool has_exit_status;  /* "exit_status" given, a number; written only
                            when true (an older manifest may lack it) */
  int exit_status;
  char *outcome;      /* BP_OUTCOME_*, or NULL (an older manifest) */
  char *signal;       /* an interrupted run's: the signal that reached
                         benchprof ("SIGTERM"), or NULL */
  char *report;       /* relative to the run directory, or NULL */
  char *event_requested, *event_used;
  char *fallback_reason;    /* NULL: no fallback */
  uint64_t repeat;    /* run --repeat N: the invocations profiled into
                         one profile; 0 when not given (one) */
  bool has_facts;     /* the invocation's samples, lost and counters */
  uint64_t samples, lost;
  struct cJSON *counters;
  struct bp_manifest_artifact *arts;   /* the invocation's */
  size_t narts;
  struct bp_manifest_bench *benches;
  size_t nbenches;
  size_t benches_cap;   /* entries allocated (adding doubles it) */
  struct cJSON *publication;  /* publish.c's state, or NULL */
  struct cJSON *results;      /* a stored manifest's report, or NULL */
  /* benchmark name -> its entry, kept by the parser and
   * bpi_manifest_add_bench (a comparison looks up every benchmark) */
  struct bp_name_index bench_index;
};

void bpi_manifest_cleanup(struct bp_manifest *m);

/* Parse text (a manifest; label names it in errors).  Fields of the wrong
 * type are left NULL/0: readers say what they miss. */
bp_code bpi_manifest_parse(struct bp_manifest *m, const char *text,
                           size_t len, const char *label,
                           struct bp_err *err);
/* dir/manifest.json. */
bp_code bpi_manifest_read(struct bp_manifest *m, const char *dir,
                          struct bp_err *err);
/* The manifest as JSON text (NUL-terminated, ends with a newline). */
bp_code bpi_manifest_print(const struct bp_manifest *m, struct bp_buf *out,
                           struct bp_err *err);
/* dir/manifest.json, atomically. */
bp_code bpi_manifest_write(const struct bp_manifest *m, const char *dir,
                           struct bp_err *err);
/* dir/manifest.json (as bpi_manifest_write wrote it) with its top-level
 * "publication" replaced by publication, atomically, without parsing or
 * printing the rest: a large suite's manifest is tens of MB, and noting
 * where its publication went printed it all again.  The text is the one
 * bpi_manifest_write would write for the same manifest.  BPE_FORMAT when
 * the file is not laid out as bpi_manifest_write lays it out (the caller
 * writes the whole manifest instead). */
bp_code bpi_manifest_write_publication(const char *dir,
                                       const struct cJSON *publication,
                                       struct bp_err *err);

/* Append a benchmark (its strings copied, the rest zero). */
struct bp_manifest_bench *bpi_manifest_add_bench(struct bp_manifest *m,
                                                 const char *name,
                                                 const char *profile);
/* The entry of benchmark name, or NULL. */
const struct bp_manifest_bench *
bpi_manifest_bench(const struct bp_manifest *m, const char *name);
/* The first artifact of kind, or NULL. */
const struct bp_manifest_artifact *
bpi_manifest_artifact(const struct bp_manifest_artifact *arts, size_t n,
                      const char *kind);

/* Each exporter's artifact in dir/sub (sub "." for dir itself), with its
 * size and SHA-256, file names relative to dir: read back from disk. */
bp_code bpi_manifest_artifacts(const char *dir, const char *sub,
                               struct bp_manifest_artifact **arts,
                               size_t *n, struct bp_err *err);
/* The same from what the export that wrote them recorded (w complete,
 * its files written into dir/sub): no file is read, and the entries are
 * those bpi_manifest_artifacts would read back.  BPE_NOMEM. */
bp_code bpi_manifest_artifacts_written(const char *sub,
                                       const struct bp_export_record *w,
                                       struct bp_manifest_artifact **arts,
                                       size_t *n, struct bp_err *err);

/* A string of the publication object, or NULL. */
const char *bpi_manifest_pub_str(const struct bp_manifest *m,
                                 const char *name);
/* A string of the publication's "identity" (a stored manifest's:
 * project, branch, commit, testbed, hash, base_branch, ...), or NULL. */
const char *bpi_manifest_ident_str(const struct bp_manifest *m,
                                   const char *name);
/* Whether the run's publication was delivered. */
bool bpi_manifest_delivered(const struct bp_manifest *m);

/* A path a manifest names (an artifact, the report, a benchmark's
 * directory) is used only when it stays inside the run directory:
 * relative, no "." or ".." segment but "." itself, no empty segment. */
bool bpi_rundir_safe_path(const char *path);

/* output/suite=NAME (BP_RUNDIR_SUITE_PREFIX), malloc'd; NULL when out
 * of memory.  suite: a valid suite's name (bpi_suite_valid). */
char *bpi_rundir_suite_dir(const char *output, const char *suite);

/* Append the n benchmark directory names (one path segment each, as
 * bpi_control_dirnames makes them, or "." for the artifacts written at
 * the top of dir) to dir/BP_RUNDIR_BENCH_DIRS, before they are made.
 * BPE_IO (with the path). */
bp_code bpi_rundir_note_bench_dirs(const char *dir, const char *const *names,
                                   size_t n, struct bp_err *err);

/* Remove what a previous run left in dir that a new run might not
 * rewrite: manifest.json, report.json, harness-output.txt and compare/
 * (recursively, symbolic links removed, never followed), the exporters'
 * files at the top of dir when its manifest (or BP_RUNDIR_PREVIOUS) lists
 * artifacts there, and the benchmarks' directories it lists: in each, first the benchmark
 * directories its own BP_RUNDIR_BENCH_DIRS names (--each's benchmark
 * whose harness marked benchmarks: DIR/BM_a/<mark>/, cleared the same
 * way), then the artifacts listed and benchprof's own file names, then
 * the directory when nothing else is left in it (a file benchprof did
 * not write keeps it; a symbolic link is never followed); the same for
 * the directories BP_RUNDIR_BENCH_DIRS names (then that file), and the
 * exporters' files at the top of dir when it names ".".  In dir and in
 * each directory cleared, the temporary files a killed run's writes of
 * benchprof's file names left (bpi_file_is_temp_of) go too.  Missing
 * files are fine; the first failure is returned (BPE_IO, with the
 * path). */
bp_code bpi_rundir_clear(const char *dir, struct bp_err *err);

#endif
