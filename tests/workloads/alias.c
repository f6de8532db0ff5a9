/* Calls functions that share their address with other symbols in libc
 * (malloc and __libc_malloc, free and __libc_free), for the name a
 * profile gives them.  Usage: alias [CPU_SECONDS] */
#include "workload.h"

#include <stdlib.h>

static void *volatile keep;

WL_HOT static void churn(void)
{
  void *v[64];
  for(int i = 0; i < 64; i++)
    v[i] = malloc(200000 + 4096 * (size_t)i);  /* mmap'd: malloc works */
  for(int i = 0; i < 64; i++) {
    keep = v[i];
    free(v[i]);
  }
}

int main(int argc, char **argv)
{
  double end = wl_thread_cpu() + wl_arg(argc, argv, 1, 0.5);
  while(wl_thread_cpu() < end)
    churn();
  return 0;
}
