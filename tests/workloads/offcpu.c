/* offcpu [sleep [NAPS]|lock]: a benchmark that waits as well as computes.
 *
 * sleep (default): sleep_in_nap() sleeps 0.5 s in NAPS (default ten)
 * nanosleep calls of 50 ms, then compute_half() burns 0.5 s of CPU.  With --off-cpu nearly
 * all the off-CPU time is under sleep_in_nap and adds up to about 0.5 s;
 * the on-CPU samples are compute_half's.
 *
 * lock: two threads take turns holding one mutex for 2 ms of work each,
 * 100 times: the one that waits does so in pthread_mutex_lock (a futex)
 * called from take_the_lock(). */
#include "workload.h"

#include <pthread.h>
#include <string.h>
#include <time.h>

static volatile unsigned long sink;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static WL_HOT void sleep_in_nap(int naps)
{
  struct timespec nap = {0, 50 * 1000000L};
  for(int i = 0; i < naps; i++)
    nanosleep(&nap, NULL);
}

static WL_HOT void compute_half(void)
{
  double until = wl_thread_cpu() + 0.5;
  while(wl_thread_cpu() < until)
    WL_SPIN(WL_CHUNK, sink);
}

static WL_HOT void hold_it(void)
{
  double until = wl_thread_cpu() + 0.002;
  while(wl_thread_cpu() < until)
    WL_SPIN(WL_CHUNK / 10, sink);
}

static WL_HOT void take_the_lock(void)
{
  pthread_mutex_lock(&lock);
  hold_it();
  pthread_mutex_unlock(&lock);
}

static void *contend(void *arg)
{
  (void)arg;
  for(int i = 0; i < 100; i++)
    take_the_lock();
  return NULL;
}

int main(int argc, char **argv)
{
  if(argc > 1 && !strcmp(argv[1], "lock")) {
    pthread_t t[2];
    for(int i = 0; i < 2; i++)
      if(pthread_create(&t[i], NULL, contend, NULL))
        return 1;
    for(int i = 0; i < 2; i++)
      pthread_join(t[i], NULL);
    return 0;
  }
  sleep_in_nap(argc > 2 ? (int)wl_arg(argc, argv, 2, 10) : 10);
  compute_half();
  return 0;
}
