/* bencher: the JSON bodies of the results API and its answers (see
 * bencher.h).  Reports go to POST /v0/run, not to
 * /v0/projects/{p}/reports: only /v0/run takes an idempotency key, and
 * with it a report whose answer was lost (a truncated answer, a timeout,
 * benchprof killed after sending) can be posted again and the server
 * returns the report it already has.  That makes the report exactly
 * once across retries and spool flushes. */
#include "bp_setup.h"
#include "bencher.h"
#include "err.h"
#include "text.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

/* Counter measures benchprof's BMF carries (counters.c slugs), with the
 * name and units Bencher shows.  latency and throughput exist in every
 * project; a harness's own measures are left to Bencher. */
static const struct {
  const char *slug, *name, *units;
} measures[] = {
  {"instructions", "Instructions", "instructions"},
  {"cycles", "Cycles", "cycles"},
  {"ref-cycles", "Reference Cycles", "cycles"},
  {"branches", "Branches", "branches"},
  {"branch-misses", "Branch Misses", "branch misses"},
  {"cache-references", "Cache References", "cache references"},
  {"cache-misses", "Cache Misses", "cache misses"},
  {"task-clock", "Task Clock", "nanoseconds"},
  {"cpu-clock", "CPU Clock", "nanoseconds"},
  {"page-faults", "Page Faults", "faults"},
  {"context-switches", "Context Switches", "switches"},
  {"cpu-migrations", "CPU Migrations", "migrations"},
};

static const char *host_of(const struct bp_bencher_opts *o)
{
  return o->host && *o->host ? o->host : BP_BENCHER_HOST;
}

/* host without its trailing slashes, then path */
static void add_url(struct bp_buf *b, const char *host, const char *path)
{
  size_t len = strlen(host);
  while(len && host[len - 1] == '/')
    len--;
  bpi_buf_add(b, host, len);
  bpi_buf_adds(b, path);
}

static void add_field(struct bp_buf *b, const char *name, const char *value)
{
  bpi_buf_addc(b, '"');
  bpi_buf_adds(b, name);
  bpi_buf_adds(b, "\": ");
  bpi_buf_json_str(b, value);
}

bp_code bpi_bencher_body(const struct bp_bencher_report *r,
                         struct bp_buf *out)
{
  if(!r->project || !r->branch || !r->testbed || !r->start_time ||
     !r->end_time || !r->bmf || !r->idempotency_key)
    return BPE_INVAL;
  bpi_buf_addc(out, '{');
  add_field(out, "project", r->project);
  bpi_buf_adds(out, ", ");
  add_field(out, "branch", r->branch);
  if(r->hash) {
    bpi_buf_adds(out, ", ");
    add_field(out, "hash", r->hash);
  }
  bpi_buf_adds(out, ", ");
  add_field(out, "testbed", r->testbed);
  bpi_buf_adds(out, ", ");
  add_field(out, "start_time", r->start_time);
  bpi_buf_adds(out, ", ");
  add_field(out, "end_time", r->end_time);
  bpi_buf_adds(out, ", \"results\": [");
  bpi_buf_json_str(out, r->bmf);
  bpi_buf_adds(out, "], \"settings\": {\"adapter\": \"json\"}");
  if(r->start_branch) {
    /* a pull request starts from its base, with the base's thresholds,
     * and each run replaces its head (what bencher run does for pull
     * requests) so it always compares against the current base */
    bpi_buf_adds(out, ", \"start_point\": {");
    add_field(out, "branch", r->start_branch);
    if(r->start_hash) {
      bpi_buf_adds(out, ", ");
      add_field(out, "hash", r->start_hash);
    }
    bpi_buf_adds(out, ", \"clone_thresholds\": true, \"reset\": true}");
  }
  bpi_buf_adds(out, ", ");
  add_field(out, "idempotency_key", r->idempotency_key);
  bpi_buf_addc(out, '}');
  return bpi_buf_failed(out) ? BPE_NOMEM : BP_OK;
}

static const struct bp_http_opts *http_of(const struct bp_bencher_opts *o,
                                          struct bp_http_opts *def)
{
  if(o->http)
    return o->http;
  bpi_http_opts_default(def);
  return def;
}

/* ------------------------------------------------- the answer's ids */

bool bpi_bencher_is_uuid(const char *s)
{
  if(!s || strlen(s) != 36)
    return false;
  for(size_t i = 0; i < 36; i++) {
    bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if(dash ? s[i] != '-' : !strchr("0123456789abcdefABCDEF", s[i]))
      return false;
  }
  return true;
}

/* a copy of obj[key] when it is a uuid; NULL when not (or no memory) */
static char *juuid(const cJSON *obj, const char *key)
{
  const char *v = bpi_json_str(obj, key);
  return bpi_bencher_is_uuid(v) ? strdup(v) : NULL;
}

/* a copy of obj[key] when it is a non-empty string */
static char *jtext(const cJSON *obj, const char *key)
{
  const char *v = bpi_json_str(obj, key);
  return v && *v ? strdup(v) : NULL;
}

void bpi_bencher_ids_cleanup(struct bp_bencher_ids *ids)
{
  for(size_t i = 0; i < ids->nbenches; i++) {
    struct bp_bencher_bench_id *b = &ids->benches[i];
    for(size_t m = 0; m < b->nmeasures; m++) {
      free(b->measures[m].slug);
      free(b->measures[m].uuid);
      free(b->measures[m].alert);
      free(b->measures[m].alert_limit);
    }
    free(b->measures);
    free(b->name);
    free(b->uuid);
  }
  free(ids->benches);
  bpi_name_index_cleanup(&ids->bench_index);
  free(ids->report);
  free(ids->project);
  free(ids->branch);
  free(ids->head);
  free(ids->testbed);
  free(ids->end_time);
  memset(ids, 0, sizeof(*ids));
}

const struct bp_bencher_bench_id *
bpi_bencher_ids_bench(const struct bp_bencher_ids *ids, const char *name)
{
  uint32_t i = bpi_name_index_find(&ids->bench_index, name);
  return i == BP_NONE ? NULL : &ids->benches[i];
}

const char *bpi_bencher_bench_measure(const struct bp_bencher_bench_id *b,
                                      const char *slug)
{
  for(size_t i = 0; b && slug && i < b->nmeasures; i++)
    if(!strcmp(b->measures[i].slug, slug))
      return b->measures[i].uuid;
  return NULL;
}

/* The entry of benchmark name, added (uuid may be NULL) when new, its
 * uuid set when it had none; NULL: no memory. */
static struct bp_bencher_bench_id *add_bench(struct bp_bencher_ids *ids,
                                             const char *name,
                                             const char *uuid)
{
  struct bp_bencher_bench_id *b =
    (struct bp_bencher_bench_id *)bpi_bencher_ids_bench(ids, name);
  if(!b) {
    void *grown = realloc(ids->benches,
                          (ids->nbenches + 1) * sizeof(*ids->benches));
    if(!grown)
      return NULL;
    ids->benches = grown;
    b = &ids->benches[ids->nbenches];
    memset(b, 0, sizeof(*b));
    if(!(b->name = strdup(name)) ||
       bpi_name_index_add(&ids->bench_index, name, (uint32_t)ids->nbenches)) {
      free(b->name);
      b->name = NULL;
      return NULL;
    }
    ids->nbenches++;
  }
  if(!b->uuid && bpi_bencher_is_uuid(uuid) && !(b->uuid = strdup(uuid)))
    return NULL;
  return b;
}

/* Measure slug's uuid, unless the benchmark has that slug already. */
static bool add_measure(struct bp_bencher_bench_id *b, const char *slug,
                        const char *uuid)
{
  if(!slug || !*slug || !bpi_bencher_is_uuid(uuid) ||
     bpi_bencher_bench_measure(b, slug))
    return true;
  void *grown = realloc(b->measures, (b->nmeasures + 1) *
                                     sizeof(*b->measures));
  if(!grown)
    return false;
  b->measures = grown;
  struct bp_bencher_measure_id *m = &b->measures[b->nmeasures];
  memset(m, 0, sizeof(*m));
  m->slug = strdup(slug);
  m->uuid = strdup(uuid);
  b->nmeasures++;  /* counted even when a copy failed: freed on cleanup */
  return m->slug && m->uuid;
}

static const cJSON *array_or_null(const cJSON *x)
{
  return cJSON_IsArray(x) ? x : NULL;
}

static const cJSON *object_or_null(const cJSON *x)
{
  return cJSON_IsObject(x) ? x : NULL;
}

/* results: [[{benchmark: {name, uuid}, measures: [{measure: {slug,
 * uuid}}]}]], one list per iteration */
static bool answer_results(struct bp_bencher_ids *ids, const cJSON *results)
{
  const cJSON *iter, *res, *m;
  cJSON_ArrayForEach(iter, array_or_null(results)) {
    cJSON_ArrayForEach(res, array_or_null(iter)) {
      const cJSON *bench = cJSON_GetObjectItemCaseSensitive(res,
                                                            "benchmark");
      const char *name = bpi_json_str(bench, "name");
      if(!name)
        continue;
      struct bp_bencher_bench_id *b = add_bench(ids, name,
                                                bpi_json_str(bench, "uuid"));
      if(!b)
        return false;
      const cJSON *ms = cJSON_GetObjectItemCaseSensitive(res, "measures");
      cJSON_ArrayForEach(m, array_or_null(ms)) {
        const cJSON *measure = cJSON_GetObjectItemCaseSensitive(m,
                                                                "measure");
        if(!add_measure(b, bpi_json_str(measure, "slug"), bpi_json_str(measure, "uuid")))
          return false;
      }
    }
  }
  return true;
}

/* The measure entry of slug in b, or NULL. */
static struct bp_bencher_measure_id *measure_of(struct bp_bencher_bench_id *b,
                                                const char *slug)
{
  for(size_t i = 0; b && slug && i < b->nmeasures; i++)
    if(!strcmp(b->measures[i].slug, slug))
      return &b->measures[i];
  return NULL;
}

/* An alert (uuid, limit "lower"/"upper") on benchmark name's measure
 * slug; the measure's uuid adds it when the results did not. */
static bool add_alert(struct bp_bencher_ids *ids, const char *name,
                      const char *bench_uuid, const char *slug,
                      const char *measure_uuid, const char *uuid,
                      const char *limit)
{
  if(!name || !slug || !bpi_bencher_is_uuid(uuid) || !limit ||
     (strcmp(limit, "lower") && strcmp(limit, "upper")))
    return true;
  struct bp_bencher_bench_id *b = add_bench(ids, name, bench_uuid);
  if(!b || !add_measure(b, slug, measure_uuid))
    return false;
  struct bp_bencher_measure_id *m = measure_of(b, slug);
  if(!m || m->alert)
    return true;   /* no uuid for the measure, or its first alert kept */
  m->alert = strdup(uuid);
  m->alert_limit = strdup(limit);
  return m->alert && m->alert_limit;
}

/* alerts: [{uuid, limit, status, benchmark: {name, uuid}, threshold:
 * {measure: {slug, uuid}}}]; active ones only */
static bool answer_alerts(struct bp_bencher_ids *ids, const cJSON *alerts)
{
  const cJSON *a;
  cJSON_ArrayForEach(a, array_or_null(alerts)) {
    const char *status = bpi_json_str(a, "status");
    if(status && strcmp(status, "active"))
      continue;
    const cJSON *bench = cJSON_GetObjectItemCaseSensitive(a, "benchmark");
    const cJSON *measure = cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(a, "threshold"), "measure");
    if(!add_alert(ids, bpi_json_str(bench, "name"), bpi_json_str(bench, "uuid"),
                  bpi_json_str(measure, "slug"), bpi_json_str(measure, "uuid"),
                  bpi_json_str(a, "uuid"), bpi_json_str(a, "limit")))
      return false;
  }
  return true;
}

/* *root: json parsed, when it has a report uuid at key */
static bp_code parse_with_uuid(const char *json, size_t len, const char *key,
                               const char *what, cJSON **root,
                               struct bp_err *err)
{
  *root = cJSON_ParseWithLength(json ? json : "", json ? len : 0);
  if(!*root)
    return bpi_err_set(err, BPE_FORMAT, 0, "%s is not JSON", what);
  if(!bpi_bencher_is_uuid(bpi_json_str(*root, key))) {
    cJSON_Delete(*root);
    *root = NULL;
    return bpi_err_set(err, BPE_FORMAT, 0, "%s has no report uuid", what);
  }
  return BP_OK;
}

bp_code bpi_bencher_parse_report(const char *json, size_t len,
                                 struct bp_bencher_ids *ids,
                                 struct bp_err *err)
{
  bpi_bencher_ids_cleanup(ids);
  cJSON *root;
  bp_code rc = parse_with_uuid(json, len, "uuid", "the answer", &root, err);
  if(rc)
    return rc;
  const cJSON *branch = cJSON_GetObjectItemCaseSensitive(root, "branch");
  ids->report = juuid(root, "uuid");
  ids->project = jtext(cJSON_GetObjectItemCaseSensitive(root, "project"),
                       "slug");
  ids->branch = juuid(branch, "uuid");
  ids->head = juuid(cJSON_GetObjectItemCaseSensitive(branch, "head"),
                    "uuid");
  ids->testbed = juuid(cJSON_GetObjectItemCaseSensitive(root, "testbed"),
                       "uuid");
  ids->end_time = jtext(root, "end_time");
  bool ok = ids->report && answer_results(
    ids, cJSON_GetObjectItemCaseSensitive(root, "results")) &&
    answer_alerts(ids, cJSON_GetObjectItemCaseSensitive(root, "alerts"));
  cJSON_Delete(root);
  if(!ok) {
    bpi_bencher_ids_cleanup(ids);
    return bpi_err_set(err, BPE_NOMEM, 0, "Bencher's answer");
  }
  return BP_OK;
}

bp_code bpi_bencher_ids_read(const char *json, size_t len,
                             struct bp_bencher_ids *ids, struct bp_err *err)
{
  bpi_bencher_ids_cleanup(ids);
  cJSON *root;
  bp_code rc = parse_with_uuid(json, len, "report_uuid", "Bencher ids",
                               &root, err);
  if(rc)
    return rc;
  ids->report = juuid(root, "report_uuid");
  ids->project = jtext(root, "project");
  ids->branch = juuid(root, "branch_uuid");
  ids->head = juuid(root, "head_uuid");
  ids->testbed = juuid(root, "testbed_uuid");
  ids->end_time = jtext(root, "end_time");
  bool ok = ids->report != NULL;
  const cJSON *bench, *m;
  const cJSON *benches = cJSON_GetObjectItemCaseSensitive(root,
                                                          "benchmarks");
  cJSON_ArrayForEach(bench, object_or_null(benches)) {
    struct bp_bencher_bench_id *b = NULL;
    if(ok && !(b = add_bench(ids, bench->string,
                             bpi_json_str(bench, "benchmark_uuid"))))
      ok = false;
    const cJSON *ms = cJSON_GetObjectItemCaseSensitive(bench, "measures");
    cJSON_ArrayForEach(m, object_or_null(ms)) {
      if(ok && cJSON_IsString(m))
        ok = add_measure(b, m->string, m->valuestring);
    }
    const cJSON *al = cJSON_GetObjectItemCaseSensitive(bench, "alerts");
    cJSON_ArrayForEach(m, object_or_null(al)) {
      if(ok)
        ok = add_alert(ids, bench->string, NULL, m->string,
                       bpi_bencher_bench_measure(b, m->string),
                       bpi_json_str(m, "uuid"), bpi_json_str(m, "limit"));
    }
  }
  cJSON_Delete(root);
  if(!ok) {
    bpi_bencher_ids_cleanup(ids);
    return bpi_err_set(err, BPE_NOMEM, 0, "Bencher ids");
  }
  return BP_OK;
}

/* , "name": "value" when value is not NULL */
static void add_opt(struct bp_buf *b, const char *name, const char *value)
{
  if(!value)
    return;
  bpi_buf_adds(b, ", ");
  add_field(b, name, value);
}

bp_code bpi_bencher_ids_json(const struct bp_bencher_ids *ids,
                             struct bp_buf *out)
{
  if(!ids->report)
    return BPE_INVAL;
  bpi_buf_addc(out, '{');
  add_field(out, "report_uuid", ids->report);
  add_opt(out, "project", ids->project);
  add_opt(out, "branch_uuid", ids->branch);
  add_opt(out, "head_uuid", ids->head);
  add_opt(out, "testbed_uuid", ids->testbed);
  add_opt(out, "end_time", ids->end_time);
  bpi_buf_adds(out, ", \"benchmarks\": {");
  for(size_t i = 0; i < ids->nbenches; i++) {
    const struct bp_bencher_bench_id *b = &ids->benches[i];
    bpi_buf_adds(out, i ? ", " : "");
    bpi_buf_json_str(out, b->name);
    bpi_buf_adds(out, ": {\"measures\": {");
    for(size_t m = 0; m < b->nmeasures; m++) {
      bpi_buf_adds(out, m ? ", " : "");
      add_field(out, b->measures[m].slug, b->measures[m].uuid);
    }
    bpi_buf_addc(out, '}');
    add_opt(out, "benchmark_uuid", b->uuid);
    bool any = false;
    for(size_t m = 0; m < b->nmeasures; m++) {
      const struct bp_bencher_measure_id *x = &b->measures[m];
      if(!x->alert)
        continue;
      bpi_buf_adds(out, any ? ", " : ", \"alerts\": {");
      any = true;
      bpi_buf_json_str(out, x->slug);
      bpi_buf_adds(out, ": {");
      add_field(out, "uuid", x->alert);
      bpi_buf_adds(out, ", ");
      add_field(out, "limit", x->alert_limit);
      bpi_buf_addc(out, '}');
    }
    if(any)
      bpi_buf_addc(out, '}');
    bpi_buf_addc(out, '}');
  }
  bpi_buf_adds(out, "}}");
  return bpi_buf_failed(out) ? BPE_NOMEM : BP_OK;
}

/* ------------------------------------------------------------ posting */

bp_code bpi_bencher_post_ids(const struct bp_bencher_opts *o,
                             const struct bp_bencher_report *r,
                             struct bp_bencher_ids *ids, struct bp_err *err)
{
  struct bp_buf body, url;
  struct bp_http_resp resp;
  struct bp_http_opts def;
  struct bp_err mine = {0};
  bpi_bencher_ids_cleanup(ids);
  bpi_buf_init(&body);
  bpi_buf_init(&url);
  bpi_http_resp_init(&resp);
  bp_code rc = bpi_bencher_body(r, &body);
  if(rc) {
    rc = bpi_err_set(err, rc, 0, "Bencher report for project '%s'",
                     r->project ? r->project : "");
    goto out;
  }
  add_url(&url, host_of(o), "/v0/run");
  if(bpi_buf_failed(&url)) {
    rc = bpi_err_set(err, BPE_NOMEM, 0, "Bencher URL");
    goto out;
  }
  struct bp_http_req req = {
    .method = "POST", .url = url.data, .content_type = "application/json",
    .bearer = o->token, .body = body.data, .body_len = body.len,
  };
  rc = bpi_http_send(http_of(o, &def), &req, &resp, err);
  if(rc)
    goto out;
  rc = bpi_bencher_parse_report(resp.body.data, resp.body.len, ids, &mine);
  if(rc)
    rc = bpi_err_set(err, rc, 0, "POST %s: HTTP %ld: %s", url.data,
                     resp.status, mine.msg);
out:
  bpi_http_resp_cleanup(&resp);
  bpi_buf_cleanup(&url);
  bpi_buf_cleanup(&body);
  return rc;
}

bp_code bpi_bencher_post(const struct bp_bencher_opts *o,
                         const struct bp_bencher_report *r, char **uuid,
                         struct bp_err *err)
{
  struct bp_bencher_ids ids = {0};
  bp_code rc = bpi_bencher_post_ids(o, r, &ids, err);
  *uuid = ids.report;  /* taken */
  ids.report = NULL;
  bpi_bencher_ids_cleanup(&ids);
  return rc;
}

static bp_code post_measure(const struct bp_bencher_opts *o,
                            const char *url, size_t m, struct bp_err *err)
{
  struct bp_buf body;
  struct bp_http_resp resp;
  struct bp_http_opts def;
  struct bp_err mine = {0};
  bpi_buf_init(&body);
  bpi_http_resp_init(&resp);
  bpi_buf_addc(&body, '{');
  add_field(&body, "name", measures[m].name);
  bpi_buf_adds(&body, ", ");
  add_field(&body, "slug", measures[m].slug);
  bpi_buf_adds(&body, ", ");
  add_field(&body, "units", measures[m].units);
  bpi_buf_addc(&body, '}');
  bp_code rc = BP_OK;
  if(bpi_buf_failed(&body))
    rc = bpi_err_set(err, BPE_NOMEM, 0, "measure body");
  else {
    struct bp_http_req req = {
      .method = "POST", .url = url, .content_type = "application/json",
      .bearer = o->token, .body = body.data, .body_len = body.len,
    };
    rc = bpi_http_send(http_of(o, &def), &req, &resp, &mine);
    if(rc == BPE_HTTP && resp.status == 409)
      rc = BP_OK;  /* the project has it already */
    else if(rc)
      rc = bpi_err_set(err, rc, mine.sys_errno, "%s", mine.msg);
  }
  bpi_http_resp_cleanup(&resp);
  bpi_buf_cleanup(&body);
  return rc;
}

bp_code bpi_bencher_ensure_measures(const struct bp_bencher_opts *o,
                                    const char *project, const char *bmf,
                                    struct bp_err *err)
{
  bool used[BP_ARRAY_LEN(measures)] = {false};
  cJSON *root = cJSON_Parse(bmf);
  if(!cJSON_IsObject(root)) {
    cJSON_Delete(root);
    return bpi_err_set(err, BPE_FORMAT, 0, "the report is not a BMF object");
  }
  const cJSON *bench, *measure;
  cJSON_ArrayForEach(bench, root) {
    cJSON_ArrayForEach(measure, bench) {
      for(size_t i = 0; i < BP_ARRAY_LEN(measures); i++)
        if(measure->string && !strcmp(measure->string, measures[i].slug))
          used[i] = true;
    }
  }
  cJSON_Delete(root);
  char *proj = bpi_http_escape(project);
  struct bp_buf url;
  bpi_buf_init(&url);
  add_url(&url, host_of(o), "/v0/projects/");
  bpi_buf_adds(&url, proj ? proj : "");
  bpi_buf_adds(&url, "/measures");
  bp_code rc = !proj || bpi_buf_failed(&url)
                 ? bpi_err_set(err, BPE_NOMEM, 0, "measures URL") : BP_OK;
  for(size_t i = 0; !rc && i < BP_ARRAY_LEN(measures); i++)
    if(used[i])
      rc = post_measure(o, url.data, i, err);
  bpi_buf_cleanup(&url);
  free(proj);
  return rc;
}

bp_code bpi_uuid4(char out[37], struct bp_err *err)
{
  unsigned char b[16];
  char hex[33];
  size_t got = 0;
  while(got < sizeof(b)) {
    ssize_t n = getrandom(b + got, sizeof(b) - got, 0);
    if(n < 0 && errno == EINTR)
      continue;
    if(n <= 0)
      return bpi_err_set(err, BPE_SYS, errno, "no random bytes for a UUID");
    got += (size_t)n;
  }
  b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);  /* version 4 */
  b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);  /* RFC 4122 variant */
  bpi_hex_encode(b, sizeof(b), hex);
  snprintf(out, 37, "%.8s-%.4s-%.4s-%.4s-%.12s", hex, hex + 8, hex + 12,
           hex + 16, hex + 20);
  return BP_OK;
}
