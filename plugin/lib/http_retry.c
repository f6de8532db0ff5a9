/* http_retry: the retry policy: which failures a later attempt may not
 * have (connection errors, 408, 429, 5xx), the wait before the next one
 * (exponential backoff with jitter, or the server's Retry-After), a wait
 * that a cancellation cuts short, and the overall deadline. */
#include "bp_setup.h"
#include "http_int.h"

#include <stdint.h>
#include <time.h>
#include <unistd.h>

#define BACKOFF_CAP_MS 30000L

bool bpi_http_retriable_status(long status)
{
  return status == 408 || status == 429 || (status >= 500 && status <= 599);
}

/* curl failures that a later attempt may not have */
bool bpi_http_retriable_curl(CURLcode rc)
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
bool bpi_http_never_sent(CURLcode rc)
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
long bpi_http_backoff_ms(const struct bp_http_opts *o, unsigned n,
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
void bpi_http_sleep_ms(const struct bp_http_opts *o, long ms)
{
  long end = bpi_http_now_ms() + ms;
  for(long left = ms; left > 0 && !bpi_http_cancelled(o);
      left = end - bpi_http_now_ms()) {
    long slice = left < 100 ? left : 100;
    struct timespec ts = { 0, slice * 1000000L };
    nanosleep(&ts, NULL);
  }
}

/* Whether the deadline leaves time for an attempt; when it does, the
 * attempt's time limit is cut to what is left. */
bool bpi_http_deadline_allows_attempt(CURL *h, const struct bp_http_opts *o)
{
  if(!o->deadline_ms)
    return true;
  long left = o->deadline_ms - bpi_http_now_ms();
  if(left <= 0)
    return false;
  long total = o->total_timeout_ms > 0 ? o->total_timeout_ms
                                       : DEFAULT_TOTAL_MS;
  bpi_curl_api.easy_setopt(h, CURLOPT_TIMEOUT_MS, left < total ? left : total);
  return true;
}
