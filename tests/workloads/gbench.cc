// A real Google Benchmark harness with two benchmarks of known, different
// cost, for `benchprof run --adapter google-benchmark`.
#include <benchmark/benchmark.h>

#include <cstdint>

static std::uint64_t spin(std::int64_t n)
{
  std::uint64_t x = 1;
  for(std::int64_t i = 0; i < n; i++)
    x = x * 2654435761u + static_cast<std::uint64_t>(i);
  return x;
}

static void BM_Small(benchmark::State &state)
{
  for(auto _ : state)
    benchmark::DoNotOptimize(spin(1000));
}
BENCHMARK(BM_Small);

static void BM_Large(benchmark::State &state)
{
  for(auto _ : state)
    benchmark::DoNotOptimize(spin(10000));
}
BENCHMARK(BM_Large);

BENCHMARK_MAIN();
