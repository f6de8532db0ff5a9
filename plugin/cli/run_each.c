/* benchprof run --each google-benchmark: list the harness's benchmarks
 * (CMD --benchmark_list_tests), record each in an invocation of its own
 * (--benchmark_filter=^NAME$) into DIR/<benchmark>/, then one report and
 * manifest for all of them.  With --repeat N each benchmark's invocation
 * runs N times (run_repeat.c): one merged profile per benchmark, its
 * measures' N values kept, their median and least..largest reported. */
#include "bp_setup.h"
#include "cli.h"
#include "msgs.h"
#include "run_int.h"

#include "buf.h"
#include "config.h"
#include "err.h"
#include "export.h"
#include "fileio.h"
#include "control.h"
#include "report.h"
#include "record.h"
#include "rundir.h"
#include "symbols.h"
#include "text.h"

#include <cjson/cJSON.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>



/* The harness's benchmarks, one name a line of CMD --benchmark_list_tests. */
static int list_benchmarks(char *const *argv, struct bp_buf *names,
                           size_t *n)
{
  size_t argc = 0;
  while(argv[argc])
    argc++;
  char **list = calloc(argc + 2, sizeof(*list));
  if(!list)
    return BP_EXIT_ERROR;
  memcpy(list, argv, argc * sizeof(*list));
  list[argc] = (char *)"--benchmark_list_tests=true";
  int st = bp_cli_capture(list, names);
  free(list);
  if(st) {
    bp_msg_error("listing the benchmarks (%s --benchmark_list_tests=true) "
                 "%s %d", argv[0], st < 0 ? "failed:" : "exited with",
                 st < 0 ? errno : st);
    return st > 0 ? st : BP_EXIT_ERROR;
  }
  if(bpi_buf_failed(names))
    return BP_EXIT_ERROR;
  /* lines become strings; empty ones are dropped */
  *n = 0;
  for(size_t i = 0; i < names->len; i++)
    if(names->data[i] == '\n' || names->data[i] == '\r')
      names->data[i] = '\0';
  for(size_t i = 0; i < names->len; i += strlen(names->data + i) + 1)
    *n += names->data[i] != '\0';
  return 0;
}

/* "--benchmark_filter=^NAME$" with NAME's regex characters escaped. */
static char *filter_arg(const char *name)
{
  struct bp_buf b;
  bpi_buf_init(&b);
  bpi_buf_adds(&b, "--benchmark_filter=^");
  for(const char *p = name; *p; p++) {
    if(strchr("\\^$.|?*+()[]{}", *p))
      bpi_buf_addc(&b, '\\');
    bpi_buf_addc(&b, *p);
  }
  bpi_buf_addc(&b, '$');
  if(bpi_buf_failed(&b)) {
    bpi_buf_cleanup(&b);
    return NULL;
  }
  return b.data;
}

struct each_run {
  struct bp_report rep;
  struct bp_run_bench *arts;   /* one per benchmark of rep */
  size_t narts;                /* how many of arts are set (rep's count
                                  unless out of memory) */
  struct bp_profile **profs;
  /* profs[i]'s artifacts as their export recorded them (arts point here) */
  struct bp_export_record *written;
  size_t nprofs;
  struct cJSON **values;    /* --repeat: each benchmark's {SLUG: [values]} */
  size_t nvalues;
  int status;               /* the first non-zero exit status */
  bool ok;                  /* every invocation's results read */
  bool setup_failed;        /* an invocation's setup failed (record.c) */
  bool started;             /* an invocation's command was started */
};

/* One invocation of the benchmark (sub): its report, its profile, its
 * exit status; false when its results are missing. */
static bool record_once(struct bp_record_args *sub, struct bp_report *rep,
                        struct bp_profile **prof, int *status)
{
  struct captured out = { .too_big = false };
  bpi_buf_init(&out.buf);
  sub->rec.on_output = bp_cli_run_collect_output;
  sub->rec.output_ctx = &out;
  *status = bp_cli_record(sub, prof);
  bool ok = *prof && !sub->failed && !bpi_buf_failed(&out.buf) &&
            bp_cli_run_load_results(sub, &out, rep);
  sub->rec.on_output = NULL;
  sub->rec.output_ctx = NULL;
  bpi_buf_cleanup(&out.buf);
  return ok;
}

/* --repeat N: the invocation N times, like a plain run's (run_repeat.c):
 * each repetition's counters are in its report, rep has their medians;
 * *values: the benchmark's {SLUG: [values]} when the harness reported it
 * as name (e->values owns it).  *stopped: a signal stopped the
 * repetitions before each had its results (*prof: what ran, written). */
static bool record_repeated(struct bp_record_args *sub, struct each_run *e,
                            const char *name, struct bp_report *rep,
                            struct bp_profile **prof, int *status,
                            const struct cJSON **values, bool *stopped)
{
  struct bp_repeated r;
  bool ok = bp_cli_run_repeat_record(sub, &r);
  *status = r.status;
  *stopped = r.interrupted;
  for(size_t i = 0; ok && i < r.nvalues; i++)
    if(!strcmp(r.rep.benches[i].name, name)) {
      struct cJSON **v = realloc(e->values,
                                 (e->nvalues + 1) * sizeof(*v));
      ok = v != NULL;
      if(ok) {
        e->values = v;
        *values = v[e->nvalues++] = r.values[i];
        r.values[i] = NULL;
      }
    }
  *rep = r.rep;
  bpi_report_init(&r.rep);
  *prof = r.merged;
  r.merged = NULL;
  bp_cli_run_repeated_cleanup(&r);
  return ok;
}

/* Benchmark name's line in e: its profile (taken) in dir, its exit
 * status; with counters, the invocation's counters added to its
 * measures.  had: e->rep's benchmarks before this invocation's results
 * were added.  False without memory. */
static bool list_benchmark(struct each_run *e, size_t had, const char *name,
                           const char *dir, struct bp_profile *prof,
                           int status, const struct cJSON *values,
                           const struct bp_export_record *written,
                           bool counters)
{
  struct bp_bench *b = bpi_report_bench(&e->rep, name);
  struct bp_run_bench *arts = realloc(e->arts, (e->rep.nbenches + 1) *
                                                sizeof(*arts));
  if(arts) {
    e->arts = arts;
    memset(arts + had, 0, (e->rep.nbenches - had) * sizeof(*arts));
  }
  if(!b || !arts ||
     (counters && bpi_run_add_counters(b, prof->meta.counters,
                                       prof->meta.ncounters)))
    return false;
  e->written[e->nprofs] = *written;
  arts[b - e->rep.benches] = (struct bp_run_bench){
    .dir = dir, .prof = prof, .exit_status = status, .repetitions = values,
    .written = &e->written[e->nprofs]};
  e->profs[e->nprofs++] = prof;
  e->narts = e->rep.nbenches;
  return true;
}

/* Record one benchmark in DIR/dir (a->repeat times); its results and
 * counters into e.  One interrupted before its results were read is
 * listed all the same (its profile is what ran), with e->ok false. */
static void run_one(const struct bp_record_args *a, struct each_run *e,
                    const char *name, const char *dir)
{
  size_t argc = 0;
  while(a->rec.argv[argc])
    argc++;
  char *path = bpi_text_path_join(a->output, dir);
  char *filter = filter_arg(name);
  char **argv = calloc(argc + 3, sizeof(*argv));
  struct bp_record_args sub = *a;
  struct bp_profile *prof = NULL;
  struct bp_report rep;
  const struct cJSON *values = NULL;
  int st = 0;
  bpi_report_init(&rep);
  sub.marked = NULL;
  sub.nmarked = 0;
  sub.each_invocation = true;
  if(!path || !filter || !argv) {
    bp_msg_error("%s: out of memory", dir);
    e->ok = false;
    goto out;
  }
  struct bp_err err = {0};
  if(bpi_file_mkdirs(a->output, &err) ||
     bpi_rundir_note_bench_dirs(a->output, &dir, 1, &err) ||
     bpi_file_mkdirs_under(a->output, dir, &err)) {
    bp_cli_setup_failed(&sub, &err, err.code);
    e->setup_failed = true;
    e->ok = false;
    goto out;
  }
  memcpy(argv, a->rec.argv, argc * sizeof(*argv));
  argv[argc] = filter;
  argv[argc + 1] = (char *)"--benchmark_format=json";
  sub.rec.argv = argv;
  sub.output = path;
  sub.adapter = BP_ADAPTER_GBENCH;
  bool stopped = false;
  bool ok = a->repeat > 1
              ? record_repeated(&sub, e, name, &rep, &prof, &st, &values,
                                &stopped)
              : record_once(&sub, &rep, &prof, &st);
  if(a->repeat <= 1)
    stopped = !ok && prof && !sub.failed && bp_cli_interrupted();
  e->setup_failed = e->setup_failed || sub.setup_failed;
  e->started = e->started || sub.started;
  if(st && !e->status)
    e->status = st;
  size_t had = e->rep.nbenches;
  ok = ok && !bpi_report_commit(&e->rep, &rep);
  /* counters measure the whole invocation: the benchmark's (repeated:
   * the repetitions' medians are in already, the sums are not wanted) */
  if((ok || stopped) &&
     list_benchmark(e, had, name, dir, prof, st, values, &sub.written,
                    ok && a->repeat <= 1))
    prof = NULL;
  else
    ok = false;
  if(!ok)
    e->ok = false;
out:
  bpi_profile_free(prof);
  bp_cli_record_cleanup(&sub);
  bpi_report_cleanup(&rep);
  free(path);
  free(argv);
  free(filter);
}

/* The run was interrupted in benchmark ran of n (dir) before every
 * benchmark had its results: the manifest lists those that ran, with no
 * report; the exit status. */
static int write_interrupted(const struct bp_record_args *a,
                             const struct each_run *e, size_t ran, size_t n,
                             const char *dir)
{
  char when[128];
  /* the signal came while benchmark ran's command ran, or after it
   * (between two, while its profile was written), or before the first */
  if(!ran)
    snprintf(when, sizeof(when), "before benchmark 1 of %zu", n);
  else
    snprintf(when, sizeof(when), "%s benchmark %zu of %zu (%.64s)",
             bp_cli_interrupted_in_command() ? "in" : "after", ran, n,
             dir);
  bp_msg_warn("the run was interrupted %s: no report (the results of part "
              "of the benchmarks are not the run's); the profiles of those "
              "that ran are kept", when);
  return bp_cli_run_write_unreported(
    a, &(struct bp_cli_ran){.any = e->nprofs ? e->profs[0] : NULL,
                            .benches = &e->rep,
                            .arts = e->arts, .when = when}, e->status);
}

int bp_cli_run_each(struct bp_record_args *a)
{
  struct bp_buf names;
  struct each_run e = {.ok = true};
  char **dirs = NULL;
  const char **list = NULL;
  size_t n = 0;
  char start[32];
  bp_cli_iso_now(start);
  bpi_buf_init(&names);
  bpi_report_init(&e.rep);
  int status = bp_cli_run_clear_previous(a) ? 0 : BP_EXIT_ERROR;
  /* the benchmarks' folders are made under it (bpi_file_mkdirs_under);
   * made before the harness is listed: a directory that cannot be made
   * is benchprof's own failure, found before anything runs */
  struct bp_err err = {0};
  if(!status && bpi_file_mkdirs(a->output, &err)) {
    bp_cli_setup_failed(a, &err, err.code);
    status = BP_EXIT_ERROR;
  }
  if(!status)
    status = list_benchmarks(a->rec.argv, &names, &n);
  if(!status && !n) {
    bp_msg_error("%s lists no benchmarks", a->rec.argv[0]);
    status = BP_EXIT_ERROR;
  }
  if(status)
    goto out;
  list = calloc(n, sizeof(*list));
  e.profs = calloc(n, sizeof(*e.profs));
  e.written = calloc(n, sizeof(*e.written));
  for(size_t i = 0, k = 0; list && i < names.len;
      i += strlen(names.data + i) + 1)
    if(names.data[i])
      list[k++] = names.data + i;
  if(!list || !e.profs || !e.written ||
     bpi_control_dirnames(list, n, bpi_rundir_reserved_names, &dirs)) {
    status = BP_EXIT_ERROR;
    goto out;
  }
  /* one symbolizer for every invocation: the harness's symbol tables
   * (and its libraries') are read once, not once per benchmark */
  struct bp_symbols *sym = NULL;
  if(bpi_record_symbols_new(&a->rec, &sym)) {
    bp_msg_error("out of memory");
    status = BP_EXIT_ERROR;
    goto out;
  }
  a->rec.symbols = sym;
  size_t ran = 0;
  /* a signal (a cancelled job) ends the run: no benchmark is started
   * after it */
  for(size_t i = 0; i < n && !bp_cli_interrupted(); i++) {
    bp_msg_note("benchmark %zu of %zu: %s", i + 1, n, dirs[i]);
    run_one(a, &e, list[i], dirs[i]);
    ran = i + 1;
    /* the first invocation could not even be set up: none would be
     * (the caller then runs the command unprofiled) */
    if(e.setup_failed && !e.started && bp_cli_setup_survivable(a))
      break;
  }
  a->rec.symbols = NULL;
  bpi_symbols_free(sym);
  a->setup_failed = a->setup_failed || e.setup_failed;
  a->started = a->started || e.started;
  status = e.status;
  if(a->setup_failed && !a->started) {
    /* nothing ran: the caller runs the command unprofiled, or fails */
    status = status ? status : BP_EXIT_ERROR;
    goto out;
  }
  /* a benchmark the harness reported under another name has no profile */
  for(size_t i = 0; i < e.narts; i++)
    if(!e.arts[i].dir)
      e.arts[i].dir = ".";
  if(bp_cli_interrupted() && (!e.ok || ran < n) &&
     e.narts == e.rep.nbenches)
    status = write_interrupted(a, &e, ran, n, ran ? dirs[ran - 1] : NULL);
  else if(!e.ok || !e.nprofs ||
     !bp_cli_run_write_outputs(a, &e.rep, NULL, e.profs[0], e.arts, status))
    status = bp_cli_run_own_failure(a, status);
  else
    status = bp_cli_run_publish_and_compare(a, start, status);
out:
  for(size_t i = 0; i < e.nprofs; i++)
    bpi_profile_free(e.profs[i]);
  free(e.profs);
  free(e.written);
  for(size_t i = 0; i < e.nvalues; i++)
    cJSON_Delete(e.values[i]);
  free(e.values);
  free(e.arts);
  bpi_control_dirnames_free(dirs, n);
  free(list);
  bpi_report_cleanup(&e.rep);
  bpi_buf_cleanup(&names);
  return status;
}
