/* cmpwork [ROUNDS]: a fixed amount of work (default 200 rounds) split
 * evenly between cmp_steady, cmp_other and cmp_changed, then its own results as BMF on
 * stdout ("cmpwork": latency per round in ns, throughput in rounds per
 * second).  Built twice: the base build gives both functions the same
 * work; the head build (-DCMP_SLOWER=4) makes cmp_changed do 4 times as
 * much (a third of the samples -> two thirds), so a comparison must name
 * it as the regression, and the latency, task-clock and throughput must
 * all get worse. */
#include "workload.h"

#ifndef CMP_SLOWER
#define CMP_SLOWER 1
#endif

#define ROUND_WORK 200000L
/* Each round is done in slices this small (2 us of work per call) so
 * that the sampling clock's 1 ms period cannot beat against the round's:
 * with one call per function per round (0.2 ms each) the three equal
 * shares came out anywhere from 23% to 43% of 400 samples. */
#define SLICES 100

static volatile unsigned long sink;

static WL_HOT void cmp_steady(long n)
{
  WL_SPIN(n, sink);
}

static WL_HOT void cmp_other(long n)
{
  WL_SPIN(n, sink);
}

static WL_HOT void cmp_changed(long n)
{
  WL_SPIN(n * CMP_SLOWER, sink);
}

int main(int argc, char **argv)
{
  long rounds = (long)wl_arg(argc, argv, 1, 200);
  double start = wl_thread_cpu();
  for(long i = 0; i < rounds; i++)
    for(int k = 0; k < SLICES; k++) {
      cmp_steady(ROUND_WORK / SLICES);
      cmp_other(ROUND_WORK / SLICES);
      cmp_changed(ROUND_WORK / SLICES);
    }
  double secs = wl_thread_cpu() - start;
  if(secs <= 0)
    secs = 1e-9;
  printf("{\"cmpwork\": {\"latency\": {\"value\": %.1f}, "
         "\"throughput\": {\"value\": %.3f}}}\n",
         secs * 1e9 / (double)(rounds ? rounds : 1),
         (double)rounds / secs);
  return 0;
}
