/* publish: a run's report and artifacts out to Bencher and the artifact
 * store, through the spool (see publish.h).
 *
 * What is delivered is computed from the spooled copy alone (its
 * publication.json and files/manifest.json), the same way every time, so
 * a flush days later sends the same keys and bytes, and the parts done
 * markers name stay meaningful.  The parts that do not depend on each
 * other (artifacts, Firefox upload, Bencher) are each tried even when
 * another fails; the stored manifest waits for all of them (it names
 * their results) and the latest pointer for the manifest. */
#include "bp_setup.h"
#include "publish.h"
#include "buf.h"
#include "err.h"
#include "fileio.h"
#include "firefox.h"
#include "hash.h"
#include "http.h"
#include "rundir.h"
#include "site.h"
#include "spool.h"
#include "text.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define META_VERSION 1
/* the spool marker that keeps the ids of Bencher's answer (bencher.h's
 * JSON), written just before the "report" part's: not a part itself */
#define BENCHER_IDS "report-ids"
/* the spool part that marks a publication the server refused for good;
 * its value is the refusal */
#define REJECTED_PART "rejected"

/* ------------------------------------------------------------ helpers */

static void add_nullable(cJSON *obj, const char *name, const char *value)
{
  if(value)
    cJSON_AddStringToObject(obj, name, value);
  else
    cJSON_AddNullToObject(obj, name);
}

static bool is_hex_hash(const char *s)
{
  size_t len = strlen(s);
  if(len != 40 && len != 64)
    return false;
  for(size_t i = 0; i < len; i++)
    if(!strchr("0123456789abcdefABCDEF", s[i]))
      return false;
  return true;
}

/* ------------------------------------------------------- the artifacts */

/* One artifact of the publication: where it is in the spool and where it
 * goes in the store. */
struct art {
  char *key;
  const char *file;  /* relative to the run directory */
  const char *kind;
  const char *bench; /* the benchmark's name; NULL: the whole run's */
};

struct arts {
  struct art *a;
  size_t n, cap;
  struct bp_strtab keys;  /* a[i].key has id i */
};

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

static void arts_cleanup(struct arts *as)
{
  for(size_t i = 0; i < as->n; i++)
    free(as->a[i].key);
  free(as->a);
  bpi_strtab_cleanup(&as->keys);
  memset(as, 0, sizeof(*as));
}

/* The identity parts in key order, from publication.json. */
struct ident {
  const char *project, *branch, *hash, *commit, *testbed;
  const char *base_branch, *base_hash;
};

static void ident_of(const cJSON *meta, struct ident *id)
{
  const cJSON *i = cJSON_GetObjectItemCaseSensitive(meta, "identity");
  id->project = bpi_json_str(i, "project");
  id->branch = bpi_json_str(i, "branch");
  id->hash = bpi_json_str(i, "hash");
  id->commit = bpi_json_str(i, "commit");
  id->testbed = bpi_json_str(i, "testbed");
  id->base_branch = bpi_json_str(i, "base_branch");
  id->base_hash = bpi_json_str(i, "base_hash");
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
                                   id->testbed};
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
static char *art_key(const struct ident *id, const char *dir,
                     const char *file)
{
  const struct bp_store_run run = {id->project, id->branch, id->commit,
                                   id->testbed};
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
    char *key = art_key(id, dir, file);
    rc = key ? add_art(as, key, file, kind, name, err)
             : bpi_err_set(err, BPE_NOMEM, 0, "artifact key");
  }
  return rc;
}

static bp_code list_arts(const struct ident *id, const struct bp_manifest *man,
                         struct arts *as, struct bp_err *err)
{
  bp_code rc = BP_OK;
  bpi_strtab_init(&as->keys);
  for(size_t bi = 0; !rc && bi < man->nbenches; bi++)
    rc = list_bench_arts(id, &man->benches[bi], as, err);
  return rc ? rc : list_run_arts(id, man, as, err);
}

/* ------------------------------------------------------ spooling a run */

static bp_code check_ident(const struct bp_publish_opts *o,
                           struct bp_err *err)
{
  const char *req[][2] = {{"project", o->project}, {"branch", o->branch},
                          {"testbed", o->testbed}};
  for(size_t i = 0; i < BP_ARRAY_LEN(req); i++)
    if(!req[i][1] || !*req[i][1])
      return bpi_err_set(err, BPE_INVAL, 0, "publish: no %s", req[i][0]);
  /* they go as they are into the stored manifest and the spool's JSON,
   * which must stay valid UTF-8 (and say what the store keys say) */
  const char *names[][2] = {{"project", o->project}, {"branch", o->branch},
                            {"testbed", o->testbed},
                            {"base branch", o->base_branch}};
  for(size_t i = 0; i < BP_ARRAY_LEN(names); i++)
    if(names[i][1] && !bpi_text_utf8_valid(names[i][1]))
      return bpi_err_set(err, BPE_INVAL, 0, "publish: the %s name is not "
                         "valid UTF-8", names[i][0]);
  /* the targets go into the spool and the stored (public) manifest */
  const char *urls[][2] = {{"Bencher host (BENCHER_HOST)", o->bencher.host},
                           {"Firefox Profiler API", o->firefox_api},
                           {"store", o->store.url},
                           {"public URL", o->store.public_url},
                           {"S3 endpoint", o->store.s3_endpoint}};
  for(size_t i = 0; i < BP_ARRAY_LEN(urls); i++)
    if(bpi_http_url_has_credentials(urls[i][1]))
      return bpi_err_set(err, BPE_INVAL, 0, "publish: the %s URL has "
                         "credentials (user:password@); they do not belong "
                         "in a URL: use the token variables", urls[i][0]);
  if(o->hash && !is_hex_hash(o->hash))
    return bpi_err_set(err, BPE_INVAL, 0, "publish: hash '%s' is not a full "
                       "git commit hash (40 or 64 hex digits)", o->hash);
  if(o->base_hash && !is_hex_hash(o->base_hash))
    return bpi_err_set(err, BPE_INVAL, 0, "publish: base hash '%s' is not a "
                       "full git commit hash", o->base_hash);
  return BP_OK;
}

/* A store URL that can never work is the command line's mistake: say so
 * now rather than spool a publication no flush could deliver. */
static bp_code check_store(const struct bp_publish_opts *o,
                           struct bp_err *err)
{
  struct bp_store *st = NULL;
  struct bp_store_opts so = o->store;
  if(!so.url)
    return BP_OK;
  so.http = &o->http;
  bp_code rc = bpi_store_open(&st, &so, err);
  bpi_store_close(st);
  return rc;
}

/* publication.json: who, when, where to; never a credential. */
static cJSON *make_meta(const struct bp_publish_opts *o, const char *run_dir,
                        const char *start, const char *end, const char *key)
{
  char commit[64], created[32];
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(created, sizeof(created), "%Y-%m-%dT%H:%M:%SZ", &tm);
  /* without a commit: the time for people, and the first 8 hex digits of
   * the publication's random key, so two runs in one second never share
   * a key (the second manifest replaced the first) */
  size_t n = strftime(commit, sizeof(commit), "local-%Y%m%dT%H%M%SZ-", &tm);
  snprintf(commit + n, sizeof(commit) - n, "%.8s", key);
  cJSON *m = cJSON_CreateObject();
  cJSON *id = cJSON_AddObjectToObject(m, "identity");
  cJSON_AddNumberToObject(m, "version", META_VERSION);
  cJSON_AddStringToObject(m, "created", created);
  cJSON_AddStringToObject(m, "run_dir", run_dir);
  cJSON_AddStringToObject(m, "start_time", start);
  cJSON_AddStringToObject(m, "end_time", end);
  cJSON_AddStringToObject(id, "project", o->project);
  cJSON_AddStringToObject(id, "branch", o->branch);
  add_nullable(id, "hash", o->hash);
  cJSON_AddStringToObject(id, "commit", o->hash ? o->hash : commit);
  cJSON_AddStringToObject(id, "testbed", o->testbed);
  add_nullable(id, "base_branch", o->base_branch);
  add_nullable(id, "base_hash", o->base_branch ? o->base_hash : NULL);
  if(o->store.url) {
    cJSON *s = cJSON_AddObjectToObject(m, "store");
    cJSON_AddStringToObject(s, "url", o->store.url);
    add_nullable(s, "public_url", o->store.public_url);
    add_nullable(s, "s3_endpoint", o->store.s3_endpoint);
    add_nullable(s, "s3_region", o->store.s3_region);
    cJSON_AddBoolToObject(s, "s3_path_style", o->store.s3_path_style);
  }
  else
    cJSON_AddNullToObject(m, "store");
  if(o->bencher.token) {
    cJSON *b = cJSON_AddObjectToObject(m, "bencher");
    cJSON_AddStringToObject(b, "host", o->bencher.host ? o->bencher.host
                                                       : BP_BENCHER_HOST);
    add_nullable(b, "console", o->bencher_console);
    cJSON_AddStringToObject(b, "idempotency_key", key);
    if(o->bencher_measures_only)
      cJSON_AddFalseToObject(b, "post_report");
  }
  else
    cJSON_AddNullToObject(m, "bencher");
  if(o->firefox_upload) {
    cJSON *f = cJSON_AddObjectToObject(m, "firefox");
    cJSON_AddStringToObject(f, "api", o->firefox_api ? o->firefox_api
                                                     : BP_FIREFOX_API);
  }
  else
    cJSON_AddNullToObject(m, "firefox");
  return m;
}

/* The run's files a publication needs: manifest, report, artifacts. */
static bp_code spool_files(const struct bp_manifest *man, const char ***files,
                           size_t *n,
                           struct bp_err *err)
{
  struct ident none = {"p", "b", "c", "c", "t", NULL, NULL};
  struct arts as = {0};
  bp_code rc = list_arts(&none, man, &as, err);
  *files = calloc(as.n + 2, sizeof(**files));
  if(!rc && !*files)
    rc = bpi_err_set(err, BPE_NOMEM, 0, "spool files");
  if(!rc) {
    (*files)[0] = BP_RUNDIR_MANIFEST;
    (*files)[1] = BP_RUNDIR_REPORT;
    *n = 2;
    for(size_t i = 0; i < as.n; i++) {
      bool dup = false;
      for(size_t j = 0; j < *n && !dup; j++)
        dup = !strcmp((*files)[j], as.a[i].file);
      if(!dup)
        (*files)[(*n)++] = as.a[i].file;  /* strings of man */
    }
  }
  arts_cleanup(&as);
  return rc;
}

/* ------------------------------------------------------------ delivery */

/* What one delivery works with. */
struct job {
  const struct bp_publish_opts *o;
  struct bp_spool_pub *sp;
  cJSON *meta;
  struct bp_manifest man;
  struct ident id;
  struct arts arts;
  struct bp_store *store;      /* NULL without a store */
  struct bp_publish_result *res;
  size_t parts, done;
  struct bp_bencher_ids bencher;  /* Bencher's answer, when known */
};

static bool part_done(struct job *j, const char *part, char **value)
{
  j->parts++;
  bool is = bpi_spool_done(j->sp, part, value);
  j->done += is;
  return is;
}

static bp_code mark(struct job *j, const char *part, const char *value)
{
  bp_code rc = bpi_spool_mark(j->sp, part, value, &j->res->failure);
  j->done += rc == BP_OK;
  return rc;
}

static void content_type(const char *file, const char **type,
                         const char **enc)
{
  bpi_store_content_type(file, type, enc);
}

static bp_code put_artifacts(struct job *j)
{
  bp_code rc = BP_OK;
  for(size_t i = 0; i < j->arts.n; i++) {
    char part[32];
    snprintf(part, sizeof(part), "artifact-%zu", i);
    if(part_done(j, part, NULL) || rc)
      continue;  /* after a failure the store is likely down: count only */
    const struct art *a = &j->arts.a[i];
    char *path = NULL;
    struct bp_buf r;
    bpi_buf_init(&r);
    bpi_buf_printf(&r, BP_SPOOL_FILES "/%s", a->file);
    path = bpi_buf_failed(&r) ? NULL : bpi_spool_path(j->sp, r.data);
    const char *type, *enc;
    content_type(a->file, &type, &enc);
    rc = path ? bpi_store_put_file(j->store, a->key, path, type, enc,
                                   &j->res->failure)
              : bpi_err_set(&j->res->failure, BPE_NOMEM, 0, "spool path");
    if(!rc)
      rc = mark(j, part, a->key);
    free(path);
    bpi_buf_cleanup(&r);
  }
  return rc;
}

/* The Gecko profile a to the Firefox Profiler's public store; *lost:
 * the store may have it although no answer came (never sent again). */
static bp_code firefox_upload(struct job *j, const struct art *a,
                              char **link, bool *lost)
{
  const cJSON *ff = cJSON_GetObjectItemCaseSensitive(j->meta, "firefox");
  struct bp_buf rel;
  bpi_buf_init(&rel);
  bpi_buf_printf(&rel, BP_SPOOL_FILES "/%s", a->file);
  char *path = bpi_buf_failed(&rel) ? NULL : bpi_spool_path(j->sp, rel.data);
  bp_code rc = path ? bpi_firefox_upload(&j->o->http,
                                         bpi_json_str(ff, "api"), path, link,
                                         lost, &j->res->failure)
                    : bpi_err_set(&j->res->failure, BPE_NOMEM, 0, "upload");
  free(path);
  bpi_buf_cleanup(&rel);
  return rc;
}

static bp_code put_firefox(struct job *j)
{
  if(!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(j->meta, "firefox")))
    return BP_OK;
  bp_code rc = BP_OK;
  for(size_t i = 0; i < j->arts.n; i++) {
    const struct art *a = &j->arts.a[i];
    char part[32], *link = NULL;
    if(strcmp(a->kind, "firefox-profiler"))
      continue;
    snprintf(part, sizeof(part), "firefox-%zu", i);
    if(part_done(j, part, &link)) {
      /* "": its upload's answer was lost (below) */
      if(!j->res->firefox_url && link && *link)
        j->res->firefox_url = link;
      else
        free(link);
      continue;
    }
    if(rc)
      continue;
    bool lost = false;
    rc = firefox_upload(j, a, &link, &lost);
    if(rc && lost) {
      /* the store may have made it public: done, without its link, and
       * never uploaded again (at most one public copy) */
      j->res->firefox_lost = true;
      bpi_err_clear(&j->res->failure);
      rc = mark(j, part, "");
      continue;
    }
    if(!rc)
      rc = mark(j, part, link);
    if(!rc && !j->res->firefox_url)
      j->res->firefox_url = link;
    else
      free(link);
  }
  return rc;
}

/* The ids of Bencher's answer, kept in the spool before the report part
 * is marked (a kill in between: the retry's idempotency key answers the
 * same report, so the ids stay right). */
static bp_code keep_bencher_ids(struct job *j)
{
  struct bp_buf text;
  bpi_buf_init(&text);
  bp_code rc = bpi_bencher_ids_json(&j->bencher, &text);
  bpi_buf_addc(&text, '\0');
  if(rc || bpi_buf_failed(&text))
    rc = bpi_err_set(&j->res->failure, BPE_NOMEM, 0, "Bencher ids");
  else
    rc = bpi_spool_mark(j->sp, BENCHER_IDS, text.data, &j->res->failure);
  bpi_buf_cleanup(&text);
  return rc;
}

/* A report delivered before: its ids, when they were kept (a spool of an
 * older benchprof has none: then only the report's page is linked). */
static void load_bencher_ids(struct job *j)
{
  char *text = NULL;
  struct bp_err ignored = {0};
  if(bpi_spool_done(j->sp, BENCHER_IDS, &text) && text)
    bpi_bencher_ids_read(text, strlen(text), &j->bencher, &ignored);
  free(text);
}

/* publication.bencher: the host, the report and what Bencher's console
 * plots by (project slug, branch, head and testbed uuids, the report's
 * end); pieces Bencher's answer lacked are null. */
static void add_bencher_pub(cJSON *p, const struct job *j)
{
  const cJSON *bencher = cJSON_GetObjectItemCaseSensitive(j->meta,
                                                         "bencher");
  if(!cJSON_IsObject(bencher)) {
    cJSON_AddNullToObject(p, "bencher");
    return;
  }
  const struct bp_bencher_ids *ids = &j->bencher;
  cJSON *bo = cJSON_AddObjectToObject(p, "bencher");
  cJSON_AddStringToObject(bo, "host", bpi_json_str(bencher, "host"));
  add_nullable(bo, "console", bpi_json_str(bencher, "console"));
  add_nullable(bo, "report_uuid", j->res->report_uuid);
  add_nullable(bo, "project", ids->project);
  add_nullable(bo, "branch_uuid", ids->branch);
  add_nullable(bo, "head_uuid", ids->head);
  add_nullable(bo, "testbed_uuid", ids->testbed);
  add_nullable(bo, "end_time", ids->end_time ? ids->end_time
                                             : bpi_json_str(j->meta, "end_time"));
}

/* Each of man's benchmarks gets "bencher": {"benchmark_uuid": U,
 * "measures": {SLUG: U}} from Bencher's answer (an old one is dropped). */
static void add_bencher_benches(struct bp_manifest *man, const struct job *j)
{
  for(size_t k = 0; k < man->nbenches; k++) {
    struct bp_manifest_bench *b = &man->benches[k];
    cJSON_Delete(b->bencher);
    b->bencher = NULL;
    const struct bp_bencher_bench_id *id =
      bpi_bencher_ids_bench(&j->bencher, b->name);
    if(!id)
      continue;
    cJSON *o = b->bencher = cJSON_CreateObject();
    add_nullable(o, "benchmark_uuid", id->uuid);
    cJSON *ms = cJSON_AddObjectToObject(o, "measures");
    for(size_t i = 0; ms && i < id->nmeasures; i++)
      cJSON_AddStringToObject(ms, id->measures[i].slug,
                              id->measures[i].uuid);
    /* Bencher's alerts: its verdict on a measure, for the comparison */
    cJSON *al = NULL;
    for(size_t i = 0; i < id->nmeasures; i++) {
      if(!id->measures[i].alert)
        continue;
      if(!al)
        al = cJSON_AddObjectToObject(o, "alerts");
      cJSON *x = al ? cJSON_AddObjectToObject(al, id->measures[i].slug)
                    : NULL;
      if(x) {
        cJSON_AddStringToObject(x, "uuid", id->measures[i].alert);
        cJSON_AddStringToObject(x, "limit", id->measures[i].alert_limit);
      }
    }
  }
}

static bp_code put_bencher(struct job *j)
{
  const cJSON *b = cJSON_GetObjectItemCaseSensitive(j->meta, "bencher");
  if(!cJSON_IsObject(b))
    return BP_OK;
  struct bp_err *err = &j->res->failure;
  /* a Bencher runner's job: its runner posts the report */
  bool post = !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(b,
                                                              "post_report"));
  bool measured = part_done(j, "measures", NULL);
  if(!post && measured)
    return BP_OK;
  if(post && part_done(j, "report", &j->res->report_uuid)) {
    load_bencher_ids(j);
    return BP_OK;
  }
  if(!j->o->bencher.token)
    return bpi_err_set(err, BPE_CONFIG, 0, "no Bencher API token to send "
                       "the report with (set $BENCHER_API_TOKEN)");
  struct bp_bencher_opts bo = {bpi_json_str(b, "host"), j->o->bencher.token,
                               &j->o->http};
  char *bmf = NULL, *path = bpi_spool_path(j->sp, BP_SPOOL_FILES "/"
                                                  BP_RUNDIR_REPORT);
  bp_code rc = path ? bpi_file_read(path, &bmf, NULL, err)
                    : bpi_err_set(err, BPE_NOMEM, 0, "spool path");
  if(!rc && !measured) {
    rc = bpi_bencher_ensure_measures(&bo, j->id.project, bmf, err);
    if(!rc)
      rc = mark(j, "measures", NULL);
  }
  if(!rc && post) {
    struct bp_bencher_report r = {
      .project = j->id.project, .branch = j->id.branch, .hash = j->id.hash,
      .testbed = j->id.testbed, .start_branch = j->id.base_branch,
      .start_hash = j->id.base_hash,
      .start_time = bpi_json_str(j->meta, "start_time"),
      .end_time = bpi_json_str(j->meta, "end_time"), .bmf = bmf,
      .idempotency_key = bpi_json_str(b, "idempotency_key"),
    };
    rc = bpi_bencher_post_ids(&bo, &r, &j->bencher, err);
    if(!rc)
      rc = keep_bencher_ids(j);
    if(!rc && !(j->res->report_uuid = strdup(j->bencher.report)))
      rc = bpi_err_set(err, BPE_NOMEM, 0, "report uuid");
    if(!rc)
      rc = mark(j, "report", j->res->report_uuid);
  }
  free(bmf);
  free(path);
  return rc;
}

/* a, stored under key (taken), gets that key, its public URL and its
 * Firefox Profiler link. */
static void annotate_art(struct job *j, struct bp_manifest_artifact *a,
                         char *key)
{
  uint32_t i = key ? bpi_strtab_find(&j->arts.keys, key) : BP_NONE;
  free(key);
  if(i == BP_NONE)
    return;
  const struct art *t = &j->arts.a[i];
  char part[32];
  free(a->key);
  free(a->url);
  free(a->firefox_url);
  a->key = strdup(t->key);
  a->url = bpi_store_public_url(j->store, t->key);
  a->firefox_url = NULL;
  snprintf(part, sizeof(part), "firefox-%u", (unsigned)i);
  if(!bpi_spool_done(j->sp, part, &a->firefox_url))
    a->firefox_url = NULL;
}

/* The stored manifest: the run's, each benchmark's artifacts with their
 * keys and public URLs (and its Bencher benchmark and measure uuids), the
 * identity, the report (BMF) itself, the Bencher report's ids and the
 * Firefox Profiler links. */
static char *stored_manifest(struct job *j)
{
  struct bp_manifest m;
  struct bp_err ignored = {0};
  struct bp_buf text;
  char *files = bpi_spool_path(j->sp, BP_SPOOL_FILES);
  char *bmf = NULL, *path = bpi_spool_path(j->sp, BP_SPOOL_FILES "/"
                                                  BP_RUNDIR_REPORT);
  cJSON *rep = NULL;
  bpi_buf_init(&text);
  if(path && !bpi_file_read(path, &bmf, NULL, &ignored))
    rep = cJSON_Parse(bmf);
  free(bmf);
  free(path);
  if(!files || bpi_manifest_read(&m, files, &ignored)) {
    free(files);
    cJSON_Delete(rep);
    return NULL;
  }
  free(files);
  for(size_t bi = 0; bi < m.nbenches; bi++) {
    struct bp_manifest_bench *b = &m.benches[bi];
    for(size_t ai = 0; ai < b->narts; ai++) {
      struct bp_manifest_artifact *a = &b->arts[ai];
      annotate_art(j, a, a->file && b->profile ?
                         art_key(&j->id, b->profile, a->file) : NULL);
    }
  }
  const struct bp_store_run run = {j->id.project, j->id.branch, j->id.commit,
                                   j->id.testbed};
  for(size_t ai = 0; ai < m.narts; ai++)
    annotate_art(j, &m.arts[ai], m.arts[ai].file ?
                 bpi_store_run_artifact_key(&run, m.arts[ai].file) : NULL);
  cJSON *p = cJSON_CreateObject();
  cJSON *id = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(j->meta,
                                                               "identity"),
                              true);
  if(id)
    cJSON_AddItemToObject(p, "identity", id);
  cJSON_AddStringToObject(p, "start_time", bpi_json_str(j->meta, "start_time"));
  cJSON_AddStringToObject(p, "end_time", bpi_json_str(j->meta, "end_time"));
  cJSON_AddStringToObject(p, "store", bpi_store_url(j->store));
  add_bencher_pub(p, j);
  add_bencher_benches(&m, j);
  add_nullable(p, "firefox_url", j->res->firefox_url);
  cJSON_Delete(m.publication);
  m.publication = p;
  cJSON_Delete(m.results);
  m.results = rep;
  char *out = bpi_manifest_print(&m, &text, &ignored) ? NULL : text.data;
  if(!out)
    bpi_buf_cleanup(&text);
  bpi_manifest_cleanup(&m);
  return out;
}

static char *manifest_key(const struct ident *id)
{
  const struct bp_store_run run = {id->project, id->branch, id->commit,
                                   id->testbed};
  return bpi_store_manifest_key(&run);
}

static bp_code put_manifest(struct job *j, const char *key)
{
  if(part_done(j, "manifest", NULL))
    return BP_OK;
  char *text = stored_manifest(j);
  bp_code rc = text ? bpi_store_put(j->store, key, text, strlen(text),
                                    "application/json", NULL,
                                    &j->res->failure)
                    : bpi_err_set(&j->res->failure, BPE_NOMEM, 0,
                                  "stored manifest");
  if(!rc)
    rc = mark(j, "manifest", key);
  free(text);
  return rc;
}

/* The branch's latest pointer, unless a newer run already set it (a spool
 * flushed late must not move it back). */
/* The latest pointer as this publication would write it, given the one
 * stored now (cur, NULL when none): never moves back to an older run. */
struct latest_ctx {
  struct job *j;
  const char *mkey;
  bool newer;    /* the stored one is newer: left alone */
};

static int decide_latest(void *ctx, const char *cur, size_t len, char **out)
{
  struct latest_ctx *c = ctx;
  struct job *j = c->j;
  const char *end = bpi_json_str(j->meta, "end_time");
  cJSON *prev = cur ? cJSON_ParseWithLength(cur, len) : NULL;
  const char *prev_end = bpi_json_str(prev, "end_time");
  c->newer = prev_end && end && strcmp(prev_end, end) > 0;
  cJSON_Delete(prev);
  if(c->newer)
    return 0;
  char *url = bpi_store_public_url(j->store, c->mkey);
  cJSON *l = cJSON_CreateObject();
  cJSON_AddStringToObject(l, "project", j->id.project);
  cJSON_AddStringToObject(l, "branch", j->id.branch);
  cJSON_AddStringToObject(l, "commit", j->id.commit);
  add_nullable(l, "hash", j->id.hash);
  cJSON_AddStringToObject(l, "testbed", j->id.testbed);
  cJSON_AddStringToObject(l, "end_time", end ? end : "");
  cJSON_AddStringToObject(l, "manifest", c->mkey);
  add_nullable(l, "manifest_url", url);
  add_nullable(l, "report_uuid", j->res->report_uuid);
  *out = cJSON_Print(l);
  cJSON_Delete(l);
  free(url);
  return *out ? 1 : -1;
}

/* latest/{testbed}.json names this run's manifest unless a newer run's
 * is there: a conditional write (bpi_store_update), so an older
 * publication flushed late can never move it back, even when it races
 * the newer one. */
static bp_code put_latest(struct job *j, const char *mkey)
{
  if(part_done(j, "latest", NULL))
    return BP_OK;
  struct bp_err *err = &j->res->failure;
  char *key = bpi_store_latest_key(j->id.project, j->id.branch,
                                   j->id.testbed);
  struct latest_ctx c = {.j = j, .mkey = mkey};
  bp_code rc = key ? bpi_store_update(j->store, key, "application/json",
                                      decide_latest, &c, err)
                   : bpi_err_set(err, BPE_NOMEM, 0, "latest key");
  if(!rc)
    rc = mark(j, "latest", c.newer ? "newer" : key);
  free(key);
  return rc;
}

/* The store's static pages (site.h), made after the latest pointer from
 * the stored manifest. */
static bp_code put_site(struct job *j)
{
  if(part_done(j, "site", NULL))
    return BP_OK;
  char *text = stored_manifest(j);
  bp_code rc = text ? bpi_site_publish(j->store, text, strlen(text),
                                       &j->res->failure)
                    : bpi_err_set(&j->res->failure, BPE_NOMEM, 0,
                                  "stored manifest");
  if(!rc)
    rc = mark(j, "site", "written");
  free(text);
  return rc;
}

static bp_code open_store(struct job *j)
{
  const cJSON *s = cJSON_GetObjectItemCaseSensitive(j->meta, "store");
  if(!cJSON_IsObject(s))
    return BP_OK;
  struct bp_store_opts so = j->o->store;  /* credentials */
  so.url = bpi_json_str(s, "url");
  so.public_url = bpi_json_str(s, "public_url");
  so.s3_endpoint = bpi_json_str(s, "s3_endpoint");
  so.s3_region = bpi_json_str(s, "s3_region");
  so.s3_path_style = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
                                    s, "s3_path_style"));
  so.http = &j->o->http;
  if(!so.url)
    return bpi_err_set(&j->res->failure, BPE_FORMAT, 0, "publication %s: "
                       "store without url", j->sp->id);
  return bpi_store_open(&j->store, &so, &j->res->failure);
}

static bp_code load_job(struct job *j)
{
  struct bp_err *err = &j->res->failure;
  char *meta = NULL;
  size_t len = 0;
  char *man = bpi_spool_path(j->sp, BP_SPOOL_FILES);
  bp_code rc = man ? bpi_spool_meta(j->sp, &meta, &len, err)
                   : bpi_err_set(err, BPE_NOMEM, 0, "spool path");
  if(!rc && !(j->meta = cJSON_ParseWithLength(meta, len)))
    rc = bpi_err_set(err, BPE_FORMAT, 0, "publication %s: %s is not valid "
                     "JSON", j->sp->id, BP_SPOOL_META);
  if(!rc)
    rc = bpi_manifest_read(&j->man, man, err);
  free(meta);
  free(man);
  if(rc)
    return rc;
  ident_of(j->meta, &j->id);
  if(!j->id.project || !j->id.branch || !j->id.commit || !j->id.testbed)
    return bpi_err_set(err, BPE_FORMAT, 0, "publication %s: incomplete "
                       "identity", j->sp->id);
  rc = list_arts(&j->id, &j->man, &j->arts, err);
  if(!rc)
    rc = open_store(j);
  return rc;
}

/* The run directory's manifest.json tells where its publication is, if it
 * is still that run's (the directory may have been reused), with the
 * Bencher ids as the stored manifest has them. */
static void note_in_run(const char *run_dir, const struct job *j)
{
  const struct bp_publish_result *r = j->res;
  struct bp_err ignored = {0};
  struct bp_manifest m;
  if(bpi_manifest_read(&m, run_dir, &ignored))
    return;
  const char *old_id = bpi_manifest_pub_str(&m, "spool_id");
  if(m.publication && (!old_id || strcmp(old_id, r->id)))
    goto out;
  cJSON *p = cJSON_CreateObject();
  cJSON_AddStringToObject(p, "state", r->delivered ? "delivered" :
                                      r->direct ? "failed" : "spooled");
  cJSON_AddStringToObject(p, "spool_id", r->id);
  if(r->direct)  /* the spool could not hold it: sent straight away */
    cJSON_AddStringToObject(p, "not_spooled", r->spool_failure.msg);
  add_nullable(p, "report_uuid", r->report_uuid);
  add_nullable(p, "manifest_url", r->manifest_url);
  add_nullable(p, "firefox_url", r->firefox_url);
  add_bencher_pub(p, j);
  add_nullable(p, "error", r->delivered ? NULL : r->failure.msg[0]
                                                 ? r->failure.msg
                                                 : bp_strerror(
                                                     r->failure.code));
  cJSON_Delete(m.publication);
  m.publication = p;
  add_bencher_benches(&m, j);
  bpi_manifest_write(&m, run_dir, &ignored);
out:
  bpi_manifest_cleanup(&m);
}

/* A server's final refusal of what was sent (400 Bad Request, 409
 * Conflict, 413 Too Large, 422 Unprocessable): sending it again cannot
 * help, so the publication is marked rejected and flush stops trying.
 * 401, 403 and 404 are left to retry: a token or a URL is fixed outside
 * the publication. */
static bool refused_for_good(const struct bp_err *e)
{
  if(e->code != BPE_HTTP)
    return false;
  const char *at = strstr(e->msg, ": HTTP ");
  long status = at ? strtol(at + 7, NULL, 10) : 0;
  return status == 400 || status == 409 || status == 413 || status == 422;
}

/* Deliver what is left of one locked publication; sp is consumed. */
static void deliver(const struct bp_publish_opts *o, struct bp_spool_pub *sp,
                    struct bp_publish_result *res)
{
  struct job j = {.o = o, .sp = sp, .res = res};
  char *mkey = NULL;
  bp_code rc = load_job(&j);
  if(!rc) {
    bp_code store_rc = j.store ? put_artifacts(&j) : BP_OK;
    bp_code ff_rc = put_firefox(&j);
    bp_code b_rc = put_bencher(&j);
    rc = store_rc ? store_rc : ff_rc ? ff_rc : b_rc;
  }
  if(j.store && !(mkey = manifest_key(&j.id)))
    rc = rc ? rc : bpi_err_set(&res->failure, BPE_NOMEM, 0, "key");
  if(j.store && mkey) {
    res->manifest_url = bpi_store_public_url(j.store, mkey);
    /* each waits for everything before it */
    if(rc)
      part_done(&j, "manifest", NULL);
    else
      rc = put_manifest(&j, mkey);
    if(rc)
      part_done(&j, "latest", NULL);
    else
      rc = put_latest(&j, mkey);
    if(rc)
      part_done(&j, "site", NULL);
    else
      rc = put_site(&j);
  }
  res->parts = j.parts;
  res->parts_done = j.done;
  const char *run_dir = bpi_json_str(j.meta, "run_dir");
  char *run = run_dir ? strdup(run_dir) : NULL;
  if(!rc && j.done == j.parts) {
    struct bp_err rm = {0};
    if(bpi_spool_remove(sp, &rm))
      bpi_err_set(&res->failure, rm.code, rm.sys_errno, "%s", rm.msg);
    else
      res->delivered = true;
    sp = NULL;
  }
  else if(!rc)
    bpi_err_set(&res->failure, BPE_IO, 0, "publication %s: %zu of %zu "
                "parts delivered", res->id, j.done, j.parts);
  else if(refused_for_good(&res->failure) &&
          !bpi_spool_mark(sp, REJECTED_PART, res->failure.msg,
                          &res->failure))
    res->rejected = true;
  bpi_spool_close(sp);
  if(run)
    note_in_run(run, &j);
  free(run);
  free(mkey);
  bpi_store_close(j.store);
  arts_cleanup(&j.arts);
  bpi_bencher_ids_cleanup(&j.bencher);
  bpi_manifest_cleanup(&j.man);
  cJSON_Delete(j.meta);
}

void bpi_publish_result_cleanup(struct bp_publish_result *r)
{
  free(r->id);
  free(r->report_uuid);
  free(r->manifest_url);
  free(r->firefox_url);
  memset(r, 0, sizeof(*r));
}

/* Lock id and deliver it into res (res->id set). */
static bp_code deliver_id(const struct bp_publish_opts *o, const char *id,
                          struct bp_publish_result *res, struct bp_err *err)
{
  struct bp_spool_pub *sp = NULL;
  memset(res, 0, sizeof(*res));
  if(!(res->id = strdup(id)))
    return bpi_err_set(err, BPE_NOMEM, 0, "publication id");
  bp_code rc = bpi_spool_open(o->spool_dir, id, &sp, err);
  if(rc)
    return rc;
  if(!sp) {
    res->busy = true;
    bpi_err_set(&res->failure, BPE_IO, 0, "publication %s is being "
                "delivered by another benchprof process", id);
    return BP_OK;
  }
  char *why = NULL;
  if(bpi_spool_done(sp, REJECTED_PART, &why)) {
    /* said when it was rejected; kept for --list and --drop */
    res->rejected = res->rejected_before = true;
    bpi_err_set(&res->failure, BPE_HTTP, 0, "%s", why ? why : "rejected");
    free(why);
    bpi_spool_close(sp);
    return BP_OK;
  }
  deliver(o, sp, res);
  return BP_OK;
}

/* The spool cannot hold the publication (full, read-only, unwritable):
 * rather than lose it, deliver it once from the run directory, with its
 * progress kept in memory.  res->direct and res->spool_failure say so. */
static bp_code deliver_direct(const struct bp_publish_opts *o,
                              const char *run_dir, const char *meta,
                              const char *key, struct bp_publish_result *res,
                              struct bp_err *err)
{
  struct bp_spool_pub *sp = NULL;
  char id[64];
  snprintf(id, sizeof(id), "direct-%.8s", key);
  bp_code rc = bpi_spool_direct(run_dir, meta, id, &sp, err);
  if(rc)
    return rc;
  struct bp_err why = res->spool_failure;
  memset(res, 0, sizeof(*res));
  res->spool_failure = why;
  res->direct = true;
  if(!(res->id = strdup(id))) {
    bpi_spool_close(sp);
    return bpi_err_set(err, BPE_NOMEM, 0, "publication id");
  }
  deliver(o, sp, res);
  return BP_OK;
}

bp_code bpi_publish_run(const struct bp_publish_opts *o, const char *run_dir,
                        const char *start_time, const char *end_time,
                        struct bp_publish_result *res, struct bp_err *err)
{
  char key[37], abs[PATH_MAX], *id = NULL;
  const char **files = NULL;
  size_t nfiles = 0;
  struct bp_manifest man = {0};
  cJSON *meta = NULL;
  char *text = NULL;
  memset(res, 0, sizeof(*res));
  if(!o->spool_dir)
    return bpi_err_set(err, BPE_INVAL, 0, "publish: no spool directory");
  bp_code rc = check_ident(o, err);
  if(!rc && !realpath(run_dir, abs))
    rc = bpi_err_set(err, BPE_IO, errno, "cannot resolve '%s'", run_dir);
  if(!rc)
    rc = bpi_manifest_read(&man, abs, err);
  if(!rc)
    rc = spool_files(&man, &files, &nfiles, err);
  if(!rc)
    rc = check_store(o, err);
  if(!rc)
    rc = bpi_uuid4(key, err);
  if(!rc && !(meta = make_meta(o, abs, start_time, end_time, key)))
    rc = bpi_err_set(err, BPE_NOMEM, 0, "publication");
  if(!rc && !(text = cJSON_Print(meta)))
    rc = bpi_err_set(err, BPE_NOMEM, 0, "publication");
  if(!rc &&
     bpi_spool_add(o->spool_dir, abs, files, nfiles, text, strlen(text),
                   &id, &res->spool_failure))
    rc = deliver_direct(o, abs, text, key, res, err);
  else if(!rc)
    rc = deliver_id(o, id, res, err);
  free(id);
  free(text);
  cJSON_Delete(meta);
  free(files);
  bpi_manifest_cleanup(&man);
  return rc;
}

bp_code bpi_publish_flush(const struct bp_publish_opts *o,
                          void (*each)(void *ctx,
                                       const struct bp_publish_result *r),
                          void *ctx, struct bp_err *err)
{
  char **ids = NULL;
  size_t n = 0;
  if(!o->spool_dir)
    return bpi_err_set(err, BPE_INVAL, 0, "flush: no spool directory");
  bp_code rc = bpi_spool_list(o->spool_dir, &ids, &n, err);
  for(size_t i = 0; !rc && i < n; i++) {
    struct bp_publish_result res;
    rc = deliver_id(o, ids[i], &res, err);
    if(!rc && each)
      each(ctx, &res);
    bpi_publish_result_cleanup(&res);
  }
  bpi_spool_list_free(ids, n);
  return rc;
}

/* ------------------------------------------------------- list and drop */

static void list_one(const char *spool, const char *id,
                     void (*each)(void *, const struct bp_publish_entry *),
                     void *ctx)
{
  struct bp_spool_pub *sp = NULL;
  struct bp_err ignored = {0};
  struct bp_publish_entry e = {.id = id, .state = "busy"};
  char *why = NULL, *text = NULL, *path = NULL;
  cJSON *meta = NULL;
  if(bpi_spool_open(spool, id, &sp, &ignored))
    return;
  if(sp) {
    e.state = "waiting";
    if(bpi_spool_done(sp, REJECTED_PART, &why)) {
      e.state = "rejected";
      e.reason = why;
    }
    path = bpi_spool_path(sp, BP_SPOOL_META);
    if(path && !bpi_file_read(path, &text, NULL, &ignored))
      meta = cJSON_Parse(text);
    const cJSON *ident = cJSON_GetObjectItemCaseSensitive(meta, "identity");
    e.created = bpi_json_str(meta, "created");
    e.project = bpi_json_str(ident, "project");
    e.branch = bpi_json_str(ident, "branch");
    e.commit = bpi_json_str(ident, "commit");
    e.testbed = bpi_json_str(ident, "testbed");
  }
  each(ctx, &e);
  cJSON_Delete(meta);
  free(text);
  free(path);
  free(why);
  bpi_spool_close(sp);
}

bp_code bpi_publish_list(const char *spool,
                         void (*each)(void *ctx,
                                      const struct bp_publish_entry *e),
                         void *ctx, struct bp_err *err)
{
  char **ids = NULL;
  size_t n = 0;
  bp_code rc = bpi_spool_list(spool, &ids, &n, err);
  for(size_t i = 0; !rc && i < n; i++)
    list_one(spool, ids[i], each, ctx);
  bpi_spool_list_free(ids, n);
  return rc;
}

bp_code bpi_publish_drop(const char *spool, const char *id, bool *rejected,
                         struct bp_err *err)
{
  struct bp_spool_pub *sp = NULL;
  char **ids = NULL;
  size_t n = 0;
  bool known = false;
  bp_code rc = bpi_spool_list(spool, &ids, &n, err);
  for(size_t i = 0; !rc && i < n; i++)
    known |= !strcmp(ids[i], id);
  bpi_spool_list_free(ids, n);
  if(!rc && !known)
    return bpi_err_set(err, BPE_NOT_FOUND, 0, "no publication '%s' in %s",
                       id, spool);
  if(!rc)
    rc = bpi_spool_open(spool, id, &sp, err);
  if(!rc && !sp)
    return bpi_err_set(err, BPE_IO, 0, "publication %s is being delivered "
                       "by another benchprof process", id);
  if(rc)
    return rc;
  *rejected = bpi_spool_done(sp, REJECTED_PART, NULL);
  return bpi_spool_remove(sp, err);
}
