/* run_outputs: the report and manifest `benchprof run` writes
 * (run_outputs.h). */
#include "bp_setup.h"
#include "run_outputs.h"
#include "buf.h"
#include "counters.h"
#include "err.h"
#include "fileio.h"
#include "parallel.h"
#include "rundir.h"
#include "text.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

/* The iterations a benchmark's counters cover, when its harness reports
 * the CPU time of one (Google Benchmark): the counted CPU time over it,
 * which includes the short runs that size the iteration count.  0 when
 * unknown (no CPU time per iteration, or task-clock not counted). */
static double iterations_covered(const struct bp_bench *b,
                                 const struct bp_counter *c, size_t n)
{
  if(!(b->iteration_cpu_ns > 0))
    return 0;
  for(size_t i = 0; i < n; i++)
    if(c[i].available && c[i].slug && !strcmp(c[i].slug, "task-clock") &&
       c[i].value >= b->iteration_cpu_ns)
      return c[i].value / b->iteration_cpu_ns;
  return 0;
}

/* Google Benchmark runs as many iterations as fill its minimum time, so
 * a head that ran twice as many at the same speed would count twice the
 * events: a regression of nothing.  Hence per iteration. */
bp_code bpi_run_add_counters(struct bp_bench *b, const struct bp_counter *c,
                             size_t n)
{
  double covered = iterations_covered(b, c, n);
  if(covered <= 0)
    return bpi_report_add_counters(b, c, n);
  struct bp_counter *per = malloc(n * sizeof(*per));
  if(!per)
    return BPE_NOMEM;
  for(size_t i = 0; i < n; i++) {
    per[i] = c[i];
    per[i].value = c[i].value / covered;
  }
  bp_code rc = bpi_report_add_counters(b, per, n);
  free(per);
  return rc;
}

bp_code bpi_run_attach_counters(struct bp_report *rep,
                                const struct bp_marked *marked,
                                size_t nmarked,
                                const struct bp_profile *prof,
                                const char *default_name,
                                struct bp_run_bench **benches,
                                size_t *unattached)
{
  *benches = NULL;
  *unattached = 0;
  if(rep->nbenches == 0 && !nmarked && !bpi_report_bench(rep, default_name))
    return BPE_NOMEM;
  const char **names = calloc(nmarked ? nmarked : 1, sizeof(*names));
  size_t *at = calloc(nmarked ? nmarked : 1, sizeof(*at));
  bp_code rc = names && at ? BP_OK : BPE_NOMEM;
  for(size_t i = 0; !rc && i < nmarked; i++)
    names[i] = marked[i].name;
  if(!rc)
    rc = bpi_report_bench_all(rep, names, nmarked, at);
  for(size_t i = 0; !rc && i < nmarked; i++)
    rc = bpi_run_add_counters(&rep->benches[at[i]], marked[i].counters,
                              marked[i].ncounters);
  struct bp_run_bench *arts = rc ? NULL : calloc(rep->nbenches ?
                                                   rep->nbenches : 1,
                                                 sizeof(*arts));
  if(!rc && !arts)
    rc = BPE_NOMEM;
  for(size_t i = 0; !rc && i < rep->nbenches; i++)
    arts[i].dir = ".";
  for(size_t i = 0; !rc && i < nmarked; i++) {
    arts[at[i]].dir = marked[i].dir;
    arts[at[i]].marked = &marked[i];
    arts[at[i]].written = &marked[i].written;
  }
  free(names);
  free(at);
  if(rc)
    return rc;
  *benches = arts;
  size_t unmarked = 0;
  for(size_t i = 0; i < rep->nbenches; i++)
    unmarked += !strcmp(arts[i].dir, ".");
  if(unmarked == 1 && rep->nbenches == 1)
    return bpi_run_add_counters(&rep->benches[0], prof->meta.counters,
                                prof->meta.ncounters);
  *unattached = unmarked;
  return BP_OK;
}

bp_code bpi_run_write_report(const char *dir, const struct bp_report *rep,
                             struct bp_err *err)
{
  struct bp_buf b;
  char *path = bpi_text_path_join(dir, BP_RUNDIR_REPORT);
  bpi_buf_init(&b);
  bpi_report_write_bmf(rep, &b);
  bp_code rc = BP_OK;
  if(!path || bpi_buf_failed(&b))
    rc = bpi_err_set(err, BPE_NOMEM, 0, "report");
  else
    rc = bpi_file_write(path, b.data, b.len, false, err);
  bpi_buf_cleanup(&b);
  free(path);
  return rc;
}

/* One benchmark's facts: of its own invocation, or as the harness marked
 * it in the invocation run (NULL with --each); none otherwise. */
static bp_code bench_facts(struct bp_manifest_bench *b,
                           const struct bp_run_bench *art,
                           const struct bp_profile_meta *run)
{
  const struct bp_counter *c = NULL;
  size_t nc = 0;
  if(art->prof) {
    const struct bp_profile_meta *m = &art->prof->meta;
    b->facts = BP_FACTS_OWN;
    b->exit_status = art->exit_status;
    b->samples = m->samples;
    b->lost = m->lost_records;
    c = m->counters;
    nc = m->ncounters;
  }
  else if(art->marked && run) {
    b->facts = BP_FACTS_MARKED;
    b->runs = art->marked->nsegs;
    b->samples = art->marked->samples;
    b->lost = run->lost_records;   /* counted for the whole run only */
    c = art->marked->counters;
    nc = art->marked->ncounters;
  }
  if(b->facts && !(b->counters = bpi_counters_tree(c, nc)))
    return BPE_NOMEM;
  if(art->repetitions &&
     !(b->repetitions = cJSON_Duplicate(art->repetitions, true)))
    return BPE_NOMEM;
  return BP_OK;
}

/* The artifacts in dir/sub: as their export recorded them (hashed as
 * they were written), else read back from disk (hashing a suite's tens
 * of thousands of files again was most of writing its manifest). */
static bp_code artifacts_of(const char *dir, const char *sub,
                            const struct bp_export_record *written,
                            struct bp_manifest_artifact **arts, size_t *n,
                            struct bp_err *err)
{
  if(written && written->complete)
    return bpi_manifest_artifacts_written(sub, written, arts, n, err);
  return bpi_manifest_artifacts(dir, sub, arts, n, err);
}

/* Benchmark `first + i`'s artifacts into the manifest, on the machine's
 * cores when they are read back. */
struct hashing {
  struct bp_manifest *man;
  const struct bp_run_facts *f;
  size_t first;
};

static bp_code hash_bench(void *ctx, size_t i, struct bp_err *err)
{
  const struct hashing *h = ctx;
  struct bp_manifest_bench *b = &h->man->benches[h->first + i];
  const struct bp_run_bench *art = &h->f->benches[i];
  return artifacts_of(h->f->dir, art->dir, art->written, &b->arts, &b->narts,
                      err);
}

/* Each benchmark: its name, its profile directory and artifacts, and its
 * facts. */
static bp_code add_benchmarks(struct bp_manifest *man,
                              const struct bp_run_facts *f,
                              struct bp_err *err)
{
  const struct bp_report *rep = f->report;
  const struct bp_profile_meta *run = f->prof ? &f->prof->meta : NULL;
  size_t first = man->nbenches;
  for(size_t i = 0; i < rep->nbenches; i++) {
    const struct bp_run_bench *art = &f->benches[i];
    struct bp_manifest_bench *b = bpi_manifest_add_bench(
      man, rep->benches[i].name, art->dir);
    if(!b || bench_facts(b, art, run))
      return bpi_err_set(err, BPE_NOMEM, 0, "manifest");
    /* for function costs per iteration (compare) */
    b->iterations = rep->benches[i].iterations;
    b->iteration_cpu_ns = rep->benches[i].iteration_cpu_ns;
  }
  /* every entry made first: adding one may move them all */
  struct hashing h = {man, f, first};
  return bpi_parallel_for(rep->nbenches,
                          bpi_parallel_workers(rep->nbenches,
                                               BP_PARALLEL_MIN_ITEMS),
                          hash_bench, &h, err);
}

static bool dup_to(char **to, const char *s)
{
  return !s || (*to = strdup(s)) != NULL;
}

bp_code bpi_run_write_manifest(const struct bp_run_facts *f,
                               struct bp_err *err)
{
  /* no profile at all: a run interrupted before its first command */
  static const struct bp_profile_meta none;
  const struct bp_profile_meta *m = f->any ? &f->any->meta : &none;
  struct bp_manifest man = {.has_exit_status = true,
                            .exit_status = f->exit_status};
  bp_code rc = BP_OK;
  if(!dup_to(&man.version, BENCHPROF_VERSION) ||
     !dup_to(&man.outcome, f->outcome) ||
     !dup_to(&man.signal, bpi_rundir_signal_name(f->signal)) ||
     !dup_to(&man.command, f->prof ? m->command : f->command) ||
     !dup_to(&man.report, f->no_report ? NULL : BP_RUNDIR_REPORT) ||
     !dup_to(&man.event_requested, m->requested_event) ||
     !dup_to(&man.event_used, m->event) ||
     !dup_to(&man.fallback_reason, m->fallback_reason))
    rc = bpi_err_set(err, BPE_NOMEM, 0, "manifest");
  if(!rc && f->prof) {
    man.has_facts = true;
    man.samples = m->samples;
    man.lost = m->lost_records;
    if(!(man.counters = bpi_counters_tree(m->counters, m->ncounters)))
      rc = bpi_err_set(err, BPE_NOMEM, 0, "manifest");
    if(!rc)
      rc = artifacts_of(f->dir, ".", f->written, &man.arts, &man.narts,
                        err);
  }
  man.repeat = f->repeat > 1 ? f->repeat : 0;
  if(!rc)
    rc = add_benchmarks(&man, f, err);
  if(!rc)
    rc = bpi_manifest_write(&man, f->dir, err);
  bpi_manifest_cleanup(&man);
  return rc;
}
