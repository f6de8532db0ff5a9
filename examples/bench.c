/* A small benchmark suite to try benchprof on: three kernels with
 * different profiles (sorting, hashing, a matrix product), each timed and
 * reported like a benchmark harness would.  Built with frame pointers so
 * the profile has whole stacks.
 *
 *   benchprof record -- examples/bench [SCALE]
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t next_random(void)
{
  /* xorshift64*: reproducible input without calling into libc */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545f4914f6cdd1dULL;
}

static int compare_u32(const void *a, const void *b)
{
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

__attribute__((noinline)) static uint64_t bench_sort(size_t n)
{
  uint32_t *v = malloc(n * sizeof(*v));
  if(!v)
    return 0;
  for(size_t i = 0; i < n; i++)
    v[i] = (uint32_t)next_random();
  qsort(v, n, sizeof(*v), compare_u32);
  uint64_t check = v[n / 2];
  free(v);
  return check;
}

__attribute__((noinline)) static uint64_t fnv1a(const unsigned char *p,
                                                size_t len)
{
  uint64_t h = 0xcbf29ce484222325ULL;
  for(size_t i = 0; i < len; i++) {
    h ^= p[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

__attribute__((noinline)) static uint64_t bench_hash(size_t rounds)
{
  unsigned char block[4096];
  for(size_t i = 0; i < sizeof(block); i++)
    block[i] = (unsigned char)next_random();
  uint64_t h = 0;
  for(size_t r = 0; r < rounds; r++) {
    block[r % sizeof(block)] ^= (unsigned char)h;
    h ^= fnv1a(block, sizeof(block));
  }
  return h;
}

__attribute__((noinline)) static double bench_matmul(size_t n)
{
  double *a = malloc(n * n * sizeof(double));
  double *b = malloc(n * n * sizeof(double));
  double *c = calloc(n * n, sizeof(double));
  double trace = 0;
  if(a && b && c) {
    for(size_t i = 0; i < n * n; i++) {
      a[i] = (double)(next_random() % 100) / 10.0;
      b[i] = (double)(next_random() % 100) / 10.0;
    }
    for(size_t i = 0; i < n; i++)
      for(size_t k = 0; k < n; k++)
        for(size_t j = 0; j < n; j++)
          c[i * n + j] += a[i * n + k] * b[k * n + j];
    for(size_t i = 0; i < n; i++)
      trace += c[i * n + i];
  }
  free(a);
  free(b);
  free(c);
  return trace;
}

static double seconds_since(const struct timespec *t0)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)(t.tv_sec - t0->tv_sec) +
         (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

int main(int argc, char **argv)
{
  double scale = argc > 1 ? strtod(argv[1], NULL) : 1.0;
  if(scale <= 0)
    scale = 1.0;
  struct timespec t0;
  uint64_t sink = 0;

  clock_gettime(CLOCK_MONOTONIC, &t0);
  sink += bench_sort((size_t)(2000000 * scale));
  printf("sort     %8.1f ms\n", seconds_since(&t0) * 1e3);

  clock_gettime(CLOCK_MONOTONIC, &t0);
  sink += bench_hash((size_t)(60000 * scale));
  printf("hash     %8.1f ms\n", seconds_since(&t0) * 1e3);

  clock_gettime(CLOCK_MONOTONIC, &t0);
  sink += (uint64_t)bench_matmul((size_t)(400 * (scale < 1 ? scale : 1)));
  printf("matmul   %8.1f ms\n", seconds_since(&t0) * 1e3);

  printf("checksum %" PRIx64 "\n", sink);
  return 0;
}
