/* A harness that runs several benchmarks in one process and marks them
 * with benchprof/hooks.h.
 *   hooks_harness            alpha, beta, gamma: 0.1, 0.2 and 0.3 s of
 *                            CPU in hot_alpha, hot_beta and hot_gamma
 *   hooks_harness hostile    short benchmarks with hostile names
 *   hooks_harness short N MS N benchmarks s0..s<N-1> of MS ms of CPU each;
 *                            prints "NAME NS" a line, NS the thread CPU
 *                            time from begin's return to end's call
 *   hooks_harness repeat     "rep" run three times (0.05 s each, in
 *                            hot_alpha) around one "other" (hot_beta)
 * Not under benchprof the hooks do nothing and it exits 0. */
#define _POSIX_C_SOURCE 200809L
#include "benchprof/hooks.h"
#include "workload.h"

#include <stdio.h>
#include <stdlib.h>
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

/* Many short benchmarks: their counters are only right when read at
 * the begin and end themselves (the ack handshake). */
static void short_ones(int n, double ms)
{
  char name[32];
  for(int i = 0; i < n; i++) {
    snprintf(name, sizeof(name), "s%d", i);
    benchprof_begin(name);
    double t0 = wl_thread_cpu();
    hot_alpha(ms / 1e3);
    double t1 = wl_thread_cpu();
    benchprof_end();
    printf("%s %.0f\n", name, (t1 - t0) * 1e9);
  }
}

static void repeat(void)
{
  for(int i = 0; i < 3; i++) {
    benchprof_begin("rep");
    hot_alpha(0.05);
    benchprof_end();
    if(i == 1) {
      benchprof_begin("other");
      hot_beta(0.05);
      benchprof_end();
    }
  }
}

int main(int argc, char **argv)
{
  if(argc > 3 && !strcmp(argv[1], "short")) {
    short_ones(atoi(argv[2]), atof(argv[3]));
    return 0;
  }
  if(argc > 1 && !strcmp(argv[1], "repeat")) {
    repeat();
    return 0;
  }
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
