/* http's internals, shared by its five files and nothing else: http.c
 * (libcurl loaded, a request sent: its attempts until one succeeds or
 * fails for good), http_conns.c (the connection cache, a curl share),
 * http_request.c (a request turned into a curl handle: headers, options,
 * the body fed and rewound), http_answer.c (the answer read within its
 * caps, Retry-After and ETag, debug lines redacted, error messages) and
 * http_retry.c (what is retried, the waits, the deadline).  The only
 * files that include libcurl's headers. */
#ifndef BP_LIB_HTTP_INT_H
#define BP_LIB_HTTP_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>

#include <curl/curl.h>

#include "buf.h"
#include "http.h"
#include "sha256.h"

#define DEFAULT_CONNECT_MS 10000L
#define DEFAULT_TOTAL_MS 120000L
/* Bytes of a server's message kept for an error message. */
#define SHOW_MESSAGE 200

/* The libcurl functions used, each named without its "curl_" (curl.h
 * makes curl_easy_setopt and curl_easy_getinfo macros); http.c loads
 * them. */
struct bp_curl_api {
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
};
extern struct bp_curl_api bpi_curl_api;

/* One request's transfer, shared by the callbacks of its attempts. */
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

static inline size_t bpi_http_max_answer(const struct bp_http_opts *o)
{
  return o->max_answer_bytes ? o->max_answer_bytes
                             : BP_HTTP_DEFAULT_MAX_ANSWER;
}

static inline bool bpi_http_cancelled(const struct bp_http_opts *o)
{
  return o->cancel && *o->cancel;
}

/* http_conns.c: the share, made at the first request (NULL when curl
 * cannot make one: each request then connects alone), and the socket
 * hook that counts the connections it opens. */
CURLSH *bpi_http_conns_share(struct bp_http_conns *c);
int bpi_http_on_open_socket(void *userp, curl_socket_t fd,
                            curlsocktype purpose);

/* http_request.c */
struct curl_slist *bpi_http_make_headers(const struct bp_http_req *req,
                                         const char *payload_hash,
                                         bool *failed);
bp_code bpi_http_setup(CURL *h, struct attempt *a,
                       struct curl_slist *headers, const char *sigv4,
                       char *errbuf);
bp_code bpi_http_rewind_body(CURL *h, struct attempt *a, struct bp_err *err);
bp_code bpi_http_payload_sha256(const struct bp_http_req *req,
                                char hex[2 * BP_SHA256_LEN + 1],
                                struct bp_err *err);

/* http_answer.c: curl's callbacks for the answer */
size_t bpi_http_on_body(char *data, size_t size, size_t n, void *userp);
size_t bpi_http_on_header(char *data, size_t size, size_t n, void *userp);
int bpi_http_on_debug(CURL *h, curl_infotype type, char *data, size_t size,
                      void *userp);
void bpi_http_debug_line(const struct bp_http_opts *o, const char *line);
/* http_answer.c: messages */
void bpi_http_url_for_message(struct bp_buf *b, const char *url);
void bpi_http_add_shown(struct bp_buf *b, const char *text, size_t len);
void bpi_http_server_message(struct bp_buf *b, const char *body, size_t len);
bp_code bpi_http_fail(struct bp_err *err, bp_code code,
                      const struct bp_http_req *req, struct attempt *a,
                      CURLcode crc, const char *errbuf);
bp_code bpi_http_too_big(struct bp_err *err, const struct bp_http_req *req,
                         struct attempt *a);

/* http_retry.c */
bool bpi_http_retriable_status(long status);
bool bpi_http_retriable_curl(CURLcode rc);
bool bpi_http_never_sent(CURLcode rc);
long bpi_http_backoff_ms(const struct bp_http_opts *o, unsigned n,
                         long retry_after_ms);
void bpi_http_sleep_ms(const struct bp_http_opts *o, long ms);
bool bpi_http_deadline_allows_attempt(CURL *h, const struct bp_http_opts *o);

#endif
