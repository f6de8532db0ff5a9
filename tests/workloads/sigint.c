/* sigint READYFILE [LIMIT]: installs a SIGINT handler, creates READYFILE,
 * then spins in sigint_work until SIGINT arrives, prints
 * "sigint: caught SIGINT" and exits 42.  Without SIGINT it gives up after
 * LIMIT seconds of CPU (default 30) and exits 3. */
#define _POSIX_C_SOURCE 200809L
#include "workload.h"

#include <signal.h>
#include <string.h>

static volatile unsigned long sink;
static volatile sig_atomic_t got_sigint;

static void on_sigint(int sig)
{
  (void)sig;
  got_sigint = 1;
}

static WL_HOT void sigint_work(double limit)
{
  double end = wl_thread_cpu() + limit;
  while(!got_sigint && wl_thread_cpu() < end)
    WL_SPIN(WL_CHUNK, sink);
}

int main(int argc, char **argv)
{
  if(argc < 2) {
    fprintf(stderr, "usage: sigint READYFILE [LIMIT]\n");
    return 2;
  }
  double limit = wl_arg(argc, argv, 2, 30);
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  if(sigaction(SIGINT, &sa, NULL)) {
    perror("sigint: sigaction");
    return 1;
  }
  FILE *f = fopen(argv[1], "w");
  if(!f || fclose(f)) {
    perror("sigint: READYFILE");
    return 1;
  }
  sigint_work(limit);
  if(!got_sigint) {
    fprintf(stderr, "sigint: no SIGINT within %g s of CPU\n", limit);
    return 3;
  }
  printf("sigint: caught SIGINT\n");
  return 42;
}
