/* http_conns: the connection cache a publication's requests share
 * (bp_http_conns): a curl share of connections, the DNS cache and TLS
 * sessions, made at the first request, locked per kind of data. */
#include "bp_setup.h"
#include "http_int.h"

#include <pthread.h>
#include <stdlib.h>

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
    bpi_curl_api.share_cleanup(c->share);
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
CURLSH *bpi_http_conns_share(struct bp_http_conns *c)
{
  pthread_mutex_lock(&c->make);
  if(!c->share && !c->failed) {
    CURLSH *s = bpi_curl_api.share_init();
    CURLSHcode rc = s ? CURLSHE_OK : CURLSHE_NOMEM;
#define SHARE(opt, val) \
  do { if(!rc) rc = bpi_curl_api.share_setopt(s, opt, val); } while(0)
    SHARE(CURLSHOPT_LOCKFUNC, conns_lock);
    SHARE(CURLSHOPT_UNLOCKFUNC, conns_unlock);
    SHARE(CURLSHOPT_USERDATA, (void *)c);
    SHARE(CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
    SHARE(CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
    SHARE(CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
#undef SHARE
    if(rc && s)
      bpi_curl_api.share_cleanup(s);
    c->share = rc ? NULL : s;
    c->failed = rc != CURLSHE_OK;
  }
  CURLSH *s = c->share;
  pthread_mutex_unlock(&c->make);
  return s;
}

/* Called by curl before each connection it opens (none for one reused):
 * counts them for bpi_http_conns_opened. */
int bpi_http_on_open_socket(void *userp, curl_socket_t fd,
                            curlsocktype purpose)
{
  (void)fd;
  (void)purpose;
  struct bp_http_conns *c = userp;
  c->opened++;
  return CURL_SOCKOPT_OK;
}
