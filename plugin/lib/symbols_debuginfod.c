/* symbols_debuginfod: separate debug files from debuginfod servers, by
 * build id, for the modules that have none on the machine; only when the
 * user asked for it (bp_symbols_opts.debuginfod).
 *
 * libdebuginfod does the protocol, the on-disk cache (a file fetched once
 * is read from the cache afterwards; a miss is remembered for a while too)
 * and the transfers.  It is loaded at the first lookup (dynlib.c): with
 * lookups off, benchprof neither loads it nor asks any server, whatever
 * DEBUGINFOD_URLS says.  libdebuginfod takes its servers, cache and time
 * limits from the environment only, so each lookup sets those variables
 * for its duration (env_set).  One time budget
 * covers all lookups of a symbolizer; a progress callback cancels a
 * transfer that runs past it, and after a failure other than "not there"
 * (server unreachable, time out) the rest are not asked. */
#include "bp_setup.h"
#include "symbols_int.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "dynlib.h"

/* libdebuginfod's API (elfutils/debuginfod.h), called through a table
 * filled at load time; its header is not needed to build. */
struct debuginfod_client;
typedef int (*debuginfod_progress_fn)(struct debuginfod_client *c, long a,
                                      long b);

static struct {
  struct debuginfod_client *(*begin)(void);
  void (*end)(struct debuginfod_client *c);
  int (*find_debuginfo)(struct debuginfod_client *c,
                        const unsigned char *build_id, int build_id_len,
                        char **path);
  void (*set_progressfn)(struct debuginfod_client *c,
                         debuginfod_progress_fn fn);
  void (*set_verbose_fd)(struct debuginfod_client *c, int fd);
  void (*set_user_data)(struct debuginfod_client *c, void *value);
  void *(*get_user_data)(struct debuginfod_client *c);
} dbg_api;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[256];

static void load_debuginfod(void)
{
  struct bp_dynlib l;
  if(!bpi_dynlib_open(&l, BP_DEBUGINFOD_SONAME, load_error,
                      sizeof(load_error)))
    return;
  BPI_DYNLIB_LOAD(&l, dbg_api, "debuginfod_", begin);
  BPI_DYNLIB_LOAD(&l, dbg_api, "debuginfod_", end);
  BPI_DYNLIB_LOAD(&l, dbg_api, "debuginfod_", find_debuginfo);
  BPI_DYNLIB_LOAD(&l, dbg_api, "debuginfod_", set_progressfn);
  BPI_DYNLIB_LOAD(&l, dbg_api, "debuginfod_", set_verbose_fd);
  BPI_DYNLIB_LOAD(&l, dbg_api, "debuginfod_", set_user_data);
  BPI_DYNLIB_LOAD(&l, dbg_api, "debuginfod_", get_user_data);
  (void)bpi_dynlib_done(&l);
}

static int64_t now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

bp_code bpi_sym_debuginfod_init(struct sym_debuginfod *d,
                                const struct bp_symbols_opts *o)
{
  memset(d, 0, sizeof(*d));
  if(!o->debuginfod || !*o->debuginfod)
    return BP_OK;
  d->urls = strdup(o->debuginfod);
  d->cache = o->debuginfod_cache ? strdup(o->debuginfod_cache) : NULL;
  d->timeout_ms = o->debuginfod_timeout_ms > 0 ? o->debuginfod_timeout_ms
                                               : BP_DEBUGINFOD_TIMEOUT_MS;
  if(!d->urls || (o->debuginfod_cache && !d->cache))
    return BPE_NOMEM;
  return BP_OK;
}

void bpi_sym_debuginfod_cleanup(struct sym_debuginfod *d)
{
  if(d->client)
    dbg_api.end(d->client);
  free(d->urls);
  free(d->cache);
  memset(d, 0, sizeof(*d));
}

void bpi_sym_debuginfod_restart(struct sym_debuginfod *d)
{
  memset(&d->stats, 0, sizeof(d->stats));
  if(d->client)
    d->deadline_ms = now_ms() + d->timeout_ms;
}

/* Stop asking: the first reason is kept. */
static void stop(struct sym_debuginfod *d, const char *fmt, const char *arg)
{
  if(!d->stats.stopped)
    snprintf(d->stats.error, sizeof(d->stats.error), fmt, arg);
  d->stats.stopped = true;
}

/* Called by libdebuginfod while it waits or transfers: non-zero cancels
 * the lookup once the time budget is spent. */
static int past_deadline(struct debuginfod_client *c, long a, long b)
{
  (void)a;
  (void)b;
  const struct sym_debuginfod *d = dbg_api.get_user_data(c);
  return d && now_ms() >= d->deadline_ms;
}

/* The client, made at the first lookup; NULL (after stop()) when
 * libdebuginfod cannot be loaded or started. */
static struct debuginfod_client *client(struct sym_debuginfod *d)
{
  if(d->client)
    return d->client;
  pthread_once(&load_once, load_debuginfod);
  if(load_error[0]) {
    stop(d, "%s", load_error);
    return NULL;
  }
  d->client = dbg_api.begin();
  if(!d->client) {
    stop(d, "cannot start libdebuginfod: %s", strerror(errno));
    return NULL;
  }
  dbg_api.set_verbose_fd(d->client, -1);  /* the library never prints */
  dbg_api.set_progressfn(d->client, past_deadline);
  dbg_api.set_user_data(d->client, d);
  d->deadline_ms = now_ms() + d->timeout_ms;
  return d->client;
}

/* The variables libdebuginfod reads its settings from, set for one
 * lookup and removed after it: the servers, the seconds left of the
 * budget (at least 1) as its connection and transfer limits, and the
 * cache when one was given (else a DEBUGINFOD_CACHE_PATH of the user's
 * stays in force).  The command was started before, and nothing else in
 * benchprof reads them; the library reads no environment, so the
 * caller puts the user's values back once symbolizing is done (before
 * it starts another command). */
static const char *const env_names[] = {
  "DEBUGINFOD_URLS", "DEBUGINFOD_TIMEOUT", "DEBUGINFOD_MAXTIME",
  "DEBUGINFOD_CACHE_PATH",
};

static bool env_set(const struct sym_debuginfod *d, int64_t left_ms)
{
  char secs[24];
  snprintf(secs, sizeof(secs), "%lld", (long long)((left_ms + 999) / 1000));
  return setenv(env_names[0], d->urls, 1) == 0 &&
         setenv(env_names[1], secs, 1) == 0 &&
         setenv(env_names[2], secs, 1) == 0 &&
         (!d->cache || setenv(env_names[3], d->cache, 1) == 0);
}

static void env_unset(const struct sym_debuginfod *d)
{
  for(size_t i = 0; i < BP_ARRAY_LEN(env_names); i++)
    if(i < 3 || d->cache)
      unsetenv(env_names[i]);
}

int bpi_sym_debuginfod_find(struct sym_debuginfod *d,
                            const unsigned char *build_id, int len,
                            char **path)
{
  if(!d->urls || d->stats.stopped || len <= 0)
    return -1;
  struct debuginfod_client *c = client(d);
  if(!c)
    return -1;
  int64_t left = d->deadline_ms - now_ms();
  if(left <= 0) {
    stop(d, "no answer within the time allowed%s", "");
    return -1;
  }
  int fd = env_set(d, left) ? dbg_api.find_debuginfo(c, build_id, len, path)
                             : -ENOMEM;
  env_unset(d);
  d->stats.asked++;
  if(fd >= 0) {
    d->stats.found++;
    return fd;
  }
  if(fd != -ENOENT)  /* not there: the next module may be */
    stop(d, "%s", now_ms() >= d->deadline_ms || fd == -ECANCELED ?
                  "no answer within the time allowed" : strerror(-fd));
  return -1;
}

void bpi_symbols_debuginfod_stats(const struct bp_symbols *s,
                                  struct bp_debuginfod_stats *out)
{
  *out = s->dbg.stats;
}
