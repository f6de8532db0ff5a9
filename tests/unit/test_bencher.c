/* bencher: the JsonNewRun body (parsed back with cJSON: identity, times,
 * the BMF as one string, settings, the start point of a pull request, the
 * idempotency key), missing fields refused, and version 4 UUIDs. */
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

int main(void)
{
  check_main_body();
  check_pull_request();
  check_uuid();
  return check_exit();
}
