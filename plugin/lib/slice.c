/* slice: the profile of each benchmark the harness marked, written into
 * its own directory of the run directory (slice.h). */
#include "bp_setup.h"
#include "slice.h"
#include "control.h"
#include "err.h"
#include "export.h"
#include "fileio.h"
#include "hash.h"
#include "parallel.h"
#include "rundir.h"
#include "text.h"

#include <stdlib.h>
#include <string.h>

void bpi_slice_free(struct bp_marked *m, size_t n)
{
  for(size_t i = 0; m && i < n; i++) {
    free(m[i].dir);
    bpi_counters_copy_free(m[i].counters, m[i].ncounters);
  }
  free(m);
}

/* Group the benchmark markers by name: m gets one entry per distinct
 * name (in the order they first began; room for one per marker), group[i]
 * the entry of marker i (BP_NONE for a repetition's marker, which is no
 * benchmark); *n how many. */
static bp_code group_markers(const struct bp_profile *p, struct bp_marked *m,
                             size_t *n, uint32_t *group)
{
  struct bp_strtab names;
  bp_code rc = BP_OK;
  bpi_strtab_init(&names);
  for(size_t i = 0; i < p->nmarkers; i++) {
    const struct bp_marker *mk = &p->markers[i];
    group[i] = BP_NONE;
    if(mk->kind != BP_MARKER_BENCHMARK)
      continue;
    group[i] = bpi_strtab_intern(&names, mk->name);
    if(group[i] == BP_NONE) {
      rc = BPE_NOMEM;
      break;
    }
    struct bp_marked *g = &m[group[i]];
    if(!g->nsegs++) {
      g->name = mk->name;
      *n = group[i] + 1;
    }
  }
  bpi_strtab_cleanup(&names);
  return rc;
}

/* Each group's directory name, unlike the others and the run directory's
 * own files. */
static bp_code name_dirs(struct bp_marked *m, size_t n)
{
  const char **names = calloc(n, sizeof(*names));
  char **dirs = NULL;
  if(!names)
    return BPE_NOMEM;
  for(size_t i = 0; i < n; i++)
    names[i] = m[i].name;
  bp_code rc = bpi_control_dirnames(names, n, bpi_rundir_reserved_names,
                                    &dirs);
  free(names);
  if(rc)
    return rc;
  for(size_t i = 0; i < n; i++)
    m[i].dir = dirs[i];  /* the strings move to m */
  free(dirs);
  return BP_OK;
}

/* A copy of the n counters c (names and slugs too). */
static bp_code copy_counters(struct bp_marked *g, const struct bp_counter *c,
                             size_t n)
{
  g->counters = calloc(n ? n : 1, sizeof(*g->counters));
  if(!g->counters)
    return BPE_NOMEM;
  for(size_t i = 0; i < n; i++) {
    g->counters[i] = c[i];
    g->counters[i].name = strdup(c[i].name);
    g->counters[i].slug = strdup(c[i].slug);
    g->ncounters = i + 1;
    if(!g->counters[i].name || !g->counters[i].slug)
      return BPE_NOMEM;
  }
  return BP_OK;
}

/* The samples of every time range of benchmark gi, and its counters
 * summed over them, into dir/<its directory>/. */
/* What every benchmark's slice needs of the run, made once: its markers
 * by benchmark (looking them up among all markers for each benchmark was
 * quadratic over a suite) and the timeline's index. */
struct slicing {
  uint32_t *by_group;  /* marker indexes, benchmark by benchmark */
  size_t *first;       /* benchmark gi's: by_group[first[gi] ..
                          first[gi + 1]) */
  struct bp_timeline_index ix;
};

static bp_code slicing_new(struct slicing *sl, const struct bp_profile *p,
                           const uint32_t *group, size_t ngroups)
{
  memset(sl, 0, sizeof(*sl));
  sl->by_group = calloc(p->nmarkers ? p->nmarkers : 1,
                        sizeof(*sl->by_group));
  sl->first = calloc(ngroups + 1, sizeof(*sl->first));
  if(!sl->by_group || !sl->first)
    return BPE_NOMEM;
  for(size_t i = 0; i < p->nmarkers; i++)
    if(group[i] < ngroups)
      sl->first[group[i] + 1]++;
  for(size_t g = 0; g < ngroups; g++)
    sl->first[g + 1] += sl->first[g];
  size_t *next = calloc(ngroups ? ngroups : 1, sizeof(*next));
  if(!next)
    return BPE_NOMEM;
  memcpy(next, sl->first, ngroups * sizeof(*next));
  for(size_t i = 0; i < p->nmarkers; i++)  /* in marker order */
    if(group[i] < ngroups)
      sl->by_group[next[group[i]]++] = (uint32_t)i;
  free(next);
  return bpi_profile_timeline_index(p, &sl->ix);
}

static void slicing_cleanup(struct slicing *sl)
{
  free(sl->by_group);
  free(sl->first);
  bpi_timeline_index_cleanup(&sl->ix);
}

/* The samples of every time range of benchmark gi, and its counters
 * summed over them (into m[gi]), as *out.  In order, one benchmark at a
 * time: slicing reads the run's timeline through one file position. */
static bp_code slice_marked(const struct bp_profile *p, struct bp_marked *m,
                            const struct slicing *sl, uint32_t gi,
                            struct bp_profile **out, struct bp_err *err)
{
  struct bp_marked *g = &m[gi];
  size_t from = sl->first[gi], to = sl->first[gi + 1];
  struct bp_range *r = calloc(to > from ? to - from : 1, sizeof(*r));
  struct bp_profile *slice = NULL;
  size_t k = 0;
  bp_code rc = r ? BP_OK : BPE_NOMEM;
  for(size_t j = from; !rc && j < to; j++) {
    const struct bp_marker *mk = &p->markers[sl->by_group[j]];
    r[k++] = (struct bp_range){mk->start_ns, mk->end_ns};
    if(!g->counters)
      rc = copy_counters(g, mk->counters, mk->ncounters);
    else if(mk->ncounters == g->ncounters)
      bpi_counters_add(g->counters, mk->counters, mk->ncounters);
  }
  if(!rc)
    rc = bpi_profile_slice_indexed(p, r, k, &sl->ix, &slice);
  if(!rc)
    rc = bpi_profile_set_counters(slice, g->counters, g->ncounters);
  free(r);
  if(rc) {
    bpi_profile_free(slice);
    return bpi_err_set(err, rc, 0, "profile of benchmark %u", gi + 1);
  }
  g->samples = slice->meta.samples;
  *out = slice;
  return BP_OK;
}

/* A batch of sliced benchmarks being written, m[first + i]'s profile
 * slices[i]: the writing, most of a large suite's time (five files per
 * benchmark), runs on the machine's cores. */
struct batch {
  const char *dir;
  struct bp_marked *m;
  struct bp_profile **slices;
  size_t first;
};

static bp_code write_marked(void *ctx, size_t i, struct bp_err *err)
{
  const struct batch *b = ctx;
  struct bp_marked *g = &b->m[b->first + i];
  char *path = bpi_text_path_join(b->dir, g->dir);
  bp_code rc = BP_OK;
  if(!path)
    rc = bpi_err_set(err, BPE_NOMEM, 0, "profile of benchmark %zu",
                     b->first + i + 1);
  else if(!(rc = bpi_file_mkdirs_under(b->dir, g->dir, err)))
    rc = bpi_export_all(b->slices[i], path, &g->written, err);
  free(path);
  return rc;
}

/* Benchmarks sliced before their batch is written: enough to keep the
 * workers busy, few enough (or few enough samples) that the slices held
 * at once stay small beside the run's profile. */
#define BATCH_BENCHMARKS 64
#define BATCH_SAMPLES ((uint64_t)1 << 20)

static bp_code export_batches(const struct bp_profile *p, const char *dir,
                              struct bp_marked *m, size_t n,
                              const struct slicing *sl, struct bp_err *err)
{
  struct bp_profile *slices[BATCH_BENCHMARKS];
  unsigned workers = bpi_parallel_workers(n, 2);
  bp_code rc = BP_OK;
  for(size_t first = 0; !rc && first < n;) {
    size_t k = 0;
    uint64_t samples = 0;
    while(!rc && k < BATCH_BENCHMARKS && first + k < n &&
          samples < BATCH_SAMPLES) {
      rc = slice_marked(p, m, sl, (uint32_t)(first + k), &slices[k], err);
      if(!rc)
        samples += slices[k++]->meta.samples;
    }
    struct batch b = {dir, m, slices, first};
    if(!rc)
      rc = bpi_parallel_for(k, workers, write_marked, &b, err);
    for(size_t i = 0; i < k; i++)
      bpi_profile_free(slices[i]);
    first += k;
  }
  return rc;
}

/* The benchmarks' directory names into dir's BP_RUNDIR_BENCH_DIRS, before
 * any is made. */
static bp_code note_dirs(const char *dir, const struct bp_marked *m,
                         size_t n, struct bp_err *err)
{
  const char **names = calloc(n ? n : 1, sizeof(*names));
  if(!names)
    return bpi_err_set(err, BPE_NOMEM, 0, "benchmark directories");
  for(size_t i = 0; i < n; i++)
    names[i] = m[i].dir;
  bp_code rc = bpi_rundir_note_bench_dirs(dir, names, n, err);
  free(names);
  return rc;
}

bp_code bpi_slice_export(const struct bp_profile *p, const char *dir,
                         struct bp_marked **out, size_t *n,
                         struct bp_err *err)
{
  return bpi_slice_export_noted(p, dir, false, out, n, err);
}

bp_code bpi_slice_export_noted(const struct bp_profile *p, const char *dir,
                               bool note, struct bp_marked **out, size_t *n,
                               struct bp_err *err)
{
  *out = NULL;
  *n = 0;
  if(!bpi_profile_benchmark_markers(p))
    return BP_OK;
  uint32_t *group = calloc(p->nmarkers, sizeof(*group));
  struct bp_marked *m = calloc(p->nmarkers, sizeof(*m));
  bp_code rc = group && m ? group_markers(p, m, n, group) : BPE_NOMEM;
  *out = m;
  if(!rc)
    rc = name_dirs(m, *n);
  if(rc) {
    free(group);
    return bpi_err_set(err, rc, 0, "benchmark directories");
  }
  if(note && (rc = note_dirs(dir, m, *n, err))) {
    free(group);
    return rc;
  }
  struct slicing sl;
  rc = slicing_new(&sl, p, group, *n);
  free(group);
  if(rc) {
    slicing_cleanup(&sl);
    return bpi_err_set(err, rc, 0, "benchmark profiles");
  }
  rc = export_batches(p, dir, m, *n, &sl, err);
  slicing_cleanup(&sl);
  return rc;
}
