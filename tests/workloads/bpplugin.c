/* libbpplugin.so: dlopen'ed by the shlib workload. */
#include "workload.h"

void bpplugin_hot(double secs);

static volatile unsigned long sink;

WL_HOT void bpplugin_hot(double secs)
{
  double end = wl_thread_cpu() + secs;
  do {
    WL_SPIN(WL_CHUNK, sink);
  } while(wl_thread_cpu() < end);
}
