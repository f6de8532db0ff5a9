/* bench_switch: a workload that does little but switch, for the cost of
 * --off-cpu in the performance harness (make bench).
 *
 *   bench_switch [-n ROUNDS] [-r REPORT]
 *
 * Two threads pass a one-byte token back and forth through two pipes,
 * ROUNDS round trips (default 100000): each pass blocks the sender until
 * the other answers, so every round trip is two voluntary switches or
 * more (hundreds of thousands a second on an idle machine).  -r REPORT
 * appends one JSON line as bench_work does (wall from main to the end of
 * the passes, user and sys time, the CLOCK_MONOTONIC start and end) and
 * the switches a second it reached (2 per round trip, a lower bound). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static int ping[2], pong[2];
static long rounds = 100000;

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static __attribute__((noinline)) int pass(int to, int from)
{
  char c = 't';
  return write(to, &c, 1) == 1 && read(from, &c, 1) == 1;
}

static void *answer(void *arg)
{
  (void)arg;
  char c;
  for(long i = 0; i < rounds; i++)
    if(read(ping[0], &c, 1) != 1 || write(pong[1], &c, 1) != 1)
      break;
  return NULL;
}

int main(int argc, char **argv)
{
  double t0 = now();
  const char *report = NULL;
  int opt;
  while((opt = getopt(argc, argv, "n:r:")) != -1) {
    switch(opt) {
    case 'n': rounds = atol(optarg); break;
    case 'r': report = optarg; break;
    default:
      fprintf(stderr, "usage: bench_switch [-n ROUNDS] [-r FILE]\n");
      return 2;
    }
  }
  pthread_t t;
  if(pipe(ping) || pipe(pong) || pthread_create(&t, NULL, answer, NULL)) {
    perror("bench_switch");
    return 1;
  }
  for(long i = 0; i < rounds; i++)
    if(!pass(ping[1], pong[0]))
      return 1;
  pthread_join(t, NULL);
  double t1 = now();
  if(report) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    FILE *f = fopen(report, "a");
    if(f) {
      fprintf(f,
              "{\"wall\": %.6f, \"user\": %.6f, \"sys\": %.6f, "
              "\"rounds\": %ld, \"switches_per_s\": %.0f, "
              "\"t_start\": %.6f, \"t_end\": %.6f}\n",
              t1 - t0,
              (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6,
              (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6,
              rounds, 2.0 * rounds / (t1 - t0), t0, t1);
      fclose(f);
    }
  }
  return 0;
}
