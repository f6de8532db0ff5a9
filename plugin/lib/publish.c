/* publish: a run's report and artifacts out to Bencher and the artifact
 * store, through the spool (see publish.h): spooling a run, delivering a
 * spooled publication part by part, flush, list and drop.
 *
 * What is delivered is computed from the spooled copy alone
 * (publish_plan.c).  The parts that do not depend on each other
 * (artifacts, publish_store.c; Firefox upload and Bencher, publish_api.c)
 * are each tried even when another fails; the stored manifest waits for
 * all of them (it names their results) and the latest pointer for the
 * manifest. */
#include "bp_setup.h"
#include "publish_int.h"
#include "buf.h"
#include "err.h"
#include "fileio.h"
#include "http.h"
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
/* the spool part that marks a publication the server refused for good;
 * its value is the refusal */
#define REJECTED_PART "rejected"

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
                            {"base branch", o->base_branch},
                            {"repository", o->repository}};
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
  const char *why;
  if(o->suite && *o->suite && !bpi_suite_valid(o->suite, &why))
    return bpi_err_set(err, BPE_INVAL, 0, "publish: the suite %s", why);
  if(o->hash && !is_hex_hash(o->hash))
    return bpi_err_set(err, BPE_INVAL, 0, "publish: hash '%s' is not a full "
                       "git commit hash (40 or 64 hex digits)", o->hash);
  int64_t ms;
  if(o->commit_time && !bpi_text_iso8601_ms(o->commit_time, &ms))
    return bpi_err_set(err, BPE_INVAL, 0, "publish: commit time '%s' is not "
                       "an ISO 8601 time", o->commit_time);
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
  if(o->ci_job)
    cJSON_AddStringToObject(m, "ci_job", o->ci_job);
  cJSON_AddStringToObject(id, "project", o->project);
  cJSON_AddStringToObject(id, "branch", o->branch);
  bpi_pub_add_nullable(id, "hash", o->hash);
  cJSON_AddStringToObject(id, "commit", o->hash ? o->hash : commit);
  bpi_pub_add_nullable(id, "commit_time", o->hash ? o->commit_time : NULL);
  cJSON_AddStringToObject(id, "testbed", o->testbed);
  bpi_pub_add_nullable(id, "base_branch", o->base_branch);
  bpi_pub_add_nullable(id, "base_hash", o->base_branch ? o->base_hash : NULL);
  bpi_pub_add_nullable(id, "repository", o->repository);
  if(o->suite && *o->suite)   /* none: the identity of old */
    cJSON_AddStringToObject(id, "suite", o->suite);
  if(o->store.url) {
    cJSON *s = cJSON_AddObjectToObject(m, "store");
    cJSON_AddStringToObject(s, "url", o->store.url);
    bpi_pub_add_nullable(s, "public_url", o->store.public_url);
    bpi_pub_add_nullable(s, "s3_endpoint", o->store.s3_endpoint);
    bpi_pub_add_nullable(s, "s3_region", o->store.s3_region);
    cJSON_AddBoolToObject(s, "s3_path_style", o->store.s3_path_style);
  }
  else
    cJSON_AddNullToObject(m, "store");
  if(o->bencher.token) {
    cJSON *b = cJSON_AddObjectToObject(m, "bencher");
    cJSON_AddStringToObject(b, "host", o->bencher.host ? o->bencher.host
                                                       : BP_BENCHER_HOST);
    bpi_pub_add_nullable(b, "console", o->bencher_console);
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

/* ------------------------------------------------------------ delivery */

bool bpi_pub_part_done(struct job *j, const char *part, char **value)
{
  j->parts++;
  bool is = bpi_spool_done(j->sp, part, value);
  j->done += is;
  return is;
}

bp_code bpi_pub_mark(struct job *j, const char *part, const char *value)
{
  bp_code rc = bpi_spool_mark(j->sp, part, value, &j->res->failure);
  j->done += rc == BP_OK;
  return rc;
}

/* man: the publication's manifest when the caller parsed it already (a
 * publication just made from a run: its files/ are that run's files),
 * taken; else NULL, and it is read from the spool. */
static bp_code load_job(struct job *j, struct bp_manifest *man_parsed)
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
  if(!rc && man_parsed) {
    j->man = *man_parsed;
    j->man_from_run = true;
    memset(man_parsed, 0, sizeof(*man_parsed));
  }
  else if(!rc)
    rc = bpi_manifest_read(&j->man, man, err);
  free(meta);
  free(man);
  if(rc)
    return rc;
  bpi_pub_ident_of(j->meta, &j->id);
  if(!j->id.project || !j->id.branch || !j->id.commit || !j->id.testbed)
    return bpi_err_set(err, BPE_FORMAT, 0, "publication %s: incomplete "
                       "identity", j->sp->id);
  rc = bpi_pub_list_arts(&j->id, &j->man, &j->arts, err);
  if(!rc)
    rc = bpi_pub_open_store(j);
  return rc;
}

/* The run directory's manifest.json tells where its publication is, if it
 * is still that run's (the directory may have been reused), with the
 * Bencher ids as the stored manifest has them.  A publication the run has
 * just made holds that manifest already: it is not read again. */
static void note_in_run(const char *run_dir, struct job *j)
{
  const struct bp_publish_result *r = j->res;
  struct bp_err ignored = {0};
  struct bp_manifest read, *mp = &j->man;
  if(!j->man_from_run) {
    if(bpi_manifest_read(&read, run_dir, &ignored))
      return;
    mp = &read;
  }
  struct bp_manifest m = *mp;
  const char *old_id = bpi_manifest_pub_str(&m, "spool_id");
  if(m.publication && (!old_id || strcmp(old_id, r->id)))
    goto out;
  cJSON *p = cJSON_CreateObject();
  cJSON_AddStringToObject(p, "state", r->delivered ? "delivered" :
                                      r->direct ? "failed" : "spooled");
  cJSON_AddStringToObject(p, "spool_id", r->id);
  if(r->direct)  /* the spool could not hold it: sent straight away */
    cJSON_AddStringToObject(p, "not_spooled", r->spool_failure.msg);
  bpi_pub_add_nullable(p, "report_uuid", r->report_uuid);
  bpi_pub_add_nullable(p, "manifest_url", r->manifest_url);
  bpi_pub_add_nullable(p, "firefox_url", r->firefox_url);
  if(r->superseded)  /* its store objects are a newer run's */
    cJSON_AddStringToObject(p, "superseded", r->superseded);
  bpi_pub_add_bencher_pub(p, j);
  bpi_pub_add_nullable(p, "error", r->delivered ? NULL : r->failure.msg[0]
                                                 ? r->failure.msg
                                                 : bp_strerror(
                                                     r->failure.code));
  cJSON_Delete(m.publication);
  m.publication = p;
  /* only the publication changes when no benchmark gets or had Bencher
   * ids: it alone is written into the file */
  bool benches_change = j->bencher.nbenches > 0;
  for(size_t i = 0; !benches_change && i < m.nbenches; i++)
    benches_change = m.benches[i].bencher != NULL;
  bpi_pub_add_bencher_benches(&m, j);
  if(benches_change ||
     bpi_manifest_write_publication(run_dir, p, &ignored))
    bpi_manifest_write(&m, run_dir, &ignored);
out:
  *mp = m;
  if(mp == &read)
    bpi_manifest_cleanup(&read);
}

/* The HTTP status of a BPE_HTTP failure (http.c's "METHOD URL: HTTP
 * NNN: ..."), 0 for any other. */
static long failure_status(const struct bp_err *e)
{
  return e->code == BPE_HTTP ? bpi_http_err_status(e) : 0;
}

/* A server's final refusal of what was sent (400 Bad Request, 409
 * Conflict, 413 Too Large, 422 Unprocessable): sending it again cannot
 * help, so the publication is marked rejected and flush stops trying.
 * 401, 403 and 404 are left to retry: a token or a URL is fixed outside
 * the publication. */
static bool refused_for_good(const struct bp_err *e)
{
  long status = failure_status(e);
  return status == 400 || status == 409 || status == 413 || status == 422;
}

/* What publication.json recorded of the targets and its time, kept in
 * res for the command (flush tells a target the configuration no longer
 * names, a publication that has waited long); NULLs when out of memory:
 * only the advice is lost. */
static void note_recorded(const cJSON *meta, struct bp_publish_result *res)
{
  const char *v;
  if((v = bpi_json_str(cJSON_GetObjectItemCaseSensitive(meta, "store"),
                       "url")))
    res->store_url = strdup(v);
  if((v = bpi_json_str(cJSON_GetObjectItemCaseSensitive(meta, "bencher"),
                       "host")))
    res->bencher_host = strdup(v);
  if((v = bpi_json_str(meta, "created")))
    res->created = strdup(v);
}

/* A publication left in the spool keeps why its latest try failed, for
 * `flush --list` (a rejected one keeps its refusal as its mark); not
 * recording it only loses that line. */
static void note_failure(struct bp_spool_pub *sp,
                         const struct bp_publish_result *res)
{
  struct bp_err ignored = {0};
  if(sp && !res->delivered && !res->rejected && res->failure.code)
    bpi_spool_note_failure(sp, res->failure.msg[0] ? res->failure.msg
                           : bp_strerror(res->failure.code), &ignored);
}

/* Deliver what is left of one locked publication; sp is consumed (and
 * man, when not NULL: load_job).  first_try: a local publication's try
 * straight from the run directory (deliver_local), which is spooled and
 * tried again when it fails: the run directory is noted only on success. */
static void deliver(const struct bp_publish_opts *o, struct bp_spool_pub *sp,
                    struct bp_manifest *man, struct bp_publish_result *res,
                    bool first_try)
{
  struct job j = {.o = o, .sp = sp, .res = res, .http = o->http};
  char *mkey = NULL;
  j.http.conns = bpi_http_conns_new();  /* NULL: no reuse, still works */
  bp_code rc = load_job(&j, man);
  if(j.meta)
    note_recorded(j.meta, res);
  if(!rc && j.store && !(mkey = bpi_pub_manifest_key(&j.id)))
    rc = bpi_err_set(&res->failure, BPE_NOMEM, 0, "key");
  if(!rc && j.store)
    res->manifest_url = bpi_store_public_url(j.store, mkey);
  if(!rc) {
    /* the artifacts first look whether a newer run of the commit is
     * stored (then no store part is sent); Firefox and Bencher go
     * either way: a report is a data point of its own */
    bp_code store_rc = j.store ? bpi_pub_put_artifacts(&j, mkey) : BP_OK;
    bp_code ff_rc = bpi_pub_put_firefox(&j);
    bp_code b_rc = bpi_pub_put_bencher(&j);
    rc = store_rc ? store_rc : ff_rc ? ff_rc : b_rc;
    /* the first failure is the one kept (err.h) */
    res->failed_at = store_rc ? BP_PUBLISH_AT_STORE :
                     ff_rc ? BP_PUBLISH_AT_FIREFOX :
                     b_rc ? BP_PUBLISH_AT_BENCHER : BP_PUBLISH_AT_NONE;
  }
  if(j.store && mkey) {
    /* each waits for everything before it */
    if(rc)
      bpi_pub_part_done(&j, "manifest", NULL);
    else
      rc = bpi_pub_put_manifest(&j, mkey);
    if(rc)
      bpi_pub_part_done(&j, "latest", NULL);
    else
      rc = bpi_pub_put_latest(&j, mkey);
    if(rc)
      bpi_pub_part_done(&j, "site", NULL);
    else
      rc = bpi_pub_put_site(&j);
    if(rc && !res->failed_at)
      res->failed_at = BP_PUBLISH_AT_STORE;
  }
  res->http_status = failure_status(&res->failure);
  bpi_pub_unstore_manifest(&j);  /* the run's again, for note_in_run */
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
  note_failure(sp, res);
  bpi_spool_close(sp);
  if(run && (res->delivered || !first_try))
    note_in_run(run, &j);
  free(run);
  free(mkey);
  bpi_store_close(j.store);
  res->connections = bpi_http_conns_opened(j.http.conns);
  bpi_http_conns_free(j.http.conns);
  bpi_pub_arts_cleanup(&j.arts);
  bpi_bencher_ids_cleanup(&j.bencher);
  bpi_manifest_cleanup(&j.man);
  free(j.stored);
  cJSON_Delete(j.meta);
}

void bpi_publish_result_cleanup(struct bp_publish_result *r)
{
  free(r->id);
  free(r->report_uuid);
  free(r->manifest_url);
  free(r->firefox_url);
  free(r->superseded);
  free(r->warning);
  free(r->store_url);
  free(r->bencher_host);
  free(r->created);
  memset(r, 0, sizeof(*r));
}

/* Lock id and deliver it into res (res->id set); man as deliver's. */
static bp_code deliver_id(const struct bp_publish_opts *o, const char *id,
                          struct bp_manifest *man,
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
  deliver(o, sp, man, res, false);
  return BP_OK;
}

/* The run directory a publication is made from. */
struct pub_src {
  const char *dir;    /* absolute */
  const char *meta;   /* its publication.json */
  const char *key;    /* the publication's random key */
  struct bp_manifest man;   /* its manifest, parsed */
  const char **files; /* the files the spool takes (strings of man's) */
  size_t nfiles;
};

/* src's manifest and the files to spool, read from src->dir; an error
 * when they cannot be read, a path leaves the run directory, or the
 * manifest names no report: a run interrupted before its harness wrote
 * its results (run_outputs.h) has nothing to publish, and the store
 * would hold it as a run without results. */
static bp_code src_read(struct pub_src *src, struct bp_err *err)
{
  bp_code rc = bpi_manifest_read(&src->man, src->dir, err);
  if(!rc && !src->man.report)
    rc = bpi_err_set(err, BPE_FORMAT, 0, "%s/" BP_RUNDIR_MANIFEST ": no "
                     "\"report\" (was the run interrupted before its "
                     "harness wrote its results?): nothing to publish",
                     src->dir);
  if(!rc)
    rc = bpi_pub_spool_files(&src->man, &src->files, &src->nfiles, err);
  return rc;
}

static void src_cleanup(struct pub_src *src)
{
  free(src->files);
  src->files = NULL;
  src->nfiles = 0;
  bpi_manifest_cleanup(&src->man);
}

/* A publication in memory only (bpi_spool_direct), named prefix-KEY8
 * into res->id (res otherwise as it was). */
static bp_code open_in_memory(const char *prefix, const struct pub_src *src,
                              struct bp_spool_pub **sp,
                              struct bp_publish_result *res,
                              struct bp_err *err)
{
  char id[64];
  snprintf(id, sizeof(id), "%s-%.8s", prefix, src->key);
  bp_code rc = bpi_spool_direct(src->dir, src->meta, id, sp, err);
  if(!rc && !(res->id = strdup(id))) {
    bpi_spool_close(*sp);
    *sp = NULL;
    rc = bpi_err_set(err, BPE_NOMEM, 0, "publication id");
  }
  return rc;
}

/* The spool cannot hold the publication (full, read-only, unwritable):
 * rather than lose it, deliver it once from the run directory, with its
 * progress kept in memory.  res->direct and res->spool_failure say so. */
static bp_code deliver_direct(const struct bp_publish_opts *o,
                              const struct pub_src *src,
                              struct bp_publish_result *res,
                              struct bp_err *err)
{
  struct bp_spool_pub *sp = NULL;
  struct bp_err why = res->spool_failure;
  memset(res, 0, sizeof(*res));
  res->spool_failure = why;
  res->direct = true;
  bp_code rc = open_in_memory("direct", src, &sp, res, err);
  if(!rc)
    deliver(o, sp, NULL, res, false);
  return rc;
}

/* Spool src, then deliver it from the spool (src->man taken: the
 * spool's manifest is its link); when the spool cannot hold it, deliver
 * it once from the run directory (deliver_direct). */
static bp_code spool_and_deliver(const struct bp_publish_opts *o,
                                 struct pub_src *src,
                                 struct bp_publish_result *res,
                                 struct bp_err *err)
{
  char *id = NULL;
  bp_code rc;
  if(!o->spool_dir) {   /* none could be named: delivered once, directly */
    bpi_err_set(&res->spool_failure, BPE_CONFIG, 0, "no spool directory");
    return deliver_direct(o, src, res, err);
  }
  if(bpi_spool_add(o->spool_dir, src->dir, src->files, src->nfiles,
                   src->meta, strlen(src->meta), &id, &res->spool_failure))
    rc = deliver_direct(o, src, res, err);
  else
    rc = deliver_id(o, id, &src->man, res, err);
  free(id);
  return rc;
}

/* Every target is on this machine: a file:// store, no Bencher report,
 * no Firefox upload.  No network can fail there, so the spool (a second
 * link of every artifact, made to be removed a moment later: 100,000
 * links for a suite of 10,000 benchmarks) is used only when delivering
 * fails, to keep what failed for flush. */
static bool all_local(const struct bp_publish_opts *o)
{
  return bpi_store_url_is_local(o->store.url) && !o->bencher.token &&
         !o->firefox_upload;
}

/* A local publication (all_local): delivered straight from the run
 * directory, its progress kept in memory (src->man taken); when that
 * fails it is spooled and delivered from the spool once more, the way
 * any other is (noted in the run directory, kept for flush).  Killed in
 * the middle, it leaves store objects under its keys without the stored
 * manifest that would name them (so no reader takes them for a run) and
 * nothing in the spool; publishing the run directory again writes the
 * same keys. */
static bp_code deliver_local(const struct bp_publish_opts *o,
                             struct pub_src *src,
                             struct bp_publish_result *res,
                             struct bp_err *err)
{
  struct bp_spool_pub *sp = NULL;
  bp_code rc = open_in_memory("local", src, &sp, res, err);
  if(rc)
    return rc;
  deliver(o, sp, &src->man, res, true);
  if(res->delivered)
    return BP_OK;
  bpi_publish_result_cleanup(res);
  src_cleanup(src);   /* the manifest went with the first try */
  rc = src_read(src, err);
  return rc ? rc : spool_and_deliver(o, src, res, err);
}

bp_code bpi_publish_run(const struct bp_publish_opts *o, const char *run_dir,
                        const char *start_time, const char *end_time,
                        struct bp_publish_result *res, struct bp_err *err)
{
  char key[37], abs[PATH_MAX];
  struct pub_src src = {.dir = abs, .key = key};
  cJSON *meta = NULL;
  char *text = NULL;
  memset(res, 0, sizeof(*res));
  bp_code rc = check_ident(o, err);
  if(!rc && !realpath(run_dir, abs))
    rc = bpi_err_set(err, BPE_IO, errno, "cannot resolve '%s'", run_dir);
  if(!rc)
    rc = src_read(&src, err);
  if(!rc)
    rc = check_store(o, err);
  if(!rc)
    rc = bpi_uuid4(key, err);
  if(!rc && !(meta = make_meta(o, abs, start_time, end_time, key)))
    rc = bpi_err_set(err, BPE_NOMEM, 0, "publication");
  if(!rc && !(text = cJSON_Print(meta)))
    rc = bpi_err_set(err, BPE_NOMEM, 0, "publication");
  src.meta = text;
  if(!rc)
    rc = all_local(o) ? deliver_local(o, &src, res, err)
                      : spool_and_deliver(o, &src, res, err);
  free(text);
  cJSON_Delete(meta);
  src_cleanup(&src);
  return rc;
}

/* ---------------------------------------------------------------- scope */

/* publication.json is a few hundred bytes; a bigger one is not ours */
#define META_READ_MAX ((size_t)1 << 20)

/* Publication id's publication.json, parsed, read without its lock (it
 * never changes once in place); NULL when it cannot be read, *gone when
 * the publication left the spool (delivered meanwhile). */
static cJSON *read_meta(const char *spool, const char *id, bool *gone)
{
  char *dir = bpi_text_path_join(spool, id);
  char *path = dir ? bpi_text_path_join(dir, BP_SPOOL_META) : NULL;
  char *text = NULL;
  size_t len = 0;
  struct bp_err e = {0};
  cJSON *meta = NULL;
  bp_code rc = path ? bpi_file_read_max(path, META_READ_MAX, &text, &len, &e)
                    : BPE_NOMEM;
  *gone = path && rc && (rc == BPE_NOT_FOUND || e.sys_errno == ENOENT);
  if(!rc)
    meta = cJSON_ParseWithLength(text, len);
  free(text);
  free(path);
  free(dir);
  return meta;
}

static bool scoped(const struct bp_publish_scope *sc)
{
  return sc && (sc->project || sc->branch || sc->repository);
}

static bool meta_in_scope(const cJSON *meta,
                          const struct bp_publish_scope *sc)
{
  const cJSON *ident = cJSON_GetObjectItemCaseSensitive(meta, "identity");
  const char *project = bpi_json_str(ident, "project");
  const char *branch = bpi_json_str(ident, "branch");
  const char *repository = bpi_json_str(ident, "repository");
  /* a same-named repository's: never sent with this job's credentials */
  return (!sc->project || (project && !strcmp(project, sc->project))) &&
         (!sc->branch || (branch && !strcmp(branch, sc->branch))) &&
         !bpi_repository_other(repository, sc->repository);
}

enum scope_answer { SCOPE_IN, SCOPE_OUT, SCOPE_GONE };

/* Whether meta (id's publication.json, NULL: unreadable; gone: it left
 * the spool) is in scope. */
static enum scope_answer meta_scope(const cJSON *meta, bool gone,
                                    const struct bp_publish_scope *sc)
{
  if(gone)
    return SCOPE_GONE;
  if(!scoped(sc))
    return SCOPE_IN;
  return meta && meta_in_scope(meta, sc) ? SCOPE_IN : SCOPE_OUT;
}

/* Whether publication id of spool is in scope; an unscoped flush reads
 * nothing here (the delivery reads publication.json under its lock). */
static enum scope_answer id_scope(const char *spool, const char *id,
                                  const struct bp_publish_scope *sc)
{
  if(!scoped(sc))
    return SCOPE_IN;
  bool gone = false;
  cJSON *meta = read_meta(spool, id, &gone);
  enum scope_answer a = meta_scope(meta, gone, sc);
  cJSON_Delete(meta);
  return a;
}

/* ---------------------------------------------------------------- flush */

bp_code bpi_publish_flush(const struct bp_publish_opts *o,
                          const struct bp_publish_scope *scope,
                          void (*each)(void *ctx,
                                       const struct bp_publish_result *r),
                          void *ctx, size_t *out_of_scope,
                          struct bp_err *err)
{
  char **ids = NULL;
  size_t n = 0;
  if(out_of_scope)
    *out_of_scope = 0;
  if(!o->spool_dir)
    return bpi_err_set(err, BPE_INVAL, 0, "flush: no spool directory");
  bp_code rc = bpi_spool_list(o->spool_dir, &ids, &n, err);
  for(size_t i = 0; !rc && i < n; i++) {
    enum scope_answer a = id_scope(o->spool_dir, ids[i], scope);
    if(a != SCOPE_IN) {
      if(a == SCOPE_OUT && out_of_scope)
        (*out_of_scope)++;
      continue;
    }
    struct bp_publish_result res;
    rc = deliver_id(o, ids[i], NULL, &res, err);
    if(!rc && each)
      each(ctx, &res);
    bpi_publish_result_cleanup(&res);
  }
  bpi_spool_list_free(ids, n);
  return rc;
}

/* ------------------------------------------------------- list and drop */

/* Tell each of publication id, when in scope; its identity from
 * publication.json, read before (and without) its lock: a busy one's
 * is shown too.  The answer says whether it was in scope. */
static enum scope_answer list_one(const char *spool, const char *id,
                                  const struct bp_publish_scope *scope,
                                  void (*each)(void *,
                                               const struct bp_publish_entry *),
                                  void *ctx)
{
  struct bp_spool_pub *sp = NULL;
  struct bp_err ignored = {0};
  struct bp_publish_entry e = {.id = id, .state = "busy"};
  char *why = NULL;
  bool gone = false;
  cJSON *meta = read_meta(spool, id, &gone);
  enum scope_answer a = meta_scope(meta, gone, scope);
  if(a != SCOPE_IN || bpi_spool_open(spool, id, &sp, &ignored))
    goto out;
  if(sp) {
    e.state = "waiting";
    if(bpi_spool_done(sp, REJECTED_PART, &why)) {
      e.state = "rejected";
      e.reason = why;
    }
    else
      e.reason = why = bpi_spool_last_failure(sp);
  }
  const cJSON *ident = cJSON_GetObjectItemCaseSensitive(meta, "identity");
  e.created = bpi_json_str(meta, "created");
  e.project = bpi_json_str(ident, "project");
  e.branch = bpi_json_str(ident, "branch");
  e.commit = bpi_json_str(ident, "commit");
  e.testbed = bpi_json_str(ident, "testbed");
  e.suite = bpi_json_str(ident, "suite");
  each(ctx, &e);
out:
  cJSON_Delete(meta);
  free(why);
  bpi_spool_close(sp);
  return a;
}

bp_code bpi_publish_list(const char *spool,
                         const struct bp_publish_scope *scope,
                         void (*each)(void *ctx,
                                      const struct bp_publish_entry *e),
                         void *ctx, size_t *out_of_scope,
                         struct bp_err *err)
{
  char **ids = NULL;
  size_t n = 0;
  if(out_of_scope)
    *out_of_scope = 0;
  bp_code rc = bpi_spool_list(spool, &ids, &n, err);
  for(size_t i = 0; !rc && i < n; i++)
    if(list_one(spool, ids[i], scope, each, ctx) == SCOPE_OUT &&
       out_of_scope)
      (*out_of_scope)++;
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
