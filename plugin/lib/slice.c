/* slice: the profile of each benchmark the harness marked, written into
 * its own directory of the run directory (slice.h). */
#include "bp_setup.h"
#include "slice.h"
#include "control.h"
#include "err.h"
#include "export.h"
#include "fileio.h"
#include "hash.h"
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
static bp_code export_marked(const struct bp_profile *p, const char *dir,
                             struct bp_marked *m, const uint32_t *group,
                             uint32_t gi, struct bp_err *err)
{
  struct bp_marked *g = &m[gi];
  struct bp_range *r = calloc(g->nsegs, sizeof(*r));
  struct bp_profile *slice = NULL;
  size_t k = 0;
  bp_code rc = r ? BP_OK : BPE_NOMEM;
  for(size_t i = 0; !rc && i < p->nmarkers; i++) {
    const struct bp_marker *mk = &p->markers[i];
    if(group[i] != gi)
      continue;
    r[k++] = (struct bp_range){mk->start_ns, mk->end_ns};
    if(!g->counters)
      rc = copy_counters(g, mk->counters, mk->ncounters);
    else if(mk->ncounters == g->ncounters)
      bpi_counters_add(g->counters, mk->counters, mk->ncounters);
  }
  if(!rc)
    rc = bpi_profile_slice_ranges(p, r, k, &slice);
  if(!rc)
    rc = bpi_profile_set_counters(slice, g->counters, g->ncounters);
  free(r);
  if(rc) {
    bpi_profile_free(slice);
    return bpi_err_set(err, rc, 0, "profile of benchmark %u", gi + 1);
  }
  g->samples = slice->meta.samples;
  char *path = bpi_text_path_join(dir, g->dir);
  if(!path)
    rc = bpi_err_set(err, BPE_NOMEM, 0, "profile of benchmark %u", gi + 1);
  else if(!(rc = bpi_file_mkdirs_under(dir, g->dir, err)))
    rc = bpi_export_all(slice, path, err);
  free(path);
  bpi_profile_free(slice);
  return rc;
}

bp_code bpi_slice_export(const struct bp_profile *p, const char *dir,
                         struct bp_marked **out, size_t *n,
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
  for(size_t i = 0; !rc && i < *n; i++)
    rc = export_marked(p, dir, m, group, (uint32_t)i, err);
  free(group);
  return rc;
}
