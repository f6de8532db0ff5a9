/* run_outputs: what `benchprof run` writes into its run directory once the
 * command ran: report.json (the benchmark report, BMF) and manifest.json
 * (rundir.h), built from the report, the invocation's profile and where
 * each benchmark's artifacts are.  Also which counters belong to which
 * benchmark.  The manifest is written last, so every file it names is
 * complete.  Never prints: the caller says what happened. */
#ifndef BP_LIB_RUN_OUTPUTS_H
#define BP_LIB_RUN_OUTPUTS_H

#include <stddef.h>

#include "benchprof/benchprof.h"
#include "profile.h"
#include "report.h"
#include "slice.h"

struct cJSON;

/* One benchmark's line in the manifest: where its own artifacts are ("."
 * for the invocation's) and, with an invocation of its own or marked by
 * the harness, its facts. */
struct bp_run_bench {
  const char *dir;
  const struct bp_profile *prof;  /* its own invocation (--each), or NULL */
  int exit_status;                /* of that invocation */
  const struct bp_marked *marked; /* marked by the harness, or NULL */
  const struct cJSON *repetitions; /* --repeat: {SLUG: [values]}, or NULL */
  /* what the export that wrote its artifacts recorded (bpi_export_all),
   * or NULL: they are read back from disk */
  const struct bp_export_record *written;
};

/* The counters c[0..n) as b's measures: per iteration when b's harness
 * reports the CPU time of one (Google Benchmark sizes its iteration
 * count itself), divided by the iterations task-clock covers; else as
 * counted (the whole invocation, or a marked range).  BPE_NOMEM. */
bp_code bpi_run_add_counters(struct bp_bench *b, const struct bp_counter *c,
                             size_t n);

/* Counters measure the whole invocation (prof's): they belong to its
 * benchmark when there is exactly one.  A benchmark the harness marked has
 * its own counters instead.  rep gets a benchmark named default_name when
 * it has none and nothing was marked; *benches (malloc'd, one per
 * benchmark of rep) says where each one's artifacts are.  *unattached: how
 * many benchmarks are neither marked nor given the invocation's counters
 * (several ran in one process, or one was not marked while others were);
 * 0 when none.  BPE_NOMEM. */
bp_code bpi_run_attach_counters(struct bp_report *rep,
                                const struct bp_marked *marked,
                                size_t nmarked,
                                const struct bp_profile *prof,
                                const char *default_name,
                                struct bp_run_bench **benches,
                                size_t *unattached);

/* dir/report.json: rep in BMF, atomically. */
bp_code bpi_run_write_report(const char *dir, const struct bp_report *rep,
                             struct bp_err *err);

/* What the manifest says about the run. */
struct bp_run_facts {
  const char *dir;                 /* the run directory */
  const struct bp_report *report;
  const struct bp_run_bench *benches; /* one per benchmark of report */
  const struct bp_profile *prof;   /* the invocation's, NULL with --each */
  /* what the export of prof's artifacts recorded, or NULL: read back */
  const struct bp_export_record *written;
  /* a profile for the event's facts; NULL: none (an interrupted run
   * whose first command never started) */
  const struct bp_profile *any;
  const char *command;             /* when prof is NULL: the harness */
  const char *outcome;             /* BP_OUTCOME_* */
  int signal;                      /* what interrupted it, or 0 */
  int exit_status;
  unsigned repeat;                 /* --repeat N; 0 or 1: not repeated */
  /* the harness wrote no results (an interrupted run): the manifest
   * names no report; report's benchmarks, if any, are those that ran
   * (their directories and facts listed, their measures not written) */
  bool no_report;
};

/* dir/manifest.json for the run: its facts and artifacts, each
 * benchmark's directory, facts and artifacts (sizes and SHA-256 as their
 * export recorded them when it is given and complete, else measured
 * now). */
bp_code bpi_run_write_manifest(const struct bp_run_facts *f,
                               struct bp_err *err);

#endif
