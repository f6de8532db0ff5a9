/* deep [SECONDS] [DEPTH]: recurses DEPTH (default 120) frames of
 * deep_recurse, then spends SECONDS of CPU (default 0.4) in deep_bottom. */
#include "workload.h"

static volatile unsigned long sink;

static WL_HOT void deep_bottom(double secs)
{
  double end = wl_thread_cpu() + secs;
  do {
    WL_SPIN(WL_CHUNK, sink);
  } while(wl_thread_cpu() < end);
}

/* The callee gets the address of a local that is read after it returns, so
 * the call cannot become a jump: every level keeps its frame. */
static WL_HOT unsigned long deep_recurse(int depth, double secs,
                                         volatile unsigned long *up)
{
  volatile unsigned long here = (unsigned long)depth;
  if(depth > 1)
    deep_recurse(depth - 1, secs, &here);
  else
    deep_bottom(secs);
  return here + *up;
}

int main(int argc, char **argv)
{
  double secs = wl_arg(argc, argv, 1, 0.4);
  int depth = (int)wl_arg(argc, argv, 2, 120);
  volatile unsigned long top = 0;
  if(depth < 1) {
    fprintf(stderr, "deep: DEPTH must be at least 1\n");
    return 2;
  }
  sink = deep_recurse(depth, secs, &top);
  return 0;
}
