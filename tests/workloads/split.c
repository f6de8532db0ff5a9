/* split [SECONDS]: spends SECONDS of CPU (default 0.6), 75% of it in
 * split_hot75 and 25% in split_hot25.  The two have identical bodies and
 * every round runs 3N iterations in one and N in the other, so the work
 * splits exactly 3:1 whatever the machine's speed, and the time does on
 * average.  One run's profile is still a sample: its split moves by its
 * sampling noise, and the loop around the calls and the clock read after
 * each round (its kernel time too) take a share of their own that grows
 * on a busy machine, so a test takes the split of the two functions'
 * samples over several runs (record_split.sh).  Rounds are short (about
 * 100 microseconds) and of pseudo-random length, so they cannot fall into
 * step with the sampling clock and bias which of the two a sample hits.
 * (Giving each round to the function behind its share of the thread's
 * CPU clock was tried: on a virtual machine whose clock reads take
 * microseconds its profiles came out 77/23.) */
#include "workload.h"

#define ROUND_UNIT 5000L

static volatile unsigned long sink;

static WL_HOT void split_hot75(long n)
{
  WL_SPIN(n, sink);
}

static WL_HOT void split_hot25(long n)
{
  WL_SPIN(n, sink);
}

int main(int argc, char **argv)
{
  double end = wl_thread_cpu() + wl_arg(argc, argv, 1, 0.6);
  unsigned long long lcg = 88172645463325252ULL;
  do {
    lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
    long n = ROUND_UNIT * (long)(1 + (lcg >> 33) % 8);
    split_hot75(3 * n);
    split_hot25(n);
  } while(wl_thread_cpu() < end);
  return 0;
}
