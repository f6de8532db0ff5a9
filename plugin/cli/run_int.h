/* run_int: what `benchprof run`'s ways of running share: one invocation
 * (cmd_run.c), one invocation per benchmark (run_each.c, --each) and
 * repeated invocations (run_repeat.c, --repeat).  Internal to them. */
#ifndef BP_CLI_RUN_INT_H
#define BP_CLI_RUN_INT_H

#include "cli.h"
#include "buf.h"

#include <sys/stat.h>
#include <time.h>
#include "report.h"
#include "run_outputs.h"  /* struct bp_run_bench */

struct cJSON;

/* The most of a harness's results read: a BMF file (counted after gunzip)
 * or its stdout under --adapter.  A results document for 100,000
 * benchmarks is a few MiB; past this it is refused, not read whole. */
#define RESULTS_MAX_BYTES ((size_t)64 << 20)

/* The harness's stdout under --adapter, kept up to RESULTS_MAX_BYTES
 * (all of it is still relayed to ours). */
struct captured {
  struct bp_buf buf;
  bool too_big;
  /* --bmf: the file as it was before the command started
   * (bp_cli_run_note_bmf), to tell results this run wrote from a file a
   * previous job left */
  bool bmf_noted, bmf_existed;
  struct stat bmf_before;
  time_t started;
};

/* Note what the --bmf file is before the command starts (nothing without
 * --bmf). */
void bp_cli_run_note_bmf(const struct bp_record_args *a,
                         struct captured *cap);

/* The harness's stdout into a struct captured (a recorder's on_output). */
void bp_cli_run_collect_output(void *ctx, const char *data, size_t len);
bool bp_cli_run_load_results(const struct bp_record_args *a,
                             const struct captured *cap,
                             struct bp_report *rep);
bool bp_cli_run_write_outputs(const struct bp_record_args *a,
                              const struct bp_report *rep,
                              const struct bp_profile *prof,
                              const struct bp_profile *any,
                              const struct bp_run_bench *arts, int status);
int bp_cli_run_publish(const struct bp_record_args *a, const char *start,
                       const char *end, int status,
                       enum bp_cli_published *done);
/* Publish and compare a run that passed (any with --allow-failure); a
 * failed or interrupted one stays local, said so.  The exit status. */
int bp_cli_run_publish_and_compare(const struct bp_record_args *a,
                                   const char *start, int status);
/* What an interrupted run left to list in a manifest without report. */
struct bp_cli_ran {
  const struct bp_profile *prof;   /* the invocation's, NULL with --each */
  const struct bp_profile *any;    /* a profile for the event's facts */
  /* --each: the benchmarks that ran (their measures not reported), one
   * line of arts each; NULL: none listed */
  const struct bp_report *benches;
  const struct bp_run_bench *arts;
  const char *when;  /* where it stopped, for the warning ("in repetition
                        2 of 3"); NULL: before the harness's results */
};
/* An interrupted run whose harness wrote no results, or not all of
 * them: manifest.json alone (no report, marked interrupted, what ran
 * listed), neither published nor compared.  The exit status. */
int bp_cli_run_write_unreported(const struct bp_record_args *a,
                                const struct bp_cli_ran *ran, int status);
/* benchprof's own failure after the command: the exit status (the
 * command's with --keep-status, unless strict, said as a warning that
 * there is no report). */
int bp_cli_run_own_failure(const struct bp_record_args *a, int status);
/* Whether that failure keeps the command's status (--keep-status, not
 * strict): what went wrong is then a warning, not an error. */
bool bp_cli_run_survives_own_failure(const struct bp_record_args *a);
/* err (else code's text) as an error, or as a warning when the job
 * survives benchprof's own failure. */
void bp_cli_run_say_own_err(const struct bp_record_args *a,
                            const struct bp_err *err, bp_code code);
/* Remove what a previous run left in the output directory; false (said
 * why, a->setup_failed set) when it cannot be. */
bool bp_cli_run_clear_previous(struct bp_record_args *a);
/* --each google-benchmark: one invocation per benchmark the harness
 * lists; the exit status. */
int bp_cli_run_each(struct bp_record_args *a);
/* The invocation's counters into rep, each benchmark's line into *arts
 * (malloc'd, one per benchmark of rep; bpi_run_attach_counters), and a
 * warning when a benchmark gets none. */
bp_code bp_cli_run_attach_counters(const struct bp_record_args *a,
                                   struct bp_report *rep,
                                   const struct bp_profile *prof,
                                   struct bp_run_bench **arts);
/* --repeat N (run_repeat.c): the exit status. */
int bp_cli_run_repeated(struct bp_record_args *a);

/* The command recorded a->repeat times (run_repeat.c), for --repeat and
 * for each benchmark of --each. */
struct bp_repeated {
  struct bp_report rep;       /* the last repetition's, each measure the
                                 median of the repetitions' values, their
                                 least and largest its bounds */
  struct cJSON **values;      /* one per benchmark of rep as combined:
                                 {SLUG: [each repetition's value]} */
  size_t nvalues;
  struct bp_profile *merged;  /* all repetitions, a repetition marker each */
  int status;                 /* the first non-zero exit status */
  size_t ran;                 /* repetitions started */
  size_t done;                /* repetitions whose results were read */
  /* a signal stopped the repetitions before each had its results: rep
   * is empty, merged (exported, a->marked sliced from it) has what ran */
  bool interrupted;
};
/* Record a's command a->repeat times into a->output: every repetition's
 * report read and its counters attached, the profiles merged, the merged
 * profile's artifacts written over the last repetition's, and the
 * benchmarks the harness marked sliced from it into a->marked (their
 * names point in out->merged).  false when a repetition failed or
 * something could not be done (said why); out is to be cleaned up
 * either way. */
bool bp_cli_run_repeat_record(struct bp_record_args *a,
                              struct bp_repeated *out);
void bp_cli_run_repeated_cleanup(struct bp_repeated *r);
/* r interrupted (r->interrupted): says so, writes the manifest without
 * report into a->output; the exit status. */
int bp_cli_run_write_unreported_repeats(const struct bp_record_args *a,
                                        const struct bp_repeated *r);

#endif
