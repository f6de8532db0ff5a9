/* fuzz_comment: the forge's answers -> bpi_comment_post.  The input is
 * split at NUL bytes into the answers of successive requests (the comment
 * list pages, then the create or update); each is answered with HTTP 200,
 * or 404 when its first byte is '!'.  Also bpi_comment_find on the whole
 * input as one list page. */
#include "bp_setup.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "comment.h"
#include "err.h"
#include "fuzz.h"
#include "http.h"

struct answers {
  const uint8_t *data;
  size_t size;
  size_t at;
};

static struct answers *now;

static bp_code fake_send(const struct bp_http_opts *o,
                         const struct bp_http_req *req,
                         struct bp_http_resp *resp, struct bp_err *err)
{
  (void)o;
  if(!req->url || !req->method)
    abort();
  if(now->at >= now->size) {
    resp->status = 0;
    return bpi_err_set(err, BPE_NET, 0, "%s %s: no answer", req->method,
                       req->url);
  }
  const uint8_t *s = now->data + now->at;
  const uint8_t *nul = memchr(s, '\0', now->size - now->at);
  size_t len = nul ? (size_t)(nul - s) : now->size - now->at;
  now->at += len + 1;
  bool missing = len && s[0] == '!';
  resp->status = missing ? 404 : 200;
  resp->attempts = 1;
  bpi_buf_add(&resp->body, s, len);
  if(missing)
    return bpi_err_set(err, BPE_HTTP, 0, "%s: HTTP 404", req->url);
  return BP_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *id = NULL;
  size_t count = 0;
  struct bp_err err = {0};
  bpi_comment_find((const char *)data, size, "<!-- benchprof:comment fuzz/local -->", &id,
                   &count, &err);
  free(id);

  struct answers a = {data, size, 0};
  now = &a;
  struct bp_http_opts http;
  memset(&http, 0, sizeof(http));
  struct bp_comment_transport tr = {fake_send, &http};
  for(int forge = 0; forge < 2; forge++) {
    struct bp_forge_target t = {
      .forge = forge ? BP_FORGE_GITLAB : BP_FORGE_GITHUB,
      .api_url = "http://127.0.0.1:1", .repo = forge ? "42" : "octo/widget",
      .number = "7", .token = "fuzz-token"
    };
    struct bp_comment_posted res = {0};
    struct bp_err perr = {0};
    a.at = 0;
    bpi_comment_post(&t, "<!-- benchprof:comment fuzz/local -->\nbody", &tr, &res, &perr);
    bpi_comment_posted_cleanup(&res);
  }
  return 0;
}
