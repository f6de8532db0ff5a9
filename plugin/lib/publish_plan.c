/* publish_plan: what a publication sends and where, computed from the
 * spooled copy alone (publication.json's identity and files/manifest.json)
 * the same way every time, so that a flush days later sends the same keys
 * and the spool's part markers (artifact-N) stay meaningful. */
#include "bp_setup.h"
#include "publish_int.h"
#include "err.h"
#include "storekey.h"
#include "text.h"

#include <stdlib.h>
#include <string.h>

/* Add key (taken) unless the publication has it already (the keys are
 * interned: a suite of thousands of benchmarks stays linear). */
static bp_code add_art(struct arts *as, char *key, const char *file,
                       const char *kind, const char *bench,
                       struct bp_err *err)
{
  size_t had = as->keys.count;
  if(bpi_strtab_intern(&as->keys, key) == BP_NONE) {
    free(key);
    return bpi_err_set(err, BPE_NOMEM, 0, "artifact keys");
  }
  if(as->keys.count == had) {  /* stored once already */
    free(key);
    return BP_OK;
  }
  if(as->n == as->cap) {
    size_t cap = as->cap ? 2 * as->cap : 8;
    struct art *grown = realloc(as->a, cap * sizeof(*grown));
    if(!grown) {
      free(key);
      return bpi_err_set(err, BPE_NOMEM, 0, "artifacts");
    }
    as->a = grown;
    as->cap = cap;
  }
  as->a[as->n++] = (struct art){key, file, kind ? kind : "", bench};
  return BP_OK;
}

void bpi_pub_arts_cleanup(struct arts *as)
{
  for(size_t i = 0; i < as->n; i++)
    free(as->a[i].key);
  free(as->a);
  bpi_strtab_cleanup(&as->keys);
  memset(as, 0, sizeof(*as));
}

void bpi_pub_ident_of(const cJSON *meta, struct ident *id)
{
  const cJSON *i = cJSON_GetObjectItemCaseSensitive(meta, "identity");
  id->project = bpi_json_str(i, "project");
  id->branch = bpi_json_str(i, "branch");
  id->hash = bpi_json_str(i, "hash");
  id->commit = bpi_json_str(i, "commit");
  id->testbed = bpi_json_str(i, "testbed");
  id->base_branch = bpi_json_str(i, "base_branch");
  id->base_hash = bpi_json_str(i, "base_hash");
  id->commit_time = bpi_json_str(i, "commit_time");
  id->repository = bpi_json_str(i, "repository");
  id->suite = bpi_json_str(i, "suite");
}

/* The whole run's artifacts (the manifest's own list), stored once under
 * the run's key: when the harness marked its benchmarks, no benchmark has
 * them as its own, and they are the profile with a marker per benchmark;
 * otherwise the benchmarks' "." entries name the same keys already. */
static bp_code list_run_arts(const struct ident *id,
                             const struct bp_manifest *man, struct arts *as,
                             struct bp_err *err)
{
  bp_code rc = BP_OK;
  const struct bp_store_run run = {id->project, id->branch, id->commit,
                                   id->testbed, id->suite};
  for(size_t ai = 0; !rc && ai < man->narts; ai++) {
    const char *file = man->arts[ai].file;
    if(!file || strchr(file, '/'))
      return bpi_err_set(err, BPE_FORMAT, 0, "manifest: an artifact of the "
                         "run without a file name");
    char *key = bpi_store_run_artifact_key(&run, file);
    rc = key ? add_art(as, key, file, man->arts[ai].kind, NULL, err)
             : bpi_err_set(err, BPE_NOMEM, 0, "artifact key");
  }
  return rc;
}

/* Each benchmark's artifacts, in manifest order, one per distinct key:
 * {project}/{branch}/{commit}/{testbed}/{bench}/{file}, bench being the
 * benchmark's profile directory, or its name when its profile is the
 * whole invocation's ("."), stored once under the run's key; then the
 * run's own list (list_run_arts). */
/* The store key of artifact file of a benchmark whose profile is in dir
 * ("." for the whole run's, stored once under the run's key). */
char *bpi_pub_art_key(const struct ident *id, const char *dir,
                      const char *file)
{
  const struct bp_store_run run = {id->project, id->branch, id->commit,
                                   id->testbed, id->suite};
  const char *slash = strrchr(file, '/');
  const char *base = slash ? slash + 1 : file;
  return strcmp(dir, ".") ? bpi_store_artifact_key(&run, dir, base)
                          : bpi_store_run_artifact_key(&run, base);
}

/* The artifacts of benchmark b not listed yet. */
static bp_code list_bench_arts(const struct ident *id,
                               const struct bp_manifest_bench *b,
                               struct arts *as, struct bp_err *err)
{
  const char *name = b->name, *dir = b->profile;
  if(!name || !dir)
    return bpi_err_set(err, BPE_FORMAT, 0, "manifest: a benchmark without "
                       "name or profile");
  bp_code rc = BP_OK;
  for(size_t ai = 0; !rc && ai < b->narts; ai++) {
    const char *file = b->arts[ai].file, *kind = b->arts[ai].kind;
    if(!file)
      return bpi_err_set(err, BPE_FORMAT, 0, "manifest: an artifact of "
                         "'%s' without file", name);
    char *key = bpi_pub_art_key(id, dir, file);
    rc = key ? add_art(as, key, file, kind, name, err)
             : bpi_err_set(err, BPE_NOMEM, 0, "artifact key");
  }
  return rc;
}

bp_code bpi_pub_list_arts(const struct ident *id,
                          const struct bp_manifest *man, struct arts *as,
                          struct bp_err *err)
{
  bp_code rc = BP_OK;
  bpi_strtab_init(&as->keys);
  for(size_t bi = 0; !rc && bi < man->nbenches; bi++)
    rc = list_bench_arts(id, &man->benches[bi], as, err);
  return rc ? rc : list_run_arts(id, man, as, err);
}

/* The run's files a publication needs: manifest, report, artifacts, each
 * once (an interner, so that thousands of benchmarks stay linear). */
bp_code bpi_pub_spool_files(const struct bp_manifest *man,
                            const char ***files, size_t *n,
                            struct bp_err *err)
{
  struct ident none = {"p", "b", "c", "c", "t", NULL, NULL, NULL, NULL,
                       NULL};
  struct arts as = {0};
  struct bp_strtab seen;
  bpi_strtab_init(&seen);
  bp_code rc = bpi_pub_list_arts(&none, man, &as, err);
  *files = calloc(as.n + 2, sizeof(**files));
  if(!rc && !*files)
    rc = bpi_err_set(err, BPE_NOMEM, 0, "spool files");
  *n = 0;
  const char *fixed[] = {BP_RUNDIR_MANIFEST, BP_RUNDIR_REPORT};
  for(size_t i = 0; !rc && i < as.n + 2; i++) {
    const char *file = i < 2 ? fixed[i] : as.a[i - 2].file;  /* man's */
    size_t had = seen.count;
    if(bpi_strtab_intern(&seen, file) == BP_NONE)
      rc = bpi_err_set(err, BPE_NOMEM, 0, "spool files");
    else if(seen.count != had)
      (*files)[(*n)++] = file;
  }
  bpi_strtab_cleanup(&seen);
  bpi_pub_arts_cleanup(&as);
  return rc;
}

char *bpi_pub_manifest_key(const struct ident *id)
{
  const struct bp_store_run run = {id->project, id->branch, id->commit,
                                   id->testbed, id->suite};
  return bpi_store_manifest_key(&run);
}
