/* Calls fid_entry (fidlib.c) for about ARGV[1] seconds of CPU time
 * (default 0.3). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

unsigned long fid_entry(unsigned long n);

static double cpu_seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
  double want = argc > 1 ? atof(argv[1]) : 0.3;
  double start = cpu_seconds();
  unsigned long sum = 0;
  while(cpu_seconds() - start < want)
    sum += fid_entry(1000000);
  printf("fidmain done (%lu)\n", sum & 1);
  return 0;
}
