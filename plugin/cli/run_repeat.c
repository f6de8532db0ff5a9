/* run_repeat: `benchprof run --repeat N`: the command N times, every
 * repetition profiled into one profile (a repetition marker each), the
 * benchmarks the harness marked sliced from it (each one's profile covers
 * all repetitions), every measure's N values kept; report.json has their
 * median and least..largest, so that a pull request's comparison can test
 * its changes (compare.c).  --each repeats each benchmark's invocation
 * the same way (bp_cli_run_repeat_record, from run_each.c). */
#include "bp_setup.h"
#include "cli.h"
#include "msgs.h"
#include "run_int.h"
#include "buf.h"
#include "err.h"
#include "export.h"
#include "profile_merge.h"
#include "report.h"
#include "rundir.h"
#include "slice.h"
#include "stats.h"
#include "symbols.h"

#include <cjson/cJSON.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The repetitions of one run: each one's report, the merged profile. */
struct repeated {
  struct bp_report *reps;     /* one per repetition */
  size_t n;
  struct bp_profile *merged;  /* the first repetition's, the rest added */
  struct bp_profile *last;    /* the last one's (a->marked points in it) */
  int status;                 /* the first non-zero exit status */
  size_t done;                /* repetitions whose results were read */
  cJSON *off_cpu;             /* --off-cpu: {bench: [blocked ns per run of
                                 each repetition]}, else NULL */
};

static const struct bp_measure *rep_measure(const struct bp_report *r,
                                            const char *bench,
                                            const char *slug)
{
  for(size_t i = 0; i < r->nbenches; i++) {
    if(strcmp(r->benches[i].name, bench))
      continue;
    for(size_t j = 0; j < r->benches[i].nmeasures; j++)
      if(!strcmp(r->benches[i].measures[j].slug, slug))
        return &r->benches[i].measures[j];
  }
  return NULL;
}

/* One measure over the repetitions: the median as the value, the least
 * and largest as the bounds, every value in list; false when a
 * repetition lacks it (then the last repetition's stays, unbounded). */
static bool combine_measure(const struct repeated *rp, const char *bench,
                            struct bp_measure *m, cJSON *list)
{
  double *v = malloc(rp->n * sizeof(*v));
  if(!v)
    return false;
  for(size_t i = 0; i < rp->n; i++) {
    const struct bp_measure *x = rep_measure(&rp->reps[i], bench, m->slug);
    if(!x) {
      free(v);
      return false;
    }
    v[i] = x->value;
    cJSON_AddItemToArray(list, cJSON_CreateNumber(x->value));
  }
  m->value = bpi_stats_median(v, rp->n);   /* sorts v */
  m->has_lower = m->has_upper = true;
  m->lower = v[0];
  m->upper = v[rp->n - 1];
  free(v);
  return true;
}

/* The iterations benchmark out ran in all repetitions (the merged
 * profile covers them all) and their mean CPU time into out (the last
 * repetition's own entry: read before it is set); 0 when a repetition
 * does not say. */
static void total_iterations(const struct repeated *rp, struct bp_bench *out)
{
  double sum = 0, cpu = 0;
  const char *bench = out->name;
  for(size_t i = 0; i < rp->n; i++) {
    const struct bp_bench *b = NULL;
    for(size_t k = 0; k < rp->reps[i].nbenches && !b; k++)
      if(!strcmp(rp->reps[i].benches[k].name, bench))
        b = &rp->reps[i].benches[k];
    if(!b || !(b->iterations > 0)) {
      out->iterations = out->iteration_cpu_ns = 0;
      return;
    }
    sum += b->iterations;
    cpu += b->iterations * b->iteration_cpu_ns;
  }
  out->iterations = sum;
  out->iteration_cpu_ns = cpu > 0 ? cpu / sum : 0;
}

/* The report: the last repetition's (moved to out), each measure
 * combined over all of them, the iterations summed; (*reps)[b]
 * benchmark b's {SLUG: [values]} (the caller deletes them). */
static bool combine_reports(struct repeated *rp, struct bp_report *out,
                            cJSON ***reps)
{
  /* out shares the last report's measures: each is read, then set */
  *out = rp->reps[rp->n - 1];
  bool ok = (*reps = calloc(out->nbenches ? out->nbenches : 1,
                            sizeof(**reps))) != NULL;
  for(size_t b = 0; ok && b < out->nbenches; b++) {
    struct bp_bench *bench = &out->benches[b];
    ok = ((*reps)[b] = cJSON_CreateObject()) != NULL;
    total_iterations(rp, bench);
    for(size_t j = 0; ok && j < bench->nmeasures; j++) {
      cJSON *list = cJSON_CreateArray();
      ok = list != NULL;
      if(ok && combine_measure(rp, bench->name, &bench->measures[j], list))
        cJSON_AddItemToObject((*reps)[b], bench->measures[j].slug, list);
      else
        cJSON_Delete(list);
    }
    /* --off-cpu: the blocked ns of every repetition, as a measure's */
    const cJSON *off = cJSON_GetObjectItemCaseSensitive(rp->off_cpu,
                                                        bench->name);
    if(ok && cJSON_GetArraySize(off) == (int)rp->n)
      ok = cJSON_AddItemToObject((*reps)[b], BP_OFF_CPU_SLUG,
                                 cJSON_Duplicate(off, true));
  }
  bpi_report_init(&rp->reps[rp->n - 1]);   /* moved to out */
  return ok;
}

static int by_range_start(const void *a, const void *b)
{
  uint64_t x = ((const struct bp_range *)a)->start_ns;
  uint64_t y = ((const struct bp_range *)b)->start_ns;
  return x < y ? -1 : x > y;
}

/* The ns benchmark name spent blocked per run in one repetition's
 * profile: in the time ranges marked with its name, per range; the
 * whole profile when nothing was marked; -1 when others were marked but
 * it was not, or on error. */
static double blocked_per_run(const struct bp_profile *p, const char *name)
{
  if(!bpi_profile_benchmark_markers(p)) {
    uint64_t pre, all = bpi_profile_off_ns(p, &pre);
    return (double)(all - pre);
  }
  struct bp_range *r = malloc(p->nmarkers * sizeof(*r));
  size_t n = 0;
  for(size_t i = 0; r && i < p->nmarkers; i++)
    if(p->markers[i].kind == BP_MARKER_BENCHMARK &&
       !strcmp(p->markers[i].name, name))
      r[n++] = (struct bp_range){p->markers[i].start_ns,
                                 p->markers[i].end_ns};
  double ns = -1;
  if(n) {
    qsort(r, n, sizeof(*r), by_range_start);
    ns = (double)bpi_profile_off_blocked_in(p, r, n) / (double)n;
  }
  free(r);
  return ns;
}

/* --off-cpu: each benchmark's blocked ns per run in this repetition,
 * appended to rp->off_cpu (the measure "off-cpu" a comparison tests). */
static bool keep_off_cpu(struct repeated *rp, const struct bp_report *rep,
                         const struct bp_profile *p)
{
  if(!p->meta.off_cpu)
    return true;
  if(!rp->off_cpu && !(rp->off_cpu = cJSON_CreateObject()))
    return false;
  for(size_t b = 0; b < rep->nbenches; b++) {
    double ns = blocked_per_run(p, rep->benches[b].name);
    if(ns < 0)
      continue;
    cJSON *list = cJSON_GetObjectItemCaseSensitive(rp->off_cpu,
                                                   rep->benches[b].name);
    if(!list && !(list = cJSON_AddArrayToObject(rp->off_cpu,
                                                rep->benches[b].name)))
      return false;
    cJSON *v = cJSON_CreateNumber(ns);
    if(!v || !cJSON_AddItemToArray(list, v)) {
      cJSON_Delete(v);
      return false;
    }
  }
  return true;
}

/* Its profile into the merged one, marked name: the first becomes it.
 * A failure is benchprof's own (bp_cli_run_own_failure: a warning when
 * the job keeps the command's status). */
static bool merge_repetition(const struct bp_record_args *a,
                             struct repeated *rp, struct bp_profile **prof,
                             const char *name)
{
  bp_code rc;
  if(!rp->merged) {
    struct bp_profile *p = *prof;
    rc = bpi_profile_add_marker_kind(p, BP_MARKER_REPETITION, name,
                                     p->meta.start_ns, p->meta.end_ns,
                                     p->meta.counters, p->meta.ncounters);
    rp->merged = p;
    *prof = NULL;
  }
  else
    rc = bpi_profile_merge(rp->merged, *prof, name);
  if(rc) {
    struct bp_err err = {0};
    bpi_err_set(&err, rc, 0, "merging %s", name);
    bp_cli_run_say_own_err(a, &err, rc);
  }
  return rc == BP_OK;
}

/* Record the command once more: its report into rp->reps[i] and its
 * profile into the merged one, marked "repetition i+1".  One that was
 * interrupted before its results were read still joins the merged
 * profile (what ran, marked "repetition i+1 (interrupted)"): the run's
 * manifest lists it, with no report. */
static bool repeat_once(struct bp_record_args *a, struct repeated *rp,
                        size_t i)
{
  struct captured out = {.too_big = false};
  struct bp_profile *prof = NULL;
  char marker[48];
  bpi_buf_init(&out.buf);
  if(a->adapter != BP_ADAPTER_NONE) {
    a->rec.on_output = bp_cli_run_collect_output;
    a->rec.output_ctx = &out;
  }
  bp_cli_record_cleanup(a);      /* the previous repetition's marks */
  bp_msg_note("repetition %zu of %zu", i + 1, rp->n);
  bp_cli_run_note_bmf(a, &out);
  int st = bp_cli_record(a, &prof);
  if(st && !rp->status)
    rp->status = st;
  bool usable = prof && !a->failed && !bpi_buf_failed(&out.buf);
  bool ok = usable && bp_cli_run_load_results(a, &out, &rp->reps[i]);
  /* this repetition's counters, while its profile and marks are here */
  struct bp_run_bench *arts = NULL;
  if(ok && bp_cli_run_attach_counters(a, &rp->reps[i], prof, &arts))
    ok = false;
  free(arts);
  if(ok && !keep_off_cpu(rp, &rp->reps[i], prof))
    ok = false;
  bool stopped = !ok && usable && bp_cli_interrupted();
  snprintf(marker, sizeof(marker), "repetition %zu%s", i + 1,
           stopped ? " (interrupted)" : "");
  if((ok || stopped) && !merge_repetition(a, rp, &prof, marker))
    ok = false;
  rp->done += ok;
  bpi_profile_free(rp->last);
  rp->last = prof;               /* kept: a->marked names point in it */
  bpi_buf_cleanup(&out.buf);
  a->rec.on_output = NULL;
  a->rec.output_ctx = NULL;
  return ok;
}

/* The merged profile's artifacts replace the last repetition's in
 * a->output, and each benchmark the harness marked is sliced from it
 * again (a->marked): its profile and counters cover every repetition. */
static bool export_merged(struct bp_record_args *a, struct repeated *rp)
{
  struct bp_err err = {0};
  bp_code rc = bpi_export_all(rp->merged, a->output, &a->written, &err);
  if(!rc) {
    bp_cli_record_cleanup(a);      /* the last repetition's marks */
    rc = bpi_slice_export_noted(rp->merged, a->output, true, &a->marked,
                                &a->nmarked, &err);
  }
  if(rc)
    bp_cli_run_say_own_err(a, &err, rc);
  return rc == BP_OK;
}

bool bp_cli_run_repeat_record(struct bp_record_args *a,
                              struct bp_repeated *out)
{
  struct repeated rp = {.n = a->repeat > 1 ? a->repeat : 1};
  *out = (struct bp_repeated){.status = 0};
  bpi_report_init(&out->rep);
  rp.reps = calloc(rp.n, sizeof(*rp.reps));
  bool ok = rp.reps != NULL;
  /* the repetitions share a symbolizer (--each's when it has one): the
   * command's symbol tables are read once, not once per repetition */
  struct bp_symbols *own_sym = NULL;
  if(ok && !a->rec.symbols) {
    ok = bpi_record_symbols_new(&a->rec, &own_sym) == BP_OK;
    a->rec.symbols = own_sym;
  }
  for(size_t i = 0; rp.reps && i < rp.n; i++)
    bpi_report_init(&rp.reps[i]);
  /* a signal (a cancelled job) ends the repetitions: none is started
   * after it */
  for(size_t i = 0; ok && i < rp.n && !bp_cli_interrupted(); i++) {
    ok = repeat_once(a, &rp, i);
    out->ran = i + 1;
  }
  if(own_sym) {
    a->rec.symbols = NULL;
    bpi_symbols_free(own_sym);
  }
  out->done = rp.done;
  /* interrupted before every repetition's results were read: no report
   * (fewer repetitions than asked are not the run's), the merged profile
   * of what ran is written all the same */
  if(bp_cli_interrupted() && rp.done < rp.n && !a->failed) {
    /* none merged: the signal came before the first repetition */
    out->interrupted = !rp.merged || export_merged(a, &rp);
    ok = false;
  }
  ok = ok && combine_reports(&rp, &out->rep, &out->values);
  if(out->values)
    out->nvalues = out->rep.nbenches;
  ok = ok && export_merged(a, &rp);
  out->status = rp.status;
  out->merged = rp.merged;
  for(size_t i = 0; rp.reps && i < rp.n; i++)
    bpi_report_cleanup(&rp.reps[i]);
  free(rp.reps);
  if(!ok && !out->interrupted)
    bp_cli_record_cleanup(a);    /* its names may point in rp.last */
  bpi_profile_free(rp.last);     /* a->marked points in merged now */
  cJSON_Delete(rp.off_cpu);
  return ok;
}

void bp_cli_run_repeated_cleanup(struct bp_repeated *r)
{
  for(size_t i = 0; r->values && i < r->nvalues; i++)
    cJSON_Delete(r->values[i]);
  free(r->values);
  r->values = NULL;
  bpi_report_cleanup(&r->rep);
  bpi_profile_free(r->merged);
  r->merged = NULL;
}

int bp_cli_run_write_unreported_repeats(const struct bp_record_args *a,
                                        const struct bp_repeated *r)
{
  char when[96];
  unsigned n = a->repeat > 1 ? a->repeat : 1;
  /* the signal came while repetition r->ran's command ran, or after it
   * (between two, or while the profiles were written), or before the
   * first */
  if(!r->ran)
    snprintf(when, sizeof(when), "before repetition 1 of %u", n);
  else
    snprintf(when, sizeof(when), "%s repetition %zu of %u",
             bp_cli_interrupted_in_command() ? "in" : "after", r->ran, n);
  bp_msg_warn("the run was interrupted %s: no report (the %zu "
              "repetition%s that completed %s not a run of %u); the "
              "profile of every repetition that ran is kept", when,
              r->done, r->done == 1 ? "" : "s",
              r->done == 1 ? "is" : "are", n);
  return bp_cli_run_write_unreported(
    a, &(struct bp_cli_ran){.prof = r->merged, .any = r->merged,
                            .when = when}, r->status);
}

/* benchprof run --repeat N: the command N times, every repetition
 * profiled into one profile (a marker each), every measure's N values
 * kept; report.json has their median and least..largest. */
int bp_cli_run_repeated(struct bp_record_args *a)
{
  char start[32];
  struct bp_repeated r;
  struct bp_run_bench *arts = NULL;
  bp_cli_iso_now(start);
  if(!bp_cli_run_clear_previous(a))
    return BP_EXIT_ERROR;
  bool ok = bp_cli_run_repeat_record(a, &r);
  if(r.interrupted) {
    int status = bp_cli_run_write_unreported_repeats(a, &r);
    bp_cli_record_cleanup(a);    /* its names point in r.merged */
    bp_cli_run_repeated_cleanup(&r);
    return status;
  }
  if(a->setup_failed && !a->started) {
    /* nothing ran: the caller runs the command unprofiled, or fails */
    int status = r.status ? r.status : BP_EXIT_ERROR;
    bp_cli_record_cleanup(a);
    bp_cli_run_repeated_cleanup(&r);
    return status;
  }
  /* r.rep has its counters (combined) already: this finds each
   * benchmark's directory, the measures it has are kept */
  ok = ok && !bp_cli_run_attach_counters(a, &r.rep, r.merged, &arts);
  for(size_t i = 0; ok && i < r.nvalues; i++)
    arts[i].repetitions = r.values[i];
  if(ok)
    ok = bp_cli_run_write_outputs(a, &r.rep, r.merged, r.merged, arts,
                                  r.status);
  int status = r.status;
  if(ok)
    status = bp_cli_run_publish_and_compare(a, start, status);
  else
    status = bp_cli_run_own_failure(a, status);
  free(arts);
  bp_cli_record_cleanup(a);      /* its names point in r.merged */
  bp_cli_run_repeated_cleanup(&r);
  return status;
}
