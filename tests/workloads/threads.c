/* threads [SECONDS]: four threads named worker-0 .. worker-3, each spending
 * SECONDS of its own CPU (default 0.3) in its own function worker_K_loop.
 * The main thread only waits. */
#define _GNU_SOURCE
#include "workload.h"

#include <pthread.h>
#include <string.h>

#define NWORKERS 4

static double secs;
static volatile unsigned long sinks[NWORKERS * 8]; /* one cache line each */

#define WORKER(k) \
  static WL_HOT void worker_##k##_loop(void) \
  { \
    double end = wl_thread_cpu() + secs; \
    do { \
      WL_SPIN(WL_CHUNK, sinks[(k) * 8]); \
    } while(wl_thread_cpu() < end); \
  }
WORKER(0)
WORKER(1)
WORKER(2)
WORKER(3)

static void (*const loops[NWORKERS])(void) = {
  worker_0_loop, worker_1_loop, worker_2_loop, worker_3_loop,
};

static void *worker_main(void *arg)
{
  int k = (int)(long)arg;
  char name[16];
  snprintf(name, sizeof(name), "worker-%d", k);
  int rc = pthread_setname_np(pthread_self(), name);
  if(rc) {
    fprintf(stderr, "threads: pthread_setname_np: %s\n", strerror(rc));
    exit(1);
  }
  loops[k]();
  return NULL;
}

int main(int argc, char **argv)
{
  pthread_t tids[NWORKERS];
  secs = wl_arg(argc, argv, 1, 0.3);
  for(long k = 0; k < NWORKERS; k++) {
    int rc = pthread_create(&tids[k], NULL, worker_main, (void *)k);
    if(rc) {
      fprintf(stderr, "threads: pthread_create: %s\n", strerror(rc));
      return 1;
    }
  }
  for(int k = 0; k < NWORKERS; k++)
    pthread_join(tids[k], NULL);
  return 0;
}
