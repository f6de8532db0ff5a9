/* An always-inlined function, built -O2 -g: inl_mix has no code of its
 * own, only DWARF's DW_TAG_inlined_subroutine in inl_caller says where its
 * instructions are.  inl_caller spends all its time in inl_mix; inl_twin
 * (never inlined) runs the same loop with another shift, so both take half
 * of the CPU time: a profile must show inl_mix as a frame of its own,
 * called by inl_caller, with inl_twin's share.
 * Usage: inline [CPU_SECONDS] */
#include "workload.h"

static volatile unsigned long sink;

/* n rounds of a multiply-xorshift: dependent, no calls */
static inline __attribute__((always_inline)) unsigned long
inl_mix(unsigned long x, long n)
{
  for(long i = 0; i < n; i++) {
    x = x * 6364136223846793005UL + 1442695040888963407UL;
    x ^= x >> 29;
  }
  return x;
}

WL_HOT static unsigned long inl_caller(unsigned long x, long n)
{
  return inl_mix(x, n);
}

WL_HOT static unsigned long inl_twin(unsigned long x, long n)
{
  for(long i = 0; i < n; i++) {
    x = x * 6364136223846793005UL + 1442695040888963407UL;
    x ^= x >> 31;
  }
  return x;
}

int main(int argc, char **argv)
{
  double end = wl_thread_cpu() + wl_arg(argc, argv, 1, 1.0);
  unsigned long acc = 1;
  while(wl_thread_cpu() < end) {
    acc = inl_caller(acc, WL_CHUNK);
    acc = inl_twin(acc, WL_CHUNK);
  }
  sink = acc;
  return 0;
}
