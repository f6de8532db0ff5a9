/* rundir_steps: the steps of one CI run merged into one stored manifest
 * (see rundir.h, "steps of a CI run"). */
#include "bp_setup.h"
#include "rundir.h"
#include "err.h"
#include "text.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

static const cJSON *ci_run_of(const struct bp_manifest *m)
{
  const cJSON *id = cJSON_GetObjectItemCaseSensitive(m->publication,
                                                     "identity");
  const cJSON *r = cJSON_GetObjectItemCaseSensitive(id, "ci_run");
  return cJSON_IsObject(r) ? r : NULL;
}

bool bpi_manifest_same_ci_run(const struct bp_manifest *a,
                              const struct bp_manifest *b)
{
  const cJSON *ra = ci_run_of(a), *rb = ci_run_of(b);
  const char *pa = bpi_json_str(ra, "provider"), *ia = bpi_json_str(ra, "id");
  const char *pb = bpi_json_str(rb, "provider"), *ib = bpi_json_str(rb, "id");
  return pa && ia && pb && ib && *ia && !strcmp(pa, pb) && !strcmp(ia, ib);
}

/* ------------------------------------------------------------ merging */

static bool same(const char *a, const char *b)
{
  return a && b && !strcmp(a, b);
}

/* Whether a kept benchmark of the earlier step would read bytes m's
 * step wrote: its own profile directory is one an m benchmark uses (two
 * names may share a directory name), so m's step stored its files over
 * the earlier ones. */
static bool profile_taken(const struct bp_strtab *profiles,
                          const struct bp_manifest_bench *b)
{
  return b->profile && strcmp(b->profile, ".") &&
         bpi_strtab_find(profiles, b->profile) != BP_NONE;
}

/* The whole run's artifacts a kept benchmark refers to (its profile
 * ".") are named by their key under the run: files
 * "~run/step-XXXXXXXX/profile.folded", profile "~run/step-XXXXXXXX", as
 * if that were its own profile directory.  The latest step's have the
 * plain names and "."; a reader that fetches both into one run directory
 * must not write one over the other, and a comparison must not write
 * their diffs into one folder. */
static bool rename_run_files(struct bp_manifest_bench *b, const char *run_key)
{
  size_t n = strlen(run_key);
  char *dir = NULL;
  if(!b->profile || strcmp(b->profile, "."))
    return true;
  for(size_t i = 0; i < b->narts; i++) {
    struct bp_manifest_artifact *a = &b->arts[i];
    const char *rel = a->key && !strncmp(a->key, run_key, n) &&
                      a->key[n] == '/' ? a->key + n + 1 : NULL;
    const char *slash = rel ? strrchr(rel, '/') : NULL;
    if(!slash || !bpi_rundir_safe_path(rel))
      continue;
    char *file = strdup(rel);
    if(!file || (!dir && !(dir = strndup(rel, (size_t)(slash - rel))))) {
      free(file);
      return false;
    }
    free(a->file);
    a->file = file;
  }
  if(dir) {
    free(b->profile);
    b->profile = dir;
  }
  return true;
}

/* Move *b (emptied) to the end of m. */
static bool take_bench(struct bp_manifest *m, struct bp_manifest_bench *b)
{
  if(m->nbenches == m->benches_cap) {
    size_t cap = m->benches_cap ? m->benches_cap * 2 : 16;
    struct bp_manifest_bench *grown = realloc(m->benches,
                                              cap * sizeof(*grown));
    if(!grown)
      return false;
    m->benches = grown;
    m->benches_cap = cap;
  }
  if(bpi_name_index_add(&m->bench_index, b->name, (uint32_t)m->nbenches))
    return false;
  m->benches[m->nbenches++] = *b;
  memset(b, 0, sizeof(*b));
  return true;
}

/* The report's entry of a kept benchmark, moved from earlier's results. */
static bool take_result(struct bp_manifest *m, struct bp_manifest *earlier,
                        const char *name)
{
  cJSON *r = cJSON_DetachItemFromObjectCaseSensitive(earlier->results, name);
  if(!r)
    return true;
  if(!m->results && !(m->results = cJSON_CreateObject())) {
    cJSON_Delete(r);
    return false;
  }
  if(cJSON_GetObjectItemCaseSensitive(m->results, name)) {
    cJSON_Delete(r);
    return true;
  }
  return cJSON_AddItemToObject(m->results, name, r);
}

/* Whether some benchmark of m is of step. */
static bool step_has_benches(const struct bp_strtab *steps, const char *step)
{
  return step && bpi_strtab_find(steps, step) != BP_NONE;
}

/* m's publication "steps": earlier's entries that still have benchmarks
 * in m (but m's own step's), then m's own. */
static bool merge_step_list(struct bp_manifest *m, struct bp_manifest *earlier,
                            const char *step)
{
  struct bp_strtab steps;
  bool ok = true;
  bpi_strtab_init(&steps);
  for(size_t i = 0; ok && i < m->nbenches; i++)
    ok = !m->benches[i].step ||
         bpi_strtab_intern(&steps, m->benches[i].step) != BP_NONE;
  cJSON *mine = cJSON_DetachItemFromObjectCaseSensitive(m->publication,
                                                        "steps");
  cJSON *old = cJSON_GetObjectItemCaseSensitive(earlier->publication,
                                                "steps");
  cJSON *list = ok && m->publication ? cJSON_CreateArray() : NULL;
  ok = list != NULL;
  cJSON *e, *next;
  for(e = ok && cJSON_IsArray(old) ? old->child : NULL; e; e = next) {
    next = e->next;
    const char *its = bpi_json_str(e, "step");
    if(!same(its, step) && step_has_benches(&steps, its))
      cJSON_AddItemToArray(list, cJSON_DetachItemViaPointer(old, e));
  }
  for(e = ok && cJSON_IsArray(mine) ? mine->child : NULL; e; e = next) {
    next = e->next;
    cJSON_AddItemToArray(list, cJSON_DetachItemViaPointer(mine, e));
  }
  cJSON_Delete(mine);
  bpi_strtab_cleanup(&steps);
  if(!ok)
    return !m->publication;
  return cJSON_AddItemToObject(m->publication, "steps", list);
}

bp_code bpi_manifest_merge_step(struct bp_manifest *m,
                                struct bp_manifest *earlier,
                                const char *run_key, struct bp_err *err)
{
  const char *step = bpi_manifest_ident_str(m, "step");
  struct bp_strtab profiles;
  bool ok = true;
  bpi_strtab_init(&profiles);
  for(size_t i = 0; ok && i < m->nbenches; i++)
    ok = !m->benches[i].profile ||
         bpi_strtab_intern(&profiles, m->benches[i].profile) != BP_NONE;
  for(size_t i = 0; ok && i < earlier->nbenches; i++) {
    struct bp_manifest_bench *b = &earlier->benches[i];
    if(!b->name || bpi_manifest_bench(m, b->name) ||
       same(b->step, step) || profile_taken(&profiles, b))
      continue;
    ok = rename_run_files(b, run_key) &&
         take_result(m, earlier, b->name) && take_bench(m, b);
  }
  bpi_strtab_cleanup(&profiles);
  /* earlier's index still names the benchmarks taken (now emptied) */
  bpi_name_index_cleanup(&earlier->bench_index);
  if(ok)
    ok = merge_step_list(m, earlier, step);
  return ok ? BP_OK : bpi_err_set(err, BPE_NOMEM, 0, "merging the steps "
                                  "of a CI run");
}

/* ------------------------------------------------- a benchmark's step */

static const cJSON *step_entry(const struct bp_manifest *m,
                               const struct bp_manifest_bench *b)
{
  if(!b || !b->step)
    return NULL;
  const cJSON *e;
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(m->publication,
                                                         "steps"))
    if(same(bpi_json_str(e, "step"), b->step))
      return e;
  return NULL;
}

static bool step_count(const cJSON *e, const char *name, double *v)
{
  const cJSON *n = cJSON_GetObjectItemCaseSensitive(e, name);
  if(!cJSON_IsNumber(n) || !(n->valuedouble >= 0) ||
     n->valuedouble > 1e15)
    return false;
  *v = n->valuedouble;
  return true;
}

uint64_t bpi_manifest_bench_repeat(const struct bp_manifest *m,
                                   const struct bp_manifest_bench *b)
{
  double v;
  const cJSON *e = step_entry(m, b);
  return e && step_count(e, "repeat", &v) ? (uint64_t)v : m->repeat;
}

size_t bpi_manifest_bench_siblings(const struct bp_manifest *m,
                                   const struct bp_manifest_bench *b)
{
  double v;
  const cJSON *e = step_entry(m, b);
  return e && step_count(e, "benchmarks", &v) ? (size_t)v : m->nbenches;
}
