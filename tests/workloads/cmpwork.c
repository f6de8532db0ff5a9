/* cmpwork [ROUNDS]: a fixed amount of work (default 200 rounds) split
 * evenly between cmp_steady, cmp_other and cmp_changed, then its own results as BMF on
 * stdout ("cmpwork": latency per round in ns, throughput in rounds per
 * second, each with the fastest and slowest of 5 batches as bounds).  Built twice: the base build gives both functions the same
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

#define BATCHES 5

static void round_of_work(void)
{
  for(int k = 0; k < SLICES; k++) {
    cmp_steady(ROUND_WORK / SLICES);
    cmp_other(ROUND_WORK / SLICES);
    cmp_changed(ROUND_WORK / SLICES);
  }
}

/* A harness that reports its own spread: the rounds run in BATCHES
 * batches, each timed; the value is the whole run's, the bounds the
 * slowest and fastest batch's. */
int main(int argc, char **argv)
{
  long rounds = (long)wl_arg(argc, argv, 1, 200);
  double lat[BATCHES], thr[BATCHES], total = 0;
  long done = 0;
  for(int b = 0; b < BATCHES; b++) {
    long n = rounds * (b + 1) / BATCHES - done;
    double start = wl_thread_cpu();
    for(long i = 0; i < n; i++)
      round_of_work();
    double secs = wl_thread_cpu() - start;
    if(secs <= 0)
      secs = 1e-9;
    total += secs;
    done += n;
    lat[b] = secs * 1e9 / (double)(n ? n : 1);
    thr[b] = (double)n / secs;
  }
  double lat_lo = lat[0], lat_hi = lat[0], thr_lo = thr[0], thr_hi = thr[0];
  for(int b = 1; b < BATCHES; b++) {
    lat_lo = lat[b] < lat_lo ? lat[b] : lat_lo;
    lat_hi = lat[b] > lat_hi ? lat[b] : lat_hi;
    thr_lo = thr[b] < thr_lo ? thr[b] : thr_lo;
    thr_hi = thr[b] > thr_hi ? thr[b] : thr_hi;
  }
  double value = total * 1e9 / (double)(rounds ? rounds : 1);
  double tput = (double)rounds / total;
  /* the whole run's value is a weighted mean of the batches', so within
   * their range; kept there against rounding */
  lat_lo = lat_lo < value ? lat_lo : value;
  lat_hi = lat_hi > value ? lat_hi : value;
  thr_lo = thr_lo < tput ? thr_lo : tput;
  thr_hi = thr_hi > tput ? thr_hi : tput;
  printf("{\"cmpwork\": {\"latency\": {\"value\": %.1f, \"lower_value\": "
         "%.1f, \"upper_value\": %.1f}, \"throughput\": {\"value\": %.3f, "
         "\"lower_value\": %.3f, \"upper_value\": %.3f}}}\n", value, lat_lo,
         lat_hi, tput, thr_lo, thr_hi);
  return 0;
}
