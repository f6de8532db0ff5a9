/* http: the only libcurl user.  One request in, one answer out, retried
 * as http.h describes.  Each attempt rewinds the body (memory or file) and
 * starts with an empty answer, so the answer kept is the last one.
 *
 * libcurl is loaded with dlopen() at the first request, not linked: with
 * its dependencies (OpenSSL, Kerberos, LDAP, libssh2, nghttp2...) it
 * doubled the start-up time of every benchprof process, and `record` or a
 * run with a file:// store never sends a request.  Only the headers are
 * compiled against; calls go through curl_api, whose members have the
 * functions' own prototypes.
 *
 * What the debug hook sees: one line per attempt ("PUT url (attempt 1/5)"),
 * the request and answer headers with the values of secret headers
 * replaced, and the outcome.  Bodies and curl's informational text (which
 * names the AWS user) never reach it. */
#include "bp_setup.h"
#include "http.h"
#include "dynlib.h"
#include "err.h"
#include "sha256.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <curl/curl.h>

#define DEFAULT_CONNECT_MS 10000L
#define DEFAULT_TOTAL_MS 120000L
#define DEFAULT_RETRIES 4u
#define DEFAULT_BACKOFF_MS 1000L
#define BACKOFF_CAP_MS 30000L
#define RETRY_AFTER_CAP_MS 120000L
/* Bytes of a server's message kept for an error message. */
#define SHOW_MESSAGE 200

/* ------------------------------------------------------------ loading */

#ifndef CURL_SONAME
#define CURL_SONAME "libcurl.so.4"   /* configure found none */
#endif

/* The libcurl functions used here, each named without its "curl_"
 * (curl.h makes curl_easy_setopt and curl_easy_getinfo macros). */
static struct {
  CURLcode (*global_init)(long flags);
  CURL *(*easy_init)(void);
  CURLcode (*easy_setopt)(CURL *curl, CURLoption option, ...);
  CURLcode (*easy_getinfo)(CURL *curl, CURLINFO info, ...);
  CURLcode (*easy_perform)(CURL *curl);
  void (*easy_cleanup)(CURL *curl);
  const char *(*easy_strerror)(CURLcode code);
  struct curl_slist *(*slist_append)(struct curl_slist *list,
                                     const char *string);
  void (*slist_free_all)(struct curl_slist *list);
  time_t (*getdate)(const char *p, const time_t *unused);
  CURLSH *(*share_init)(void);
  CURLSHcode (*share_setopt)(CURLSH *share, CURLSHoption option, ...);
  CURLSHcode (*share_cleanup)(CURLSH *share);
} curl_api;

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
  BPI_DYNLIB_LOAD(&l, curl_api, "curl_", global_init);
  BPI_DYNLIB_LOAD(&l, curl_api, "curl_", easy_init);
  BPI_DYNLIB_LOAD(&l, curl_api, "curl_", easy_setopt);
  BPI_DYNLIB_LOAD(&l, curl_api, "curl_", easy_getinfo);
  BPI_DYNLIB_LOAD(&l, curl_api, "curl_", easy_perform);
  BPI_DYNLIB_LOAD(&l, curl_api, "curl_", easy_cleanup);
  BPI_DYNLIB_LOAD(&l, curl_api, "curl_", easy_strerror);
  BPI_DYNLIB_LOAD(&l, curl_api, "curl_", slist_append);
  BPI_DYNLIB_LOAD(&l, curl_api, "curl_", slist_free_all);
  BPI_DYNLIB_LOAD(&l, curl_api, "curl_", getdate);
  BPI_DYNLIB_LOAD(&l, curl_api, "curl_", share_init);
  BPI_DYNLIB_LOAD(&l, curl_api, "curl_", share_setopt);
  BPI_DYNLIB_LOAD(&l, curl_api, "curl_", share_cleanup);
  if(!bpi_dynlib_done(&l))
    return;
  CURLcode rc = curl_api.global_init(CURL_GLOBAL_DEFAULT);
  if(rc)
    snprintf(load_error, sizeof(load_error), "libcurl failed to "
             "initialise: %s", curl_api.easy_strerror(rc));
}

/* -------------------------------------------------------- connections */

/* A curl share of the connection cache, the DNS cache and TLS sessions.
 * Its lock callbacks take one mutex per kind of data curl shares, so
 * requests from several threads can use it at once. */
struct bp_http_conns {
  pthread_mutex_t make;    /* guards share and failed */
  CURLSH *share;           /* made by the first request; NULL before */
  bool failed;             /* could not be made: requests go without */
  _Atomic unsigned long opened;  /* connections opened through it */
  pthread_mutex_t locks[CURL_LOCK_DATA_LAST];
};

struct bp_http_conns *bpi_http_conns_new(void)
{
  struct bp_http_conns *c = calloc(1, sizeof(*c));
  if(!c)
    return NULL;
  pthread_mutex_init(&c->make, NULL);
  for(size_t i = 0; i < BP_ARRAY_LEN(c->locks); i++)
    pthread_mutex_init(&c->locks[i], NULL);
  return c;
}

void bpi_http_conns_free(struct bp_http_conns *c)
{
  if(!c)
    return;
  if(c->share)   /* closes the connections it kept */
    curl_api.share_cleanup(c->share);
  pthread_mutex_destroy(&c->make);
  for(size_t i = 0; i < BP_ARRAY_LEN(c->locks); i++)
    pthread_mutex_destroy(&c->locks[i]);
  free(c);
}

unsigned long bpi_http_conns_opened(const struct bp_http_conns *c)
{
  return c ? c->opened : 0;
}

static void conns_lock(CURL *h, curl_lock_data data,
                       curl_lock_access access, void *userp)
{
  (void)h;
  (void)access;
  struct bp_http_conns *c = userp;
  pthread_mutex_lock(&c->locks[data < CURL_LOCK_DATA_LAST ? data : 0]);
}

static void conns_unlock(CURL *h, curl_lock_data data, void *userp)
{
  (void)h;
  struct bp_http_conns *c = userp;
  pthread_mutex_unlock(&c->locks[data < CURL_LOCK_DATA_LAST ? data : 0]);
}

/* The share, made at the first request (libcurl is loaded by then);
 * NULL when curl cannot make one: each request then connects alone. */
static CURLSH *conns_share(struct bp_http_conns *c)
{
  pthread_mutex_lock(&c->make);
  if(!c->share && !c->failed) {
    CURLSH *s = curl_api.share_init();
    CURLSHcode rc = s ? CURLSHE_OK : CURLSHE_NOMEM;
#define SHARE(opt, val) \
  do { if(!rc) rc = curl_api.share_setopt(s, opt, val); } while(0)
    SHARE(CURLSHOPT_LOCKFUNC, conns_lock);
    SHARE(CURLSHOPT_UNLOCKFUNC, conns_unlock);
    SHARE(CURLSHOPT_USERDATA, (void *)c);
    SHARE(CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
    SHARE(CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
    SHARE(CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
#undef SHARE
    if(rc && s)
      curl_api.share_cleanup(s);
    c->share = rc ? NULL : s;
    c->failed = rc != CURLSHE_OK;
  }
  CURLSH *s = c->share;
  pthread_mutex_unlock(&c->make);
  return s;
}

/* Called by curl before each connection it opens (none for one reused):
 * counts them for bpi_http_conns_opened. */
static int on_open_socket(void *userp, curl_socket_t fd, curlsocktype purpose)
{
  (void)fd;
  (void)purpose;
  struct bp_http_conns *c = userp;
  c->opened++;
  return CURL_SOCKOPT_OK;
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
  static const char hex[] = "0123456789ABCDEF";
  size_t n = strlen(s);
  if(n > (SIZE_MAX - 1) / 3)
    return NULL;
  char *out = malloc(3 * n + 1);
  if(!out)
    return NULL;
  char *o = out;
  for(const unsigned char *p = (const unsigned char *)s; *p; p++) {
    unsigned char c = *p;
    if((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
       (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
       c == '~')
      *o++ = (char)c;
    else {
      *o++ = '%';
      *o++ = hex[c >> 4];
      *o++ = hex[c & 15];
    }
  }
  *o = '\0';
  return out;
}

bool bpi_http_url_has_credentials(const char *url)
{
  const char *scheme = url ? strstr(url, "://") : NULL;
  if(!scheme)
    return false;
  const char *authority = scheme + 3;
  return memchr(authority, '@', strcspn(authority, "/?#")) != NULL;
}

/* ------------------------------------------------------------ messages */

/* url without "user:password@" and without its query string, for
 * messages: what and where, never credentials. */
static void url_for_message(struct bp_buf *b, const char *url)
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
static void add_shown(struct bp_buf *b, const char *text, size_t len)
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
static void server_message(struct bp_buf *b, const char *body, size_t len)
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
      add_shown(b, m->valuestring, strlen(m->valuestring));
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
      add_shown(b, code, code_len);
    if(code && msg)
      bpi_buf_adds(b, ": ");
    if(msg)
      add_shown(b, msg, msg_len);
    return;
  }
  add_shown(b, body, strcspn(body, "\r\n"));
}

/* ------------------------------------------------------------ one attempt */

struct attempt {
  const struct bp_http_opts *o;
  const struct bp_http_req *req;
  struct bp_http_resp *resp;
  /* the body being sent */
  FILE *file;
  size_t sent;
  /* from the answer's headers */
  long retry_after_ms;   /* -1: none */
  char reason[64];       /* status line's reason phrase */
  size_t header_bytes;   /* of this answer, against BP_HTTP_MAX_HEADER_BYTES */
  const char *too_big;   /* "headers" or "body" when one passed its cap */
};

static size_t max_answer(const struct bp_http_opts *o)
{
  return o->max_answer_bytes ? o->max_answer_bytes
                             : BP_HTTP_DEFAULT_MAX_ANSWER;
}

static bool cancelled(const struct bp_http_opts *o)
{
  return o->cancel && *o->cancel;
}

/* curl's progress hook: a non-zero return abandons the transfer. */
static int on_progress(void *userp, curl_off_t dltotal, curl_off_t dlnow,
                       curl_off_t ultotal, curl_off_t ulnow)
{
  (void)dltotal;
  (void)dlnow;
  (void)ultotal;
  (void)ulnow;
  return cancelled(((struct attempt *)userp)->o);
}

/* The body is kept in memory, so it stops at its cap: a server that
 * streams for ever fails the request instead of filling the memory. */
static size_t on_body(char *data, size_t size, size_t n, void *userp)
{
  struct attempt *a = userp;
  size_t len = size * n;
  if(len > max_answer(a->o) - a->resp->body.len) {
    a->too_big = "body";
    return 0;
  }
  bpi_buf_add(&a->resp->body, data, len);
  return bpi_buf_failed(&a->resp->body) ? 0 : len;
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

static size_t on_header(char *data, size_t size, size_t n, void *userp)
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
      time_t when = curl_api.getdate(val, NULL);  /* an HTTP-date */
      if(when > 0) {
        time_t now = time(NULL);
        long ms = when > now ? (long)(when - now) * 1000 : 0;
        a->retry_after_ms = ms > cap ? cap : ms;
      }
    }
  }
  return len;
}

static void debug_line(const struct bp_http_opts *o, const char *line)
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
static int on_debug(CURL *h, curl_infotype type, char *data, size_t size,
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
        add_shown(&line, data + i, len);
      bpi_buf_addc(&line, '\0');
      if(!bpi_buf_failed(&line))
        debug_line(a->o, line.data);
    }
    i += len;
    while(i < size && (data[i] == '\n' || data[i] == '\r'))
      i++;
  }
  bpi_buf_cleanup(&line);
  return 0;
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
    curl_api.slist_append(list, b.data);
  bpi_buf_cleanup(&b);
  if(!l) {
    *failed = true;
    return list;
  }
  return l;
}

/* The headers of req, NULL with *failed when out of memory. */
static struct curl_slist *make_headers(const struct bp_http_req *req,
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
    struct curl_slist *n = curl_api.slist_append(l, *h);
    if(!n)
      *failed = true;
    else
      l = n;
  }
  return l;
}

/* Fill the handle for req once; each attempt only rewinds the body. */
static bp_code setup(CURL *h, struct attempt *a, struct curl_slist *headers,
                     const char *sigv4, char *errbuf)
{
  const struct bp_http_opts *o = a->o;
  const struct bp_http_req *req = a->req;
  bool upload = req->body || req->body_file || !strcmp(req->method, "PUT") ||
    !strcmp(req->method, "POST") || !strcmp(req->method, "PATCH");
  CURLcode rc = CURLE_OK;
#define SET(opt, val) \
  do { if(!rc) rc = curl_api.easy_setopt(h, opt, val); } while(0)
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
  SET(CURLOPT_WRITEFUNCTION, on_body);
  SET(CURLOPT_WRITEDATA, a);
  SET(CURLOPT_HEADERFUNCTION, on_header);
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
    SET(CURLOPT_DEBUGFUNCTION, on_debug);
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
    CURLSH *share = conns_share(o->conns);
    if(share) {
      SET(CURLOPT_SHARE, share);
      /* the cache's size: curl's default (5) would close connections
       * that parallel requests opened */
      SET(CURLOPT_MAXCONNECTS, (long)BP_HTTP_CONNS_MAX);
    }
    SET(CURLOPT_SOCKOPTFUNCTION, on_open_socket);
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
static bp_code rewind_body(CURL *h, struct attempt *a, struct bp_err *err)
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
  if(curl_api.easy_setopt(h, CURLOPT_INFILESIZE_LARGE, size))
    return bpi_err_set(err, BPE_INVAL, 0, "cannot set the upload size");
  return BP_OK;
}

/* Hex SHA-256 of the body, as S3's x-amz-content-sha256 wants. */
static bp_code payload_sha256(const struct bp_http_req *req,
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

/* ------------------------------------------------------------ retries */

static bool retriable_status(long status)
{
  return status == 408 || status == 429 || (status >= 500 && status <= 599);
}

/* curl failures that a later attempt may not have */
static bool retriable_curl(CURLcode rc)
{
  switch(rc) {
  case CURLE_COULDNT_RESOLVE_PROXY:
  case CURLE_COULDNT_RESOLVE_HOST:
  case CURLE_COULDNT_CONNECT:
  case CURLE_PARTIAL_FILE:
  case CURLE_OPERATION_TIMEDOUT:
  case CURLE_GOT_NOTHING:
  case CURLE_SEND_ERROR:
  case CURLE_RECV_ERROR:
  case CURLE_SSL_CONNECT_ERROR:
  case CURLE_HTTP2:
  case CURLE_HTTP2_STREAM:
  case CURLE_HTTP3:
  case CURLE_QUIC_CONNECT_ERROR:
  case CURLE_WEIRD_SERVER_REPLY:
  case CURLE_AGAIN:
    return true;
  default:
    return false;
  }
}

/* curl failures before any byte of the request reached the server */
static bool never_sent(CURLcode rc)
{
  return rc == CURLE_COULDNT_RESOLVE_PROXY ||
         rc == CURLE_COULDNT_RESOLVE_HOST || rc == CURLE_COULDNT_CONNECT ||
         rc == CURLE_SSL_CONNECT_ERROR;
}

/* A number in [0, 1) that differs between calls and processes, for the
 * jitter; not for anything secret. */
static double jitter_unit(void)
{
  static _Atomic uint64_t counter;
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 32) ^
    ((uint64_t)getpid() << 16) ^ (counter++ * 0x9e3779b97f4a7c15ULL);
  /* splitmix64 finaliser */
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return (double)(x >> 11) / (double)(1ULL << 53);
}

/* The wait before retry number n (1-based). */
static long backoff_ms(const struct bp_http_opts *o, unsigned n,
                       long retry_after_ms)
{
  if(retry_after_ms >= 0)
    return retry_after_ms;
  double d = (double)(o->backoff_ms > 0 ? o->backoff_ms : 0);
  for(unsigned i = 1; i < n && d < BACKOFF_CAP_MS; i++)
    d *= 2;
  if(d > BACKOFF_CAP_MS)
    d = BACKOFF_CAP_MS;
  d *= 0.75 + 0.5 * jitter_unit();
  return (long)d;
}

/* Sleep ms, in slices of at most 100 ms so that a cancellation ends the
 * wait also in a thread that does not receive the signal itself. */
static void sleep_ms(const struct bp_http_opts *o, long ms)
{
  long end = bpi_http_now_ms() + ms;
  for(long left = ms; left > 0 && !cancelled(o);
      left = end - bpi_http_now_ms()) {
    long slice = left < 100 ? left : 100;
    struct timespec ts = { 0, slice * 1000000L };
    nanosleep(&ts, NULL);
  }
}


/* ------------------------------------------------------------ send */

/* The error of the last attempt: method, URL, what went wrong. */
static bp_code fail(struct bp_err *err, bp_code code,
                    const struct bp_http_req *req, struct attempt *a,
                    CURLcode crc, const char *errbuf)
{
  struct bp_buf m;
  bpi_buf_init(&m);
  bpi_buf_printf(&m, "%s ", req->method);
  url_for_message(&m, req->url);
  bpi_buf_adds(&m, ": ");
  if(crc) {
    bpi_buf_adds(&m, errbuf[0] ? errbuf : curl_api.easy_strerror(crc));
  }
  else {
    bpi_buf_printf(&m, "HTTP %ld", a->resp->status);
    size_t before = m.len;
    bpi_buf_adds(&m, ": ");
    size_t mark = m.len;
    server_message(&m, a->resp->body.data, a->resp->body.len);
    if(m.len == mark) {
      m.len = before;
      if(a->reason[0]) {
        bpi_buf_addc(&m, ' ');
        add_shown(&m, a->reason, strlen(a->reason));
      }
    }
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
static bp_code too_big(struct bp_err *err, const struct bp_http_req *req,
                       struct attempt *a)
{
  struct bp_buf m;
  bpi_buf_init(&m);
  url_for_message(&m, req->url);
  bpi_buf_addc(&m, '\0');
  size_t cap = !strcmp(a->too_big, "body") ? max_answer(a->o)
                                          : BP_HTTP_MAX_HEADER_BYTES;
  bp_code rc = bpi_err_set(err, BPE_NET, 0, "%s %s: the answer's %s are "
                           "larger than %zu bytes; not read further",
                           req->method, bpi_buf_failed(&m) ? "" : m.data,
                           !strcmp(a->too_big, "body") ? "body bytes"
                                                       : "headers", cap);
  bpi_buf_cleanup(&m);
  return rc;
}

/* Whether the deadline leaves time for an attempt; when it does, the
 * attempt's time limit is cut to what is left. */
static bool deadline_allows_attempt(CURL *h, const struct bp_http_opts *o)
{
  if(!o->deadline_ms)
    return true;
  long left = o->deadline_ms - bpi_http_now_ms();
  if(left <= 0)
    return false;
  long total = o->total_timeout_ms > 0 ? o->total_timeout_ms
                                       : DEFAULT_TOTAL_MS;
  curl_api.easy_setopt(h, CURLOPT_TIMEOUT_MS, left < total ? left : total);
  return true;
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
    rc = payload_sha256(req, hash, err);
    if(rc)
      goto out;
    snprintf(sigv4, sizeof(sigv4), "aws:amz:%s:s3",
             req->aws_region ? req->aws_region : "us-east-1");
    sig = sigv4;
  }
  headers = make_headers(req, sig ? hash : NULL, &nomem);
  h = curl_api.easy_init();
  if(nomem || !h) {
    rc = bpi_err_set(err, BPE_NOMEM, 0, "out of memory for %s request",
                     req->method);
    goto out;
  }
  errbuf[0] = '\0';
  rc = setup(h, &a, headers, sig, errbuf);
  if(rc) {
    rc = bpi_err_set(err, rc, 0, "cannot set up %s request", req->method);
    goto out;
  }

  unsigned total = o->retries + 1;
  for(unsigned n = 1; ; n++) {
    if(cancelled(o)) {
      rc = bpi_err_set(err, BPE_NET, 0, "%s: interrupted", req->method);
      goto out;
    }
    if(!deadline_allows_attempt(h, o)) {
      rc = bpi_err_set(err, BPE_NET, 0, "%s: the time allowed for "
                       "publishing ran out before %s", req->method,
                       n == 1 ? "the request" : "another attempt");
      goto out;
    }
    rc = rewind_body(h, &a, err);
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
      url_for_message(&line, req->url);
      bpi_buf_printf(&line, " (attempt %u/%u)", n, total);
      bpi_buf_addc(&line, '\0');
      if(!bpi_buf_failed(&line))
        debug_line(o, line.data);
      bpi_buf_cleanup(&line);
    }

    CURLcode crc = curl_api.easy_perform(h);
    long status = 0;
    curl_api.easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
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
      rc = too_big(err, req, &a);
      goto out;
    }
    if(cancelled(o)) {
      struct bp_buf m;
      bpi_buf_init(&m);
      url_for_message(&m, req->url);
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
      retry = retriable_curl(crc);
      /* no (whole) answer after the request went out: the server may
       * have it */
      resp->maybe_received = retry && !never_sent(crc);
      rc = retry ? BPE_NET : (crc == CURLE_URL_MALFORMAT ||
                              crc == CURLE_UNSUPPORTED_PROTOCOL ||
                              crc == CURLE_SSL_CACERT_BADFILE) ?
        BPE_INVAL : BPE_NET;
    }
    else if(status >= 200 && status <= 299) {
      if(o->debug) {
        char line[64];
        snprintf(line, sizeof(line), "-> HTTP %ld", status);
        debug_line(o, line);
      }
      rc = BP_OK;
      goto out;
    }
    else {
      retry = retriable_status(status);
      rc = retry ? BPE_NET : BPE_HTTP;
      resp->maybe_received = false;   /* the server answered: it failed */
    }
    if(req->not_idempotent && resp->maybe_received)
      retry = false;
    if(!retry || n >= total) {
      rc = fail(err, rc, req, &a, crc, errbuf);
      goto out;
    }
    long wait = backoff_ms(o, n, retriable_status(status) && !crc ?
                           a.retry_after_ms : -1);
    if(o->deadline_ms && bpi_http_now_ms() + wait >= o->deadline_ms) {
      rc = fail(err, rc, req, &a, crc, errbuf);
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
                       errbuf[0] ? errbuf : curl_api.easy_strerror(crc));
      else
        bpi_buf_printf(&line, "-> HTTP %ld; ", status);
      bpi_buf_printf(&line, "retrying in %ld ms", wait);
      bpi_buf_addc(&line, '\0');
      if(!bpi_buf_failed(&line))
        debug_line(o, line.data);
      bpi_buf_cleanup(&line);
    }
    sleep_ms(o, wait);
  }

out:
  if(a.file)
    fclose(a.file);
  curl_api.easy_cleanup(h);
  curl_api.slist_free_all(headers);
  return rc;
}
