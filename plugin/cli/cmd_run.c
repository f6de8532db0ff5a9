/* benchprof run: the runner-side wrapper.  Records the command and counts
 * events over it (as benchprof record does), then writes the benchmark
 * report (report.json, BMF) with one measure per counter, and
 * manifest.json, which attaches the artifacts to the report.  The
 * command's output and exit status pass through; a harness whose results
 * cannot be read makes benchprof fail (a warning with --keep-status), but
 * its raw output is kept and the profiles are written.  A previous run's
 * report, manifest and comparison are removed first, so a run never
 * leaves them beside its own files.  A command that failed or was
 * interrupted is marked so in the manifest and is neither published nor
 * compared, unless --allow-failure.  One interrupted before the harness
 * wrote its results gets a manifest without a report (a warning, not an
 * error about the results) and is never published. */
#include "bp_setup.h"
#include "cli.h"
#include "msgs.h"
#include "run_int.h"
#include "publish_cli.h"

#include "benchname.h"
#include "buf.h"
#include "config.h"
#include "http.h"
#include "publish.h"
#include "err.h"
#include "fileio.h"
#include "report.h"
#include "run_outputs.h"
#include "rundir.h"
#include "text.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

void bp_cli_run_collect_output(void *ctx, const char *data, size_t len)
{
  struct captured *c = ctx;
  if(c->too_big || len > RESULTS_MAX_BYTES - c->buf.len) {
    c->too_big = true;
    return;
  }
  bpi_buf_add(&c->buf, data, len);
}

static const char *base_name(const char *path)
{
  const char *slash = strrchr(path, '/');
  return slash && slash[1] ? slash + 1 : path;
}

/* The benchmark's name when the harness reports none: --name, else the
 * program's file name less cargo's hash (target/release/deps/NAME-<16
 * hex digits>), which changes with every build and would make the same
 * benchmark another one on every pull request (malloc'd). */
static char *default_name(const struct bp_record_args *a)
{
  if(a->name)
    return strdup(a->name);
  const char *file = base_name(a->rec.argv[0]);
  return strndup(file, bpi_benchname_cargo_stem(file));
}

/* Whether benchprof's own failure after the command leaves the job's
 * exit status to the command (--keep-status, not strict).  Then what
 * went wrong is said as a warning, not an error: the job did not fail
 * because of it, and an operator reading "error" would look for a
 * failure that is not there (bp_cli_run_own_failure says the rest). */
bool bp_cli_run_survives_own_failure(const struct bp_record_args *a)
{
  return a->keep_status && !a->pub.strict;
}

/* One of benchprof's own failures after the command: an error, or a
 * warning when the job keeps the command's status. */
static void say_own(const struct bp_record_args *a, const char *fmt, ...)
  __attribute__((format(printf, 2, 3)));
static void say_own(const struct bp_record_args *a, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  bp_msg_vsay(bp_cli_run_survives_own_failure(a), fmt, ap);
  va_end(ap);
}

void bp_cli_run_say_own_err(const struct bp_record_args *a,
                            const struct bp_err *err, bp_code code)
{
  say_own(a, "%s", err && err->msg[0] ? err->msg : bp_strerror(code));
}

/* Keep what the harness produced when it could not be read. */
static void keep_raw(const struct bp_record_args *a, const char *data,
                     size_t len)
{
  struct bp_err err = {0};
  char *path = bpi_text_path_join(a->output, BP_RUNDIR_RAW);
  if(!path)
    say_own(a, "the harness's raw output: %s", bp_strerror(BPE_NOMEM));
  else if(bpi_file_write(path, data ? data : "", len, false, &err))
    bp_cli_run_say_own_err(a, &err, err.code);
  else
    bp_msg_note("the harness's raw output is in %s", path);
  free(path);
}

void bp_cli_run_note_bmf(const struct bp_record_args *a, struct captured *cap)
{
  if(!a->bmf_file)
    return;
  cap->bmf_noted = true;
  cap->bmf_existed = !stat(a->bmf_file, &cap->bmf_before);
  cap->started = time(NULL);
}

/* Whether the --bmf file is the one that was there before the command
 * ran, untouched: a harness that wrote nothing would otherwise publish a
 * previous job's results (a self-hosted runner keeps its workspace).  A
 * file written in the last seconds before the run is not judged: a
 * rewrite within one tick of the file system's clock can leave the same
 * times behind. */
static bool bmf_untouched(const struct bp_record_args *a,
                          const struct captured *cap)
{
  const struct stat *b = &cap->bmf_before;
  struct stat now;
  /* a regular file: a device or a FIFO is read as it streams */
  if(!cap->bmf_noted || !cap->bmf_existed || !S_ISREG(b->st_mode) ||
     stat(a->bmf_file, &now))
    return false;
  return now.st_dev == b->st_dev && now.st_ino == b->st_ino &&
         now.st_size == b->st_size &&
         now.st_mtim.tv_sec == b->st_mtim.tv_sec &&
         now.st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
         now.st_ctim.tv_sec == b->st_ctim.tv_sec &&
         now.st_ctim.tv_nsec == b->st_ctim.tv_nsec &&
         cap->started - b->st_mtim.tv_sec > 2;
}

/* Where the harness's results come from, for messages. */
static const char *results_origin(const struct bp_record_args *a)
{
  return a->bmf_file ? a->bmf_file : "stdout";
}

/* An interrupted run's results that cannot be read: the harness was
 * stopped before it wrote them (a cancelled job), which is no malformed
 * input to report as one.  Said as a warning; what it wrote of them, if
 * anything, is kept.  False, as there is no report. */
static bool interrupted_without_results(const struct bp_record_args *a,
                                        const char *data, size_t len)
{
  bp_msg_warn("the benchmark was interrupted before it wrote its results "
              "(%s): no report", results_origin(a));
  if(len)
    keep_raw(a, data, len);
  return false;
}

/* Whether the harness printed nothing but white space on stdout. */
static bool blank_output(const struct bp_buf *out)
{
  for(size_t i = 0; i < out->len; i++)
    if(!strchr(" \t\r\n", out->data[i]))
      return false;
  return true;
}

/* Parse the harness's results into rep; false (and the raw output kept)
 * when they are malformed, or missing from an interrupted run (said
 * so, not as an error: bp_cli_run_write_unreported). */
bool bp_cli_run_load_results(const struct bp_record_args *a,
                             const struct captured *cap,
                             struct bp_report *rep)
{
  struct bp_err err = {0};
  const struct bp_buf *out = &cap->buf;
  bool stopped = bp_cli_interrupted() != 0;
  char *file = NULL;
  size_t len = 0;
  bp_code rc = BP_OK;
  if(!a->bmf_file && cap->too_big) {
    say_own(a, "the harness printed more than %zu bytes on stdout; its "
                 "results are not read", RESULTS_MAX_BYTES);
    return false;
  }
  if(a->bmf_file && bmf_untouched(a, cap)) {
    if(stopped)
      return interrupted_without_results(a, NULL, 0);
    say_own(a, "the harness wrote no results: %s is as it was before the "
                 "command ran (a previous run's results are not read)",
                 a->bmf_file);
    return false;
  }
  if(!a->bmf_file && a->adapter != BP_ADAPTER_NONE && blank_output(out)) {
    /* said as what it is, not as JSON that ends before it starts; there
     * is no raw output to keep (an empty harness-output.txt) */
    if(stopped)
      return interrupted_without_results(a, NULL, 0);
    say_own(a, "the harness printed nothing on stdout, where --adapter "
                 "%s reads its results",
                 a->adapter == BP_ADAPTER_GBENCH ? "google-benchmark"
                                                 : "json");
    return false;
  }
  if(a->bmf_file) {
    rc = bpi_file_read_max(a->bmf_file, RESULTS_MAX_BYTES, &file, &len,
                           &err);
    if(rc && stopped)
      return interrupted_without_results(a, NULL, 0);
    if(rc) {
      say_own(a, "the harness wrote no results: %s", err.msg);
      return false;
    }
    rc = bpi_report_parse_bmf(rep, file, len, a->bmf_file, &err);
  }
  else if(a->adapter == BP_ADAPTER_JSON)
    rc = bpi_report_parse_bmf(rep, out->data ? out->data : "", out->len,
                              "stdout", &err);
  else if(a->adapter == BP_ADAPTER_GBENCH)
    rc = bpi_report_parse_gbench(rep, out->data ? out->data : "", out->len,
                                 "stdout", &err);
  const char *raw = file ? file : out->data;
  size_t rawlen = file ? len : out->len;
  if(rc && stopped)
    interrupted_without_results(a, raw, rawlen);
  else if(rc) {
    bp_cli_run_say_own_err(a, &err, rc);
    keep_raw(a, raw, rawlen);
  }
  free(file);
  return rc == BP_OK;
}

/* The counters into rep (run_outputs.h), and why a benchmark got none. */
bp_code bp_cli_run_attach_counters(const struct bp_record_args *a,
                                   struct bp_report *rep,
                                   const struct bp_profile *prof,
                                   struct bp_run_bench **arts)
{
  size_t unattached = 0;
  char *name = default_name(a);
  if(!name)
    return BPE_NOMEM;
  size_t nmarked = a->each_invocation ? 0 : a->nmarked;
  bp_code rc = bpi_run_attach_counters(rep, a->marked, nmarked, prof, name,
                                       arts, &unattached);
  free(name);
  if(rc)
    return rc;
  if(unattached > 1)
    bp_msg_warn("%zu benchmarks ran in one process: the counters cover all "
                "of them, so none is attached (run each benchmark in its "
                "own invocation, or mark them with benchprof/hooks.h, to get "
                "its counters)", unattached);
  else if(unattached)
    bp_msg_warn("a benchmark was not marked while others were: it gets no "
                "counters");
  return BP_OK;
}

/* How the run ended, for the manifest and the decision to publish. */
static const char *outcome_of(int status)
{
  if(bp_cli_interrupted())
    return BP_OUTCOME_INTERRUPTED;
  return status ? BP_OUTCOME_FAILED : BP_OUTCOME_PASSED;
}

/* Report and manifest; false when they could not be written. */
bool bp_cli_run_write_outputs(const struct bp_record_args *a,
                              const struct bp_report *rep,
                              const struct bp_profile *prof,
                              const struct bp_profile *any,
                              const struct bp_run_bench *arts, int status)
{
  struct bp_err err = {0};
  struct bp_run_facts f = {
    .dir = a->output, .report = rep, .benches = arts, .prof = prof,
    .written = &a->written, .any = any, .command = a->rec.argv[0],
    .outcome = outcome_of(status), .signal = bp_cli_interrupted(),
    .exit_status = status, .repeat = a->repeat,
  };
  bp_code rc = bpi_run_write_report(a->output, rep, &err);
  if(!rc)
    rc = bpi_run_write_manifest(&f, &err);
  if(rc) {
    bp_cli_run_say_own_err(a, &err, rc);
    return false;
  }
  bp_msg_note("report: %s/" BP_RUNDIR_REPORT " (%zu benchmark%s), manifest: "
              "%s/" BP_RUNDIR_MANIFEST, a->output, rep->nbenches,
              rep->nbenches == 1 ? "" : "s", a->output);
  return true;
}

/* The benchmarks the harness marked (a->marked, sliced from the profile
 * into their directories) as a report without measures and their lines
 * in *arts (malloc'd): an interrupted run's manifest lists their
 * directories, so that the next run in the same output directory
 * removes them.  False when out of memory. */
static bool marked_benches(const struct bp_record_args *a,
                           struct bp_report *rep, struct bp_run_bench **arts)
{
  *arts = calloc(a->nmarked ? a->nmarked : 1, sizeof(**arts));
  for(size_t i = 0; *arts && i < a->nmarked; i++) {
    const struct bp_marked *m = &a->marked[i];
    struct bp_bench *b = bpi_report_bench(rep, m->name);
    if(!b)
      return false;
    (*arts)[b - rep->benches] = (struct bp_run_bench){
      .dir = m->dir, .marked = m, .written = &m->written};
  }
  return *arts != NULL;
}

/* A run interrupted before the harness wrote its results (said by
 * bp_cli_run_load_results), or before every repetition or benchmark it
 * was to run did: manifest.json alone, marked interrupted, with the
 * profiles of what ran and no report.  It is never published nor
 * compared, even with --allow-failure: there are no results to publish
 * (or those of part of the run, which the store would hold as the
 * whole).  The command's exit status stays (benchprof did not fail); a
 * manifest that cannot be written is benchprof's own failure. */
int bp_cli_run_write_unreported(const struct bp_record_args *a,
                                const struct bp_cli_ran *ran, int status)
{
  struct bp_err err = {0};
  struct bp_report none;
  struct bp_run_bench *marked = NULL;
  bpi_report_init(&none);
  bool listed = ran->benches || marked_benches(a, &none, &marked);
  struct bp_run_facts f = {
    .dir = a->output, .report = ran->benches ? ran->benches : &none,
    .benches = ran->benches ? ran->arts : marked, .prof = ran->prof,
    .any = ran->any,
    .written = &a->written, .command = a->rec.argv[0],
    .outcome = BP_OUTCOME_INTERRUPTED, .signal = bp_cli_interrupted(),
    .exit_status = status, .repeat = a->repeat, .no_report = true,
  };
  bp_code rc = listed ? bpi_run_write_manifest(&f, &err)
                      : bpi_err_set(&err, BPE_NOMEM, 0, "manifest");
  bpi_report_cleanup(&none);
  free(marked);
  if(rc) {
    bp_cli_run_say_own_err(a, &err, rc);
    return bp_cli_run_own_failure(a, status);
  }
  bp_msg_note("manifest: %s/" BP_RUNDIR_MANIFEST " (no report)", a->output);
  if(a->pub.enabled)
    bp_msg_warn("the run was interrupted (exit status %d) %s: not "
                "published and not compared; its profile%s stay%s in %s, "
                "marked \"%s\" in " BP_RUNDIR_MANIFEST, status,
                ran->when ? ran->when
                          : "before the benchmark wrote its results",
                ran->benches || a->nmarked ? "s" : "",
                ran->benches || a->nmarked ? "" : "s",
                a->output, BP_OUTCOME_INTERRUPTED);
  return status;
}

/* After the report and manifest: publish them (unless --no-publish).  A
 * publication failure changes the status only with --strict, and never
 * hides the command's own failure.  *done: what became of it. */
int bp_cli_run_publish(const struct bp_record_args *a, const char *start,
                       const char *end, int status,
                       enum bp_cli_published *done)
{
  *done = BP_CLI_PUBLISH_DELIVERED;
  if(!a->pub.enabled)
    return status;
  *done = bp_cli_publish_run(&a->pub, a->output, start, end);
  if(*done != BP_CLI_PUBLISH_DELIVERED && a->pub.strict && status == 0)
    return BP_EXIT_ERROR;
  return status;
}

/* After publishing and the comparison, when either failed (each said
 * above, a warning or, strict, an error): one line that says which, and
 * what that did to the exit status, so that an operator reading the
 * job's log tells what failed the job from what did not.  before: the
 * command's status; after: the run's. */
static void say_step_failures(const struct bp_record_args *a, int before,
                              int after, bool publishing, bool comparison)
{
  if(!publishing && !comparison)
    return;
  const char *what = !comparison ? "publishing" : !publishing
    ? "the comparison" : "publishing and the comparison";
  const char *them = publishing && comparison ? "these" : "it";
  if(bp_cli_pub_failure_kept(&a->pub) && after == before)
    bp_msg_warn("the benchmark's exit status (%d) is kept although %s "
                "failed (above); --strict fails the job on %s", before,
                what, them);
  else if(bp_cli_pub_failure_kept(&a->pub))   /* --fail-on-regression's */
    bp_msg_warn("%s failed (above), which leaves the exit status alone; "
                "--strict fails the job on %s", what, them);
  else if(after != before)
    bp_msg_error("%s failed (above), and strict mode fails the job on %s: "
                 "exit status %d", what, them, after);
  else
    bp_msg_error("%s failed (above); the exit status is the benchmark's "
                 "(%d)", what, after);
}

/* Publish and compare a run that passed (any run with --allow-failure);
 * a failed or interrupted one stays in the run directory, said so.  The
 * exit status after both. */
/* A signal that came after the manifest was written, before publishing
 * took over the signals: the manifest is marked interrupted too, so
 * that it says why the run was not published.  Said when it cannot be. */
static void mark_interrupted(const struct bp_record_args *a)
{
  struct bp_err err = {0};
  struct bp_manifest m;
  const char *sig = bpi_rundir_signal_name(bp_cli_interrupted());
  /* a warning: the signal decides the exit status, not this */
  bp_code rc = bpi_manifest_read(&m, a->output, &err);
  if(rc) {
    bp_msg_warn_err(&err, rc);
    return;
  }
  if(!m.outcome || strcmp(m.outcome, BP_OUTCOME_INTERRUPTED)) {
    free(m.outcome);
    free(m.signal);
    m.outcome = strdup(BP_OUTCOME_INTERRUPTED);
    m.signal = sig ? strdup(sig) : NULL;
    rc = !m.outcome || (sig && !m.signal)
           ? bpi_err_set(&err, BPE_NOMEM, 0, "manifest")
           : bpi_manifest_write(&m, a->output, &err);
    if(rc)
      bp_msg_warn_err(&err, rc);
  }
  bpi_manifest_cleanup(&m);
}

/* Whether the run was interrupted before publishing began: checked with
 * the signals held, and publishing's own handlers put in before they are
 * let through, so a signal is either the run's (nothing is published,
 * the manifest says it) or publishing's (the request in flight is
 * abandoned, the publication spooled), never lost between the two. */
static bool interrupted_before_publishing(const struct bp_record_args *a)
{
  sigset_t saved;
  bp_cli_block_interrupts(true, &saved);
  bool stopped = bp_cli_interrupted() != 0;
  if(!stopped && a->pub.enabled)
    bp_cli_pub_catch_signals();
  bp_cli_block_interrupts(false, &saved);
  if(stopped)
    mark_interrupted(a);
  return stopped;
}

int bp_cli_run_publish_and_compare(const struct bp_record_args *a,
                                   const char *start, int status)
{
  interrupted_before_publishing(a);
  const char *outcome = outcome_of(status);
  if(strcmp(outcome, BP_OUTCOME_PASSED) && !a->allow_failure) {
    if(a->pub.enabled)
      bp_msg_warn("the run %s (exit status %d): not published and not "
                  "compared, so that it is never a baseline; its artifacts "
                  "stay in %s, marked \"%s\" in " BP_RUNDIR_MANIFEST
                  " (--allow-failure publishes it)",
                  strcmp(outcome, BP_OUTCOME_FAILED) ? "was interrupted"
                                                     : "failed",
                  status, a->output, outcome);
    return status;
  }
  if(!a->pub.enabled)
    return status;
  enum bp_cli_published done;
  bool compare_failed = false;
  char end[32];
  bp_cli_iso_now(end);
  int after = bp_cli_run_publish(a, start, end, status, &done);
  /* what stopped the publication (its targets, the identity's
   * detection) stops the comparison the same way: said once */
  if(done != BP_CLI_PUBLISH_NOTHING)
    after = bp_cli_run_compare(&a->pub, a->output, end, after,
                               &compare_failed);
  say_step_failures(a, status, after, done != BP_CLI_PUBLISH_DELIVERED,
                    compare_failed);
  return after;
}

/* Results or a report that could not be written: benchprof's own failure
 * fails a command that passed, unless --keep-status (not strict), which
 * keeps the command's status: a job that passes without benchprof passes
 * with it. */
int bp_cli_run_own_failure(const struct bp_record_args *a, int status)
{
  if(bp_cli_run_survives_own_failure(a)) {
    bp_msg_warn("no report for this run (nothing is published or "
                "compared); the job keeps the benchmark's exit status (%d) "
                "(--keep-status)", status);
    return status;
  }
  return status ? status : BP_EXIT_ERROR;  /* the command's failure wins */
}

/* A previous run's report, manifest and comparison never stay beside
 * this run's files, nor its comment.file copy. */
bool bp_cli_run_clear_previous(struct bp_record_args *a)
{
  struct bp_err err = {0};
  bp_cli_comment_file_clear(a->pub.config);
  bp_code rc = bpi_rundir_clear(a->output, &err);
  if(rc)
    bp_cli_setup_failed(a, &err, rc);
  return rc == BP_OK;
}

static int run_once(struct bp_record_args *a)
{
  char start[32];
  bp_cli_iso_now(start);
  struct captured out = { .too_big = false };
  bpi_buf_init(&out.buf);
  if(a->adapter != BP_ADAPTER_NONE) {
    a->rec.on_output = bp_cli_run_collect_output;
    a->rec.output_ctx = &out;
  }
  struct bp_profile *prof;
  if(!bp_cli_run_clear_previous(a)) {
    bpi_buf_cleanup(&out.buf);
    return BP_EXIT_ERROR;
  }
  if(bp_cli_interrupted()) {
    /* a signal while the previous run's files were removed: the
     * command is not started */
    bpi_buf_cleanup(&out.buf);
    return bp_cli_run_write_unreported(a, &(struct bp_cli_ran){0}, 0);
  }
  bp_cli_run_note_bmf(a, &out);
  int status = bp_cli_record(a, &prof);
  if(!prof || a->failed) {
    /* the command never ran, or its artifacts are incomplete: no report
     * points at them (bp_cli_record said why and set the status) */
    bpi_profile_free(prof);
    bpi_buf_cleanup(&out.buf);
    return status;
  }
  struct bp_report rep;
  struct bp_run_bench *arts = NULL;
  bpi_report_init(&rep);
  bool loaded = !bpi_buf_failed(&out.buf) &&
                bp_cli_run_load_results(a, &out, &rep);
  bool ok = loaded;
  if(ok) {
    bp_code rc = bp_cli_run_attach_counters(a, &rep, prof, &arts);
    if(rc)
      say_own(a, "report: %s", bp_strerror(rc));
    ok = !rc && bp_cli_run_write_outputs(a, &rep, prof, prof, arts, status);
    if(ok)
      status = bp_cli_run_publish_and_compare(a, start, status);
  }
  /* results an interrupted harness never wrote: no report, said so */
  if(!loaded && bp_cli_interrupted() && !bpi_buf_failed(&out.buf))
    status = bp_cli_run_write_unreported(
      a, &(struct bp_cli_ran){.prof = prof, .any = prof}, status);
  else if(!ok)
    status = bp_cli_run_own_failure(a, status);
  free(arts);
  bpi_report_cleanup(&rep);
  bpi_profile_free(prof);
  bpi_buf_cleanup(&out.buf);
  return status;
}

/* The option name and its value, when value is given on run's command
 * line: not NULL, and not the configuration's own (from), which flush
 * reads from the same file.  Copied: execv takes them as char *. */
static size_t add_flush_option(char **argv, size_t n, const char *name,
                               const char *value, const char *from)
{
  if(!value || value == from)
    return n;
  argv[n] = strdup(name);
  argv[n + 1] = strdup(value);
  return n + 2;
}

/* benchprof flush --retries 0 with run's --config FILE, and the --spool,
 * --ca-file and --token-env it was given: the spool the run published
 * into, sent as the run would have sent it (BENCHPROF_CONFIG and the
 * rest of the environment the child inherits).  NULL-terminated; *argv
 * NULL when out of memory. */
static void flush_argv(const struct bp_record_args *a, char **argv)
{
  const struct bp_cli_publish *p = &a->pub;
  const struct bp_config *c = p->config;
  size_t n = 0;
  argv[n++] = strdup("benchprof");
  argv[n++] = strdup("flush");
  argv[n++] = strdup("--retries");
  argv[n++] = strdup("0");
  n = add_flush_option(argv, n, "--config", a->config_file, NULL);
  n = add_flush_option(argv, n, "--spool", p->spool, c ? c->spool : NULL);
  n = add_flush_option(argv, n, "--ca-file", p->ca_file,
                       c ? c->network.ca_file : NULL);
  n = add_flush_option(argv, n, "--token-env", p->token_env,
                       c ? c->bencher.token_env : NULL);
  argv[n] = NULL;
  for(size_t i = 0; i < n; i++)
    if(!argv[i]) {
      for(size_t k = 0; k < n; k++)
        free(argv[k]);
      argv[0] = NULL;
      return;
    }
}

/* Whether the spool the flush would read (--spool's, the
 * configuration's, else the default one) does not exist.  Then nothing
 * was ever spooled there and there is nothing to flush: a flush that
 * says so, or (for --spool DIR) that calls it an error, would only put
 * noise in the job's log after a run that spooled nothing.  A spool that
 * cannot be named or read otherwise is the flush's to say. */
static bool spool_absent(const struct bp_cli_publish *p)
{
  struct bp_err err = {0};
  struct stat st;
  char *dflt = NULL;
  const char *dir = p->spool;
  if(!dir && !bpi_publish_default_spool(environ, &dflt, &err))
    dir = dflt;
  bool absent = dir && stat(dir, &st) < 0 && errno == ENOENT;
  if(absent && p->verbose)
    bp_msg_note("--flush: the spool directory %s does not exist: nothing "
                "to flush", dir);
  free(dflt);
  return absent;
}

/* --flush: the one more try at the spool that benchprof-wrap made after
 * benchprof run returned.  Run makes it so that the wrapper can exec
 * benchprof run: a signal sent to the wrapper's PID (a cancelled CI job)
 * is then benchprof's to pass on to the command, and SIGKILL kills
 * benchprof, whose command dies with it (PR_SET_PDEATHSIG, sampler.c).
 * The flush gets run's --config and spool options (flush_argv), or it
 * would send the default configuration's spool, not the run's.  Its
 * output goes to stderr and its failure never changes our status: it
 * is a child, so a flush that cannot deliver leaves the run's as it is. */
static void flush_spool_once(const struct bp_record_args *a)
{
  char *argv[16];
  if(spool_absent(&a->pub))
    return;
  flush_argv(a, argv);
  if(!argv[0]) {
    bp_msg_warn("--flush: cannot start 'benchprof flush': %s",
                strerror(ENOMEM));
    return;
  }
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if(pid == 0) {
    if(dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
      _exit(127);
    execv("/proc/self/exe", argv);
    _exit(127);
  }
  if(pid < 0)
    bp_msg_warn("--flush: cannot start 'benchprof flush': %s",
                strerror(errno));
  int st;
  while(pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
    ;
  for(size_t i = 0; argv[i]; i++)
    free(argv[i]);
}

/* Profiling is off (or the configuration unusable): become CMD, so that
 * its PID, stdio, signals and exit status are what they would be without
 * benchprof, and nothing is measured or written. */
static int exec_unprofiled(char *const *argv)
{
  struct bp_err err = {0};
  fflush(stdout);
  fflush(stderr);
  execvp(argv[0], argv);
  bpi_err_set(&err, BPE_EXEC, errno, "%s", argv[0]);
  return bp_cli_exec_failure(&err, argv[0]);
}

/* The command runs unprofiled in our place after a setup that failed
 * (--keep-status): --flush's try at the spool comes first, as nothing of
 * ours runs after the exec (the wrappers that exec benchprof run --flush
 * flushed after any run before). */
static int exec_unprofiled_flushed(const struct bp_record_args *a)
{
  if(a->flush_after)
    flush_spool_once(a);
  return exec_unprofiled(a->rec.argv);
}

/* benchprof's own setup failed before any command was started (the
 * output directory, the control FIFO, the events; said why): with
 * --keep-status, not strict, the command then runs as it would without
 * benchprof, and its exit status is ours. */
static int run_after_setup_failure(struct bp_record_args *a, int status)
{
  if(!a->setup_failed || a->started || !bp_cli_setup_survivable(a))
    return status;
  bp_msg_warn("profiling could not be set up; running the command "
              "unprofiled (--keep-status)");
  return exec_unprofiled_flushed(a);
}

/* A run with a suite writes into the configured output directory's
 * suite=NAME (rundir.h), so that the next step of the job, another suite
 * or none, clears and rewrites only its own run, comparison and comment,
 * and the completed hooks find each.  -o names the directory itself.
 * False when out of memory (said). */
static bool suite_output(struct bp_record_args *a)
{
  const char *suite = a->pub.suite;
  if(a->output_given || !suite || !*suite)
    return true;
  if(!(a->suite_output = bpi_rundir_suite_dir(a->output, suite))) {
    bp_msg_error("the output directory of suite '%s': %s", suite,
                 bp_strerror(BPE_NOMEM));
    return false;
  }
  a->output = a->suite_output;
  return true;
}

/* The identity's CI variables, checked before the command runs (a
 * commit hash that is not one would otherwise be found only after the
 * benchmark): -1 to go on, else the exit status.  --keep-status (not
 * strict) keeps its promise: the command then runs unprofiled. */
static int early_identity(struct bp_record_args *a)
{
  if(!a->pub.enabled)
    return -1;
  bool runs_anyway = !a->check_options && bp_cli_setup_survivable(a);
  int st = bp_cli_publish_ident_early(&a->pub, runs_anyway);
  if(!st)
    return -1;
  if(!runs_anyway) {
    bp_msg_note("fix the variable (a commit hash may instead be given "
                "with --hash or --base-hash, which win)%s",
                a->check_options ? "" : "; the command was not run");
    return st;
  }
  bp_msg_warn("running the command unprofiled (--keep-status)");
  return exec_unprofiled_flushed(a);
}

/* The CA bundle publishing will use, read before the command runs: a
 * missing one would otherwise show only as "error setting certificate
 * file" on every request, the publication spooled.  False (said) when it
 * cannot be read; the run goes on (its publication spools until the file
 * is fixed) unless strict: a warning then, as the publication's failure
 * will be, an error when strict stops the run. */
static bool ca_file_readable(const struct bp_cli_publish *p)
{
  if(!p->enabled || !p->ca_file)
    return true;
  const char *key = p->config && p->ca_file == p->config->network.ca_file
    ? "network.ca_file" : "--ca-file";
  struct bp_err err = {0};
  if(!bpi_http_ca_file_check(p->ca_file, key, &err))
    return true;
  bp_cli_pub_say_failure(p, "%s", err.msg);
  if(!p->strict)
    bp_msg_warn("publishing will fail until it is fixed (what is not "
                "delivered stays spooled)");
  return false;
}

int cmd_run(int argc, char **argv)
{
  struct bp_record_args a;
  struct bp_config cfg;
  enum bp_cli_config cs;
  bp_cli_record_defaults(&a, true);
  int status = bp_cli_record_setup(argc, argv, &a, &cfg,
                                   "running the command unprofiled", &cs);
  /* first, so that nothing runs on after a parent that died meanwhile;
   * it holds for a command that is then executed in our place too */
  if(status < 0 && !a.check_options && a.die_with_parent)
    status = bp_cli_die_with_parent(a.die_with_parent);
  if(status < 0 && cs != BP_CLI_CONFIG_INVALID && cfg.enabled)
    status = early_identity(&a);
  if(status < 0 && a.check_options)
    status = BP_EXIT_OK;   /* usable; nothing is run */
  else if(status < 0 && (cs == BP_CLI_CONFIG_INVALID || !cfg.enabled))
    status = exec_unprofiled(a.rec.argv);
  else if(status < 0 && !suite_output(&a))
    status = BP_EXIT_ERROR;
  else if(status < 0 && !ca_file_readable(&a.pub) && a.pub.strict)
    status = BP_EXIT_ERROR;
  else if(status < 0) {
    /* a cancelled job's signal ends the run as an interrupted one at any
     * moment of it: between invocations and while the artifacts are
     * written too, not only while a command runs */
    bp_cli_guard_interrupts();
    status = a.each ? bp_cli_run_each(&a) : a.repeat > 1 ?
             bp_cli_run_repeated(&a) : run_once(&a);
    if(!bp_cli_interrupted())
      status = run_after_setup_failure(&a, status);
    bp_cli_unguard_interrupts();
    status = bp_cli_interrupted_status(status);
    /* a cancelled job does nothing more */
    if(a.flush_after && !bp_cli_interrupted())
      flush_spool_once(&a);
  }
  bp_cli_record_cleanup(&a);
  bp_cli_record_args_free(&a);
  bpi_config_cleanup(&cfg);
  return status;
}
