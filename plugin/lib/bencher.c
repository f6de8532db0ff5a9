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

bp_code bpi_bencher_post(const struct bp_bencher_opts *o,
                         const struct bp_bencher_report *r, char **uuid,
                         struct bp_err *err)
{
  struct bp_buf body, url;
  struct bp_http_resp resp;
  struct bp_http_opts def;
  cJSON *root = NULL;
  *uuid = NULL;
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
  root = cJSON_ParseWithLength(resp.body.data ? resp.body.data : "",
                               resp.body.len);
  const cJSON *id = cJSON_GetObjectItemCaseSensitive(root, "uuid");
  if(!cJSON_IsString(id) || strlen(id->valuestring) != 36) {
    rc = bpi_err_set(err, BPE_FORMAT, 0, "POST %s: HTTP %ld: the answer "
                     "has no report uuid", url.data, resp.status);
    goto out;
  }
  if(!(*uuid = strdup(id->valuestring)))
    rc = bpi_err_set(err, BPE_NOMEM, 0, "report uuid");
out:
  cJSON_Delete(root);
  bpi_http_resp_cleanup(&resp);
  bpi_buf_cleanup(&url);
  bpi_buf_cleanup(&body);
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
