// A Google Benchmark harness whose one benchmark, BM_Work, does the same
// fixed work in work_unit each iteration: run with a longer
// --benchmark_min_time it runs more iterations, and more work per run,
// for the same work per iteration (compare_iterations.sh).
#include <benchmark/benchmark.h>

#include <cstdint>

static volatile std::uint64_t sink;

__attribute__((noinline)) static void work_unit()
{
  std::uint64_t x = 1;
  for(std::int64_t i = 0; i < 1000000; i++)
    x = x * 2654435761u + static_cast<std::uint64_t>(i);
  sink = x;
}

static void BM_Work(benchmark::State &state)
{
  for(auto _ : state)
    work_unit();
}
BENCHMARK(BM_Work);

BENCHMARK_MAIN();
