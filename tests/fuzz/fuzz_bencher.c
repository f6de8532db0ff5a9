/* fuzz_bencher: Bencher's answer to POST /v0/run (a JsonReport, of which
 * benchprof reads the uuid) -> bpi_bencher_post, and the input as the BMF
 * report whose measures bpi_bencher_ensure_measures creates.  HTTP is
 * replaced here: every request is answered with the input, HTTP 200. */
#include "bp_setup.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bencher.h"
#include "buf.h"
#include "fuzz.h"
#include "http.h"

static const uint8_t *answer;
static size_t answer_len;
static unsigned requests;

/* the parts of http.c that bencher.c uses */
void bpi_http_opts_default(struct bp_http_opts *o)
{
  memset(o, 0, sizeof(*o));
}

void bpi_http_resp_init(struct bp_http_resp *r)
{
  memset(r, 0, sizeof(*r));
  bpi_buf_init(&r->body);
}

void bpi_http_resp_cleanup(struct bp_http_resp *r)
{
  bpi_buf_cleanup(&r->body);
}

char *bpi_http_escape(const char *s)
{
  return strdup(s);
}

bp_code bpi_http_send(const struct bp_http_opts *o,
                      const struct bp_http_req *req,
                      struct bp_http_resp *resp, struct bp_err *err)
{
  (void)o;
  (void)err;
  if(!req->url || !req->body || strcmp(req->bearer, "fuzz-token"))
    abort();
  requests++;
  resp->status = 200;
  resp->attempts = 1;
  bpi_buf_add(&resp->body, answer, answer_len);
  return BP_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  answer = data;
  answer_len = size;
  struct bp_bencher_opts o = {"http://127.0.0.1:1", "fuzz-token", NULL};
  struct bp_bencher_report r = {
    .project = "fuzz", .branch = "main", .testbed = "local",
    .start_time = "2026-11-29T20:00:00Z", .end_time = "2026-11-29T20:00:01Z",
    .bmf = "{\"b\":{\"latency\":{\"value\":1.5}}}",
    .idempotency_key = "00000000-0000-4000-8000-000000000000",
  };
  char *uuid = NULL;
  struct bp_err err = {0};
  bp_code rc = bpi_bencher_post(&o, &r, &uuid, &err);
  if(!rc && (!uuid || strlen(uuid) != 36))
    abort();
  free(uuid);

  /* the input as the report: a C string of it */
  char *bmf = malloc(size + 1);
  if(!bmf)
    return 0;
  memcpy(bmf, data, size);
  bmf[size] = '\0';
  struct bp_err merr = {0};
  bpi_bencher_ensure_measures(&o, "fu zz/x", bmf, &merr);
  free(bmf);
  return 0;
}
