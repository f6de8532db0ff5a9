/* onefunc [ROUNDS [SLEEP_MS]]: a benchmark that spends its CPU time in one
 * function, checksum_block (ROUNDS rounds of fixed work, default 100), then
 * sleeps SLEEP_MS (default 0) and prints its own result as BMF on stdout:
 * "onefunc": latency, the wall time of the whole run in ns.  Twice the
 * rounds is twice the work of checksum_block; a run that sleeps less and
 * works more has a lower latency and a higher task-clock. */
#include "workload.h"

#include <stdio.h>
#include <time.h>

#define ROUND_WORK 200000L

static volatile unsigned long sink;

static WL_HOT void checksum_block(long n)
{
  WL_SPIN(n, sink);
}

static double wall(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
  long rounds = (long)wl_arg(argc, argv, 1, 100);
  long sleep_ms = (long)wl_arg(argc, argv, 2, 0);
  double start = wall();
  for(long i = 0; i < rounds; i++)
    checksum_block(ROUND_WORK);
  struct timespec nap = {sleep_ms / 1000, (sleep_ms % 1000) * 1000000L};
  if(sleep_ms > 0)
    nanosleep(&nap, NULL);
  printf("{\"onefunc\": {\"latency\": {\"value\": %.0f}}}\n",
         (wall() - start) * 1e9);
  return 0;
}
