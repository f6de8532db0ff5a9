/* main -> chain_a -> chain_b -> chain_leaf, built without frame pointers
 * (-O2 -fomit-frame-pointer): only DWARF unwinding recovers the chain.
 * Each caller does work after its call, so no call becomes a jump.
 * Usage: unwind_chain [CPU_SECONDS] [small-stack]
 * small-stack: the chain runs in a thread whose 64 KiB stack has an
 * unmapped page right above it, so every stack copy ends short of 8 KiB
 * (the kernel stops at the page: dyn_size < size), whatever lies around
 * the main thread's stack. */
#include "workload.h"

#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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

static double secs;

WL_HOT static void *spin(void *arg)
{
  double end = wl_thread_cpu() + secs;
  unsigned long acc = 0;
  while(wl_thread_cpu() < end)
    acc += chain_a(WL_CHUNK);
  sink = acc;
  return arg;
}

/* spin() on a thread whose stack ends at an unmapped page */
static int spin_on_small_stack(void)
{
  size_t page = (size_t)sysconf(_SC_PAGESIZE), size = 64 * 1024;
  unsigned char *m = mmap(NULL, size + page, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if(m == MAP_FAILED || mprotect(m + size, page, PROT_NONE)) {
    perror("unwind_chain: stack");
    return 1;
  }
  pthread_attr_t attr;
  pthread_t t;
  pthread_attr_init(&attr);
  int e = pthread_attr_setstack(&attr, m, size);
  if(!e)
    e = pthread_create(&t, &attr, spin, NULL);
  if(!e)
    e = pthread_join(t, NULL);
  if(e) {
    fprintf(stderr, "unwind_chain: thread: %s\n", strerror(e));
    return 1;
  }
  return 0;
}

int main(int argc, char **argv)
{
  secs = wl_arg(argc, argv, 1, 0.5);
  wl_full_stack();
  if(argc > 2 && !strcmp(argv[2], "small-stack"))
    return spin_on_small_stack();
  /* the loop of spin() in main itself: main is chain_a's caller */
  double end = wl_thread_cpu() + secs;
  unsigned long acc = 0;
  while(wl_thread_cpu() < end)
    acc += chain_a(WL_CHUNK);
  sink = acc;
  return 0;
}
