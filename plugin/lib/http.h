/* http: the only libcurl user.  One request in, one answer out, with the
 * retry policy every network stage shares: connect and total timeouts,
 * exponential backoff with jitter on connection errors, 408, 429 (its
 * Retry-After honoured) and 5xx; a 4xx other than 408/429 is final.
 * TLS verification is always on.  Secrets (the bearer token, AWS keys and
 * the signature) never reach the debug callback: Authorization and
 * x-amz-security-token values are replaced by "<redacted>".
 * Owns: the answer body in struct bp_http_resp (free with
 * bpi_http_resp_cleanup). */
#ifndef BP_LIB_HTTP_H
#define BP_LIB_HTTP_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "benchprof/benchprof.h"
#include "buf.h"

/* How to talk to servers; shared by every request of a publication. */
struct bp_http_opts {
  long connect_timeout_ms;  /* 0: 10 s */
  long total_timeout_ms;    /* per attempt; 0: 120 s */
  unsigned retries;         /* further attempts after the first (default 4 when
                               set by bpi_http_opts_default) */
  long backoff_ms;          /* first delay; doubles each retry, +-25% jitter;
                               capped at 30 s (Retry-After wins, up to
                               max_retry_after_ms) */
  long max_retry_after_ms;  /* the longest Retry-After obeyed; a longer one
                               is cut to this; 0: 120 s */
  long deadline_ms;         /* bpi_http_now_ms() by which every request of
                               these options must end: attempts are cut to
                               it and no retry starts after it; 0: none */
  size_t max_answer_bytes;  /* an answer body larger than this fails the
                               request (BPE_NET, not retried); 0: 256 MiB */
  /* when set and non-zero (a signal handler sets it), the request in
   * flight is abandoned, a retry's wait cut short, and no request starts:
   * BPE_NET "interrupted"; NULL: never */
  const volatile sig_atomic_t *cancel;
  const char *ca_file;      /* extra CA bundle (PEM), NULL: the system's */
  /* connections kept open for the next request to the same server, names
   * resolved once, TLS sessions resumed: shared by every request made
   * with these options, from any thread; NULL: a new connection each */
  struct bp_http_conns *conns;
  /* -v: one line per request, header and answer status, secrets redacted */
  void (*debug)(void *ctx, const char *line);
  void *debug_ctx;
};

void bpi_http_opts_default(struct bp_http_opts *o);

/* The most connections a bp_http_conns keeps open, and so the most
 * requests that may share one at the same time and still reuse them. */
#define BP_HTTP_CONNS_MAX 16

/* A connection cache for bp_http_opts.conns: one per publication.  It
 * loads nothing until a request uses it (a file:// store never does).
 * NULL when out of memory.  Free it after its last request;
 * bpi_http_conns_opened says how many connections it opened. */
struct bp_http_conns *bpi_http_conns_new(void);
void bpi_http_conns_free(struct bp_http_conns *c);
unsigned long bpi_http_conns_opened(const struct bp_http_conns *c);

/* CLOCK_MONOTONIC in milliseconds, the clock of deadline_ms. */
long bpi_http_now_ms(void);

/* Bytes of answer headers kept per answer; more fails the request. */
#define BP_HTTP_MAX_HEADER_BYTES (64 * 1024)
#define BP_HTTP_DEFAULT_MAX_ANSWER ((size_t)256 << 20)

/* One request.  Body from memory (body/body_len) or from a file
 * (body_file), never both. */
struct bp_http_req {
  const char *method;            /* "GET", "PUT", "POST", "PATCH", "DELETE" */
  const char *url;               /* already percent-encoded */
  const char *const *headers;    /* NULL-terminated "Name: value", or NULL */
  const char *content_type;      /* NULL: none */
  const char *content_encoding;  /* NULL: none */
  const char *bearer;            /* Authorization: Bearer <this>, or NULL */
  const char *body;
  size_t body_len;
  const char *body_file;
  /* S3: AWS Signature V4 by libcurl (CURLOPT_AWS_SIGV4), NULL: unsigned */
  const char *aws_region;        /* "us-east-1" */
  const char *aws_key;
  const char *aws_secret;
  const char *aws_session_token; /* sent as x-amz-security-token */
  /* a request that must not be repeated once the server may have it (a
   * public upload): not retried after it went out and no answer came
   * (timed out, connection cut, empty or partial answer); a failure
   * before it reached the server (name, connection, TLS set-up) or an
   * error status is retried as usual */
  bool not_idempotent;
};

/* The final answer (after retries). */
struct bp_http_resp {
  long status;            /* HTTP status, 0 when none arrived */
  char etag[128];         /* the answer's ETag header, "" when none */
  struct bp_buf body;     /* the answer's body (also for errors) */
  unsigned attempts;      /* how many were made */
  bool maybe_received;    /* failed, yet the server may have taken it (no
                             answer came after the request went out) */
};

void bpi_http_resp_init(struct bp_http_resp *r);
void bpi_http_resp_cleanup(struct bp_http_resp *r);

/* Send req, retrying as described above.  BP_OK for a 2xx answer.
 * BPE_NET when no usable answer came after every attempt (refused,
 * timed out, truncated, 5xx, 408, 429), when the deadline came first, or
 * at once when the answer's headers or body are larger than their caps
 * (BP_HTTP_MAX_HEADER_BYTES, max_answer_bytes); BPE_HTTP for a final 4xx.  The
 * error message names the method, the URL (no credentials) and the
 * server's own message (the "message" of a JSON error body, or its first
 * line), e.g. "POST http://127.0.0.1:6610/v0/run: HTTP 400: invalid
 * branch".  resp holds the last answer either way. */
bp_code bpi_http_send(const struct bp_http_opts *o,
                      const struct bp_http_req *req,
                      struct bp_http_resp *resp, struct bp_err *err);

/* The HTTP status a failure of bpi_http_send names (its ": HTTP NNN"),
 * e.g. 401 for a refused token; 0 when it names none (no answer came).
 * A message copied on (bpi_err_copy, a store's error) still says it. */
long bpi_http_err_status(const struct bp_err *e);

/* Whether url has credentials ("user:password@" or "user@") before its
 * host.  They would travel into messages, manifests and the spool, so
 * every URL benchprof is given is refused when it has them. */
bool bpi_http_url_has_credentials(const char *url);

/* url as a message may show it: its query and fragment (a signature or a
 * token in "?X-Token=...") as "?<redacted>", a URL with credentials not
 * at all; at most 200 characters of it.  out: BP_HTTP_URL_SHOWN bytes. */
#define BP_HTTP_URL_SHOWN 224
void bpi_http_url_shown(char out[BP_HTTP_URL_SHOWN], const char *url);

/* Whether a CA bundle (network.ca_file, --ca-file) can be used: a
 * regular file benchprof may read that holds at least one PEM
 * certificate ("-----BEGIN CERTIFICATE-----", or the trusted form); else
 * BPE_CONFIG naming key and path (an empty file, /etc/passwd).
 * Checked before a publication, where curl would only say "error setting
 * certificate file" on every request. */
bp_code bpi_http_ca_file_check(const char *path, const char *key,
                               struct bp_err *err);

/* Percent-encode s for a URL path segment (RFC 3986 unreserved kept);
 * malloc'd, NULL when out of memory. */
char *bpi_http_escape(const char *s);

#endif
