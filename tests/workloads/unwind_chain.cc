// The C++ twin of unwind_chain.c: main -> chain::a -> chain::b ->
// chain::leaf in a namespace, built without frame pointers.
// Usage: unwind_chain_cxx [CPU_SECONDS]
#include "workload.h"

namespace chain {

volatile unsigned long sink;

WL_HOT unsigned long leaf(long n)
{
  unsigned long x;
  WL_SPIN(n, x);
  return x;
}

WL_HOT unsigned long b(long n)
{
  unsigned long r = leaf(n);
  sink = sink + 1;
  return r ^ static_cast<unsigned long>(n);
}

WL_HOT unsigned long a(long n)
{
  unsigned long r = b(n);
  sink = sink + 1;
  return r + static_cast<unsigned long>(n);
}

}  // namespace chain

int main(int argc, char **argv)
{
  double secs = wl_arg(argc, argv, 1, 0.5);
  double end = wl_thread_cpu() + secs;
  unsigned long acc = 0;
  while(wl_thread_cpu() < end)
    acc += chain::a(WL_CHUNK);
  chain::sink = acc;
  return 0;
}
