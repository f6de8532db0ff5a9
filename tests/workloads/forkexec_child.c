/* forkexec_child SECONDS: exec'd by forkexec.  Forks once more: the
 * grandchild spends SECONDS of CPU in fe_grandchild_work, this process in
 * fe_child_work.  Exits 0 when the grandchild succeeded. */
#define _GNU_SOURCE
#include "workload.h"

#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;

static WL_HOT void fe_child_work(double secs)
{
  double end = wl_thread_cpu() + secs;
  do {
    WL_SPIN(WL_CHUNK, sink);
  } while(wl_thread_cpu() < end);
}

static WL_HOT void fe_grandchild_work(double secs)
{
  double end = wl_thread_cpu() + secs;
  do {
    WL_SPIN(WL_CHUNK, sink);
  } while(wl_thread_cpu() < end);
}

int main(int argc, char **argv)
{
  double secs = wl_arg(argc, argv, 1, 0.3);
  wl_full_stack();
  fflush(NULL);
  pid_t pid = fork();
  if(pid < 0) {
    perror("forkexec_child: fork");
    return 1;
  }
  if(pid == 0) {
    fe_grandchild_work(secs);
    _exit(0);
  }
  fe_child_work(secs);
  int st;
  if(waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
    fprintf(stderr, "forkexec_child: grandchild failed\n");
    return 1;
  }
  return 0;
}
