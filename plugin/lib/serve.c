/* serve: the local store over HTTP, read-only (see serve.h).  Every
 * request is answered from the file system as it is now: pages are built
 * per request, so a run that publishes while the server runs shows up on
 * the next reload.  The server keeps no state but the root and its URL,
 * which are set before the first request and never change.
 *
 * libmicrohttpd is loaded with dlopen() when a server starts, not linked:
 * with GnuTLS and its dependencies it slowed the start of every benchprof
 * process, and only `benchprof serve` needs it.  Only the header is
 * compiled against; calls go through mhd_api, whose members have the
 * functions' own prototypes. */
#include "bp_setup.h"
#include "serve.h"
#include "serve_int.h"
#include "dynlib.h"

#include "buf.h"
#include "err.h"
#include "fileio.h"
#include "rundir.h"
#include "storekey.h"
#include "text.h"

#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <microhttpd.h>
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

/* The libmicrohttpd functions used here, each named without its "MHD_". */
static struct {
  struct MHD_Daemon *(*start_daemon)(unsigned int flags, uint16_t port,
                                     MHD_AcceptPolicyCallback apc,
                                     void *apc_cls,
                                     MHD_AccessHandlerCallback dh,
                                     void *dh_cls, ...);
  void (*stop_daemon)(struct MHD_Daemon *daemon);
  const union MHD_DaemonInfo *(*get_daemon_info)(
    struct MHD_Daemon *daemon, enum MHD_DaemonInfoType info_type, ...);
  const char *(*lookup_connection_value)(struct MHD_Connection *connection,
                                         enum MHD_ValueKind kind,
                                         const char *key);
  struct MHD_Response *(*create_response_from_buffer)(
    size_t size, void *buffer, enum MHD_ResponseMemoryMode mode);
  struct MHD_Response *(*create_response_from_fd64)(uint64_t size, int fd);
  enum MHD_Result (*add_response_header)(struct MHD_Response *response,
                                         const char *header,
                                         const char *content);
  enum MHD_Result (*queue_response)(struct MHD_Connection *connection,
                                    unsigned int status_code,
                                    struct MHD_Response *response);
  void (*destroy_response)(struct MHD_Response *response);
  const union MHD_ConnectionInfo *(*get_connection_info)(
    struct MHD_Connection *connection, enum MHD_ConnectionInfoType info_type,
    ...);
} mhd_api;

/* Loaded once, under pthread_once (servers are started from one thread
 * today); the daemon's own threads only call through mhd_api after
 * MHD_start_daemon, which happens after the loading.  load_error says why
 * it failed ("" when it did not). */
static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[512];

static void load_mhd(void)
{
  struct bp_dynlib l;
  if(!bpi_dynlib_open(&l, MHD_SONAME, load_error, sizeof(load_error)))
    return;
  BPI_DYNLIB_LOAD(&l, mhd_api, "MHD_", start_daemon);
  BPI_DYNLIB_LOAD(&l, mhd_api, "MHD_", stop_daemon);
  BPI_DYNLIB_LOAD(&l, mhd_api, "MHD_", get_daemon_info);
  BPI_DYNLIB_LOAD(&l, mhd_api, "MHD_", lookup_connection_value);
  BPI_DYNLIB_LOAD(&l, mhd_api, "MHD_", create_response_from_buffer);
  BPI_DYNLIB_LOAD(&l, mhd_api, "MHD_", create_response_from_fd64);
  BPI_DYNLIB_LOAD(&l, mhd_api, "MHD_", add_response_header);
  BPI_DYNLIB_LOAD(&l, mhd_api, "MHD_", queue_response);
  BPI_DYNLIB_LOAD(&l, mhd_api, "MHD_", destroy_response);
  BPI_DYNLIB_LOAD(&l, mhd_api, "MHD_", get_connection_info);
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

struct watched {
  int fd;
  long since_ms;       /* when it began waiting for a request's headers */
  bool waiting;        /* no complete request header yet */
  bool shut;           /* the deadline passed and it was shut down */
  const char *allow;   /* the request's Origin when it may read the
                          answer (one of bp_serve's origins), else NULL */
  struct watched *next, **prevp;
};


static long now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static struct watched *watched_of(struct MHD_Connection *c)
{
  const union MHD_ConnectionInfo *i =
    mhd_api.get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
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
      mhd_api.get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
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
static void set_waiting(struct bp_serve *sv, struct MHD_Connection *c,
                        bool waiting)
{
  struct watched *w = watched_of(c);
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
  set_waiting(cls, c, true);
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

/* ------------------------------------------------------------ names */

/* The display name of a key part (store.h: reversible percent-encoding);
 * malloc'd. */
char *bpi_serve_display_name(const char *part)
{
  struct bp_buf b;
  bpi_buf_init(&b);
  bpi_text_pct_decode(&b, part, strlen(part), false);
  bpi_buf_addc(&b, '\0');
  if(bpi_buf_failed(&b) || memchr(b.data, '\0', b.len - 1)) {
    /* a NUL cannot be shown: show the part as stored */
    bpi_buf_cleanup(&b);
    return strdup(part);
  }
  return b.data;
}

/* Append s percent-encoded: only [A-Za-z0-9._~-] stay as they are. */
void bpi_serve_add_escaped(struct bp_buf *b, const char *s)
{
  bpi_text_pct_encode(b, s, NULL);
}

/* Append "/" + each '/'-separated part of a store key URL-escaped + "/". */
void bpi_serve_add_key_href(struct bp_buf *b, const char *key)
{
  bpi_buf_addc(b, '/');
  for(const char *s = key; *s;) {
    size_t len = strcspn(s, "/");
    char *part = strndup(s, len);
    if(!part)
      b->failed = true;
    else
      bpi_serve_add_escaped(b, part);
    free(part);
    s += len;
    if(*s == '/') {
      bpi_buf_addc(b, '/');
      s++;
    }
  }
  bpi_buf_addc(b, '/');
}

char *bpi_serve_profiler_url(const char *url)
{
  struct bp_buf b;
  bpi_buf_init(&b);
  bpi_buf_adds(&b, PROFILER_FROM_URL);
  bpi_serve_add_escaped(&b, url);
  bpi_buf_adds(&b, "/");
  bpi_buf_addc(&b, '\0');
  if(bpi_buf_failed(&b)) {
    bpi_buf_cleanup(&b);
    return NULL;
  }
  return b.data;
}

/* "/" + each part escaped + "/" between them (+ "/" when dir). */
void bpi_serve_add_path(struct bp_buf *b, char *const *parts, size_t n,
                     bool dir)
{
  for(size_t i = 0; i < n; i++) {
    bpi_buf_addc(b, '/');
    bpi_serve_add_escaped(b, parts[i]);
  }
  if(dir || !n)
    bpi_buf_addc(b, '/');
}

/* A name that a listing hides: a temporary file of an atomic write in
 * progress (fileio.c: NAME.tmpXXXXXX). */
static bool is_temp_name(const char *name)
{
  size_t len = strlen(name);
  return len > 10 && !memcmp(name + len - 10, ".tmp", 4);
}

/* ------------------------------------------------------------ paths */

/* path resolved (symlinks followed) lies under the root; *st its stat.
 * On false, *status says what to answer. */
bool bpi_serve_inside_root(const struct bp_serve *sv, const char *path,
                        struct stat *st, char **real, int *status)
{
  char *r = realpath(path, NULL);
  *real = NULL;
  if(!r) {
    *status = errno == EACCES ? MHD_HTTP_FORBIDDEN : MHD_HTTP_NOT_FOUND;
    return false;
  }
  if(strncmp(r, sv->root, sv->root_len) ||
     (r[sv->root_len] != '/' && r[sv->root_len] != '\0' &&
      strcmp(sv->root, "/"))) {
    free(r);
    *status = MHD_HTTP_FORBIDDEN;
    return false;
  }
  if(stat(r, st)) {
    free(r);
    *status = MHD_HTTP_NOT_FOUND;
    return false;
  }
  *real = r;
  return true;
}

/* Free what parse_target made; safe to call twice. */
void bpi_serve_target_cleanup(struct target *t)
{
  for(size_t i = 0; i < t->n; i++)
    free(t->parts[i]);
  free(t->path);
  t->n = 0;
  t->path = NULL;
}

/* Split and decode url (as received, still percent-encoded).  Refuses
 * what could name something outside the root: dot segments however
 * encoded, empty segments ("//"), a decoded '/' or NUL. Returns 0 or the
 * HTTP status to answer (t then holds nothing).  t is always set: call
 * target_cleanup either way. */
int bpi_serve_parse_target(const struct bp_serve *sv, const char *url,
                        struct target *t)
{
  struct bp_buf b;
  int status = 0;
  memset(t, 0, sizeof(*t));
  if(url[0] != '/')
    return MHD_HTTP_BAD_REQUEST;
  bpi_buf_init(&b);
  for(const char *s = url + 1; *s && !status;) {
    size_t len = strcspn(s, "/");
    if(!len)
      status = MHD_HTTP_NOT_FOUND;   /* "//": no empty key part */
    else if(t->n == MAX_SEGMENTS)
      status = MHD_HTTP_NOT_FOUND;
    else {
      bpi_buf_reset(&b);
      if(!bpi_text_pct_decode(&b, s, len, true))
        status = MHD_HTTP_BAD_REQUEST;
      else if(bpi_buf_failed(&b))
        status = MHD_HTTP_INTERNAL_SERVER_ERROR;
      else if(memchr(b.data, '\0', b.len) || memchr(b.data, '/', b.len))
        status = MHD_HTTP_NOT_FOUND;
      else if((b.len == 1 && b.data[0] == '.') ||
              (b.len == 2 && !memcmp(b.data, "..", 2)))
        status = MHD_HTTP_FORBIDDEN;
      else {
        t->parts[t->n] = strndup(b.data, b.len);
        if(!t->parts[t->n])
          status = MHD_HTTP_INTERNAL_SERVER_ERROR;
        else
          t->n++;
      }
    }
    s += len;
    if(*s == '/') {
      s++;
      t->slash = !*s;
    }
  }
  if(!status) {
    bpi_buf_reset(&b);
    bpi_buf_adds(&b, sv->root);
    for(size_t i = 0; i < t->n; i++) {
      bpi_buf_addc(&b, '/');
      bpi_buf_adds(&b, t->parts[i]);
    }
    bpi_buf_addc(&b, '\0');
    if(bpi_buf_failed(&b) || !(t->path = strdup(b.data)))
      status = MHD_HTTP_INTERNAL_SERVER_ERROR;
  }
  bpi_buf_cleanup(&b);
  if(status)
    bpi_serve_target_cleanup(t);
  return status;
}

/* ------------------------------------------------------------ listings */

void bpi_serve_listing_cleanup(struct listing *l)
{
  for(size_t i = 0; i < l->n; i++)
    free(l->e[i].name);
  free(l->e);
  l->e = NULL;
  l->n = 0;
}

static int entry_by_name(const void *a, const void *b)
{
  return strcmp(((const struct entry *)a)->name,
                ((const struct entry *)b)->name);
}

char *bpi_serve_join_path(const char *dir, const char *name)
{
  size_t dl = strlen(dir), nl = strlen(name);
  char *p = malloc(dl + nl + 2);
  if(p) {
    memcpy(p, dir, dl);
    p[dl] = '/';
    memcpy(p + dl + 1, name, nl + 1);
  }
  return p;
}

/* a + b, malloc'd */
char *bpi_serve_concat(const char *a, const char *b)
{
  size_t al = strlen(a), bl = strlen(b);
  char *p = malloc(al + bl + 1);
  if(p) {
    memcpy(p, a, al);
    memcpy(p + al, b, bl + 1);
  }
  return p;
}

/* The entries of dir (real, under the root) that stay under the root,
 * sorted by name; hidden: "." and "..", temporary files, symlinks that
 * lead out. */
bp_code bpi_serve_list_dir(const struct bp_serve *sv, const char *dir,
                        struct listing *l, struct bp_err *err)
{
  DIR *d = opendir(dir);
  struct dirent *de;
  size_t cap = 0;
  memset(l, 0, sizeof(*l));
  if(!d)
    return bpi_err_set(err, BPE_IO, errno, "cannot list '%s'", dir);
  while((de = readdir(d)) && l->n < MAX_ENTRIES) {
    struct stat st;
    char *path, *real = NULL;
    int status;
    if(!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
       is_temp_name(de->d_name))
      continue;
    path = bpi_serve_join_path(dir, de->d_name);
    if(!path)
      break;
    bool ok = bpi_serve_inside_root(sv, path, &st, &real, &status) &&
      (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode));
    free(path);
    free(real);
    if(!ok)
      continue;
    if(l->n == cap) {
      size_t ncap = cap ? 2 * cap : 16;
      struct entry *ne = realloc(l->e, ncap * sizeof(*ne));
      if(!ne)
        break;
      l->e = ne;
      cap = ncap;
    }
    l->e[l->n].name = strdup(de->d_name);
    if(!l->e[l->n].name)
      break;
    l->e[l->n].dir = S_ISDIR(st.st_mode);
    l->e[l->n].size = (long long)st.st_size;
    l->e[l->n].mtime = st.st_mtime;
    l->e[l->n].hidden = false;
    l->n++;
  }
  bool broken = de != NULL && l->n < MAX_ENTRIES;
  closedir(d);
  if(broken) {
    bpi_serve_listing_cleanup(l);
    return bpi_err_set(err, BPE_NOMEM, 0, "listing '%s'", dir);
  }
  if(l->n)
    qsort(l->e, l->n, sizeof(*l->e), entry_by_name);
  return BP_OK;
}

/* When a commit was stored: its newest testbed manifest's mtime (the
 * directory's own when it has none). */
time_t bpi_serve_commit_time(const struct bp_serve *sv, const char *dir,
                             time_t fallback)
{
  struct listing l;
  struct bp_err err = {0};
  time_t t = 0;
  if(bpi_serve_list_dir(sv, dir, &l, &err))
    return fallback;
  for(size_t i = 0; i < l.n; i++) {
    char *tb = l.e[i].dir ? bpi_serve_join_path(dir, l.e[i].name) : NULL;
    char *mf = tb ? bpi_serve_join_path(tb, BP_RUNDIR_MANIFEST) : NULL;
    struct stat st;
    if(mf && !stat(mf, &st) && st.st_mtime > t)
      t = st.st_mtime;
    free(mf);
    free(tb);
  }
  bpi_serve_listing_cleanup(&l);
  return t ? t : fallback;
}

/* ------------------------------------------------------------ answers */

/* Headers every answer carries; CORS only for an allowed origin. */
static void common_headers(struct MHD_Connection *c, struct MHD_Response *r)
{
  const struct watched *w = watched_of(c);
  if(w && w->allow)
    mhd_api.add_response_header(r, "Access-Control-Allow-Origin", w->allow);
  mhd_api.add_response_header(r, "Vary", "Origin");
  mhd_api.add_response_header(r, "X-Content-Type-Options", "nosniff");
  mhd_api.add_response_header(r, "Referrer-Policy", "no-referrer");
}

static enum MHD_Result queue(struct MHD_Connection *c, unsigned status,
                             struct MHD_Response *r)
{
  enum MHD_Result ok;
  if(!r)
    return MHD_NO;
  common_headers(c, r);
  ok = mhd_api.queue_response(c, status, r);
  mhd_api.destroy_response(r);
  return ok;
}

static enum MHD_Result answer_text(struct MHD_Connection *c, unsigned status,
                                   const char *text)
{
  struct MHD_Response *r =
    mhd_api.create_response_from_buffer(strlen(text), (void *)text,
                                        MHD_RESPMEM_PERSISTENT);
  if(r)
    mhd_api.add_response_header(r, "Content-Type",
                                "text/plain; charset=utf-8");
  if(r && status == MHD_HTTP_METHOD_NOT_ALLOWED)
    mhd_api.add_response_header(r, "Allow", "GET, HEAD, OPTIONS");
  return queue(c, status, r);
}

static const char *status_text(int status)
{
  switch(status) {
  case MHD_HTTP_BAD_REQUEST:
    return "bad request\n";
  case MHD_HTTP_FORBIDDEN:
    return "forbidden\n";
  case MHD_HTTP_METHOD_NOT_ALLOWED:
    return "method not allowed: this store is read-only\n";
  case MHD_HTTP_INTERNAL_SERVER_ERROR:
    return "internal error\n";
  default:
    return "not found\n";
  }
}

static enum MHD_Result answer_status(struct MHD_Connection *c, int status)
{
  return answer_text(c, (unsigned)status, status_text(status));
}

static bool ends_with(const char *s, const char *suffix)
{
  size_t len = strlen(s), slen = strlen(suffix);
  return len >= slen && !strcmp(s + len - slen, suffix);
}

/* The store's content type and encoding for an artifact (as store.h's
 * bpi_store_content_type, which the publisher uses when it writes).
 * Anything else is plain text: a stored page or script never runs on
 * this origin. */
static void content_type(const char *file, const char **type,
                         const char **encoding)
{
  *encoding = NULL;
  if(ends_with(file, ".json.gz")) {
    *type = "application/json";
    *encoding = "gzip";   /* fetch() inflates it */
  }
  else if(ends_with(file, ".gz"))
    *type = "application/octet-stream";   /* pprof: gzip by format */
  else if(ends_with(file, ".svg"))
    *type = "image/svg+xml";
  else if(ends_with(file, ".json"))
    *type = "application/json";
  else
    *type = "text/plain; charset=utf-8";
}

static enum MHD_Result answer_file(struct MHD_Connection *c,
                                   const char *real, const char *name)
{
  struct stat st;
  const char *type, *encoding;
  int fd = open(real, O_RDONLY | O_CLOEXEC);
  if(fd < 0)
    return answer_status(c, errno == EACCES ? MHD_HTTP_FORBIDDEN
                                            : MHD_HTTP_NOT_FOUND);
  if(fstat(fd, &st) || !S_ISREG(st.st_mode)) {
    close(fd);
    return answer_status(c, MHD_HTTP_NOT_FOUND);
  }
  /* takes fd: MHD closes it with the response */
  struct MHD_Response *r =
    mhd_api.create_response_from_fd64((uint64_t)st.st_size, fd);
  if(!r) {
    close(fd);
    return MHD_NO;
  }
  content_type(name, &type, &encoding);
  mhd_api.add_response_header(r, "Content-Type", type);
  if(encoding)
    mhd_api.add_response_header(r, "Content-Encoding", encoding);
  mhd_api.add_response_header(r, "Cache-Control", "no-cache");
  return queue(c, MHD_HTTP_OK, r);
}

static enum MHD_Result answer_page(const struct bp_serve *sv,
                                   struct MHD_Connection *c,
                                   const struct target *t, const char *real)
{
  struct bp_buf b;
  struct bp_err err = {0};
  struct MHD_Response *r = NULL;
  bpi_buf_init(&b);
  if(!bpi_serve_page_dir(sv, &b, t, real, &err) && !bpi_buf_failed(&b))
    r = mhd_api.create_response_from_buffer(b.len, b.data,
                                            MHD_RESPMEM_MUST_COPY);
  bpi_buf_cleanup(&b);
  if(!r)
    return answer_status(c, err.code == BPE_IO
                              ? MHD_HTTP_FORBIDDEN
                              : MHD_HTTP_INTERNAL_SERVER_ERROR);
  mhd_api.add_response_header(r, "Content-Type",
                              "text/html; charset=utf-8");
  mhd_api.add_response_header(r, "Cache-Control", "no-cache");
  /* names in pages come from whoever ran the benchmark: even escaped, a
   * page may load nothing but this server's own files */
  mhd_api.add_response_header(r, "Content-Security-Policy",
                              "default-src 'none'; "
                              "style-src 'unsafe-inline'; "
                              "img-src 'self'; object-src 'self'; "
                              "frame-src 'self'; base-uri 'none'; "
                              "form-action 'none'");
  return queue(c, MHD_HTTP_OK, r);
}

/* A directory asked for without its '/': send the browser there, so the
 * page's relative links resolve inside it. */
static enum MHD_Result answer_redirect(struct MHD_Connection *c,
                                       const struct target *t)
{
  struct bp_buf b;
  struct MHD_Response *r = NULL;
  bpi_buf_init(&b);
  bpi_serve_add_path(&b, (char *const *)t->parts, t->n, true);
  bpi_buf_addc(&b, '\0');
  if(!bpi_buf_failed(&b))
    r = mhd_api.create_response_from_buffer(0, (void *)"",
                                            MHD_RESPMEM_PERSISTENT);
  if(r)
    mhd_api.add_response_header(r, "Location", b.data);
  bpi_buf_cleanup(&b);
  return queue(c, MHD_HTTP_MOVED_PERMANENTLY, r);
}

static enum MHD_Result answer_preflight(struct MHD_Connection *c)
{
  struct MHD_Response *r =
    mhd_api.create_response_from_buffer(0, (void *)"",
                                        MHD_RESPMEM_PERSISTENT);
  const char *asked = mhd_api.lookup_connection_value(
    c, MHD_HEADER_KIND, "Access-Control-Request-Headers");
  if(r) {
    mhd_api.add_response_header(r, "Access-Control-Allow-Methods",
                                "GET, HEAD, OPTIONS");
    /* reading is harmless whatever the headers: allow the ones asked */
    if(asked && strlen(asked) < 1024 && !strpbrk(asked, "\r\n"))
      mhd_api.add_response_header(r, "Access-Control-Allow-Headers", asked);
    mhd_api.add_response_header(r, "Access-Control-Max-Age", "86400");
    mhd_api.add_response_header(r, "Allow", "GET, HEAD, OPTIONS");
  }
  return queue(c, MHD_HTTP_NO_CONTENT, r);
}

/* .../index.html, the static pages' name (site.h: never a name's key
 * part): its directory's page, so the same links work here and in a
 * bucket website. */
static void page_target(struct target *t)
{
  if(!t->n || strcmp(t->parts[t->n - 1], BP_STORE_PAGE))
    return;
  free(t->parts[--t->n]);
  t->parts[t->n] = NULL;
  t->slash = true;
  char *slash = strrchr(t->path, '/');
  if(slash)
    *slash = '\0';
}

/* A request from a web page carries its Origin: only the Firefox
 * Profiler's, the operator's and this server's own may read the store
 * (a page elsewhere could otherwise read function names and paths while
 * serve runs).  No Origin (a navigation, curl): allowed.  Remembers the
 * origin to name in Access-Control-Allow-Origin. */
static bool origin_allowed(const struct bp_serve *sv,
                           struct MHD_Connection *c)
{
  const char *origin = mhd_api.lookup_connection_value(c, MHD_HEADER_KIND,
                                                       "Origin");
  struct watched *w = watched_of(c);
  const char *allow = NULL;
  for(size_t i = 0; origin && i < sv->norigins && !allow; i++)
    if(!strcmp(origin, sv->origins[i]))
      allow = sv->origins[i];
  if(w)
    w->allow = allow;   /* only the server's thread reads it */
  return !origin || allow;
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *c,
                              const char *url, const char *method,
                              const char *version, const char *upload_data,
                              size_t *upload_data_size, void **con_cls)
{
  const struct bp_serve *sv = cls;
  struct target t;
  struct stat st;
  char *real = NULL;
  int status;
  enum MHD_Result ok;
  (void)version;
  (void)upload_data;
  (void)con_cls;
  set_waiting((struct bp_serve *)cls, c, false);
  *upload_data_size = 0;  /* a body is never read */
  if(!origin_allowed(sv, c))
    return answer_status(c, MHD_HTTP_FORBIDDEN);
  if(!strcmp(method, MHD_HTTP_METHOD_OPTIONS))
    return answer_preflight(c);
  if(strcmp(method, MHD_HTTP_METHOD_GET) &&
     strcmp(method, MHD_HTTP_METHOD_HEAD))
    return answer_status(c, MHD_HTTP_METHOD_NOT_ALLOWED);
  status = bpi_serve_parse_target(sv, url, &t);
  if(!status)
    page_target(&t);
  if(!status && !bpi_serve_inside_root(sv, t.path, &st, &real, &status))
    real = NULL;
  if(status)
    ok = answer_status(c, status);
  else if(S_ISDIR(st.st_mode) && !t.slash && t.n)
    ok = answer_redirect(c, &t);
  else if(S_ISDIR(st.st_mode))
    ok = answer_page(sv, c, &t, real);
  else if(S_ISREG(st.st_mode) && !t.slash)
    ok = answer_file(c, real, t.parts[t.n - 1]);
  else
    ok = answer_status(c, MHD_HTTP_NOT_FOUND);
  free(real);
  bpi_serve_target_cleanup(&t);
  return ok;
}

/* MHD would decode %XX before answer() sees the URL, so "%2F" and "/"
 * would look alike; parse_target decodes each segment itself. */
static size_t keep_escaped(void *cls, struct MHD_Connection *c, char *s)
{
  (void)cls;
  (void)c;
  return strlen(s);
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
  sv->daemon = mhd_api.start_daemon(
    flags, (uint16_t)o->port, NULL, NULL, answer, sv,
    MHD_OPTION_SOCK_ADDR, sa,
    MHD_OPTION_UNESCAPE_CALLBACK, keep_escaped, NULL,
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
    mhd_api.get_daemon_info(sv->daemon, MHD_DAEMON_INFO_BIND_PORT);
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
    mhd_api.stop_daemon(sv->daemon);
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
