#include "bp_setup.h"
#include "parallel.h"
#include "err.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_WORKERS 8

/* 0: the default */
static atomic_uint workers_set;

void bpi_parallel_set_workers(unsigned n)
{
  atomic_store(&workers_set, n <= 64 ? n : 64);
}

unsigned bpi_parallel_workers(size_t n, size_t min_items)
{
  unsigned set = atomic_load(&workers_set);
  if(set)
    return set;
  if(n < min_items || n < 2)
    return 1;
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  unsigned w = cpus > 1 ? (unsigned)cpus : 1;
  if(w > MAX_WORKERS)
    w = MAX_WORKERS;
  return (size_t)w > n ? (unsigned)n : w;
}

struct pool {
  size_t n;
  bp_item_fn fn;
  void *ctx;
  atomic_size_t next;      /* the next item to start */
  atomic_size_t failed_at; /* the lowest failed item so far, else SIZE_MAX */
  pthread_mutex_t lock;    /* guards err */
  struct bp_err err;       /* the lowest failed item's error */
};

/* Keep e if item i is lower than every failure kept so far. */
static void keep_failure(struct pool *p, size_t i, const struct bp_err *e)
{
  pthread_mutex_lock(&p->lock);
  if(i < atomic_load(&p->failed_at)) {
    atomic_store(&p->failed_at, i);
    p->err = *e;
  }
  pthread_mutex_unlock(&p->lock);
}

static void *work(void *arg)
{
  struct pool *p = arg;
  for(;;) {
    size_t i = atomic_fetch_add(&p->next, 1);
    /* an item after a failure does not start: the loop in order would
     * have stopped there */
    if(i >= p->n || i > atomic_load(&p->failed_at))
      break;
    struct bp_err e;
    memset(&e, 0, sizeof(e));
    bp_code rc = p->fn(p->ctx, i, &e);
    if(rc) {
      if(!e.code)
        e.code = rc;
      keep_failure(p, i, &e);
    }
  }
  return NULL;
}

static bp_code in_order(size_t n, bp_item_fn fn, void *ctx,
                        struct bp_err *err)
{
  bp_code rc = BP_OK;
  for(size_t i = 0; !rc && i < n; i++)
    rc = fn(ctx, i, err);
  return rc;
}

bp_code bpi_parallel_for(size_t n, unsigned workers, bp_item_fn fn,
                         void *ctx, struct bp_err *err)
{
  if(workers <= 1 || n < 2)
    return in_order(n, fn, ctx, err);
  if(workers > n)
    workers = (unsigned)n;
  struct pool p = {.n = n, .fn = fn, .ctx = ctx};
  atomic_init(&p.next, 0);
  atomic_init(&p.failed_at, SIZE_MAX);
  pthread_mutex_init(&p.lock, NULL);
  pthread_t tids[64];
  unsigned started = 0;
  while(started + 1 < workers && started < BP_ARRAY_LEN(tids) &&
        !pthread_create(&tids[started], NULL, work, &p))
    started++;
  work(&p);  /* the calling thread is a worker too */
  for(unsigned t = 0; t < started; t++)
    pthread_join(tids[t], NULL);
  pthread_mutex_destroy(&p.lock);
  if(atomic_load(&p.failed_at) == SIZE_MAX)
    return BP_OK;
  if(err && !err->code)
    *err = p.err;
  return p.err.code;
}
