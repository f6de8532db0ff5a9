/* segv [SECONDS]: spends SECONDS of CPU (default 0.3) in segv_work, then
 * writes through a null pointer and dies of SIGSEGV. */
#include "workload.h"

static volatile unsigned long sink;

static WL_HOT void segv_work(double secs)
{
  double end = wl_thread_cpu() + secs;
  do {
    WL_SPIN(WL_CHUNK, sink);
  } while(wl_thread_cpu() < end);
}

int main(int argc, char **argv)
{
  segv_work(wl_arg(argc, argv, 1, 0.3));
  printf("segv: writing through NULL\n");
  fflush(stdout);
  /* a volatile pointer to volatile: neither a compile-time trap nor a
   * store the compiler may drop */
  volatile int *volatile p = NULL;
  *p = 42;
  return 0;
}
