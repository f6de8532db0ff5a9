/* http: the only libcurl user, in five files (http_int.h names them).
 * This one loads libcurl and sends a request: attempts, each rewinding
 * the body (memory or file) and starting with an empty answer, so the
 * answer kept is the last one, until one succeeds, fails for good, the
 * retries or the deadline run out, or a signal cancels it.
 *
 * libcurl is loaded with dlopen() at the first request, not linked: with
 * its dependencies (OpenSSL, Kerberos, LDAP, libssh2, nghttp2...) it
 * doubled the start-up time of every benchprof process, and `record` or a
 * run with a file:// store never sends a request.  Only the headers are
 * compiled against; calls go through bpi_curl_api (http_int.h), whose
 * members have the functions' own prototypes.
 *
 * What the debug hook sees: one line per attempt ("PUT url (attempt 1/5)"),
 * the request and answer headers with the values of secret headers
 * replaced, and the outcome.  Bodies and curl's informational text (which
 * names the AWS user) never reach it. */
#include "bp_setup.h"
#include "http_int.h"
#include "dynlib.h"
#include "err.h"
#include "text.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_RETRIES 4u
#define DEFAULT_BACKOFF_MS 1000L

/* ------------------------------------------------------------ loading */

#ifndef CURL_SONAME
#define CURL_SONAME "libcurl.so.4"   /* configure found none */
#endif

struct bp_curl_api bpi_curl_api;

/* Loading and curl_global_init run once, under pthread_once: a
 * publication sends its artifacts from several threads.
 * load_error says why it failed ("" when it did not). */
static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[512];

static void load_curl(void)
{
  struct bp_dynlib l;
  if(!bpi_dynlib_open(&l, CURL_SONAME, load_error, sizeof(load_error)))
    return;
  BPI_DYNLIB_LOAD(&l, bpi_curl_api, "curl_", global_init);
  BPI_DYNLIB_LOAD(&l, bpi_curl_api, "curl_", easy_init);
  BPI_DYNLIB_LOAD(&l, bpi_curl_api, "curl_", easy_setopt);
  BPI_DYNLIB_LOAD(&l, bpi_curl_api, "curl_", easy_getinfo);
  BPI_DYNLIB_LOAD(&l, bpi_curl_api, "curl_", easy_perform);
  BPI_DYNLIB_LOAD(&l, bpi_curl_api, "curl_", easy_cleanup);
  BPI_DYNLIB_LOAD(&l, bpi_curl_api, "curl_", easy_strerror);
  BPI_DYNLIB_LOAD(&l, bpi_curl_api, "curl_", slist_append);
  BPI_DYNLIB_LOAD(&l, bpi_curl_api, "curl_", slist_free_all);
  BPI_DYNLIB_LOAD(&l, bpi_curl_api, "curl_", getdate);
  BPI_DYNLIB_LOAD(&l, bpi_curl_api, "curl_", share_init);
  BPI_DYNLIB_LOAD(&l, bpi_curl_api, "curl_", share_setopt);
  BPI_DYNLIB_LOAD(&l, bpi_curl_api, "curl_", share_cleanup);
  if(!bpi_dynlib_done(&l))
    return;
  CURLcode rc = bpi_curl_api.global_init(CURL_GLOBAL_DEFAULT);
  if(rc)
    snprintf(load_error, sizeof(load_error), "libcurl failed to "
             "initialise: %s", bpi_curl_api.easy_strerror(rc));
}

void bpi_http_opts_default(struct bp_http_opts *o)
{
  memset(o, 0, sizeof(*o));
  o->connect_timeout_ms = DEFAULT_CONNECT_MS;
  o->total_timeout_ms = DEFAULT_TOTAL_MS;
  o->retries = DEFAULT_RETRIES;
  o->backoff_ms = DEFAULT_BACKOFF_MS;
}

long bpi_http_now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void bpi_http_resp_init(struct bp_http_resp *r)
{
  memset(r, 0, sizeof(*r));
  bpi_buf_init(&r->body);
}

void bpi_http_resp_cleanup(struct bp_http_resp *r)
{
  bpi_buf_cleanup(&r->body);
  r->status = 0;
  r->attempts = 0;
}

/* ------------------------------------------------------------ escaping */

char *bpi_http_escape(const char *s)
{
  struct bp_buf b;
  bpi_buf_init(&b);
  bpi_text_pct_encode(&b, s, NULL);
  bpi_buf_addc(&b, '\0');
  if(bpi_buf_failed(&b)) {
    bpi_buf_cleanup(&b);
    return NULL;
  }
  return b.data;
}

bool bpi_http_url_has_credentials(const char *url)
{
  const char *scheme = url ? strstr(url, "://") : NULL;
  if(!scheme)
    return false;
  const char *authority = scheme + 3;
  return memchr(authority, '@', strcspn(authority, "/?#")) != NULL;
}

void bpi_http_url_shown(char out[BP_HTTP_URL_SHOWN], const char *url)
{
  if(bpi_http_url_has_credentials(url)) {   /* never echoed */
    snprintf(out, BP_HTTP_URL_SHOWN, "(URL with credentials)");
    return;
  }
  size_t n = strcspn(url, "?#");
  snprintf(out, BP_HTTP_URL_SHOWN, "%.*s%s", (int)(n < 200 ? n : 200), url,
           url[n] ? "?<redacted>" : n > 200 ? "..." : "");
}

#define PEM_CERT "-----BEGIN CERTIFICATE-----"
#define PEM_TRUSTED "-----BEGIN TRUSTED CERTIFICATE-----"

/* Whether text (len bytes, not terminated) holds needle. */
static bool holds(const char *text, size_t len, const char *needle)
{
  size_t n = strlen(needle);
  for(size_t i = 0; i + n <= len; i++)
    if(text[i] == needle[0] && !memcmp(text + i, needle, n))
      return true;
  return false;
}

/* Whether the regular file fd holds a PEM certificate (OpenSSL's CA file
 * reader takes the trusted form too); -1 with errno when it cannot be
 * read.  Read in chunks that overlap by a marker's length, so a marker
 * across two reads is found. */
static int holds_pem_certificate(int fd)
{
  char buf[16384];
  size_t keep = 0, overlap = sizeof(PEM_TRUSTED) - 2;
  for(;;) {
    ssize_t got = read(fd, buf + keep, sizeof(buf) - keep);
    if(got < 0 && errno == EINTR)
      continue;
    if(got < 0)
      return -1;
    if(!got)
      return 0;
    size_t len = keep + (size_t)got;
    if(holds(buf, len, PEM_CERT) || holds(buf, len, PEM_TRUSTED))
      return 1;
    keep = len < overlap ? len : overlap;
    memmove(buf, buf + len - keep, keep);
  }
}

bp_code bpi_http_ca_file_check(const char *path, const char *key,
                               struct bp_err *err)
{
  struct stat sb;
  int fd = path ? open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) : -1;
  int e = fd < 0 ? errno : fstat(fd, &sb) ? errno
        : S_ISREG(sb.st_mode) ? 0 : EINVAL;
  /* a readable file that is no bundle (an empty one, /etc/passwd) fails
   * every request with "error setting certificate file" just the same */
  int pem = e ? 0 : holds_pem_certificate(fd);
  if(pem < 0)
    e = errno;
  if(fd >= 0)
    close(fd);
  if(!e && pem)
    return BP_OK;
  if(!e)
    return bpi_err_set(err, BPE_CONFIG, 0, "%s: the CA bundle '%.300s' "
                       "holds no PEM certificate (no \"" PEM_CERT "\" "
                       "line)%s", key, path, sb.st_size ? ""
                       : "; the file is empty");
  return bpi_err_set(err, BPE_CONFIG, 0, "%s: cannot read the CA bundle "
                     "'%.300s': %s", key, path ? path : "",
                     e == EINVAL ? "not a regular file" : strerror(e));
}

bp_code bpi_http_send(const struct bp_http_opts *o,
                      const struct bp_http_req *req,
                      struct bp_http_resp *resp, struct bp_err *err)
{
  struct bp_http_opts defaults;
  if(!o) {
    bpi_http_opts_default(&defaults);
    o = &defaults;
  }
  if(!req->method || !req->url || (req->body && req->body_file))
    return bpi_err_set(err, BPE_INVAL, 0, "bad HTTP request");
  pthread_once(&load_once, load_curl);
  if(load_error[0])
    return bpi_err_set(err, BPE_SYS, 0, "%s", load_error);

  struct attempt a = { .o = o, .req = req, .resp = resp,
                       .retry_after_ms = -1 };
  char errbuf[CURL_ERROR_SIZE];
  char hash[2 * BP_SHA256_LEN + 1];
  char sigv4[128];
  const char *sig = NULL;
  struct curl_slist *headers = NULL;
  bp_code rc = BP_OK;
  CURL *h = NULL;
  bool nomem;

  bpi_buf_reset(&resp->body);
  resp->status = 0;
  resp->attempts = 0;
  resp->maybe_received = false;
  if(req->aws_key) {
    rc = bpi_http_payload_sha256(req, hash, err);
    if(rc)
      goto out;
    snprintf(sigv4, sizeof(sigv4), "aws:amz:%s:s3",
             req->aws_region ? req->aws_region : "us-east-1");
    sig = sigv4;
  }
  headers = bpi_http_make_headers(req, sig ? hash : NULL, &nomem);
  h = bpi_curl_api.easy_init();
  if(nomem || !h) {
    rc = bpi_err_set(err, BPE_NOMEM, 0, "out of memory for %s request",
                     req->method);
    goto out;
  }
  errbuf[0] = '\0';
  rc = bpi_http_setup(h, &a, headers, sig, errbuf);
  if(rc) {
    rc = bpi_err_set(err, rc, 0, "cannot set up %s request", req->method);
    goto out;
  }

  unsigned total = o->retries + 1;
  for(unsigned n = 1; ; n++) {
    if(bpi_http_cancelled(o)) {
      rc = bpi_err_set(err, BPE_NET, 0, "%s: interrupted", req->method);
      goto out;
    }
    if(!bpi_http_deadline_allows_attempt(h, o)) {
      rc = bpi_err_set(err, BPE_NET, 0, "%s: the time allowed for "
                       "publishing ran out before %s", req->method,
                       n == 1 ? "the request" : "another attempt");
      goto out;
    }
    rc = bpi_http_rewind_body(h, &a, err);
    if(rc)
      goto out;
    bpi_buf_reset(&resp->body);
    resp->status = 0;
    resp->etag[0] = '\0';
    resp->attempts = n;
    a.retry_after_ms = -1;
    a.reason[0] = '\0';
    a.header_bytes = 0;
    a.too_big = NULL;
    errbuf[0] = '\0';
    if(o->debug) {
      struct bp_buf line;
      bpi_buf_init(&line);
      bpi_buf_printf(&line, "%s ", req->method);
      bpi_http_url_for_message(&line, req->url);
      bpi_buf_printf(&line, " (attempt %u/%u)", n, total);
      bpi_buf_addc(&line, '\0');
      if(!bpi_buf_failed(&line))
        bpi_http_debug_line(o, line.data);
      bpi_buf_cleanup(&line);
    }

    CURLcode crc = bpi_curl_api.easy_perform(h);
    long status = 0;
    bpi_curl_api.easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    resp->status = crc ? 0 : status;
    bpi_buf_addc(&resp->body, '\0');   /* keep it a C string */
    resp->body.len--;

    bool retry;
    if(bpi_buf_failed(&resp->body)) {
      rc = bpi_err_set(err, BPE_NOMEM, 0, "out of memory for the answer "
                       "to %s", req->method);
      goto out;
    }
    if(a.too_big) {
      rc = bpi_http_too_big(err, req, &a);
      goto out;
    }
    if(bpi_http_cancelled(o)) {
      struct bp_buf m;
      bpi_buf_init(&m);
      bpi_http_url_for_message(&m, req->url);
      bpi_buf_addc(&m, '\0');
      rc = bpi_err_set(err, BPE_NET, 0, "%s %s: interrupted", req->method,
                       bpi_buf_failed(&m) ? "" : m.data);
      bpi_buf_cleanup(&m);
      goto out;
    }
    if(crc == CURLE_ABORTED_BY_CALLBACK || crc == CURLE_READ_ERROR) {
      rc = bpi_err_set(err, BPE_IO, errno, "cannot read '%s' for %s",
                       req->body_file ? req->body_file : "(body)",
                       req->method);
      goto out;
    }
    if(crc) {
      retry = bpi_http_retriable_curl(crc);
      /* no (whole) answer after the request went out: the server may
       * have it */
      resp->maybe_received = retry && !bpi_http_never_sent(crc);
      rc = retry ? BPE_NET : (crc == CURLE_URL_MALFORMAT ||
                              crc == CURLE_UNSUPPORTED_PROTOCOL ||
                              crc == CURLE_SSL_CACERT_BADFILE) ?
        BPE_INVAL : BPE_NET;
    }
    else if(status >= 200 && status <= 299) {
      if(o->debug) {
        char line[64];
        snprintf(line, sizeof(line), "-> HTTP %ld", status);
        bpi_http_debug_line(o, line);
      }
      rc = BP_OK;
      goto out;
    }
    else {
      retry = bpi_http_retriable_status(status);
      rc = retry ? BPE_NET : BPE_HTTP;
      resp->maybe_received = false;   /* the server answered: it failed */
    }
    if(req->not_idempotent && resp->maybe_received)
      retry = false;
    if(!retry || n >= total) {
      rc = bpi_http_fail(err, rc, req, &a, crc, errbuf);
      goto out;
    }
    long wait = bpi_http_backoff_ms(o, n,
                                    bpi_http_retriable_status(status) &&
                                    !crc ? a.retry_after_ms : -1);
    if(o->deadline_ms && bpi_http_now_ms() + wait >= o->deadline_ms) {
      rc = bpi_http_fail(err, rc, req, &a, crc, errbuf);
      size_t used = err ? strlen(err->msg) : 0;
      if(err)
        snprintf(err->msg + used, sizeof(err->msg) - used, "; the deadline "
                 "leaves no time for another attempt");
      goto out;
    }
    if(o->debug) {
      struct bp_buf line;
      bpi_buf_init(&line);
      if(crc)
        bpi_buf_printf(&line, "-> %s; ",
                       errbuf[0] ? errbuf : bpi_curl_api.easy_strerror(crc));
      else
        bpi_buf_printf(&line, "-> HTTP %ld; ", status);
      bpi_buf_printf(&line, "retrying in %ld ms", wait);
      bpi_buf_addc(&line, '\0');
      if(!bpi_buf_failed(&line))
        bpi_http_debug_line(o, line.data);
      bpi_buf_cleanup(&line);
    }
    bpi_http_sleep_ms(o, wait);
  }

out:
  if(a.file)
    fclose(a.file);
  bpi_curl_api.easy_cleanup(h);
  bpi_curl_api.slist_free_all(headers);
  return rc;
}
