/* qsort with a comparator that burns CPU: its samples unwind through
 * libc's qsort (no frame pointers, .eh_frame only) back to sort_all and
 * main.  Usage: unwind_qsort [CPU_SECONDS] */
#include "workload.h"

#define N 4096

static volatile unsigned long sink;

WL_HOT static int slow_cmp(const void *pa, const void *pb)
{
  unsigned long x;
  WL_SPIN(200, x);
  sink = x;
  int a = *(const int *)pa, b = *(const int *)pb;
  return (a > b) - (a < b);
}

WL_HOT static void sort_all(int *v, unsigned seed)
{
  for(int i = 0; i < N; i++) {
    seed = seed * 1103515245u + 12345u;
    v[i] = (int)(seed >> 8);
  }
  qsort(v, N, sizeof(*v), slow_cmp);
  sink = sink + (unsigned long)v[0];
}

int main(int argc, char **argv)
{
  double secs = wl_arg(argc, argv, 1, 0.5);
  double end = wl_thread_cpu() + secs;
  static int v[N];
  unsigned seed = 1;
  while(wl_thread_cpu() < end)
    sort_all(v, seed++);
  return 0;
}
