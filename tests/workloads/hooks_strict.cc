/* hooks.h under a strict -std=c11 (no POSIX declarations) or C++: the
 * markers still reach benchprof, stamped by benchprof ("-") when the
 * header cannot read CLOCK_MONOTONIC itself. */
#include <benchprof/hooks.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void strict_hot(void)
{
  unsigned long x = 1;
  for(long i = 0; i < 60000000L; i++)
    x = x * 2654435761UL + (unsigned long)i;
  sink = x;
}

int main(void)
{
  benchprof_begin("strict");
  strict_hot();
  benchprof_end();
  return 0;
}
