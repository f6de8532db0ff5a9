/* A recursion deeper than a small stack copy: DEPTH frames of recurse_down,
 * each with a 256-byte local, then recurse_bottom spins.  With
 * --call-graph dwarf,1024 the unwinding runs off the copied stack: the
 * stack must end there, without made-up frames.
 * Usage: unwind_recurse [CPU_SECONDS [DEPTH]] */
#include "workload.h"

static volatile unsigned long sink;

WL_HOT static unsigned long recurse_bottom(double end)
{
  unsigned long acc = 0, x;
  while(wl_thread_cpu() < end) {
    WL_SPIN(WL_CHUNK, x);
    acc += x;
  }
  return acc;
}

WL_HOT static unsigned long recurse_down(int depth, double end)
{
  volatile unsigned char pad[256];
  pad[depth & 255] = (unsigned char)depth;
  unsigned long r = depth ? recurse_down(depth - 1, end)
                          : recurse_bottom(end);
  return r + pad[depth & 255];
}

int main(int argc, char **argv)
{
  double secs = wl_arg(argc, argv, 1, 0.5);
  int depth = (int)wl_arg(argc, argv, 2, 200);
  sink = recurse_down(depth, wl_thread_cpu() + secs);
  return 0;
}
