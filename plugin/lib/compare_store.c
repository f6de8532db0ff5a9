/* compare_store: the sides of a comparison that live in a store
 * (publish.c's layout, storekey.h): a reference BRANCH@COMMIT or
 * BRANCH@latest -> the stored manifest's key -> a run directory fetched
 * from the store that bpi_compare_dirs reads (see compare.h). */
#include "bp_setup.h"
#include "compare.h"
#include "ci.h"
#include "err.h"
#include "fileio.h"
#include "rundir.h"
#include "text.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

bp_code bpi_compare_parse_ref(const char *text, struct bp_cmp_ref *ref,
                              struct bp_err *err)
{
  const char *at = strrchr(text, '@');
  memset(ref, 0, sizeof(*ref));
  if(!at || at == text || !at[1])
    return bpi_err_set(err, BPE_INVAL, 0, "'%s' is not a store reference "
                       "(BRANCH@COMMIT or BRANCH@latest)", text);
  const char *commit = at + 1;
  size_t n = strlen(commit);
  bool hex = n == 40 || n == 64;
  for(size_t i = 0; hex && i < n; i++)
    hex = (commit[i] >= '0' && commit[i] <= '9') ||
          (commit[i] >= 'a' && commit[i] <= 'f');
  if(strcmp(commit, "latest") && !hex)
    return bpi_err_set(err, BPE_INVAL, 0, "'%s': '%s' is neither 'latest' "
                       "nor a full commit hash (40 or 64 lowercase hex "
                       "digits)", text, commit);
  char *branch = strndup(text, (size_t)(at - text));
  ref->branch = branch ? bpi_store_key_decode(branch) : NULL;
  free(branch);
  ref->commit = hex ? strdup(commit) : NULL;
  if(!ref->branch || (hex && !ref->commit)) {
    bpi_compare_ref_cleanup(ref);
    return bpi_err_set(err, BPE_NOMEM, 0, "store reference");
  }
  return BP_OK;
}

void bpi_compare_ref_cleanup(struct bp_cmp_ref *ref)
{
  free(ref->branch);
  free(ref->commit);
  memset(ref, 0, sizeof(*ref));
}

/* bpi_store_get, except that "not found" is left for the caller to
 * explain (err untouched then). */
static bp_code store_get(struct bp_store *st, const char *key, char **data,
                         size_t *len, struct bp_err *err)
{
  struct bp_err got = {0};
  bp_code rc = bpi_store_get(st, key, data, len, &got);
  if(rc && rc != BPE_NOT_FOUND)
    bpi_err_copy(err, rc, &got);
  return rc;
}

/* A stored run (its latest pointer or manifest says owner) of another
 * repository than the one asking: its data is a stranger's code, never
 * this repository's base. */
static bp_code foreign(const char *owner, const char *repository,
                       const char *project, const char *branch,
                       struct bp_err *err)
{
  if(!bpi_repository_other(owner, repository))
    return BP_OK;
  /* not named: the comment and the job's log may be public, that
   * repository private */
  return bpi_err_set(err, BPE_CONFIG, 0, "the store's %s of project '%s' "
                     "belongs to another repository named alike; set "
                     "BENCHER_PROJECT (or bencher.project) to a name of "
                     "this repository's own", branch ? branch : "run",
                     project ? project : "?");
}

/* The branch's latest pointer -> the key of its manifest. */
static bp_code latest_manifest(struct bp_store *st, const char *project,
                               const char *branch, const char *testbed,
                               const char *suite, const char *repository,
                               char **key, struct bp_err *err)
{
  char *pkey = bpi_store_latest_key(project, branch, testbed, suite);
  char *text = NULL;
  size_t len = 0;
  bp_code rc = pkey ? store_get(st, pkey, &text, &len, err)
                    : bpi_err_set(err, BPE_NOMEM, 0, "latest key");
  if(rc == BPE_NOT_FOUND)
    rc = bpi_err_set(err, rc, 0, "branch '%s' has no run on testbed "
                     "'%s'%s%s%s in %s (no %s)", branch, testbed,
                     suite ? " of suite '" : "", suite ? suite : "",
                     suite ? "'" : "", bpi_store_url(st), pkey);
  cJSON *l = rc ? NULL : cJSON_ParseWithLength(text, len);
  const char *m = bpi_json_str(l, "manifest");
  if(!rc && !m)
    rc = bpi_err_set(err, BPE_FORMAT, 0, "%s: not a latest pointer (no "
                     "\"manifest\")", pkey);
  if(!rc)
    rc = foreign(bpi_json_str(l, "repository"), repository, project, branch,
                 err);
  if(!rc && !(*key = strdup(m)))
    rc = bpi_err_set(err, BPE_NOMEM, 0, "latest pointer");
  cJSON_Delete(l);
  free(text);
  free(pkey);
  return rc;
}

bp_code bpi_compare_locate(struct bp_store *st, const char *project,
                           const char *branch, const char *commit,
                           const char *testbed, const char *suite,
                           const char *repository, char **key,
                           struct bp_err *err)
{
  *key = NULL;
  if(suite && !*suite)
    suite = NULL;
  if(!commit)
    return latest_manifest(st, project, branch, testbed, suite, repository,
                           key, err);
  struct bp_store_run run = {project, branch, commit, testbed, suite};
  char *k = bpi_store_manifest_key(&run);
  char *text = NULL;
  size_t len = 0;
  bp_code rc = k ? store_get(st, k, &text, &len, err)
                 : bpi_err_set(err, BPE_NOMEM, 0, "manifest key");
  free(text);
  if(rc == BPE_NOT_FOUND)
    rc = bpi_err_set(err, rc, 0, "commit %.12s of branch '%s' has no run "
                     "on testbed '%s'%s%s%s in %s (no %s)", commit, branch,
                     testbed, suite ? " of suite '" : "", suite ? suite : "",
                     suite ? "'" : "", bpi_store_url(st), k);
  if(rc)
    free(k);
  else
    *key = k;
  return rc;
}

/* The suites of a branch's latest pointers for one testbed, from the
 * names in its latest/ folder ("{testbed}~~{suite}.json"), sorted. */
#define HINT_SUITES 8   /* named at most; "..." says there are more */
struct suites_seen {
  const char *prefix;     /* the testbed's key part and the separator */
  const char *own;        /* the suite looked for, not listed; NULL */
  char *names[HINT_SUITES];
  size_t n;
  bool more;
};

static void suite_seen(void *ctx, const char *name)
{
  struct suites_seen *s = ctx;
  size_t len = strlen(name), plen = strlen(s->prefix);
  size_t ext = strlen(".json");
  if(len <= plen + ext || strncmp(name, s->prefix, plen) ||
     strcmp(name + len - ext, ".json"))
    return;
  char *part = strndup(name + plen, len - plen - ext);
  char *suite = part ? bpi_store_key_decode(part) : NULL;
  free(part);
  if(!suite || (s->own && !strcmp(suite, s->own)))
    free(suite);
  else if(s->n == HINT_SUITES) {
    s->more = true;
    free(suite);
  }
  else
    s->names[s->n++] = suite;
}

static int by_text(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void list_suites(struct bp_store *st, const char *project,
                        const char *branch, const char *testbed,
                        struct suites_seen *s)
{
  const char *names[] = {project, branch};
  char *dir = bpi_store_level_key(names, 2, BP_STORE_LATEST);
  char *part = bpi_store_testbed_part(testbed, NULL);
  struct bp_buf prefix;
  bpi_buf_init(&prefix);
  bpi_buf_printf(&prefix, "%s" BP_STORE_SUITE_SEP, part ? part : "");
  bpi_buf_addc(&prefix, '\0');
  struct bp_err ignored = {0};
  s->prefix = prefix.data;
  if(dir && part && !bpi_buf_failed(&prefix))
    (void)bpi_store_list(st, dir, suite_seen, s, &ignored);
  qsort(s->names, s->n, sizeof(*s->names), by_text);
  bpi_buf_cleanup(&prefix);
  s->prefix = NULL;
  free(part);
  free(dir);
}

/* Whether branch's latest pointer for testbed without a suite is there. */
static bool has_plain(struct bp_store *st, const char *project,
                      const char *branch, const char *testbed)
{
  char *key = bpi_store_latest_key(project, branch, testbed, NULL);
  char *text = NULL;
  size_t len = 0;
  struct bp_err ignored = {0};
  bool yes = key && !bpi_store_get(st, key, &text, &len, &ignored);
  free(text);
  free(key);
  return yes;
}

static void add_suites(struct bp_buf *b, const struct suites_seen *s)
{
  bpi_buf_printf(b, "of suite%s ", s->n == 1 && !s->more ? "" : "s");
  for(size_t i = 0; i < s->n; i++)
    bpi_buf_printf(b, "%s'%s'", i ? ", " : "", s->names[i]);
  if(s->more)
    bpi_buf_adds(b, ", ...");
}

/* suite's run is missing: the branch's runs without a suite and of
 * others. */
static void hint_suite(struct bp_buf *b, const char *branch,
                       const char *testbed, const char *suite, bool plain,
                       const struct suites_seen *s, bool pr)
{
  bpi_buf_printf(b, "branch '%s' has %s on testbed '%s' ", branch,
                 plain && !s->n ? "a run" : "runs", testbed);
  if(plain)
    bpi_buf_adds(b, "without a suite");
  if(plain && s->n)
    bpi_buf_adds(b, " and ");
  if(s->n)
    add_suites(b, s);
  bpi_buf_printf(b, ", none of suite '%s': ", suite);
  if(pr)
    bpi_buf_printf(b, "run the base branch with --suite %s too (merge the "
                   "workflow change that gives this step its suite) so "
                   "that later pull requests have a base of their suite",
                   suite);
  else
    bpi_buf_adds(b, "give --suite the suite of the runs to compare (none "
                 "for the runs without one)");
}

/* The run without a suite is missing, the branch has suites' runs. */
static void hint_plain(struct bp_buf *b, const char *branch,
                       const char *testbed, const struct suites_seen *s,
                       bool pr)
{
  bpi_buf_printf(b, "branch '%s' has runs on testbed '%s' only ", branch,
                 testbed);
  add_suites(b, s);
  bpi_buf_adds(b, ", none without a suite: ");
  bpi_buf_adds(b, pr ? "give this step the --suite NAME of the base "
                       "branch's step that runs these benchmarks, so that it "
                       "is compared with that suite's runs"
                     : "give --suite NAME to compare one suite's runs");
}

char *bpi_compare_suite_hint(struct bp_store *st, const char *project,
                             const char *branch, const char *testbed,
                             const char *suite, bool pr)
{
  if(!st || !project || !branch || !testbed)
    return NULL;
  if(suite && !*suite)
    suite = NULL;
  struct suites_seen s = {.own = suite};
  bool plain = suite && has_plain(st, project, branch, testbed);
  list_suites(st, project, branch, testbed, &s);
  struct bp_buf b;
  bpi_buf_init(&b);
  if(suite && (plain || s.n))
    hint_suite(&b, branch, testbed, suite, plain, &s, pr);
  else if(!suite && s.n)
    hint_plain(&b, branch, testbed, &s, pr);
  for(size_t i = 0; i < s.n; i++)
    free(s.names[i]);
  char *text = NULL;
  if(b.len && !bpi_buf_failed(&b))
    text = strndup(b.data, b.len);
  bpi_buf_cleanup(&b);
  return text;
}

/* dir/file <- the store's object key.  An object the store does not
 * have leaves no file: compare then says the side's profile
 * is missing, as for a run directory without the file; a file an
 * earlier fetch into dir left is removed, so it is not taken for it. */
static bp_code fetch_file(struct bp_store *st, const char *key,
                          const char *dir, const char *file,
                          struct bp_err *err)
{
  char *path = bpi_text_path_join(dir, file);
  char *data = NULL;
  size_t len = 0;
  struct bp_err got = {0};
  bp_code rc = !path ? bpi_err_set(&got, BPE_NOMEM, 0, "fetch: %s", file)
               : !key ? BPE_NOT_FOUND
                      : bpi_store_get(st, key, &data, &len, &got);
  if(rc == BPE_NOT_FOUND) {
    rc = unlink(path) && errno != ENOENT
      ? bpi_err_set(err, BPE_IO, errno, "fetch: cannot remove '%s'", path)
      : BP_OK;
    free(path);
    return rc;
  }
  if(rc)
    bpi_err_copy(err, rc, &got);
  if(!rc) {
    char *slash = strrchr(path, '/');
    *slash = '\0';
    rc = bpi_file_mkdirs(path, err);
    *slash = '/';
  }
  if(!rc)
    rc = bpi_file_write(path, data, len, false, err);
  free(data);
  free(path);
  return rc;
}

/* Whether compare reads artifacts of this kind: the folded stacks (on
 * and off CPU) and the summary. */
static bool compare_reads(const char *kind)
{
  return kind && (!strcmp(kind, BP_KIND_FOLDED) ||
                  !strcmp(kind, BP_KIND_OFFCPU_FOLDED) ||
                  !strcmp(kind, BP_KIND_SUMMARY));
}

/* What compare reads of one stored benchmark, at the file names the
 * manifest gives (kept inside dir).  An artifact that was not stored (no
 * key) or that the store no longer has is left out: the comparison then
 * says that side's profile is missing instead of failing. */
static bp_code fetch_bench(struct bp_store *st,
                           const struct bp_manifest_bench *b,
                           const char *mkey, const char *dir,
                           struct bp_err *err)
{
  for(size_t i = 0; i < b->narts; i++) {
    const struct bp_manifest_artifact *a = &b->arts[i];
    if(!compare_reads(a->kind))
      continue;
    if(!a->file || !bpi_rundir_safe_path(a->file) || !strcmp(a->file, "."))
      return bpi_err_set(err, BPE_FORMAT, 0, "%s: an artifact of '%s' "
                         "without a safe file name", mkey,
                         b->name ? b->name : "?");
    bp_code rc = fetch_file(st, a->key, dir, a->file, err);
    if(rc)
      return rc;
  }
  return BP_OK;
}

/* A store published without a public URL recorded its artifacts' URLs as
 * file:// ones, which no viewer opens; read with a public URL (compare
 * --public-url), each artifact's URL is that of its key there. */
static bp_code web_urls(const struct bp_store *st, struct bp_manifest *m,
                        struct bp_err *err)
{
  for(size_t i = 0; i < m->nbenches; i++)
    for(size_t k = 0; k < m->benches[i].narts; k++) {
      struct bp_manifest_artifact *a = &m->benches[i].arts[k];
      if(!a->key || bpi_text_web_url(a->url))
        continue;
      char *url = bpi_store_public_url(st, a->key);
      if(!url)
        return bpi_err_set(err, BPE_NOMEM, 0, "fetch: artifact URL");
      if(!bpi_text_web_url(url)) {
        free(url);
        continue;
      }
      free(a->url);
      a->url = url;
    }
  return BP_OK;
}

/* The fetched side's report.json: the stored manifest's "results". */
static bp_code write_results(const struct bp_manifest *m, const char *dir,
                             struct bp_err *err)
{
  char *out = cJSON_Print(m->results);
  char *path = bpi_text_path_join(dir, BP_RUNDIR_REPORT);
  bp_code rc = out && path ? bpi_file_write(path, out, strlen(out), false,
                                            err)
                           : bpi_err_set(err, BPE_NOMEM, 0, "fetch: report");
  free(path);
  free(out);
  return rc;
}

/* Its manifest.json: the report where it now is, the publication with
 * the stored manifest's public URL. */
static bp_code write_side_manifest(struct bp_manifest *m, const char *url,
                                   const char *dir, struct bp_err *err)
{
  free(m->report);
  m->report = strdup(BP_RUNDIR_REPORT);
  cJSON_DeleteItemFromObjectCaseSensitive(m->publication, "manifest_url");
  if(url)
    cJSON_AddStringToObject(m->publication, "manifest_url", url);
  if(!m->report)
    return bpi_err_set(err, BPE_NOMEM, 0, "fetch: manifest");
  return bpi_manifest_write(m, dir, err);
}

/* The stored manifest m's run belongs to repository (or does not say). */
static bp_code own_run(const struct bp_manifest *m, const char *repository,
                       struct bp_err *err)
{
  const cJSON *id = cJSON_GetObjectItemCaseSensitive(m->publication,
                                                     "identity");
  return foreign(bpi_json_str(id, "repository"), repository,
                 bpi_json_str(id, "project"), bpi_json_str(id, "branch"),
                 err);
}

bp_code bpi_compare_fetch(struct bp_store *st, const char *key,
                          const char *repository, const char *dir,
                          struct bp_err *err)
{
  char *text = NULL, *url = NULL;
  size_t len = 0;
  struct bp_manifest m = {0};
  bp_code rc = bpi_store_get(st, key, &text, &len, err);
  if(!rc)
    rc = bpi_manifest_parse(&m, text, len, key, err);
  if(!rc && (!cJSON_IsObject(m.results) || !cJSON_IsObject(m.publication)))
    rc = bpi_err_set(err, BPE_FORMAT, 0, "%s: not a stored manifest (no "
                     "\"results\" or \"publication\")", key);
  if(!rc)
    rc = own_run(&m, repository, err);
  if(!rc)
    rc = bpi_file_mkdirs(dir, err);
  for(size_t i = 0; !rc && i < m.nbenches; i++)
    rc = fetch_bench(st, &m.benches[i], key, dir, err);
  if(!rc)
    rc = write_results(&m, dir, err);
  if(!rc)
    rc = web_urls(st, &m, err);
  if(!rc) {
    url = bpi_store_public_url(st, key);
    rc = write_side_manifest(&m, url, dir, err);
  }
  free(url);
  bpi_manifest_cleanup(&m);
  free(text);
  return rc;
}
