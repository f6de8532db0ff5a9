/* latecpu [SECONDS]: the main thread spins on the first online CPU for
 * SECONDS (default 0.8); a second thread, on another CPU, sleeps for the
 * first 0.4 of them, then spins for the rest.  So one CPU's records all
 * come late: read back after the run, that CPU's spill file is far ahead
 * of the other's, the case the sampler's REPLAY_AHEAD_NS rule is for
 * (test_sampler).  Exits 2 when there is no second CPU to use. */
#define _GNU_SOURCE
#include "workload.h"

#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <time.h>

static double secs;
static volatile unsigned long sinks[16];
static int cpus[2];

static int pin(int cpu)
{
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return sched_setaffinity(0, sizeof(set), &set);
}

static WL_HOT void late_loop(double s)
{
  double end = wl_thread_cpu() + s;
  do {
    WL_SPIN(WL_CHUNK, sinks[8]);
  } while(wl_thread_cpu() < end);
}

static WL_HOT void early_loop(double s)
{
  double end = wl_thread_cpu() + s;
  do {
    WL_SPIN(WL_CHUNK, sinks[0]);
  } while(wl_thread_cpu() < end);
}

static void *late_main(void *arg)
{
  (void)arg;
  if(pin(cpus[1]))
    exit(2);
  double wait = secs / 2;
  struct timespec ts = {(time_t)wait, (long)((wait - (time_t)wait) * 1e9)};
  nanosleep(&ts, NULL);
  late_loop(secs - wait);
  return NULL;
}

int main(int argc, char **argv)
{
  secs = wl_arg(argc, argv, 1, 0.8);
  cpu_set_t online;
  if(sched_getaffinity(0, sizeof(online), &online))
    return 2;
  int n = 0;
  for(int c = 0; c < CPU_SETSIZE && n < 2; c++)
    if(CPU_ISSET(c, &online))
      cpus[n++] = c;
  if(n < 2 || pin(cpus[0])) {
    fprintf(stderr, "latecpu: needs two CPUs\n");
    return 2;
  }
  pthread_t t;
  int rc = pthread_create(&t, NULL, late_main, NULL);
  if(rc) {
    fprintf(stderr, "latecpu: pthread_create: %s\n", strerror(rc));
    return 1;
  }
  early_loop(secs);
  pthread_join(t, NULL);
  return 0;
}
