/* A stand-in for a Google Benchmark harness whose binary is rebuilt
 * between two of its benchmarks (symbols_each.sh).  Built twice, with
 * -DHOT=hot_v1 and -DHOT=hot_v2: the benchmarks spend their time in
 * HOT, so a profile names the build that ran.
 *   --benchmark_list_tests...   BM_A, BM_B and BM_C, one a line
 *   --benchmark_filter=^NAME$   spins about SPIN_MS of CPU in HOT, then
 *                               writes Google Benchmark's JSON for NAME
 * With SYMSWAP_NEW set to a file, BM_C first renames that file over its
 * own program (argv[0], a path) and runs it instead: the rebuild. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef HOT
#define HOT hot_v1
#endif
#define SPIN_MS 150

static double cpu_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

__attribute__((noinline)) static uint64_t HOT(uint64_t x)
{
  for(int i = 0; i < 100000; i++)
    x = x * 6364136223846793005u + 1442695040888963407u;
  return x;
}

int main(int argc, char **argv)
{
  if(argc > 1 && !strncmp(argv[1], "--benchmark_list_tests", 22)) {
    puts("BM_A\nBM_B\nBM_C");
    return 0;
  }
  const char *prefix = "--benchmark_filter=^";
  if(argc < 2 || strncmp(argv[1], prefix, strlen(prefix)))
    return 2;
  char name[64];
  snprintf(name, sizeof(name), "%s", argv[1] + strlen(prefix));
  name[strcspn(name, "$")] = '\0';
  const char *next = getenv("SYMSWAP_NEW");
  if(!strcmp(name, "BM_C") && next && *next && !access(next, X_OK)) {
    if(rename(next, argv[0]))
      return 3;
    execv(argv[0], argv);
    return 4;
  }
  uint64_t x = 1;
  for(double t0 = cpu_ms(); cpu_ms() - t0 < SPIN_MS;)
    x = HOT(x);
  printf("{\"benchmarks\": [{\"name\": \"%s\", \"run_type\": \"iteration\", "
         "\"iterations\": 1, \"real_time\": %u, \"cpu_time\": 1, "
         "\"time_unit\": \"ns\"}]}\n", name, (unsigned)(x % 7 + 1));
  return 0;
}
