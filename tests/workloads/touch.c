/* Known work for the counters: touches PAGES fresh pages (one page fault
 * each), then burns CPU in two threads and a forked child, and prints what
 * getrusage saw for itself and its children:
 *   touch PAGES SECONDS -> "rusage cpu_ns=N minflt=N" on stdout */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "workload.h"

static double burn_secs;
static volatile unsigned long sink;

/* secs of this thread's CPU */
static void burn(double secs)
{
  double end = wl_thread_cpu() + secs;
  while(wl_thread_cpu() < end)
    WL_SPIN(WL_CHUNK, sink);
}

static void *burn_thread(void *arg)
{
  (void)arg;
  burn(burn_secs);
  return NULL;
}

static long long tv_ns(struct timeval tv)
{
  return (long long)tv.tv_sec * 1000000000LL + (long long)tv.tv_usec * 1000;
}

int main(int argc, char **argv)
{
  long pages = (long)wl_arg(argc, argv, 1, 1000);
  burn_secs = wl_arg(argc, argv, 2, 0.2);
  long pagesize = sysconf(_SC_PAGESIZE);
  volatile char *mem = mmap(NULL, (size_t)(pages * pagesize),
                            PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if(mem == MAP_FAILED)
    return 1;
  for(long i = 0; i < pages; i++)
    mem[i * pagesize] = 1;
  pthread_t t;
  pthread_create(&t, NULL, burn_thread, NULL);
  pid_t child = fork();
  if(child == 0) {
    burn(burn_secs);
    _exit(0);
  }
  burn(burn_secs);
  pthread_join(t, NULL);
  waitpid(child, NULL, 0);
  struct rusage self, kids;
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &kids);
  long long cpu = tv_ns(self.ru_utime) + tv_ns(self.ru_stime) +
                  tv_ns(kids.ru_utime) + tv_ns(kids.ru_stime);
  printf("rusage cpu_ns=%lld minflt=%ld\n", cpu,
         self.ru_minflt + kids.ru_minflt);
  return 0;
}
