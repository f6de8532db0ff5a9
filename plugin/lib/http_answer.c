/* http_answer: what comes back and what is said about it: the answer's
 * body and headers read within their caps, its status line's reason,
 * ETag and Retry-After; debug lines with secret header values replaced;
 * the error message of a failed request (method, URL without
 * credentials, the server's own words). */
#include "bp_setup.h"
#include "http_int.h"
#include "err.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <cjson/cJSON.h>

#define RETRY_AFTER_CAP_MS 120000L

/* ------------------------------------------------------------ messages */

/* url without "user:password@" and without its query string, for
 * messages: what and where, never credentials. */
void bpi_http_url_for_message(struct bp_buf *b, const char *url)
{
  const char *start = url;
  const char *scheme = strstr(url, "://");
  if(scheme) {
    bpi_buf_add(b, url, (size_t)(scheme + 3 - url));
    start = scheme + 3;
    size_t host_len = strcspn(start, "/?#");
    const char *at = memchr(start, '@', host_len);
    if(at)
      start = at + 1;
  }
  bpi_buf_add(b, start, strcspn(start, "?#"));
}

/* Append text (len bytes) to b, control characters as spaces, cut at
 * SHOW_MESSAGE bytes, surrounding blanks dropped. */
void bpi_http_add_shown(struct bp_buf *b, const char *text, size_t len)
{
  while(len && (unsigned char)*text <= ' ') {
    text++;
    len--;
  }
  while(len && (unsigned char)text[len - 1] <= ' ')
    len--;
  bool cut = len > SHOW_MESSAGE;
  if(cut)
    len = SHOW_MESSAGE;
  for(size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)text[i];
    bpi_buf_addc(b, (c < ' ' || c == 0x7f) ? ' ' : (char)c);
  }
  if(cut)
    bpi_buf_adds(b, "...");
}

/* The text between <tag> and </tag> in xml, or NULL. */
static const char *xml_field(const char *xml, const char *tag, size_t *len)
{
  char open[32], close[32];
  snprintf(open, sizeof(open), "<%s>", tag);
  snprintf(close, sizeof(close), "</%s>", tag);
  const char *s = strstr(xml, open);
  if(!s)
    return NULL;
  s += strlen(open);
  const char *e = strstr(s, close);
  if(!e)
    return NULL;
  *len = (size_t)(e - s);
  return s;
}

/* The server's own words from an error body: the "message" (or "error")
 * of a JSON object, S3's <Code>: <Message>, else the first line. */
void bpi_http_server_message(struct bp_buf *b, const char *body, size_t len)
{
  if(!body || !len)
    return;
  cJSON *json = cJSON_ParseWithLength(body, len);
  if(json) {
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(json, "message");
    if(!cJSON_IsString(m))
      m = cJSON_GetObjectItemCaseSensitive(json, "error");
    if(cJSON_IsObject(m))
      m = cJSON_GetObjectItemCaseSensitive(m, "message");
    bool found = cJSON_IsString(m) && m->valuestring[0];
    if(found)
      bpi_http_add_shown(b, m->valuestring, strlen(m->valuestring));
    cJSON_Delete(json);
    if(found)
      return;
  }
  if(memchr(body, '\0', len))  /* binary: nothing worth showing */
    return;
  size_t code_len = 0, msg_len = 0;
  const char *code = xml_field(body, "Code", &code_len);
  const char *msg = xml_field(body, "Message", &msg_len);
  if(code || msg) {
    if(code)
      bpi_http_add_shown(b, code, code_len);
    if(code && msg)
      bpi_buf_adds(b, ": ");
    if(msg)
      bpi_http_add_shown(b, msg, msg_len);
    return;
  }
  bpi_http_add_shown(b, body, strcspn(body, "\r\n"));
}

/* The body is kept in memory, so it stops at its cap: a server that
 * streams for ever fails the request instead of filling the memory. */
size_t bpi_http_on_body(char *data, size_t size, size_t n, void *userp)
{
  struct attempt *a = userp;
  size_t len = size * n;
  if(len > bpi_http_max_answer(a->o) - a->resp->body.len) {
    a->too_big = "body";
    return 0;
  }
  bpi_buf_add(&a->resp->body, data, len);
  return bpi_buf_failed(&a->resp->body) ? 0 : len;
}

/* Case-insensitive "Name:" prefix test; returns the value or NULL. */
static const char *header_value(const char *line, size_t len,
                                const char *name)
{
  size_t n = strlen(name);
  if(len <= n || strncasecmp(line, name, n) || line[n] != ':')
    return NULL;
  return line + n + 1;
}

static long retry_after_cap(const struct bp_http_opts *o)
{
  return o->max_retry_after_ms > 0 ? o->max_retry_after_ms
                                   : RETRY_AFTER_CAP_MS;
}

size_t bpi_http_on_header(char *data, size_t size, size_t n, void *userp)
{
  struct attempt *a = userp;
  size_t len = size * n;
  if(len > 5 && !memcmp(data, "HTTP/", 5))
    a->header_bytes = 0;
  a->header_bytes += len;
  if(a->header_bytes > BP_HTTP_MAX_HEADER_BYTES) {
    a->too_big = "headers";
    return 0;
  }
  if(len > 5 && !memcmp(data, "HTTP/", 5)) {
    /* a new answer (after 100 Continue too): forget the previous one */
    a->retry_after_ms = -1;
    a->reason[0] = '\0';
    /* "HTTP/1.1 404 Not Found": the reason follows the second space */
    size_t i = 0, spaces = 0;
    while(i < len && spaces < 2)
      if(data[i++] == ' ')
        spaces++;
    size_t rl = 0;
    while(i + rl < len && data[i + rl] != '\r' && data[i + rl] != '\n' &&
          rl < sizeof(a->reason) - 1)
      rl++;
    memcpy(a->reason, data + i, rl);
    a->reason[rl] = '\0';
    return len;
  }
  const char *tag = header_value(data, len, "ETag");
  if(tag) {
    size_t tl = len - (size_t)(tag - data);
    while(tl && (*tag == ' ' || *tag == '\t')) {
      tag++;
      tl--;
    }
    while(tl && (tag[tl - 1] == '\r' || tag[tl - 1] == '\n' ||
                 tag[tl - 1] == ' '))
      tl--;
    if(tl < sizeof(a->resp->etag)) {
      memcpy(a->resp->etag, tag, tl);
      a->resp->etag[tl] = '\0';
    }
  }
  const char *v = header_value(data, len, "Retry-After");
  if(v) {
    char val[64];
    size_t vl = len - (size_t)(v - data);
    if(vl >= sizeof(val))
      vl = sizeof(val) - 1;
    memcpy(val, v, vl);
    val[vl] = '\0';
    char *end;
    errno = 0;
    long secs = strtol(val, &end, 10);
    long cap = retry_after_cap(a->o);
    if(end != val && !errno && secs >= 0 &&
       strspn(end, " \t\r\n") == strlen(end))
      a->retry_after_ms = secs > cap / 1000 ? cap : secs * 1000;
    else {
      time_t when = bpi_curl_api.getdate(val, NULL);  /* an HTTP-date */
      if(when > 0) {
        time_t now = time(NULL);
        long ms = when > now ? (long)(when - now) * 1000 : 0;
        a->retry_after_ms = ms > cap ? cap : ms;
      }
    }
  }
  return len;
}

void bpi_http_debug_line(const struct bp_http_opts *o, const char *line)
{
  if(o->debug)
    o->debug(o->debug_ctx, line);
}

static bool secret_header(const char *line, size_t len)
{
  static const char *const names[] = {
    "Authorization", "Proxy-Authorization", "x-amz-security-token",
    "Cookie", "Set-Cookie",
    /* GitLab's access and job tokens */
    "PRIVATE-TOKEN", "JOB-TOKEN"
  };
  for(size_t i = 0; i < BP_ARRAY_LEN(names); i++)
    if(header_value(line, len, names[i]))
      return true;
  return false;
}

/* Header blocks, one debug line per header, secret values replaced. */
int bpi_http_on_debug(CURL *h, curl_infotype type, char *data, size_t size,
                      void *userp)
{
  struct attempt *a = userp;
  (void)h;
  if(type != CURLINFO_HEADER_OUT && type != CURLINFO_HEADER_IN)
    return 0;
  const char *mark = type == CURLINFO_HEADER_OUT ? "> " : "< ";
  struct bp_buf line;
  bpi_buf_init(&line);
  size_t i = 0;
  while(i < size) {
    size_t len = 0;
    while(i + len < size && data[i + len] != '\n' && data[i + len] != '\r')
      len++;
    if(len) {
      bpi_buf_reset(&line);
      bpi_buf_adds(&line, mark);
      if(secret_header(data + i, len)) {
        const char *colon = memchr(data + i, ':', len);
        bpi_buf_add(&line, data + i, (size_t)(colon - (data + i)));
        bpi_buf_adds(&line, ": <redacted>");
      }
      else
        bpi_http_add_shown(&line, data + i, len);
      bpi_buf_addc(&line, '\0');
      if(!bpi_buf_failed(&line))
        bpi_http_debug_line(a->o, line.data);
    }
    i += len;
    while(i < size && (data[i] == '\n' || data[i] == '\r'))
      i++;
  }
  bpi_buf_cleanup(&line);
  return 0;
}

/* Replace every copy of secret (len bytes) in b's text from start on
 * with "<redacted>".  Short strings are left: they would match ordinary
 * words, and no credential is that short. */
static void redact_one(struct bp_buf *b, size_t start, const char *secret,
                       size_t len)
{
  static const char mask[] = "<redacted>";
  if(len < 6 || bpi_buf_failed(b) || b->len <= start)
    return;
  struct bp_buf out;
  bpi_buf_init(&out);
  bpi_buf_add(&out, b->data, start);
  const char *s = b->data + start, *end = b->data + b->len;
  for(const char *hit; (hit = memmem(s, (size_t)(end - s), secret, len));
      s = hit + len) {
    bpi_buf_add(&out, s, (size_t)(hit - s));
    bpi_buf_adds(&out, mask);
  }
  bpi_buf_add(&out, s, (size_t)(end - s));
  if(bpi_buf_failed(&out)) {
    bpi_buf_cleanup(&out);
    b->len = start;  /* drop the server's words rather than show a secret */
    return;
  }
  bpi_buf_cleanup(b);
  *b = out;
}

/* Each word of a secret header's value ("Bearer T", "token T", "T"). */
static void redact_header(struct bp_buf *b, size_t start, const char *line)
{
  const char *v = strchr(line, ':');
  if(!v || !secret_header(line, strlen(line)))
    return;
  for(v++; *v;) {
    size_t gap = strspn(v, " \t"), word;
    v += gap;
    word = strcspn(v, " \t");
    redact_one(b, start, v, word);
    v += word;
  }
}

/* A server that echoes what it was sent (a proxy's "bad token: Bearer
 * ..." page) must not put the credentials into the message, which goes
 * to stderr, the run's manifest and the spool. */
static void redact_secrets(struct bp_buf *b, size_t start,
                           const struct bp_http_req *req)
{
  const char *const plain[] = {req->bearer, req->aws_secret,
                               req->aws_session_token, req->aws_key};
  for(size_t i = 0; i < BP_ARRAY_LEN(plain); i++)
    if(plain[i])
      redact_one(b, start, plain[i], strlen(plain[i]));
  for(size_t i = 0; req->headers && req->headers[i]; i++)
    redact_header(b, start, req->headers[i]);
}

/* The error of the last attempt: method, URL, what went wrong. */
long bpi_http_err_status(const struct bp_err *e)
{
  if(e->code != BPE_HTTP && e->code != BPE_NET)
    return 0;
  const char *at = strstr(e->msg, ": HTTP ");
  long status = at ? strtol(at + 7, NULL, 10) : 0;
  return status >= 100 && status <= 599 ? status : 0;
}

bp_code bpi_http_fail(struct bp_err *err, bp_code code,
                      const struct bp_http_req *req, struct attempt *a,
                      CURLcode crc, const char *errbuf)
{
  struct bp_buf m;
  bpi_buf_init(&m);
  bpi_buf_printf(&m, "%s ", req->method);
  bpi_http_url_for_message(&m, req->url);
  bpi_buf_adds(&m, ": ");
  if(crc) {
    bpi_buf_adds(&m, errbuf[0] ? errbuf : bpi_curl_api.easy_strerror(crc));
  }
  else {
    bpi_buf_printf(&m, "HTTP %ld", a->resp->status);
    size_t before = m.len;
    bpi_buf_adds(&m, ": ");
    size_t mark = m.len;
    /* redacted before the message is cut to its length: a secret that
     * straddles the cut would no longer be found whole */
    struct bp_buf body;
    bpi_buf_init(&body);
    bpi_buf_add(&body, a->resp->body.data ? a->resp->body.data : "",
                a->resp->body.len);
    redact_secrets(&body, 0, req);
    if(!bpi_buf_failed(&body))
      bpi_http_server_message(&m, body.data, body.len);
    bpi_buf_cleanup(&body);
    if(m.len == mark) {
      m.len = before;
      if(a->reason[0]) {
        bpi_buf_addc(&m, ' ');
        bpi_http_add_shown(&m, a->reason, strlen(a->reason));
      }
    }
    redact_secrets(&m, before, req);
  }
  if(a->resp->attempts > 1)
    bpi_buf_printf(&m, " (after %u attempts)", a->resp->attempts);
  bpi_buf_addc(&m, '\0');
  bp_code rc = bpi_err_set(err, bpi_buf_failed(&m) ? BPE_NOMEM : code, 0,
                           "%s", bpi_buf_failed(&m) ? "out of memory" :
                           m.data);
  bpi_buf_cleanup(&m);
  return rc;
}

/* An answer past a cap: said once, not retried (the server would send
 * the same again). */
bp_code bpi_http_too_big(struct bp_err *err, const struct bp_http_req *req,
                         struct attempt *a)
{
  struct bp_buf m;
  bpi_buf_init(&m);
  bpi_http_url_for_message(&m, req->url);
  bpi_buf_addc(&m, '\0');
  size_t cap = !strcmp(a->too_big, "body") ? bpi_http_max_answer(a->o)
                                          : BP_HTTP_MAX_HEADER_BYTES;
  bp_code rc = bpi_err_set(err, BPE_NET, 0, "%s %s: the answer's %s are "
                           "larger than %zu bytes; not read further",
                           req->method, bpi_buf_failed(&m) ? "" : m.data,
                           !strcmp(a->too_big, "body") ? "body bytes"
                                                       : "headers", cap);
  bpi_buf_cleanup(&m);
  return rc;
}
