/* forks N [MS]: forks N children one after another, each spending MS
 * milliseconds (default 1) of CPU in fork_child_work and exiting with
 * status 0; the parent reaps each before the next.  Prints the number
 * that succeeded; exits 0 when all did. */
#define _GNU_SOURCE
#include "workload.h"

#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;

static WL_HOT void fork_child_work(double secs)
{
  double end = wl_thread_cpu() + secs;
  do {
    WL_SPIN(WL_CHUNK / 16, sink);
  } while(wl_thread_cpu() < end);
}

int main(int argc, char **argv)
{
  int n = (int)wl_arg(argc, argv, 1, 500);
  double secs = wl_arg(argc, argv, 2, 1) / 1000;
  int ok = 0;
  fflush(NULL);
  for(int i = 0; i < n; i++) {
    pid_t pid = fork();
    if(pid < 0) {
      perror("forks: fork");
      break;
    }
    if(pid == 0) {
      fork_child_work(secs);
      _exit(0);
    }
    int st;
    if(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st))
      ok++;
  }
  printf("%d\n", ok);
  return ok == n ? 0 : 1;
}
