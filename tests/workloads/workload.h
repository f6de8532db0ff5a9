/* Shared by the integration workloads: a hot loop that makes no library
 * calls, so the sampled leaf is always the function that expands it, and
 * a per-thread CPU clock, so a workload does the same amount of work
 * however busy the machine is. */
#ifndef BP_WORKLOAD_H
#define BP_WORKLOAD_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

extern char **environ;

/* With WL_FULL_STACK set in the environment: read one byte of each page
 * between the caller's frame and the end of the environment's strings,
 * the top of the main thread's stack.  The kernel leaves a random gap of
 * up to 8 KiB under those strings (stack randomization) that nothing
 * writes: its pages are not present, and a sample's stack copy, which the
 * kernel makes without faulting pages in, ends at the first of them.
 * Copies would then be anything from about 1.5 KiB to 8 KiB from one run
 * to the next; read, those pages are the zero page and every copy is
 * whole.  Call it from main, before the work.  Not instrumented: the
 * bytes read belong to no object. */
__attribute__((no_sanitize_address))
static inline void wl_full_stack(void)
{
  if(!getenv("WL_FULL_STACK"))
    return;
  volatile unsigned char here = 0;
  uintptr_t top = (uintptr_t)&here;
  for(char **e = environ; e && *e; e++) {
    uintptr_t end = (uintptr_t)*e + strlen(*e);
    if(end > top)
      top = end;
  }
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  unsigned sum = here;
  for(uintptr_t a = ((uintptr_t)&here | (page - 1)) + 1; a < top; a += page)
    sum += *(volatile const unsigned char *)a;
  here = (unsigned char)sum;
}

#endif
