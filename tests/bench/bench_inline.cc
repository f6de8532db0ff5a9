// The harness's workload for the cost of inlined frames (`make bench`,
// section "inline"): C++ built -O2 -g, whose hot code is the standard
// library's algorithms and containers inlined into the caller (std::sort,
// std::map, std::unordered_map, std::string), so many addresses carry
// inline chains.  Usage: bench_inline [-n ROUNDS] [-r FILE]; -r appends
// the report line bench_work writes (wall, user, sys, t_start, t_end).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double now()
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static unsigned long round_of(unsigned seed)
{
  std::mt19937 rng(seed);
  std::vector<std::string> words(20000);
  for(auto &w : words)
    w = std::to_string(rng()) + "-" + std::to_string(rng() % 1000);
  std::sort(words.begin(), words.end());
  std::map<std::string, unsigned> counts;
  std::unordered_map<unsigned, unsigned> seen;
  for(const auto &w : words) {
    counts[w.substr(0, 4)]++;
    seen[(unsigned)w.size() * 31u + (unsigned)w[0]]++;
  }
  std::vector<unsigned> nums(50000);
  for(auto &n : nums)
    n = rng();
  std::sort(nums.begin(), nums.end(), std::greater<unsigned>());
  return counts.size() + seen.size() + nums[nums.size() / 2];
}

int main(int argc, char **argv)
{
  double t0 = now();
  long rounds = 20;
  const char *report = nullptr;
  int opt;
  while((opt = getopt(argc, argv, "n:r:")) != -1) {
    if(opt == 'n')
      rounds = atol(optarg);
    else if(opt == 'r')
      report = optarg;
    else {
      fprintf(stderr, "usage: bench_inline [-n ROUNDS] [-r FILE]\n");
      return 2;
    }
  }
  unsigned long acc = 0;
  for(long i = 0; i < rounds; i++)
    acc += round_of((unsigned)i);
  double t1 = now();
  if(report) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    FILE *f = fopen(report, "a");
    if(f) {
      fprintf(f,
              "{\"wall\": %.6f, \"user\": %.6f, \"sys\": %.6f, "
              "\"maxrss_kib\": %ld, \"units\": %ld, \"threads\": 1, "
              "\"t_start\": %.6f, \"t_end\": %.6f, \"acc\": %lu}\n",
              t1 - t0,
              (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6,
              (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6,
              ru.ru_maxrss, rounds, t0, t1, acc);
      fclose(f);
    }
  }
  return 0;
}
