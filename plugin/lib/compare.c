/* compare: two run directories -> struct bp_cmp, benchmark by benchmark:
 * which side has it, its profile on each side (profile.folded's stacks,
 * summary.json's facts, the artifacts' URLs), its measures and functions
 * compared (compare_measures.c, compare_funcs.c), then every benchmark
 * ordered by importance and counted.  A side is read by compare_side.c;
 * the output is written by compare_json.c.  Shares are normalized to
 * each side's total samples, so runs of different lengths compare. */
#include "bp_setup.h"
#include "benchname.h"
#include "buf.h"
#include "compare_int.h"
#include "err.h"
#include "hash.h"
#include "parallel.h"
#include "rundir.h"
#include "text.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The manifest's entry for benchmark name, or NULL. */
static const struct bp_manifest_bench *manifest_bench(const struct side *s,
                                                      const char *name)
{
  return bpi_manifest_bench(&s->manifest, name);
}

/* The file of the given kind among a manifest benchmark's artifacts. */
static const char *bench_artifact(const struct bp_manifest_bench *mb,
                                  const char *kind)
{
  const struct bp_manifest_artifact *a =
    mb ? bpi_manifest_artifact(mb->arts, mb->narts, kind) : NULL;
  return a ? a->file : NULL;
}

/* ------------------------------------------------------------- benchmarks */

/* The folded stacks at file into side which of st; a file that is not
 * there leaves p without its profile (BP_CMP_PROFILE_MISSING), any other
 * failure is an error. */
static bp_code read_profile(struct bp_cmp_profile *p, const struct side *s,
                           const char *file, struct stacks *st, int which,
                           struct bp_err *err)
{
  struct bp_err e = {0};
  char *path = bpi_text_path_join(s->dir, file);
  uint64_t before = st->total[which];
  bp_code rc = !path ? bpi_err_set(&e, BPE_NOMEM, 0, "compare: %s", file) :
               bpi_cmp_read_folded(st, which, path, &e);
  free(path);
  if(rc == BPE_IO && e.sys_errno == ENOENT) {
    p->state = BP_CMP_PROFILE_MISSING;
    p->missing_file = strdup(file);
    return p->missing_file ? BP_OK : bpi_err_set(err, BPE_NOMEM, 0,
                                                 "compare: %s", file);
  }
  if(rc)
    return bpi_err_copy(err, rc, &e);
  p->samples = st->total[which] - before;
  return BP_OK;
}

/* A side's profile of benchmark name: its folded stacks into st, and the
 * facts and URLs that go with them.  A side without them (none named, or
 * the file gone) is said in p->state, and is no error: its measures are
 * compared all the same. */
static bp_code bench_profile(struct bp_cmp_profile *p, const struct side *s,
                             const char *name, struct stacks *st, int which,
                             struct bp_err *err)
{
  const struct bp_manifest_bench *mb = manifest_bench(s, name);
  const char *dir = mb ? mb->profile : NULL;
  const char *folded = bench_artifact(mb, BP_KIND_FOLDED);
  const char *gecko = bench_artifact(mb, BP_KIND_GECKO);
  const char *svg = bench_artifact(mb, BP_KIND_SVG);
  const char *summary = bench_artifact(mb, BP_KIND_SUMMARY);
  if((folded && !bpi_rundir_safe_path(folded)) ||
     (gecko && !bpi_rundir_safe_path(gecko)) ||
     (svg && !bpi_rundir_safe_path(svg)) ||
     (summary && !bpi_rundir_safe_path(summary)))
    return bpi_err_set(err, BPE_FORMAT, 0, "%s/" BP_RUNDIR_MANIFEST ": an "
                       "artifact of benchmark '%s' leaves the run directory",
                       s->dir,
                       name);
  p->runs = bpi_cmp_profile_runs(s);
  /* what its measures are per (bpi_cmp_measures_per_iteration); under
   * --repeat the manifest sums the repetitions' iterations */
  p->harness_iterations = mb ? mb->iterations / p->runs : 0;
  p->iteration_cpu_ns = mb ? mb->iteration_cpu_ns : 0;
  p->dir = strdup(dir ? dir : ".");
  if(!p->dir)
    return bpi_err_set(err, BPE_NOMEM, 0, "compare: %s", name);
  if(!folded) {
    p->state = BP_CMP_PROFILE_NONE;
    return BP_OK;
  }
  bp_code rc = read_profile(p, s, folded, st, which, err);
  if(rc || p->state != BP_CMP_PROFILED)
    return rc;   /* without the stacks, no link to a profile either */
  if(gecko) {
    p->gecko_file = strdup(gecko);
    p->gecko_url = bpi_cmp_artifact_url(s, gecko);
    if(!p->gecko_file)
      return bpi_err_set(err, BPE_NOMEM, 0, "compare: %s", name);
  }
  if(svg)
    p->svg_url = bpi_cmp_artifact_url(s, svg);
  bpi_cmp_profile_facts(p, s->dir, summary, s->manifest.repeat);
  p->iterations = bpi_cmp_profile_iterations(s, mb, p);
  return BP_OK;
}

/* A process renamed only by its build hash (a cargo binary on every pull
 * request) is still matched, but not told: nothing the author did. */
static void drop_hash_rename(struct bp_cmp_bench *cb)
{
  free(cb->renamed_base_process);
  free(cb->renamed_head_process);
  cb->renamed_base_process = cb->renamed_head_process = NULL;
}

/* What the profiles of a benchmark on both sides tell: the differential
 * stacks, the functions and the off-CPU time (each side has its profile). */
static bp_code compare_profiles(const struct bp_cmp *c,
                                struct bp_cmp_bench *cb, struct stacks *st,
                                const struct side *base,
                                const struct side *head, struct bp_err *err)
{
  bp_code rc = bpi_cmp_match_roots(st, &cb->renamed_base_process,
                                   &cb->renamed_head_process);
  if(!rc)
    rc = bpi_cmp_diff_lines(cb, st);
  if(!rc)
    rc = bpi_cmp_bench_funcs(cb, st);
  if(!rc)
    rc = bpi_cmp_bench_off_cpu(cb, base, head, c->threshold_pct, err);
  if(!rc && cb->renamed_base_process &&
     bpi_benchname_same_process(cb->renamed_base_process,
                                cb->renamed_head_process))
    drop_hash_rename(cb);
  return rc;
}

/* Benchmark name compared with the base's bname: the same name, or
 * (bpi_cmp_pair_hashed) the base's name for it less a build hash. */
static bp_code compare_bench(const struct bp_cmp *c, struct bp_cmp_bench *cb,
                             const char *name, const char *bname,
                             const struct side *base,
                             const struct side *head, struct bp_err *err)
{
  struct stacks st = {.cap = 0};
  bp_code rc = BP_OK;
  const struct bp_bench *bb = bpi_cmp_report_bench(base, bname);
  const struct bp_bench *hb = bpi_cmp_report_bench(head, name);
  cb->name = strdup(name);
  if(!cb->name || (strcmp(bname, name) && !(cb->base_name = strdup(bname))))
    return bpi_err_set(err, BPE_NOMEM, 0, "compare: %s", name);
  cb->presence = !bb ? BP_CMP_NEW : !hb ? BP_CMP_REMOVED : BP_CMP_BOTH;
  cb->wall_time_counted = c->wall_time_counted;
  bpi_strtab_init(&st.text);
  if(bb)
    rc = bench_profile(&cb->base, base, bname, &st, 0, err);
  if(!rc && hb)
    rc = bench_profile(&cb->head, head, name, &st, 1, err);
  if(!rc) {
    const char *dir = cb->head.dir ? cb->head.dir : cb->base.dir;
    cb->dir = strdup(bpi_rundir_safe_path(dir) ? dir : ".");
    if(!cb->dir)
      rc = BPE_NOMEM;
  }
  /* a benchmark on one side only keeps that side's measures, so that
   * the comment can say what a new one costs */
  if(!rc) {
    const struct bp_manifest_bench *mbs[2] = {
      bb ? manifest_bench(base, bname) : NULL,
      hb ? manifest_bench(head, name) : NULL};
    const cJSON *reps[2] = {mbs[0] ? mbs[0]->repetitions : NULL,
                            mbs[1] ? mbs[1]->repetitions : NULL};
    rc = bpi_cmp_bench_measures(cb, bb, hb, reps, c->threshold_pct);
    if(!rc && hb)
      rc = bpi_cmp_bench_bencher(c, cb, head);
    if(!rc)
      bpi_cmp_measures_per_iteration(cb, c->threshold_pct);
  }
  if(!rc && cb->presence == BP_CMP_BOTH && !bpi_compare_profile_missing(cb))
    rc = compare_profiles(c, cb, &st, base, head, err);
  if(rc)
    rc = bpi_err_set(err, rc, 0, "compare: benchmark '%s'", name);
  bpi_cmp_stacks_cleanup(&st);
  return rc;
}

bool bpi_compare_profile_missing(const struct bp_cmp_bench *b)
{
  return b->presence == BP_CMP_BOTH &&
         (b->base.state != BP_CMP_PROFILED ||
          b->head.state != BP_CMP_PROFILED);
}

size_t bpi_compare_ndiffs(const struct bp_cmp *c)
{
  size_t n = 0;
  for(size_t i = 0; i < c->nbenches; i++)
    n += bpi_compare_has_diff(&c->benches[i]);
  return n;
}

size_t bpi_compare_ndiff_folders(const struct bp_cmp *c)
{
  struct bp_strtab dirs;
  bool nomem = false;
  bpi_strtab_init(&dirs);
  for(size_t i = 0; i < c->nbenches && !nomem; i++)
    if(bpi_compare_has_diff(&c->benches[i]))
      nomem = bpi_strtab_intern(&dirs, c->benches[i].dir) == BP_NONE;
  size_t n = nomem ? bpi_compare_ndiffs(c) : dirs.count;
  bpi_strtab_cleanup(&dirs);
  return n;
}

/* Whether two profiles are one: the same folder (the whole run's, ".")
 * and as many samples. */
static bool same_side(const struct bp_cmp_profile *x,
                      const struct bp_cmp_profile *y)
{
  return x->dir && y->dir && !strcmp(x->dir, y->dir) &&
         x->samples == y->samples;
}

bool bpi_compare_same_profile(const struct bp_cmp_bench *a,
                              const struct bp_cmp_bench *b)
{
  return a->shared_profile && b->shared_profile &&
         same_side(&a->base, &b->base) && same_side(&a->head, &b->head);
}

static int bench_rank(const struct bp_cmp_bench *b)
{
  if(b->presence != BP_CMP_BOTH)
    return b->presence == BP_CMP_NEW ? 7 : 8;
  if(b->flag)
    return b->flag == BP_CMP_REGRESSION ? 0 : 1;
  if(b->wall_only)
    return b->wall_only == BP_CMP_REGRESSION ? 2 : 3;
  if(b->unconfirmed)
    return b->unconfirmed == BP_CMP_REGRESSION ? 4 : 5;
  return 6;
}

/* Confirmed regressions, confirmed improvements, slower and faster in
 * wall time only, unconfirmed regressions, unconfirmed improvements (each
 * largest change first), unchanged, new, removed; then by name, so equal
 * inputs give equal output. */
static int by_importance(const void *a, const void *b)
{
  const struct bp_cmp_bench *x = a, *y = b;
  int rx = bench_rank(x), ry = bench_rank(y);
  if(rx != ry)
    return rx < ry ? -1 : 1;
  if(rx < 6) {
    double px = isnan(x->max_pct) ? 1e300 : absd(x->max_pct);
    double py = isnan(y->max_pct) ? 1e300 : absd(y->max_pct);
    if(px != py)
      return px > py ? -1 : 1;
  }
  return strcmp(x->name, y->name);
}

/* The benchmarks compared, in the order their slots are filled: head's,
 * then those only base has (a name a report repeats, repeated). */
static const char **bench_names(const struct side *base,
                                const struct side *head, size_t *n)
{
  const char **names = malloc((base->report.nbenches +
                               head->report.nbenches + 1) * sizeof(*names));
  *n = 0;
  if(!names)
    return NULL;
  for(size_t i = 0; i < head->report.nbenches; i++)
    names[(*n)++] = head->report.benches[i].name;
  for(size_t i = 0; i < base->report.nbenches; i++) {
    const char *name = base->report.benches[i].name;
    if(!bpi_cmp_report_bench(head, name))
      names[(*n)++] = name;
  }
  return names;
}

/* One benchmark into its own slot, on a worker of the pool: it reads
 * both sides and c, and writes only c->benches[i]. */
struct fill {
  struct bp_cmp *c;
  const char **names;
  const char **base_names;   /* the base's name of names[i], when paired */
  const struct side *base, *head;
};

static bp_code fill_bench(void *ctx, size_t i, struct bp_err *err)
{
  const struct fill *f = ctx;
  const char *bname = f->base_names[i] ? f->base_names[i] : f->names[i];
  return compare_bench(f->c, &f->c->benches[i], f->names[i], bname, f->base,
                       f->head, err);
}

/* The folded stacks' file of benchmark name on side s, NULL when none. */
static const char *folded_of(const struct side *s, const char *name)
{
  return name ? bench_artifact(manifest_bench(s, name), BP_KIND_FOLDED)
              : NULL;
}

/* Count a side's folded files: how many benchmarks name each
 * (uses[id in files]); id[i] is names[i]'s, BP_NONE when it has none. */
static bool count_files(const struct side *s, const char *const *names,
                        size_t n, struct bp_strtab *files, uint32_t *id,
                        size_t *uses)
{
  for(size_t i = 0; i < n; i++) {
    const char *file = folded_of(s, names[i]);
    id[i] = file ? bpi_strtab_intern(files, file) : BP_NONE;
    if(file && id[i] == BP_NONE)
      return false;
    if(file)
      uses[id[i]]++;
  }
  return true;
}

/* Mark the benchmarks whose folded stacks another benchmark's manifest
 * entry names too, on either side (bp_cmp_bench.shared_profile): a
 * harness that ran them in one process without marking them has one
 * profile, the whole run's.  Before they are compared: it sets how. */
static bool mark_shared(struct fill *f, size_t n)
{
  const char **bnames = malloc((n ? n : 1) * sizeof(*bnames));
  uint32_t *id[2] = {malloc((n ? n : 1) * sizeof(uint32_t)),
                     malloc((n ? n : 1) * sizeof(uint32_t))};
  size_t *uses[2] = {calloc(n ? n : 1, sizeof(size_t)),
                     calloc(n ? n : 1, sizeof(size_t))};
  struct bp_strtab files[2];
  bool ok = bnames && id[0] && id[1] && uses[0] && uses[1];
  bpi_strtab_init(&files[0]);
  bpi_strtab_init(&files[1]);
  for(size_t i = 0; ok && i < n; i++)
    bnames[i] = f->base_names[i] ? f->base_names[i] : f->names[i];
  ok = ok && count_files(f->base, bnames, n, &files[0], id[0], uses[0]) &&
       count_files(f->head, f->names, n, &files[1], id[1], uses[1]);
  for(size_t i = 0; ok && i < n; i++)
    for(int side = 0; side < 2; side++)
      if(id[side][i] != BP_NONE && uses[side][id[side][i]] > 1)
        f->c->benches[i].shared_profile = true;
  for(int side = 0; side < 2; side++) {
    bpi_strtab_cleanup(&files[side]);
    free(id[side]);
    free(uses[side]);
  }
  free(bnames);
  return ok;
}

void bpi_compare_count(struct bp_cmp *c)
{
  c->nnew = c->nremoved = c->nregressions = c->nimprovements = 0;
  c->nwall_slower = c->nwall_faster = c->nunchanged = c->nunconfirmed = 0;
  for(size_t i = 0; i < c->nbenches; i++) {
    const struct bp_cmp_bench *b = &c->benches[i];
    if(b->presence == BP_CMP_NEW)
      c->nnew++;
    else if(b->presence == BP_CMP_REMOVED)
      c->nremoved++;
    else if(b->flag == BP_CMP_REGRESSION)
      c->nregressions++;
    else if(b->flag == BP_CMP_IMPROVEMENT)
      c->nimprovements++;
    else if(b->wall_only == BP_CMP_REGRESSION)
      c->nwall_slower++;
    else if(b->wall_only == BP_CMP_IMPROVEMENT)
      c->nwall_faster++;
    else {
      c->nunchanged++;
      c->nunconfirmed += b->unconfirmed == BP_CMP_REGRESSION;
    }
  }
}

static bp_code compare_sides(struct bp_cmp *c, const struct side *base,
                             const struct side *head, struct bp_err *err)
{
  size_t n;
  struct fill f = {.c = c, .base = base, .head = head};
  f.names = bench_names(base, head, &n);
  f.base_names = calloc(n ? n : 1, sizeof(*f.base_names));
  if(f.names && f.base_names &&
     !bpi_cmp_pair_hashed(c, base, head, f.names, &n, f.base_names)) {
    free(f.names);
    f.names = NULL;
  }
  c->benches = calloc(n ? n : 1, sizeof(*c->benches));
  if(!f.names || !f.base_names || !c->benches) {
    free(f.names);
    free(f.base_names);
    return bpi_err_set(err, BPE_NOMEM, 0, "compare");
  }
  /* every slot counts from here: bpi_compare_free frees what a failed
   * comparison filled, the empty slots too */
  c->nbenches = n;
  if(!mark_shared(&f, n)) {
    free(f.names);
    free(f.base_names);
    return bpi_err_set(err, BPE_NOMEM, 0, "compare");
  }
  unsigned workers = bpi_parallel_workers(n, BP_PARALLEL_MIN_ITEMS);
  bp_code rc = bpi_parallel_for(n, workers, fill_bench, &f, err);
  free(f.names);
  free(f.base_names);
  if(rc)
    return rc;
  qsort(c->benches, c->nbenches, sizeof(*c->benches), by_importance);
  bpi_compare_count(c);
  return BP_OK;
}

static bp_code open_side(void *ctx, size_t i, struct bp_err *err)
{
  struct side **sides = ctx;
  return bpi_cmp_side_open(sides[i], err);
}

bp_code bpi_compare_dirs(const char *base_dir, const char *head_dir,
                         const struct bp_cmp_opts *o, struct bp_cmp **out,
                         struct bp_err *err)
{
  struct side base = {.dir = base_dir, .role = "base",
                      .url_prefix = o->base_url};
  struct side head = {.dir = head_dir, .role = "head",
                      .url_prefix = o->head_url};
  struct bp_cmp *c = calloc(1, sizeof(*c));
  bp_code rc = BP_OK;
  *out = NULL;
  bpi_report_init(&base.report);
  bpi_report_init(&head.report);
  if(!c) {
    rc = bpi_err_set(err, BPE_NOMEM, 0, "compare");
    goto out;
  }
  c->threshold_pct = o->threshold_pct > 0 ? o->threshold_pct :
                     BP_CMP_THRESHOLD_DEFAULT;
  c->wall_time_counted = o->wall_time_counted;
  /* both at once: a large suite's manifests take a while to parse */
  struct side *sides[2] = {&base, &head};
  rc = bpi_parallel_for(2, bpi_parallel_workers(2, 2), open_side, sides,
                        err);
  if(!rc && (bpi_cmp_side_identity(&c->base, &base) ||
             bpi_cmp_side_identity(&c->head, &head)))
    rc = bpi_err_set(err, BPE_NOMEM, 0, "compare");
  if(!rc)
    rc = compare_sides(c, &base, &head, err);
out:
  bpi_cmp_side_cleanup(&base);
  bpi_cmp_side_cleanup(&head);
  if(rc)
    bpi_compare_free(c);
  else
    *out = c;
  return rc;
}

static void profile_cleanup(struct bp_cmp_profile *p)
{
  free(p->event);
  free(p->missing_file);
  free(p->dir);
  free(p->gecko_file);
  free(p->gecko_url);
  free(p->svg_url);
}

static void side_free(struct bp_cmp_side *s)
{
  free(s->dir);
  free(s->project);
  free(s->branch);
  free(s->hash);
  free(s->commit_time);
  free(s->end_time);
  free(s->testbed);
  free(s->report_uuid);
  free(s->bencher_url);
  free(s->manifest_url);
  free(s->command);
  free(s->outcome);
  free(s->signal);
  free(s->bencher_project);
  free(s->bencher_branch);
  free(s->bencher_head);
  free(s->bencher_testbed);
}

/* Benchmarks whose change beyond the threshold is an unconfirmed
 * improvement (the comparison counts the regressions, nunconfirmed). */
static size_t unconfirmed_improvements(const struct bp_cmp *c)
{
  size_t n = 0;
  for(size_t i = 0; i < c->nbenches; i++)
    n += c->benches[i].presence == BP_CMP_BOTH && !c->benches[i].flag &&
         c->benches[i].unconfirmed == BP_CMP_IMPROVEMENT;
  return n;
}

void bpi_compare_counts(const struct bp_cmp *c, size_t *unconfirmed_impr,
                        size_t *unchanged)
{
  *unconfirmed_impr = unconfirmed_improvements(c);
  size_t unconfirmed = c->nunconfirmed + *unconfirmed_impr;
  *unchanged = c->nunchanged > unconfirmed ? c->nunchanged - unconfirmed : 0;
}

/* Apart from the confirmed verdicts, and why: a change of wall time the
 * CPU time did not follow may be the other job's busier runner. */
void bpi_compare_wall_only_text(const struct bp_cmp *c, struct bp_buf *b)
{
  if(!c->nwall_slower && !c->nwall_faster)
    return;
  bpi_buf_adds(b, "; ");
  if(c->nwall_slower)
    bpi_buf_printf(b, "%zu slower", c->nwall_slower);
  if(c->nwall_slower && c->nwall_faster)
    bpi_buf_adds(b, ", ");
  if(c->nwall_faster)
    bpi_buf_printf(b, "%zu faster", c->nwall_faster);
  bpi_buf_adds(b, " in wall time only (CPU time unchanged: waiting, or a "
               "busier runner)");
}

void bpi_compare_counts_text(const struct bp_cmp *c, struct bp_buf *b)
{
  size_t unconf_impr, unchanged;
  bpi_compare_counts(c, &unconf_impr, &unchanged);
  bpi_buf_printf(b, "%zu regression%s confirmed, %zu unconfirmed; %zu "
                 "improvement%s confirmed, %zu unconfirmed",
                 c->nregressions, c->nregressions == 1 ? "" : "s",
                 c->nunconfirmed, c->nimprovements,
                 c->nimprovements == 1 ? "" : "s", unconf_impr);
  bpi_compare_wall_only_text(c, b);
  bpi_buf_printf(b, "; %zu unchanged", unchanged);
  if(c->nnew)
    bpi_buf_printf(b, ", %zu new", c->nnew);
  if(c->nremoved)
    bpi_buf_printf(b, ", %zu removed", c->nremoved);
}

void bpi_compare_free(struct bp_cmp *c)
{
  if(!c)
    return;
  free(c->suite);
  for(size_t i = 0; i < c->nbenches; i++) {
    struct bp_cmp_bench *b = &c->benches[i];
    free(b->name);
    free(b->base_name);
    free(b->dir);
    free(b->renamed_base_process);
    free(b->renamed_head_process);
    for(size_t j = 0; j < b->nmeasures; j++) {
      free(b->measures[j].slug);
      free(b->measures[j].bencher_uuid);
      free(b->measures[j].alert_url);
      free(b->measures[j].vbase.reps);
      free(b->measures[j].vhead.reps);
    }
    free(b->measures);
    for(size_t j = 0; j < b->nfuncs; j++)
      free(b->funcs[j].name);
    free(b->funcs);
    for(size_t j = 0; j < b->nlines; j++)
      free(b->lines[j].stack);
    free(b->lines);
    profile_cleanup(&b->base);
    profile_cleanup(&b->head);
    free(b->diff_url);
    free(b->diff_key);
    free(b->bencher_uuid);
    free(b->off_stack);
    for(size_t j = 0; j < b->off_nlines; j++)
      free(b->off_lines[j].stack);
    free(b->off_lines);
    free(b->off_diff_url);
    free(b->off_diff_key);
  }
  free(c->benches);
  side_free(&c->base);
  side_free(&c->head);
  free(c);
}
