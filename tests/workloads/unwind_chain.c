/* main -> chain_a -> chain_b -> chain_leaf, built without frame pointers
 * (-O2 -fomit-frame-pointer): only DWARF unwinding recovers the chain.
 * Each caller does work after its call, so no call becomes a jump.
 * Usage: unwind_chain [CPU_SECONDS] */
#include "workload.h"

static volatile unsigned long sink;

WL_HOT static unsigned long chain_leaf(long n)
{
  unsigned long x;
  WL_SPIN(n, x);
  return x;
}

WL_HOT static unsigned long chain_b(long n)
{
  unsigned long r = chain_leaf(n);
  sink = sink + 1;
  return r ^ (unsigned long)n;
}

WL_HOT static unsigned long chain_a(long n)
{
  unsigned long r = chain_b(n);
  sink = sink + 1;
  return r + (unsigned long)n;
}

int main(int argc, char **argv)
{
  double secs = wl_arg(argc, argv, 1, 0.5);
  double end = wl_thread_cpu() + secs;
  unsigned long acc = 0;
  while(wl_thread_cpu() < end)
    acc += chain_a(WL_CHUNK);
  sink = acc;
  return 0;
}
