/* publish_api: the parts of a publication sent to services: the Gecko
 * profile to the Firefox Profiler (opt-in) and the report to Bencher
 * (its measures first, then the report under its idempotency key); the
 * ids of Bencher's answer, kept in the spool, go into the manifests. */
#include "bp_setup.h"
#include "publish_int.h"
#include "buf.h"
#include "err.h"
#include "fileio.h"
#include "firefox.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the spool marker that keeps the ids of Bencher's answer (bencher.h's
 * JSON), written just before the "report" part's: not a part itself */
#define BENCHER_IDS "report-ids"

/* The Gecko profile a to the Firefox Profiler's public store; *lost:
 * the store may have it although no answer came (never sent again). */
static bp_code firefox_upload(struct job *j, const struct art *a,
                              char **link, bool *lost)
{
  const cJSON *ff = cJSON_GetObjectItemCaseSensitive(j->meta, "firefox");
  char *rel = bpi_text_path_join(BP_SPOOL_FILES, a->file);
  char *path = rel ? bpi_spool_path(j->sp, rel) : NULL;
  bp_code rc = path ? bpi_firefox_upload(&j->http,
                                         bpi_json_str(ff, "api"), path, link,
                                         lost, &j->res->failure)
                    : bpi_err_set(&j->res->failure, BPE_NOMEM, 0, "upload");
  free(path);
  free(rel);
  return rc;
}

bp_code bpi_pub_put_firefox(struct job *j)
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
    if(bpi_pub_part_done(j, part, &link)) {
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
      rc = bpi_pub_mark(j, part, "");
      continue;
    }
    if(!rc)
      rc = bpi_pub_mark(j, part, link);
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
void bpi_pub_add_bencher_pub(cJSON *p, const struct job *j)
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
  bpi_pub_add_nullable(bo, "console", bpi_json_str(bencher, "console"));
  bpi_pub_add_nullable(bo, "report_uuid", j->res->report_uuid);
  bpi_pub_add_nullable(bo, "project", ids->project);
  bpi_pub_add_nullable(bo, "branch_uuid", ids->branch);
  bpi_pub_add_nullable(bo, "head_uuid", ids->head);
  bpi_pub_add_nullable(bo, "testbed_uuid", ids->testbed);
  bpi_pub_add_nullable(bo, "end_time",
                       ids->end_time ? ids->end_time
                                     : bpi_json_str(j->meta, "end_time"));
}

/* Each of man's benchmarks gets "bencher": {"benchmark_uuid": U,
 * "measures": {SLUG: U}} from Bencher's answer (an old one is dropped). */
void bpi_pub_add_bencher_benches(struct bp_manifest *man,
                                 const struct job *j)
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
    bpi_pub_add_nullable(o, "benchmark_uuid", id->uuid);
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

bp_code bpi_pub_put_bencher(struct job *j)
{
  const cJSON *b = cJSON_GetObjectItemCaseSensitive(j->meta, "bencher");
  if(!cJSON_IsObject(b))
    return BP_OK;
  struct bp_err *err = &j->res->failure;
  /* a Bencher runner's job: its runner posts the report */
  bool post = !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(b,
                                                              "post_report"));
  bool measured = bpi_pub_part_done(j, "measures", NULL);
  if(!post && measured)
    return BP_OK;
  if(post && bpi_pub_part_done(j, "report", &j->res->report_uuid)) {
    load_bencher_ids(j);
    return BP_OK;
  }
  if(!j->o->bencher.token)
    return bpi_err_set(err, BPE_CONFIG, 0, "no Bencher API token to send "
                       "the report with (set $BENCHER_API_TOKEN)");
  struct bp_bencher_opts bo = {bpi_json_str(b, "host"), j->o->bencher.token,
                               &j->http};
  char *bmf = NULL, *path = bpi_spool_path(j->sp, BP_SPOOL_FILES "/"
                                                  BP_RUNDIR_REPORT);
  bp_code rc = path ? bpi_file_read(path, &bmf, NULL, err)
                    : bpi_err_set(err, BPE_NOMEM, 0, "spool path");
  if(!rc && !measured) {
    rc = bpi_bencher_ensure_measures(&bo, j->id.project, bmf, err);
    if(!rc)
      rc = bpi_pub_mark(j, "measures", NULL);
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
      rc = bpi_pub_mark(j, "report", j->res->report_uuid);
  }
  free(bmf);
  free(path);
  return rc;
}
