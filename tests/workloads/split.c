/* split [SECONDS]: spends SECONDS of CPU (default 0.6), 75% of it in
 * split_hot75 and 25% in split_hot25.  The two have identical bodies and
 * every round runs 3N iterations in one and N in the other, so the split is
 * exact whatever the machine's speed. */
#include "workload.h"

static volatile unsigned long sink;

static WL_HOT void split_hot75(long n)
{
  WL_SPIN(n, sink);
}

static WL_HOT void split_hot25(long n)
{
  WL_SPIN(n, sink);
}

int main(int argc, char **argv)
{
  double end = wl_thread_cpu() + wl_arg(argc, argv, 1, 0.6);
  do {
    split_hot75(3 * WL_CHUNK);
    split_hot25(WL_CHUNK);
  } while(wl_thread_cpu() < end);
  return 0;
}
