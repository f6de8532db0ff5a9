/* Shared by the integration workloads: a hot loop that makes no library
 * calls, so the sampled leaf is always the function that expands it, and
 * a per-thread CPU clock, so a workload does the same amount of work
 * however busy the machine is. */
#ifndef BP_WORKLOAD_H
#define BP_WORKLOAD_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* noipa: no inlining, cloning or identical-code folding, so two functions
 * with the same body stay two functions even at -O2. */
#if defined(__GNUC__) && !defined(__clang__)
#define WL_HOT __attribute__((noinline, noipa))
#else
#define WL_HOT __attribute__((noinline))
#endif

/* iterations of WL_SPIN between two looks at the clock: well under 1 ms */
#define WL_CHUNK 100000L

/* n dependent multiply-adds; the volatile sink keeps them */
#define WL_SPIN(n, sink) do { \
    unsigned long wl_x_ = 1; \
    for(long wl_i_ = 0; wl_i_ < (long)(n); wl_i_++) \
      wl_x_ = wl_x_ * 2654435761UL + (unsigned long)wl_i_; \
    (sink) = wl_x_; \
  } while(0)

/* CPU seconds used by the calling thread */
static inline double wl_thread_cpu(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* argv[i] as seconds (or a count), def when absent; exit 2 when bad */
static inline double wl_arg(int argc, char **argv, int i, double def)
{
  if(i >= argc)
    return def;
  char *end;
  double v = strtod(argv[i], &end);
  if(end == argv[i] || *end || v < 0) {
    fprintf(stderr, "%s: bad argument '%s'\n", argv[0], argv[i]);
    exit(2);
  }
  return v;
}

#endif
