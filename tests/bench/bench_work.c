/* bench_work: CPU-bound workload for the performance harness (make bench).
 *
 *   bench_work [-t THREADS] [-n UNITS | -d SECONDS] [-r REPORT]
 *
 * Each thread runs a small call tree (several functions at several depths,
 * so profiles have real stacks) either for UNITS work units (fixed work:
 * slowdown is measurable) or until SECONDS of wall time have passed (long
 * runs for the RSS check).  -r REPORT appends one JSON line with the
 * workload's own view of itself: wall time from main to the end of the
 * work, getrusage(RUSAGE_SELF) user/sys/maxrss, and the CLOCK_MONOTONIC
 * times at which main started and the work ended (t_start, t_end).  The
 * harness subtracts these from what wait4 reports for a profiler's whole
 * process tree, and splits the profiler's own CPU time at t_start/t_end:
 * exactly, from the CPU time of the parent (the profiler that started us)
 * read here at those two moments from /proc/PPID/task/ * /schedstat
 * (parent_cpu_start, parent_cpu_end, in seconds; -1 when unreadable). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static volatile uint64_t sink;
static long units = 100;
static double seconds = 0;
static double t_end;

/* CPU time of every thread of pid so far, in seconds, or -1. */
static double proc_cpu(pid_t pid)
{
  char path[64];
  snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
  DIR *d = opendir(path);
  if(!d)
    return -1;
  double sum = 0;
  struct dirent *e;
  while((e = readdir(d))) {
    if(e->d_name[0] == '.')
      continue;
    char stat[128];
    snprintf(stat, sizeof(stat), "/proc/%d/task/%.20s/schedstat", (int)pid,
             e->d_name);
    FILE *f = fopen(stat, "r");
    unsigned long long ns = 0;
    if(f && fscanf(f, "%llu", &ns) == 1)
      sum += (double)ns * 1e-9;
    if(f)
      fclose(f);
  }
  closedir(d);
  return sum;
}

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

NOINLINE static uint64_t leaf_mix(uint64_t x, int n)
{
  for(int i = 0; i < n; i++)
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  return x;
}

NOINLINE static uint64_t leaf_hash(uint64_t x, int n)
{
  for(int i = 0; i < n; i++) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 29;
  }
  return x;
}

NOINLINE static uint64_t tree(uint64_t x, int depth)
{
  if(depth == 0)
    return (x & 1) ? leaf_mix(x, 400) : leaf_hash(x, 300);
  uint64_t a = tree(x + 1, depth - 1);
  uint64_t b = tree(a ^ x, depth - 1);
  return a + b;
}

NOINLINE static uint64_t parse_step(uint64_t x) { return tree(x, 6); }
NOINLINE static uint64_t solve_step(uint64_t x) { return tree(x * 3, 7); }
NOINLINE static uint64_t emit_step(uint64_t x) { return leaf_mix(x, 20000) + 1; }

/* One work unit: a fraction of a millisecond; the harness calibrates. */
NOINLINE static uint64_t work_unit(uint64_t x)
{
  x = parse_step(x);
  x = solve_step(x);
  return emit_step(x) ^ 7;
}

NOINLINE static void *thread_main(void *arg)
{
  uint64_t x = (uint64_t)(uintptr_t)arg;
  if(seconds > 0) {
    while(now() < t_end)
      for(int i = 0; i < 10; i++)
        x = work_unit(x);
  }
  else {
    for(long i = 0; i < units; i++)
      x = work_unit(x);
  }
  sink += x;
  return NULL;
}

int main(int argc, char **argv)
{
  double t0 = now();
  pid_t parent = getppid();
  double parent_start = proc_cpu(parent);
  int threads = 1, opt;
  const char *report = NULL;
  while((opt = getopt(argc, argv, "t:n:d:r:")) != -1) {
    switch(opt) {
    case 't': threads = atoi(optarg); break;
    case 'n': units = atol(optarg); break;
    case 'd': seconds = atof(optarg); break;
    case 'r': report = optarg; break;
    default:
      fprintf(stderr, "usage: bench_work [-t N] [-n UNITS | -d S] [-r FILE]\n");
      return 2;
    }
  }
  if(threads < 1)
    threads = 1;
  t_end = t0 + seconds;
  pthread_t *tid = calloc((size_t)threads, sizeof(*tid));
  if(!tid)
    return 1;
  for(int i = 1; i < threads; i++)
    if(pthread_create(&tid[i], NULL, thread_main, (void *)(uintptr_t)(i + 1))) {
      perror("pthread_create");
      return 1;
    }
  thread_main((void *)(uintptr_t)1);
  for(int i = 1; i < threads; i++)
    pthread_join(tid[i], NULL);
  double t1 = now();
  double parent_end = proc_cpu(parent);
  if(report) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    FILE *f = fopen(report, "a");
    if(f) {
      fprintf(f,
              "{\"wall\": %.6f, \"user\": %.6f, \"sys\": %.6f, "
              "\"maxrss_kib\": %ld, \"units\": %ld, \"threads\": %d, "
              "\"t_start\": %.6f, \"t_end\": %.6f, \"ppid\": %d, "
              "\"parent_cpu_start\": %.6f, \"parent_cpu_end\": %.6f}\n",
              t1 - t0,
              (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6,
              (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6,
              ru.ru_maxrss, units, threads, t0, t1, (int)parent,
              parent_start, parent_end);
      fclose(f);
    }
  }
  free(tid);
  return 0;
}
