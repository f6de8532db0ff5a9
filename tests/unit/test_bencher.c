/* bencher: the JsonNewRun body (parsed back with cJSON: identity, times,
 * the BMF as one string, settings, the start point of a pull request, the
 * idempotency key), missing fields refused, and version 4 UUIDs; the ids
 * of a JsonReport answer (full, partial, malformed) and their JSON form
 * read back. */
#include "bp_setup.h"
#include "bencher.h"
#include "buf.h"
#include "check.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

static const char *str(const cJSON *o, const char *name)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void check_main_body(void)
{
  const char *bmf = "{\"a \\\"b\\\"\": {\"latency\": {\"value\": 1}}}";
  struct bp_bencher_report r = {
    .project = "demo", .branch = "main", .testbed = "box",
    .hash = "0123456789abcdef0123456789abcdef01234567",
    .start_time = "2026-11-29T20:00:00Z", .end_time = "2026-11-29T20:00:01Z",
    .bmf = bmf, .idempotency_key = "8c1b7f36-0d1e-4c54-9b8e-6a1f2d3c4b5a",
  };
  struct bp_buf b;
  bpi_buf_init(&b);
  CHECK_EQ_INT(bpi_bencher_body(&r, &b), BP_OK);
  bpi_buf_addc(&b, '\0');
  cJSON *j = cJSON_Parse(b.data);
  CHECK(j != NULL);
  CHECK_EQ_STR(str(j, "project"), "demo");
  CHECK_EQ_STR(str(j, "branch"), "main");
  CHECK_EQ_STR(str(j, "testbed"), "box");
  CHECK_EQ_STR(str(j, "hash"), r.hash);
  CHECK_EQ_STR(str(j, "start_time"), r.start_time);
  CHECK_EQ_STR(str(j, "end_time"), r.end_time);
  CHECK_EQ_STR(str(j, "idempotency_key"), r.idempotency_key);
  const cJSON *res = cJSON_GetObjectItemCaseSensitive(j, "results");
  CHECK(cJSON_GetArraySize(res) == 1);
  CHECK_EQ_STR(cJSON_GetArrayItem(res, 0)->valuestring, bmf);
  CHECK_EQ_STR(str(cJSON_GetObjectItemCaseSensitive(j, "settings"),
                   "adapter"), "json");
  CHECK(!cJSON_GetObjectItemCaseSensitive(j, "start_point"));
  cJSON_Delete(j);
  bpi_buf_cleanup(&b);
}

static void check_pull_request(void)
{
  struct bp_bencher_report r = {
    .project = "demo", .branch = "feature/x", .testbed = "box",
    .start_branch = "main",
    .start_hash = "89abcdef0123456789abcdef0123456789abcdef",
    .start_time = "2026-11-29T20:00:00Z", .end_time = "2026-11-29T20:00:01Z",
    .bmf = "{}", .idempotency_key = "8c1b7f36-0d1e-4c54-9b8e-6a1f2d3c4b5a",
  };
  struct bp_buf b;
  bpi_buf_init(&b);
  CHECK_EQ_INT(bpi_bencher_body(&r, &b), BP_OK);
  bpi_buf_addc(&b, '\0');
  cJSON *j = cJSON_Parse(b.data);
  CHECK(!cJSON_GetObjectItemCaseSensitive(j, "hash"));  /* unknown */
  const cJSON *sp = cJSON_GetObjectItemCaseSensitive(j, "start_point");
  CHECK_EQ_STR(str(sp, "branch"), "main");
  CHECK_EQ_STR(str(sp, "hash"), r.start_hash);
  CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sp,
                                                      "clone_thresholds")));
  cJSON_Delete(j);
  bpi_buf_reset(&b);
  r.idempotency_key = NULL;
  CHECK_EQ_INT(bpi_bencher_body(&r, &b), BPE_INVAL);
  bpi_buf_cleanup(&b);
}

static void check_uuid(void)
{
  char a[37], b[37];
  struct bp_err err = {0};
  CHECK_EQ_INT(bpi_uuid4(a, &err), BP_OK);
  CHECK_EQ_INT(bpi_uuid4(b, &err), BP_OK);
  CHECK(strlen(a) == 36 && strcmp(a, b));
  CHECK(a[8] == '-' && a[13] == '-' && a[18] == '-' && a[23] == '-');
  CHECK(a[14] == '4');
  CHECK(strchr("89ab", a[19]) != NULL);
  for(int i = 0; i < 36; i++)
    CHECK(a[i] == '-' || strchr("0123456789abcdef", a[i]));
}

#define U_REPORT "0b6a3c2e-1f00-4a8e-9c1d-000000000001"
#define U_PROJ "0b6a3c2e-1f00-4a8e-9c1d-000000000002"
#define U_BRANCH "0b6a3c2e-1f00-4a8e-9c1d-000000000003"
#define U_HEAD "0b6a3c2e-1f00-4a8e-9c1d-000000000004"
#define U_TB "0b6a3c2e-1f00-4a8e-9c1d-000000000005"
#define U_BA "0b6a3c2e-1f00-4a8e-9c1d-00000000000a"
#define U_BB "0b6a3c2e-1f00-4a8e-9c1d-00000000000b"
#define U_LAT "0b6a3c2e-1f00-4a8e-9c1d-0000000000c1"
#define U_INS "0b6a3c2e-1f00-4a8e-9c1d-0000000000c2"
#define U_OTHER "0b6a3c2e-1f00-4a8e-9c1d-0000000000ff"

/* {"measure": {"slug": S, "uuid": U}, "metric": {...}} */
#define MEASURE(slug, uuid)                                              \
  "{\"measure\": {\"slug\": " slug ", \"uuid\": " uuid ", \"name\": "    \
  "\"n\", \"units\": \"u\"}, \"metric\": {\"uuid\": \"" U_OTHER "\", "   \
  "\"value\": 1}}"

/* A JsonReport as Bencher answers it, two iterations. */
static const char full_answer[] =
  "{\"uuid\": \"" U_REPORT "\", \"adapter\": \"json\","
  " \"start_time\": \"2026-11-29T20:00:00Z\","
  " \"end_time\": \"2026-11-29T20:00:01.250Z\","
  " \"project\": {\"uuid\": \"" U_PROJ "\", \"slug\": \"my-proj\"},"
  " \"branch\": {\"uuid\": \"" U_BRANCH "\", \"name\": \"feature/x\","
  "   \"head\": {\"uuid\": \"" U_HEAD "\", \"version\": {\"number\": 3}}},"
  " \"testbed\": {\"uuid\": \"" U_TB "\", \"slug\": \"tb\"},"
  " \"results\": ["
  "  [{\"benchmark\": {\"name\": \"a\", \"uuid\": \"" U_BA "\"},"
  "    \"iteration\": 0, \"measures\": ["
  MEASURE("\"latency\"", "\"" U_LAT "\"") ", "
  MEASURE("\"instructions\"", "\"" U_INS "\"") "]},"
  "   {\"benchmark\": {\"name\": \"b \\\"q\\\"\", \"uuid\": \"" U_BB "\"},"
  "    \"iteration\": 0, \"measures\": ["
  MEASURE("\"latency\"", "\"" U_LAT "\"") ", "
  MEASURE("\"cycles\"", "\"not-a-uuid\"") ", "
  MEASURE("null", "\"" U_OTHER "\"") "]}],"
  "  [{\"benchmark\": {\"name\": \"a\", \"uuid\": \"" U_OTHER "\"},"
  "    \"iteration\": 1, \"measures\": ["
  MEASURE("\"latency\"", "\"" U_OTHER "\"") ", "
  MEASURE("\"cycles\"", "\"" U_OTHER "\"") "]}]],"
  " \"alerts\": []}";

static void check_full_ids(const struct bp_bencher_ids *ids)
{
  CHECK_EQ_STR(ids->report, U_REPORT);
  CHECK_EQ_STR(ids->project, "my-proj");
  CHECK_EQ_STR(ids->branch, U_BRANCH);
  CHECK_EQ_STR(ids->head, U_HEAD);
  CHECK_EQ_STR(ids->testbed, U_TB);
  CHECK_EQ_STR(ids->end_time, "2026-11-29T20:00:01.250Z");
  CHECK_EQ_INT(ids->nbenches, 2);
  const struct bp_bencher_bench_id *a = bpi_bencher_ids_bench(ids, "a");
  const struct bp_bencher_bench_id *b = bpi_bencher_ids_bench(ids,
                                                              "b \"q\"");
  CHECK(a && b && !bpi_bencher_ids_bench(ids, "c"));
  if(!a || !b)
    return;
  /* the first iteration's uuids win; a later one adds what is new */
  CHECK_EQ_STR(a->uuid, U_BA);
  CHECK_EQ_INT(a->nmeasures, 3);
  CHECK_EQ_STR(bpi_bencher_bench_measure(a, "latency"), U_LAT);
  CHECK_EQ_STR(bpi_bencher_bench_measure(a, "instructions"), U_INS);
  CHECK_EQ_STR(bpi_bencher_bench_measure(a, "cycles"), U_OTHER);
  /* a malformed uuid and a measure without a slug are left out */
  CHECK_EQ_STR(b->uuid, U_BB);
  CHECK_EQ_INT(b->nmeasures, 1);
  CHECK_EQ_STR(bpi_bencher_bench_measure(b, "latency"), U_LAT);
  CHECK(bpi_bencher_bench_measure(b, "cycles") == NULL);
}

static void check_parse_full(void)
{
  struct bp_bencher_ids ids = {0}, back = {0};
  struct bp_err err = {0};
  struct bp_buf b;
  bpi_buf_init(&b);
  CHECK_EQ_INT(bpi_bencher_parse_report(full_answer, strlen(full_answer),
                                        &ids, &err), BP_OK);
  check_full_ids(&ids);
  /* the JSON form the spool keeps reads back the same */
  CHECK_EQ_INT(bpi_bencher_ids_json(&ids, &b), BP_OK);
  cJSON *j = cJSON_ParseWithLength(b.data, b.len);
  CHECK(j != NULL);
  CHECK_EQ_STR(str(j, "report_uuid"), U_REPORT);
  const cJSON *bs = cJSON_GetObjectItemCaseSensitive(j, "benchmarks");
  const cJSON *bq = cJSON_GetObjectItemCaseSensitive(bs, "b \"q\"");
  CHECK_EQ_STR(str(bq, "benchmark_uuid"), U_BB);
  CHECK_EQ_STR(str(cJSON_GetObjectItemCaseSensitive(bq, "measures"),
                   "latency"), U_LAT);
  cJSON_Delete(j);
  CHECK_EQ_INT(bpi_bencher_ids_read(b.data, b.len, &back, &err), BP_OK);
  check_full_ids(&back);
  /* parsing again replaces what was there */
  CHECK_EQ_INT(bpi_bencher_ids_read(b.data, b.len, &back, &err), BP_OK);
  CHECK_EQ_INT(back.nbenches, 2);
  bpi_bencher_ids_cleanup(&back);
  bpi_bencher_ids_cleanup(&ids);
  CHECK(ids.report == NULL && ids.nbenches == 0);
  bpi_buf_cleanup(&b);
}

/* Alerts in the answer: an active one is kept on its benchmark's
 * measure (uuid, limit), dismissed ones and malformed ones are not; the
 * spool's JSON form keeps them. */
static void check_alerts(void)
{
  static const char answer[] =
    "{\"uuid\": \"" U_REPORT "\", \"results\": [[{\"benchmark\": {\"name\": "
    "\"a\", \"uuid\": \"" U_BA "\"}, \"measures\": ["
    MEASURE("\"latency\"", "\"" U_LAT "\"") "]}]], \"alerts\": ["
    "{\"uuid\": \"" U_OTHER "\", \"status\": \"active\", \"limit\": \"upper\","
    " \"benchmark\": {\"name\": \"a\", \"uuid\": \"" U_BA "\"},"
    " \"threshold\": {\"measure\": {\"slug\": \"latency\", \"uuid\": \""
    U_LAT "\"}}},"
    "{\"uuid\": \"" U_BB "\", \"status\": \"dismissed\", \"limit\": \"lower\","
    " \"benchmark\": {\"name\": \"a\"}, \"threshold\": {\"measure\": "
    "{\"slug\": \"instructions\", \"uuid\": \"" U_INS "\"}}},"
    "{\"uuid\": \"" U_BB "\", \"status\": \"active\", \"limit\": \"sideways\","
    " \"benchmark\": {\"name\": \"a\"}, \"threshold\": {\"measure\": "
    "{\"slug\": \"latency\", \"uuid\": \"" U_LAT "\"}}}]}";
  struct bp_bencher_ids ids = {0}, back = {0};
  struct bp_err err = {0};
  struct bp_buf b;
  bpi_buf_init(&b);
  CHECK_EQ_INT(bpi_bencher_parse_report(answer, strlen(answer), &ids, &err),
               BP_OK);
  const struct bp_bencher_bench_id *a = bpi_bencher_ids_bench(&ids, "a");
  CHECK(a && a->nmeasures == 1);
  CHECK(a && a->measures[0].alert && !strcmp(a->measures[0].alert, U_OTHER));
  CHECK(a && a->measures[0].alert_limit &&
        !strcmp(a->measures[0].alert_limit, "upper"));
  CHECK_EQ_INT(bpi_bencher_ids_json(&ids, &b), BP_OK);
  bpi_buf_addc(&b, '\0');
  CHECK(strstr(b.data, "\"alerts\": {\"latency\": {\"uuid\": \"" U_OTHER
               "\", \"limit\": \"upper\"}}") != NULL);
  CHECK_EQ_INT(bpi_bencher_ids_read(b.data, b.len - 1, &back, &err), BP_OK);
  a = bpi_bencher_ids_bench(&back, "a");
  CHECK(a && a->measures[0].alert && !strcmp(a->measures[0].alert, U_OTHER));
  bpi_bencher_ids_cleanup(&back);
  bpi_bencher_ids_cleanup(&ids);
  bpi_buf_cleanup(&b);
}

static void check_parse_partial(void)
{
  static const char *const answers[] = {
    /* only the report's uuid */
    "{\"uuid\": \"" U_REPORT "\"}",
    /* the pieces there, but of the wrong kind or shape */
    "{\"uuid\": \"" U_REPORT "\", \"project\": \"my-proj\", \"branch\": "
    "{\"uuid\": \"main\", \"head\": null}, \"testbed\": {\"uuid\": 5}, "
    "\"end_time\": \"\", \"results\": {\"a\": 1}}",
    /* results with benchmarks that have no name, or no list */
    "{\"uuid\": \"" U_REPORT "\", \"project\": {\"slug\": \"\"}, "
    "\"results\": [[{\"benchmark\": {\"uuid\": \"" U_BA "\"}}], 7, "
    "[{\"benchmark\": 1}]]}",
  };
  for(size_t i = 0; i < BP_ARRAY_LEN(answers); i++) {
    struct bp_bencher_ids ids = {0};
    struct bp_err err = {0};
    struct bp_buf b;
    bpi_buf_init(&b);
    CHECK_EQ_INT(bpi_bencher_parse_report(answers[i], strlen(answers[i]),
                                          &ids, &err), BP_OK);
    CHECK_EQ_STR(ids.report, U_REPORT);
    CHECK(!ids.project && !ids.branch && !ids.head && !ids.testbed &&
          !ids.end_time && !ids.nbenches);
    CHECK_EQ_INT(bpi_bencher_ids_json(&ids, &b), BP_OK);
    bpi_buf_addc(&b, '\0');
    CHECK_EQ_STR(b.data, "{\"report_uuid\": \"" U_REPORT "\", "
                 "\"benchmarks\": {}}");
    bpi_buf_cleanup(&b);
    bpi_bencher_ids_cleanup(&ids);
  }
  /* a benchmark without a uuid keeps its measures; a head without a
   * branch uuid is still the head */
  static const char some[] =
    "{\"uuid\": \"" U_REPORT "\", \"branch\": {\"head\": {\"uuid\": \""
    U_HEAD "\"}}, \"results\": [[{\"benchmark\": {\"name\": \"a\"}, "
    "\"measures\": [" MEASURE("\"latency\"", "\"" U_LAT "\"") "]}]]}";
  struct bp_bencher_ids ids = {0}, back = {0};
  struct bp_err err = {0};
  struct bp_buf b;
  bpi_buf_init(&b);
  CHECK_EQ_INT(bpi_bencher_parse_report(some, strlen(some), &ids, &err),
               BP_OK);
  CHECK(ids.branch == NULL);
  CHECK_EQ_STR(ids.head, U_HEAD);
  const struct bp_bencher_bench_id *a = bpi_bencher_ids_bench(&ids, "a");
  CHECK(a && a->uuid == NULL);
  CHECK_EQ_STR(bpi_bencher_bench_measure(a, "latency"), U_LAT);
  CHECK_EQ_INT(bpi_bencher_ids_json(&ids, &b), BP_OK);
  CHECK_EQ_INT(bpi_bencher_ids_read(b.data, b.len, &back, &err), BP_OK);
  a = bpi_bencher_ids_bench(&back, "a");
  CHECK(a && a->uuid == NULL && back.branch == NULL);
  CHECK_EQ_STR(back.head, U_HEAD);
  CHECK_EQ_STR(bpi_bencher_bench_measure(a, "latency"), U_LAT);
  bpi_bencher_ids_cleanup(&back);
  bpi_bencher_ids_cleanup(&ids);
  bpi_buf_cleanup(&b);
}

static void check_parse_malformed(void)
{
  static const struct {
    const char *text, *says;
  } bad[] = {
    {"", "not JSON"},
    {"<html>502 Bad Gateway</html>", "not JSON"},
    {"{\"uuid\": \"" U_REPORT "\", \"branch\": {", "not JSON"},
    {"[]", "no report uuid"},
    {"{\"message\": \"conflict\"}", "no report uuid"},
    {"{\"uuid\": \"0b6a3c2e-1f00-4a8e-9c1d-00000000000\"}", "no report uuid"},
    {"{\"uuid\": \"0b6a3c2e-1f00-4a8e-9c1d-00000000000g\"}",
     "no report uuid"},
    {"{\"uuid\": 12}", "no report uuid"},
  };
  for(size_t i = 0; i < BP_ARRAY_LEN(bad); i++) {
    struct bp_bencher_ids ids = {0};
    struct bp_err err = {0};
    CHECK_EQ_INT(bpi_bencher_parse_report(bad[i].text, strlen(bad[i].text),
                                          &ids, &err), BPE_FORMAT);
    CHECK(strstr(err.msg, bad[i].says) != NULL);
    CHECK(ids.report == NULL && ids.nbenches == 0);
    err = (struct bp_err){0};
    CHECK_EQ_INT(bpi_bencher_ids_read(bad[i].text, strlen(bad[i].text),
                                      &ids, &err), BPE_FORMAT);
  }
  /* the length counts: the same answer cut short is not JSON */
  struct bp_bencher_ids ids = {0};
  struct bp_err err = {0};
  CHECK_EQ_INT(bpi_bencher_parse_report(full_answer, 100, &ids, &err),
               BPE_FORMAT);
  CHECK_EQ_INT(bpi_bencher_parse_report(NULL, 0, &ids, &err), BPE_FORMAT);
  /* the spool's form: benchmarks of the wrong shape are left out */
  static const char odd[] =
    "{\"report_uuid\": \"" U_REPORT "\", \"benchmarks\": {\"a\": "
    "{\"benchmark_uuid\": \"x\", \"measures\": {\"latency\": 3, "
    "\"cycles\": \"" U_LAT "\"}}, \"b\": [1], \"c\": 4}}";
  err = (struct bp_err){0};
  CHECK_EQ_INT(bpi_bencher_ids_read(odd, strlen(odd), &ids, &err), BP_OK);
  const struct bp_bencher_bench_id *a = bpi_bencher_ids_bench(&ids, "a");
  CHECK(a && a->uuid == NULL && a->nmeasures == 1);
  CHECK_EQ_STR(bpi_bencher_bench_measure(a, "cycles"), U_LAT);
  bpi_bencher_ids_cleanup(&ids);
  /* no report uuid, nothing to write */
  struct bp_buf b;
  bpi_buf_init(&b);
  CHECK_EQ_INT(bpi_bencher_ids_json(&ids, &b), BPE_INVAL);
  bpi_buf_cleanup(&b);
}

static void check_is_uuid(void)
{
  CHECK(bpi_bencher_is_uuid(U_REPORT));
  CHECK(bpi_bencher_is_uuid("0B6A3C2E-1F00-4A8E-9C1D-00000000000A"));
  CHECK(!bpi_bencher_is_uuid(NULL));
  CHECK(!bpi_bencher_is_uuid(""));
  CHECK(!bpi_bencher_is_uuid("0b6a3c2e1f004a8e9c1d000000000001abcd"));
  CHECK(!bpi_bencher_is_uuid("0b6a3c2e-1f00-4a8e-9c1d-0000000000011"));
  CHECK(!bpi_bencher_is_uuid("0b6a3c2e-1f00-4a8e-9c1d-00000000000/"));
}

int main(void)
{
  check_main_body();
  check_pull_request();
  check_uuid();
  check_parse_full();
  check_alerts();
  check_parse_partial();
  check_parse_malformed();
  check_is_uuid();
  return check_exit();
}
