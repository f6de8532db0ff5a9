/* serve: the local store over HTTP, read-only (see serve.h), in three
 * files (serve_mhd.h names them).  This one runs the server: loading
 * libmicrohttpd, starting and stopping the daemon, its URL, public base
 * and allowed origins, and the connection limits with the watchdog over
 * each connection's header deadline.  Every request is answered from the
 * file system as it is now (serve_answer.c): pages are built per request,
 * so a run that publishes while the server runs shows up on the next
 * reload.  The server keeps no state but the root and its URL, which are
 * set before the first request and never change.
 *
 * libmicrohttpd is loaded with dlopen() when a server starts, not linked:
 * with GnuTLS and its dependencies it slowed the start of every benchprof
 * process, and only `benchprof serve` needs it.  Only the header is
 * compiled against; calls go through bpi_mhd_api (serve_mhd.h), whose
 * members have the functions' own prototypes. */
#include "bp_setup.h"
#include "serve.h"
#include "serve_int.h"
#include "serve_mhd.h"
#include "dynlib.h"

#include "buf.h"
#include "err.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------ loading */

#ifndef MHD_SONAME
#define MHD_SONAME "libmicrohttpd.so.12"   /* configure found none */
#endif

struct bp_mhd_api bpi_mhd_api;

/* Loaded once, under pthread_once (servers are started from one thread
 * today); the daemon's own threads only call through bpi_mhd_api after
 * MHD_start_daemon, which happens after the loading.  load_error says why
 * it failed ("" when it did not). */
static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[512];

static void load_mhd(void)
{
  struct bp_dynlib l;
  if(!bpi_dynlib_open(&l, MHD_SONAME, load_error, sizeof(load_error)))
    return;
  BPI_DYNLIB_LOAD(&l, bpi_mhd_api, "MHD_", start_daemon);
  BPI_DYNLIB_LOAD(&l, bpi_mhd_api, "MHD_", stop_daemon);
  BPI_DYNLIB_LOAD(&l, bpi_mhd_api, "MHD_", get_daemon_info);
  BPI_DYNLIB_LOAD(&l, bpi_mhd_api, "MHD_", lookup_connection_value);
  BPI_DYNLIB_LOAD(&l, bpi_mhd_api, "MHD_", create_response_from_buffer);
  BPI_DYNLIB_LOAD(&l, bpi_mhd_api, "MHD_", create_response_from_fd64);
  BPI_DYNLIB_LOAD(&l, bpi_mhd_api, "MHD_", add_response_header);
  BPI_DYNLIB_LOAD(&l, bpi_mhd_api, "MHD_", queue_response);
  BPI_DYNLIB_LOAD(&l, bpi_mhd_api, "MHD_", destroy_response);
  BPI_DYNLIB_LOAD(&l, bpi_mhd_api, "MHD_", get_connection_info);
  bpi_dynlib_done(&l);
}

/* Slow clients.  libmicrohttpd's connection timeout starts again with
 * every byte, so a client sending a header line every few seconds (or
 * nothing after connecting) could hold a connection for ever, and 130 of
 * them used to fill the server.  Each connection waiting for a request's
 * headers therefore has a deadline that bytes do not move: a watchdog
 * thread shuts the socket down when it passes (libmicrohttpd then sees the
 * connection end and closes it).  Plus: many connections in all, and a
 * per-IP limit so that one address cannot take them all. */
#define HEADER_DEADLINE_MS 10000
#define WATCH_PERIOD_MS 500
#define MAX_CONNECTIONS 1024u
#define MAX_PER_IP 256u
#define IDLE_TIMEOUT_S 30u

static long now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct watched *bpi_serve_watched_of(struct MHD_Connection *c)
{
  const union MHD_ConnectionInfo *i =
    bpi_mhd_api.get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  return i ? i->socket_context : NULL;
}

/* libmicrohttpd's connection notifier: start and stop watching. */
static void on_connection(void *cls, struct MHD_Connection *c,
                          void **socket_context,
                          enum MHD_ConnectionNotificationCode toe)
{
  struct bp_serve *sv = cls;
  if(toe == MHD_CONNECTION_NOTIFY_STARTED) {
    const union MHD_ConnectionInfo *i =
      bpi_mhd_api.get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    struct watched *w = calloc(1, sizeof(*w));
    *socket_context = w;
    if(!w || !i)
      return;  /* unwatched: the idle timeout still applies */
    w->fd = i->connect_fd;
    w->since_ms = now_ms();
    w->waiting = true;
    pthread_mutex_lock(&sv->lock);
    w->next = sv->conns;
    w->prevp = &sv->conns;
    if(sv->conns)
      sv->conns->prevp = &w->next;
    sv->conns = w;
    pthread_mutex_unlock(&sv->lock);
    return;
  }
  struct watched *w = *socket_context;
  if(!w)
    return;
  pthread_mutex_lock(&sv->lock);
  if(w->prevp) {
    *w->prevp = w->next;
    if(w->next)
      w->next->prevp = w->prevp;
  }
  pthread_mutex_unlock(&sv->lock);
  free(w);
  *socket_context = NULL;
}

/* A request's headers arrived (waiting false), or its answer went out and
 * the connection waits for the next one (waiting true, a new deadline). */
void bpi_serve_set_waiting(struct bp_serve *sv, struct MHD_Connection *c,
                           bool waiting)
{
  struct watched *w = bpi_serve_watched_of(c);
  if(!w)
    return;
  pthread_mutex_lock(&sv->lock);
  w->waiting = waiting;
  w->since_ms = now_ms();
  pthread_mutex_unlock(&sv->lock);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
  (void)con_cls;
  (void)toe;
  bpi_serve_set_waiting(cls, c, true);
}

static void *watchdog(void *arg)
{
  struct bp_serve *sv = arg;
  pthread_mutex_lock(&sv->lock);
  while(!sv->stopping) {
    long now = now_ms();
    for(struct watched *w = sv->conns; w; w = w->next)
      if(w->waiting && !w->shut && now - w->since_ms > HEADER_DEADLINE_MS) {
        shutdown(w->fd, SHUT_RDWR);
        w->shut = true;
      }
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_nsec += WATCH_PERIOD_MS * 1000000L;
    until.tv_sec += until.tv_nsec / 1000000000L;
    until.tv_nsec %= 1000000000L;
    pthread_cond_timedwait(&sv->wake, &sv->lock, &until);
  }
  pthread_mutex_unlock(&sv->lock);
  return NULL;
}

static bool watch_start(struct bp_serve *sv)
{
  pthread_condattr_t ca;
  pthread_mutex_init(&sv->lock, NULL);
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&sv->wake, &ca);
  pthread_condattr_destroy(&ca);
  sv->watching = !pthread_create(&sv->watchdog, NULL, watchdog, sv);
  return sv->watching;
}

static void watch_stop(struct bp_serve *sv)
{
  if(!sv->watching)
    return;
  pthread_mutex_lock(&sv->lock);
  sv->stopping = true;
  pthread_cond_signal(&sv->wake);
  pthread_mutex_unlock(&sv->lock);
  pthread_join(sv->watchdog, NULL);
  sv->watching = false;
}

/* As many connections as the descriptors allow, up to MAX_CONNECTIONS,
 * some kept for the store's files. */
static unsigned connection_limit(void)
{
  struct rlimit rl;
  if(getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY)
    return MAX_CONNECTIONS;
  rlim_t room = rl.rlim_cur > 64 ? (rl.rlim_cur - 32) / 2 : 16;
  return room < MAX_CONNECTIONS ? (unsigned)room : MAX_CONNECTIONS;
}


/* ------------------------------------------------------------ server */

static bp_code make_url(struct bp_serve *sv, const char *bind, bool v6)
{
  struct bp_buf b;
  bool wildcard = !strcmp(bind, "0.0.0.0") || !strcmp(bind, "::");
  bpi_buf_init(&b);
  bpi_buf_adds(&b, "http://");
  if(wildcard)
    bpi_buf_adds(&b, v6 ? "[::1]" : "127.0.0.1");
  else
    bpi_buf_printf(&b, v6 ? "[%s]" : "%s", bind);
  bpi_buf_printf(&b, ":%u/", sv->port);
  bpi_buf_addc(&b, '\0');
  if(bpi_buf_failed(&b)) {
    bpi_buf_cleanup(&b);
    return BPE_NOMEM;
  }
  sv->url = b.data;
  return BP_OK;
}

/* The public URL, or the bound one, ending in '/'. */
static bp_code make_base(struct bp_serve *sv, const char *public_url)
{
  const char *from = public_url ? public_url : sv->url;
  size_t len = strlen(from);
  sv->base = malloc(len + 2);
  if(!sv->base)
    return BPE_NOMEM;
  memcpy(sv->base, from, len + 1);
  if(!len || from[len - 1] != '/')
    memcpy(sv->base + len, "/", 2);
  return BP_OK;
}

/* scheme://authority of a URL, malloc'd; NULL when out of memory. */
static char *origin_of(const char *url)
{
  const char *auth = strstr(url, "://");
  size_t len = auth ? (size_t)(auth + 3 - url) +
    strcspn(auth + 3, "/?#") : strlen(url);
  return strndup(url, len);
}

/* The Firefox Profiler's, this server's own (bound and public) and the
 * operator's origins. */
static bp_code make_origins(struct bp_serve *sv, const struct bp_serve_opts *o)
{
  size_t max = 3 + o->nallow_origins;
  sv->origins = calloc(max, sizeof(*sv->origins));
  if(!sv->origins)
    return BPE_NOMEM;
  sv->origins[sv->norigins++] = strdup(BP_SERVE_PROFILER_ORIGIN);
  sv->origins[sv->norigins++] = origin_of(sv->url);
  sv->origins[sv->norigins++] = origin_of(sv->base);
  for(size_t i = 0; i < o->nallow_origins; i++)
    sv->origins[sv->norigins++] = origin_of(o->allow_origins[i]);
  for(size_t i = 0; i < sv->norigins; i++)
    if(!sv->origins[i])
      return BPE_NOMEM;
  return BP_OK;
}

bool bpi_serve_origin_valid(const char *s)
{
  size_t scheme = !strncmp(s, "https://", 8) ? 8
                : !strncmp(s, "http://", 7) ? 7 : 0;
  if(!scheme || !s[scheme])
    return false;
  for(const char *p = s + scheme; *p; p++)
    if(!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
         (*p >= '0' && *p <= '9') || strchr(".-:[]", *p)))
      return false;
  return true;
}

bp_code bpi_serve_start(struct bp_serve **svp, const struct bp_serve_opts *o,
                        struct bp_err *err)
{
  const char *bind = o->bind ? o->bind : "127.0.0.1";
  struct sockaddr_in a4;
  struct sockaddr_in6 a6;
  struct sockaddr *sa;
  unsigned flags = MHD_USE_AUTO_INTERNAL_THREAD;
  struct stat st;
  struct bp_serve *sv;
  bp_code rc;
  *svp = NULL;
  if(o->port > 65535)
    return bpi_err_set(err, BPE_INVAL, 0, "port %u: not a TCP port",
                       o->port);
  for(size_t i = 0; i < o->nallow_origins; i++)
    if(!bpi_serve_origin_valid(o->allow_origins[i]))
      return bpi_err_set(err, BPE_INVAL, 0, "origin '%s': not an origin "
                         "(http or https, a host, an optional port, no "
                         "path)", o->allow_origins[i]);
  if(o->public_url && strncmp(o->public_url, "http://", 7) &&
     strncmp(o->public_url, "https://", 8))
    return bpi_err_set(err, BPE_INVAL, 0, "public URL '%s': not an http or "
                       "https URL", o->public_url);
  memset(&a4, 0, sizeof(a4));
  memset(&a6, 0, sizeof(a6));
  if(inet_pton(AF_INET, bind, &a4.sin_addr) == 1) {
    a4.sin_family = AF_INET;
    a4.sin_port = htons((uint16_t)o->port);
    sa = (struct sockaddr *)&a4;
  }
  else if(inet_pton(AF_INET6, bind, &a6.sin6_addr) == 1) {
    a6.sin6_family = AF_INET6;
    a6.sin6_port = htons((uint16_t)o->port);
    sa = (struct sockaddr *)&a6;
    flags |= MHD_USE_IPv6;
  }
  else
    return bpi_err_set(err, BPE_INVAL, 0,
                       "bind address '%s': not a numeric IPv4 or IPv6 "
                       "address", bind);
  pthread_once(&load_once, load_mhd);
  if(load_error[0])
    return bpi_err_set(err, BPE_SYS, 0, "%s", load_error);
  sv = calloc(1, sizeof(*sv));
  if(!sv)
    return bpi_err_set(err, BPE_NOMEM, 0, "serve");
  sv->root = realpath(o->root, NULL);
  if(!sv->root) {
    rc = bpi_err_set(err, BPE_IO, errno, "store directory '%s'", o->root);
    goto fail;
  }
  if(stat(sv->root, &st) || !S_ISDIR(st.st_mode)) {
    rc = bpi_err_set(err, BPE_INVAL, ENOTDIR,
                     "store directory '%s': not a directory", o->root);
    goto fail;
  }
  sv->root_len = strlen(sv->root);
  if(!watch_start(sv)) {
    rc = bpi_err_set(err, BPE_SYS, errno, "serve: watchdog thread");
    goto fail;
  }
  unsigned limit = connection_limit();
  errno = 0;
  sv->daemon = bpi_mhd_api.start_daemon(
    flags, (uint16_t)o->port, NULL, NULL, bpi_serve_answer, sv,
    MHD_OPTION_SOCK_ADDR, sa,
    MHD_OPTION_UNESCAPE_CALLBACK, bpi_serve_keep_escaped, NULL,
    MHD_OPTION_CONNECTION_TIMEOUT, IDLE_TIMEOUT_S,
    MHD_OPTION_CONNECTION_LIMIT, limit,
    MHD_OPTION_PER_IP_CONNECTION_LIMIT,
    limit > 2 * MAX_PER_IP ? MAX_PER_IP : limit / 2,
    MHD_OPTION_NOTIFY_CONNECTION, on_connection, sv,
    MHD_OPTION_NOTIFY_COMPLETED, on_completed, sv,
    MHD_OPTION_END);
  if(!sv->daemon) {
    rc = bpi_err_set(err, BPE_SYS, errno, "cannot listen on %s port %u",
                     bind, o->port);
    goto fail;
  }
  const union MHD_DaemonInfo *info =
    bpi_mhd_api.get_daemon_info(sv->daemon, MHD_DAEMON_INFO_BIND_PORT);
  sv->port = info ? info->port : o->port;
  rc = make_url(sv, bind, sa->sa_family == AF_INET6);
  if(!rc)
    rc = make_base(sv, o->public_url);
  if(!rc)
    rc = make_origins(sv, o);
  if(rc) {
    bpi_err_set(err, rc, 0, "serve");
    goto fail;
  }
  *svp = sv;
  return BP_OK;
fail:
  bpi_serve_stop(sv);
  return rc;
}

void bpi_serve_stop(struct bp_serve *sv)
{
  if(!sv)
    return;
  if(sv->daemon)
    bpi_mhd_api.stop_daemon(sv->daemon);
  watch_stop(sv);
  for(size_t i = 0; i < sv->norigins; i++)
    free(sv->origins[i]);
  free(sv->origins);
  free(sv->root);
  free(sv->url);
  free(sv->base);
  free(sv);
}

unsigned bpi_serve_port(const struct bp_serve *sv)
{
  return sv->port;
}

const char *bpi_serve_url(const struct bp_serve *sv)
{
  return sv->url;
}

const char *bpi_serve_public_url(const struct bp_serve *sv)
{
  return sv->base;
}
