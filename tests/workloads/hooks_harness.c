/* A harness that runs several benchmarks in one process and marks them
 * with benchprof/hooks.h.
 *   hooks_harness            alpha, beta, gamma: 0.1, 0.2 and 0.3 s of
 *                            CPU in hot_alpha, hot_beta and hot_gamma
 *   hooks_harness hostile    short benchmarks with hostile names
 * Not under benchprof the hooks do nothing and it exits 0. */
#define _POSIX_C_SOURCE 200809L
#include "benchprof/hooks.h"
#include "workload.h"

#include <string.h>

static volatile unsigned long sink;

/* Spin in the caller for secs of this thread's CPU. */
#define SPIN_FOR(secs) do { \
    double end_ = wl_thread_cpu() + (secs); \
    while(wl_thread_cpu() < end_) \
      WL_SPIN(WL_CHUNK, sink); \
  } while(0)

WL_HOT static void hot_alpha(double secs) { SPIN_FOR(secs); }
WL_HOT static void hot_beta(double secs) { SPIN_FOR(secs); }
WL_HOT static void hot_gamma(double secs) { SPIN_FOR(secs); }

static void hostile(void)
{
  static char longname[600];
  const char *names[] = {
    "quote\"d 'name'", "new\nline", "../x", longname, "summary.json",
    ".", "..", "dup", "dup", "per%cent", "caf\xc3\xa9 \xff",
  };
  memset(longname, 'L', sizeof(longname) - 1);
  for(size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
    benchprof_begin(names[i]);
    hot_alpha(0.02);
    benchprof_end();
  }
}

int main(int argc, char **argv)
{
  if(argc > 1 && !strcmp(argv[1], "hostile")) {
    hostile();
    return 0;
  }
  benchprof_begin("alpha");
  hot_alpha(0.1);
  benchprof_end();
  benchprof_begin("beta");
  hot_beta(0.2);
  benchprof_end();
  benchprof_begin("gamma");
  hot_gamma(0.3);
  benchprof_end();
  return 0;
}
