/* libbpwork.so: linked into the shlib workload. */
#include "workload.h"

void bpwork_hot(double secs);

static volatile unsigned long sink;

WL_HOT void bpwork_hot(double secs)
{
  double end = wl_thread_cpu() + secs;
  do {
    WL_SPIN(WL_CHUNK, sink);
  } while(wl_thread_cpu() < end);
}
