/* http_request: a request turned into a curl handle: its headers
 * (bearer, S3's payload hash and session token), the options set once
 * (timeouts, TLS, callbacks, the connection cache, SigV4), the body fed
 * from memory or a file and rewound for each attempt, and the progress
 * hook that abandons a transfer when the request is cancelled. */
#include "bp_setup.h"
#include "http_int.h"
#include "err.h"
#include "sha256.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* curl's progress hook: a non-zero return abandons the transfer. */
static int on_progress(void *userp, curl_off_t dltotal, curl_off_t dlnow,
                       curl_off_t ultotal, curl_off_t ulnow)
{
  (void)dltotal;
  (void)dlnow;
  (void)ultotal;
  (void)ulnow;
  return bpi_http_cancelled(((struct attempt *)userp)->o);
}

static size_t on_read(char *dst, size_t size, size_t n, void *userp)
{
  struct attempt *a = userp;
  size_t room = size * n;
  if(a->file) {
    size_t got = fread(dst, 1, room, a->file);
    if(!got && ferror(a->file))
      return CURL_READFUNC_ABORT;
    return got;
  }
  size_t left = a->req->body_len - a->sent;
  size_t take = left < room ? left : room;
  if(take)
    memcpy(dst, a->req->body + a->sent, take);
  a->sent += take;
  return take;
}

static struct curl_slist *add_header(struct curl_slist *list, bool *failed,
                                     const char *name, const char *value)
{
  if(*failed)
    return list;
  struct bp_buf b;
  bpi_buf_init(&b);
  bpi_buf_printf(&b, "%s: %s", name, value);
  struct curl_slist *l = bpi_buf_failed(&b) ? NULL :
    bpi_curl_api.slist_append(list, b.data);
  bpi_buf_cleanup(&b);
  if(!l) {
    *failed = true;
    return list;
  }
  return l;
}

/* The headers of req, NULL with *failed when out of memory. */
struct curl_slist *bpi_http_make_headers(const struct bp_http_req *req,
                                         const char *payload_hash,
                                         bool *failed)
{
  struct curl_slist *l = NULL;
  *failed = false;
  /* no "Expect: 100-continue" wait on uploads */
  l = add_header(l, failed, "Expect", "");
  if(req->content_type)
    l = add_header(l, failed, "Content-Type", req->content_type);
  if(req->content_encoding)
    l = add_header(l, failed, "Content-Encoding", req->content_encoding);
  if(req->bearer) {
    struct bp_buf v;
    bpi_buf_init(&v);
    bpi_buf_printf(&v, "Bearer %s", req->bearer);
    if(bpi_buf_failed(&v))
      *failed = true;
    else
      l = add_header(l, failed, "Authorization", v.data);
    bpi_buf_cleanup(&v);
  }
  if(payload_hash)
    l = add_header(l, failed, "x-amz-content-sha256", payload_hash);
  if(req->aws_key && req->aws_session_token)
    l = add_header(l, failed, "x-amz-security-token", req->aws_session_token);
  for(const char *const *h = req->headers; h && *h && !*failed; h++) {
    struct curl_slist *n = bpi_curl_api.slist_append(l, *h);
    if(!n)
      *failed = true;
    else
      l = n;
  }
  return l;
}

/* Fill the handle for req once; each attempt only rewinds the body. */
bp_code bpi_http_setup(CURL *h, struct attempt *a, struct curl_slist *headers,
                       const char *sigv4, char *errbuf)
{
  const struct bp_http_opts *o = a->o;
  const struct bp_http_req *req = a->req;
  bool upload = req->body || req->body_file || !strcmp(req->method, "PUT") ||
    !strcmp(req->method, "POST") || !strcmp(req->method, "PATCH");
  CURLcode rc = CURLE_OK;
#define SET(opt, val) \
  do { if(!rc) rc = bpi_curl_api.easy_setopt(h, opt, val); } while(0)
  SET(CURLOPT_URL, req->url);
  SET(CURLOPT_ERRORBUFFER, errbuf);
  SET(CURLOPT_NOSIGNAL, 1L);
  SET(CURLOPT_PROTOCOLS_STR, "http,https");
  SET(CURLOPT_PATH_AS_IS, 1L);
  SET(CURLOPT_CONNECTTIMEOUT_MS,
      o->connect_timeout_ms > 0 ? o->connect_timeout_ms : DEFAULT_CONNECT_MS);
  SET(CURLOPT_TIMEOUT_MS,
      o->total_timeout_ms > 0 ? o->total_timeout_ms : DEFAULT_TOTAL_MS);
  SET(CURLOPT_USERAGENT, "benchprof/" BENCHPROF_VERSION);
  SET(CURLOPT_HTTPHEADER, headers);
  SET(CURLOPT_WRITEFUNCTION, bpi_http_on_body);
  SET(CURLOPT_WRITEDATA, a);
  SET(CURLOPT_HEADERFUNCTION, bpi_http_on_header);
  SET(CURLOPT_HEADERDATA, a);
  if(o->cancel) {
    SET(CURLOPT_XFERINFOFUNCTION, on_progress);
    SET(CURLOPT_XFERINFODATA, a);
    SET(CURLOPT_NOPROGRESS, 0L);
  }
  /* TLS: verification stays on (libcurl's default); only the CA changes */
  if(o->ca_file)
    SET(CURLOPT_CAINFO, o->ca_file);
  if(o->debug) {
    SET(CURLOPT_DEBUGFUNCTION, bpi_http_on_debug);
    SET(CURLOPT_DEBUGDATA, a);
    SET(CURLOPT_VERBOSE, 1L);
  }
  if(upload) {
    SET(CURLOPT_UPLOAD, 1L);
    SET(CURLOPT_READFUNCTION, on_read);
    SET(CURLOPT_READDATA, a);
  }
  if(strcmp(req->method, "GET") && strcmp(req->method, "PUT"))
    SET(CURLOPT_CUSTOMREQUEST, req->method);
  if(o->conns) {
    CURLSH *share = bpi_http_conns_share(o->conns);
    if(share) {
      SET(CURLOPT_SHARE, share);
      /* the cache's size: curl's default (5) would close connections
       * that parallel requests opened */
      SET(CURLOPT_MAXCONNECTS, (long)BP_HTTP_CONNS_MAX);
    }
    SET(CURLOPT_SOCKOPTFUNCTION, bpi_http_on_open_socket);
    SET(CURLOPT_SOCKOPTDATA, o->conns);
  }
  if(sigv4) {
    SET(CURLOPT_AWS_SIGV4, sigv4);
    SET(CURLOPT_USERNAME, req->aws_key);
    SET(CURLOPT_PASSWORD, req->aws_secret ? req->aws_secret : "");
  }
#undef SET
  if(rc == CURLE_OUT_OF_MEMORY)
    return BPE_NOMEM;
  if(rc)
    return BPE_INVAL;
  return BP_OK;
}

/* Rewind the body for an attempt and tell curl its size. */
bp_code bpi_http_rewind_body(CURL *h, struct attempt *a, struct bp_err *err)
{
  const struct bp_http_req *req = a->req;
  curl_off_t size = (curl_off_t)req->body_len;
  a->sent = 0;
  if(req->body_file) {
    if(!a->file) {
      a->file = fopen(req->body_file, "rb");
      if(!a->file)
        return bpi_err_set(err, BPE_IO, errno, "cannot open '%s'",
                           req->body_file);
    }
    if(fseeko(a->file, 0, SEEK_END) || (size = ftello(a->file)) < 0 ||
       fseeko(a->file, 0, SEEK_SET))
      return bpi_err_set(err, BPE_IO, errno, "cannot read '%s'",
                         req->body_file);
  }
  if(bpi_curl_api.easy_setopt(h, CURLOPT_INFILESIZE_LARGE, size))
    return bpi_err_set(err, BPE_INVAL, 0, "cannot set the upload size");
  return BP_OK;
}

/* Hex SHA-256 of the body, as S3's x-amz-content-sha256 wants. */
bp_code bpi_http_payload_sha256(const struct bp_http_req *req,
                                char hex[2 * BP_SHA256_LEN + 1],
                                struct bp_err *err)
{
  if(req->body_file)
    return bpi_sha256_file(req->body_file, hex, err);
  unsigned char d[BP_SHA256_LEN];
  bpi_sha256(req->body ? req->body : "", req->body ? req->body_len : 0, d);
  bpi_hex_encode(d, sizeof(d), hex);
  return BP_OK;
}
